"""Expert parallelism (EP) in MoE training: how the routed experts and their model states split over the GPUs.

Megatron-Core places the routed experts of each MoE layer on ``expert_model_parallel_size`` (``ep``) ranks, each
holding ``num_moe_experts / ep`` whole experts (``MoELayer``: ``num_local_experts = num_moe_experts //
expert_model_parallel_size``; the number of experts must divide, ``megatron/core/transformer/moe/moe_layer.py`` and
``transformer_config.py`` "num_moe_experts must be divisible by expert_model_parallel_size"), and each expert's
matrices over ``expert_tensor_parallel_size`` (``etp``) ranks, within a pipeline stage. The dense parameters
(attention, norms, router, shared experts, embeddings) stay split by ``tp x pp`` only.

The distributed optimizer shards each part over the data-parallel ranks that hold the same copy of it: the dense
part over ``gpus / (tp pp)`` (context-parallel ranks included), the experts over the expert-data-parallel group of
``gpus / (ep etp pp)`` (Megatron-Core ``parallel_state`` ``expert_data_parallel``; ``DistributedOptimizer`` builds one
buffer per group, ``expert_parallel`` parameters in the expert-data-parallel one).

Megatron-LM leaves ``--expert-tensor-parallel-size`` unset to mean the tensor-parallel size (``arguments.py``:
``if args.expert_tensor_parallel_size is None: args.expert_tensor_parallel_size =
args.tensor_model_parallel_size``), which is what the training estimate uses.

Activations do not change under balanced routing: each rank's experts receive, on average, ``top_k`` rows of each of
the ``s b`` tokens of the EP group divided by ``ep``, as many as without EP. The all-to-all dispatch/combine buffers
(the permuted tokens, ``tokens x top_k x hidden`` per MoE layer in flight) are not counted separately here.

Both the planner's Megatron layout (:func:`gpudesk.sizing.memory_train.parallel_train_memory_bytes`) and the
training estimate (:func:`gpudesk.sizing.memory_train.train_memory`) call :func:`expert_split`.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpudesk.i18n import _, ngettext
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.shapes import ModelSpec

EXPERT_PARALLEL_SOURCE = ("Megatron-Core megatron/core/transformer/moe/moe_layer.py (num_local_experts = "
                          "num_moe_experts // expert_model_parallel_size); parallel_state expert_data_parallel; "
                          "DistributedOptimizer per-group buffers")


def routed_expert_params(spec: ModelSpec) -> float:
    """All routed-expert parameters of the model (experts x expert size x MoE layers; 0 for a dense model)."""
    if not spec.moe_experts:
        return 0.0
    layers = spec.moe_layers if spec.moe_layers is not None else spec.transformer_dims.layers
    return float(spec.expert_params * spec.moe_experts * layers)


@dataclass(frozen=True)
class ExpertSplit:
    """Routed experts on one GPU under expert parallelism.

    ``total``: all routed-expert parameters of the model; ``rank_params``: those one GPU holds
    (``total / (ep etp pp)``); ``data_parallel``: the expert-data-parallel ranks their states shard over
    (``gpus / (ep etp pp)``)."""

    total: float
    rank_params: float
    data_parallel: int


def check_expert_parallel(spec: ModelSpec, expert_parallel: int, *, gpus: int, pipeline_parallel: int = 1,
                          expert_tensor_parallel: int = 1) -> None:
    """Refuse expert parallelism for a dense model, experts that do not divide, or GPUs that do not divide.

    Raises:
        SizingError: field ``expert_parallel``.
    """
    ep = expert_parallel
    if not isinstance(ep, int) or isinstance(ep, bool) or ep < 1:
        raise SizingError("expert_parallel", _("the expert-parallel size must be a whole number of at least 1, got "
                                               "{value}.").format(value=ep))
    if ep == 1:
        return
    if not spec.moe_experts:
        raise SizingError("expert_parallel", _("{model} has no experts; expert parallelism needs an MoE model.").format(
            model=spec.name))
    if spec.moe_experts % ep:
        raise SizingError("expert_parallel", _(
            "the expert-parallel size {ep} does not divide the {experts} experts of each MoE layer.").format(
                ep=ep, experts=spec.moe_experts))
    group = ep * expert_tensor_parallel * pipeline_parallel
    if gpus % group:
        # Worded with the settings a user types: the expert-tensor-parallel size is the tensor-parallel size here
        # (both callers pass it), and the counts that would divide are listed (qa51 D9).
        counts = ", ".join(f"{group * k:,}" for k in (1, 2, 3))
        if group == ep:
            text = ngettext("{gpus} GPU does not divide into expert parallel {ep}; use a multiple of {group} GPUs "
                            "({counts}, ...).",
                            "{gpus} GPUs do not divide into expert parallel {ep}; use a multiple of {group} GPUs "
                            "({counts}, ...).", gpus)
        else:
            text = ngettext("{gpus} GPU does not divide into expert parallel {ep} x tensor parallel {tp} x pipeline "
                            "stages {pp} = {group}; use a multiple of {group} GPUs ({counts}, ...).",
                            "{gpus} GPUs do not divide into expert parallel {ep} x tensor parallel {tp} x pipeline "
                            "stages {pp} = {group}; use a multiple of {group} GPUs ({counts}, ...).", gpus)
        raise SizingError("expert_parallel", text.format(gpus=gpus, ep=ep, tp=expert_tensor_parallel,
                                                         pp=pipeline_parallel, group=group, counts=counts))


def expert_split(spec: ModelSpec, *, gpus: int, expert_parallel: int = 1, expert_tensor_parallel: int = 1,
                 pipeline_parallel: int = 1) -> ExpertSplit:
    """The routed experts one GPU holds and the expert-data-parallel ranks their states shard over (module doc)."""
    group = max(1, expert_parallel * expert_tensor_parallel * pipeline_parallel)
    total = routed_expert_params(spec)
    return ExpertSplit(total=total, rank_params=total / group, data_parallel=max(1, gpus // group))
