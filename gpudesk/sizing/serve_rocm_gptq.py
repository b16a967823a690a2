"""vLLM's GPTQ linears on AMD GPUs: above 50 token rows the kernel rebuilds the 16-bit weights every call.

No Marlin on ROCm (its kernels are CUDA-only), so vLLM runs the dense linears of GPTQ and compressed-tensors W4A16
checkpoints on AMD GPUs through its exllama-derived ``ops.gptq_gemm`` (``GPTQLinearMethod`` in
``vllm/model_executor/layers/quantization/gptq.py``; ``ExllamaLinearKernel`` of ``choose_mp_linear_kernel``,
``kernels/mixed_precision/exllama.py``). Its launcher ``gemm_half_q_half_cuda`` (``csrc/quantization/gptq/q_gemm.cu``,
https://github.com/vllm-project/vllm; ``MAX_Q_GEMM_ROWS 50``) runs the fused 4-bit kernel only up to 50 rows; a
call with more rows (every prompt step, and decode batches above 50) first writes the whole dequantised FP16
matrix (``reconstruct_exllama`` into ``temp_dq``) and then calls ``hipblasHgemm`` on it. Beyond the 4-bit read the
model already charges, each such call writes 2 bytes per weight and the GEMM reads them back: 4 bytes per weight
per step of the linears' weights, at the HBM rate. The embeddings and LM head stay 16-bit and are not rebuilt.

Not applied: NVIDIA (Marlin, :mod:`gpudesk.sizing.serve_marlin_linear_rate`), AWQ on ROCm (vLLM's Triton AWQ
kernels), SGLang / other engines, and routed experts (they run a fused-MoE kernel, not ``gptq_gemm``).
"""

from __future__ import annotations

GPTQ_GEMM_MAX_FUSED_ROWS = 50  # q_gemm.cu MAX_Q_GEMM_ROWS (4-bit)
RECONSTRUCT_BYTES_PER_WEIGHT = 2.0 + 2.0  # FP16 write by reconstruct_exllama + FP16 read by hipblasHgemm
ROCM_GPTQ_FORMATS = ("int4-gptq", "gptq", "w4a16")
ROCM_GPTQ_SOURCE = ("vLLM on ROCm runs GPTQ / W4A16 linears through ops.gptq_gemm (quantization/gptq.py, "
                    "kernels/mixed_precision/exllama.py); csrc/quantization/gptq/q_gemm.cu gemm_half_q_half_cuda: "
                    "above MAX_Q_GEMM_ROWS = 50 rows reconstruct_exllama writes the FP16 weights, then hipblasHgemm "
                    "(https://github.com/vllm-project/vllm)")


def rocm_gptq_reconstructs(engine: str, vendor: str, weight_format: str) -> bool:
    """Whether ``engine`` on a GPU of ``vendor`` rebuilds the FP16 weights of ``weight_format`` linears on steps of
    more than :data:`GPTQ_GEMM_MAX_FUSED_ROWS` tokens (module docstring)."""
    return (engine.lower() == "vllm" and vendor.upper() == "AMD"
            and weight_format.lower() in ROCM_GPTQ_FORMATS)
