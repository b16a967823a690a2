"""The persistent scratch buffers of AutoGPTQ's ExLlama kernels (``--gptq-kernel``, ``--max-input-tokens``).

After loading, AutoGPTQ's ``autogptq_post_init`` allocates per GPU, and keeps on the model for the whole run
(https://github.com/AutoGPTQ/AutoGPTQ/blob/9f7d37072917ab3a7545835f23e808294a542153/auto_gptq/modeling/_utils.py):

- ExLlama (v1) kernels: ``temp_dq``, fp16, ``max(qweight.numel() * 8)`` elements (the largest quantised Linear's
  ``in x out`` weights dequantised, used for cuBLAS in the prefill), and, with act-order (``desc_act``) checkpoints
  only, ``temp_state``, fp16 ``max_input_len x max(in, out)`` (the reordered input; ``max_input_length``,
  ``exllama_set_max_input_length``, default ``EXLLAMA_DEFAULT_MAX_INPUT_LENGTH`` = 2048; without act-order the
  length is 1).
- ExLlamaV2 kernels: one fp16 scratch of ``max`` over the quantised Linears of ``scratch_space_fixed()``
  = ``in x out x 2 + 128`` (``temp_dq_size``) ``+ out x 2048 x 8 x 4 + 128`` (``temp_fwd_size`` at its defaults,
  ``max_input_len=2048``, ``max_batch_size=8``; ``auto_gptq/nn_modules/qlinear/qlinear_exllamav2.py``
  ``ExLlamaV2DeviceTensors.prepare``).

The quantised Linears of a decoder layer: q, k, v, o and the MLP's input and output projections (the embedding and
LM head stay 16-bit).
"""

from __future__ import annotations

from gpudesk.i18n import _
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.shapes import ModelSpec

GPTQ_KERNELS = ("none", "exllama", "exllama-act-order", "exllamav2")
DEFAULT_MAX_INPUT_TOKENS = 2048  # auto_gptq/modeling/_const.py EXLLAMA_DEFAULT_MAX_INPUT_LENGTH
_EXLLAMAV2_MAX_INPUT_LEN = 2048  # QuantLinear.scratch_space_fixed defaults
_EXLLAMAV2_MAX_BATCH = 8
_FP16_BYTES = 2


def quantised_linear_shapes(spec: ModelSpec) -> list[tuple[int, int]]:
    """(in, out) features of a decoder layer's quantised Linears (empty without a transformer shape)."""
    if not spec.is_transformer:
        return []
    dims = spec.transformer_dims
    h, hd = dims.hidden_size, spec.head_dim_resolved
    q_width, kv_width = dims.num_attention_heads * hd, spec.kv_heads_resolved * hd
    widths = {w for w in (spec.ffn_size, spec.moe_ffn_size) if w} or {4 * h}
    return [(h, q_width), (h, kv_width), (q_width, h)] + [s for w in sorted(widths) for s in ((h, w), (w, h))]


def gptq_scratch_bytes(spec: ModelSpec, kernel: str, max_input_tokens: int = DEFAULT_MAX_INPUT_TOKENS) -> float:
    """Bytes of ``kernel``'s persistent buffers on one GPU that holds a whole layer (0 for ``none``).

    Raises:
        SizingError: an unknown kernel or a length below 1.
    """
    if kernel not in GPTQ_KERNELS:
        raise SizingError("gptq_kernel", _("GPTQ kernel {value!r} is not one of {names}.").format(
            value=kernel, names=", ".join(GPTQ_KERNELS)))
    if isinstance(max_input_tokens, bool) or not isinstance(max_input_tokens, int) or max_input_tokens < 1:
        raise SizingError("max_input_tokens", _("the longest input must be a whole number of tokens, at least 1."))
    shapes = quantised_linear_shapes(spec)
    if kernel == "none" or not shapes:
        return 0.0
    if kernel == "exllamav2":
        return float(max(i * o * _FP16_BYTES + 128 + o * _EXLLAMAV2_MAX_INPUT_LEN * _EXLLAMAV2_MAX_BATCH * 4 + 128
                         for i, o in shapes))
    temp_dq = max(i * o for i, o in shapes) * _FP16_BYTES
    temp_state = max_input_tokens * max(max(i, o) for i, o in shapes) * _FP16_BYTES if kernel == "exllama-act-order" else 0
    return float(temp_dq + temp_state)


def gptq_scratch_note(kernel: str, scratch_bytes: float) -> tuple[str, str]:
    """The assumption shown with the estimate."""
    return (_("{kernel} kernel scratch kept for the run: {gib:.2f} GiB").format(kernel=kernel,
                                                                                gib=scratch_bytes / 2**30),
            "AutoGPTQ 9f7d370 auto_gptq/modeling/_utils.py autogptq_post_init; "
            "auto_gptq/nn_modules/qlinear/qlinear_exllamav2.py scratch_space_fixed")
