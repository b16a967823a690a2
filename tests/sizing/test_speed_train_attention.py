"""Attention kernel rate against the head dimension (gpudesk.sizing.speed_train.attention_head_dim_factor): the
FlashAttention-3 paper's measured points, and the effect on a training step of the same attention FLOPs split into
narrower heads."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_train import TrainSetup, attention_head_dim_factor, train_speed
from gpudesk.sizing.speed_train_cases import gpu_rates


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_head_dim_factor_reads_the_flashattention3_benchmark_points():
    # arXiv 2407.08608 figure 5 (BF16 forward, H100, 16k): cuDNN 413 / 595 / 509, FlashAttention-2 324 / 370 / 298
    # TFLOPS at head dimension 64 / 128 / 256.
    assert attention_head_dim_factor("cudnn", 128) == 1.0
    assert attention_head_dim_factor("cudnn", 64) == pytest.approx(413 / 595)
    assert attention_head_dim_factor("fa2", 64) == pytest.approx(324 / 370)
    assert attention_head_dim_factor("fa2", 256) == pytest.approx(298 / 370)
    # Between the points on log2(d): 96 lies 0.585 of the way from 64 to 128; flat outside the measured range.
    assert attention_head_dim_factor("cudnn", 96) == pytest.approx((413 + (595 - 413) * 0.5850) / 595, rel=1e-3)
    assert attention_head_dim_factor("cudnn", 32) == attention_head_dim_factor("cudnn", 64)
    assert attention_head_dim_factor("cudnn", 512) == attention_head_dim_factor("cudnn", 256)
    with pytest.raises(SizingError):
        attention_head_dim_factor("cudnn", 0)


@pytest.mark.parametrize(("framework", "ratio"), [("megatron", 595 / 413), ("torchtitan-compile", 370 / 324)])
def test_same_attention_flops_in_narrower_heads_take_longer(catalog, framework, ratio):
    # Llama 3 8B's 32 heads of 128 against the same query width in 64 heads of 64 (gpt-oss's head width): the same
    # attention FLOPs, a larger share of fixed softmax work per FLOP; GEMMs untouched.
    wide = spec_from_catalog(catalog.find_model("llama-3-8b"))
    narrow = replace(wide, num_attention_heads=64, head_dim=64)
    rates = gpu_rates(catalog.find_gpu("h100-sxm5"))
    setup = TrainSetup(gpus=8, seq_len=8192, global_batch=16, micro_batch=2, sharding="fsdp", framework=framework)
    a, b = train_speed(wide, rates, setup).breakdown, train_speed(narrow, rates, setup).breakdown
    assert b["attention_s"] / a["attention_s"] == pytest.approx(ratio)
    assert b["gemm_s"] == pytest.approx(a["gemm_s"])
