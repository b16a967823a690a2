"""Parallelism mechanics of a training step: pipeline bubble, collective volumes, and the alpha-beta link model.

Sources:
- Pipeline bubble: 1F1B (PipeDream-Flush) idles ``(p - 1) / m`` of the ideal time for ``p`` stages and ``m``
  micro-batches; the interleaved schedule with ``v`` model chunks per rank cuts it to ``(p - 1) / (v m)``
  (Narayanan et al. 2021, arXiv 2104.04473, section 2.2.1 and 2.2.2). 1F1B keeps up to ``p`` micro-batches of
  activations in flight on the first stage (same paper, section 2.2.1).
- Ring collectives (Patarasuk & Yuan 2009; NCCL tests PERFORMANCE.md "bus bandwidth"): all-reduce moves
  ``2 (n-1)/n x M`` bytes per GPU, all-gather and reduce-scatter ``(n-1)/n x M``; all-to-all sends
  ``(n-1)/n`` of each GPU's buffer to the other ranks (NCCL tests ``alltoall_perf``: busbw = algbw x (n-1)/n).
- Tensor (+ sequence) parallelism: per layer, two all-gathers and two reduce-scatters of the ``s b h`` activation
  in forward and the same in backward (Korthikanti et al. 2022, arXiv 2205.05198, section 4.2.2; without sequence
  parallelism the same volume as two all-reduces each way, Shoeybi et al. 2019, arXiv 1909.08053, figure 4).
- Context parallelism (ring attention, Liu et al. 2023, arXiv 2310.01889; Megatron-Core context_parallel docs):
  each rank passes its K and V blocks around the ring, ``cp - 1`` hops in forward, and K, V plus their gradients
  in backward, overlapped with the attention of the block in hand. Each ring step is one flash-attention call on
  ``seq / (2 cp)`` keys per query tile (causal load balancing, 2 cp chunks), so the per-tile fixed work weighs
  more than in one pass, and each step's partial output (and in backward dQ, dK, dV) is merged by elementwise
  kernels (:func:`ring_attention_chunk_slowdown`, :func:`ring_attention_merge_bytes_per_layer`).
- Expert parallelism (Lepikhin et al. 2020, GShard, arXiv 2006.16668; Megatron-Core MoE token dispatcher): each
  MoE layer sends every token's ``top_k`` copies of the hidden state to the experts' ranks and back (dispatch and
  combine), in forward and again in backward: four all-to-alls of ``tokens x top_k x h`` elements.
- Links: time = ``bytes / (GB/s x efficiency) + hops x latency`` (Hockney's alpha-beta model). NCCL reaches about
  80 % of the per-direction link rate in bus bandwidth (Stas Bekman, ML Engineering, network/benchmarks: 80-88 %).
"""

from __future__ import annotations

from dataclasses import dataclass

from gpudesk.i18n import _
from gpudesk.sizing.checks import fraction, positive_float, positive_int
from gpudesk.sizing.errors import SizingError

LINK_EFFICIENCY = 0.80
# NCCL per-hop latency: ~ 5-10 us over NVLink/InfiniBand for small messages (NCCL tests; Stas Bekman ML Engineering).
LINK_LATENCY_S = 8e-6


@dataclass(frozen=True)
class LinkSpeed:
    """One link a collective runs on: ``gbps_per_direction`` (decimal GB/s per GPU) and a display ``name``."""

    name: str
    gbps_per_direction: float

    def seconds(self, bytes_per_gpu: float, hops: int, efficiency: float = LINK_EFFICIENCY,
                latency_s: float = LINK_LATENCY_S) -> float:
        """Alpha-beta time of moving ``bytes_per_gpu`` in ``hops`` sequential steps (0 bytes: 0 s)."""
        if bytes_per_gpu <= 0 or hops <= 0:
            return 0.0
        rate = positive_float("link_gbps", self.gbps_per_direction) * 1e9 * fraction("link_efficiency", efficiency,
                                                                                     allow_zero=False)
        return bytes_per_gpu / rate + hops * latency_s


