"""Time formulas: training FLOPs and step time, data-loading need, ring collectives, inference throughput.

Sources:
- Training FLOPs: ``6 * N * D`` (Kaplan et al. 2020, arXiv 2001.08361 section 2.1: 2 forward + 4 backward
  per parameter per token); ``8 * N * D`` with full activation recomputation (one extra forward; Narayanan
  et al. 2021, arXiv 2104.04473 section 5.1).
- Achievable fraction of dense peak: measured matmul efficiency (MAMF / datasheet peak, Stas Bekman,
  ML Engineering, compute/accelerator) times the share of MAMF a real training step reaches. Default 0.66:
  "real LLM training on an A100 reached ... 180+ TFLOPS" with FlashAttention, against 271 TFLOPS MAMF
  (catalog.md 1.2). Where no efficiency is measured, 0.75 (below every NVIDIA figure in Stas's table).
- Ring collectives (Patarasuk & Yuan 2009, "Bandwidth optimal all-reduce algorithms"; NCCL tests
  PERFORMANCE.md): all-reduce moves ``2 (n-1)/n * M`` bytes per GPU, all-gather and reduce-scatter
  ``(n-1)/n * M``. ZeRO-3 / FSDP moves 1.5x the data of DDP (ZeRO paper section 7). Links deliver about
  80 % of their per-direction spec (Stas Bekman: 80-88 % measured).
- Decode is memory-bandwidth bound: each step reads the weights once and each sequence's KV cache; prefill
  is compute bound at ``2 * N`` FLOPs per token (Kaplan et al. 2020; catalog.md 6).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gpudesk.i18n import _
from gpudesk.sizing.checks import fraction, positive_float, positive_int
from gpudesk.sizing.errors import SizingError

DEFAULT_MFU_OF_MAMF = 0.66
DEFAULT_MATMUL_EFFICIENCY = 0.75
DEFAULT_LINK_EFFICIENCY = 0.80
DEFAULT_HBM_EFFICIENCY = 0.80
DEFAULT_COMM_OVERLAP = 0.5
DEFAULT_LINK_LATENCY_S = 10e-6


def training_flops(params: int, tokens: float, full_recompute: bool = False) -> float:
    """Training FLOPs: ``6 * params * tokens`` (8 with full recomputation). Use active params for MoE."""
    p = positive_int("params", params)
    d = positive_float("tokens", tokens)
    return (8.0 if full_recompute else 6.0) * p * d


def achievable_flops_per_gpu(dense_peak_tflops: float, matmul_efficiency: float | None = None,
                             mfu_of_mamf: float = DEFAULT_MFU_OF_MAMF) -> float:
    """FLOP/s one GPU sustains in training: peak x matmul efficiency x MFU-of-MAMF (FLOP/s, decimal)."""
    peak = positive_float("dense_peak_tflops", dense_peak_tflops) * 1e12
    eff = fraction("matmul_efficiency", DEFAULT_MATMUL_EFFICIENCY if matmul_efficiency is None else matmul_efficiency,
                   allow_zero=False)
    return peak * eff * fraction("mfu_of_mamf", mfu_of_mamf, allow_zero=False)


def compute_time_s(flops: float, gpus: int, flops_per_gpu: float) -> float:
    """Seconds to do ``flops`` on ``gpus`` GPUs each sustaining ``flops_per_gpu`` FLOP/s."""
    return positive_float("flops", flops) / (positive_int("gpus", gpus) * positive_float("flops_per_gpu", flops_per_gpu))


def ring_allreduce_bytes(message_bytes: float, gpus: int) -> float:
    """Bytes each GPU sends (and receives) in a ring all-reduce: ``2 (n-1)/n * M``."""
    n = positive_int("gpus", gpus)
    return 2 * (n - 1) / n * positive_float("message_bytes", message_bytes, allow_zero=True)


def ring_allgather_bytes(message_bytes: float, gpus: int) -> float:
    """Bytes each GPU sends in a ring all-gather or reduce-scatter: ``(n-1)/n * M``."""
    n = positive_int("gpus", gpus)
    return (n - 1) / n * positive_float("message_bytes", message_bytes, allow_zero=True)


def collective_time_s(bytes_per_gpu: float, link_gbps_per_direction: float, gpus: int,
                      link_efficiency: float = DEFAULT_LINK_EFFICIENCY, latency_s: float = DEFAULT_LINK_LATENCY_S) -> float:
    """Seconds for a ring collective moving ``bytes_per_gpu`` over a link of ``link_gbps_per_direction`` GB/s.

    Time = bytes / (GB/s x 1e9 x efficiency) + 2 (n-1) x latency (alpha-beta model).
    """
    n = positive_int("gpus", gpus)
    if n == 1:
        return 0.0
    bw = positive_float("link_gbps_per_direction", link_gbps_per_direction) * 1e9 * fraction("link_efficiency", link_efficiency, allow_zero=False)
    return bytes_per_gpu / bw + 2 * (n - 1) * latency_s


def paired_collective_time_s(bytes_per_gpu: float, gpus: int, pair_gbps_per_direction: float,
                             between_gbps_per_direction: float, link_efficiency: float = DEFAULT_LINK_EFFICIENCY,
                             latency_s: float = DEFAULT_LINK_LATENCY_S) -> float:
    """Seconds for the same collective on GPUs joined in bridged pairs (H100 NVL / A100 PCIe NVLink bridges).

    ``bytes_per_gpu`` is what a flat ring over ``gpus`` would move per GPU (2 (n-1)/n x M for an all-reduce of M
    bytes). Hierarchical all-reduce over P = n/2 pairs: reduce-scatter inside each pair (M/2 over the bridge),
    ring all-reduce of the half-shards between pairs (2 (P-1)/P x M/2 per GPU over ``between_gbps``, each GPU of a
    pair on its own PCIe x16 link), all-gather inside the pair (M/2 over the bridge). Time =
    M / bridge + (P-1)/P x M / between + latency (alpha-beta model; NCCL's tree/ring hierarchy, Sergeev & Del
    Balso 2018 for the 2-level scheme). With one pair this is the flat ring over the bridge.

    Raises:
        SizingError: ``gpus`` not an even count >= 2, or a bandwidth that is not positive.
    """
    n = positive_int("gpus", gpus)
    if n < 2 or n % 2:
        raise SizingError("gpus", _("bridged pairs need an even GPU count >= 2, got {n}.").format(n=n))
    eff = fraction("link_efficiency", link_efficiency, allow_zero=False)
    pair_bw = positive_float("pair_gbps_per_direction", pair_gbps_per_direction) * 1e9 * eff
    between_bw = positive_float("between_gbps_per_direction", between_gbps_per_direction) * 1e9 * eff
    message = positive_float("bytes_per_gpu", bytes_per_gpu, allow_zero=True) * n / (2 * (n - 1))
    pairs = n // 2
    return message / pair_bw + (pairs - 1) / pairs * message / between_bw + 2 * (n - 1) * latency_s


def gradient_sync_bytes_per_gpu(params: int, sharding: str, gpus: int, grad_bytes_per_param: float = 2.0) -> float:
    """Bytes each GPU moves per optimizer step to synchronise gradients (and gather weights under ZeRO-3).

    DDP / ZeRO-1 / ZeRO-2: one all-reduce of the 16-bit gradients (ZeRO-2 does reduce-scatter + all-gather, the
    same volume). ZeRO-3 / FSDP: all-gather weights for forward and backward + reduce-scatter gradients, 1.5x.
    """
    message = positive_int("params", params) * grad_bytes_per_param
    base = ring_allreduce_bytes(message, gpus)
    stage = sharding.lower()
    return base * 1.5 if stage in ("zero3", "fsdp") else base


@dataclass(frozen=True)
class StepTime:
    """One optimizer step.

    Attributes: compute_s, comm_s (total collective time), exposed_comm_s (not hidden behind backward),
    step_s (compute + exposed comm), comm_share (exposed_comm / step).
    """

    compute_s: float
    comm_s: float
    exposed_comm_s: float
    step_s: float
    comm_share: float


def step_time(compute_s: float, comm_s: float, overlap: float = DEFAULT_COMM_OVERLAP) -> StepTime:
    """Combine compute and communication: ``step = compute + max(0, comm - overlap x compute)``.

    DDP buckets gradients and all-reduces them during backward (Li et al. 2020, "PyTorch Distributed", VLDB);
    DeepSpeed ``overlap_comm`` does the same for ZeRO. ``overlap`` is the share of compute that can hide
    communication (backward is about 2/3 of a step; default 0.5).
    """
    c = positive_float("compute_s", compute_s, allow_zero=True)
    m = positive_float("comm_s", comm_s, allow_zero=True)
    ov = fraction("comm_overlap", overlap)
    exposed = max(0.0, m - ov * c)
    total = c + exposed
    return StepTime(compute_s=c, comm_s=m, exposed_comm_s=exposed, step_s=total,
                    comm_share=(exposed / total) if total > 0 else 0.0)


def data_rate_needed_bytes_per_s(samples_per_s: float, sample_bytes: float) -> float:
    """Bytes per second storage and decoding must deliver to keep the GPUs busy: samples/s x bytes/sample."""
    return positive_float("samples_per_s", samples_per_s, allow_zero=True) * positive_float("sample_bytes", sample_bytes)


def decode_step_s(weights_bytes: float, kv_bytes_per_sequence: float, batch: int, memory_bandwidth_gbps: float,
                  flops_per_token: float, peak_flops: float, hbm_efficiency: float = DEFAULT_HBM_EFFICIENCY,
                  compute_efficiency: float = 0.5) -> float:
    """Seconds for one decode step of ``batch`` sequences: the slower of memory traffic and compute.

    Memory: weights + batch x KV per sequence, read once per step at bandwidth x efficiency.
    Compute: batch x flops_per_token (2 x params) at peak x efficiency.
    """
    b = positive_int("batch", batch)
    bw = positive_float("memory_bandwidth_gbps", memory_bandwidth_gbps) * 1e9 * fraction("hbm_efficiency", hbm_efficiency, allow_zero=False)
    memory_s = (weights_bytes + b * kv_bytes_per_sequence) / bw
    compute_s = b * flops_per_token / (positive_float("peak_flops", peak_flops) * compute_efficiency)
    return max(memory_s, compute_s)


def decode_tokens_per_s(batch: int, step_seconds: float) -> float:
    """Generated tokens per second of a GPU decoding ``batch`` sequences with steps of ``step_seconds``."""
    return positive_int("batch", batch) / positive_float("decode_step_s", step_seconds)


def attention_flops_per_token(layers: int, attention_width: int, context_tokens: int, causal: bool = True) -> float:
    """Forward FLOPs of the attention score and value products for one token (the part 2 x params leaves out).

    PaLM (Chowdhery et al. 2022, appendix B) counts 12 x L x H x Q x T per token for training, i.e.
    4 x layers x d_attn x context for the forward pass (QK^T and softmax x V, 2 FLOPs per multiply-add). Over a
    causal prompt each token sees on average half the context (FlashAttention skips the masked half): 2 x ...
    ``attention_width`` is heads x head dimension (d_attn); ``context_tokens`` the prompt or sequence length.
    """
    flops = 4.0 * positive_int("layers", layers) * positive_int("attention_width", attention_width) * positive_int(
        "context_tokens", context_tokens)
    return flops / 2 if causal else flops


def prefill_s(prompt_tokens: int, flops_per_token: float, peak_flops: float, compute_efficiency: float = 0.5) -> float:
    """Seconds of compute-bound prefill for one prompt: tokens x 2 x params / (peak x efficiency)."""
    n = positive_int("prompt_tokens", prompt_tokens)
    return n * flops_per_token / (positive_float("peak_flops", peak_flops) * compute_efficiency)


def qps_per_gpu(prefill_s_per_request: float, decode_step_seconds: float, batch: int, output_tokens: int) -> float:
    """Requests per second one GPU sustains: ``1 / (prefill + output_tokens x step / batch)``.

    Each request costs its prefill plus ``output_tokens`` decode steps shared with ``batch - 1`` other sequences.
    """
    b = positive_int("batch", batch)
    out = positive_int("output_tokens", output_tokens) if output_tokens else 0
    per_request = positive_float("prefill_s", prefill_s_per_request, allow_zero=True) + out * decode_step_seconds / b
    return math.inf if per_request <= 0 else 1.0 / per_request
