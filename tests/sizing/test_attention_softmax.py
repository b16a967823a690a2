"""Blackwell Ultra's doubled SFU rate and the attention time of a training step (gpudesk.sizing.attention_softmax)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing import speed_validation as sv
from gpudesk.sizing.attention_softmax import blackwell_ultra_attention_speedup, fp8_forward_exponential_share
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.speed_train import FLASH_BACKWARD_SHARE, train_speed
from gpudesk.sizing.speed_train_cases import case_model, case_setup, gpu_rates

# Megatron-Bridge 25.11 performance summary: Llama-3 8B pre-training on 8 GB300 / 8 GB200, FP8 current scaling,
# TP1 PP1, MBS 2 (dev rows mbridge2511-gb300-llama-3-8b-8gpu-fp8-cs and mbridge2511-gb200-llama-3-8b-8gpu-fp8-cs).
DEV_ROW = "mbridge2511-gb300-llama-3-8b-8gpu-fp8-cs"


def _dev_row(case_id: str) -> dict:
    rows = sv.read_rows(sv.speed_cases_dir() / "train_runs.jsonl")
    return next(r for r in rows if r["id"] == case_id)


def test_nvidia_fp8_forward_measurement_gives_the_exponential_share() -> None:
    # 1.35 = (T + E) / (T + E / 2) with T + E = 1: E = 2 (1 - 1 / 1.35).
    assert fp8_forward_exponential_share() == pytest.approx(2 * (1 - 1 / 1.35))


def test_only_blackwell_ultra_cudnn_class_kernels_gain() -> None:
    assert blackwell_ultra_attention_speedup("10.3", "cudnn", FLASH_BACKWARD_SHARE) == pytest.approx(1.1333, abs=1e-3)
    # A recomputed attention core adds a forward and its exponentials: a little more is saved.
    recomputed = blackwell_ultra_attention_speedup("10.3", "cudnn", FLASH_BACKWARD_SHARE, forward_passes=2.0)
    assert 1.1333 < recomputed < 1.2
    assert blackwell_ultra_attention_speedup("10.0", "cudnn", FLASH_BACKWARD_SHARE) == 1.0  # B200 / GB200
    assert blackwell_ultra_attention_speedup("9.0", "cudnn", FLASH_BACKWARD_SHARE) == 1.0  # H100
    assert blackwell_ultra_attention_speedup("10.3", "fa2", FLASH_BACKWARD_SHARE) == 1.0  # mma.sync kernels
    assert blackwell_ultra_attention_speedup("", "cudnn", FLASH_BACKWARD_SHARE) == 1.0  # not CUDA / unknown


def test_bad_pass_counts_are_refused() -> None:
    with pytest.raises(SizingError):
        blackwell_ultra_attention_speedup("10.3", "cudnn", 0.0)


def test_gb300_llama3_8b_dev_row_attention_is_shorter_than_on_the_same_silicon_rate() -> None:
    catalog = open_catalog()
    row = _dev_row(DEV_ROW)
    gpu = catalog.find_gpu(row["gpu"])
    spec, setup = case_model(row, catalog), case_setup(row, catalog, gpu)
    rates = gpu_rates(gpu)
    assert rates.compute_capability == "10.3"
    ultra = train_speed(spec, rates, setup)
    # The same GPU as if it were sm_100 (Blackwell): same peaks, efficiency and memory, Blackwell's SFU rate.
    blackwell = train_speed(spec, replace(rates, compute_capability="10.0"), setup)
    assert blackwell.breakdown["attention_s"] / ultra.breakdown["attention_s"] == pytest.approx(1.1333, abs=1e-3)
    assert ultra.breakdown["gemm_s"] == blackwell.breakdown["gemm_s"]
    assert ultra.tokens_per_s_per_gpu > blackwell.tokens_per_s_per_gpu
