"""Working memory of a decode step whose attention runs on PyTorch's math SDPA backend, in eager mode.

gpt-fast-style generation loops (torchao ``_models/llama/generate.py``) force the math backend for every decode step
(``with torch.backends.cuda.sdp_kernel(enable_flash=False, enable_mem_efficient=False, enable_math=True)`` around
``decode_one_token``, https://github.com/pytorch/ao/blob/86c7b0d1d79bfc9ee5125db61b18da48e257e205/torchao/_models/llama/generate.py
``decode_n_tokens``): the comment there says it is meant for Inductor to code-generate the attention; run eager, the
math backend materialises whole-context copies of the keys and values of one layer:

- The attention reads the whole preallocated cache, over every query head: a grouped-query model repeats its K and V
  heads first (``k.repeat_interleave(n_head // n_local_heads, dim=1)``, the same for ``v``, torchao
  ``_models/llama/model.py`` ``Attention.forward`` at the commit above), two 16-bit copies of ``n_head x context x
  head_dim``. A quantised cache is dequantised to 16 bits first (``self.k_cache * self.k_cache_scale``,
  ``AffineQuantizedKVCache.update``), so without grouped heads its dequantised K and V are the 16-bit copies; a
  16-bit cache of a multi-head model is read in place.
- ``math-16bit``: ``_scaled_dot_product_attention_math`` scales the keys out of place before the product
  (``at::matmul(query, key.transpose(-2, -1) * scaling_factor)``, aten/src/ATen/native/transformers/attention.cpp,
  PyTorch <= 2.4): one more 16-bit copy of K.
- ``math-fp32``: PyTorch >= 2.5 upcasts 16-bit inputs to fp32 in the math backend (pytorch/pytorch PR 128922,
  "Always use high precision for SDPA math backend", July 2024; opt-out
  ``torch.backends.cuda.allow_fp16_bf16_reduction_math_sdp(True)``, PR 135964): fp32 copies of K and V, and the
  scaled K in fp32, 12 bytes an element beside the 16-bit copies.

The scores (``batch x heads x 1 x context``) are one row per head in a decode step and are not counted. The step's
transient and the prefill's are not alive at once (the prompt's forward runs the fused backend outside the math
context). Llama-3.1-8B (32 query heads of 128, 8 KV heads), a 131072-token cache, ``math-fp32``: 16 bytes an element,
64 KiB a cached token, 8.6 GB; torchao PR 738's int8-KV runs read 8.3-8.7 GB above an estimate without it.
"""

from __future__ import annotations

from gpudesk.i18n import _
from gpudesk.sizing.checks import MAX_BATCH, MAX_SEQ_LEN_TOKENS, choice, positive_int
from gpudesk.sizing.errors import ShapeError
from gpudesk.sizing.shapes import ModelSpec

DECODE_ATTENTIONS = ("fused", "math-16bit", "math-fp32")

# Bytes an element of (query heads x context x head_dim) the math backend adds beyond the 16-bit K and V it is given.
MATH_BACKEND_BYTES = {"fused": 0, "math-16bit": 2, "math-fp32": 12}
ACTIVATION_BYTES = 2  # the 16-bit K and V the attention reads (repeated heads or a dequantised cache)


def decode_attention_bytes(spec: ModelSpec, decode_attention: str, context_tokens: int, batch: int = 1,
                           kv_precision: str = "bf16", tensor_parallel: int = 1) -> float:
    """Transient bytes of one layer's attention in one decode step over ``batch`` sequences of ``context_tokens``.

    Raises:
        SizingError: unknown mode or invalid numbers; ShapeError: a model without a transformer shape.
    """
    mode = choice("decode_attention", decode_attention, DECODE_ATTENTIONS)
    n = positive_int("context_tokens", context_tokens, MAX_SEQ_LEN_TOKENS)
    b = positive_int("concurrent_sequences", batch, MAX_BATCH)
    t = positive_int("tensor_parallel", tensor_parallel, 1024)
    if mode == "fused":
        return 0.0
    if not spec.is_transformer:
        raise ShapeError("model", _("{model}: the decode attention's working memory needs a transformer shape.").format(
            model=spec.name))
    dims = spec.transformer_dims
    heads = max(1, dims.num_attention_heads // t)
    kv_heads = spec.num_kv_heads or dims.num_attention_heads
    grouped = kv_heads < dims.num_attention_heads
    dequantised = kv_precision.lower() not in ("bf16", "fp16", "fp32")
    copies = 2 * ACTIVATION_BYTES if grouped or dequantised else 0
    elements = float(b) * heads * n * spec.head_dim_resolved
    return elements * (copies + MATH_BACKEND_BYTES[mode])


def decode_attention_note(mode: str, extra_bytes: float) -> tuple[str, str]:
    """The assumption line of :func:`decode_attention_bytes`."""
    return (_("decode attention on PyTorch's math backend ({mode}), eager: {gib:.2f} GiB of whole-context K/V copies "
              "in one layer beyond the prefill's transient").format(mode=mode, gib=extra_bytes / 2**30),
            "torchao _models/llama/generate.py decode_n_tokens (sdp_kernel math only), model.py repeat_interleave; "
            "aten/src/ATen/native/transformers/attention.cpp _scaled_dot_product_attention_math; pytorch/pytorch PR "
            "128922 (fp32 upcast)")
