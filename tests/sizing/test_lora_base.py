"""LoRA over a bitsandbytes LLM.int8 base (``--base-weights int8``) and PEFT ``modules_to_save``
(``--modules-to-save``), on the published Chinese-LLaMA-Alpaca-2 PR #229 runs (Llama-2-7B with its 55296-token
vocabulary, Tesla P40, DeepSpeed ZeRO-2 on one GPU, fp16, LoRA r 64 on every Linear, gradient checkpointing)."""

from __future__ import annotations

import json

import pytest

from conftest import FIXTURES
from gpudesk.cli import main
from gpudesk.planner.requirement import ModelMemory, Requirement
from gpudesk.planner.workload import memory_workload
from gpudesk.sizing import MemoryWorkload, SizingError, estimate_memory, spec_from_hf_config
from gpudesk.sizing.lora_base import int8_base_bytes, int8_linear_params, modules_to_save_params
from gpudesk.sizing.validation import UNIT_BYTES, case_workload, load_cases

SIZING = FIXTURES / "sizing"
CONFIG = SIZING / "configs" / "chinese-llama-2-7b.config.json"
SPEC = spec_from_hf_config(CONFIG)
PR229 = {c["id"]: c for c in load_cases(SIZING / "measured_peaks_fresh19.jsonl") if "pr229" in c["id"]}


def _estimate(**kw) -> dict:
    base = dict(mode="lora", precision="fp16", optimizer="adamw", sharding="zero2", seq_len_tokens=512,
                recompute="full", lora_rank=64, lora_dropout=0.05, gradient_accumulation=True)
    return estimate_memory(SPEC, MemoryWorkload(**{**base, **kw})).breakdown


def test_int8_base_is_one_byte_a_linear_weight_with_fp32_row_scales():
    linear, rows = int8_linear_params(SPEC)
    # 32 layers x (4 x 4096^2 + 3 x 4096 x 11008) Linear weights; 32 x (4 x 4096 + 2 x 11008 + 4096) output rows.
    assert linear == 32 * (4 * 4096 * 4096 + 3 * 4096 * 11008)
    assert rows == 32 * (5 * 4096 + 2 * 11008)
    assert int8_base_bytes(SPEC) == linear + 4 * rows + 2 * (SPEC.params - linear)
    fp16, int8 = _estimate()["weights"], _estimate(base_weights="int8")["weights"]
    assert fp16 - int8 == pytest.approx(linear - 4 * rows, abs=2)


def test_int8_linears_keep_their_inputs_and_a_dequantised_matrix():
    fp16, int8 = _estimate(), _estimate(base_weights="int8")
    assert int8["activations"] > fp16["activations"]  # MatMul8bitLt saves A for the input gradient
    assert int8["prefill_workspace"] == 4096 * 11008 * 2  # the largest Linear dequantised to fp16


def test_modules_to_save_trains_full_copies_at_the_adapters_bytes():
    assert modules_to_save_params(SPEC, ("embed_tokens", "lm_head")) == 2 * 55296 * 4096
    plain, saved = _estimate(), _estimate(modules_to_save=("embed_tokens", "lm_head"))
    # fp16 copy + fp16 gradient + fp32 master + two fp32 AdamW states: 16 bytes a parameter, originals unchanged.
    assert saved["modules_to_save_copies"] == pytest.approx(16 * 2 * 55296 * 4096, abs=2)
    assert saved["lora_adapters"] == pytest.approx(plain["lora_adapters"], abs=2)  # a part of their own (qa50 D12)
    assert saved["weights"] == plain["weights"]


@pytest.mark.parametrize(("case_id", "fields"), [
    ("fresh19-cla2-pr229-lora-int8-base", {"base_weights": "int8"}),
    ("fresh19-cla2-pr229-qlora-4bit-train-embed-head", {"modules_to_save": "embed_tokens,lm_head"}),
    ("fresh19-cla2-pr229-lora-int8-base-train-embed-head",
     {"base_weights": "int8", "modules_to_save": "embed_tokens,lm_head"}),
])
def test_published_pr229_runs_with_the_settings_their_descriptions_state(case_id, fields):
    """The rows stay unsupported as mapped (no field for these settings then); with the settings their own
    descriptions state, the estimate lands within 15 % of the published device figure."""
    case = PR229[case_id]
    assert case["supported"] is False
    est = estimate_memory(SPEC, case_workload({**case, **fields}))
    measured = case["value"] * UNIT_BYTES[case["unit"]]
    assert abs(est.device_bytes / measured - 1) <= 0.15


def test_cli_and_wizard_type_the_same_settings(capsys):
    flags = ["estimate", "memory", "--config", str(CONFIG), "--mode", "lora", "--precision", "fp16",
             "--optimizer", "adamw", "--sharding", "zero2", "--seq", "512", "--recompute", "full", "--lora-rank", "64",
             "--lora-dropout", "0.05", "--grad-accum", "8", "--json"]
    assert main(flags + ["--base-weights", "int8", "--modules-to-save", "embed_tokens,lm_head"]) == 0
    cli = json.loads(capsys.readouterr().out)["per_gpu"]["breakdown_bytes"]
    assert cli == _estimate(base_weights="int8", modules_to_save=("embed_tokens", "lm_head"))
    req = Requirement(model=ModelMemory(mode="lora", base_weights="int8", modules_to_save=["lm_head"]))
    w = memory_workload(req)
    assert w.base_weights == "int8" and w.modules_to_save == ("lm_head",)


def test_bad_settings_are_refused_by_name(capsys):
    with pytest.raises(SizingError) as err:
        _estimate(mode="qlora", base_weights="int8")
    assert err.value.field == "base_weights"
    with pytest.raises(SizingError) as err:
        _estimate(modules_to_save=("embed_tokens", "norm"))
    assert err.value.field == "modules_to_save"
    with pytest.raises(SizingError) as err:
        _estimate(modules_to_save=("lm_head", "lm_head"))
    assert err.value.field == "modules_to_save"
    with pytest.raises(SizingError) as err:
        estimate_memory(SPEC, MemoryWorkload(mode="train", base_weights="int8"))
    assert err.value.field == "base_weights"
    code = main(["estimate", "memory", "--config", str(CONFIG), "--mode", "lora", "--modules-to-save", "wte"])
    assert code != 0
    assert "--modules-to-save" in capsys.readouterr().err
