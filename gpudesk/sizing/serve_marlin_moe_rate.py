"""Math rate of the Marlin MoE kernel at prompt-step sizes (4-bit weight-only routed experts on NVIDIA GPUs).

vLLM and SGLang run AWQ / GPTQ / compressed-tensors W4A16 routed experts through the Marlin MoE kernel
(:mod:`gpudesk.sizing.serve_marlin_moe`: SGLang ``fused_marlin_moe``, vLLM ``moe_wna16_marlin_gemm``). Marlin
unpacks the 4-bit weights in registers and multiplies with Ampere-style ``mma.sync`` instructions, one 16-row
m-block after another per expert; at the hundreds to thousands of rows of a prompt step its math does not reach the
rate of the dense 16-bit cuBLAS GEMMs the rest of the step runs at.

Measured: FlagGems PR 3375 (flagos-ai/FlagGems, "perf(fused_marlin_moe)", 2026-05) benchmarks vLLM's Marlin CUDA
kernel on H20 for M x E x K x N x top-k = 1024 / 4096 / 8192 x 512 x 4096 x 1024 x 10: 5.618 / 21.497 / 31.841 ms.
Read in this model's form (the experts' 3.27 GB of int4 weights and group scales at the H20's modelled HBM rate,
3.46 TB/s = 0.95 ms, plus the FLOPs at a rate): 258 / 1031 / 2062 GFLOP at 55 / 50 / 67 TFLOPS, 34-45 % of the
H20's 148 TFLOPS BF16 peak, against the ~75 % the dense GEMMs reach. The mean, 57.3 TFLOPS = 38.7 %, is the share.

The H20's tensor cores are throttled against its SMs (148 TFLOPS on 78 SMs, an H100 SXM's 989 on 132), so the
kernel's unpacking and scheduling weigh less there than on a full Hopper or Blackwell part; the H20 share applied to
those GPUs is, if anything, too fast. Unlike the Triton fused MoE (:mod:`gpudesk.sizing.serve_triton_moe_rate`) a
wide expert slice is no faster: the same benchmark's Mixtral shape (64 x 8 x 4096 x 14336 x 2, 1.207 ms; 45 GFLOP
beyond its 0.21 ms weight stream) runs at 45 TFLOPS, 30 %, so the share applies whatever the width.
TensorRT-LLM's CUTLASS 4-bit MoE and AMD GPUs are not charged.
"""

from __future__ import annotations

from gpudesk.sizing.serve_int4_moe_shape import WEIGHT_ONLY_4BIT_PREFIXES
from gpudesk.sizing.serve_marlin_moe import MARLIN_MOE_ENGINES

MARLIN_MOE_RATE_SOURCE = (
    "vLLM Marlin MoE CUDA kernel on H20, E 512 K 4096 N 1024 top-10: 5.618 / 21.497 / 31.841 ms at 1024 / 4096 / "
    "8192 tokens, 50-67 TFLOPS beyond the weight stream; Mixtral shape at 64 tokens 45 TFLOPS (flagos-ai/FlagGems PR "
    "3375); kernel: sglang "
    "compressed_tensors_moe.py fused_marlin_moe, vllm csrc/moe/marlin_moe_wna16/ops.cu")
MARLIN_MOE_PEAK_SHARE = 57.3 / 148.0
MARLIN_MOE_VENDOR = "NVIDIA"


def marlin_moe_peak_share(engine: str, vendor: str, weight_format: str) -> float:
    """Share of the BF16 dense peak the routed experts' math reaches in the Marlin MoE kernel for ``engine`` on a GPU
    of ``vendor``, experts stored in ``weight_format``; 0 where this module does not apply (module docstring)."""
    if engine.lower() not in MARLIN_MOE_ENGINES or vendor.upper() != MARLIN_MOE_VENDOR:
        return 0.0
    if not weight_format.lower().startswith(WEIGHT_ONLY_4BIT_PREFIXES):
        return 0.0
    return MARLIN_MOE_PEAK_SHARE
