"""Pipeline parallelism: which micro-batches' activations and which stages' gradients each pipeline rank holds at
its peak, by walking the rank's schedule.

A pipeline rank runs its forwards and backwards in the order its schedule gives; the activations of a forward stay
alive until that micro-batch's backward on the same stage, so the first ranks, which run the most forwards before
their first backward, hold the most. The orders walked here are those of PyTorch's ``torch.distributed.pipelining``
(https://github.com/pytorch/pytorch/blob/main/torch/distributed/pipelining/schedules.py), which torchtitan uses:

- ``gpipe`` (``ScheduleGPipe``): every forward, then every backward: all ``m`` micro-batches in flight.
- ``1f1b`` (``Schedule1F1B``): rank ``r`` of ``p`` runs ``min(m, p - r)`` warm-up forwards, then one backward and one
  forward in turn: the first rank holds ``min(p, m)`` micro-batches (Narayanan et al. 2021, arXiv 2104.04473,
  section 2.2; Megatron-LM ``theoretical_memory_usage.py``).
- ``interleaved-1f1b`` (``ScheduleInterleaved1F1B``): each rank holds ``v`` model chunks (stages ``r, r+p, ...``);
  with ``k = m // max(1, m // p)`` micro-batches per round, rank ``r`` runs ``min((v-1) k + 2 (p-1-r), m v)``
  warm-up forwards (chunk ``(i // k) % v`` for the i-th forward), then a forward and a backward in turn (the j-th
  backward on chunk ``v - 1 - (j // k) % v``), then the remaining backwards. Megatron-Core walks the same order
  when ``m`` is a multiple of ``p``: ``forward_backward_pipelining_with_interleaving`` runs ``(p - r - 1) * 2 +
  (v - 1) * microbatch_group_size_per_vp_stage`` warm-up forwards (the group size defaults to ``p``) and
  ``get_model_chunk_id`` picks chunk ``(i % (p v)) // p``
  (https://github.com/NVIDIA/Megatron-LM/blob/d98e8a64ddf34856e74b24714e3bedb2f5a39553/megatron/core/pipeline_parallel/schedules.py);
  its non-interleaved schedule runs ``p - r - 1`` warm-ups, as ``1f1b`` here. The first rank then holds
  ``L (1 + (p - 1) / (p v))`` layers' activations of one micro-batch, Megatron-LM ``theoretical_memory_usage.py``.

Gradients: under FSDP2 the pipeline stage turns off gradient sync and resharding for every micro-batch but the last
(``torch/distributed/pipelining/stage.py`` ``backward_maybe_with_nosync``: ``set_requires_gradient_sync(False)``,
``set_reshard_after_backward(False)``), so a chunk's unsharded gradient is allocated at its first backward and
accumulates until the step ends. A rank with several chunks allocates them one after the other as the backwards
reach each chunk, which is why an interleaved schedule can peak lower than 1F1B with the same activations: its
last-run chunk's activations are freed before its first chunk's gradients exist. Without FSDP (DDP, ZeRO-1, a
Megatron distributed optimizer) the chunk's gradients likewise appear at its first backward and accumulate over the
step's micro-batches, since the optimizer steps once after the last one (Megatron-Core ``finalize_model_grads``
runs after ``forward_backward_func``; ``param_and_grad_buffer.py`` even allocates them up front), so they are
walked the same way at the gradient dtype.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpudesk.i18n import _
from gpudesk.sizing.checks import choice, positive_int
from gpudesk.sizing.errors import SizingError

PIPELINE_SCHEDULES = ("1f1b", "interleaved-1f1b", "gpipe")
MAX_PIPELINE_MICROBATCHES = 4096


@dataclass(frozen=True)
class PipelinePeak:
    """The worst rank's peak: its index, the chunk-micro-batches of activations and the chunks of accumulated
    gradients alive at that moment, and the bytes of both together."""

    rank: int
    activation_chunks: int
    gradient_chunks: int
    bytes: float


def stages_per_rank_for(schedule: str, stages_per_rank: int | None) -> int:
    """The model chunks each rank holds: 1 for ``1f1b``/``gpipe``; for ``interleaved-1f1b`` the given count
    (default 2, torchtitan's ``generate_split_points`` for multi-stage schedules).

    Raises:
        SizingError: an unknown schedule, or several stages per rank with a single-stage schedule.
    """
    name = choice("pipeline_schedule", schedule, PIPELINE_SCHEDULES)
    if name != "interleaved-1f1b":
        if stages_per_rank not in (None, 1):
            raise SizingError("pipeline_stages_per_rank", _(
                "the {schedule} schedule runs one stage per rank; several stages per rank need interleaved-1f1b."
            ).format(schedule=name))
        return 1
    v = positive_int("pipeline_stages_per_rank", 2 if stages_per_rank is None else stages_per_rank, 64)
    if v < 2:
        raise SizingError("pipeline_stages_per_rank", _("interleaved-1f1b needs at least 2 stages per rank."))
    return v


def rank_schedule(schedule: str, stages: int, microbatches: int, stages_per_rank: int, rank: int
                  ) -> list[tuple[str, int]]:
    """The compute actions of one pipeline rank in order: ``("F", chunk)`` or ``("B", chunk)``, ``chunk`` being
    the rank's local model chunk (0 .. stages_per_rank - 1)."""
    p, m, v = stages, microbatches, stages_per_rank
    if schedule == "gpipe":
        return [("F", 0)] * m + [("B", 0)] * m
    if v == 1:
        warmup = min(m, p - rank)
        actions = [("F", 0)] * warmup
        for done in range(m):
            actions.append(("B", 0))
            if warmup + done < m:
                actions.append(("F", 0))
        return actions
    per_round = m // max(1, m // p)
    total = m * v
    warmup = min((v - 1) * per_round + 2 * (p - 1 - rank), total)
    actions = [("F", (i // per_round) % v) for i in range(warmup)]
    backward = 0
    for i in range(warmup, total):
        actions.append(("F", (i // per_round) % v))
        actions.append(("B", v - 1 - (backward // per_round) % v))
        backward += 1
    while backward < total:
        actions.append(("B", v - 1 - (backward // per_round) % v))
        backward += 1
    return actions


def pipeline_peak(schedule: str, stages: int, microbatches: int, stages_per_rank: int,
                  activation_bytes_per_chunk: float, gradient_bytes_per_chunk: float,
                  last_rank_extra_bytes: float = 0.0) -> PipelinePeak:
    """The largest ``activations + accumulated gradients`` any rank reaches while walking its schedule.

    ``activation_bytes_per_chunk``: what one micro-batch leaves saved on one chunk (its layers); a backward frees
    it after it ran. ``gradient_bytes_per_chunk``: the chunk's unsharded accumulated gradient (0 when gradients
    live in a persistent buffer counted elsewhere). ``last_rank_extra_bytes``: buffers only the last stage holds
    while it runs a backward (the loss's logits).

    Raises:
        SizingError: a degree or count out of range, or micro-batches the interleaved schedule cannot split into
            rounds (PyTorch requires ``m`` to be a multiple of ``m // p`` rounds).
    """
    p = positive_int("pipeline_parallel", stages, 1024)
    m = positive_int("pipeline_microbatches", microbatches, MAX_PIPELINE_MICROBATCHES)
    v = positive_int("pipeline_stages_per_rank", stages_per_rank, 64)
    name = choice("pipeline_schedule", schedule, PIPELINE_SCHEDULES)
    if v > 1 and m % max(1, m // p):
        raise SizingError("pipeline_microbatches", _(
            "interleaved-1f1b needs the micro-batches ({m}) to be a multiple of the rounds ({rounds}).").format(
                m=m, rounds=max(1, m // p)))
    best = PipelinePeak(0, 0, 0, -1.0)
    for rank in range(p):
        alive = [0] * v
        has_grad = [False] * v
        for kind, chunk in rank_schedule(name, p, m, v, rank):
            if kind == "F":
                alive[chunk] += 1
                continue
            has_grad[chunk] = True
            chunks_alive, grads = sum(alive), sum(has_grad)
            # The loss buffers exist only while the model's last stage (last rank, last chunk) runs a backward.
            extra = last_rank_extra_bytes if rank == p - 1 and chunk == v - 1 else 0.0
            total = chunks_alive * activation_bytes_per_chunk + grads * gradient_bytes_per_chunk + extra
            if total > best.bytes:
                best = PipelinePeak(rank, chunks_alive, grads, total)
            alive[chunk] -= 1
    return best


def fullest_stage_params(params: int, vocab_table_params: int, embedding_params: int, stages: int) -> float:
    """Parameters on the fullest pipeline stage (before tensor parallelism): its ``1/p`` share of the decoder
    layers plus one whole ``vocab x hidden`` table, which is not split over the stages.

    The first stage holds the input embedding, the last the LM head (or, with tied embeddings, its own copy of the
    word embedding, Megatron-LM ``MegatronModule.initialize_word_embeddings``): Megatron-LM
    ``theoretical_memory_usage.py`` ``compute_weight_and_optimizer_memory`` sizes the most loaded shard as
    ``(transformer_params / pp + embedding_size) / tp``
    (https://github.com/NVIDIA/Megatron-LM/blob/d98e8a64ddf34856e74b24714e3bedb2f5a39553/megatron/training/theoretical_memory_usage.py),
    and the layers go ``num_layers / pp`` to a stage (``ParallelTransformer._get_num_layers``). ``params`` counts
    a tied table once and an untied head separately (``embedding_params`` is both tables then); with one stage the
    result is ``params``.
    """
    if stages <= 1:
        return float(params)
    return (params - embedding_params) / stages + vocab_table_params


@dataclass(frozen=True)
class StepBatching:
    """How one optimizer step's samples reach a data-parallel rank: ``local_batch`` sequences per rank per step,
    split into ``microbatches`` forward/backward passes of ``local_batch / microbatches`` sequences each."""

    local_batch: int
    microbatches: int


def step_batching(global_batch: int, micro_batch: int, data_parallel: int) -> StepBatching:
    """Megatron-style batch sizes: ``global_batch`` sequences per optimizer step over the whole job, each forward
    and backward pass running ``micro_batch`` of them on a data-parallel rank. The micro-batches per step on each
    rank are ``global_batch / (micro_batch x data_parallel)`` (Megatron-Core ``num_microbatches_calculator.py``
    ``ConstantNumMicroBatchesCalculator``: ``num_micro_batches = global_batch_size // micro_batch_times_data_parallel``,
    which asserts the division is exact,
    https://github.com/NVIDIA/Megatron-LM/blob/main/megatron/core/num_microbatches_calculator.py). Without pipeline
    parallelism they run one after the other as gradient accumulation; with it they are the schedule's pipeline
    micro-batches (Megatron-Core ``pipeline_parallel/schedules.py`` ``forward_backward_pipelining_with_interleaving``
    and ``..._without_interleaving`` take ``num_microbatches``). The data-parallel degree excludes tensor, pipeline
    and context parallelism (Megatron ``data_parallel_size = world / (TP x PP x CP)``).

    Raises:
        SizingError: a count out of range or a global batch that does not split into whole micro-batches.
    """
    g = positive_int("global_batch_size", global_batch, MAX_PIPELINE_MICROBATCHES * 1024)
    b = positive_int("micro_batch_size", micro_batch, MAX_PIPELINE_MICROBATCHES)
    dp = positive_int("data_parallel", data_parallel, 1 << 20)
    if g % (b * dp):
        raise SizingError("global_batch_size", _(
            "the global batch of {global_batch} does not split into micro-batches of {micro_batch} on {dp} "
            "data-parallel ranks.").format(global_batch=g, micro_batch=b, dp=dp))
    m = g // (b * dp)
    if m > MAX_PIPELINE_MICROBATCHES:
        raise SizingError("global_batch_size", _(
            "the global batch of {global_batch} makes {m} micro-batches per step; at most {limit} are supported.")
            .format(global_batch=g, m=m, limit=MAX_PIPELINE_MICROBATCHES))
    return StepBatching(local_batch=b * m, microbatches=m)
