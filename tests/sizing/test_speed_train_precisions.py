"""The speed model takes every precision the memory estimator takes (the planner passes the profile's precision to
both): autocast runs its GEMMs at the 16-bit peak but synchronises fp32 gradients."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.optimizers import PARAM_PRECISIONS
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_train import TRAIN_PRECISIONS, TrainSetup, train_speed
from gpudesk.sizing.speed_train_cases import gpu_rates


@pytest.fixture(scope="module")
def llama_on_h100():
    catalog = open_catalog()
    return spec_from_catalog(catalog.find_model("llama-3-8b")), gpu_rates(catalog.find_gpu("h100-sxm5"))


def _speed(spec, rates, precision):
    # Two nodes joined by a slow network: the gradient sync is exposed, so its bytes show in the step.
    setup = TrainSetup(gpus=16, seq_len=4096, global_batch=16, micro_batch=1, gpus_per_node=8, intra_gbps=450.0,
                       inter_gbps=5.0, precision=precision)
    return train_speed(spec, rates, setup)


def test_the_speed_model_takes_the_memory_estimators_precisions():
    assert set(PARAM_PRECISIONS) <= set(TRAIN_PRECISIONS)


def test_autocast_gemms_run_at_the_16_bit_peak_and_sync_fp32_gradients(llama_on_h100):
    spec, rates = llama_on_h100
    bf16, amp, pure = (_speed(spec, rates, p) for p in ("bf16", "bf16-amp", "bf16-pure"))
    assert amp.breakdown["gemm_s"] == pytest.approx(bf16.breakdown["gemm_s"])
    assert pure.breakdown["data_parallel_exposed_s"] == pytest.approx(bf16.breakdown["data_parallel_exposed_s"])
    # fp32 parameters under autocast: 4-byte gradients, twice the bytes on the same slow link.
    assert amp.breakdown["data_parallel_exposed_s"] > 1.5 * bf16.breakdown["data_parallel_exposed_s"] > 0
    assert amp.step_time_s > bf16.step_time_s
