"""Apply tests/fixtures/speed/speedmap7_decisions.md exactly: add `flash_attention: false` to the listed training rows
(attention without a fused flash kernel, as their sources state). Only rows that do not carry the field yet are changed;
nothing else is touched. Run from the repository root. Lines are rewritten in place (same order)."""
import json
import re
from pathlib import Path
D = Path("tests/fixtures/speed")
RULES = {
    "fresh9_train_runs.jsonl": [r"^hisohara-aac-mi300x-megatron-rocm-llama2-7b-fp8-8gpu-mbs4-gbs256-noflash$"],
    "fresh39_train_runs.jsonl": [r"^pax-cd3f8fb-", r"^pax-0005642-126m-"],
    "fresh65_train_runs.jsonl": [r"^pax-69233e9-", r"^pax-816d88b-"],
    "fresh55_train_runs.jsonl": [r"^modellink-d4feda7-atlas900a2-bloom-(7b1-2k-1x8|176b-2k-12x8)$"],
    "fresh61_train_runs.jsonl": [r"^mindformers-0c49711-deepseek-v2-236b-910b-64npu-s4096$"],
    "fresh67_train_runs.jsonl": [r"^modellink-examples-4409169-910b-baichuan2-13b-4k-tp8-gbs8$", r"^modellink-examples-4ba39f3-910b-baichuan-13b-4k-1x8$"],
    "fresh71_train_runs.jsonl": [r"^modellink-examples-(ed31b64|1360d37|1609a0f)-"],
}
total = 0
for fn, pats in RULES.items():
    p = D / fn
    out = []
    n = 0
    for line in p.read_text().splitlines(keepends=True):
        r = json.loads(line)
        if any(re.search(x, r["id"]) for x in pats):
            if "flash_attention" in r:
                out.append(line)
                continue
            assert line.count('"measured": ') == 1, r["id"]
            new = line.replace('"measured": ', '"flash_attention": false, "measured": ', 1)
            r2 = json.loads(new)
            assert r2.pop("flash_attention") is False and r2 == r
            line = new
            n += 1
        out.append(line)
    p.write_text("".join(out))
    print(fn, n)
    total += n
print("total", total)
