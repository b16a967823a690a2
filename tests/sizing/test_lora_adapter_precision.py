"""LoRA adapter states follow the precision the user types (CLI help: bf16 = 16-bit compute over an fp32 master,
bf16-pure = all bf16) and the ZeRO stage: ZeRO-1/2 partition the adapters' master weights and optimizer states
(ZeRO-2 the gradients too), ZeRO-Offload moves them to the host."""

import pytest

from conftest import FIXTURES
from gpudesk.sizing import lora_memory, lora_trainable_params, spec_from_hf_config
from gpudesk.sizing.validation import evaluate_case, load_cases

CONFIGS = FIXTURES / "sizing" / "configs"
QWEN_V1 = spec_from_hf_config(CONFIGS / "qwen-7b.config.json")
TRAINABLE = lora_trainable_params(QWEN_V1, 64, "all-linear")


def _adapters(**kw) -> float:
    base = dict(mode="lora", rank=64, targets="all-linear", optimizer="adamw", recompute="full", seq_len_tokens=512)
    return lora_memory(QWEN_V1, **{**base, **kw}).breakdown["lora_adapters"]


def test_bf16_adapters_keep_an_fp32_master_and_fp32_adam_states():
    # 2 (bf16 weight) + 4 (fp32 master) + 2 (bf16 grad) + 8 (fp32 m, v) against 2 + 2 + 2 + 2 all-bf16.
    assert _adapters(precision="bf16") == pytest.approx(16 * TRAINABLE)
    assert _adapters(precision="bf16-pure") == pytest.approx(8 * TRAINABLE)


def test_zero2_partitions_master_gradients_and_states_of_the_adapters():
    one = _adapters(precision="bf16", gpus=1, sharding="zero2")
    four = _adapters(precision="bf16", gpus=4, sharding="zero2")
    assert one == pytest.approx(16 * TRAINABLE)
    assert four == pytest.approx((2 + (4 + 2 + 8) / 4) * TRAINABLE)
    zero1 = _adapters(precision="bf16", gpus=4, sharding="zero1")
    assert zero1 == pytest.approx((2 + 2 + (4 + 8) / 4) * TRAINABLE)


def test_offloaded_optimizer_leaves_weights_only_under_zero2():
    off = _adapters(precision="bf16", gpus=2, sharding="zero2", offload="optimizer")
    assert off == pytest.approx(2 * TRAINABLE)
    ddp = _adapters(precision="bf16", gpus=2, sharding="ddp")
    assert ddp == pytest.approx(16 * TRAINABLE)


def test_deepspeed_single_gpu_qlora_rows_of_the_qwen_readme_land_within_15_percent():
    # Qwen Q-LoRA on one A100 under DeepSpeed ZeRO-2 (--precision bf16): 0.76 / 0.82 with 8 B per adapter parameter.
    cases = {c["id"]: c for c in load_cases(FIXTURES / "sizing" / "measured_peaks_fresh11.jsonl")}
    for seq in (256, 512, 1024, 2048):
        case = cases[f"fresh11-qwen2311-qlora-gptq-int4-qwen-7b-chat-1xa100-seq{seq}"]
        result = evaluate_case(case, CONFIGS, "fresh-11")
        assert abs(result.ratio - 1) <= 0.15, (seq, result.ratio)
