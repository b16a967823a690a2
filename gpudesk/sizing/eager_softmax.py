"""What an eager (unfused) attention keeps of its ``s x s`` scores for backward, by how its softmax is written.

Korthikanti et al. 2022 (arXiv 2205.05198, Table 2) count ``5*a*s^2*b`` bytes a layer for 16-bit training: the
softmax output (2 bytes a score), the dropout mask (1) and the dropout output (2), as Megatron's fused
scale-mask-softmax kernel keeps them (:func:`gpudesk.sizing.activations.activation_bytes_per_layer`, ``16bit``).

transformers' eager attention of many decoders computes the softmax in fp32 and casts it back to the activation
dtype: ``nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query_states.dtype)`` (Llama,
``models/llama/modeling_llama.py`` v4.40-4.45 ``LlamaAttention.forward``; OPT, ``models/opt/modeling_opt.py`` v4.45
``OPTAttention.forward``, "upcast to fp32 if the weights are in fp16", PR 17437). The softmax saves its fp32 output
for backward (``tools/autograd/derivatives.yaml`` ``_softmax``: ``result``), and the probabilities x values matmul
saves the 16-bit cast (``bmm``/``matmul``: ``self``). With the config's attention dropout 0 (Llama, OPT)
``nn.functional.dropout`` returns its input (ATen ``Dropout.cpp`` ``dropout``: ``p == 0`` returns ``input``), so no
mask or second copy: 4 + 2 = 6 bytes a score (``fp32``).

OPT's eager attention also clamps the masked scores: ``attn_weights = torch.max(attn_weights,
torch.tensor(torch.finfo(attn_weights.dtype).min))`` (``modeling_opt.py`` v4.45, before the softmax). That is
``torch.maximum``, whose backward needs its input (``derivatives.yaml`` ``maximum``: ``self`` and ``other``), so the
16-bit masked scores are kept as well: 2 + 4 + 2 = 8 bytes a score (``fp32-clamped``).

The setting describes a 16-bit (non-AMP) model run without a fused attention kernel; under autocast the softmax's
fp32 output is already counted (:func:`gpudesk.sizing.memory_train.amp_fp32_extra_bytes_per_layer`).
"""

from __future__ import annotations

from gpudesk.i18n import _
from gpudesk.sizing.checks import choice
from gpudesk.sizing.errors import SizingError

EAGER_SOFTMAX = ("16bit", "fp32", "fp32-clamped")
# Bytes kept for backward per attention score, 16-bit activations.
SCORE_BYTES = {"16bit": 5.0, "fp32": 6.0, "fp32-clamped": 8.0}


def eager_softmax_extra_bytes_per_layer(mode: str, seq_len_tokens: int, micro_batch_size: int, num_attention_heads: int,
                                        *, tensor_parallel: int = 1, flash_attention: bool = False,
                                        precision: str = "bf16-pure") -> float:
    """Bytes a layer keeps beyond Korthikanti's ``5*a*s^2*b/t`` for an eager softmax written as ``mode``.

    Raises:
        SizingError: an unknown mode; a non-default mode with a fused attention kernel (no scores are kept), or with
            fp32 or autocast (AMP) precision (the softmax is fp32 there already).
    """
    m = choice("eager_softmax", mode, EAGER_SOFTMAX)
    if m == "16bit":
        return 0.0
    if flash_attention:
        raise SizingError("eager_softmax", _("an eager softmax setting needs attention without a fused kernel "
                                             "(--no-flash): a fused kernel keeps no attention scores."))
    if precision == "fp32" or precision.endswith("-amp"):
        raise SizingError("eager_softmax", _("an eager softmax setting describes 16-bit weights without autocast; "
                                             "with {precision} the softmax is fp32 already.").format(precision=precision))
    scores = num_attention_heads * seq_len_tokens * seq_len_tokens * micro_batch_size / tensor_parallel
    return (SCORE_BYTES[m] - SCORE_BYTES["16bit"]) * scores
