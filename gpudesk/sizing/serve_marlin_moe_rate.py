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

FP8 experts on NVIDIA GPUs without FP8 matrix units (compute capability below 8.9: Ampere, A100 / A10 / RTX 30xx):
vLLM runs them weight-only through the same Marlin MoE kernel, 8-bit weights unpacked to 16 bits in registers and
multiplied on the same 16-bit ``mma.sync`` path, with no activation quantization (``get_fp8_moe_backend`` in
``vllm/model_executor/layers/quantization/fp8.py``: "weight-only path for older GPUs without native FP8",
``use_marlin = not current_platform.has_device_capability(89)`` -> ``Fp8MoeBackend.MARLIN``; the compressed-tensors
FP8 MoE method alike). vLLM added it in PR 16850 and fixed it (FP8 exponent bias in the MoE scales) and extended it to
compressed-tensors checkpoints in PR 18026 (merged 2025-05-13, first in v0.9.0); vLLM warns on loading "Weight-only
FP8 compression will be used leveraging the Marlin kernel. This may degrade performance for compute-heavy workloads"
(``marlin_utils_fp8.py``). The 4-bit kernel's share above is applied to these experts at prompt-step sizes (the
kernel's unpacking and 16-row m-blocks are the same; only the bits per weight differ). Earlier vLLM releases had no
FP8 MoE path on these GPUs, and SGLang's (sgl-project/sglang PR 9754, "enable moe marlin fp8 for Ampere GPU") was
closed unmerged: neither is charged.
"""

from __future__ import annotations

from gpudesk.sizing.serve_host import engine_version_tuple
from gpudesk.sizing.serve_int4_moe_shape import WEIGHT_ONLY_4BIT_PREFIXES
from gpudesk.sizing.serve_marlin_moe import MARLIN_MOE_ENGINES

MARLIN_MOE_RATE_SOURCE = (
    "vLLM Marlin MoE CUDA kernel on H20, E 512 K 4096 N 1024 top-10: 5.618 / 21.497 / 31.841 ms at 1024 / 4096 / "
    "8192 tokens, 50-67 TFLOPS beyond the weight stream; Mixtral shape at 64 tokens 45 TFLOPS (flagos-ai/FlagGems PR "
    "3375); kernel: sglang "
    "compressed_tensors_moe.py fused_marlin_moe, vllm csrc/moe/marlin_moe_wna16/ops.cu")
MARLIN_MOE_PEAK_SHARE = 57.3 / 148.0
MARLIN_MOE_VENDOR = "NVIDIA"
FP8_MARLIN_MOE_ENGINE = "vllm"
FP8_MARLIN_MOE_SINCE = (0, 9)  # vllm-project/vllm PRs 16850 and 18026 (module docstring)
FP8_MARLIN_MOE_SOURCE = (
    "vLLM FP8 MoE on GPUs without native FP8 (compute capability < 8.9): weight-only Marlin MoE "
    "(vllm/model_executor/layers/quantization/fp8.py get_fp8_moe_backend: use_marlin = not "
    "has_device_capability(89); vllm-project/vllm PRs 16850, 18026, v0.9.0); rate: " + MARLIN_MOE_RATE_SOURCE)


def fp8_marlin_moe(engine: str, version: str | None, vendor: str, weight_format: str, fp8_units: bool) -> bool:
    """Whether ``engine`` at ``version`` runs FP8 routed experts (``weight_format``, the storage format) weight-only
    in the Marlin MoE kernel on a GPU of ``vendor`` that has (``fp8_units``) or lacks FP8 matrix units (module
    docstring): vLLM from 0.9 (an unpublished version taken as a current one) on NVIDIA GPUs without them."""
    if fp8_units or weight_format.lower() != "fp8" or vendor.upper() != MARLIN_MOE_VENDOR:
        return False
    if engine.lower() != FP8_MARLIN_MOE_ENGINE:
        return False
    release = engine_version_tuple(version)
    return release is None or release >= FP8_MARLIN_MOE_SINCE


def marlin_moe_peak_share(engine: str, vendor: str, weight_format: str, version: str | None = None,
                          fp8_units: bool = True) -> float:
    """Share of the BF16 dense peak the routed experts' math reaches in the Marlin MoE kernel for ``engine`` at
    ``version`` on a GPU of ``vendor`` with or without FP8 matrix units (``fp8_units``), experts stored in
    ``weight_format``; 0 where this module does not apply (module docstring)."""
    if fp8_marlin_moe(engine, version, vendor, weight_format, fp8_units):
        return MARLIN_MOE_PEAK_SHARE
    if engine.lower() not in MARLIN_MOE_ENGINES or vendor.upper() != MARLIN_MOE_VENDOR:
        return 0.0
    if not weight_format.lower().startswith(WEIGHT_ONLY_4BIT_PREFIXES):
        return 0.0
    return MARLIN_MOE_PEAK_SHARE
