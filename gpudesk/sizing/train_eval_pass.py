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
                    tensor_parallel: int = 1) -> tuple[float, float]:
    """``(kv_cache_bytes, logits_bytes)`` of one evaluation forward at ``eval_batch`` sequences of
    ``seq_len_tokens``: every layer's K and V at ``kv_bytes`` an element (4 with fp32 norms over a 4-bit base, else
    2; none with ``kv_cache`` off, ``config.use_cache=False``) and three fp32 copies of the logits.
    Llama-2-7B, 8 x 2048 tokens, fp32 K/V: 16 GiB of cache and 5.9 GiB of logits.
    """
    tokens = float(check_eval_batch(eval_batch)) * seq_len_tokens
    if not tokens or not spec.is_transformer:
        return 0.0, 0.0
    t = max(1, tensor_parallel)
    kv = tokens * spec.kv_cache_elements_per_token * kv_bytes / t if kv_cache else 0.0
    logits = tokens * (spec.vocab_size or 0) * 4.0 * EVAL_LOGITS_FP32_COPIES / t
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
                 "({kv:.2f} GiB, {width} bytes an element) and three fp32 copies of the logits ({logits:.2f} GiB); the "
                 "blocks training cached stay reserved beside them").format(
                     batch=eval_batch, kv=kv_bytes / GIB, width=kv_width, logits=logits_bytes / GIB)
    else:
        text = _("evaluation inside training at batch {batch}: no gradients and no KV cache, three fp32 copies of the "
                 "logits ({logits:.2f} GiB); the blocks training cached stay reserved beside them").format(
                     batch=eval_batch, logits=logits_bytes / GIB)
    return text, ("transformers trainer.py prediction_step (torch.no_grad); modeling_llama.py use_cache in eval mode, "
                  "cache_utils.py DynamicCache; bitsandbytes nn/modules.py Linear4bit.forward; "
                  "c10/cuda/CUDACachingAllocator.cpp get_free_block")
