"""The K and V row widths a GGUF file declares per layer, as llama.cpp and Ollama size the KV cache from them.

Ordinary attention: ``{arch}.attention.key_length`` and ``value_length`` (the head width) times
``head_count_kv`` for K and V alike.

Multi-head latent attention (DeepSeek-V2/V3/R1, arch ``deepseek2``) depends on when the file was converted
(ggml-org/llama.cpp ``convert_hf_to_gguf.py`` ``DeepseekV2Model``):

- ``per_head``: files converted before ggml-org/llama.cpp PR #12801 ("DeepSeek V2/V3 MLA implementation",
  April 2025), among them the Ollama library's ``deepseek-r1`` / ``deepseek-v3`` / ``deepseek-v2`` builds of
  2024-2025. They declare ``key_length = qk_nope_head_dim + qk_rope_head_dim`` (192), ``value_length =
  v_head_dim`` (128) and ``head_count_kv = num_key_value_heads`` (128, every head), so the cache holds the
  decompressed K and V of every head: 81,920 bytes per layer and token in f16. Ollama's estimate
  (``llm/memory.go``: ``context x (key_length + value_length) x head_count_kv x bytes`` per layer) and llama.cpp of
  that generation agree: ollama/ollama#8447 printed ``memory.required.kv="9.5 GiB"`` for 61 layers at num_ctx 2048
  and llama.cpp's "KV self size = 9760.00 MiB" in the same log.
- ``latent``: files converted after PR #12801 declare ``key_length = kv_lora_rank + qk_rope_head_dim`` (576),
  ``value_length = kv_lora_rank`` (512), ``key_length_mla`` 192 / ``value_length_mla`` 128 and one KV head
  (ikawrakow/ik_llama.cpp#455 prints these keys), so K and V hold the compressed latent.

``qk_nope_head_dim`` and ``v_head_dim`` are 128 in every published DeepSeek-V2/V3/R1 config and are the defaults of
transformers' ``DeepseekV3Config``; a config that sets them is read by :func:`gpudesk.sizing.shapes.spec_from_hf_config`.
"""

from __future__ import annotations

from gpudesk.sizing.shapes import ModelSpec

#: transformers ``configuration_deepseek_v3.py`` defaults (every published DeepSeek-V2/V3/R1 config uses them).
MLA_QK_NOPE_HEAD_DIM = 128
MLA_V_HEAD_DIM = 128
MLA_LAYOUTS = ("per_head", "latent")


def is_mla(spec: ModelSpec) -> bool:
    return spec.attention_kind == "mla" and bool(spec.kv_lora_rank)


def kv_row_widths(spec: ModelSpec, mla_layout: str = "per_head") -> tuple[int, int, int]:
    """(key_length, value_length, head_count_kv) of one layer as the GGUF declares them (module docstring)."""
    if is_mla(spec):
        rope = int(spec.qk_rope_head_dim or 0)
        if mla_layout == "latent":
            return int(spec.kv_lora_rank or 0) + rope, int(spec.kv_lora_rank or 0), 1
        heads = int(spec.num_attention_heads or 0)
        return MLA_QK_NOPE_HEAD_DIM + rope, MLA_V_HEAD_DIM, heads
    return spec.head_dim_resolved, spec.head_dim_resolved, spec.kv_heads_resolved


def kv_bytes_per_token_layer(spec: ModelSpec, k_bytes: float, v_bytes: float, mla_layout: str = "per_head") -> float:
    """Bytes one layer caches per token: ``(key_length x k_bytes + value_length x v_bytes) x head_count_kv``."""
    k, v, heads = kv_row_widths(spec, mla_layout)
    return (k * k_bytes + v * v_bytes) * heads


__all__ = ["MLA_LAYOUTS", "is_mla", "kv_bytes_per_token_layer", "kv_row_widths"]
