"""Per-tensor FP8 linears through a tensor-core library GEMM at a step of a few tokens (TensorRT-LLM on Hopper).

TensorRT-LLM's PyTorch flow runs a per-tensor FP8 linear (a ModelOpt FP8 checkpoint: FP8 weights and a static
FP8 input scale) through ``torch.ops.trtllm.cublas_scaled_mm``, a cuBLASLt FP8 tensor-core GEMM, at every batch
size; only on compute capability 8.9 and 12.0 does it switch a call of at most 8 token rows to its CUDA-core FP8
GEMM (``cuda_scaled_mm``): ``tensorrt_llm/_torch/modules/linear.py`` ``self.enable_cuda_core = capability ==
(8, 9)`` ("enable cuda core for sm89", later sm89 and sm120; NVIDIA/TensorRT-LLM PR 15928 of July 2026 still
lists only those and SM121), ``apply``: ``if x.shape[0] <= 8 and enable_cuda_core: cuda_scaled_mm ... else:
cublas_scaled_mm``. On a Hopper GPU (compute capability 9.x) a decode step of one request therefore runs every
dense linear as a tensor-core GEMM whose smallest tile holds 64 token rows (wgmma), with one of them used.

What that costs: a tensor-core FP8 GEMM at one token row reads its FP8 weights no faster than a 16-bit GEMM reads
the 16-bit ones. pytorch/FBGEMM PR 3577 (Jan 2025, Meta, H100; the TRT-LLM CUDA-core FP8 GEMM ported to FBGEMM)
measures the decode attention linears: "When BS=1, TRT-LLM FP8 gemm brings 2x speedup compared to BF16, while FP8
cutlass gemm's perf is similar to BF16", and "When BS>4, TRT-LLM FP8 gemm does not bring perf gain" (the
tensor-core kernel has caught up there). So for steps of at most 4 tokens the FP8 dense linears are charged the
time of their 16-bit bytes: the FP8 read the model already counts plus as many bytes again. Above 4 tokens, and
for engines whose FP8 kernels are tuned for a single row (vLLM's CUTLASS FP8 with its M<=16 configurations:
vllm-project/vllm PR 17126's bench_fp8_gemm table, about 2x BF16 at batch 1), nothing is added.

Not applied: the TensorRT-engine flow (its FP8 GEMM plugin; no figure read here), block-scaled FP8 (own kernels),
GPUs other than compute capability 9.x (Ada and RTX Blackwell take the CUDA-core path; no batch-1 figure for
cuBLASLt FP8 on SM100 was found), other engines.
"""

from __future__ import annotations

from gpudesk.sizing.serve_host import trtllm_backend

SMALL_M_MAX_TOKENS = 4  # FBGEMM PR 3577: above 4 rows the CUDA-core FP8 GEMM brings no gain over the tensor cores
TENSOR_CORE_ONLY_MAJOR = 9  # Hopper: linear.py enable_cuda_core is False (sm89 / sm120 only)
FP8_SMALL_M_SOURCE = ("NVIDIA/TensorRT-LLM tensorrt_llm/_torch/modules/linear.py (FP8 per-tensor: cublas_scaled_mm; "
                      "cuda_scaled_mm for <= 8 rows only where enable_cuda_core, sm89/sm120; PR 15928); "
                      "pytorch/FBGEMM PR 3577 (H100: at batch 1 the FP8 tensor-core GEMM is about as fast as BF16, "
                      "the CUDA-core FP8 GEMM 2x; no gain above 4 rows)")


def fp8_small_m_applies(engine: str, version: str | None, backend: str | None, vendor: str,
                        compute_capability: str | None, linear_format: str | None) -> bool:
    """Whether ``engine`` runs per-tensor FP8 dense linears (``linear_format`` ``fp8``) through a tensor-core
    library GEMM at steps of a few tokens on this GPU: TensorRT-LLM's PyTorch flow on compute capability 9.x
    (module docstring)."""
    if engine.lower() != "trtllm" or linear_format != "fp8" or vendor.lower() != "nvidia":
        return False
    try:
        major = int(float(compute_capability or 0))
    except ValueError:
        return False
    if major != TENSOR_CORE_ONLY_MAJOR:
        return False
    return trtllm_backend(version, backend) == "pytorch"