def pipeline_bubble_fraction(stages: int, micro_batches: int, virtual_stages: int = 1) -> float:
    """Idle share of the ideal pipeline time: ``(p - 1) / (v m)`` (1F1B: v = 1; interleaved: v chunks per rank).

    Raises:
        SizingError: a non-positive count, or interleaving with fewer micro-batches than stages (Megatron-LM needs
            ``m`` to be a multiple of ``p`` for the interleaved schedule).
    """
    p = positive_int("pp", stages)
    m = positive_int("micro_batches", micro_batches)
    v = positive_int("vp", virtual_stages)
    if p == 1:
        return 0.0
    if v > 1 and m < p:
        raise SizingError("vp", _("the interleaved schedule needs at least {p} micro-batches per step (one per "
                                  "pipeline stage), got {m}.").format(p=p, m=m))
    return (p - 1) / (v * m)


def in_flight_micro_batches(stages: int, micro_batches: int, virtual_stages: int = 1) -> float:
    """Micro-batches whose activations the first stage holds at once: ``min(p, m)`` under 1F1B; the interleaved
    schedule holds ``p (1 + (p - 1) / (p v))`` model-chunk micro-batches' worth (Megatron-LM
    ``theoretical_memory_usage.py``: ``1 + (pp - 1) / (pp x vp)`` times ``p`` chunks of ``1/v`` of the layers)."""
    p = positive_int("pp", stages)
    m = positive_int("micro_batches", micro_batches)
    v = positive_int("vp", virtual_stages)
    if p == 1:
        return 1.0
    if v == 1:
        return float(min(p, m))
    return min(float(m), p * (1 + (p - 1) / (p * v)))


def tensor_parallel_bytes_per_layer(tokens: float, hidden_size: int, tp: int, bytes_per_element: float = 2.0) -> float:
    """Bytes one GPU sends per transformer layer, forward + backward, for tensor (+ sequence) parallelism:
    4 all-gathers + 4 reduce-scatters of the ``tokens x h`` activation, each ``(t-1)/t`` of it."""
    t = positive_int("tp", tp)
    if t == 1:
        return 0.0
    message = positive_float("tokens", tokens) * positive_int("hidden_size", hidden_size) * bytes_per_element
    return 8 * (t - 1) / t * message


def context_parallel_bytes_per_layer(tokens_per_rank: float, kv_width: int, cp: int, bytes_per_element: float = 2.0) -> float:
    """Bytes one GPU sends per layer for ring attention: K and V (``2 x kv_width`` per token) passed ``cp - 1``
    times in forward, K, V and their gradients in backward (3x the forward volume in all)."""
    c = positive_int("cp", cp)
    if c == 1:
        return 0.0
    kv = positive_float("tokens", tokens_per_rank) * 2 * positive_int("kv_width", kv_width) * bytes_per_element
    return 3 * (c - 1) * kv


# Ring attention runs one flash-attention call per ring step on a chunk of the sequence (Transformer Engine
# AttnFuncWithCPAndKVP2P, transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py, TE 2.x;
# PyTorch _templated_ring_attention, torch/distributed/tensor/experimental/_attention.py, torch 2.6). With the causal
# load balancing of both (the sequence cut into 2 x cp chunks, rank r holding chunks r and 2cp-1-r) every step's
# call sweeps seq / (2 cp) keys per query tile: the diagonal step causally over its own two chunks, the others the
# whole local query against half the received K/V or half the queries against all of it.
FLASH_KV_TILE_TOKENS = 128
# A flash-attention thread block loads its query tile and fills its K/V pipeline before the first tile's matmuls
# and rescales and writes O and the LSE after the last (Dao 2023, FlashAttention-2, arXiv 2307.08691 algorithm 1;
# flash_fwd_kernel.h in github.com/Dao-AILab/flash-attention): taken as two K/V tiles' worth of time per query
# tile, a stated assumption (the paper's figure 4 shows the rate falling below 1k keys), not a fitted value.
FLASH_TILE_FIXED_TILES = 2.0
# Merging a ring step's partial result, eager elementwise work outside the attention kernel: read the step's
# 16-bit output and read and write the running output, 32-bit in PyTorch (_SDPAMerger, _out_dtype = torch.float32
# under _ContextParallelOptions.convert_to_f32) and rescaled in place in TE (flash_attn_fwd_out_correction,
# out.add_(out_per_step * exp(lse_per_step - lse))); in backward the dQ accumulator and the dK/dV accumulators that
# travel with the ring: taken as 10 bytes per element (2 read + 4 read + 4 written) each way.
RING_MERGE_BYTES_PER_ELEMENT = 10.0


