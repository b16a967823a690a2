"""hipBLASLt per-tensor FP8 GEMMs on CDNA 3: the matmul rate by GEMM size, not one figure for every GEMM.

The step model prices a GEMM's math at one rate, the largest hipBLASLt FP8 GEMM measured on the MI300X (1159.5 of
2614.9 TFLOPS, :data:`gpudesk.sizing.serve_rates.VENDOR_FP8_MATMUL_EFFICIENCY`). The same measured table (Azure AI
benchmarking guide, ND MI300X v5, "GEMM HipBLASLt", FP8, random initialisation: :data:`GEMM_SIZE_SOURCE`) shows the
rate depends on the GEMM's size: 955.17 TFLOPS at 4096 x 4096 x 4096 (137 GFLOP), 1159.23 at 8192 x 8192 x 8192
(1.10 TFLOP), 1159.54 at 6144 x 12288 x 12288 (1.86 TFLOP). A serving step's dense linears are smaller than the
largest of these: a decode or prefill step of ``M`` tokens runs, per layer and GPU, the QKV, O, gate_up and down
projections of ``2 M N K`` FLOPs each (Llama 3.1 70B at TP 8 with M = 2048: 43 GFLOP for QKV, 241 GFLOP for
gate_up).

Rate by size (``2 M N K`` FLOPs of one GEMM): the measured rate interpolated linearly in log2(FLOPs) between the
4096^3 and 8192^3 points, the 8192^3 rate above (the larger cubes of the table, 1015 / 1029 TFLOPS at 16384^3 /
32768^3, are long runs at a lower sustained clock, and 6144 x 12288 x 12288 keeps 1159.5). Below 4096^3 the rate
falls as the measured FP8 GEMMs of serving shapes on the same chip fall (:data:`SMALL_SIZE_SOURCE`): AITER's tuned
FP8 GEMM tables for MI300X (gfx942, 304 compute units) record the measured time of every (M, N, K) they tuned, M
from 1 to 32768 tokens, N and K those of dense 27B / 32B models' projections (17706 shapes). Their median rate per
power of two of FLOPs (:data:`SMALL_SIZE_TFLOPS`) is 719 TFLOPS at 137 GFLOP, 638 at 69, 537 at 34, 419 at 17,
330 at 8.6 GFLOP: too few output tiles to fill 304 compute units, the fall every tiled MFMA GEMM on the chip shares.
That kernel is AITER's block-scaled FP8 GEMM, not hipBLASLt's per-tensor one, and saturates lower (822 TFLOPS);
only its fall is taken, as the ratio to its own rate at 4096^3's FLOPs, times the hipBLASLt 4096^3 share (the two
curves meet there). Below the table's smallest bucket (1.07 GFLOP) the share stays at that bucket's. The table's
smaller cubes (427.74 TFLOPS at 2048^3, 53.13 at
1024^3, 110.96 at 1024 x 2145 x 1024) are not used: all three take the same ~40 us (2.15, 17.2 and 4.50 GFLOP),
a per-call floor of that benchmark rather than the kernel's rate, and a decode GEMM of few tokens is shaped
differently from a small cube (its N x K spreads over many tiles). The published serving rows bound the thin end
too: vLLM's MI300X FP8 batch-latency sweeps (ROCm/vllm docs/dev-docker README, fresh19/21 sets) miss the same
~4.3 ms per step at batch 128 for Llama 3.1 70B and 405B, whose GEMM FLOPs per GPU differ 5.8x, so a per-FLOP
slowdown of the thin GEMMs larger than this default is ruled out there.

Which kernel: vLLM on ROCm runs per-tensor FP8 linears through ``torch._scaled_mm``, i.e. hipBLASLt, for every step
of more than one token (``vllm/model_executor/layers/quantization/utils/w8a8_utils.py`` ``apply_fp8_linear``, ROCm
fork branch v0.6.4+rocm: ``cutlass_fp8_supported`` is False on ROCm, per-tensor weights and activations take
``torch._scaled_mm``; later ``quantization/kernels/scaled_mm/rocm.py`` rocm_per_tensor_float_w8a8_scaled_mm_impl,
the skinny ``wvSplitKQ`` only for one token: :data:`gpudesk.sizing.serve_rates.SKINNY_MAX_TOKENS`). AITER's CK / asm
GEMMs (ROCm/aiter PR 1092 tunes them for the Llama 70B / 405B shapes) serve per-token / per-channel FP8, not these
per-tensor checkpoints. Applied where the measurement is: CDNA 3 (MI300X, MI325X: the same die), vLLM, per-tensor
FP8 dense linears of a model without routed experts; elsewhere the single rate stays.
"""

from __future__ import annotations

import math

from gpudesk.catalog.records import GPU
from gpudesk.sizing.shapes import ModelSpec

GEMM_SIZE_SOURCE = ("Azure AI benchmarking guide, ND MI300X v5 results, GEMM HipBLASLt FP8 table "
                    "(https://github.com/samuel-bohman/AI-benchmarking-guide/blob/main/Azure_Results/"
                    "ND_MI300X_v5_results.md); vLLM ROCm per-tensor FP8 linear via torch._scaled_mm "
                    "(vllm/model_executor/layers/quantization/utils/w8a8_utils.py, ROCm/vllm v0.6.4+rocm)")
