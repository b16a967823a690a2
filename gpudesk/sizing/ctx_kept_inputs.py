"""Inputs a quantised Linear keeps on its autograd context, which non-reentrant checkpointing cannot drop.

Activation checkpointing drops what a layer saves for backward and recomputes it. The two implementations drop it
in different ways (PyTorch ``torch/utils/checkpoint.py``):

- reentrant (``use_reentrant=True``, transformers' default for ``gradient_checkpointing_enable()``): the layer's
  forward runs under ``torch.no_grad()``, so no autograd node and no context is built at all;
- non-reentrant (``use_reentrant=False``, ``checkpoint_wrapper(..., CheckpointImpl.NO_REENTRANT)``): the forward
  builds the graph and a ``saved_tensors_hooks`` pair replaces each tensor saved through
  ``ctx.save_for_backward`` (or by a built-in op) with a placeholder. A tensor an ``autograd.Function`` stores as a
  plain attribute of ``ctx`` bypasses the hooks and lives as long as the node, i.e. until that layer's backward.

bitsandbytes stores its inputs that way. ``MatMul4Bit.forward`` (``bitsandbytes/autograd/_functions.py`` at 0.42.0
and 0.43.1) sets ``ctx.tensors = (A, B)`` whenever the input or the weight needs a gradient; 0.43.2 stores
``(None, B)`` (bitsandbytes PR 1270, "delete useless buffered activation", 2024-07). ``MatMul8bitLt.forward``
(0.42.0 to 0.44.1) keeps ``A`` in ``ctx.tensors`` in both branches. So with a QLoRA base under bitsandbytes < 0.43.2
(``legacy_bnb_matmul``), or an LLM.int8 base, and non-reentrant checkpointing, every layer keeps the 16-bit input of
each of its quantised Linears from its forward to its backward: the checkpoint keeps nothing of the frozen matmuls,
but these inputs stay. Answer.AI's fsdp_qlora README says the same from the user's side: "If you do use
bitsandbytes, be sure to pass ``--reentrant_checkpointing True`` to avoid triggering a bug in bitsandbytes which
results in high memory usage" (https://github.com/AnswerDotAI/fsdp_qlora, README "Training Options").

The recomputed layer's own copies die with the recomputation graph (only what the hooks stored is kept), so the
layer being recomputed holds the forward's copies, not two sets.
"""

from __future__ import annotations

from gpudesk.sizing.activations_lora import bnb_matmul_input_widths
from gpudesk.sizing.checks import MAX_BATCH, MAX_SEQ_LEN_TOKENS, positive_int
from gpudesk.sizing.shapes import ModelSpec


def ctx_kept_input_bytes_per_layer(spec: ModelSpec, seq_len_tokens: int, micro_batch_size: int,
                                   targets: tuple[str, ...], *, lora_dropout: float = 0.0,
                                   lora_kernels: str = "peft") -> float:
    """16-bit bytes one layer's quantised Linears keep on their contexts under non-reentrant checkpointing: one
    copy of each distinct input (q, k and v read the same tensor; so do gate and up).

    Counted for every layer, the first included: its attention input needs no gradient when the embeddings are
    frozen and nothing enables input gradients, so this is an upper bound by one ``hidden``-wide tensor.

    Raises:
        SizingError: non-positive sizes.
    """
    s = positive_int("seq_len_tokens", seq_len_tokens, MAX_SEQ_LEN_TOKENS)
    b = positive_int("micro_batch_size", micro_batch_size, MAX_BATCH)
    widths = bnb_matmul_input_widths(spec, targets, lora_dropout=lora_dropout, lora_kernels=lora_kernels)
    return float(s) * b * 2 * sum(widths)
