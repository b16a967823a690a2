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
args.tensor_model_parallel_size``, lines 266-267 at core_v0.11.0 a272a9ab), which is what the training estimate uses
unless ``expert_tensor_parallel`` is given.

Megatron-LM leaves ``--expert-tensor-parallel-size`` unset to mean the tensor-parallel size; a different size splits
each expert over ``etp`` ranks while attention stays split by ``tp`` (the expert split uses ``etp``).

Activations under the all-to-all token dispatcher (:func:`dispatch_saved_bytes`): the expert MLP's intermediates do
not change under balanced routing (each rank's experts receive, on average, ``top_k`` rows of each local token, as
many as without EP), but the permuted copy of the hidden states is saved for backward: the grouped GEMM's input
(``top_k`` rows a token, gathered over the expert-tensor-parallel ranks). Routing imbalance (a rank receiving more than the mean) is not modelled: balanced
routing is assumed.

Both the planner's Megatron layout (:func:`gpudesk.sizing.memory_train.parallel_train_memory_bytes`) and the
training estimate (:func:`gpudesk.sizing.memory_train.train_memory`) call :func:`expert_split`.

NCCL buffers (:func:`expert_nccl_bytes`, the device view only): the all-to-all connects each rank to every other EP
rank, and Megatron-Core opens separate communicators for the expert optimizer and the experts' gradients; the training
estimate (full and LoRA) and the planner's Megatron layouts add them through the same function.
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


# The NCCL memory expert parallelism adds on each rank (a device-view term: NCCL allocates its buffers with cudaMalloc
# / cuMem outside PyTorch's caching allocator). Megatron-Core ``megatron/core/parallel_state.py`` at d98e8a64dd
# (NVIDIA/Megatron-LM) creates one ``torch.distributed.new_group`` per group: ``EXPERT_MODEL_PARALLEL_GROUP``
# (``get_ranks('ep')``, the token dispatcher's all-to-all, ``token_dispatcher.py`` ``all_to_all``),
# ``EXPERT_TENSOR_MODEL_PIPELINE_PARALLEL_GROUP`` (``'tp-ep-pp'``; ``megatron/core/optimizer/__init__.py``:
# ``model_parallel_group = pg_collection.tp_ep_pp if is_expert else pg_collection.mp``, the expert optimizer's
# grad-norm and found-inf all-reduces) and ``EXPERT_DATA_PARALLEL_GROUP`` (``'dp'`` of the expert rank generator:
# the experts' gradient reduce-scatter / all-reduce, a collective only with more than one expert-data-parallel rank).
# Each is its own communicator even where its ranks equal another group's, and each communicator that runs a
# collective holds its own buffers: "More communicators = more memory used, except if communicators are created with
# ncclCommSplit and the flag to share resources is set" (NVIDIA/nccl#986, the maintainer's answer in #864), measured
# at 544 MB for a 2-GPU and 688 MB for a larger group on 4 x A100 NVLink (NVIDIA/nccl#964), near the 0.5 GiB a
# communicator :class:`gpudesk.sizing.overheads.Overheads` already assumes for the job's own communicator; the two
# expert collective groups are counted at that figure.
# The all-to-all connects every pair of ranks (point-to-point channels to each peer, not a ring's two neighbours):
# on 8 x H100 one ``all_to_all_single`` took NCCL's device memory from 1.06 GB to 4.34 GB, PyTorch's excluded, with
# 32 P2P channels per pair of GPUs (NVIDIA/nccl#1685, 2025-04), i.e. (4.34 - 1.06) GB over 7 peers a peer. Counted
# for the ``ep - 1`` peers of the EP group; peers on other nodes use fewer network channels a peer
# (``NCCL_NCHANNELS_PER_NET_PEER``), so for an EP group that spans nodes this is an upper bound.
ALL_TO_ALL_PEER_BYTES = (4.34e9 - 1.06e9) / 7
EXPERT_COMMUNICATOR_SOURCE = ("Megatron-Core d98e8a64dd megatron/core/parallel_state.py (EXPERT_MODEL_PARALLEL_GROUP, "
                              "EXPERT_TENSOR_MODEL_PIPELINE_PARALLEL_GROUP, EXPERT_DATA_PARALLEL_GROUP), "
                              "optimizer/__init__.py (tp_ep_pp for expert params); NVIDIA/nccl#964, #986")
