"""The fp32 gradients of the master weights at the optimizer step under plain data parallelism (16-bit parameters,
fp32 master weights: Megatron-LM's fp16 optimizer, DeepSpeed's non-ZeRO FP16_Optimizer)."""

import pytest

from conftest import FIXTURES
from gpudesk.sizing import spec_from_hf_config
from gpudesk.sizing import validation as v
from gpudesk.sizing.memory import MemoryWorkload, estimate_memory
from gpudesk.sizing.optimizers import ddp_master_grad_step_bytes

CASES = FIXTURES / "sizing"
GPT_64X16384 = spec_from_hf_config(CASES / "configs" / "megatron2021-gpt-64x16384-h32.config.json")


def _step_peak(**kw):
    # One 2021 Megatron layer a stage (TP 4 x PP 64): the optimizer step is the peak.
    fields = dict(mode="train", precision="fp16", optimizer="adamw", optimizer_impl="fused", gpus=256,
                  sharding="ddp", tensor_parallel=4, pipeline_parallel=64, pipeline_microbatches=4,
                  seq_len_tokens=1024, micro_batch_size=4, recompute="full", flash_attention=False)
    return estimate_memory(GPT_64X16384, MemoryWorkload(**{**fields, **kw}))


def test_four_bytes_a_parameter_only_beside_fp32_master_weights():
    assert ddp_master_grad_step_bytes(1000, "adamw", (2.0, 4.0, 2.0, 8.0)) == 4000
    assert ddp_master_grad_step_bytes(1000, "adamw", (2.0, 0.0, 2.0, 4.0)) == 0  # pure 16-bit: no master
    assert ddp_master_grad_step_bytes(1000, "adamw", (4.0, 0.0, 4.0, 8.0)) == 0  # fp32 training
    assert ddp_master_grad_step_bytes(1000, "adamw", (2.0, 4.0, 4.0, 8.0)) == 0  # gradients already fp32
    assert ddp_master_grad_step_bytes(1000, "adam-18", (2.0, 4.0, 4.0, 8.0)) == 0  # a closed accounting


def test_the_step_holds_twenty_bytes_a_parameter():
    est = _step_peak()
    params = est.breakdown["weights"] / 2
    assert est.breakdown["optimizer_step_temporaries"] == pytest.approx(params * 4, rel=1e-6)
    assert est.allocated_bytes == pytest.approx(params * 20, rel=1e-6)
    # Pure 16-bit training keeps no master weights and makes no fp32 gradient.
    assert "optimizer_step_temporaries" not in _step_peak(precision="bf16-pure").breakdown


def test_not_under_zero_stages_which_count_their_own_partition():
    plain = estimate_memory(GPT_64X16384, MemoryWorkload(
        mode="train", precision="bf16", optimizer="adamw", optimizer_impl="fused", gpus=64, sharding="zero1",
        tensor_parallel=4, pipeline_parallel=16, seq_len_tokens=1024, micro_batch_size=16, recompute="full"))
    params = plain.breakdown["weights"] / 2
    # ZeRO-1 over 1 data-parallel rank: its own fp32 copy of the gradient partition, not a second one.
    assert plain.breakdown.get("optimizer_step_temporaries", 0) <= params * 4 * 1.000001


def test_the_52b_log_after_one_iteration_reads_within_band_typed_fused():
    # bigscience meg_ds_3d_gpt2_perf_n16-ds-off.out: apex FusedAdam, middle ranks 20.2 bytes a parameter.
    case = next(c for c in v.load_cases(CASES / "measured_peaks_fresh37.jsonl")
                if c["id"] == "fresh37-bigscience-meg-52b-tp4pp16-64gpu-mb4-gb1024")
    typed = v.evaluate_case({**case, "optimizer_impl": "fused"}, CASES / "configs")
    assert 0.85 <= typed.ratio <= 1.15
