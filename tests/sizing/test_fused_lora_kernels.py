"""Fused LoRA blocks (Unsloth LoRA_QKV / LoRA_MLP) and a cross-entropy that writes its gradient in place."""

import json

import pytest

from conftest import FIXTURES
from gpudesk.cli import main
from gpudesk.planner.requirement import ModelMemory, Requirement, requirement_problems
from gpudesk.sizing import MemoryWorkload, SizingError, estimate_memory, spec_from_hf_config
from gpudesk.sizing.activations import loss_logits_bytes
from gpudesk.sizing.activations_lora import frozen_layer_activation_bytes
from gpudesk.sizing.validation import case_workload

CONFIGS = FIXTURES / "sizing" / "configs"
L7 = spec_from_hf_config(CONFIGS / "llama-2-7b.config.json")
ALL = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
TOKENS, H, FFN = 2048, 4096, 11008


def test_fused_blocks_drop_the_activation_output_and_the_down_projection_input():
    peft = frozen_layer_activation_bytes(L7, TOKENS, 1, ALL)
    fused = frozen_layer_activation_bytes(L7, TOKENS, 1, ALL, lora_kernels="fused")
    # PEFT keeps gate, up and act outputs plus the MLP and down_proj inputs; LoRA_MLP keeps X, e, g only.
    assert peft - fused == pytest.approx(TOKENS * 2 * 2 * FFN, rel=1e-9)


def test_a_block_without_every_projection_or_with_dropout_keeps_the_peft_path():
    qv = ("q_proj", "v_proj")
    assert frozen_layer_activation_bytes(L7, TOKENS, 1, qv, lora_kernels="fused") == \
        frozen_layer_activation_bytes(L7, TOKENS, 1, qv)
    assert frozen_layer_activation_bytes(L7, TOKENS, 1, ALL, lora_dropout=0.05, lora_kernels="fused") == \
        frozen_layer_activation_bytes(L7, TOKENS, 1, ALL, lora_dropout=0.05)


def test_fused_blocks_bypass_old_bitsandbytes_input_copies():
    legacy_peft = frozen_layer_activation_bytes(L7, TOKENS, 1, ALL, legacy_bnb_matmul=True)
    legacy_fused = frozen_layer_activation_bytes(L7, TOKENS, 1, ALL, legacy_bnb_matmul=True, lora_kernels="fused")
    assert legacy_fused == frozen_layer_activation_bytes(L7, TOKENS, 1, ALL, lora_kernels="fused")
    assert legacy_fused < legacy_peft


def test_unknown_kernel_choice_is_named():
    with pytest.raises(SizingError) as err:
        frozen_layer_activation_bytes(L7, TOKENS, 1, ALL, lora_kernels="triton")
    assert err.value.field == "lora_kernels"


def test_inplace_loss_keeps_one_16bit_copy_of_the_logits():
    args = (2048, 2, 32000, 4096)
    assert loss_logits_bytes(*args, loss="inplace-16bit") == 2048 * 2 * 32000 * 2
    assert loss_logits_bytes(*args, loss="standard-16bit") == 3 * loss_logits_bytes(*args, loss="inplace-16bit")


def _qlora(**kw) -> dict[str, int]:
    base = dict(mode="qlora", precision="fp16", optimizer="adamw_8bit", seq_len_tokens=4096, micro_batch_size=2,
                recompute="none", loss="standard-16bit", lora_rank=32, lora_targets=ALL)
    return dict(estimate_memory(L7, MemoryWorkload(**{**base, **kw})).breakdown)


def test_qlora_estimate_follows_both_settings():
    peft, fused = _qlora(), _qlora(lora_kernels="fused", loss="inplace-16bit")
    assert peft["activations"] - fused["activations"] == pytest.approx(32 * 4096 * 2 * 2 * 2 * FFN, rel=1e-6)
    assert fused["logits"] == peft["logits"] / 3


def test_cli_harness_and_wizard_read_the_same_fields(capsys):
    row = {"method": "qlora", "lora_kernels": "fused", "loss": "inplace-16bit"}
    assert case_workload(row).lora_kernels == "fused" and case_workload(row).loss == "inplace-16bit"
    flags = ["estimate", "memory", "--config", str(CONFIGS / "llama-2-7b.config.json"), "--mode", "qlora",
             "--precision", "fp16", "--seq", "4096", "--batch", "2", "--lora-targets", "all-linear", "--json"]
    totals = []
    for extra in ([], ["--lora-kernels", "fused", "--loss", "inplace-16bit"]):
        assert main(flags + extra) == 0
        totals.append(json.loads(capsys.readouterr().out)["per_gpu"]["breakdown_bytes"]["activations"])
    assert totals[1] < totals[0]
    with pytest.raises(SystemExit):
        main(flags + ["--lora-kernels", "triton"])
    assert "--lora-kernels" in capsys.readouterr().err
    problems = requirement_problems(Requirement(model=ModelMemory(lora_kernels="triton")))
    assert any(p.field == "model.lora_kernels" for p in problems)


def test_plain_sgd_keeps_no_state_and_momentum_sgd_one():
    from gpudesk.sizing.optimizers import optimizer_bytes_per_param

    assert optimizer_bytes_per_param("sgd_plain", "fp32") == (4.0, 0.0, 4.0, 0.0)
    assert optimizer_bytes_per_param("sgd_momentum", "fp32")[3] == 4.0
    assert optimizer_bytes_per_param("sgd_plain", "bf16-pure")[3] == 0.0