ALL_TO_ALL_SOURCE = "NVIDIA/nccl#1685 (8 x H100: 1.06 -> 4.34 GB after the first all_to_all_single)"


def expert_communicators(*, gpus: int, expert_parallel: int, expert_tensor_parallel: int = 1,
                         pipeline_parallel: int = 1, trains_experts: bool = True) -> int:
    """Collective NCCL communicators that expert parallelism adds on one rank beyond the job's own and the EP
    all-to-all (0 without EP or with frozen experts): the expert optimizer's ``tp-ep-pp`` group and the
    expert-data-parallel group (the latter with more than one expert-data-parallel rank). LoRA over frozen experts
    (``trains_experts`` False) has no expert optimizer. Sources: :data:`EXPERT_COMMUNICATOR_SOURCE`."""
    if expert_parallel <= 1 or not trains_experts:
        return 0
    split_data_parallel = max(1, gpus // max(1, expert_parallel * expert_tensor_parallel * pipeline_parallel))
    return 1 + (1 if split_data_parallel > 1 else 0)


def expert_nccl_bytes(*, gpus: int, expert_parallel: int, communicator_bytes: float, expert_tensor_parallel: int = 1,
                      pipeline_parallel: int = 1, trains_experts: bool = True) -> tuple[float, list[tuple[str, str]]]:
    """NCCL device memory expert parallelism adds on one rank, with its assumption lines: the all-to-all's
    connections to the ``ep - 1`` other EP ranks (:data:`ALL_TO_ALL_PEER_BYTES` each) and
    :func:`expert_communicators` more collective communicators of ``communicator_bytes`` each. Outside the caching
    allocator: only the device view carries it. Both the training estimate (full and LoRA) and the planner's Megatron
    layouts call this."""
    if expert_parallel <= 1:
        return 0.0, []
    peers = expert_parallel - 1
    all_to_all = peers * ALL_TO_ALL_PEER_BYTES
    notes = [(ngettext("NCCL all-to-all buffers of expert parallelism: connections to {peers} other expert-parallel "
                       "rank, {gib:.2f} GiB (outside the allocator: the device view only)",
                       "NCCL all-to-all buffers of expert parallelism: connections to {peers} other expert-parallel "
                       "ranks, {gib:.2f} GiB (outside the allocator: the device view only)", peers).format(
                  peers=peers, gib=all_to_all / 2**30), ALL_TO_ALL_SOURCE)]
    count = expert_communicators(gpus=gpus, expert_parallel=expert_parallel,
                                 expert_tensor_parallel=expert_tensor_parallel, pipeline_parallel=pipeline_parallel,
                                 trains_experts=trains_experts)
    if count:
        notes.append((ngettext("NCCL buffers of {count} more communicator for the experts' optimizer and gradients, "
                               "{gib:.2f} GiB each (the device view only)",
                               "NCCL buffers of {count} more communicators for the experts' optimizer and gradients, "
                               "{gib:.2f} GiB each (the device view only)", count).format(
                          count=count, gib=communicator_bytes / 2**30), EXPERT_COMMUNICATOR_SOURCE))
    return all_to_all + count * communicator_bytes, notes


# Megatron-Core, the source of the dispatch accounting below. core_r0.11.0 (59055868f09f856e054882ac23b96280207d752a)
# and core_v0.13.0 (c550cf6c41) megatron/core/transformer/moe/token_dispatcher.py ``MoEAlltoAllTokenDispatcher``:
# token_permutation = permute -> all-to-all over EP -> all-gather over the expert-tensor-parallel group -> sort chunks
# by local expert; token_unpermutation = sort back -> reduce-scatter over ETP -> all-to-all -> unpermute.
# megatron/core/transformer/moe/moe_utils.py ``permute`` (``tokens.index_select(0, sorted_indices)``: autograd keeps
# the int64 indices, not the tokens); megatron/core/transformer/moe/experts.py ``GroupedMLP`` / ``TEGroupedMLP``: the
# grouped fc1 keeps its input (the permuted, gathered tokens) for its weight gradient.
# The router probabilities: from core_v0.13.0 on the experts apply them in the activation
# (``activation_func_with_probs(fc1_output, permuted_probs)``, experts.py) and the dispatcher's ``unpermute`` gets no
# probabilities, so nothing more is kept; up to core_v0.12 ``unpermute`` multiplied the combined expert output by them
# (``permuted_tokens * permuted_probs.unsqueeze(-1)``, moe_utils.py at core_r0.11.0), keeping that output too
# (``n k`` rows of ``h`` a layer): the older versions' term is not counted (the current source is modelled).
DISPATCH_SOURCE = ("Megatron-Core core_v0.13.0 (c550cf6c41) / core_r0.11.0 (59055868) "
                   "megatron/core/transformer/moe/token_dispatcher.py MoEAlltoAllTokenDispatcher; moe_utils.py "
                   "permute; experts.py GroupedMLP / TEGroupedMLP")
# A plain activation's product with the routing probability, saved as linear_fc2's input (dispatch_saved_bytes).
PROBS_PRODUCT_SOURCE = ("Megatron-Core megatron/core/transformer/moe/experts.py TEGroupedMLP.bias_act_func at "
                        "febd25e3fb (2026-03) and adc69dba2d (2025-10): 'intermediate_parallel = "
                        "intermediate_parallel * permuted_probs' after the unfused activation; probabilities moved "
                        "into the experts by 2659630721 (2025-04-09, 'Memory efficient token permutation', "
                        "core_v0.13.0)")
# Per routed row the dispatcher's bookkeeping autograd keeps: the int64 sorted index of ``permute`` and the
# probability the experts multiply by (fp32 here: Megatron-Core's router computes its scores in fp32 when asked, an
# upper bound of the 2 bytes of a bf16 probability).
DISPATCH_INDEX_BYTES_PER_ROW = 8 + 4


def moe_layer_count(spec: ModelSpec) -> int:
    """Layers with routed experts (all layers unless the model names fewer; 0 for a dense model)."""
    if not spec.moe_experts:
        return 0
    return int(spec.moe_layers if spec.moe_layers is not None else spec.transformer_dims.layers)


def dispatch_saved_bytes(spec: ModelSpec, *, seq_len_tokens: int, micro_batch_size: int, tensor_parallel: int = 1,
                         expert_tensor_parallel: int | None = None, sequence_parallel: bool = False,
                         bytes_per_element: float = 2.0) -> float:
    """Bytes one MoE layer keeps for backward under the all-to-all token dispatcher, beyond the dense per-layer count
    (Korthikanti et al. 2022, which counts the MLP input once: ``s b h / t`` under sequence parallelism, else ``s b h``).

    On one GPU, with ``n = s b / tp`` local tokens (the sequence-parallel shard the MoE layer dispatches; Megatron-Core
    requires sequence parallelism for MoE with tensor parallelism) and ``k`` = top_k:
    - the grouped fc1's input: the ``n k`` permuted rows sent out, all-gathered over the ``etp`` expert-tensor-parallel
      ranks, ``n k etp`` rows of ``h`` (balanced routing: as many arrive as leave each rank);
    - the int64 sorted indices and the probabilities of the ``n k`` rows (:data:`DISPATCH_INDEX_BYTES_PER_ROW`);
    less the MLP input the dense count already holds. The expert MLP's intermediates (``n k etp`` rows of ``3 f /
    etp`` for SwiGLU) equal the dense count with ``ffn = k f``, so they add nothing, except for a plain (non-gated)
    activation: TEGroupedMLP's ``bias_act_func`` fuses the routing probability only into SwiGLU / quick-GeGLU
    (``weighted_bias_swiglu_impl``); any other activation runs ``activation_func(fc1_output)`` and then
    ``intermediate_parallel * permuted_probs`` out of place, so beside the fc1 output (kept by the activation) and the
    activation output (kept by the multiply for the probabilities' gradient) linear_fc2 keeps the product as its
    input: one more ``n k etp`` rows of ``f / etp`` (:data:`PROBS_PRODUCT_SOURCE`). Sources: :data:`DISPATCH_SOURCE`.
    Returns 0 for a dense model.
    """
    if not (spec.moe_experts and spec.moe_active_experts and spec.hidden_size):
        return 0.0
    t = max(1, tensor_parallel)
    etp = t if expert_tensor_parallel is None else max(1, expert_tensor_parallel)
    h, k = spec.hidden_size, spec.moe_active_experts
    tokens = seq_len_tokens * micro_batch_size
    local = tokens / t
    sent = local * k
    received = sent * etp
    counted_input = tokens / (t if sequence_parallel else 1)
    saved = bytes_per_element * h * (received - counted_input) + DISPATCH_INDEX_BYTES_PER_ROW * sent
    if not spec.gated:
        # The activation output times the routing probability, linear_fc2's saved input (PROBS_PRODUCT_SOURCE).
        saved += bytes_per_element * received * (spec.moe_ffn_size or spec.ffn_size or 4 * h) / etp
    return saved


def dispatch_activation_bytes(spec: ModelSpec, *, seq_len_tokens: int, micro_batch_size: int, tensor_parallel: int = 1,
                              expert_tensor_parallel: int | None = None, sequence_parallel: bool = False,
                              recompute: str = "none", recomputed_share: float = 1.0,
                              bytes_per_element: float = 2.0) -> tuple[float, float]:
    """The dispatcher's saved tokens for one micro-batch as ``(per layer, once)``: ``per layer`` averaged over all
    decoder layers (the MoE layers' share of :func:`dispatch_saved_bytes`, in the layers that keep their activations),
    ``once`` the layer being recomputed under full recompute (which re-runs its dispatch in backward; Megatron-LM
    ``--recompute-granularity full`` keeps only each layer's input). Both the training estimate and the planner's
    Megatron layout use this."""
    saved = dispatch_saved_bytes(spec, seq_len_tokens=seq_len_tokens, micro_batch_size=micro_batch_size,
                                 tensor_parallel=tensor_parallel, expert_tensor_parallel=expert_tensor_parallel,
                                 sequence_parallel=sequence_parallel, bytes_per_element=bytes_per_element)
    layers = spec.transformer_dims.layers if saved else 0
    if not saved or not layers:
        return 0.0, 0.0
    kept = 1.0 - max(0.0, min(1.0, recomputed_share)) if recompute == "full" else 1.0
    return saved * moe_layer_count(spec) / layers * kept, saved if recompute == "full" else 0.0


def check_expert_tensor_parallel(expert_tensor_parallel: int | None, *, expert_parallel: int,
                                 tensor_parallel: int) -> int:
    """The expert-tensor-parallel size to use: ``tensor_parallel`` when None (Megatron-LM's default), else the given
    whole number >= 1, which needs expert parallelism (without it the experts follow the dense tensor split).

    Raises:
        SizingError: field ``expert_tensor_parallel``.
    """
    if expert_tensor_parallel is None:
        return tensor_parallel
    etp = expert_tensor_parallel
    if not isinstance(etp, int) or isinstance(etp, bool) or etp < 1:
        raise SizingError("expert_tensor_parallel", _(
            "the expert-tensor-parallel size must be a whole number of at least 1, got {value}.").format(value=etp))
    if etp != tensor_parallel and expert_parallel <= 1:
        raise SizingError("expert_tensor_parallel", _(
            "an expert-tensor-parallel size other than the tensor-parallel size is modelled with expert parallelism; "
            "give --expert-parallel too."))
    return etp
