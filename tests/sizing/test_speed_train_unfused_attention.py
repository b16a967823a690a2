"""Attention without a fused kernel (gpudesk.sizing.speed_train.unfused_attention_seconds, TrainSetup.flash_attention):
the score matrix goes through HBM (FlashAttention paper, arXiv 2205.14135, Algorithm 0 and appendix B.1) and the
score / value matmuls run over every key at the GEMM rate."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.paths import bundle_root
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.shapes import spec_from_hf_config
from gpudesk.sizing.speed_train import (
    UNFUSED_SCORE_BYTES_BACKWARD,
    UNFUSED_SCORE_BYTES_FORWARD,
    TrainSetup,
    train_speed,
    unfused_attention_seconds,
)
from gpudesk.sizing.speed_train_cases import case_setup, gpu_rates, predict_train_case

BAICHUAN = "tests/fixtures/sizing/configs/baichuan2-13b.config.json"


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_unfused_seconds_count_the_score_traffic_and_the_full_matmuls():
    # One sequence of 4096 tokens, 5 heads of 128 (Baichuan2-13B's 40 heads over TP 8), no recompute.
    s, heads, width = 4096, 5, 640
    t = unfused_attention_seconds(1, s, heads, width, False, 1e14, 1e12)
    flops = 4 * width * s * s * 3  # forward QK^T and PV over every key, backward twice that
    traffic = heads * s * s * (UNFUSED_SCORE_BYTES_FORWARD + UNFUSED_SCORE_BYTES_BACKWARD)
    assert t == pytest.approx(flops / 1e14 + traffic / 1e12)
    assert UNFUSED_SCORE_BYTES_FORWARD + UNFUSED_SCORE_BYTES_BACKWARD == 22
    # A recomputed forward runs the matmuls and its 8 bytes per element once more.
    again = unfused_attention_seconds(1, s, heads, width, True, 1e14, 1e12)
    assert again - t == pytest.approx(4 * width * s * s / 1e14 + heads * s * s * UNFUSED_SCORE_BYTES_FORWARD / 1e12)


def test_unfused_attention_is_slower_and_stated(catalog):
    model = spec_from_hf_config(bundle_root() / BAICHUAN)
    gpu = gpu_rates(catalog.find_gpu("h100-sxm5"))
    setup = TrainSetup(gpus=8, seq_len=4096, global_batch=16, tp=8, framework="megatron")
    fused = train_speed(model, gpu, setup)
    eager = train_speed(model, gpu, replace(setup, flash_attention=False))
    assert eager.breakdown["attention_s"] > 2 * fused.breakdown["attention_s"]
    assert eager.breakdown["gemm_s"] == fused.breakdown["gemm_s"]
    assert "unfused_attention" in {a.name for a in eager.assumptions}
    assert "unfused_attention" not in {a.name for a in fused.assumptions}
    with pytest.raises(SizingError):
        train_speed(model, gpu, replace(setup, gpus=16, cp=2, flash_attention=False))


def test_row_field_flash_attention(catalog):
    row = {"id": "x", "kind": "train", "model": BAICHUAN, "gpu": "h100-sxm5", "gpus": 8, "gpus_per_node": 8,
           "interconnect": "nvlink", "framework": "megatron-lm", "precision": "bf16", "seq_len": 4096,
           "global_batch": 16, "micro_batch": 1, "tp": 8, "measured": {"metric": "tokens_per_s_per_gpu", "value": 1}}
    gpu = catalog.find_gpu("h100-sxm5")
    assert case_setup(row, catalog, gpu).flash_attention is True
    assert case_setup(dict(row, flash_attention=False), catalog, gpu).flash_attention is False
    with pytest.raises(SizingError):
        case_setup(dict(row, flash_attention="no"), catalog, gpu)
    fused, _ = predict_train_case(row, catalog)
    eager, _ = predict_train_case(json.loads(json.dumps(dict(row, flash_attention=False))), catalog)
    assert eager < fused
