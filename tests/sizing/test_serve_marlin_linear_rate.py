"""Math rate of the 4-bit weight-only dense linears in vLLM / SGLang on NVIDIA Hopper and datacenter Blackwell
(gpudesk.sizing.serve_marlin_linear_rate), issue 24: where it applies, and what it does to a prompt step of a dense
AWQ model (slower) and to a one-token decode step (unchanged within 1 %)."""

from __future__ import annotations

import dataclasses

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_marlin_linear_rate import MARLIN_LINEAR_PEAK_SHARE, marlin_linear_peak_share
from gpudesk.sizing.serve_step import step_model
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad
from gpudesk.sizing.speed_serve_cases import intra_link


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_where_the_rate_applies():
    for fmt in ("int4-awq", "awq", "int4-gptq", "gptq", "w4a16", "int4-g32"):
        assert marlin_linear_peak_share("vllm", "NVIDIA", fmt, "9.0") == MARLIN_LINEAR_PEAK_SHARE
    assert marlin_linear_peak_share("sglang", "NVIDIA", "int4-awq", "10.0") == MARLIN_LINEAR_PEAK_SHARE
    # mma.sync runs at the full tensor rate on Ampere, Ada and GeForce / workstation Blackwell
    for capability in ("8.0", "8.6", "8.9", "12.0", None, "n/a"):
        assert marlin_linear_peak_share("vllm", "NVIDIA", "int4-awq", capability) == 0.0
    assert marlin_linear_peak_share("trtllm", "NVIDIA", "int4-awq", "9.0") == 0.0  # its own kernels
    assert marlin_linear_peak_share("lmdeploy", "NVIDIA", "int4-awq", "9.0") == 0.0  # TurboMind
    assert marlin_linear_peak_share("vllm", "AMD", "int4-gptq", None) == 0.0  # no Marlin on ROCm
    for fmt in ("bf16", "fp8", "nvfp4", "mxfp4", "w8a8"):
        assert marlin_linear_peak_share("vllm", "NVIDIA", fmt, "9.0") == 0.0


def _step(catalog, gpu_id: str, weight_format: str, engine: str = "vllm"):
    spec = spec_from_catalog(catalog.model("llama-3.1-70b"))
    gpu = catalog.gpu(gpu_id)
    return step_model(spec, gpu, ServeLoad(engine=engine, tp=2, concurrency=1, weight_format=weight_format),
                      intra_link(gpu, "nvlink"), "bf16")


def test_awq_prompt_step_is_slower_and_decode_is_not(catalog):
    """Llama 3.1 70B AWQ at TP 2 on H100 in vLLM: the dense linears' FLOPs (all but the embeddings and LM head) run
    at the Marlin rate; a 4096-token prompt step pays them, a one-token decode step is within 1 %."""
    model = _step(catalog, "h100-sxm5", "int4-awq")
    gpu = catalog.gpu("h100-sxm5")
    assert model.linear_kernel_flops_per_s == pytest.approx(MARLIN_LINEAR_PEAK_SHARE * gpu.bf16_dense_tflops * 1e12)
    spec = spec_from_catalog(catalog.model("llama-3.1-70b"))
    assert model.linear_kernel_flops_per_token == pytest.approx(
        2 * (spec.active_params - spec.embedding_params) / 2, rel=1e-6)
    assert any(a.name == "marlin_linear_rate" for a in model.assumptions)
    plain = dataclasses.replace(model, linear_kernel_flops_per_token=0.0)
    prompt, prompt_plain = model.gpu_s(0, 0, 4096, 4096 * 2048), plain.gpu_s(0, 0, 4096, 4096 * 2048)
    expected = 4096 * model.linear_kernel_flops_per_token * (
        1 / model.linear_kernel_flops_per_s - 1 / model.gemm_flops_per_s(4096))
    assert prompt - prompt_plain == pytest.approx(expected, rel=0.01)
    assert prompt > 1.3 * prompt_plain
    decode, decode_plain = model.gpu_s(1, 1000, 0, 0), plain.gpu_s(1, 1000, 0, 0)
    assert decode == pytest.approx(decode_plain, rel=0.01)


def test_not_charged_elsewhere(catalog):
    for gpu_id, fmt, engine in (("a100-80-sxm4", "int4-awq", "vllm"), ("h100-sxm5", "bf16", "vllm"),
                                ("h100-sxm5", "int4-awq", "trtllm")):
        model = _step(catalog, gpu_id, fmt, engine)
        assert model.linear_kernel_flops_per_token == 0.0
        assert not any(a.name == "marlin_linear_rate" for a in model.assumptions)


def test_rocm_gptq_rebuilds_the_16bit_weights_above_50_rows(catalog):
    """vLLM on AMD runs GPTQ linears through ops.gptq_gemm: above 50 rows it writes the FP16 weights and reads them
    back (4 bytes per weight of the quantized linears, per GPU); up to 50 rows, and on NVIDIA or for AWQ, nothing."""
    from gpudesk.sizing.serve_rocm_gptq import GPTQ_GEMM_MAX_FUSED_ROWS, rocm_gptq_reconstructs

    assert rocm_gptq_reconstructs("vllm", "AMD", "int4-gptq")
    assert not rocm_gptq_reconstructs("vllm", "NVIDIA", "int4-gptq")
    assert not rocm_gptq_reconstructs("vllm", "AMD", "int4-awq")
    assert not rocm_gptq_reconstructs("sglang", "AMD", "int4-gptq")
    spec = spec_from_catalog(catalog.model("llama-3.1-70b"))
    gpu = catalog.gpu("mi300x")
    model = step_model(spec, gpu, ServeLoad(engine="vllm", tp=2, concurrency=1, weight_format="int4-gptq"),
                       intra_link(gpu, None), "bf16")
    assert model.reconstruct_bytes == pytest.approx((spec.active_params - spec.embedding_params) * 4 / 2, rel=1e-6)
    assert any(a.name == "rocm_gptq_reconstruct" for a in model.assumptions)
    plain = dataclasses.replace(model, reconstruct_bytes=0.0)
    rows = GPTQ_GEMM_MAX_FUSED_ROWS
    assert model.gpu_s(rows, rows * 1000) == pytest.approx(plain.gpu_s(rows, rows * 1000))
    extra = model.gpu_s(0, 0, 4096, 4096 * 2048) - plain.gpu_s(0, 0, 4096, 4096 * 2048)
    assert extra == pytest.approx(model.reconstruct_bytes / model.bytes_per_s, rel=1e-6)
