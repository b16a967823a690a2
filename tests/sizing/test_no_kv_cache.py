"""Generation without a KV cache (``--no-kv-cache``, transformers ``generate(use_cache=False)``), on the published
LLMs-from-scratch "regular" generation runs (Llama 3.2 1B and Qwen3 0.6B, bf16, no cache, eager)."""

from __future__ import annotations

import json

import pytest

from conftest import FIXTURES
from gpudesk.cli import main
from gpudesk.planner.requirement import ModelMemory, Requirement
from gpudesk.planner.workload import memory_workload
from gpudesk.sizing import MemoryWorkload, SizingError, estimate_memory, spec_from_hf_config
from gpudesk.sizing.validation import UNIT_BYTES, case_workload, load_cases

SIZING = FIXTURES / "sizing"
ROWS = {c["id"]: c for c in load_cases(SIZING / "measured_peaks_fresh19.jsonl")}
L32 = spec_from_hf_config(SIZING / "configs" / "llama-3.2-1b-untied.config.json")


def _breakdown(**kw) -> dict:
    base = dict(mode="inference", precision="bf16", weight_format="bf16", context_tokens=4096,
                kv_cache_impl="dynamic", no_kv_cache=True)
    return estimate_memory(L32, MemoryWorkload(**{**base, **kw})).breakdown


def test_no_cache_is_kept_and_the_peak_is_one_pass_over_the_context():
    plain = _breakdown(no_kv_cache=False)
    none = _breakdown()
    assert "kv_cache" in plain and "kv_cache" not in none and "kv_cache_workspace" not in none
    # The last step re-runs the whole context, whatever the prompt was.
    assert _breakdown(prompt_tokens=20)["prefill_workspace"] == none["prefill_workspace"]
    assert none["prefill_workspace"] > _breakdown(context_tokens=1024)["prefill_workspace"]
    assert none["weights"] == plain["weights"]


@pytest.mark.parametrize("case_id", ["fresh19-rasbt-llama-3.2-1b-regular", "fresh19-rasbt-qwen3-0.6b-regular"])
def test_published_cache_less_generation(case_id):
    """Typed with the flag the source's "regular" (no KV cache) generation states; within 15 % of the
    published max_memory_allocated."""
    case = ROWS[case_id]
    spec = spec_from_hf_config(SIZING / "configs" / f"{case['config']}.config.json")
    est = estimate_memory(spec, case_workload({**case, "no_kv_cache": True}))
    assert est.component("kv_cache") == 0
    assert abs(est.allocated_bytes / (case["value"] * UNIT_BYTES[case["unit"]]) - 1) <= 0.15


def test_cli_and_wizard_type_the_same_setting(capsys):
    flags = ["estimate", "memory", "--config", str(SIZING / "configs" / "llama-3.2-1b-untied.config.json"),
             "--mode", "inference", "--precision", "bf16", "--weight-format", "bf16", "--seq", "4096",
             "--kv-cache-impl", "dynamic", "--json"]
    assert main(flags + ["--no-kv-cache"]) == 0
    assert json.loads(capsys.readouterr().out)["per_gpu"]["breakdown_bytes"] == _breakdown()
    assert memory_workload(Requirement(model=ModelMemory(mode="inference", no_kv_cache=True))).no_kv_cache


def test_training_refuses_the_setting():
    with pytest.raises(SizingError) as err:
        estimate_memory(L32, MemoryWorkload(mode="train", no_kv_cache=True))
    assert err.value.field == "no_kv_cache"
