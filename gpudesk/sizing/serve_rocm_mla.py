"""SGLang's MLA weight-absorption matmuls on AMD GPUs: the FP8 up-projection weights dequantised every step.

Multi-head latent attention in its absorbed (decode) form multiplies the query by the per-head key up-projection
``w_kc`` and the attention output by the value up-projection ``w_vc`` (DeepSeek-V2, arXiv 2405.04434 section 2.1;
both slices of ``kv_b_proj``). With FP8 weights SGLang keeps the two slices in FP8 with one per-tensor scale, and on
ROCm (HIP) runs the two batched matmuls as

    torch.bmm(x.to(torch.bfloat16), w_kc.to(torch.bfloat16) * w_scale)        (and the same for w_vc)

i.e. it casts and rescales both weights to BF16 on every forward of every layer, two elementwise kernels per weight
before the matmul (the source's own comment there says an FP8 bmm for ROCm is still to be written). Source: sgl-project/sglang python/sglang/srt/models/deepseek_v2.py,
``forward_absorb_prepare`` / ``forward_absorb_core`` (the ``elif _is_hip`` branches, release 0.5.7; the fp8-fnuz
branch of ``forward_absorb`` in release 0.4.2.post4); the FP8 kv_b_proj is re-quantised per tensor at load on HIP
(``post_load_weights``, ``block_quant_to_tensor_quant``). The AITER batched FP8 GEMM replaces it on gfx95x (CDNA 4:
MI350X, MI355X) with ``SGLANG_USE_AITER=1`` (the ``_use_aiter_gfx95`` branches), which SGLang's ROCm images set
(``docker/rocm.Dockerfile``, ``ENV SGLANG_USE_AITER=1``): CDNA 4 is not charged, CDNA 3 (gfx942) is.

Per layer and GPU, for each of the two weights of ``heads x a x b`` elements (``heads`` = the query heads of the
GPU's attention group): the cast reads 1 byte and writes 2, the scale reads 2 and writes 2, and the matmul reads the
2-byte copy where the model already counts the 1-byte FP8 weight: 8 bytes per element more than the weight stream,
and 2 kernels at the kernel floor.
"""

from __future__ import annotations

from gpudesk.sizing.shapes import ModelSpec

ROCM_MLA_DEQUANT_KERNELS_PER_LAYER = 4  # cast + scale, for w_kc and for w_vc
ROCM_MLA_DEQUANT_BYTES_PER_ELEMENT = 8.0  # 1 + 2 (cast) + 2 + 2 (scale) + 1 (BF16 read beyond the FP8 one)
ROCM_MLA_DEFAULT_HEAD_DIM = 128  # DeepSeek-V2/V3 qk_nope_head_dim and v_head_dim where the config does not say
ROCM_MLA_FP8_BMM_ARCHITECTURES = ("CDNA 4",)  # gfx95x: AITER's batched FP8 GEMM, no per-step cast
ROCM_MLA_DEQUANT_SOURCE = (
    "SGLang on ROCm dequantises MLA's FP8 w_kc / w_vc to BF16 every step before torch.bmm: sgl-project/sglang "
    "python/sglang/srt/models/deepseek_v2.py forward_absorb_prepare / forward_absorb_core (_is_hip branches, "
    "v0.5.7; forward_absorb in v0.4.2.post4) (https://github.com/sgl-project/sglang)")


def rocm_mla_dequant_per_step(spec: ModelSpec, engine: str, vendor: str, weight_format: str,
                              attention_tp: int, architecture: str = "") -> tuple[int, float]:
    """(kernels, bytes) one step adds on one GPU for SGLang's per-step dequantisation of MLA's FP8 up-projection
    weights on AMD GPUs (module docstring); ``weight_format`` the format the weights are served in (FP8 per-tensor
    or block-scaled alike); (0, 0.0) for another engine, vendor, attention or weight format, and on the
    architectures whose AITER batched FP8 GEMM SGLang uses instead (CDNA 4)."""
    if (engine.lower() != "sglang" or vendor.lower() != "amd" or weight_format.lower() != "fp8"
            or spec.attention_kind != "mla" or not spec.kv_lora_rank
            or architecture in ROCM_MLA_FP8_BMM_ARCHITECTURES):
        return 0, 0.0
    dims = spec.transformer_dims
    heads = dims.num_attention_heads / max(1, attention_tp)
    nope = spec.qk_nope_head_dim or ROCM_MLA_DEFAULT_HEAD_DIM
    value = spec.v_head_dim or ROCM_MLA_DEFAULT_HEAD_DIM
    elements = heads * spec.kv_lora_rank * (nope + value)
    layers = dims.layers
    return ROCM_MLA_DEQUANT_KERNELS_PER_LAYER * layers, ROCM_MLA_DEQUANT_BYTES_PER_ELEMENT * elements * layers
