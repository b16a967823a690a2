"""Tensor-parallel training that keeps the vocabulary whole: full logits (no loss parallel), a replicated embedding.

Megatron-LM (``vocab_parallel_cross_entropy``) and torchtitan with loss parallelism (the default) leave each
tensor-parallel rank its ``1/t`` slice of the vocabulary logits and compute the cross-entropy on the slices, which is
what the training estimate divides the logits by ``t`` for. Two DTensor layouts keep more on every rank:

- ``tp_whole_logits`` (``--tp-whole-logits``): the output layer is ``ColwiseParallel(output_layouts=Replicate())``,
  so its sharded output is all-gathered and every rank holds the full-vocabulary logits for a plain cross-entropy:
  torchtitan with ``--parallelism.disable_loss_parallel`` (torchtitan/models/llama3/infra/parallelize.py
  ``apply_tp``: ``output_layouts=Shard(-1) if loss_parallel else Replicate()``), KempnerForge
  (kempnerforge/distributed/tensor_parallel.py at 01b461a, the output head ``ColwiseParallel(input_layouts=Shard(1),
  output_layouts=Replicate())``). The logits and the loss buffers are counted whole, not divided by ``t``.
- ``tp_replicated_embedding`` (``--tp-replicated-embedding``): the token embedding gets no parallel style and stays
  a whole replicated table on every tensor-parallel rank (KempnerForge's plan, "Token embedding stays replicated";
  torchtitan shards it row-wise instead). Its weights, gradients and optimizer states are the rank's ``1/t`` share
  of the model plus ``(1 - 1/t)`` of one vocabulary table, before any data-parallel sharding.

The inference flag ``--tp-replicated-vocab`` (:mod:`gpudesk.sizing.tp_vocab`, lit-gpt's ``generate/tp.py``) replicates
the embedding and the LM head weights; the training layouts above keep the head sharded, so they are separate
settings.
"""

from __future__ import annotations

from gpudesk.i18n import _
from gpudesk.sizing.errors import SizingError


def logits_tensor_parallel(tensor_parallel: int, tp_whole_logits: bool) -> int:
    """The degree the logits and loss buffers divide by: 1 when every rank holds the whole logits."""
    return 1 if tp_whole_logits else tensor_parallel


def replicated_embedding_extra_params(vocab_table_params: float, tensor_parallel: int, replicated: bool,
                                      pipeline_parallel: int = 1) -> float:
    """Parameters a tensor-parallel rank holds beyond its ``1/t`` share when the token embedding is replicated.

    Raises:
        SizingError: (field ``tp_replicated_embedding``) with pipeline parallelism, where the embedding is on one
            stage only (not modelled).
    """
    if not replicated:
        return 0.0
    if pipeline_parallel > 1:
        raise SizingError("tp_replicated_embedding", _("a replicated tensor-parallel embedding is modelled without "
                                                       "pipeline parallelism."))
    return vocab_table_params * (1 - 1 / tensor_parallel) if tensor_parallel > 1 else 0.0
