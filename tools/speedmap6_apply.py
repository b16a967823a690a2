"""Apply tests/fixtures/speed/speedmap6_decisions.md exactly: add the MLPerf TensorRT-LLM engine limits the notes and
the submitters' configs state (max_num_seqs, max_num_batched_tokens, enable_chunked_prefill) to the listed rows.
Only fields a row does not carry yet are added; nothing else is touched. Lines are rewritten in place (same order)."""
import json
from pathlib import Path

D = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "speed"

# (file, id prefix, {field: value}); a field already on the row is left as it is.
RULES = [
    ("later_runs.jsonl", "mlperf-i51-nvidia-b200-llama2-70b-offline", dict(max_num_seqs=2048, max_num_batched_tokens=3584, enable_chunked_prefill=True)),
    ("later_runs.jsonl", "mlperf-i51-nvidia-b200-llama2-70b-server", dict(max_num_seqs=2048, max_num_batched_tokens=3584, enable_chunked_prefill=True)),
    ("later_runs.jsonl", "mlperf-i51-nvidia-b200-llama2-70b-interactive", dict(max_num_seqs=768, max_num_batched_tokens=768, enable_chunked_prefill=True)),
    ("later_runs.jsonl", "mlperf-i51-nebius-h200-llama2-70b-offline", dict(max_num_seqs=2048, max_num_batched_tokens=1536, enable_chunked_prefill=True)),
    ("later_runs.jsonl", "mlperf-i51-nebius-h200-llama2-70b-server", dict(max_num_seqs=2048, max_num_batched_tokens=1536, enable_chunked_prefill=True)),
    ("later_runs.jsonl", "mlperf-i51-nebius-h200-llama2-70b-interactive", dict(max_num_seqs=512, max_num_batched_tokens=256, enable_chunked_prefill=True)),
    ("fresh38_serve_runs.jsonl", "mlperf-i60-nvidia-b300-sxm-270gbx8-trt-gpt-oss-120b-", dict(max_num_seqs=896, max_num_batched_tokens=13914, enable_chunked_prefill=True)),
    ("fresh60_serve_runs.jsonl", "mlperf-i60-cisco-c880a-b300x8-gpt-oss-120b-", dict(max_num_seqs=896, max_num_batched_tokens=13914, enable_chunked_prefill=True)),
    ("fresh60_serve_runs.jsonl", "mlperf-i60-gigacomputing-g894-b300x8-gpt-oss-120b-", dict(max_num_seqs=896, max_num_batched_tokens=13914, enable_chunked_prefill=True)),
    ("fresh60_serve_runs.jsonl", "mlperf-i60-hpe-dl380a-rtxpro6000x8-gpt-oss-120b-", dict(max_num_seqs=110, max_num_batched_tokens=17000, enable_chunked_prefill=False)),
    ("fresh60_serve_runs.jsonl", "mlperf-i60-hpe-dl385-rtxpro6000x4-gpt-oss-120b-", dict(max_num_seqs=110, max_num_batched_tokens=17000, enable_chunked_prefill=False)),
    ("fresh74_serve_runs.jsonl", "mlperf-i60-nebius-b200-n1-gpt-oss-120b-offline", dict(max_num_seqs=512, max_num_batched_tokens=6144)),
    ("fresh74_serve_runs.jsonl", "mlperf-i60-nebius-b200-n1-gpt-oss-120b-server", dict(max_num_batched_tokens=13914)),
    ("fresh74_serve_runs.jsonl", "mlperf-i60-nebius-b200-n1-gpt-oss-120b-interactive", dict(max_num_batched_tokens=13914)),
]


def main() -> None:
    changed = 0
    for name in sorted({r[0] for r in RULES}):
        path = D / name
        out = []
        for line in path.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                hits = [r for r in RULES if r[0] == name and row["id"].startswith(r[1])]
                assert len(hits) <= 1, row["id"]
                if hits:
                    assert row.get("engine") == "trtllm", row["id"]
                    add = {k: v for k, v in hits[0][2].items() if k not in row}
                    if add:
                        row.update(add)
                        line = json.dumps(row, ensure_ascii=False)
                        changed += 1
                        print(name, row["id"], add)
            out.append(line)
        path.write_text("\n".join(out) + "\n")
    print("rows changed", changed)


if __name__ == "__main__":
    main()
