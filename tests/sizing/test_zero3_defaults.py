"""--zero3-defaults: the ZeRO-3 sizes a user leaves out are Hugging Face's "auto" fill or DeepSpeed's own defaults."""

import json

import pytest

from conftest import FIXTURES
from gpudesk.cli import main
from gpudesk.sizing import spec_from_hf_config
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.memory import MemoryWorkload, estimate_memory
from gpudesk.sizing.validation import evaluate_case, load_cases
from gpudesk.sizing.zero3_params import Zero3Settings

CONFIGS = FIXTURES / "sizing" / "configs"
BLOOMZ_7B = spec_from_hf_config(CONFIGS / "bloomz-7b1.config.json")


def _peft779(**kw) -> MemoryWorkload:
    # PEFT issue 779: bloomz-7b1 LoRA under accelerate's DeepSpeed plugin (ZeRO-3, both offloads, no config file).
    base = dict(mode="lora", precision="fp32", gpus=6, sharding="zero3", offload="all", seq_len_tokens=64,
                micro_batch_size=8, lora_rank=8, lora_targets=("query_key_value",), flash_attention=False)
    return MemoryWorkload(**{**base, **kw})


def test_resolved_sizes_by_where_the_unset_ones_come_from():
    assert Zero3Settings().resolved(4096) == (10**9, 10**9, int(0.9 * 4096 * 4096), 40960, 4096 * 4096)
    # deepspeed/runtime/zero/config.py (v0.14.2): reduce_bucket_size 5e8, prefetch 5e7, persistence 1e5.
    assert Zero3Settings(unset="deepspeed").resolved(4096) == (10**9, 10**9, 5 * 10**7, 10**5, 5 * 10**8)
    typed = Zero3Settings(prefetch_bucket_size=10**7, param_persistence_threshold=0, reduce_bucket_size=10**6,
                          unset="deepspeed")
    assert typed.resolved(4096)[2:] == (10**7, 0, 10**6)


def test_deepspeed_defaults_keep_a_5e8_reduce_bucket_on_the_gpu():
    auto = estimate_memory(BLOOMZ_7B, _peft779())
    deepspeed = estimate_memory(BLOOMZ_7B, _peft779(zero3_defaults="deepspeed"))
    typed = estimate_memory(BLOOMZ_7B, _peft779(zero3_reduce_bucket=5 * 10**8, zero3_prefetch_bucket=5 * 10**7,
                                                zero3_persistence_threshold=10**5))
    assert deepspeed.breakdown == typed.breakdown
    # fp32 base: the bucket is 4 bytes an element; the larger prefetch bucket gathers more on top.
    h = BLOOMZ_7B.hidden_size
    assert deepspeed.breakdown["gathered_layers"] - auto.breakdown["gathered_layers"] >= 4 * (5 * 10**8 - h * h)
    assert any("reduce bucket 500,000,000 elements" in a for a, _src in deepspeed.assumptions)


def test_refused_where_nothing_reads_it():
    for kw in (dict(sharding="zero2", offload="optimizer"), dict(sharding="fsdp"), dict(mode="qlora", precision="bf16")):
        with pytest.raises(SizingError) as err:
            estimate_memory(BLOOMZ_7B, _peft779(zero3_defaults="deepspeed", **kw))
        assert err.value.field == "zero3_defaults"
    with pytest.raises(SizingError) as err:
        estimate_memory(BLOOMZ_7B, _peft779(zero3_defaults="auto"))
    assert err.value.field == "zero3_defaults"
    # every size it would fill is given: it would change nothing
    with pytest.raises(SizingError, match="all three are given") as err:
        estimate_memory(BLOOMZ_7B, _peft779(zero3_defaults="deepspeed", zero3_reduce_bucket=5 * 10**8,
                                            zero3_prefetch_bucket=5 * 10**7, zero3_persistence_threshold=10**5))
    assert err.value.field == "zero3_defaults"


def test_peft779_row_typed_with_its_launchers_defaults():
    # accelerate's plugin config (no file) has no bucket keys, so DeepSpeed's defaults held in that run.
    row = next(c for c in load_cases(FIXTURES / "sizing" / "measured_peaks_fresh31.jsonl") if "peft779" in c["id"])
    assert "zero3_defaults" not in row
    auto = evaluate_case(row, CONFIGS)
    typed = evaluate_case({**row, "zero3_defaults": "deepspeed"}, CONFIGS)
    assert typed.estimated_bytes > auto.estimated_bytes
    assert abs(typed.ratio - 1) < 0.05


def test_cli_flag(capsys: pytest.CaptureFixture[str]) -> None:
    bloomz = ["estimate", "memory", "--json", "--config", str(CONFIGS / "bloomz-7b1.config.json"), "--mode", "lora",
              "--precision", "fp32", "--gpus", "6", "--sharding", "zero3", "--offload", "all", "--seq", "64",
              "--batch", "8", "--lora-rank", "8", "--lora-targets", "query_key_value", "--no-flash"]
    assert main(bloomz) == 0
    auto = json.loads(capsys.readouterr().out)["per_gpu"]["allocated_bytes"]
    assert main(bloomz + ["--zero3-defaults", "deepspeed"]) == 0
    # The 5e8-element reduce bucket in fp32 in place of auto's hidden^2 (4,096^2).
    assert json.loads(capsys.readouterr().out)["per_gpu"]["allocated_bytes"] - auto == 4 * (5 * 10**8 - 4096 * 4096)
    zero2 = [a if a != "zero3" else "zero2" for a in bloomz if a not in ("all",)]
    zero2[zero2.index("--offload") + 1:zero2.index("--offload") + 1] = ["optimizer"]
    status = main(zero2 + ["--zero3-defaults", "deepspeed"])
    err = capsys.readouterr().err
    assert status in (1, 2) and "--zero3-defaults:" in err and "sharding zero3" in err
