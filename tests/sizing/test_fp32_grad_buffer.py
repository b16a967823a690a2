"""Gradients of 16-bit parameters kept in an fp32 buffer (Megatron-LM --bf16: accumulate_allreduce_grads_in_fp32)."""

import pytest

from conftest import FIXTURES
from gpudesk.sizing import spec_from_hf_config
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.fp32_grad_buffer import with_fp32_grads
from gpudesk.sizing.memory import MemoryWorkload, estimate_memory

LLAMA3_8B = spec_from_hf_config(FIXTURES / "sizing" / "configs" / "llama-3-8b.config.json")


def _megatron_tp8(**kw):
    # FlagPerf llama3_8B-megatron TP8: bf16, distributed optimizer, 512 micro-batches of one 8192-token sequence.
    return estimate_memory(LLAMA3_8B, MemoryWorkload(
        mode="train", precision="bf16", optimizer="adamw", gpus=8, sharding="zero1", tensor_parallel=8,
        sequence_parallel=True, seq_len_tokens=8192, micro_batch_size=1, global_batch_size=512,
        gradient_accumulation=True, recompute="none", flash_attention=True, **kw))


def test_gradients_take_four_bytes_a_parameter():
    plain, fp32 = _megatron_tp8(), _megatron_tp8(fp32_grad_buffer=True)
    params_per_gpu = plain.breakdown["weights"] / 2  # bf16 weights, 2 bytes a parameter
    assert plain.breakdown["gradients"] == pytest.approx(params_per_gpu * 2, rel=1e-6)
    assert fp32.breakdown["gradients"] == pytest.approx(params_per_gpu * 4, rel=1e-6)
    # The distributed optimizer still shards the fp32 master weights and the Adam states the same way.
    assert fp32.breakdown["optimizer_states"] == plain.breakdown["optimizer_states"]
    assert fp32.breakdown["master_weights"] == plain.breakdown["master_weights"]


def test_already_fp32_gradients_do_not_change():
    assert with_fp32_grads((4.0, 0.0, 4.0, 8.0), True) == (4.0, 0.0, 4.0, 8.0)
    assert with_fp32_grads((2.0, 4.0, 2.0, 8.0), False) == (2.0, 4.0, 2.0, 8.0)
    assert with_fp32_grads((2.0, 4.0, 2.0, 8.0), True) == (2.0, 4.0, 4.0, 8.0)


def test_refused_for_inference():
    with pytest.raises(SizingError) as err:
        estimate_memory(LLAMA3_8B, MemoryWorkload(mode="inference", fp32_grad_buffer=True))
    assert err.value.field == "fp32_grad_buffer"


OPENSCIREF_1_7B = spec_from_hf_config(FIXTURES / "sizing" / "configs" / "opensciref-1.7b.config.json")


def _opensciref(**kw):
    # open-sci-ref 1.7B: Megatron-LM --bf16 --use-distributed-optimizer on 252 data-parallel GPUs, one micro-batch of
    # 4 x 4096 tokens a step (global batch 1008), no gradient accumulation.
    settings = dict(mode="train", precision="bf16", optimizer="adam-18", gpus=252, sharding="zero1",
                    seq_len_tokens=4096, micro_batch_size=4, global_batch_size=1008, recompute="none",
                    flash_attention=True, loss="standard-16bit", fused_norm=True)
    settings.update(kw)
    return estimate_memory(OPENSCIREF_1_7B, MemoryWorkload(**settings))


def test_buffer_is_alive_in_the_forward_without_accumulation():
    resident, plain = _opensciref(fp32_grad_buffer=True), _opensciref()
    params = OPENSCIREF_1_7B.params
    # The peak is the start of backward: PyTorch's gradients hold only the output layer's, the buffer holds all.
    assert resident.breakdown["activations"] == plain.breakdown["activations"] > 0
    assert resident.breakdown["gradients"] == pytest.approx(params * 4, rel=1e-6)
    assert plain.breakdown["gradients"] < params * 4 / 10
    # The log's resident figure between iterations (9,909 MiB): weights + buffer + sharded states, within 1 %.
    states = sum(resident.breakdown[k] for k in ("weights", "gradients", "master_weights", "optimizer_states"))
    assert states == pytest.approx(9909.08 * 2**20, rel=0.01)


def test_sharded_gradients_are_not_a_resident_buffer():
    # ZeRO-2 and FSDP reduce into shards they allocate themselves: the flag keeps its 4 bytes, not the residency.
    for sharding in ("zero2", "fsdp"):
        resident = _opensciref(fp32_grad_buffer=True, sharding=sharding)
        assert resident.breakdown["gradients"] < OPENSCIREF_1_7B.params * 4 / 10


def test_buffer_is_the_all_reduce_bucket_under_plain_data_parallelism():
    # Megatron-Core DDP without the distributed optimizer: the buckets are views into the fp32 buffer, so no
    # PyTorch-DDP-style second copy of the gradients (ddp_gradient_buckets) is counted.
    plain = _opensciref(sharding="ddp", gpus=8, global_batch_size=32)
    megatron = _opensciref(sharding="ddp", gpus=8, global_batch_size=32, fp32_grad_buffer=True)
    assert plain.breakdown["ddp_gradient_buckets"] > 0
    assert "ddp_gradient_buckets" not in megatron.breakdown
    assert megatron.breakdown["gradients"] == pytest.approx(OPENSCIREF_1_7B.params * 4, rel=1e-6)
