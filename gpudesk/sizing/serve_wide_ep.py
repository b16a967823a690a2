"""Expert parallelism across data-parallel replicas ("wide EP"): vLLM ``--data-parallel-size D
--enable-expert-parallel``, SGLang ``--enable-dp-attention --dp D --ep-size E``.

vLLM runs ``D`` data-parallel engine cores of ``tp`` GPUs each; with ``--enable-expert-parallel`` the MoE layers
do not stay inside a replica but form one expert-parallel group of ``EP = D x tp`` GPUs (vLLM
``FusedMoEParallelConfig.make``: ``ep_size = dp_size * tp_size`` when ``use_ep``; docs "Expert Parallel
Deployment" and "Data Parallel Deployment", https://docs.vllm.ai/en/latest/serving/expert_parallel_deployment.html,
https://docs.vllm.ai/en/latest/serving/data_parallel_deployment.html). Per GPU:

- the attention and every other non-expert weight (embeddings, dense MLP layers, shared experts) are those of the
  rank's own ``tp``-wide replica: whole at ``tp`` 1;
- the routed experts are spread over the ``EP`` GPUs, ``E / EP`` whole experts each;
- each DP rank keeps its own KV cache pool and schedules its own requests (one ``EngineCore`` per rank, each with
  its own scheduler: ``max_num_seqs`` and ``max_num_batched_tokens`` are per rank), the API server spreading the
  requests over the ranks;
- every MoE layer dispatches each token to the GPUs holding its top-k experts and combines the results back (an
  all-to-all over the EP group: DeepEP, pplx-kernels or all-gather / reduce-scatter, ``VLLM_ALL2ALL_BACKEND``);
- the ranks step in lockstep: a rank with no work runs a dummy batch so that the others' all-to-alls complete
  (vllm/v1/engine/core.py ``DPEngineCoreProc.run_busy_loop``: ``execute_dummy_batch`` when a rank has nothing
  scheduled while ``engines_running``; ``_has_global_unfinished_reqs`` all-reduces the ranks' unfinished flag
  every 32 steps, "Optimization - only perform finish-sync all-reduce every 32 steps"; read in the upstream
  source, https://github.com/vllm-project/vllm, not pinned to a commit here), so every step lasts as long as the
  slowest rank's.

This is the placement SGLang's data-parallel attention already describes inside one replica of ``EP`` GPUs
(:mod:`gpudesk.sizing.serve_dp_attention`): ``D`` attention groups of ``tp`` GPUs, experts over all ``EP``,
requests spread over the groups, one synchronous step. :func:`fold_wide_expert_parallel` therefore rewrites a
load whose expert-parallel size spans ``EP / tp`` replicas into that form: one replica of ``EP`` GPUs per expert
group with ``attention_dp`` groups, ``replicas / (EP / tp)`` such replicas; the per-rank caps and the dense weights
held per rank are then taken from :func:`per_rank_token_budget_scale` and :func:`group_dense_params`.
"""

from __future__ import annotations

import dataclasses

from gpudesk.sizing.serve_dp_attention import attention_params_per_layer
from gpudesk.sizing.serve_load import ServeLoad
from gpudesk.sizing.shapes import ModelSpec

WIDE_EP_SOURCE = ("vLLM data parallel + expert parallel: FusedMoEParallelConfig.make ep_size = dp_size x tp_size; "
                  "one EngineCore and scheduler per DP rank, dummy batches while idle (vllm/v1/engine/core.py "
                  "DPEngineCoreProc run_busy_loop / _has_global_unfinished_reqs) "
                  "(https://github.com/vllm-project/vllm; docs 'Data Parallel Deployment', 'Expert Parallel "
                  "Deployment', https://docs.vllm.ai/en/latest/serving/)")


def spans_replicas(load: ServeLoad) -> bool:
    """Whether the load's expert-parallel group is wider than one replica (and a multiple of it)."""
    return load.expert_parallel > load.tp and load.expert_parallel % load.tp == 0