def ring_attention_chunk_slowdown(seq_len: int, cp: int) -> float:
    """Attention time under ring context parallelism over the same attention in one pass: per query tile
    ``n / (n + FLASH_TILE_FIXED_TILES)`` of the time does matmuls, ``n`` the K/V tiles it sweeps, ``seq / 2`` keys
    causal in one pass against ``seq / (2 cp)`` keys per ring-step call."""
    c = positive_int("cp", cp)
    if c == 1:
        return 1.0
    whole = positive_int("seq_len", seq_len) / 2 / FLASH_KV_TILE_TOKENS
    chunk = max(1.0, seq_len / (2 * c) / FLASH_KV_TILE_TOKENS)
    return (whole / (whole + FLASH_TILE_FIXED_TILES)) / (chunk / (chunk + FLASH_TILE_FIXED_TILES))


def ring_attention_merge_bytes_per_layer(tokens_per_rank: float, q_width: int, kv_width: int, cp: int) -> float:
    """HBM bytes one GPU moves per layer to merge ring-step partials: ``cp`` forward output corrections over
    ``q_width`` and ``cp`` backward accumulations of dQ (``q_width``) and dK, dV (``2 x kv_width``) per token."""
    c = positive_int("cp", cp)
    if c == 1:
        return 0.0
    per_token = positive_int("q_width", q_width) * 2 + 2 * positive_int("kv_width", kv_width)
    return c * RING_MERGE_BYTES_PER_ELEMENT * positive_float("tokens", tokens_per_rank) * per_token


# How a ring-attention implementation moves K/V between the context-parallel ranks. "p2p": one K/V block to the next
# rank per ring step, each transfer under the step in hand (Transformer Engine AttnFuncWithCPAndKVP2P, Megatron-Core
# cp_comm_type "p2p"). "allgather": PyTorch's experimental context parallelism gathers every rank's K/V in one
# collective issued with the first (diagonal) step and waited for before the second (torch/distributed/tensor/
# experimental/_attention.py, _AllGatherRotater: exchange_buffers at i = 0, next_buffer at i = 1;
# _ContextParallelOptions.rotate_method defaults to ALL_GATHER, torchtitan's context_parallel_rotate_method
# defaults to "allgather": "all-gather all kv shards on ranks after the first sub-SDPA computation"); the backward
# gathers K/V again the same way and passes dK/dV around the ring step by step, accumulated in FP32
# (convert_to_f32).
CP_KV_EXCHANGES = ("p2p", "allgather")


def context_parallel_exposed_seconds(exchange: str, kv_pass_s: float, attention_passes_s: tuple[float, ...],
                                     backward_attention_s: float, cp: int, grad_bytes_ratio: float = 1.0) -> float:
    """Ring-attention communication time not hidden behind attention, per micro-batch.

    ``kv_pass_s``: moving the other ranks' K/V once (one forward's volume); ``attention_passes_s``: the attention
    time of each pass that needs the remote K/V (forward, a recompute of it, backward); ``backward_attention_s``:
    the backward's share, under which dK/dV travel (``grad_bytes_ratio`` x the K/V volume: 2 for FP32 gradients).

    ``p2p``: every transfer overlaps the step in hand: exposed only where all the traffic outlasts all the
    attention. ``allgather``: each pass's gather overlaps only its first ring step, ``1 / cp`` of that pass's
    attention; the gradient ring overlaps the remaining ``(cp - 1) / cp`` of the backward.
    """
    c = positive_int("cp", cp)
    if c == 1 or kv_pass_s <= 0:
        return 0.0
    if exchange not in CP_KV_EXCHANGES:
        raise SizingError("cp_kv_exchange", _("{value!r} is not a known K/V exchange; use one of {names}.").format(
            value=exchange, names=", ".join(CP_KV_EXCHANGES)))
    grads = kv_pass_s * grad_bytes_ratio
    if exchange == "p2p":
        return max(0.0, kv_pass_s * len(attention_passes_s) + grads - sum(attention_passes_s))
    gathers = sum(max(0.0, kv_pass_s - attention / c) for attention in attention_passes_s)
    return gathers + max(0.0, grads - backward_attention_s * (c - 1) / c)


