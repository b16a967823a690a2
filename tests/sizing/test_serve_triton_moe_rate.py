"""Math rate of the Triton fused MoE with 16-bit or per-tensor FP8 experts (gpudesk.sizing.serve_triton_moe_rate)
and of Marlin MoE with 4-bit weight-only experts (gpudesk.sizing.serve_marlin_moe_rate), issue 24: the measured kernel times it comes from, where it applies, and what it does to a prompt step of a real
MoE config (slower) and to a one-token decode step (unchanged)."""

from __future__ import annotations

import dataclasses

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_marlin_moe_rate import MARLIN_MOE_PEAK_SHARE, marlin_moe_peak_share
from gpudesk.sizing.serve_rates import MEASURED_STREAM_COPY_TBPS, hbm_efficiency
from gpudesk.sizing.serve_step import step_model
from gpudesk.sizing.serve_triton_moe_rate import (
    NARROW_EXPERT_MAX_WIDTH,
    TRITON_MOE_PEAK_SHARE,
    triton_moe_peak_share,
)
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad
from gpudesk.sizing.speed_serve_cases import intra_link


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def _fused_moe_us(tokens: int, experts: int, top_k: int, n: int, k: int, weight_bytes: float, stream_tbps: float,
                  flops_per_s: float) -> float:
    """Microseconds of the whole fused MoE (gate-up and down grouped GEMMs) in the model's form: the experts'
    weights at the STREAM rate plus the math at ``flops_per_s``."""
    weights = experts * 3 * n * k * weight_bytes
    flops = tokens * top_k * 3 * 2 * n * k
    return (weights / (stream_tbps * 1e12) + flops / flops_per_s) * 1e6


def test_the_shares_reproduce_the_measured_kernel_times(catalog):
    """vllm-project/vllm PR 24700 (H100, Qwen3-30B-A3B fp8_w8a8, E 128 N 768 K 2048): 536 / 912 / 1648 us at
    1024 / 2048 / 4096 tokens; PR 44818 (H200, Gemma 4 BF16, E 128 N 704 K 2816): 993 / 1250 us at 3072 / 4096."""
    h100, h200 = catalog.gpu("h100-sxm5"), catalog.gpu("h200-sxm")
    fp8_rate = TRITON_MOE_PEAK_SHARE["fp8"] * h100.fp8_dense_tflops * 1e12
    for tokens, measured in ((1024, 536.33), (2048, 911.64), (4096, 1647.57)):
        modelled = _fused_moe_us(tokens, 128, 8, 768, 2048, 1.0, MEASURED_STREAM_COPY_TBPS["h100-sxm5"], fp8_rate)
        assert modelled == pytest.approx(measured, rel=0.08)
    bf16_rate = TRITON_MOE_PEAK_SHARE["bf16"] * h200.bf16_dense_tflops * 1e12
    for tokens, measured in ((3072, 992.9), (4096, 1249.5)):
        modelled = _fused_moe_us(tokens, 128, 8, 704, 2816, 2.0, MEASURED_STREAM_COPY_TBPS["h200-sxm"], bf16_rate)
        assert modelled == pytest.approx(measured, rel=0.08)
    # Both far below the dense GEMMs' rate the rest of the step runs at (~70-80 % of the peak).
    assert TRITON_MOE_PEAK_SHARE["fp8"] < 0.15 and TRITON_MOE_PEAK_SHARE["bf16"] < 0.5


def test_where_the_rate_applies():
    assert triton_moe_peak_share("vllm", "NVIDIA", "bf16", 192) == TRITON_MOE_PEAK_SHARE["bf16"]
    assert triton_moe_peak_share("sglang", "NVIDIA", "fp8", 768) == TRITON_MOE_PEAK_SHARE["fp8"]
    assert triton_moe_peak_share("trtllm", "NVIDIA", "bf16", 192) == 0.0  # its own CUTLASS MoE
    assert triton_moe_peak_share("vllm", "AMD", "bf16", 192) == 0.0  # AITER / ROCm kernels, measured elsewhere
    assert triton_moe_peak_share("vllm", "NVIDIA", "fp4", 192) == 0.0
    # Mixtral at TP 2 (7168-wide slices) measured at the dense rate
    assert triton_moe_peak_share("vllm", "NVIDIA", "bf16", 7168) == 0.0
    assert triton_moe_peak_share("vllm", "NVIDIA", "bf16", NARROW_EXPERT_MAX_WIDTH + 1) == 0.0


