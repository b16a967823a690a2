"""hipBLASLt per-tensor FP8 GEMMs on CDNA 3 run at the rate measured for their size (gpudesk/sizing/
serve_rocm_gemm_size.py: Azure AI benchmarking guide, ND MI300X v5, GEMM HipBLASLt FP8 table; below 4096^3 the
fall of AITER's measured MI300X FP8 GEMM tables)."""

from __future__ import annotations

import dataclasses
import math

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_rocm_gemm_size import dense_linear_shapes, gemm_size_shapes, gemm_size_share
from gpudesk.sizing.serve_step import step_model
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_the_share_follows_the_measured_table():
    assert gemm_size_share(2.0 * 8192**3) == pytest.approx(1.0)
    assert gemm_size_share(2.0 * 4096**3) == pytest.approx(955.17 / 1159.23)
    assert gemm_size_share(2.0 * 16384**3) == pytest.approx(1.0)  # above the largest point: the full rate
    halfway = 2.0 * 4096**3 * 2**1.5  # half-way in log2 between 4096^3 and 8192^3
    assert gemm_size_share(halfway) == pytest.approx((955.17 / 1159.23 + 1.0) / 2)


def _fall(flops: float) -> float:
    """The AITER MI300X table's median rate at ``flops`` over that at 2^37 FLOPs (its buckets 2^30 .. 2^37)."""
    buckets = {30: 86.19, 31: 156.95, 32: 235.14, 33: 330.43, 34: 419.09, 35: 536.53, 36: 638.43, 37: 718.83}
    position = math.log2(flops)
    low = math.floor(position)
    rate = buckets[low] + (position - low) * (buckets[low + 1] - buckets[low])
    return rate / 718.83


def test_below_4096_cubed_the_share_falls_as_the_measured_serving_gemms_do():
    """AITER's tuned FP8 GEMM tables for MI300X (gfx942, 304 CUs): median 638.43 TFLOPS at 2^36 FLOPs against
    718.83 at 2^37 (4096^3's FLOPs); Llama 3.1 70B at TP 8 decoding 64 requests runs a QKV GEMM of
    2 x 64 x 1280 x 8192 = 1.34 GFLOP, between the 86.19 and 156.95 TFLOPS buckets."""
    low = 955.17 / 1159.23
    assert gemm_size_share(2.0**36) == pytest.approx(low * 638.43 / 718.83)
    qkv = 2.0 * 64 * 1280 * 8192
    assert gemm_size_share(qkv) == pytest.approx(low * _fall(qkv))
    assert 0.1 < gemm_size_share(qkv) < 0.2
    assert gemm_size_share(1.0e6) == pytest.approx(low * 86.19 / 718.83)  # below the smallest bucket: its share
    # continuous where the two measured curves meet
    assert gemm_size_share(2.0 * 4096**3 * 0.999) == pytest.approx(low, rel=1e-3)


def test_llama_70b_at_tp_8_has_its_four_linears_per_gpu(catalog):
    spec = spec_from_catalog(catalog.model("llama-3.1-70b"))
    # 64 query heads of 128 / 8 = 1024, one KV head each for K and V; gate_up 2 x 28672 / 8; down K 3584.
    assert dense_linear_shapes(spec, 8) == ((1280, 8192), (8192, 1024), (7168, 8192), (8192, 3584))


def test_a_large_vllm_fp8_step_of_llama_8b_on_mi300x_is_slower_than_at_the_single_rate(catalog):
    """Llama 3.1 8B FP8 on one MI300X (the Azure guide's own serving rows, batch 1000): a decode step of 1000
    tokens runs GEMMs of 34-235 GFLOP; QKV (50), O (34) and down (117) lie below the 4096^3 point (137 GFLOP) and
    run at its share times the measured fall below it; gate_up (235 GFLOP) runs at the rate interpolated in
    log2(FLOPs) between the two points."""
    spec = spec_from_catalog(catalog.model("llama-3.1-8b"))
    gpu = catalog.gpu("mi300x")
    load = ServeLoad(engine="vllm", input_tokens=128, output_tokens=1024, batch=1000, weight_format="fp8"
                     ).validated()
    curved = step_model(spec, gpu, load, None, "fp8")
    assert curved.size_curve_shapes
    assert any(a.name == "gemm_size_rate" for a in curved.assumptions)
    flat = step_model(spec, gpu, ServeLoad(engine="sglang", input_tokens=128, output_tokens=1024, batch=1000,
                                           weight_format="fp8").validated(), None, "fp8")
    assert not flat.size_curve_shapes
    shapes = dense_linear_shapes(spec, 1)
    assert shapes == ((6144, 4096), (4096, 4096), (28672, 4096), (4096, 14336))
    low = 955.17 / 1159.23
    gate_up = 2.0 * 1000 * 28672 * 4096
    gate_up_share = low + (1 - low) * math.log2(gate_up / (2.0 * 4096**3)) / 3
    below = [2.0 * 1000 * n * k for n, k in ((6144, 4096), (4096, 4096), (4096, 14336))]
    below_extra = sum(f * (1 / (low * _fall(f)) - 1) for f in below)
    expected = 32 / curved.flops_per_s * (below_extra + gate_up * (1 / gate_up_share - 1))
    single = dataclasses.replace(curved, size_curve_shapes=())
    assert curved.gpu_s(1000, 1000 * 640.0) - single.gpu_s(1000, 1000 * 640.0) == pytest.approx(expected)
    # One token runs the skinny kernel, not hipBLASLt: no size penalty.
    assert curved.gpu_s(1, 640.0) == pytest.approx(single.gpu_s(1, 640.0))


@pytest.mark.parametrize("engine, gpu, weight_format, model", [
    ("sglang", "mi300x", "fp8", "llama-3.1-8b"),   # another engine's kernels
    ("vllm", "h100-sxm5", "fp8", "llama-3.1-8b"),  # not CDNA 3: no measured table
    ("vllm", "mi355x", "fp8", "llama-3.1-8b"),     # CDNA 4: not measured
    ("vllm", "mi300x", "bf16", "llama-3.1-8b"),    # 16-bit linears: the BF16 MAMF rate
])
def test_elsewhere_the_single_rate_stays(catalog, engine, gpu, weight_format, model):
    spec = spec_from_catalog(catalog.model(model))
    linear = "fp8" if weight_format == "fp8" else "bf16"
    assert gemm_size_shapes(engine, catalog.gpu(gpu), linear, spec, 1) == ()
