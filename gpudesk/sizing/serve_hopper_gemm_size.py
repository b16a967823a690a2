"""Per-tensor FP8 GEMMs on Hopper: the matmul rate by GEMM size, not the largest GEMM's rate for every GEMM.

The step model prices an FP8 GEMM's math on an NVIDIA GPU at one rate, the largest cuBLASLt FP8 GEMM measured on the
H100 SXM (1382.2 of 1978.9 TFLOPS at 32768^3, :data:`gpudesk.sizing.serve_rates.VENDOR_FP8_MATMUL_EFFICIENCY`). The
same measured table (Azure AI benchmarking guide, ND H100 v5, "GEMM CuBLASLt", FP8, random initialisation,
10,000 warm-up iterations: :data:`HOPPER_GEMM_SIZE_SOURCE`) shows the rate depends on the GEMM's size:

| m = n = k | GFLOP  | TFLOPS | share of 1382.2 |
| ---       | ---    | ---    | ---             |
| 2048      | 17.2   | 1011.3 | 0.73            |
| 4096      | 137    | 1216.9 | 0.88            |
| 8192      | 1100   | 1290.1 | 0.93            |
| 16384     | 8796   | 1377.3 | 1.00            |
| 32768     | 70369  | 1382.2 | 1               |

Too few output tiles to fill the 132 SMs and a short K loop per tile (NVIDIA "Matrix Multiplication Background
User's Guide" 3.2, wave quantization: :mod:`gpudesk.sizing.gemm_waves`). Tensor parallelism shards every dense linear
by ``tp`` (the N of QKV and gate_up, the K of O and down), so a TP 8 step's GEMMs are 8 times smaller than the TP 1
step's at the same tokens and sit lower on this curve: Llama 3.1 70B at TP 8 with M = 2048 tokens runs QKV at
43 GFLOP (0.79 of the rate) and O at 34 GFLOP (0.77), where the model took 1.0. At TP 1 an 8B model's QKV at the same
M is 103 GFLOP (0.85).

Rate by size (``2 M N K`` FLOPs of one GEMM): the measured share, linear in log2(FLOPs) between the points, 1 above
16384^3 and the 2048^3 share below it (the table's 1024^3 point, 274 TFLOPS in 7.8 us, and 1024 x 2145 x 1024,
411 TFLOPS, are a per-call floor of the benchmark more than the kernel's rate, as the ROCm table of the same guide
shows: :mod:`gpudesk.sizing.serve_rocm_gemm_size`; a decode GEMM of few tokens is memory-bound and its N x K spreads
over many tiles).

Which kernel: the table is cuBLASLt. TensorRT-LLM's FP8 linears run cuBLASLt (or its own CUTLASS GEMMs); vLLM and
SGLang run per-tensor FP8 on sm90 through CUTLASS 3.x scaled_mm (vllm ``csrc/quantization/cutlass_w8a8``,
``cutlass_fp8_supported`` on capability 9.0), whose size fall is taken to be the same (the same tiles and waves on
the same SMs; no per-size CUTLASS table in hand). Applied where the measurement is: Hopper GPUs with the H100's SM
count or more (H100 SXM / PCIe / NVL, H200, H800, GH200; not the H20, whose 78 SMs and FP8 rate saturate at smaller
GEMMs), per-tensor FP8 dense linears of a model without routed experts or latent attention; elsewhere the single
rate stays.
"""

from __future__ import annotations

import math

from gpudesk.catalog.records import GPU
from gpudesk.sizing.serve_rocm_gemm_size import dense_linear_shapes
from gpudesk.sizing.shapes import ModelSpec

HOPPER_GEMM_SIZE_SOURCE = ("Azure AI benchmarking guide, ND H100 v5 results, GEMM CuBLASLt FP8 table: 1011.3 / "
                           "1216.9 / 1290.1 / 1377.3 / 1382.2 TFLOPS at 2048^3 .. 32768^3 "
                           "(https://github.com/samuel-bohman/AI-benchmarking-guide/blob/"
                           "26d18e9458bb07bd43e3eda7aec8653aa592f2ec/Azure_Results/ND_H100_v5_results.md)")
#: (log2 of one GEMM's FLOPs, measured TFLOPS) of the table above (module docstring).
HOPPER_FP8_SIZE_TFLOPS = ((math.log2(2.0 * 2048**3), 1011.3), (math.log2(2.0 * 4096**3), 1216.9),
                          (math.log2(2.0 * 8192**3), 1290.1), (math.log2(2.0 * 16384**3), 1377.3),
                          (math.log2(2.0 * 32768**3), 1382.2))
HOPPER_FP8_LARGEST_TFLOPS = 1382.2
HOPPER_MIN_SMS = 114  # the H100 PCIe's count; the H20 (78) is left out (module docstring)


def hopper_gemm_size_share(flops: float) -> float:
    """The share of the largest measured rate a per-tensor FP8 GEMM of ``flops`` FLOPs reaches on Hopper (module
    table, linear in log2(FLOPs), the smallest point's share below it, 1 at the largest)."""
    position = math.log2(max(flops, 1.0))
    points = HOPPER_FP8_SIZE_TFLOPS
    if position <= points[0][0]:
        return points[0][1] / HOPPER_FP8_LARGEST_TFLOPS
    for (low_log, low_rate), (high_log, high_rate) in zip(points, points[1:]):
        if position <= high_log:
            rate = low_rate + (position - low_log) / (high_log - low_log) * (high_rate - low_rate)
            return min(1.0, rate / HOPPER_FP8_LARGEST_TFLOPS)
    return 1.0


def hopper_gemm_size_shapes(gpu: GPU, linear_format: str | None, spec: ModelSpec,
                            tp: int) -> tuple[tuple[int, int], ...]:
    """The per-layer (N, K) of the dense linears on one of ``tp`` GPUs whose rate follows
    :func:`hopper_gemm_size_share`, or () where the single rate stays (module docstring)."""
    if gpu.vendor != "NVIDIA" or gpu.architecture != "Hopper" or linear_format != "fp8":
        return ()
    if (gpu.sm_count or 0) < HOPPER_MIN_SMS:
        return ()
    if spec.moe_experts or spec.attention_kind == "mla" or not spec.is_transformer:
        return ()
    return dense_linear_shapes(spec, tp)


def hopper_size_extra_s(shapes: tuple[tuple[int, int], ...], layers: int, tokens: int, flops_per_s: float) -> float:
    """Seconds a step of ``tokens`` tokens spends on ``layers`` layers of the ``shapes`` linears beyond their math at
    the single rate ``flops_per_s`` (the largest GEMM's rate)."""
    if not shapes or tokens <= 0 or flops_per_s <= 0:
        return 0.0
    extra = 0.0
    for n, k in shapes:
        flops = 2.0 * tokens * n * k
        extra += flops / flops_per_s * (1.0 / hopper_gemm_size_share(flops) - 1.0)
    return layers * extra