def fold_wide_expert_parallel(load: ServeLoad) -> ServeLoad:
    """``load`` with an expert-parallel group over ``EP / tp`` replicas written as one replica of ``EP`` GPUs whose
    attention runs in ``attention_dp x EP / tp`` data-parallel groups (module docstring); unchanged otherwise.
    A group that does not divide the replicas is left for :meth:`ServeLoad.validated` to refuse."""
    if not spans_replicas(load):
        return load
    ranks = load.expert_parallel // load.tp
    if load.replicas % ranks:
        return load
    return dataclasses.replace(load, tp=load.expert_parallel, replicas=load.replicas // ranks,
                               attention_dp=load.attention_dp * ranks, dense_per_attention_group=True)


def per_rank_token_budget_scale(load: ServeLoad) -> int:
    """How many times a per-rank token budget the folded replica takes per step: one per DP engine core in vLLM
    (each scheduler has its own ``max_num_batched_tokens``), 1 otherwise (SGLang divides ``--chunked-prefill-size``
    among the DP attention ranks: ``chunked_prefill_size // dp_size`` in server_args.py)."""
    if load.dense_per_attention_group and load.engine.lower() == "vllm":
        return max(1, load.attention_dp)
    return 1


def group_dense_params(spec: ModelSpec, load: ServeLoad) -> float:
    """Parameters per GPU beyond the replica's ``1 / tp`` share that a DP rank of a folded wide-EP load holds: every
    non-expert weight other than the attention projections (embeddings, output head, dense MLP layers, shared
    experts; :mod:`gpudesk.sizing.serve_dp_attention` already counts the attention) is its own rank's, split over
    the rank's ``tp / D`` GPUs only, not the folded replica's ``tp`` (module docstring); 0 for other loads."""
    if not load.dense_per_attention_group or load.attention_dp <= 1:
        return 0.0
    experts = spec.moe_experts or 0
    layers = spec.transformer_dims.layers
    moe_layers = (spec.moe_layers if spec.moe_layers is not None else layers) if experts else 0
    routed = moe_layers * experts * spec.expert_params if experts else 0
    other = max(0.0, float(spec.params) - routed - attention_params_per_layer(spec) * layers)
    group_tp = max(1, load.tp // load.attention_dp)
    return other * (1 / group_tp - 1 / load.tp)


# Dispatch and combine move each token's hidden state once to every other GPU holding one of its top-k experts and
# its weighted result back (DeepEP: a token goes once per destination rank, not once per expert; the combine sums
# on the receiving side; https://github.com/deepseek-ai/DeepEP README "normal kernels" / "low-latency kernels").
# Both are counted in 16-bit activations (DeepEP's combine is BF16; its FP8 dispatch is not assumed, the smaller
# volume being an option of the caller). DeepEP's normal intranode kernels reach 153-158 GB/s of an H800's NVLink
# (README table), the link's rate x the efficiency the all-reduce path already uses.
ALLTOALL_SOURCE = ("expert-parallel dispatch + combine all-to-all once per MoE layer, each token sent once to every "
                   "rank holding one of its top-k experts: DeepEP README (https://github.com/deepseek-ai/DeepEP), "
                   "vLLM VLLM_ALL2ALL_BACKEND (deepep_high_throughput, deepep_low_latency, pplx)")
ALLTOALL_ACTIVATION_BYTES = 2


def remote_ranks_per_token(experts_per_token: int, ep: int) -> float:
    """Other GPUs of an ``ep``-wide group a token's ``experts_per_token`` routed experts land on, uniform routing:
    each other rank is hit with probability ``1 - (1 - 1/ep)^k``."""
    if ep <= 1 or experts_per_token <= 0:
        return 0.0
    return (ep - 1) * (1.0 - (1.0 - 1.0 / ep) ** experts_per_token)


def alltoall_bytes_per_token(spec: ModelSpec, load: ServeLoad) -> float:
    """Bytes one GPU sends per token of the folded replica's step in one MoE layer, dispatch and combine together
    (module comment): each GPU owns ``1 / EP`` of the step's tokens; 0 for loads that are not wide EP."""
    if not load.dense_per_attention_group or not spec.moe_experts:
        return 0.0
    ep = load.expert_parallel
    hidden = spec.transformer_dims.hidden_size
    return remote_ranks_per_token(spec.moe_active_experts or 0, ep) / ep * hidden * 2 * ALLTOALL_ACTIVATION_BYTES
