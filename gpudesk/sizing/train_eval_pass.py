"""An evaluation pass inside a LoRA/QLoRA training run (Hugging Face ``Trainer`` with an evaluation strategy).

``Trainer.evaluate`` runs inside ``trainer.train()`` (``evaluation_strategy="epoch"``/``"steps"``), so a
``torch.cuda.max_memory_reserved()`` read after ``train()`` covers it. Its forward differs from training's:

- Batch: ``per_device_eval_batch_size`` (default 8, ``TrainingArguments``), not the training micro-batch.
- No gradient: ``prediction_step`` runs the model under ``torch.no_grad()``, so no activation is kept for backward
  (https://github.com/huggingface/transformers/blob/v4.38.0/src/transformers/trainer.py ``prediction_step``).
- KV cache: the model is in ``eval()`` mode, where gradient checkpointing no longer forces ``use_cache=False``
  (``if self.gradient_checkpointing and self.training``, ``models/llama/modeling_llama.py`` ``LlamaModel.forward``
  at v4.38.0), so with ``config.use_cache`` true (the default) every layer appends its keys and values to a
  ``DynamicCache`` (``cache_utils.py`` ``DynamicCache.update``: the tensors themselves, no copy) and the whole
  cache, all layers, is alive when the logits are computed; ``prediction_step`` drops it afterwards
  (``keys_to_ignore_at_inference = ["past_key_values"]``). Its dtype is the projections' output dtype: under
  ``prepare_model_for_kbit_training`` the norms are fp32 and bitsandbytes ``Linear4bit.forward`` returns its
  output in the input's dtype (``out = out.to(inp_dtype)``, https://github.com/bitsandbytes-foundation/bitsandbytes/
  blob/0.42.0/bitsandbytes/nn/modules.py), so a QLoRA base with fp32 norms caches K and V in fp32.
- Logits and loss: ``lm_head`` under autocast writes 16-bit logits, ``logits = logits.float()`` replaces them by an
  fp32 copy, ``shift_logits = logits[..., :-1, :].contiguous()`` copies them, and ``CrossEntropyLoss`` holds its
  fp32 log-softmax (``LlamaForCausalLM.forward`` at v4.38.0): three fp32 copies of ``batch x seq x vocab``.
  That is the ``standard`` loss. A model whose own forward computes the loss another way does the same in
  evaluation, since ``prediction_step`` passes the labels (``has_labels``), and never needs more than that loss
  does in training (no gradient is written): Unsloth's ``CausalLM_fast_forward`` calls ``unsloth_fused_ce_loss``
  (chunks of ``hidden_states @ lm_head``, logits never whole) whenever labels are given and
  ``UNSLOTH_RETURN_LOGITS`` is unset, in ``eval()`` as in training, and returns ``EMPTY_LOGITS``
  (https://github.com/unslothai/unsloth/blob/3fd334c2ee/unsloth/models/llama.py, 2025.11.3; since 2025-08-13,
  806bee2433; before it ``fused_linear_cross_entropy`` when cut_cross_entropy is installed, fa8e59eb1b); its older
  Triton ``fast_cross_entropy_loss`` reads 16-bit logits and writes one logsumexp a row (``inplace-16bit``). So the
  eval logits are the smaller of the three fp32 copies and the training loss's own figure at the eval batch
  (:func:`gpudesk.sizing.activations.loss_logits_bytes`).

Reserved memory: the caching allocator serves a request only from a cached block at least as large and never
merges blocks of different segments (https://github.com/pytorch/pytorch/blob/v2.1.0/c10/cuda/CUDACachingAllocator.cpp
``get_free_block``); the eval tensors (the batch is 4x the training micro-batch in the default 8 vs 2) are wider
than every block training cached, and ``Trainer`` calls no ``torch.cuda.empty_cache()`` between them, so the blocks
training cached stay reserved beside the ones evaluation allocates: the reserved peak is training's plus
evaluation's own tensors. The allocated peak is the larger of the two passes (the persistent weights, adapters and
optimizer states are common to both).
"""

from __future__ import annotations

from gpudesk.i18n import _
from gpudesk.sizing.activations import DEFAULT_VOCAB_CHUNK_COLUMNS, loss_logits_bytes
from gpudesk.sizing.checks import positive_int
from gpudesk.sizing.shapes import ModelSpec
from gpudesk.units import GIB