# (FLOPs of one GEMM, measured TFLOPS): 4096^3 and 8192^3 of the table above.
SMALL_GEMM_FLOPS = 2.0 * 4096**3
SMALL_GEMM_TFLOPS = 955.17
LARGE_GEMM_FLOPS = 2.0 * 8192**3
LARGE_GEMM_TFLOPS = 1159.23
SIZE_CURVE_ARCHITECTURES = ("CDNA 3",)
SMALL_SIZE_SOURCE = ("ROCm/aiter aiter/configs/model_configs/a8w8_blockscale_tuned_gemm_qwen3_vl_32b.csv and "
                     "a8w8_blockscale_tuned_gemm_qwen36_27b.csv (commit e4048607a535), rows gfx942 / cu_num 304: "
                     "measured us and TFLOPS per (M, N, K); median TFLOPS per power of two of 2 M N K")
# (log2 of one GEMM's FLOPs, median measured TFLOPS of the AITER table's GEMMs in that power of two)
SMALL_SIZE_TFLOPS = ((30, 86.19), (31, 156.95), (32, 235.14), (33, 330.43), (34, 419.09), (35, 536.53),
                     (36, 638.43), (37, 718.83))


def gemm_size_share(flops: float) -> float:
    """The share of the largest measured rate a hipBLASLt FP8 GEMM of ``flops`` FLOPs reaches on CDNA 3 (module
    docstring): 955.17 / 1159.23 at 4096^3 and the measured fall below it, 1 from 8192^3, linear in log2(FLOPs)
    between."""
    low = SMALL_GEMM_TFLOPS / LARGE_GEMM_TFLOPS
    if flops <= SMALL_GEMM_FLOPS:
        return low * small_size_fall(flops)
    if flops >= LARGE_GEMM_FLOPS:
        return 1.0
    position = math.log2(flops / SMALL_GEMM_FLOPS) / math.log2(LARGE_GEMM_FLOPS / SMALL_GEMM_FLOPS)
    return low + position * (1.0 - low)


def small_size_fall(flops: float) -> float:
    """The measured rate of a GEMM of ``flops`` FLOPs over that at 4096^3's FLOPs, below it (module docstring:
    :data:`SMALL_SIZE_TFLOPS`, linear in log2(FLOPs) between its buckets, its smallest bucket's below them)."""
    top = SMALL_SIZE_TFLOPS[-1][1]
    position = math.log2(max(flops, 1.0))
    if position <= SMALL_SIZE_TFLOPS[0][0]:
        return SMALL_SIZE_TFLOPS[0][1] / top
    for (low_log, low_rate), (high_log, high_rate) in zip(SMALL_SIZE_TFLOPS, SMALL_SIZE_TFLOPS[1:]):
        if position <= high_log:
            return (low_rate + (position - low_log) / (high_log - low_log) * (high_rate - low_rate)) / top
    return 1.0


def dense_linear_shapes(spec: ModelSpec, tp: int) -> tuple[tuple[int, int], ...]:
    """(N, K) of the four dense linears of one decoder layer on one of ``tp`` GPUs: QKV (query heads plus the GPU's
    key and value heads, at least one each), O, gate_up (both halves of a gated MLP) and down."""
    dims = spec.transformer_dims
    head = spec.head_dim_resolved
    query = dims.num_attention_heads * head // tp
    kv = max(1, spec.kv_heads_resolved // tp) * head
    ffn = (spec.ffn_size or 4 * dims.hidden_size) // tp
    up = 2 * ffn if spec.gated else ffn
    return ((query + 2 * kv, dims.hidden_size), (dims.hidden_size, query), (up, dims.hidden_size),
            (dims.hidden_size, ffn))


def gemm_size_shapes(engine: str, gpu: GPU, linear_format: str | None, spec: ModelSpec,
                     tp: int) -> tuple[tuple[int, int], ...]:
    """The per-layer (N, K) of the dense linears whose rate follows :func:`gemm_size_share`, or () where the single
    rate stays: not vLLM, not CDNA 3, not per-tensor FP8 linears, a model with routed experts or multi-head latent
    attention (module docstring)."""
    if engine.lower() != "vllm" or gpu.architecture not in SIZE_CURVE_ARCHITECTURES or linear_format != "fp8":
        return ()
    if spec.moe_experts or spec.attention_kind == "mla" or not spec.is_transformer:
        return ()
    return dense_linear_shapes(spec, tp)


def size_extra_s(shapes: tuple[tuple[int, int], ...], layers: int, tokens: int, flops_per_s: float) -> float:
    """Seconds a step of ``tokens`` tokens spends on ``layers`` layers of the ``shapes`` linears beyond their math at
    the single rate ``flops_per_s`` (the largest GEMMs' rate)."""
    if not shapes or tokens <= 0 or flops_per_s <= 0:
        return 0.0
    extra = 0.0
    for n, k in shapes:
        flops = 2.0 * tokens * n * k
        extra += flops / flops_per_s * (1.0 / gemm_size_share(flops) - 1.0)
    return layers * extra
