"""An encoder trained with its vocabulary head over every position (the Plan wizard's "Encoder LM head",
``--encoder-lm-head``).

An encoder checkpoint (BERT, RoBERTa, DistilBERT) is trained either with a small task head (sequence
classification: ``[b, labels]`` logits, nothing vocabulary-sized) or with its masked-language-model head, which
maps every position to the whole vocabulary. The estimate cannot tell the two apart from the config (the
published ``config.json`` names ``BertForMaskedLM`` whatever class a user loads), so the head is a setting.

The MLM head as transformers writes it (``modeling_bert.py`` ``BertLMPredictionHead``: ``BertPredictionHeadTransform``
= ``dense`` h -> h, ``transform_act_fn`` (GELU), ``LayerNorm``, then ``decoder`` h -> V tied to the word embeddings;
``modeling_distilbert.py`` ``DistilBertForMaskedLM``: ``vocab_transform``, activation, ``vocab_layer_norm``,
``vocab_projector``; ``modeling_roberta.py`` ``RobertaLMHead``: ``dense``, ``gelu``, ``layer_norm``, ``decoder``)
keeps for backward:

* the input of ``dense`` (the last encoder layer's output, which no later layer saves), the input of the GELU,
  the input of the LayerNorm and the input of the decoder: four ``[b, s, h]`` tensors at the activation dtype,
  ``4 * act_bytes * s*b*h`` (:func:`encoder_lm_head_transform_bytes`);
* the ``[b, s, V]`` logits and what the loss keeps of them, exactly as a decoder's LM head
  (:func:`gpudesk.sizing.activations.loss_logits_bytes` with the estimate's ``loss``).

For a decoder the vocabulary head is always counted; the setting is refused there.
"""

from __future__ import annotations

from gpudesk.i18n import _
from gpudesk.sizing.errors import SizingError

ENCODER_LM_HEAD_SOURCE = ("transformers modeling_bert.py BertLMPredictionHead / BertPredictionHeadTransform (dense, "
                          "GELU, LayerNorm, decoder tied to the word embeddings); modeling_distilbert.py "
                          "DistilBertForMaskedLM; modeling_roberta.py RobertaLMHead")

# Tensors of [b, s, h] the head's transform saves for backward: the inputs of dense, GELU, LayerNorm and decoder.
HEAD_SAVED_HIDDEN_TENSORS = 4


def encoder_lm_head_transform_bytes(seq_len_tokens: int, micro_batch_size: int, hidden_size: int,
                                    activation_bytes: float = 2.0) -> float:
    """Bytes the MLM head's transform keeps for backward, ``4 * act_bytes * s*b*h`` (module docstring)."""
    return HEAD_SAVED_HIDDEN_TENSORS * activation_bytes * seq_len_tokens * micro_batch_size * hidden_size


def check_encoder_lm_head(kind: str, encoder_lm_head: bool) -> None:
    """Refuse the setting for a model that is not an encoder, whose vocabulary head is always counted.

    Raises:
        SizingError: ``encoder_lm_head`` set for a decoder, encoder-decoder or non-transformer model.
    """
    if encoder_lm_head and kind != "encoder":
        raise SizingError("encoder_lm_head", _(
            "the encoder LM head applies to encoder models (BERT, RoBERTa, DistilBERT); this model is a {kind}, "
            "whose vocabulary head is always counted: leave the setting off.").format(kind=kind))


def encoder_lm_head_note(hidden_size: int, vocab_size: int) -> tuple[str, str]:
    """(assumption, source) naming what the setting adds."""
    return (_("encoder LM head: the {vocab}-word vocabulary logits of every position (kept as the loss setting "
              "says) and the head's transform ({hidden}-wide dense, GELU, LayerNorm) are counted").format(
                  vocab=f"{vocab_size:,}", hidden=hidden_size), ENCODER_LM_HEAD_SOURCE)
