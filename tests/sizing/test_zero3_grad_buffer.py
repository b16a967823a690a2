"""DeepSpeed ZeRO-3's flat gradient-partition buffer, resident on the GPU from init on."""

import pytest

from conftest import FIXTURES
from gpudesk.sizing import spec_from_hf_config
from gpudesk.sizing.memory import MemoryWorkload, estimate_memory
from gpudesk.sizing.zero3_grad_buffer import zero3_resident_grad_partition

LLAMA2_7B = spec_from_hf_config(FIXTURES / "sizing" / "configs" / "llama-2-7b.config.json")


def _flagperf(**kw):
    # FlagPerf llama2_7b-deepspeed: bf16 ZeRO-3 on 8 GPUs, one 4096-token sequence, no checkpointing, no accumulation.
    settings = dict(mode="train", precision="bf16", optimizer="adamw", gpus=8, sharding="zero3", seq_len_tokens=4096,
                    micro_batch_size=1, recompute="none", flash_attention=True)
    settings.update(kw)
    return estimate_memory(LLAMA2_7B, MemoryWorkload(**settings))


def test_whole_16bit_partition_is_held_at_the_start_of_backward():
    est = _flagperf()
    partition = LLAMA2_7B.params * 2 / 8
    assert est.breakdown["gradients"] == pytest.approx(partition, rel=1e-6)
    # The activations are still there: the buffer adds to the start-of-backward peak instead of replacing it.
    assert est.breakdown["activations"] > 10 * 2**30


def test_fsdp_and_optimizer_offload_hold_no_such_buffer():
    partition = LLAMA2_7B.params * 2 / 8
    fsdp = _flagperf(sharding="fsdp")
    assert fsdp.breakdown.get("gradients", 0) < partition / 4  # the largest layer's gradient (the embedding)
    offloaded = _flagperf(offload="optimizer")
    assert offloaded.breakdown.get("gradients", 0) == 0  # pinned host memory


def test_only_deepspeed_zero3_without_optimizer_offload():
    assert zero3_resident_grad_partition("zero3", fsdp=False, offload="none")
    assert not zero3_resident_grad_partition("zero3", fsdp=True, offload="none")
    assert not zero3_resident_grad_partition("zero3", fsdp=False, offload="optimizer")
    assert not zero3_resident_grad_partition("zero2", fsdp=False, offload="none")
