"""--base-weights fp32: a LoRA run whose model is loaded in fp32 and cast to bf16 unit by unit by FSDP's mixed
precision (prime-rl: optimization_dtype float32, FSDP2 MixedPrecisionPolicy(param_dtype=bf16)), also on one GPU."""

import json

import pytest

from conftest import FIXTURES
from gpudesk.cli import main
from gpudesk.planner.requirement import ModelMemory, Requirement
from gpudesk.planner.workload import memory_workload
from gpudesk.sizing import MemoryWorkload, SizingError, estimate_memory, spec_from_hf_config
from gpudesk.sizing.validation import UNIT_BYTES, case_workload, load_cases

SIZING = FIXTURES / "sizing"
CONFIG = SIZING / "configs" / "qwen3-4b.config.json"
SPEC = spec_from_hf_config(CONFIG)
BASE = dict(mode="lora", precision="bf16", optimizer="adamw", sharding="fsdp", seq_len_tokens=16384,
            recompute="full", lora_rank=16, lora_targets=("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj",
                                                           "up_proj", "down_proj"))


def _breakdown(**kw) -> dict:
    return estimate_memory(SPEC, MemoryWorkload(**{**BASE, **kw})).breakdown


def test_fp32_base_is_four_bytes_a_parameter_with_a_gathered_16bit_copy():
    bf16, fp32 = _breakdown(), _breakdown(base_weights="fp32")
    assert bf16["weights"] == SPEC.params * 2
    assert fp32["weights"] == SPEC.params * 4
    assert "gathered_layers" not in bf16  # one GPU, 16-bit base: nothing to cast
    assert fp32["gathered_layers"] > 0
    four = _breakdown(base_weights="fp32", gpus=4)
    assert four["weights"] == SPEC.params * 4 // 4
    assert four["gathered_layers"] == fp32["gathered_layers"]


def test_prime_rl_lora_rows_with_the_fp32_base():
    rows = [c for c in load_cases(SIZING / "measured_peaks_fresh24.jsonl") if "-lora16-" in c["id"]]
    assert len(rows) == 5
    for row in rows:
        spec = spec_from_hf_config(SIZING / "configs" / f"{row['config']}.config.json")
        measured = row["value"] * UNIT_BYTES[row["unit"]]
        plain = estimate_memory(spec, case_workload(row)).reserved_bytes / measured
        fp32 = estimate_memory(spec, case_workload({**row, "base_weights": "fp32"})).reserved_bytes / measured
        assert plain < fp32 <= 1.0, (row["id"], plain, fp32)
        assert fp32 >= 0.82, (row["id"], fp32)


def test_refused_outside_fsdp_mixed_precision():
    for kw in (dict(sharding="ddp"), dict(mode="qlora"), dict(precision="bf16-amp"), dict(precision="fp32")):
        with pytest.raises(SizingError) as err:
            _breakdown(base_weights="fp32", **kw)
        assert err.value.field == "base_weights"


def test_cli_and_wizard(capsys):
    flags = ["estimate", "memory", "--config", str(CONFIG), "--mode", "lora", "--sharding", "fsdp", "--seq", "16384",
             "--recompute", "full", "--lora-rank", "16", "--lora-targets",
             "q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj", "--json"]
    assert main(flags + ["--base-weights", "fp32"]) == 0
    cli = json.loads(capsys.readouterr().out)["per_gpu"]["breakdown_bytes"]
    assert cli["weights"] == SPEC.params * 4
    w = memory_workload(Requirement(model=ModelMemory(mode="lora", base_weights="fp32")))
    assert w.base_weights == "fp32"
