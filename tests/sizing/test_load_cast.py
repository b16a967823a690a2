"""--load-dtype fp32: 16-bit inference weights that reach the GPU as fp32 and are cast there (from_pretrained
without torch_dtype, then .cuda().half()); the cast's first step holds every fp32 parameter and the embedding's
16-bit copy, and the allocator keeps the fp32 blocks reserved."""

import json

import pytest

from conftest import FIXTURES
from gpudesk.cli import main
from gpudesk.sizing import MemoryWorkload, estimate_memory, spec_from_hf_config
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.load_cast import first_cast_copy_bytes
from gpudesk.sizing.validation import UNIT_BYTES, case_workload

CONFIGS = FIXTURES / "sizing" / "configs"
LLAMA2 = spec_from_hf_config(CONFIGS / "llama-2-7b.config.json")


def _rows(prefix: str) -> list[dict]:
    lines = (FIXTURES / "sizing" / "measured_peaks_fresh27.jsonl").read_text(encoding="utf-8").splitlines()
    return [r for r in map(json.loads, filter(None, lines)) if r["id"].startswith(prefix)]


def test_first_copy_is_the_16bit_embedding_table():
    assert first_cast_copy_bytes(LLAMA2, "fp16") == 32000 * 4096 * 2
    assert first_cast_copy_bytes(LLAMA2, "bf16", tensor_parallel=2) == 32000 * 4096


def test_short_prompt_peak_is_the_fp32_model_plus_the_first_copy():
    base = dict(mode="inference", precision="fp16", weight_format="fp16", kv_precision="fp16", context_tokens=16,
                prompt_tokens=8, kv_cache_impl="dynamic")
    plain = estimate_memory(LLAMA2, MemoryWorkload(**base))
    cast = estimate_memory(LLAMA2, MemoryWorkload(**base, load_dtype="fp32"))
    weights = plain.breakdown["weights"]
    transients = sum(v for k, v in plain.breakdown.items()
                     if k not in ("weights", "cuda_context", "framework_overhead", "fragmentation"))
    assert cast.breakdown["load_cast_copy"] == pytest.approx(weights + 32000 * 4096 * 2 - transients)
    # allocated peak = the fp32 weights (2 x the fp16 ones) + the embedding's fp16 copy
    assert cast.allocated_bytes == pytest.approx(2 * weights + 32000 * 4096 * 2)


def test_fp32_weights_need_no_cast_and_quantised_or_training_are_refused():
    base = dict(mode="inference", precision="fp32", weight_format="fp32", kv_precision="fp32", context_tokens=2048,
                prompt_tokens=2048, kv_cache_impl="dynamic")
    plain = estimate_memory(LLAMA2, MemoryWorkload(**base))
    same = estimate_memory(LLAMA2, MemoryWorkload(**base, load_dtype="fp32"))
    assert same.breakdown == plain.breakdown
    with pytest.raises(SizingError) as err:
        estimate_memory(LLAMA2, MemoryWorkload(**{**base, "weight_format": "int4-g128"}, load_dtype="fp32"))
    assert err.value.field == "load_dtype"
    with pytest.raises(SizingError) as err:
        estimate_memory(LLAMA2, MemoryWorkload(**base, load_dtype="fp64"))
    assert err.value.field == "load_dtype"
    with pytest.raises(SizingError) as err:
        estimate_memory(LLAMA2, MemoryWorkload(mode="train", precision="bf16", load_dtype="fp32"))
    assert err.value.field == "load_dtype"


def test_flagperf_mmlu_fp16_rows_typed_with_the_fp32_load():
    # FlagPerf MMLU cases: model.py loads from_pretrained(...) with no torch_dtype, .cuda().float(), then .half();
    # one 2048-token forward. Without the setting the device reading is 0.52-0.57 of the estimate's.
    rows = [r for r in _rows("fresh27-flagperf-mmlu-") if r["weight_format"] == "fp16"]
    assert len(rows) == 3
    for row in rows:
        spec = spec_from_hf_config(CONFIGS / f"{row['config']}.config.json")
        measured = row["value"] * UNIT_BYTES[row["unit"]]
        plain = estimate_memory(spec, case_workload(row)).total_bytes / measured
        cast = estimate_memory(spec, case_workload({**row, "load_dtype": "fp32"})).total_bytes / measured
        assert plain < 0.6 and 0.93 <= cast <= 1.0, (row["id"], plain, cast)


def test_cli_flag_adds_the_part(capsys):
    args = ["estimate", "memory", "--config", str(CONFIGS / "llama-2-7b.config.json"), "--mode", "inference",
            "--precision", "fp16", "--weight-format", "fp16", "--kv-cache-impl", "dynamic", "--seq", "16",
            "--prompt-tokens", "8", "--json"]
    assert main(args) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(args + ["--load-dtype", "fp32"]) == 0
    cast = json.loads(capsys.readouterr().out)
    assert "load_cast_copy" not in plain["per_gpu"]["breakdown_bytes"]
    assert cast["per_gpu"]["breakdown_bytes"]["load_cast_copy"] > plain["per_gpu"]["breakdown_bytes"]["weights"] * 0.9
    assert main(["estimate", "memory", "--config", str(CONFIGS / "llama-2-7b.config.json"), "--mode", "train",
                 "--load-dtype", "fp32"]) != 0
    assert "--load-dtype" in capsys.readouterr().err
