"""DeepSpeed ZeRO-3's all-gather and reduce streams: the gathered window is not alive at the optimizer step, but the
allocator keeps each stream's pool reserved (gpudesk.sizing.zero3_stream_pools)."""

import pytest

from conftest import FIXTURES
from gpudesk.sizing import spec_from_hf_config
from gpudesk.sizing.memory import MemoryWorkload, estimate_memory
from gpudesk.sizing.zero3_params import Zero3Settings, zero3_gathered_bytes, zero3_gathered_split
from gpudesk.sizing.zero3_stream_pools import zero3_stream_cache_bytes

LLAMA2_7B = spec_from_hf_config(FIXTURES / "sizing" / "configs" / "llama-2-7b.config.json")
GIB = 2**30


def _run(**kw):
    settings = dict(mode="train", precision="bf16", optimizer="adamw", gpus=8, sharding="zero3", seq_len_tokens=512,
                    micro_batch_size=1, recompute="full", flash_attention=True)
    settings.update(kw)
    return estimate_memory(LLAMA2_7B, MemoryWorkload(**settings))


def test_pools_add_up_to_window_reduce_bucket_and_larger_default_phase():
    # Step peak: allocated = step; reserved = window + reduce bucket + step.
    assert zero3_stream_cache_bytes(window_bytes=3.0, reduce_pool_bytes=1.0, fwd_bwd_bytes=2.0,
                                    step_bytes=10.0) == pytest.approx(4.0)
    # Backward peak: allocated = fwd_bwd + window; the reduce stream's bucket is reserved beside it.
    assert zero3_stream_cache_bytes(window_bytes=3.0, reduce_pool_bytes=1.0, fwd_bwd_bytes=9.0,
                                    step_bytes=10.0) == pytest.approx(2.0)
    assert zero3_stream_cache_bytes(window_bytes=3.0, reduce_pool_bytes=0.0, fwd_bwd_bytes=20.0,
                                    step_bytes=10.0) == 0.0


def test_split_adds_up_to_the_gathered_total():
    settings = Zero3Settings(unset="deepspeed")
    window, resident, reduce_pool = zero3_gathered_split(LLAMA2_7B, settings, 2.0, 2.0, True)
    assert window + resident == pytest.approx(zero3_gathered_bytes(LLAMA2_7B, settings, 2.0, 2.0, True))
    assert reduce_pool == pytest.approx(500_000_000 * 2.0)  # DeepSpeed's reduce_bucket_size default, 16-bit


def test_window_is_released_before_the_optimizer_step_but_stays_reserved():
    est = _run(zero3_defaults="deepspeed")
    settings = Zero3Settings(unset="deepspeed")
    window, resident, reduce_pool = zero3_gathered_split(LLAMA2_7B, settings, 2.0, 2.0, True)
    assert "optimizer_step_temporaries" in est.breakdown  # the peak is the step
    assert est.breakdown["gathered_layers"] == pytest.approx(resident, rel=1e-6)
    assert est.breakdown["zero3_stream_cache"] == pytest.approx(window + reduce_pool, rel=1e-6)
    assert est.reserved_bytes - est.allocated_bytes >= window + reduce_pool


def test_backward_peak_keeps_the_window_allocated():
    est = _run(seq_len_tokens=4096, recompute="none", zero3_defaults="deepspeed")
    settings = Zero3Settings(unset="deepspeed")
    window, resident, _reduce_pool = zero3_gathered_split(LLAMA2_7B, settings, 2.0, 2.0, False)
    assert est.breakdown["activations"] > 10 * GIB
    assert est.breakdown["gathered_layers"] == pytest.approx(window + resident, rel=1e-6)


def test_fsdp_has_no_deepspeed_stream_pools():
    assert "zero3_stream_cache" not in _run(sharding="fsdp").breakdown
