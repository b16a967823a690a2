"""4-bit weight-only routed experts on CDNA 4 (MI350X, MI355X) under SGLang: the Triton fused MoE at its default tiles.

Marlin is NVIDIA-only, so SGLang runs W4A16 routed experts on ROCm through the Triton fused MoE with int4 weights
(``fused_moe_kernel_gptq_awq``): sgl-project/sglang PR 17863 ("[AMD][Kimi K2.5 Day 0] ROCm: route W4A16 MoE to
Triton", merged 2026-01-28, https://github.com/sgl-project/sglang/pull/17863; ``CompressedTensorsWNA16TritonMoEMethod``
dispatched when ``is_hip()``). No tuned configuration for gfx950 ships with it: the lookup keyed on the device name
finds no ``E=384,N=256,device_name=AMD_Instinct_MI350X...,dtype=int4_w4a16.json`` ("no MI35x/gfx95 MoE tables are
shipped at all") and the kernel runs ``get_default_config``'s tiles (sgl-project/sglang PR 34460, 2026-08-11,
https://github.com/sgl-project/sglang/pull/34460). Its measured time per call (one MoE layer, both GEMMs) for the
Kimi-K2 / DeepSeek-V3 expert shape (hidden 7168, expert width 2048, 384 experts, top-8):

- decode: 0.212, 0.241, 0.298, 0.415 ms at 1, 2, 4, 8 tokens (standalone fused_moe on MI355X, E 385, TP 8,
  int4_w4a16, default configuration: sgl-project/sglang PR 22208, https://github.com/sgl-project/sglang/pull/22208);
- prefill: flat at 9.1-9.7 ms from 128 to 2048 tokens, "sixteen times the tokens for the same time" (PR 34460, Kimi-K2.5
  W4A16 on MI350X; the kernel is 80 % of the prefill's GPU time and 71 % of the decode's).

Between 8 and 128 tokens no point is published and the time is interpolated linearly; above 2048 it grows in
proportion to the tokens. Only that expert shape on CDNA 4 is charged; the kernel's time replaces the routed
experts' weight stream where it is longer. Both measurements are of the TP 8 slice; the time per call is taken as
the same at other tensor-parallel sizes (the kernel is bound by its tiles' latency, not by the bytes).
"""

from __future__ import annotations

from gpudesk.catalog.records import GPU
from gpudesk.sizing.serve_int4_moe_shape import measured_int4_experts

ROCM_INT4_MOE_ARCHITECTURES = ("CDNA 4",)
FLAT_UP_TO_TOKENS = 2048
# (tokens in the step, seconds per MoE layer): PR 22208 (1-8 tokens), PR 34460 (128-2048 tokens, the middle of 9.1-9.7)
TRITON_INT4_MOE_S_BY_TOKENS: tuple[tuple[float, float], ...] = (
    (1, 0.212e-3), (2, 0.241e-3), (4, 0.298e-3), (8, 0.415e-3), (128, 9.4e-3), (FLAT_UP_TO_TOKENS, 9.4e-3))
ROCM_INT4_MOE_SOURCE = ("SGLang on ROCm runs W4A16 MoE through the Triton fused MoE (sgl-project/sglang PR 17863); "
                        "no gfx950 tuned configuration, default tiles: 0.21-0.42 ms per MoE layer at 1-8 tokens "
                        "(PR 22208, MI355X), 9.1-9.7 ms from 128 to 2048 tokens (PR 34460, Kimi-K2.5 on MI350X) "
                        "(https://github.com/sgl-project/sglang)")


def rocm_int4_moe_applies(engine: str, gpu: GPU, weight_format: str, hidden: int, expert_width: int,
                          experts: int) -> bool:
    """Whether ``engine`` runs routed experts of this shape in ``weight_format`` on ``gpu`` through the untuned
    Triton int4 fused MoE whose times are measured (module docstring)."""
    return (engine.lower() == "sglang" and gpu.vendor.upper() == "AMD"
            and gpu.architecture in ROCM_INT4_MOE_ARCHITECTURES
            and measured_int4_experts(weight_format, hidden, expert_width, experts))


def triton_int4_moe_layer_s(tokens: int) -> float:
    """Seconds of one MoE layer's fused-MoE call for a step of ``tokens`` tokens (module docstring)."""
    if tokens <= 0:
        return 0.0
    points = TRITON_INT4_MOE_S_BY_TOKENS
    if tokens <= points[0][0]:
        return points[0][1]
    for (low_tokens, low_s), (high_tokens, high_s) in zip(points, points[1:]):
        if tokens <= high_tokens:
            return low_s + (high_s - low_s) * (tokens - low_tokens) / (high_tokens - low_tokens)
    return points[-1][1] * tokens / FLAT_UP_TO_TOKENS
