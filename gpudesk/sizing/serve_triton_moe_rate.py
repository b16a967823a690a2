"""Math rate of the Triton fused MoE with 16-bit or per-tensor FP8 routed experts (vLLM, SGLang on NVIDIA GPUs).

vLLM and SGLang run the routed experts of an unquantized (BF16 / FP16) or per-tensor FP8 MoE through their Triton
``fused_moe_kernel`` by default (vLLM ``vllm/model_executor/layers/fused_moe/fused_moe.py`` ``fused_experts`` ->
``invoke_fused_moe_kernel``, stored at commit 13cb3e44373beb1c8b9d2c017f565af6f7a1b601; SGLang
``python/sglang/srt/layers/moe/fused_moe_triton/``; https://github.com/vllm-project/vllm,
https://github.com/sgl-project/sglang): a grouped GEMM over (token, expert) rows sorted by expert, each expert's
rows a gathered ``M_e x K`` block against its own ``K x N`` slice. At prompt steps this kernel does not reach the
rate of the dense cuBLAS GEMMs the rest of the step runs at (the catalog's measured MAMF): its tiles gather rows
through an index, the per-expert slices are narrow (N of a few hundred at tensor parallelism) and the rows per
expert few (``tokens x top-k / experts``: 64-256 for a 1-4k-token prompt of a 128-expert top-8 model).

Measured with ``benchmarks/kernels/benchmark_moe.py`` (the whole fused MoE: both grouped GEMMs and the activation),
read in this model's own form, ``time = expert weights / HBM rate + FLOPs / rate`` (the form
:mod:`gpudesk.sizing.serve_step` adds them in), with the HBM rate the STREAM figure the model uses
(:data:`gpudesk.sizing.serve_rates.MEASURED_STREAM_COPY_TBPS`):

- Per-tensor FP8 (``fp8_w8a8``), Qwen3-30B-A3B at TP 1 (E 128, N 768, K 2048, top-8) on H100, vLLM main of
  2025-09 (vllm-project/vllm PR 24700, "Main" column): 536 / 912 / 1648 us at 1024 / 2048 / 4096 tokens; 604 MB of
  expert weights at 2.90 TB/s = 208 us; the remaining 328 / 703 / 1439 us carry 77 / 155 / 309 GFLOP: 236 / 220 /
  215 TFLOPS, 11-12 % of the 1979 TFLOPS FP8 peak (the dense per-tensor FP8 GEMM of the model runs at ~70 %).
  The same order as the block-FP8 Triton GEMM's measured 219 TFLOPS at 256 rows
  (:data:`gpudesk.sizing.serve_rates.BLOCK_FP8_TRITON_TFLOPS_BY_M`).
- BF16, Gemma 4 MoE (E 128, N 704, K 2816, top-8) on H200, vLLM default configuration (vllm-project/vllm PR
  44818, "Default" column): 993 / 1250 us at 3072 / 4096 tokens; 1.52 GB of expert weights at 4.01 TB/s = 380 us;
  the rest carries 292 / 390 GFLOP: 477 / 448 TFLOPS, 45-48 % of the 989 TFLOPS BF16 peak (the model's dense
  BF16 rate on H200 is ~70 % of it).
- Wide expert slices reach the dense rate: Mixtral-8x7B at TP 2 (E 8, N 7168, K 4096) BF16 on H100 with its tuned
  file, 1123 us at 1536 tokens (PR 24700), is no slower than its 1.41 GB weight stream plus its 541 GFLOP at the
  dense rate. The slow rate is therefore applied only to local expert slices no wider than
  :data:`NARROW_EXPERT_MAX_WIDTH` (the measured 704-768 and the 128-expert models' TP slices below them).

The rate is a share of the GPU's dense peak at the experts' format (the Hopper measurements above, taken to hold on
other NVIDIA GPUs the engines run the same Triton kernel on). Block-FP8 experts have their own measured Triton
rate (:func:`gpudesk.sizing.serve_rates.block_fp8_triton_peak_share`); AMD GPUs run AITER's or their own measured
kernels (:mod:`gpudesk.sizing.serve_rocm_aiter_moe`); TensorRT-LLM runs its CUTLASS MoE: none of them here.
"""

from __future__ import annotations

TRITON_MOE_RATE_SOURCE = (
    "Triton fused MoE measured with benchmarks/kernels/benchmark_moe.py: per-tensor FP8 Qwen3-30B-A3B (E 128, N 768) "
    "on H100 536 / 912 / 1648 us at 1024 / 2048 / 4096 tokens, ~220 TFLOPS beyond the weight stream (vllm-project/vllm "
    "PR 24700); BF16 Gemma 4 (E 128, N 704) on H200 993 / 1250 us at 3072 / 4096 tokens, ~450 TFLOPS (vllm-project/vllm "
    "PR 44818); Mixtral TP 2 (N 7168) at the dense rate (PR 24700); kernel: vllm/model_executor/layers/fused_moe/"
    "fused_moe.py at 13cb3e44373beb1c8b9d2c017f565af6f7a1b601 (https://github.com/vllm-project/vllm)")
# Shares of the dense peak at the experts' format (module docstring): FP8 222 TFLOPS (mean of 236 / 220 / 215) of
# 1979; BF16 448 TFLOPS of 989 (the 4096-token point, where the weight stream is the smallest part).
TRITON_MOE_PEAK_SHARE = {"fp8": 222.0 / 1979.0, "bf16": 448.0 / 989.0}
NARROW_EXPERT_MAX_WIDTH = 1024
TRITON_MOE_ENGINES = ("vllm", "sglang")
TRITON_MOE_VENDOR = "NVIDIA"


def triton_moe_peak_share(engine: str, vendor: str, expert_format: str, local_width: int) -> float:
    """Share of the dense peak (at ``expert_format``'s precision) the routed experts' math reaches in ``engine``'s
    Triton fused MoE on a GPU of ``vendor`` with expert slices ``local_width`` wide on the GPU; 0 where this module
    does not apply (another engine or vendor, block-FP8 / 4-bit experts, a wide slice: module docstring).

    ``expert_format`` is the experts' compute format: "bf16" (16-bit weights) or "fp8" (per-tensor FP8)."""
    if engine.lower() not in TRITON_MOE_ENGINES or vendor != TRITON_MOE_VENDOR:
        return 0.0
    if local_width < 1 or local_width > NARROW_EXPERT_MAX_WIDTH:
        return 0.0
    return TRITON_MOE_PEAK_SHARE.get(expert_format.lower(), 0.0)