def expert_all_to_all_bytes_per_layer(tokens: float, hidden_size: int, top_k: int, ep: int,
                                      bytes_per_element: float = 2.0) -> float:
    """Bytes one GPU sends per MoE layer, forward + backward: 4 all-to-alls (dispatch, combine, and their
    gradients) of ``tokens x top_k x h`` elements, of which ``(ep-1)/ep`` leave the GPU."""
    e = positive_int("ep", ep)
    if e == 1:
        return 0.0
    buffer = positive_float("tokens", tokens) * positive_int("top_k", top_k) * positive_int("hidden_size", hidden_size)
    return 4 * (e - 1) / e * buffer * bytes_per_element


def expert_ranks_per_domain(ep: int, etp: int, domain_gpus: int) -> int:
    """How many ranks of one expert-parallel group share an NVLink domain of ``domain_gpus`` GPUs.

    Megatron-Core lays out the MoE layers on their own rank grid ("MoE parallel folding", Liu et al. 2025, arXiv
    2504.14960): ``initialize_model_parallel`` builds a second ``RankGenerator(tp=expert_tensor_parallel_size,
    ep=expert_model_parallel_size, dp=expert_data_parallel_size, pp=..., cp=1, order="tp-cp-ep-dp-pp")``
    (megatron/core/parallel_state.py at core_v0.15.0, the Megatron-Core of Megatron-Bridge 25.11; the same since
    core_v0.10.0 introduced ``expert_tensor_parallel_size``). The attention's TP and CP are folded into the expert
    grid, so consecutive EP ranks are ``etp`` GPUs apart whatever the attention TP: with ETP 1 an EP-32 group is 32
    consecutive GPUs (4 eight-GPU nodes), not 32 GPUs strided by TP. The group spans ``ep x etp`` GPUs.
    """
    e, t, d = positive_int("ep", ep), positive_int("etp", etp), positive_int("domain_gpus", domain_gpus)
    return max(1, min(e, d // t))


def remote_nodes_per_token(top_k: int, nodes: int) -> float:
    """Expected number of OTHER NVLink domains a token's ``top_k`` experts land on when the expert-parallel ranks
    span ``nodes`` domains and routing is balanced (each expert equally likely): ``(n - 1) (1 - (1 - 1/n)^k)``,
    the occupancy of ``n`` bins after ``k`` throws less the token's own domain.

    A node-deduplicating dispatcher (DeepEP, Megatron-Core HybridEP: github.com/deepseek-ai/DeepEP README "normal
    kernels ... forwarding from NVLink to RDMA"; DeepSeek-V3 report arXiv 2412.19437 section 3.2.2) sends a token
    over the scale-out network once per destination domain and fans it out to the experts there over NVLink,
    instead of once per expert.
    """
    k = positive_int("top_k", top_k)
    n = positive_int("nodes", nodes)
    if n == 1:
        return 0.0
    return (n - 1) * (1 - (1 - 1 / n) ** k)


def data_parallel_bytes(params_per_gpu: float, dp: int, sharding: str, gradient_bytes: float = 2.0,
                        weight_gathers: int = 2) -> float:
    """Bytes one GPU sends per optimizer step to synchronise ``params_per_gpu`` gradients over ``dp`` ranks.

    DDP / ZeRO-1 / ZeRO-2 / Megatron distributed optimizer: reduce-scatter of the gradients + all-gather of the
    updated weights (or one all-reduce), ``2 (n-1)/n x P x bytes``. ZeRO-3 / FSDP also all-gathers the weights
    for backward: ``3 (n-1)/n x P x bytes`` (Rajbhandari et al. 2019, ZeRO, arXiv 1910.02054, section 7: 1.5x);
    ``weight_gathers`` 3 where the recomputed forward gathers the weights once more (DeepSpeed ZeRO-3 under activation
    checkpointing: ``Framework.regathers_for_recompute``).
    """
    n = positive_int("dp", dp)
    if n == 1:
        return 0.0
    volume = positive_int("weight_gathers", weight_gathers) + 1 if sharding in ("zero3", "fsdp") else 2
    return volume * (n - 1) / n * positive_float("params_per_gpu", params_per_gpu) * gradient_bytes


def frozen_weight_gather_bytes(params_per_gpu: float, dp: int, weight_bytes: float = 2.0,
                               weight_gathers: int = 2) -> float:
    """Bytes one GPU receives per micro-batch to gather the frozen (not trained) weights that ZeRO-3 / FSDP shards over
    ``dp`` ranks: one all-gather for the forward and one for the backward, ``2 (n-1)/n x P x bytes``, and no gradient
    reduce-scatter. ZeRO-3 partitions every parameter of the model whether it trains or not (Rajbhandari et al. 2019,
    arXiv 1910.02054, section 5.3: P_os+g+p), as FSDP shards all parameters of a wrapped module, frozen ones included
    (PyTorch FSDP docs, ``use_orig_params`` for mixed ``requires_grad``): a LoRA run's base model is gathered like a
    full run's, while only the adapters have gradients to sync. ``weight_gathers`` 3 where the recomputed forward
    gathers them once more (see :func:`data_parallel_bytes`).
    """
    n = positive_int("dp", dp)
    if n == 1:
        return 0.0
    return (positive_int("weight_gathers", weight_gathers) * (n - 1) / n
            * positive_float("params_per_gpu", params_per_gpu) * weight_bytes)


def pipeline_p2p_bytes(tokens: float, hidden_size: int, tp: int, bytes_per_element: float = 2.0) -> float:
    """Bytes one stage boundary sends per micro-batch, forward activation + backward gradient; with sequence
    parallelism each of the ``tp`` ranks sends its ``1/tp`` slice (Narayanan et al. 2021, section 4.1 scatter/gather)."""
    return 2 * positive_float("tokens", tokens) * positive_int("hidden_size", hidden_size) * bytes_per_element / positive_int(
        "tp", tp)


# Megatron-Core's gradient bucket: max(40M, 1M x data-parallel size) parameters when --ddp-bucket-size is not set
# (megatron/core/distributed/distributed_data_parallel.py, github.com/NVIDIA/Megatron-LM: "bucket_size =
# max(40000000, 1000000 * data_parallel_world_size)", so that large data-parallel groups keep NCCL messages large).
BUCKET_PARAMS_MIN = 40_000_000
BUCKET_PARAMS_PER_RANK = 1_000_000


def gradient_buckets(params_per_gpu: float, dp: int) -> int:
    """Buckets the data-parallel gradient sync of ``params_per_gpu`` is issued in over ``dp`` ranks (at least 1)."""
    size = max(BUCKET_PARAMS_MIN, BUCKET_PARAMS_PER_RANK * positive_int("dp", dp))
    return max(1, -(-int(params_per_gpu) // size))


def exposed_bucketed_sync_seconds(sync_s: float, buckets: int, forward_s: float, backward_s: float,
                                  sharded: bool) -> float:
    """Time the data-parallel sync of one step adds beyond the compute it overlaps, issued in ``buckets``.

    A bucket's gradient reduce starts when the backward has produced all its gradients (Megatron-Core
    ``--overlap-grad-reduce``, PyTorch DDP gradient buckets, Li et al. 2020, "PyTorch Distributed", VLDB, arXiv
    2006.15704, section 3.2.3): it overlaps only the backward still to run, and the bucket of the first layers,
    ready when the backward ends, is always exposed. A sharded optimizer (distributed optimizer, ZeRO-1/2) splits the
    sync into a gradient reduce-scatter (half the time, under the backward) and an all-gather of the updated weights
    (the other half) that ``--overlap-param-gather`` runs under the next forward, the first bucket waited for before
    the first layer runs. Without sharding the whole all-reduce runs under the backward. With one micro-batch per
    step this backward and forward are all the compute there is to hide under. ``sync_s``: the alpha-beta time of
    the whole sync (ring: ``(n - 1)`` latency steps per reduce-scatter or all-gather, NCCL docs, "Collective
    Operations"; Thakur, Rabenseifner & Gropp 2005, "Optimization of Collective Communication Operations in MPICH").
    """
    b = positive_int("buckets", buckets)
    if sync_s <= 0:
        return 0.0

    def phase(seconds: float, window_s: float) -> float:
        return max(seconds / b, seconds - window_s * (1 - 1 / b))

    if not sharded:
        return phase(sync_s, backward_s)
    return phase(sync_s / 2, backward_s) + phase(sync_s / 2, forward_s)
