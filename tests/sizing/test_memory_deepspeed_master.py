"""DeepSpeed ZeRO keeps an fp32 master partition and fp32 optimizer states even for a bf16 model."""

from conftest import FIXTURES
from gpudesk.sizing import spec_from_hf_config
from gpudesk.sizing.memory import MemoryWorkload, estimate_memory

QWEN_7B = spec_from_hf_config(FIXTURES / "sizing" / "configs" / "qwen2.5-7b.config.json")


def _estimate(sharding: str, precision: str = "bf16-pure", mode: str = "train"):
    return estimate_memory(QWEN_7B, MemoryWorkload(mode=mode, precision=precision, optimizer="adamw", gpus=4,
                                                   sharding=sharding, seq_len_tokens=8192, recompute="full"))


def test_zero3_bf16_model_is_sized_with_fp32_master_and_states():
    est = _estimate("zero3")
    per_gpu_params = QWEN_7B.params / 4
    assert est.breakdown["master_weights"] == per_gpu_params * 4
    assert est.breakdown["optimizer_states"] == per_gpu_params * 8
    assert est.breakdown["weights"] == per_gpu_params * 2
    assert any("DeepSpeed ZeRO keeps fp32 master" in text for text, _source in est.assumptions)
    # The same as typing bf16 (16-bit compute over an fp32 master) under the ZeRO stage.
    assert est.breakdown == _estimate("zero3", precision="bf16").breakdown


def test_fsdp_keeps_a_pure_bf16_optimizer():
    # FSDP runs the user's optimizer over the sharded parameters in their own dtype: no fp32 master.
    est = _estimate("fsdp")
    assert est.breakdown.get("master_weights", 0.0) == 0.0
    assert est.breakdown["optimizer_states"] == QWEN_7B.params / 4 * 4


def test_zero2_full_training_also_gets_the_fp32_master():
    assert _estimate("zero2").breakdown["master_weights"] == QWEN_7B.params / 4 * 4


def test_lora_adapters_are_not_changed():
    lora = _estimate("zero3", mode="lora")
    assert not any("DeepSpeed ZeRO keeps fp32 master" in text for text, _source in lora.assumptions)
