"""SGLang's 16-bit dense linears on CDNA run as hipBLASLt calls at every step (gpudesk/sizing/serve_rocm_hipblaslt.py:
sglang unquant.py, aiter tuned_gemm.py is_skinny_default_shape, ROCm/rocm-libraries PR 12329's MI300X table)."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_rates import MEASURED_STREAM_COPY_TBPS
from gpudesk.sizing.serve_rocm_hipblaslt import (
    HIPBLASLT_CALL_FIXED_S,
    SGLANG_HIPBLASLT_EXTRA_S,
    sglang_hipblaslt_applies,
    sglang_hipblaslt_gemms,
)
from gpudesk.sizing.serve_step import step_model
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad
from gpudesk.sizing.speed_serve_cases import intra_link


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_the_fixed_time_and_the_stream_rate_reproduce_the_measured_hipblaslt_calls():
    """PR 12329's smallest and largest one-token hipBLASLt GEMMs on MI300X (N x K FP16): 4096 x 11008 in 32.77 us,
    76032 x 13312 in 497.12 us; the fixed time plus the bytes at the MI300X's STREAM rate lands within 11 us."""
    rate = MEASURED_STREAM_COPY_TBPS["mi300x"] * 1e12
    for n, k, measured_s in ((4096, 11008, 32.77e-6), (76032, 13312, 497.12e-6), (8192, 12288, 61.53e-6)):
        assert HIPBLASLT_CALL_FIXED_S + 2 * n * k / rate == pytest.approx(measured_s, abs=11e-6)


def test_it_applies_to_sglang_with_16_bit_linears_on_cdna_only(catalog):
    mi300x, mi355x, h100 = catalog.gpu("mi300x"), catalog.gpu("mi355x"), catalog.gpu("h100-sxm5")
    assert sglang_hipblaslt_applies("sglang", mi300x, "bf16")
    assert sglang_hipblaslt_applies("SGLang", mi355x, "bf16")
    assert not sglang_hipblaslt_applies("vllm", mi300x, "bf16")  # vLLM's skinny kernels: library_gemm_extra_s
    assert not sglang_hipblaslt_applies("sglang", h100, "bf16")
    assert not sglang_hipblaslt_applies("sglang", mi300x, "fp8")
    assert not sglang_hipblaslt_applies("sglang", mi300x, None)  # block FP8 / int4: their own kernels


def test_gpt_oss_120b_at_tp_8_sends_attention_and_lm_head_to_hipblaslt_and_the_router_to_the_skinny_kernel(catalog):
    """gpt-oss-120b (36 layers, hidden 2880, 64 query and 8 KV heads of 64, 128 experts) at TP 8: QKV N = 80 x 64 /
    8 = 640 and O N = 2880 are wider than AITER's skinny rule (2 x 256 compute units on MI350X, 2 x 304 on MI300X),
    the router (N = 128) is not: 36 x 2 + the LM head."""
    spec = spec_from_catalog(catalog.model("gpt-oss-120b"))
    assert sglang_hipblaslt_gemms(spec, 8, 256) == 36 * 2 + 1
    assert sglang_hipblaslt_gemms(spec, 8, 304) == 36 * 2 + 1
    # A GPU of many more compute units would take QKV (640 outputs) to the skinny kernel too.
    assert sglang_hipblaslt_gemms(spec, 8, 512) == 36 + 1


def test_the_lmsys_gpt_oss_120b_mi350x_decode_step_carries_the_calls_at_one_token(catalog):
    """The LMSYS gpt-oss blog's MI350 run (SGLang 0.5.1.post3, TP 8, batch 1, BF16 checkpoint): the step of one
    token pays the 73 calls' fixed time beyond the kernel floor; vLLM on the same GPUs does not (skinny kernels)."""
    spec = spec_from_catalog(catalog.model("gpt-oss-120b"))
    gpu = catalog.gpu("mi350x")
    link = intra_link(gpu, "infinity-fabric", 8)
    sglang = step_model(spec, gpu, ServeLoad(engine="sglang", engine_version="0.5.1.post3", input_tokens=1024,
                                             output_tokens=512, batch=1, tp=8, weight_format="bf16").validated(),
                        link, "bf16")
    assert sglang.library_gemm_s == pytest.approx(73 * SGLANG_HIPBLASLT_EXTRA_S)
    assert sglang.skinny_max_tokens == 0
    assert any(a.name == "library_gemm_s" and "hipBLASLt" in a.value for a in sglang.assumptions)
    vllm = step_model(spec, gpu, ServeLoad(engine="vllm", input_tokens=1024, output_tokens=512, batch=1, tp=8,
                                           weight_format="bf16").validated(), link, "bf16")
    assert vllm.skinny_max_tokens == 4
