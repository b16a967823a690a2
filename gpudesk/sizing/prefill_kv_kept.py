"""The prompt's keys and values kept twice during the prefill of a fused attention inside a Hugging Face model.

AutoAWQ's fused attention of Sept-Oct 2023 (``QuantAttentionFused``, used by ``from_quantized(..., fuse_layers=True)``
while the decoder loop is still transformers' ``LlamaModel``) writes the prompt's keys and values into its
preallocated cache and also returns them: ``past_key_value = (xk, xv) if use_cache else None``
(https://github.com/casper-hansen/AutoAWQ/blob/7cf3c7907e4d55c1df3804ccaf87723eba99eae5/awq/modules/fused/attn.py
``QuantAttentionFused.forward``). ``xk`` is the rotated copy that ``apply_rotary_emb`` makes (``.type_as(xk)``); ``xv``
is a view of the fused projection's output ``xqkv``, so it keeps the whole q/k/v output alive. transformers'
``LlamaModel.forward`` collects every layer's ``present_key_value`` into ``next_decoder_cache`` until the forward
returns, so at the end of the prefill every layer holds ``(q + 2 kv) x head_dim`` elements (``xqkv``) plus
``kv x head_dim`` (``xk``) a prompt token, in 16 bit, beside the static cache. AutoAWQ's own ``LlamaLikeModel``
(commit 8110e02, 2023-11-04, AutoAWQ 0.1.6) keeps only the last layer's pair (``h, _, past_key_value = layer(...)``
in ``awq/modules/fused/model.py``), so there it is one layer's, inside the prefill's transient.
"""

from __future__ import annotations

from gpudesk.i18n import _
from gpudesk.sizing.shapes import ModelSpec

_SIXTEEN_BIT_BYTES = 2


def prefill_kv_kept_bytes(spec: ModelSpec, prompt_tokens: int, batch: int, layers: int | None = None,
                          tensor_parallel: int = 1) -> float:
    """Bytes of every layer's returned q/k/v projection output and rotated keys of ``batch`` x ``prompt_tokens``
    prompt tokens, per GPU (``layers``: the layers on this GPU, default all; 0 without a transformer shape)."""
    if not spec.is_transformer:
        return 0.0
    dims = spec.transformer_dims
    head_dim = spec.head_dim_resolved
    kv_heads = spec.kv_heads_resolved
    per_token_layer = (dims.num_attention_heads + 3 * kv_heads) * head_dim * _SIXTEEN_BIT_BYTES
    n_layers = dims.layers if layers is None else layers
    return n_layers * per_token_layer * prompt_tokens * batch / max(1, tensor_parallel)


def prefill_kv_kept_note(kept_bytes: float) -> tuple[str, str]:
    """The assumption shown with the estimate."""
    return (_("the prefill keeps every layer's returned keys and values (the fused q/k/v output and the rotated "
              "keys) beside the static cache: {gib:.2f} GiB").format(gib=kept_bytes / 2**30),
            "AutoAWQ 7cf3c79 awq/modules/fused/attn.py QuantAttentionFused.forward; transformers "
            "modeling_llama.py LlamaModel.forward (next_decoder_cache)")
