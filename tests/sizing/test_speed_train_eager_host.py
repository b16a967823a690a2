"""Host issue cost of eager transformers layers and of LoRA adapters (gpudesk.sizing.speed_train
EAGER_LAYER_HOST_OPS, LORA_HOST_OPS_PER_ADAPTED_LINEAR): short-sequence LoRA steps are bound by the host."""

from __future__ import annotations


from gpudesk.sizing.speed_train import (
    DENSE_LAYER_HOST_OPS, EAGER_LAYER_HOST_OPS, FRAMEWORKS, HOST_SECONDS_PER_OP, LORA_ADAPTED_LINEARS_PER_LAYER,
    LORA_HOST_OPS_PER_ADAPTED_LINEAR,
)
from gpudesk.sizing.speed_train_cases import predict_train_case

# QwenLM/Qwen README at 2df8e8a, "Profiling of Memory and Speed": Qwen-1.8B LoRA (r 64, peft) on one A100-SXM4-80G,
# batch 1 x gradient accumulation 8, gradient checkpointing, flash-attention 2: 1.0 s/it at 256 and 512 tokens,
# 1.1 at 1024, 6.8 at 8192. Qwen-7B: 1.2 s/it at 256. The same ~5 ms per layer and micro-batch for 24, 32 and 40
# layers of widths 2048-5120 at 256 tokens: host-bound.
QWEN_1P8B_LORA = {"model": "tests/fixtures/sizing/configs/qwen-1.8b.config.json", "gpu": "a100-80-sxm4", "gpus": 1,
                  "gpus_per_node": 1, "interconnect": "none (single GPU)", "framework": "hf-trainer",
                  "precision": "bf16", "seq_len": 256, "global_batch": 8, "micro_batch": 1, "sharding": "ddp",
                  "recompute": "full", "adapter_params": 53673984,
                  "measured": {"metric": "step_time_s", "value": 1.0}}


def test_eager_profiles_issue_the_eager_layer_and_fused_ones_the_fused_layer():
    for name in ("hf-trainer", "deepspeed", "torchtitan-eager", "prime-rl-eager"):
        assert FRAMEWORKS[name].layer_host_ops == EAGER_LAYER_HOST_OPS
    for name in ("megatron", "nemo", "megatron-lm", "torchtitan-compile", "prime-rl"):
        assert FRAMEWORKS[name].layer_host_ops == DENSE_LAYER_HOST_OPS
    # Eager layer + 7 PEFT adapters, full recompute: (180 + 98) x 4/3 x 15 us = 5.6 ms per layer and micro-batch.
    per_layer = ((EAGER_LAYER_HOST_OPS + LORA_HOST_OPS_PER_ADAPTED_LINEAR * LORA_ADAPTED_LINEARS_PER_LAYER)
                 * 4 / 3 * HOST_SECONDS_PER_OP)
    assert 4.5e-3 < per_layer < 6.5e-3


def test_short_sequence_lora_step_is_host_bound():
    step_s, speed = predict_train_case(QWEN_1P8B_LORA)
    assert speed.breakdown.get("host_issue_bound_s", 0.0) > 0.5 * step_s
    assert 0.8 < step_s / 1.0 < 1.2  # was 0.23 s with the fused-layer count and no adapter operators
    # At 512 tokens the step stays at the host floor, as measured (1.0 s/it).
    step_512, _ = predict_train_case(replace_case(QWEN_1P8B_LORA, seq_len=512))
    assert step_512 == step_s


def test_long_sequence_lora_step_stays_device_bound():
    step_s, speed = predict_train_case(replace_case(QWEN_1P8B_LORA, seq_len=8192))
    assert not speed.breakdown.get("host_issue_bound_s")
    assert 0.8 < step_s / 6.8 < 1.2


def replace_case(case: dict, **changes: object) -> dict:
    return {**case, **changes}


def test_fused_megatron_layer_keeps_its_count():
    # The TE-fused Megatron profile is unchanged: a full fine-tune on one GPU issues 60 ops per layer.
    case = replace_case(QWEN_1P8B_LORA, framework="megatron-lm")
    fused, _ = predict_train_case(case)
    eager, _ = predict_train_case(QWEN_1P8B_LORA)
    assert fused < eager