def test_qwen3_235b_prompt_step_is_slower_and_decode_is_not(catalog):
    """Qwen3-235B-A22B BF16 at TP 8 on H200 in vLLM: 128 experts of width 1536, 192 wide on each GPU. A 4096-token
    prompt step pays the routed experts' FLOPs at the Triton rate; a one-token decode step, bound by the weight
    stream, is unchanged within 1 %."""
    spec = spec_from_catalog(catalog.model("qwen3-235b-a22b"))
    gpu = catalog.gpu("h200-sxm")
    model = step_model(spec, gpu, ServeLoad(engine="vllm", tp=8, concurrency=1, weight_format="bf16"),
                       intra_link(gpu, "nvlink"), "bf16")
    assert model.moe_kernel_flops_per_s == pytest.approx(TRITON_MOE_PEAK_SHARE["bf16"] * gpu.bf16_dense_tflops * 1e12)
    routed = 94 * 8 * 3 * 4096 * 1536 * 2 / 8  # 94 MoE layers, top-8, gate/up/down, 2 FLOPs, per GPU
    assert model.moe_kernel_flops_per_token == pytest.approx(routed, rel=0.01)
    assert any(a.name == "triton_moe_rate" for a in model.assumptions)
    dense_only = dataclasses.replace(model, moe_kernel_flops_per_token=0.0)
    extra = model.gpu_s(0, 0, 4096, 4096 * 2048) - dense_only.gpu_s(0, 0, 4096, 4096 * 2048)
    expected = 4096 * routed * (1 / model.moe_kernel_flops_per_s - 1 / model.gemm_flops_per_s(4096))
    assert extra == pytest.approx(expected, rel=1e-6)
    assert extra > 0.01  # more than 10 ms on a 4096-token prompt
    assert model.gpu_s(1, 1000) == pytest.approx(dense_only.gpu_s(1, 1000), rel=0.01)


def test_not_charged_to_wide_slices_other_engines_or_block_fp8(catalog):
    gpu = catalog.gpu("h100-sxm5")
    link = intra_link(gpu, "nvlink")
    mixtral = spec_from_catalog(catalog.model("mixtral-8x7b"))
    wide = step_model(mixtral, gpu, ServeLoad(engine="vllm", tp=2, concurrency=1, weight_format="bf16"), link, "bf16")
    assert wide.moe_kernel_flops_per_token == 0.0
    qwen = spec_from_catalog(catalog.model("qwen3-235b-a22b"))
    trt = step_model(qwen, gpu, ServeLoad(engine="trtllm", tp=8, concurrency=1, weight_format="bf16"), link, "bf16")
    assert trt.moe_kernel_flops_per_token == 0.0
    # DeepSeek-R1's block-FP8 experts keep their own measured Triton rate (slow_expert_flops_per_token)
    deepseek = spec_from_catalog(catalog.model("deepseek-r1"))
    block = step_model(deepseek, catalog.gpu("h200-sxm"), ServeLoad(engine="vllm", tp=8, concurrency=1),
                       intra_link(catalog.gpu("h200-sxm"), "nvlink"), "bf16")
    assert block.slow_expert_flops_per_token > 0 and block.moe_kernel_flops_per_token == 0.0


def test_marlin_share_reproduces_the_measured_kernel_times(catalog):
    """FlagGems PR 3375, vLLM's Marlin MoE CUDA kernel on H20 (E 512, K 4096, N 1024, top-10, int4 + group scales):
    5.618 / 21.497 / 31.841 ms at 1024 / 4096 / 8192 tokens; the Mixtral shape (E 8, N 14336, top-2) 1.207 ms at 64."""
    h20 = catalog.gpu("h20")
    rate = MARLIN_MOE_PEAK_SHARE * h20.bf16_dense_tflops * 1e12
    stream = h20.memory_bandwidth_gbps / 1000 * hbm_efficiency(h20)[0]
    int4 = 0.5 * (1 + 2 / 128)  # 4-bit weights and a 16-bit scale per group of 128
    for tokens, measured in ((1024, 5618), (4096, 21497), (8192, 31841)):
        modelled = _fused_moe_us(tokens, 512, 10, 1024, 4096, int4, stream, rate)
        assert modelled == pytest.approx(measured, rel=0.2)
    assert _fused_moe_us(64, 8, 2, 14336, 4096, int4, stream, rate) == pytest.approx(1207, rel=0.25)
    assert marlin_moe_peak_share("vllm", "NVIDIA", "int4-g128") == MARLIN_MOE_PEAK_SHARE
    assert marlin_moe_peak_share("sglang", "NVIDIA", "awq") == MARLIN_MOE_PEAK_SHARE
    assert marlin_moe_peak_share("trtllm", "NVIDIA", "int4-g128") == 0.0  # its own CUTLASS 4-bit MoE
    assert marlin_moe_peak_share("vllm", "AMD", "int4-g128") == 0.0
    assert marlin_moe_peak_share("vllm", "NVIDIA", "mxfp4") == 0.0


def test_int4_deepseek_prompt_step_pays_the_marlin_rate(catalog):
    """A DeepSeek-V3-shaped MoE (Kimi-K2's expert shape) in group-32 INT4 at TP 8 on H200 in SGLang: a 4096-token
    prompt step is slower by more than 20 ms, a one-token decode step unchanged within 1 %."""
    spec = spec_from_catalog(catalog.model("deepseek-r1"))
    gpu = catalog.gpu("h200-sxm")
    model = step_model(spec, gpu, ServeLoad(engine="sglang", tp=8, concurrency=1, weight_format="int4-g32"),
                       intra_link(gpu, "nvlink"), "bf16")
    assert model.moe_kernel_flops_per_s == pytest.approx(MARLIN_MOE_PEAK_SHARE * gpu.bf16_dense_tflops * 1e12)
    assert any(a.name == "marlin_moe_rate" for a in model.assumptions)
    dense_only = dataclasses.replace(model, moe_kernel_flops_per_token=0.0)
    assert model.gpu_s(0, 0, 4096, 4096 * 2048) > dense_only.gpu_s(0, 0, 4096, 4096 * 2048) + 0.02
    assert model.gpu_s(1, 1000) == pytest.approx(dense_only.gpu_s(1, 1000), rel=0.01)
