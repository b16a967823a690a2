"""An encoder-decoder's decoder run at its own length (T5, BART, mT5: the target shorter than the source).

A seq2seq fine-tune pads sources and targets to separate lengths (e.g. 1,024 source and 128 target tokens). The
encoder layers then keep activations at the source length ``s``; each decoder layer keeps its self-attention and
MLP activations at the target length ``t`` plus a cross-attention block whose queries are at ``t`` and whose keys
and values are projections of the encoder output at ``s``; the LM head and loss see ``t`` positions only.

Source: transformers ``src/transformers/models/t5/modeling_t5.py`` at v4.31.0 (the FlagPerf T5 runs' version) and
main: ``T5Attention.forward(hidden_states, key_value_states=...)`` -- with ``key_value_states`` (the cross-attention
of ``T5LayerCrossAttention``, ``is_decoder`` stacks only) the key and value projections ``self.k``/``self.v`` are
applied to the encoder's hidden states, so ``key_states``/``value_states`` are (batch, heads, source, d_kv); the
scores ``torch.matmul(query_states, key_states.transpose(3, 2))`` are (batch, heads, target, source), softmaxed and
dropped out (``nn.functional.dropout(attn_weights, p=self.dropout)``) before ``torch.matmul(attn_weights,
value_states)``. ``T5ForConditionalGeneration.forward`` applies ``lm_head`` to the decoder output only (target
positions). BART's ``BartAttention`` (``modeling_bart.py``, ``is_cross_attention = key_value_states is not None``)
does the same.

Saved tensors of one cross-attention block, in Korthikanti et al. 2022's (arXiv:2205.05198, Sec. 4.1) 16-bit
units: the query projection's input and output (2 + 2 bytes a target element), the key and value projections of
the encoder states (2 + 2 a source element: the encoder output they read is the encoder's last layer's output,
saved once), the softmax output and its dropout mask and the dropped-out weights over ``target x source`` (5 a
score element), the attention output into the output projection (2) and the output dropout mask (1), plus the
block's layer norm input (2): 9 bytes a target element x hidden, 4 a source element x hidden, 5 a score. fp32
scales the non-mask bytes by two like :func:`gpudesk.sizing.activations.activation_bytes_per_layer`.
"""

from __future__ import annotations

from gpudesk.i18n import _
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.shapes import ModelSpec
from gpudesk.sizing.checks import MAX_SEQ_LEN_TOKENS, positive_int

#: Bytes a (target position x hidden) element of the cross-attention block saves at 16 bits (see module doc).
CROSS_TARGET_ELEMENT_BYTES = 9.0
#: Bytes a (source position x hidden) element saves at 16 bits: the key and value projections.
CROSS_SOURCE_ELEMENT_BYTES = 4.0


def encoder_decoder_layers(spec: ModelSpec) -> tuple[int, int]:
    """(encoder layers, decoder layers) of an encoder-decoder whose config gives both.

    Raises:
        SizingError: the model is not an encoder-decoder with a known decoder layer count.
    """
    if spec.kind != "encoder-decoder" or not spec.decoder_layers or not spec.layers \
            or spec.decoder_layers >= spec.layers:
        raise SizingError("decoder_seq_len_tokens", _(
            "a decoder length applies to an encoder-decoder model (T5, BART) whose config gives its encoder and "
            "decoder layer counts; {model} is not one.").format(model=spec.name))
    return spec.layers - spec.decoder_layers, spec.decoder_layers


def checked_decoder_length(decoder_seq_len_tokens: int) -> int:
    """The typed decoder length, checked like the sequence length."""
    return positive_int("decoder_seq_len_tokens", decoder_seq_len_tokens, MAX_SEQ_LEN_TOKENS)


def cross_attention_bytes_per_layer(source_tokens: int, target_tokens: int, micro_batch_size: int, hidden_size: int,
                                    num_attention_heads: int, *, flash_attention: bool, tensor_parallel: int = 1,
                                    bytes_per_element: float = 2.0) -> float:
    """Bytes one decoder layer's cross-attention block keeps for backward (see the module doc)."""
    scale = bytes_per_element / 2.0
    b, h, a, t = micro_batch_size, hidden_size, num_attention_heads, tensor_parallel
    body = (CROSS_TARGET_ELEMENT_BYTES * target_tokens + CROSS_SOURCE_ELEMENT_BYTES * source_tokens) * b * h * scale
    if flash_attention:
        # a fused kernel keeps its log-sum-exp rows (fp32, one per query and head) instead of the scores
        scores = 4.0 * a * target_tokens * b / t
    else:
        scores = (2 * bytes_per_element + 1) * a * target_tokens * source_tokens * b / t
    return body / t + scores