# fp32 copies of the eval logits alive together: ``logits.float()``, the ``shift_logits`` contiguous copy and the
# cross-entropy log-softmax (module docstring).
EVAL_LOGITS_FP32_COPIES = 3
MAX_EVAL_BATCH = 65536


def check_eval_batch(eval_batch: int) -> int:
    """``eval_batch`` (0: no evaluation in the measured run).

    Raises:
        SizingError: not a whole number from 0 to :data:`MAX_EVAL_BATCH`.
    """
    if eval_batch == 0 and not isinstance(eval_batch, bool):
        return 0
    return positive_int("eval_batch", eval_batch, MAX_EVAL_BATCH)


def eval_pass_bytes(spec: ModelSpec, eval_batch: int, seq_len_tokens: int, kv_bytes: int, kv_cache: bool = True,
                    tensor_parallel: int = 1, loss: str = "standard",
                    loss_vocab_chunk: int = DEFAULT_VOCAB_CHUNK_COLUMNS) -> tuple[float, float]:
    """``(kv_cache_bytes, logits_bytes)`` of one evaluation forward at ``eval_batch`` sequences of
    ``seq_len_tokens``: every layer's K and V at ``kv_bytes`` an element (4 with fp32 norms over a 4-bit base, else
    2; none with ``kv_cache`` off, ``config.use_cache=False``) and the logits: three fp32 copies, or what ``loss``
    costs in training at the eval batch where that is less (module docstring).
    Llama-2-7B, 8 x 2048 tokens, fp32 K/V: 16 GiB of cache and 5.9 GiB of logits.
    """
    tokens = float(check_eval_batch(eval_batch)) * seq_len_tokens
    if not tokens or not spec.is_transformer:
        return 0.0, 0.0
    t = max(1, tensor_parallel)
    kv = tokens * spec.kv_cache_elements_per_token * kv_bytes / t if kv_cache else 0.0
    logits = tokens * (spec.vocab_size or 0) * 4.0 * EVAL_LOGITS_FP32_COPIES / t
    if loss != "standard" and spec.vocab_size:
        logits = min(logits, loss_logits_bytes(seq_len_tokens, eval_batch, spec.vocab_size, spec.hidden_size or 1, loss,
                                               t, vocab_chunk_columns=loss_vocab_chunk))
    return kv, logits


def split_eval_pass(eval_bytes: float, train_transient_bytes: float) -> tuple[float, float]:
    """``(allocated_extra, cached)``: how much the evaluation pass raises the allocated peak above training's (its
    tensors beyond training's transient ones) and the training blocks it leaves cached beside its own (the rest of
    it, counted only in the reserved figure; module docstring)."""
    extra = max(0.0, eval_bytes - train_transient_bytes)
    return extra, eval_bytes - extra


def eval_pass_note(eval_batch: int, kv_bytes: float, logits_bytes: float, kv_width: int) -> tuple[str, str]:
    """The assumption shown with an evaluation pass."""
    if kv_bytes:
        text = _("evaluation inside training at batch {batch}: no gradients, but the model's KV cache of every layer "
                 "({kv:.2f} GiB, {width} bytes an element) and the logits ({logits:.2f} GiB: three fp32 copies, or the "
                 "training loss's own buffers where smaller); the blocks training cached stay reserved beside them").format(
                     batch=eval_batch, kv=kv_bytes / GIB, width=kv_width, logits=logits_bytes / GIB)
    else:
        text = _("evaluation inside training at batch {batch}: no gradients and no KV cache, the logits ({logits:.2f} "
                 "GiB: three fp32 copies, or the training loss's own buffers where smaller); the blocks training "
                 "cached stay reserved beside them").format(
                     batch=eval_batch, logits=logits_bytes / GIB)
    return text, ("transformers trainer.py prediction_step (torch.no_grad); modeling_llama.py use_cache in eval mode, "
                  "unsloth models/llama.py CausalLM_fast_forward (unsloth_fused_ce_loss with labels); "
                  "cache_utils.py DynamicCache; bitsandbytes nn/modules.py Linear4bit.forward; "
                  "c10/cuda/CUDACachingAllocator.cpp get_free_block")
