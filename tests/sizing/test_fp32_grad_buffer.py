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
