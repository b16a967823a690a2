"""Time of one engine step: ``d`` decoding requests (one token each) plus ``p`` prompt tokens of chunked prefill.

A step runs every layer once over all its tokens (continuous batching with chunked prefill, Sarathi-Serve,
Agrawal et al. 2024, arXiv 2403.02310; vLLM ``max_num_batched_tokens``). Its time is

    step = weight bytes / HBM rate + matmul FLOPs / matmul rate              (the GEMMs)
           + max(KV bytes / HBM rate, attention FLOPs / attention rate)     (attention)
           + tokens x elementwise bytes per token / HBM rate                  (norms, rotary, KV write, activation)
           + layers x per-layer latency + 2 x layers x all-reduce(tokens x hidden x 2 bytes)

The operators run one after the other, so their times add (per-operator accounting: LLM-Viewer, Yuan et al. 2024,
arXiv 2402.16363 section 3; Vidur, arXiv 2405.05465, times each operator separately): at a large batch the GEMMs
are compute bound while decode attention still streams the KV cache, and one max over the whole step would hide
the KV read behind the GEMMs. Within a GEMM the weight stream and the math are added, not overlapped: at serving
shapes a GEMM reaches neither roofline. Measured cuBLASLt FP8 GEMMs on H100 (Azure AI benchmarking guide) reach
1011 and 1217 TFLOPS at 2048^3 and 4096^3; the sum of their memory time (FP8 inputs and BF16 output at 2.90 TB/s)
and compute time (at the 1382 TFLOPS of the largest size) gives 943 and 1121, the max 1382 for both (no-overlap
case of the Hong & Kim analytical GPU model, ISCA 2009). At batch 1 the sum is the weight read, for prefill chunks
of thousands of tokens the math.

- Bytes: the weights once per step (for MoE the experts the step's tokens touch: ``E (1 - (1 - k/E)^n)`` of
  ``E`` experts per layer for ``n`` tokens routing to ``k`` each, uniform routing) plus the KV cache every
  decoding request reads (its context x KV bytes per token) (roofline, Williams et al. 2009; decode is memory
  bound, prefill compute bound: Pope et al. 2022, arXiv 2211.05102 section 2).
- FLOPs: ``2 x active params`` per token (Kaplan et al. 2020) plus attention, ``4 x layers x d_attn x context``
  per decoded token and half that per causal prompt token (PaLM appendix B); all divided by ``tp``.
- HBM efficiency: the share of the datasheet bandwidth a decode step's reads reach (:mod:`gpudesk.sizing.
  serve_rates`). Matmul efficiency: the catalog's measured MAMF / peak where known, else the vendor figure.
- Elementwise traffic: the kernels between the GEMMs read and write each token's 16-bit activations (LLM-Viewer
  counts their memory access per layer): two fused add + RMSNorm (read x and the residual, write both: 8 x hidden),
  rotary embedding (read and write q and k), the KV-cache write (read k and v, write them to the cache) and the gated
  activation (read gate and up, write their product: 3 x the expert or MLP width a token uses), per GPU. A routed
  MoE layer also moves each token's hidden row once per routed expert, three times (gathered GEMM input, the
  expert's hidden-wide output, the top-k sum reading it back), on every TP rank whatever ``tp``
  (:data:`MOE_ROUTED_ROW_PASSES`): at TP 8 this is most of a large MoE's per-token traffic. At a few thousand
  tokens per step this traffic is comparable to the weights.
- Kernel floor: every kernel of a layer (GEMMs included) lasts at least a fixed time whatever its work (launch,
  synchronisation, the minimum duration of a small kernel), with CUDA/HIP graphs or eager; the kernels are counted
  from the engine's model code by architecture: MLA attention and routed MoE blocks launch about twice the kernels
  of a Llama layer (:mod:`gpudesk.sizing.serve_rates`). At batch 1 on a TP slice of a large MoE this floor, not
  the weight stream, sets the step.
- Block-scaled FP8: where the weights are the checkpoint's own block-scaled FP8 (DeepSeek-V3 / R1), the dense
  (non-expert) GEMMs stream their weights at the small share of the bandwidth those kernels reach at decode sizes
  (:data:`gpudesk.sizing.serve_rates.BLOCK_FP8_WEIGHT_STREAM_SHARE`; on CDNA 3 the measured rate of the Triton
  kernel both engines run there, :mod:`gpudesk.sizing.serve_rocm_block_fp8`), whatever the batch; on NVIDIA GPUs
  each linear at that share x its 128-wide output tiles over the measured GEMM's 17, up to the roofline
  (:mod:`gpudesk.sizing.serve_block_fp8_tiles`: Qwen3's 4k-50k wide linears fill the SMs); the embedding and LM
  head stay 16-bit and the routed experts' grouped GEMMs keep the HBM rate. Their math (prefill chunks, large
  batches) runs at the rate the engines' block-FP8 Triton / CUTLASS kernels reach, a fifth of the FP8 peak, not the
  per-tensor cuBLASLt rate: the routed experts in vLLM and SGLang, the dense linears too in vLLM, in SGLang
  before DeepGEMM became its default and in SGLang on GPUs DeepGEMM does not run on (AMD Instinct: AITER's Triton
  kernel; :func:`gpudesk.sizing.serve_rates.block_fp8_triton_flops_share`), at the
  kernel's measured rate for the GEMM's rows: the step's tokens for a dense linear, tokens x top-k / experts for a
  routed expert (:func:`gpudesk.sizing.serve_rates.block_fp8_triton_peak_share`).
- Fused-MoE row tiles: where the routed experts run the engines' Triton fused MoE with block-FP8 weights, each
  active expert computes whole tiles of 16 or 64 token rows (by engine release), and the padded rows' math counts
  where it exceeds the experts' weight stream (:mod:`gpudesk.sizing.serve_moe_tiles`): 64-row tiles make the
  decode step of a 256-expert model compute bound from a few tokens on.
- Fused-MoE K loop: the Triton fused MoE (vLLM, SGLang; 16-bit and per-tensor FP8 experts on NVIDIA GPUs) has no
  split-K, so each grouped GEMM of a MoE layer lasts at least one program's serial chain of weight-tile loads over
  its reduction (the hidden size for gate/up), however few bytes a small TP slice holds; the excess over the
  experts' weight stream is added (:mod:`gpudesk.sizing.serve_moe_kloop`).
- Dequantisation: a weight-only format the GPU has no matrix units for (MXFP4 on Hopper or CDNA 3) is unpacked
  on the vector ALUs, once per weight read per step, added to the GEMM (:func:`gpudesk.sizing.serve_rates.
  dequant_weights_per_s`); MXFP4 on FP4 matrix units (CDNA 4, Blackwell) runs at the FP4 rate. Where the engine
  runs the weights through a Marlin kernel (vLLM's MXFP4 MoE on NVIDIA GPUs below compute capability 9), the
  unpacking overlaps the asynchronous loads of the next weight tiles and the GEMM's weight time is the longer of
  the two, not their sum (:func:`gpudesk.sizing.serve_rates.dequant_overlaps_weight_stream`).
- Tensor-core tiles: a GEMM computes whole tiles of token rows (64 on Hopper and Blackwell, 16 on earlier GPUs,
  AMD and Marlin's 4-bit kernels: :func:`gpudesk.sizing.serve_rates.gemm_tile_tokens`), so a step of fewer tokens
  lasts at least the tile's math; where the matrix units are slow against the memory (H20) this, not the weight
  stream, sets a small-batch decode step.
- GEMM library calls: vLLM on CDNA 3 and 4 (MI300X, MI325X, MI350X, MI355X) runs a step's dense GEMMs through its own skinny kernels only
  while the step has at most 4 tokens (16-bit linears) or 1 token (per-tensor FP8), else through hipBLASLt, which
  costs a measured few microseconds more per GEMM at decode sizes (:func:`gpudesk.sizing.serve_rates.
  library_gemm_extra_s`, vllm-project/vllm PR 15830); routed experts and AWQ/GPTQ/block-FP8 linears have their own
  kernels and are not counted. SGLang on the same GPUs has no skinny dispatch for its 16-bit linears: they are
  hipBLASLt calls at every step, each with hipBLASLt's measured per-call excess over a skinny kernel
  (:mod:`gpudesk.sizing.serve_rocm_hipblaslt`).
- FP8 activation quantization: a per-tensor / per-token FP8 linear run op by op (SGLang, vLLM V0) quantizes its
  16-bit input in a kernel of its own before the GEMM, two per attention and per MLP or expert block, each at the
  kernel floor (:func:`gpudesk.sizing.serve_rates.activation_quant_kernels`); compiled vLLM V1 and TensorRT-LLM
  fuse it into the kernel before.
- Host overhead: the engine's CPU work per step (scheduling, input preparation, sampling, detokenisation) is added
  to the GPU's step unless the engine overlaps it, then the step lasts the longer of the two
  (:mod:`gpudesk.sizing.serve_host`).
- Tensor parallelism: Megatron-LM's two all-reduces per layer (after attention and after the MLP; Shoeybi et al.
  2019, arXiv 1909.08053 section 3) of ``tokens x hidden x 2`` bytes, alpha-beta on the replica's link
  (:func:`gpudesk.sizing.time.collective_time_s`, ring volume ``2 (n-1)/n``). At batch 1 the alpha term
  dominates: this is what makes small-batch decode slower at TP > 1. Messages over the engines' one-shot limit
  (8 MiB: a step of more than 512 tokens of a 8192-wide model) go through NCCL / RCCL at the bus bandwidth measured
  for that message size (:func:`gpudesk.sizing.serve_rates.measured_allreduce_busbw`), below the link's asymptote
  for the tens of MB a large decode batch or a prefill chunk moves. Below its one-shot limit (256 KiB at TP 8,
  512 KiB at TP 4, any size at TP 2) the engine's kernel has every rank read its peers' whole buffers, ``(n - 1) x``
  the message instead of the ring's ``2 (n - 1) / n`` (:func:`gpudesk.sizing.serve_rates.one_shot_max_bytes`).
- Data-parallel attention (``attention_dp`` D > 1: SGLang ``--enable-dp-attention``, TensorRT-LLM
  ``enable_attention_dp``): each GPU reads its attention group's ``tp / D`` share of the attention projections (D
  times the plain-TP share) and only its group's ``1 / D`` of the running requests' KV cache (MLA's latent is
  otherwise read whole on every rank); with one GPU per group the attention all-reduce is gone and the MLP's
  gather and scatter count as one all-reduce of the step's tokens (:mod:`gpudesk.sizing.serve_dp_attention`).
- Pipeline parallelism (``pp`` stages of ``tp`` GPUs): each stage holds ``ceil(L / pp)`` of the ``L`` layers (the
  fullest stage sets the pace); the engine splits the running requests into micro-batches and keeps them in flight,
  one per stage: ``pp`` of them in TensorRT-LLM's PyTorch executor (``num_micro_batches = pp_size``) and vLLM V1
  (``max_concurrent_batches = pipeline_parallel_size``), 2 in vLLM with asynchronous scheduling (on by default
  since v0.12). Every request's step passes through all stages, so the time in which every running request
  advances one token is ``pp`` x a stage's pass over one micro-batch (of ``ceil(requests / m)`` requests, ``m`` the
  micro-batches in flight, at most the requests) plus ``pp - 1`` point-to-point activation sends (tokens x hidden x
  2 bytes, one hop of the library's measured latency). With fewer micro-batches than stages (low concurrency, the
  pipeline bubble) a lone request waits through every stage: a step is no faster than on one GPU holding the
  whole model. The host schedules each micro-batch once per such cycle.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from gpudesk.catalog.records import GPU, Link
from gpudesk.i18n import _
from gpudesk.sizing.dtypes import weight_bits_per_param
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.engine_version import version_triple
from gpudesk.sizing.memory_inference import kv_token_bytes_all_layers, resolve_weight_format, weight_bytes
from gpudesk.sizing.serve_host import engine_version_tuple, host_overhead
from gpudesk.sizing.serve_vllm_piecewise import PIECEWISE_SOURCE, attention_runs_piecewise, piecewise_attention_kernels
from gpudesk.sizing.serve_engine import sglang_cuda_graph_max_bs
from gpudesk.sizing.serve_lmdeploy import uses_cuda_graphs
from gpudesk.sizing.serve_load import ServeLoad, storage_weight_format
from gpudesk.sizing.serve_awq_gemm import (
    AWQ_DEQUANT_ABOVE_TOKENS,
    AWQ_DEQUANT_BYTES_PER_WEIGHT,
    PLAIN_AWQ_SOURCE,
    plain_awq_dequantizes,
    plain_awq_kernel,
    plain_awq_stream_share,
)
from gpudesk.sizing.serve_marlin_linear_rate import MARLIN_LINEAR_SOURCE, marlin_linear_peak_share
from gpudesk.sizing.serve_rocm_gptq import (
    GPTQ_GEMM_MAX_FUSED_ROWS,
    RECONSTRUCT_BYTES_PER_WEIGHT,
    ROCM_GPTQ_SOURCE,
    rocm_gptq_reconstructs,
)
from gpudesk.sizing.serve_vllm_ascend import eager_kernel_s, runs_eager as ascend_runs_eager
from gpudesk.sizing.serve_vllm_v0 import vllm_v0_fallback
from gpudesk.sizing.serve_ascend_aclgraph import (
    PIECEWISE_SOURCE as ASCEND_PIECEWISE_SOURCE,
    SYNC_SOURCE as ASCEND_SYNC_SOURCE,
    forces_piecewise as ascend_forces_piecewise,
    fia_output_copy_kernels as ascend_fia_output_copy_kernels,
    npu_attention_launch_s,
    serial_layer_s as ascend_serial_layer_s,
    syncs_before_pieces as ascend_syncs_before_pieces,
)
from gpudesk.sizing.serve_eager_prefill import (
    EAGER_DECODE_SOURCE,
    EAGER_LONG_DECODE_SOURCE,
    EAGER_V0_BATCH_SOURCE,
    SOURCE as EAGER_PREFILL_SOURCE,
    eager_launch_s,
    engine_has_graphs,
    launch_s_per_kernel,
    prompt_steps_run_eager,
    vllm_v0_graph_max_batch,
    vllm_v0_graph_max_context,
)
from gpudesk.sizing.serve_network import NetworkLevel, network_level, parse_internode_network
from gpudesk.sizing.serve_rates import (
    BLOCK_FP8_TRITON_PEAK_SHARE,
    block_fp8_triton_flops_share,
    block_fp8_triton_peak_share,
    ENGINE_ALLREDUCE_MAX_BYTES,
    HIPBLASLT_SOURCE,
    AZURE_GUIDE,
    ENGINE_ALLREDUCE_SOURCE,
    MEASURED_ALLREDUCE_BUSBW_GBPS,
    RING_HOP_S,
    allreduce_latency_s,
    compute_peak_flops,
    dequant_overlaps_weight_stream,
    dense_gemms_per_step,
    dequant_weights_per_s,
    fp4_matmul_efficiency,
    FP4_DECODE_TOKENS,
    FP4_GEMM_SOURCE,
    FP4_LARGE_TOKENS,
    gemm_rate_share,
    hbm_efficiency,
    kernel_latency_s,
    kernels_per_step,
    library_gemm_extra_s,
    link_efficiency,
    matmul_efficiency,
    MESH_SOURCE,
    mesh_peer_share,
    measured_allreduce_busbw,
    one_shot_max_bytes,
    gemm_tile_tokens,
    GEMM_TILE_SOURCE,
    ONE_SHOT_SOURCE,
    ACTIVATION_QUANT_SOURCE,
    activation_quant_kernels,
    EXPERT_QUANT_SOURCE,
    expert_quant_kernels,
)
from gpudesk.sizing.serve_marlin_moe import (
    MARLIN_MOE_SOURCE,
    MARLIN_SMALL_BLOCK_MAX_ROWS,
    marlin_block_rows,
    narrow_expert_block_s,
)
from gpudesk.sizing.serve_expert_parallel import busiest_rank_experts
from gpudesk.sizing.serve_wide_ep import (
    ALLTOALL_SOURCE,
    WIDE_EP_SOURCE,
    alltoall_bytes_per_token,
    group_dense_params,
)
from gpudesk.sizing.serve_moe_configs import MOE_CONFIG_SOURCE, local_expert_shape, tuned_block_fp8_config
from gpudesk.sizing.serve_moe_kloop import HBM_LATENCY_SOURCE, KLOOP_SOURCE, kloop_applies, kloop_chain_s
from gpudesk.sizing.serve_triton_moe_rate import TRITON_MOE_RATE_SOURCE, triton_moe_peak_share
from gpudesk.sizing.serve_marlin_moe_rate import (
    FP8_MARLIN_MOE_SOURCE,
    MARLIN_MOE_RATE_SOURCE,
    fp8_marlin_moe,
    marlin_moe_peak_share,
)
from gpudesk.sizing.serve_moe_tiles import MOE_TILE_SOURCE, MoeTiles, fused_moe_tiles, padded_expert_rows
from gpudesk.sizing.serve_dp_attention import (
    DP_ATTENTION_SOURCE,
    REPLICATED_MLA_SOURCE,
    attention_params_per_layer,
    attention_tp,
    replicated_attention_params_per_layer,
)
from gpudesk.sizing.serve_pcie_p2p import host_staged_allreduce
from gpudesk.sizing.serve_qk_norm import (
    LAYER_QK_NORM_BYTES_PER_TOKEN,
    layer_qk_norm_assumption,
    layer_qk_norm_per_layer,
)
from gpudesk.sizing.serve_rocm_aiter_moe import (
    AITER_MOE_FLOOR_KERNELS,
    aiter_moe_assumption,
    aiter_moe_layer_s,
    aiter_moe_points,
)
from gpudesk.sizing.serve_allreduce_fusion import (
    FUSED_ALLREDUCE_S,
    FUSED_MAX_TOKENS,
    FUSED_NORM_KERNELS_PER_LAYER,
    FUSION_SOURCE,
    MODEL_TYPE_ARCHITECTURE,
    fusion_enabled,
)
from gpudesk.sizing.serve_nvlink_allreduce import (
    NVLINK_ALLREDUCE_SOURCE,
    RANK_SKEW_SOURCE,
    nvlink_allreduce_curve,
    rank_skew_s,
)
from gpudesk.sizing.serve_rocm_allreduce import ROCM_ALLREDUCE_SOURCE, curve_allreduce_s, rocm_allreduce_curve
from gpudesk.sizing.serve_rocm_attention import (
    ROCM_ATTENTION_SOURCE,
    ROCM_COMPUTE_UNITS,
    unsplit_note,
    uses_unsplit_decode,
)
from gpudesk.sizing.serve_block_fp8_tiles import TILES_SOURCE as BLOCK_FP8_TILES_SOURCE
from gpudesk.sizing.serve_block_fp8_tiles import TILES_VENDOR as BLOCK_FP8_TILES_VENDOR
from gpudesk.sizing.serve_block_fp8_tiles import NARROW_STREAM_SOURCE, ada_narrow_stream_bytes_per_s
from gpudesk.sizing.serve_block_fp8_tiles import block_fp8_linear_shapes, block_fp8_stream_s, dense_peak_share, tile_mix
from gpudesk.sizing.serve_rocm_block_fp8 import block_fp8_dense_stream_bytes_per_s
from gpudesk.sizing.serve_rocm_gemm_size import (
    GEMM_SIZE_SOURCE,
    SMALL_SIZE_SOURCE,
    gemm_size_shapes,
    size_extra_s,
)
from gpudesk.sizing.serve_rocm_hipblaslt import (
    SGLANG_HIPBLASLT_EXTRA_S,
    SGLANG_HIPBLASLT_SOURCE,
    sglang_hipblaslt_applies,
    sglang_hipblaslt_gemms,
)
from gpudesk.sizing.serve_rocm_int4_moe import (
    ROCM_INT4_MOE_SOURCE,
    rocm_int4_moe_applies,
    triton_int4_moe_layer_s,
)
from gpudesk.sizing.serve_fp8_small_m import FP8_SMALL_M_SOURCE, SMALL_M_MAX_TOKENS, fp8_small_m_applies
from gpudesk.sizing.serve_mla_attention import mla_attention
from gpudesk.sizing.serve_rocm_mla import ROCM_MLA_DEQUANT_SOURCE, rocm_mla_dequant_per_step
from gpudesk.sizing.shapes import ModelSpec
from gpudesk.sizing.speed_common import Assumption, raw
from gpudesk.units import format_duration, format_flops, format_percent, format_rate
from gpudesk.sizing.time import ring_allreduce_bytes

ACTIVATION_BYTES = 2  # 16-bit hidden states between layers (bf16)
# A gated expert's gate and up projections are 2 of its 3 equal matrices (hidden x width each), read by the first
# grouped GEMM; the down projection, the third, by the second.
MOE_GATED_UP_SHARE = 2 / 3
# A routed MoE layer moves every token's hidden row once per expert it is routed to, on every TP rank (the rank
# holds a slice of every expert, so its partial output is hidden-wide): the grouped GEMM reads the token's row for
# each of its top-k experts, writes a hidden-wide output per (token, expert) pair, and the top-k sum reads them
# back (vLLM vllm/model_executor/layers/fused_moe/fused_moe.py fused_experts_impl: intermediate_cache3 of shape
# (tokens, top_k, hidden), then ops.moe_sum; topk_weight_and_reduce.py TopKWeightAndReduceContiguous for the modular
# kernels: the (tokens, top_k, hidden) expert output summed by ops.moe_sum; https://github.com/vllm-project/vllm;
# SGLang's fused_moe has the same structure; TensorRT-LLM's CUTLASS MoE expands the rows before the grouped GEMM and
# un-permutes and reduces them after it).
MOE_ROUTED_ROW_PASSES = 3


@dataclass(frozen=True)
class StepModel:
    """The per-step figures of one replica (per GPU): bytes of dense and expert weights, KV bytes per token,
    FLOPs per token, rates, latencies, and the assumptions they came from."""

    layers: int
    hidden_size: int
    tp: int
    dense_weight_bytes: float
    expert_bytes: float  # one routed expert in one layer, per GPU
    moe_layers: int
    experts: int
    active_experts: int
    kv_bytes_per_token: float  # all layers, per GPU
    elementwise_bytes_per_token: float  # all layers, per GPU
    flops_per_token: float  # dense matmuls, per GPU
    attention_flops_per_context_token: float  # per decoded token per context token, per GPU
    bytes_per_s: float
    flops_per_s: float
    attention_flops_per_s: float
    layer_latency_s: float
    allreduce_alpha_s: float
    link_bytes_per_s: float
    assumptions: tuple[Assumption, ...]
    host_step_s: float = 0.0  # CPU time of one step whatever its batch (scheduler, input preparation, sampling)
    # per prompt token per context token, per GPU, where a prompt step attends in another form than decode (MLA:
    # serve_mla_attention); None: attention_flops_per_context_token
    prefill_attention_flops_per_context_token: float | None = None
    host_request_s: float = 0.0  # CPU time per request in the step (output processing, detokenisation)
    host_overlap: bool = False  # the CPU prepares step n+1 while the GPU runs step n
    weight_bytes_per_element: float = 2.0
    dequant_weights_per_s: float = 0.0  # 0: the GEMMs read the weight format directly
    dequant_overlapped: bool = False  # the kernel unpacks while the next weight tiles load (Marlin): max, not sum
    link: Link | None = None  # the replica's link when its collective library has a measured bandwidth curve
    dense_stream_extra_s: float = 0.0  # block-FP8 dense GEMMs: extra seconds per step over the HBM-rate read
    library_gemm_s: float = 0.0  # dense GEMMs handed to the vendor library: extra seconds per step
    skinny_max_tokens: int = 0  # steps of at most this many tokens run the engine's skinny kernels instead
    small_m_extra_bytes: float = 0.0  # FP8 linears at steps of few tokens: bytes of read time added (serve_fp8_small_m)
    small_m_max_tokens: int = 0
    one_shot_max_bytes: float = 0.0  # all-reduces below this size read every peer's whole buffer (one-shot)
    gemm_tile_tokens: int = 0  # a tensor-core GEMM computes at least this many token rows (0: not counted)
    gemm_peak_flops_per_s: float = 0.0  # with the two shares below: the matmul rate depends on the step's tokens
    gemm_decode_share: float = 0.0
    gemm_large_share: float = 0.0
    pp: int = 1  # pipeline stages; the per-GPU figures above are those of the fullest stage
    pp_micro_batches: int = 1  # micro-batches the engine keeps in flight across the stages
    p2p_alpha_s: float = 0.0  # one activation send between stages: latency
    p2p_bytes_per_s: float = 1.0  # and bandwidth
    slow_flops_per_token: float = 0.0  # the part of flops_per_token run by block-FP8 Triton kernels
    slow_expert_flops_per_token: float = 0.0  # the routed experts' part of it
    slow_peak_flops_per_s: float = 0.0  # the FP8 peak their rate is a share of (0: not counted)
    expert_rows_per_token: float = 0.0  # top-k / experts: rows an expert's GEMM gets per token of the step
    # (FLOP weight, output-tile scale) of the dense block-FP8 linears (serve_block_fp8_tiles.tile_mix; (): N 2112)
    dense_tile_mix: tuple[tuple[float, float], ...] = ()
    # Megatron's two per layer; one (the MLP's gather + scatter) under data-parallel attention with one GPU per group
    allreduces_per_layer: int = 2
    moe_tiles: MoeTiles | None = None  # the routed experts' Triton fused-MoE row tiles (None: not that kernel)
    # expert parallelism across data-parallel ranks: bytes one GPU sends per step token and MoE layer in the dispatch
    # + combine all-to-all, and the share of the layers that are MoE layers (serve_wide_ep; 0: no all-to-all)
    alltoall_bytes_per_token: float = 0.0
    alltoall_layer_share: float = 0.0
    # CPU seconds per layer to issue the kernels of a step with prompt tokens where the engine runs it eagerly: the
    # step lasts at least that long (serve_eager_prefill; 0: prompt steps replay CUDA graphs like the others)
    prefill_launch_layer_s: float = 0.0
    # SGLang replays decode batches up to its cuda_graph_max_bs from CUDA graphs; a larger decode batch runs eagerly
    # and lasts at least the same CPU launch time as an eager prompt step (0: every decode batch is graphed)
    eager_decode_above_requests: int = 0
    # vLLM V0 replays decode graphs only while the longest decoding context is at most max_seq_len_to_capture; a
    # decode step past it runs eagerly like a prompt step (serve_eager_prefill; 0: no such cap)
    eager_decode_above_context_tokens: int = 0
    # vLLM V1 with piecewise graphs issues each layer's attention eagerly on every step: CPU seconds per layer, a
    # floor of every step (serve_vllm_piecewise; 0: the attention is replayed from graphs)
    attention_launch_layer_s: float = 0.0
    # vLLM-Ascend releases that stop the NPU before every piecewise graph replay: seconds per layer the NPU waits on
    # the host, added to every step (serve_ascend_aclgraph; 0: the host runs ahead of the device)
    serial_layer_s: float = 0.0
    # the engine's all-reduce measured per message size, (bytes, seconds) points (serve_rocm_allreduce; (): alpha-beta)
    allreduce_curve: tuple[tuple[float, float], ...] = ()
    # seconds each all-reduce of a step waits for the slowest rank (serve_nvlink_allreduce.rank_skew_s; 0: none)
    allreduce_skew_s: float = 0.0
    # seconds of one fused all-reduce + add + RMSNorm for steps of up to fused_allreduce_max_tokens tokens
    # (serve_allreduce_fusion; 0: the engine runs the all-reduce and the norm apart)
    fused_allreduce_s: float = 0.0
    fused_allreduce_max_tokens: int = 0
    # vLLM's custom all-reduce on NVLink measured per message size at decode sizes (serve_nvlink_allreduce; ():
    # alpha-beta): within its points the measured time where longer, above them the alpha-beta growth
    nvlink_curve: tuple[tuple[float, float], ...] = ()
    # vLLM on ROCm with AITER off and the unsplit Triton decode kernel: workgroups per decoding sequence (its KV heads
    # on this GPU) and the GPU's compute units; 0: the decode KV stream runs at the HBM rate (serve_rocm_attention)
    decode_workgroups_per_request: float = 0.0
    compute_units: int = 0
    # hipBLASLt FP8 on CDNA 3: per-layer (N, K) of the dense linears whose rate depends on the GEMM's size
    # (serve_rocm_gemm_size; (): every GEMM at flops_per_s)
    size_curve_shapes: tuple[tuple[int, int], ...] = ()
    # Marlin MoE on narrow TP expert slices: seconds per active expert and MoE layer at decode block sizes (0: the
    # experts stream at the HBM rate; serve_marlin_moe)
    marlin_expert_s: float = 0.0
    # SGLang's untuned Triton int4 fused MoE on CDNA 4: its measured time per MoE layer replaces the experts' weight
    # stream where longer (serve_rocm_int4_moe)
    rocm_int4_moe: bool = False
    # GPUs the routed experts are spread over as whole experts (1: every GPU holds a tp-th of every expert;
    # serve_expert_parallel)
    expert_parallel: int = 1
    # vLLM's AITER fused MoE on CDNA 4: its measured (pairs on the GPU, seconds per MoE layer) points replace the
    # routed experts' modelled time where longer, and the seconds of its kernels in the floor (serve_rocm_aiter_moe)
    aiter_moe_points: tuple[tuple[float, float], ...] = ()
    aiter_moe_floor_s: float = 0.0
    # the routed experts' FLOPs per token per GPU that run a MoE kernel below the dense rate on narrow expert slices
    # (the Triton fused MoE with 16-bit or per-tensor FP8 weights: serve_triton_moe_rate; Marlin MoE with 4-bit
    # weight-only ones: serve_marlin_moe_rate), and the rate they reach (0: at the dense rate)
    moe_kernel_flops_per_token: float = 0.0
    moe_kernel_flops_per_s: float = 0.0
    # the dense linears' FLOPs per token per GPU a 4-bit weight-only kernel runs below the dense rate, and its rate
    # (serve_marlin_linear_rate)
    linear_kernel_flops_per_token: float = 0.0
    linear_kernel_flops_per_s: float = 0.0
    # bytes vLLM's ROCm gptq_gemm writes and reads back rebuilding the FP16 linears on steps above
    # reconstruct_above_tokens tokens (serve_rocm_gptq)
    reconstruct_bytes: float = 0.0
    reconstruct_above_tokens: int = 0
    # all-reduces per layer of a few bytes per token besides Megatron's: a layer-wide QK RMSNorm's sums of squares
    # under tensor parallelism (serve_qk_norm)
    norm_allreduces_per_layer: int = 0
    # Triton fused MoE: seconds of one program's serial K loop in the gate/up and in the down grouped GEMM of a MoE
    # layer, the least each lasts whatever its weight bytes (serve_moe_kloop; 0: not that kernel)
    moe_kloop_up_s: float = 0.0
    moe_kloop_down_s: float = 0.0
    # tokens -> the parts of :meth:`gpu_s` that depend on the step's tokens alone (matmuls with their weight stream,
    # elementwise kernels, all-reduces): the scheduler asks for the same batch sizes hundreds of thousands of times.
    # Filled as asked; the fields above are frozen, so an entry never goes stale.
    _token_parts: dict[int, tuple[float, float, float]] = field(default_factory=dict, init=False, repr=False,
                                                                 compare=False)

    def gemm_flops_per_s(self, tokens: int) -> float:
        """The dense matmul rate of a step of ``tokens`` tokens (``flops_per_s`` unless a size-dependent
        efficiency was measured for the GPU and format: :func:`gpudesk.sizing.serve_rates.gemm_rate_share`)."""
        if not self.gemm_peak_flops_per_s:
            return self.flops_per_s
        return self.gemm_peak_flops_per_s * gemm_rate_share(tokens, self.gemm_decode_share, self.gemm_large_share)

    def weight_bytes_read(self, tokens: int) -> float:
        """Weight bytes a step of ``tokens`` tokens reads on one GPU (dense part + the experts touched)."""
        if not self.experts or not self.moe_layers:
            return self.dense_weight_bytes
        return self.dense_weight_bytes + self.moe_layers * self._read_experts(tokens) * self.expert_bytes

    def _read_experts(self, tokens: int) -> float:
        """Routed experts per MoE layer whose weights the step's busiest GPU reads, counted in TP slices of
        ``expert_bytes`` (under expert parallelism a GPU's whole expert is ``expert_parallel`` such slices;
        :mod:`gpudesk.sizing.serve_expert_parallel`)."""
        busiest = busiest_rank_experts(max(1, tokens), self.experts, self.active_experts, self.expert_parallel)
        return busiest * self.expert_parallel

    def allreduce_s(self, tokens: int) -> float:
        """Both all-reduces of every layer for ``tokens`` tokens (0 at TP 1)."""
        if self.tp == 1:
            return 0.0
        total = 0.0
        if self.alltoall_bytes_per_token:
            # dispatch + combine of every MoE layer over the expert-parallel group (serve_wide_ep)
            total += self.layers * self.alltoall_layer_share * (
                2 * self.allreduce_alpha_s + tokens * self.alltoall_bytes_per_token / self.link_bytes_per_s)
        if self.allreduces_per_layer and self.fused_allreduce_s and tokens <= self.fused_allreduce_max_tokens:
            total += self.allreduces_per_layer * self.layers * self.fused_allreduce_s
        elif self.allreduces_per_layer:
            one = self._one_allreduce_s(tokens * self.hidden_size * ACTIVATION_BYTES)
            total += self.allreduces_per_layer * self.layers * one
        if self.norm_allreduces_per_layer:
            norm = self._one_allreduce_s(tokens * LAYER_QK_NORM_BYTES_PER_TOKEN)
            total += self.norm_allreduces_per_layer * self.layers * norm
        return total

    def _one_allreduce_s(self, message: float) -> float:
        """Seconds of one all-reduce of ``message`` bytes over the replica's ``tp`` GPUs (module docstring)."""
        ring = ring_allreduce_bytes(message, self.tp)
        moved = (self.tp - 1) * message if message < self.one_shot_max_bytes else ring
        one = self.allreduce_alpha_s + moved / self.link_bytes_per_s
        if self.nvlink_curve and message <= ENGINE_ALLREDUCE_MAX_BYTES:
            last_bytes, last_s = self.nvlink_curve[-1]
            if message <= last_bytes:
                one = max(one, curve_allreduce_s(self.nvlink_curve, message))
            else:
                at_last = self.allreduce_alpha_s + ring_allreduce_bytes(last_bytes, self.tp) / self.link_bytes_per_s \
                    if last_bytes >= self.one_shot_max_bytes else \
                    self.allreduce_alpha_s + (self.tp - 1) * last_bytes / self.link_bytes_per_s
                one = max(one, last_s + one - at_last)
        if self.allreduce_curve and message <= ENGINE_ALLREDUCE_MAX_BYTES:
            one = curve_allreduce_s(self.allreduce_curve, message)
        if self.link is not None and message > ENGINE_ALLREDUCE_MAX_BYTES:
            busbw = measured_allreduce_busbw(self.link, message)
            if busbw:
                one = max(one, ring / busbw)
        return one + self.allreduce_skew_s

    def step_s(self, decode_requests: int, decode_context_tokens: float, prefill_tokens: int = 0,
               prefill_attention_tokens: float = 0.0) -> float:
        """Seconds of one step with ``decode_requests`` decoding (their contexts summing to
        ``decode_context_tokens``) and ``prefill_tokens`` prompt tokens (``prefill_attention_tokens``: the sum
        over prompt tokens of the context each attends to). With ``pp`` pipeline stages, the time in which every
        running request advances by one step (module docstring, pipeline parallelism)."""
        tokens = decode_requests + prefill_tokens
        if tokens <= 0:
            return 0.0
        requests = decode_requests + (1 if prefill_tokens else 0)
        if self.pp == 1:
            gpu = self.gpu_s(decode_requests, decode_context_tokens, prefill_tokens, prefill_attention_tokens)
            host = self.host_s(requests)
            return max(gpu, host) if self.host_overlap else gpu + host
        micro = max(1, min(self.pp_micro_batches, requests))
        decode = -(-decode_requests // micro)
        prefill = -(-prefill_tokens // micro)
        stage = self.gpu_s(decode, decode_context_tokens / micro, prefill, prefill_attention_tokens / micro)
        hop = self.p2p_alpha_s + (decode + prefill) * self.hidden_size * ACTIVATION_BYTES / self.p2p_bytes_per_s
        cycle = self.pp * stage + (self.pp - 1) * hop
        host = self.host_s(-(-requests // micro))
        return max(cycle, micro * host) if self.host_overlap else cycle + host

    def gpu_s(self, decode_requests: int, decode_context_tokens: float, prefill_tokens: int = 0,
              prefill_attention_tokens: float = 0.0) -> float:
        """GPU seconds of one pass of a step's tokens through this model's layers (one stage under pipeline
        parallelism), the host's work not included."""
        tokens = decode_requests + prefill_tokens
        if tokens <= 0:
            return 0.0
        parts = self._token_parts.get(tokens)
        if parts is None:
            parts = self._token_parts[tokens] = self._token_only_s(tokens)
        gemm, elementwise, allreduce = parts
        kv_s = (decode_context_tokens / self.decode_kv_share(decode_requests) + prefill_tokens) \
            * self.kv_bytes_per_token / self.bytes_per_s
        prefill_rate = self.attention_flops_per_context_token \
            if self.prefill_attention_flops_per_context_token is None else self.prefill_attention_flops_per_context_token
        attention_flops = decode_context_tokens * self.attention_flops_per_context_token \
            + prefill_attention_tokens * prefill_rate
        attention = max(kv_s, attention_flops / self.attention_flops_per_s)
        gpu = gemm + attention + elementwise + self.layers * self.layer_latency_s + allreduce
        if tokens > self.skinny_max_tokens:
            gpu += self.library_gemm_s
        eager_decode = 0 < self.eager_decode_above_requests < decode_requests or (
            self.eager_decode_above_context_tokens > 0 and decode_requests > 0
            and decode_context_tokens / decode_requests > self.eager_decode_above_context_tokens)
        if (prefill_tokens or eager_decode) and self.prefill_launch_layer_s:
            # eager step (a prompt step, or a decode batch above the engine's CUDA-graph sizes): the CPU issues the
            # kernels while the GPU runs them (serve_eager_prefill)
            gpu = max(gpu, self.layers * self.prefill_launch_layer_s)
        if self.attention_launch_layer_s:
            # piecewise graphs: the CPU issues every layer's attention while the GPU replays the pieces between them
            gpu = max(gpu, self.layers * self.attention_launch_layer_s)
        # a stop before each piece's replay: the NPU idles while the host syncs and issues the eager attention
        gpu += self.layers * self.serial_layer_s
        return gpu

    def _token_only_s(self, tokens: int) -> tuple[float, float, float]:
        """(matmul seconds with the weight stream, elementwise seconds, all-reduce seconds) of a step of ``tokens``
        tokens: the parts of :meth:`gpu_s` that do not depend on the contexts."""
        weights = self.weight_bytes_read(tokens)
        stream = weights / self.bytes_per_s + self.marlin_extra_s(tokens) + self.rocm_int4_moe_extra_s(tokens) \
            + (self.reconstruct_bytes / self.bytes_per_s if tokens > self.reconstruct_above_tokens else 0.0) \
            + self.rocm_aiter_moe_extra_s(tokens) + self.moe_kloop_extra_s(tokens)
        if tokens <= self.small_m_max_tokens:
            stream += self.small_m_extra_bytes / self.bytes_per_s
        if self.dequant_weights_per_s:
            unpack = weights / self.weight_bytes_per_element / self.dequant_weights_per_s
            stream = max(stream, unpack) if self.dequant_overlapped else stream + unpack
        rate = self.gemm_flops_per_s(tokens)
        math_s = tokens * self.flops_per_token / rate
        if tokens > self.skinny_max_tokens:
            math_s += size_extra_s(self.size_curve_shapes, self.layers, tokens, rate)
        if self.slow_flops_per_token and self.slow_peak_flops_per_s:
            dense_rate = self.slow_peak_flops_per_s * dense_peak_share(tokens, self.dense_tile_mix,
                                                                       block_fp8_triton_peak_share)
            expert_rate = self.slow_peak_flops_per_s * block_fp8_triton_peak_share(
                tokens * self.expert_rows_per_token)
            dense_slow = self.slow_flops_per_token - self.slow_expert_flops_per_token
            math_s += tokens * (dense_slow * max(0.0, 1 / dense_rate - 1 / rate)
                                + self.slow_expert_flops_per_token * max(0.0, 1 / expert_rate - 1 / rate))
        if self.moe_kernel_flops_per_token and self.moe_kernel_flops_per_s:
            # the routed experts' grouped GEMM below the dense rate (serve_triton_moe_rate, serve_marlin_moe_rate)
            math_s += tokens * self.moe_kernel_flops_per_token * max(0.0, 1 / self.moe_kernel_flops_per_s - 1 / rate)
        if self.linear_kernel_flops_per_token and self.linear_kernel_flops_per_s:
            # the dense linears' 4-bit weight-only GEMMs below the dense rate (serve_marlin_linear_rate)
            math_s += tokens * self.linear_kernel_flops_per_token * max(
                0.0, 1 / self.linear_kernel_flops_per_s - 1 / rate)
        gemm = stream + math_s + self.dense_stream_extra_s + self.moe_tile_padding_s(tokens)
        if tokens < self.gemm_tile_tokens:
            gemm = max(gemm, self.gemm_tile_tokens * self.flops_per_token / rate)
        elementwise = tokens * self.elementwise_bytes_per_token / self.bytes_per_s
        return gemm, elementwise, self.allreduce_s(tokens)

    def decode_kv_share(self, decode_requests: int) -> float:
        """Share of the HBM rate the decode KV stream of ``decode_requests`` sequences reaches: 1, or with the
        unsplit decode kernel its workgroups' share of the compute units (:mod:`gpudesk.sizing.serve_rocm_attention`)."""
        if not self.compute_units or not self.decode_workgroups_per_request or decode_requests <= 0:
            return 1.0
        return min(1.0, decode_requests * self.decode_workgroups_per_request / self.compute_units)

    def moe_tile_padding_s(self, tokens: int) -> float:
        """Seconds the routed experts' padded tile rows add to a step of ``tokens`` tokens beyond their weight stream
        and real math (:mod:`gpudesk.sizing.serve_moe_tiles`); 0 where the experts do not run the Triton fused
        MoE with block-FP8 weights."""
        if self.moe_tiles is None or not (self.slow_expert_flops_per_token and self.slow_peak_flops_per_s):
            return 0.0
        padded, active = padded_expert_rows(tokens, self.experts, self.active_experts, self.moe_tiles.rows(tokens))
        if not padded:
            return 0.0
        flops_per_row = self.slow_expert_flops_per_token / self.active_experts
        rate = self.slow_peak_flops_per_s * block_fp8_triton_peak_share(tokens * self.expert_rows_per_token)
        stream = self.moe_layers * active * self.expert_bytes / self.bytes_per_s
        real = tokens * self.active_experts * flops_per_row / rate
        return max(0.0, padded * flops_per_row / rate - stream - real)

    def marlin_extra_s(self, tokens: int) -> float:
        """Seconds the Marlin MoE kernel's fixed time per active expert adds to a step of ``tokens`` tokens beyond
        the experts' weight stream, while its expert blocks fit one 16-row m-block (:mod:`gpudesk.sizing.
        serve_marlin_moe`); 0 elsewhere."""
        if not self.marlin_expert_s or not self.experts or not self.moe_layers:
            return 0.0
        if marlin_block_rows(tokens, self.experts, self.active_experts) > MARLIN_SMALL_BLOCK_MAX_ROWS:
            return 0.0
        active, stream = self._touched_experts_stream(tokens)
        return max(0.0, self.moe_layers * active * self.marlin_expert_s - stream)

    def rocm_int4_moe_extra_s(self, tokens: int) -> float:
        """Seconds SGLang's untuned Triton int4 fused MoE on CDNA 4 adds to a step of ``tokens`` tokens beyond the
        routed experts' weight stream (:mod:`gpudesk.sizing.serve_rocm_int4_moe`); 0 elsewhere."""
        if not self.rocm_int4_moe or not self.experts or not self.moe_layers:
            return 0.0
        _active, stream = self._touched_experts_stream(tokens)
        return max(0.0, self.moe_layers * triton_int4_moe_layer_s(tokens) - stream)

    def rocm_aiter_moe_extra_s(self, tokens: int) -> float:
        """Seconds vLLM's AITER fused MoE on CDNA 4 adds to a step of ``tokens`` tokens beyond the routed experts'
        modelled time: their weight stream, their matmul at the dense rate and the fused MoE's kernels at the floor
        (:mod:`gpudesk.sizing.serve_rocm_aiter_moe`); 0 where its time was not measured."""
        if not self.aiter_moe_points or not self.experts or not self.moe_layers or tokens <= 0:
            return 0.0
        pairs = tokens * self.active_experts / self.expert_parallel
        measured = self.moe_layers * aiter_moe_layer_s(self.aiter_moe_points, pairs)
        _active, stream = self._touched_experts_stream(tokens)
        expert_flops = 2.0 * self.active_experts * self.expert_bytes / self.weight_bytes_per_element
        math_s = tokens * self.moe_layers * expert_flops / self.gemm_flops_per_s(tokens)
        return max(0.0, measured - stream - math_s - self.moe_layers * self.aiter_moe_floor_s)

    def moe_kloop_extra_s(self, tokens: int) -> float:
        """Seconds the Triton fused MoE's serial K loop adds to a step of ``tokens`` tokens beyond the routed
        experts' weight stream: each grouped GEMM of a MoE layer lasts at least its program's chain of tile loads
        (:mod:`gpudesk.sizing.serve_moe_kloop`); 0 where the experts do not run that kernel."""
        if not (self.moe_kloop_up_s or self.moe_kloop_down_s) or not self.experts or not self.moe_layers:
            return 0.0
        active = self._read_experts(tokens)
        expert_s = active * self.expert_bytes / self.bytes_per_s
        # gate/up holds 2 of a gated expert's 3 matrices, down 1 (MOE_GATED_UP_SHARE)
        up = max(0.0, self.moe_kloop_up_s - expert_s * MOE_GATED_UP_SHARE)
        down = max(0.0, self.moe_kloop_down_s - expert_s * (1 - MOE_GATED_UP_SHARE))
        return self.moe_layers * (up + down)

    def _touched_experts_stream(self, tokens: int) -> tuple[float, float]:
        """(routed experts a step of ``tokens`` tokens touches in each MoE layer, ``E (1 - (1 - k/E)^n)``; seconds
        their weights take to stream from HBM over all MoE layers): what a measured MoE kernel time is set against.
        Needs ``experts`` > 0."""
        active = self._read_experts(tokens)
        return active, self.moe_layers * active * self.expert_bytes / self.bytes_per_s

    def host_s(self, requests: int) -> float:
        """CPU seconds the engine spends on one step of ``requests`` requests (module docstring)."""
        return self.host_step_s + requests * self.host_request_s


def elementwise_bytes_per_token(spec: ModelSpec, tp: int, expert_parallel: int = 1) -> float:
    """Bytes the elementwise kernels of every layer move per token on one of ``tp`` GPUs (module docstring); under
    expert parallelism a GPU gathers only the routed rows of its own experts, ``1 / expert_parallel`` of them
    (:mod:`gpudesk.sizing.serve_expert_parallel`)."""
    dims = spec.transformer_dims
    head_dim = spec.head_dim_resolved
    q = dims.num_attention_heads * head_dim / tp
    kv = spec.kv_heads_resolved * head_dim / tp
    if spec.moe_experts and spec.moe_active_experts:
        width = (spec.moe_ffn_size or spec.ffn_size or 4 * dims.hidden_size) * (
            spec.moe_active_experts + (spec.moe_shared_experts or 0))
    else:
        width = spec.ffn_size or 4 * dims.hidden_size
    elements = 8 * dims.hidden_size + 2 * (q + kv) + 4 * kv + 3 * width / tp
    routed = 0.0
    if spec.moe_experts and spec.moe_active_experts:
        moe_layers = spec.moe_layers if spec.moe_layers is not None else dims.layers
        # under expert parallelism only the gather reads just the GPU's own pairs; the pairs routed elsewhere still
        # get their hidden-wide output row written (zeros) and read back by the top-k sum (serve_expert_parallel)
        passes = MOE_ROUTED_ROW_PASSES - 1 + 1 / expert_parallel
        routed = moe_layers * passes * spec.moe_active_experts * dims.hidden_size
    return (elements * dims.layers + routed) * ACTIVATION_BYTES


def _compute_format(weight_format: str) -> str:
    """The matmul precision a weight format runs at: FP8 weights on FP8 tensor cores (W8A8), FP4 on FP4 ones;
    integer 4-bit (AWQ/GPTQ, W4A16) and MXFP4 on hardware without FP4 dequantise to 16-bit."""
    fmt = weight_format.lower()
    if fmt in ("fp8", "int8"):
        return "fp8"
    if fmt in ("fp4", "nvfp4"):
        return "fp4"
    return "bf16"


MXFP4_WEIGHT_ONLY_SOURCE = (
    "gpt-oss checkpoints: quantization_config quant_method mxfp4 on the MoE weights only (OpenAI gpt-oss model card, "
    "arXiv 2508.10925); their MoE kernels take 16-bit or MXFP8/FP8 activations (TensorRT-LLM W4A8_MXFP4_MXFP8 / "
    "W4A16_MXFP4, FlashInfer cute_dsl_fused_moe_mxfp8_mxfp4, vLLM mxfp4.py SM100_FI_MXFP4_MXFP8 / _BF16, AITER "
    "a8w4 / a16w4); a block-scaled MMA with an FP8 operand runs at the FP8 rate (ROCm/composable_kernel PR 5388: "
    "\"performance of scale MFMAs is the same when neither A nor B is fp8/bf8\"; NVIDIA tcgen05 kind::f8f6f4 vs "
    "kind::mxf4)")


def mxfp4_matmul_format(spec: ModelSpec) -> str:
    """The matmul rate MXFP4 weights run at on FP4 matrix units: ``fp8`` for a checkpoint whose own format is
    weight-only MXFP4 (gpt-oss: no activation scales, so no engine feeds its MoE GEMMs FP4 activations; the kernels
    take 16-bit or (MX)FP8 activations and a block-scaled MMA with an FP8 operand runs at the FP8 rate,
    :data:`MXFP4_WEIGHT_ONLY_SOURCE`), ``fp4`` for a model quantized to MXFP4 weights and activations (AMD Quark
    W-MXFP4 A-MXFP4 of a 16-bit checkpoint)."""
    return "fp8" if (spec.checkpoint_weight_format or "").lower() == "mxfp4" else "fp4"


def _linear_format(weight_format: str, block_fp8: bool) -> str | None:
    """The kind of GEMM the dense linears run as far as the GEMM library goes: ``bf16`` (16-bit weights, and
    MXFP4 checkpoints whose attention stays 16-bit), ``fp8`` (per-tensor FP8), None for formats with their own
    kernels (block-scaled FP8, AWQ/GPTQ, FP4, int8)."""
    fmt = weight_format.lower()
    if fmt in ("bf16", "fp16", "mxfp4"):
        return "bf16"
    if fmt == "fp8" and not block_fp8:
        return "fp8"
    return None


def _moe_kernel_rate(spec: ModelSpec, load: ServeLoad, gpu: GPU, fmt: str, peak: float, peak_note: str,
                     dense_rate: float, expert_width: int, assumptions: list[Assumption]) -> tuple[float, float]:
    """(routed experts' FLOPs per token per GPU run by a MoE kernel below the dense rate, that rate): the Triton fused
    MoE for 16-bit or per-tensor FP8 experts (:mod:`gpudesk.sizing.serve_triton_moe_rate`), Marlin MoE for 4-bit
    weight-only ones (:mod:`gpudesk.sizing.serve_marlin_moe_rate`); (0, 0) elsewhere. Appends the assumption where
    one applies."""
    if not (spec.moe_experts and spec.moe_active_experts):
        return 0.0, 0.0
    _local, width = local_expert_shape(spec.moe_experts, expert_width, load.tp, load.expert_parallel)
    precision = peak_note.lower()
    name = fmt.lower()
    kernel = "triton"
    if (name in ("bf16", "fp16") and precision == "bf16") or (name == "fp8" and precision == "fp8"):
        share = triton_moe_peak_share(load.engine, gpu.vendor, precision, width)
    elif precision == "bf16" and fp8_marlin_moe(load.engine, load.engine_version, gpu.vendor, name, False):
        # FP8 experts on a GPU without FP8 matrix units (the dense rate fell back to BF16): vLLM's weight-only Marlin
        # MoE (serve_marlin_moe_rate)
        share, kernel = marlin_moe_peak_share(load.engine, gpu.vendor, name, load.engine_version, False), "fp8_marlin"
    elif precision == "bf16":
        share, kernel = marlin_moe_peak_share(load.engine, gpu.vendor, load.weight_format), "marlin"
    else:
        return 0.0, 0.0
    if not share or peak * share >= dense_rate:
        return 0.0, 0.0
    moe_layers = spec.moe_layers if spec.moe_layers is not None else (spec.layers or 0)
    routed = min(1.0, moe_layers * spec.moe_active_experts * spec.expert_params / float(spec.active_params))
    flops = routed * 2.0 * spec.active_params / load.tp
    if kernel == "triton":
        assumptions.append(Assumption("triton_moe_rate", _(
            "the routed experts' grouped GEMMs ({share} of the matmul FLOPs) run in the Triton fused MoE at {rate} "
            "(expert slices {width} wide on each GPU)").format(
            share=format_percent(routed, digits=None), rate=format_flops(peak * share), width=width),
            TRITON_MOE_RATE_SOURCE, raw(share=routed, flops_per_s=peak * share, local_width=width)))
    elif kernel == "fp8_marlin":
        assumptions.append(Assumption("marlin_moe_rate", _(
            "the GPU has no FP8 matrix units: the routed experts' FP8 weights ({share} of the matmul FLOPs) run "
            "weight-only in the Marlin MoE kernel at {rate}, 16-bit math (expert slices {width} wide on each GPU)").format(
            share=format_percent(routed, digits=None), rate=format_flops(peak * share), width=width),
            FP8_MARLIN_MOE_SOURCE, raw(share=routed, flops_per_s=peak * share, local_width=width)))
    else:
        assumptions.append(Assumption("marlin_moe_rate", _(
            "the routed experts' 4-bit matmuls ({share} of the matmul FLOPs) run in the Marlin MoE kernel at {rate} "
            "(expert slices {width} wide on each GPU)").format(
            share=format_percent(routed, digits=None), rate=format_flops(peak * share), width=width),
            MARLIN_MOE_RATE_SOURCE, raw(share=routed, flops_per_s=peak * share, local_width=width)))
    return flops, peak * share


def _quantized_linear_params(spec: ModelSpec) -> float:
    """Parameters of the linears a token passes that a 4-bit weight-only checkpoint stores quantized and runs
    through the dense mixed-input GEMM: the active parameters without the routed experts (a fused-MoE kernel of
    their own) and without the embeddings and LM head (16-bit in these checkpoints,
    :func:`gpudesk.sizing.memory_inference.kept_16bit_params`)."""
    params = float(spec.active_params)
    if spec.moe_experts and spec.moe_active_experts:
        moe_layers = spec.moe_layers if spec.moe_layers is not None else (spec.layers or 0)
        params -= min(params, moe_layers * spec.moe_active_experts * spec.expert_params)
    return max(0.0, params - spec.embedding_params)


def _linear_kernel_rate(spec: ModelSpec, load: ServeLoad, gpu: GPU, peak: float, peak_note: str,
                        dense_rate: float, assumptions: list[Assumption]) -> tuple[float, float]:
    """(FLOPs per token per GPU of the dense linears a 4-bit weight-only Marlin-family kernel runs, its rate):
    :mod:`gpudesk.sizing.serve_marlin_linear_rate`; (0, 0) elsewhere. The routed experts are left out: they run
    the MoE kernel's own rate (:func:`_moe_kernel_rate`). Appends the assumption where it applies."""
    if peak_note.lower() != "bf16" or plain_awq_kernel(load.engine, load.engine_version, gpu.vendor,
                                                       load.weight_format, gpu.compute_capability,
                                                       load.quantization):
        return 0.0, 0.0  # not Marlin: vLLM's plain AWQ kernels (serve_awq_gemm)
    share = marlin_linear_peak_share(load.engine, gpu.vendor, load.weight_format, gpu.compute_capability)
    if not share or peak * share >= dense_rate:
        return 0.0, 0.0
    params = _quantized_linear_params(spec)
    if not params:
        return 0.0, 0.0
    flops = 2.0 * params / load.tp
    assumptions.append(Assumption("marlin_linear_rate", _(
        "the dense linears' 4-bit weight-only matmuls ({share} of the matmul FLOPs) run in a Marlin-family kernel "
        "at {rate}").format(share=format_percent(params / float(spec.active_params), digits=None),
                            rate=format_flops(peak * share)),
        MARLIN_LINEAR_SOURCE, raw(share=params / float(spec.active_params), flops_per_s=peak * share)))
    return flops, peak * share


def eager_decode_assumptions(eager_step_s: float, kernels: int, v0_graph_max_batch: int = 0,
                             graph_max_batch: int = 0, graph_max_context: int = 0) -> list[Assumption]:
    """The assumptions behind the decode steps that leave CUDA graphs, each lasting at least ``eager_step_s`` (the
    CPU time to issue the step's ``kernels`` kernels, serve_eager_prefill): batches above vLLM V0's captured sizes
    before 0.6 (``v0_graph_max_batch``) or else above SGLang's ``cuda_graph_max_bs`` (``graph_max_batch``), and
    steps whose requests hold more context than vLLM V0's ``max_seq_len_to_capture`` (``graph_max_context``); 0: no
    such cap. Written once here so the three sentences share their time and quantities."""
    time = format_duration(eager_step_s)
    out: list[Assumption] = []
    if v0_graph_max_batch:
        out.append(Assumption("eager_decode_above", _(
            "decode batches of more than {requests} requests run without CUDA graphs (vLLM V0 before 0.6 captures "
            "up to {requests}): they last at least {time}").format(requests=v0_graph_max_batch, time=time),
            EAGER_V0_BATCH_SOURCE, raw(requests=v0_graph_max_batch, kernels_per_step=kernels)))
    elif graph_max_batch:
        out.append(Assumption("eager_decode_above", _(
            "decode batches of more than {requests} requests run without CUDA graphs (SGLang's default "
            "cuda_graph_max_bs for this GPU's memory and TP): they last at least {time}").format(
            requests=graph_max_batch, time=time),
            EAGER_DECODE_SOURCE, raw(requests=graph_max_batch, kernels_per_step=kernels)))
    if graph_max_context:
        out.append(Assumption("eager_long_decode", _(
            "decode steps whose requests hold more than {tokens} tokens of context run without CUDA graphs (vLLM "
            "V0's max_seq_len_to_capture): they last at least {time}").format(tokens=graph_max_context, time=time),
            EAGER_LONG_DECODE_SOURCE, raw(tokens=graph_max_context, kernels_per_step=kernels)))
    return out


def step_model(spec: ModelSpec, gpu: GPU, load: ServeLoad, link: Link | None, kv_dtype: str) -> StepModel:
    """The :class:`StepModel` of one replica of ``load`` on ``gpu`` GPUs joined by ``link``.

    Raises:
        SizingError: ``tp > 1`` without a link, or no dense rate for the GPU at the weights' precision.
    """
    tp = load.tp
    if tp > 1 and link is None:
        raise SizingError("link", _("tensor parallelism over {tp} GPUs needs the link between them.").format(tp=tp))
    if load.pp > 1 and link is None:
        raise SizingError("link", _("pipeline parallelism over {pp} stages needs the link between them.").format(
            pp=load.pp))
    fmt = resolve_weight_format(spec, storage_weight_format(load.weight_format))
    dims = spec.transformer_dims
    total_weights = weight_bytes(spec, fmt) / tp
    experts = spec.moe_experts or 0
    moe_layers = (spec.moe_layers if spec.moe_layers is not None else dims.layers) if experts else 0
    bytes_per_param = total_weights * tp / spec.params
    expert_bytes = spec.expert_params * bytes_per_param / tp if experts else 0.0
    dense = total_weights - moe_layers * experts * expert_bytes
    dp_attn = load.attention_dp
    attn_tp = attention_tp(tp, dp_attn)
    if dp_attn > 1:
        # Data-parallel attention: each GPU holds (and reads every step) its attention group's tp / D share of the
        # attention projections, and caches and reads only its group's 1 / D of the requests' KV (module docstring).
        dense += attention_params_per_layer(spec) * dims.layers * bytes_per_param * (1 / attn_tp - 1 / tp)
        # DP ranks of a wide expert-parallel group hold their own dense layers and embeddings (serve_wide_ep)
        dense += group_dense_params(spec, load) * bytes_per_param
    # MLA's down-projections are replicated on every attention-TP rank, not split (serve_dp_attention).
    replicated = replicated_attention_params_per_layer(spec) * dims.layers * bytes_per_param * (1 - 1 / attn_tp)
    dense += replicated
    kv_per_token = kv_token_bytes_all_layers(spec, kv_dtype, attn_tp) / dp_attn
    block_fp8 = fmt.lower() == "fp8" and (spec.checkpoint_weight_format or "").lower() == "fp8"
    block_bytes = max(0.0, dense - spec.embedding_params * ACTIVATION_BYTES / tp) if block_fp8 else 0.0
    ep = load.expert_parallel
    if ep > 1 and not experts:
        raise SizingError("expert_parallel", _("{model} has no experts; expert parallelism needs an MoE model.").format(
            model=spec.name))
    elementwise = elementwise_bytes_per_token(spec, tp, ep)
    heads_per_gpu = dims.num_attention_heads / tp
    # QK^T and PV over each layer's head width (a global layer's own where the model has one: Gemma 4 512 vs 256)
    attention = 4.0 * heads_per_gpu * (spec.local_attention_layers * spec.head_dim_resolved
                                       + spec.global_attention_layers * spec.global_head_dim_resolved)
    prefill_attention = None
    mla = mla_attention(spec, load.engine, load.engine_version)
    if mla is not None:
        # MLA: the absorbed form's widths at decode and at SGLang <= 0.4.5 prompt steps, the multi-head form's at
        # other prompt steps (serve_mla_attention)
        attention_layers = spec.local_attention_layers + spec.global_attention_layers
        prefill_attention = heads_per_gpu * attention_layers * mla.prefill_flops_per_head
        attention = heads_per_gpu * attention_layers * mla.decode_flops_per_head
    compute = _compute_format(load.weight_format if load.weight_format.lower() == "nvfp4" else fmt)
    if fmt.lower() == "mxfp4" and gpu.fp4_dense_tflops:
        compute = mxfp4_matmul_format(spec)  # on FP4 matrix units (MI355X, Blackwell): no dequantisation
    dequant_rate, dequant_source = dequant_weights_per_s(gpu, fmt)
    overlapped, overlap_source = dequant_overlaps_weight_stream(load.engine, gpu, fmt)
    peak, peak_note = compute_peak_flops(gpu, compute)
    mm_eff, mm_source = matmul_efficiency(gpu, peak_note.lower())
    fp4_shares = fp4_matmul_efficiency(gpu, dims.hidden_size) if peak_note.lower() == "fp4" else None
    attention_peak, _note = compute_peak_flops(gpu, "bf16")
    attention_eff, _source = matmul_efficiency(gpu, "bf16")
    hbm_eff, hbm_source = hbm_efficiency(gpu)
    # vLLM before v0.2.6 has no CUDA graphs: every step eager, as with --enforce-eager (serve_eager_prefill)
    captures = load.cuda_graphs and engine_has_graphs(load.engine, version_triple(load.engine_version))
    graphs = captures and not ascend_runs_eager(gpu, load.engine.lower(), load.engine_version)
    if load.engine.lower() == "lmdeploy":  # TurboMind launches its kernels one by one (serve_lmdeploy)
        graphs = graphs and uses_cuda_graphs(load.engine_version, load.backend)
    kernel_s, layer_source = kernel_latency_s(gpu, graphs)
    kernels = kernels_per_step(spec)
    linear = _linear_format(fmt, block_fp8)
    # vLLM V1-default releases that serve this configuration with their V0 engine (serve_vllm_v0.vllm_v0_fallback)
    v0_fallback = vllm_v0_fallback(load.engine, load.engine_version, gpu, load.num_scheduler_steps)
    quant_kernels = activation_quant_kernels(spec, load.engine, engine_version_tuple(load.engine_version), linear,
                                             v0_fallback)
    kernels += quant_kernels
    expert_quant = expert_quant_kernels(spec, load.engine, engine_version_tuple(load.engine_version), fmt, linear,
                                        v0_fallback)
    if fp8_marlin_moe(load.engine, load.engine_version, gpu.vendor, fmt, peak_note.lower() == "fp8"):
        expert_quant = 0  # weight-only Marlin MoE: 16-bit inputs, nothing quantized (serve_marlin_moe_rate)
    kernels += expert_quant
    mla_dequant_kernels, mla_dequant_bytes = rocm_mla_dequant_per_step(spec, load.engine, gpu.vendor, fmt, attn_tp,
                                                                        gpu.architecture)
    kernels += mla_dequant_kernels
    qk_norm_kernels, qk_norm_allreduces = layer_qk_norm_per_layer(spec, attn_tp)
    kernels += qk_norm_kernels * dims.layers
    # SGLang's default fused all-reduce + residual + RMSNorm (serve_allreduce_fusion): the norms leave the floor
    single_node = not (load.gpus_per_node and tp > load.gpus_per_node)
    fused_ar = link is not None and link.kind == "nvlink" and fusion_enabled(
        load.engine, version_triple(load.engine_version),
        spec.hf_architecture or MODEL_TYPE_ARCHITECTURE.get(spec.model_type or ""), gpu.compute_capability, gpu.id,
        tp, single_node, dp_attn, tp > 1 and bool(alltoall_bytes_per_token(spec, load)))
    if fused_ar:
        kernels -= FUSED_NORM_KERNELS_PER_LAYER * dims.layers
    layer_s = kernels * kernel_s / dims.layers
    eager_prefill = captures and prompt_steps_run_eager(
        load.engine, engine_version_tuple(load.engine_version), load.engine_version, load.backend, v0_fallback)
    prefill_launch_s = eager_launch_s(kernels, load.engine) / dims.layers if eager_prefill else 0.0
    graph_max_batch = (sglang_cuda_graph_max_bs(gpu, tp, load.engine_version) or 0) \
        if load.engine.lower() == "sglang" and prefill_launch_s and dp_attn == 1 else 0
    v0_graph_max_batch = vllm_v0_graph_max_batch(load.engine, engine_version_tuple(load.engine_version)) \
        if prefill_launch_s else 0
    graph_max_batch = graph_max_batch or v0_graph_max_batch
    piecewise = attention_runs_piecewise(spec, load.engine, engine_version_tuple(load.engine_version), gpu.vendor,
                                   gpu.architecture, load.rocm_aiter, load.cuda_graphs, load.kv_block_size,
                                   v0_fallback)
    ascend_pieces = ascend_forces_piecewise(gpu, load.engine, load.engine_version, graphs)
    piecewise = piecewise or ascend_pieces
    attention_kernels = piecewise_attention_kernels(spec, piecewise)
    if ascend_pieces:
        # vLLM-Ascend's FIA attention copies its result into the output: one more eager operator per layer
        attention_kernels += dims.layers * ascend_fia_output_copy_kernels(
            gpu, load.engine, load.engine_version, graphs, spec.attention_kind == "mla" and bool(spec.kv_lora_rank))
    ascend_npu = ascend_pieces or (piecewise and eager_kernel_s(gpu) is not None)
    # on an Ascend NPU the eager attention costs the NPU's per-operator figure (serve_ascend_aclgraph)
    attention_launch_s = npu_attention_launch_s(attention_kernels) if ascend_npu \
        else eager_launch_s(attention_kernels, load.engine)
    serial_s = ascend_serial_layer_s(attention_kernels / dims.layers) \
        if piecewise and ascend_syncs_before_pieces(gpu, load.engine, load.engine_version, graphs) else 0.0
    if serial_s:
        attention_launch_s = 0.0  # the eager attention is already counted serially
    graph_max_context = vllm_v0_graph_max_context(load.engine, engine_version_tuple(load.engine_version),
                                                  spec.context_length, v0_fallback) if prefill_launch_s else 0
    net = network_level(parse_internode_network(load.internode_network))
    alpha, alpha_source = allreduce_latency_s(link, gpu, tp, load.gpus_per_node, load.engine,
                                              (net.latency_s, net.source)) if tp > 1 and link is not None \
        else (0.0, "")
    one_shot = one_shot_max_bytes(link, gpu, tp, load.gpus_per_node, load.engine) if tp > 1 and link is not None else 0.0
    link_eff, link_source = link_efficiency(link) if link is not None else (1.0, "")
    staged = host_staged_allreduce(gpu, link, tp) if not (load.gpus_per_node and tp > load.gpus_per_node) else None
    if staged is not None:
        # No PCIe peer-to-peer: NCCL through host memory (gpudesk.sizing.serve_pcie_p2p).
        alpha, alpha_source = staged.latency_s, staged.source
        link_eff, link_source = staged.link_share, staged.source
    link_bw = (link.bandwidth_gbps_per_direction * 1e9 * link_eff) if link is not None else 1.0
    if load.gpus_per_node and tp > load.gpus_per_node:
        # the ring's slowest hop is the network's (TCP sockets: the library's measured share of the wire)
        link_bw = min(link_bw, net.bytes_per_s * (1.0 if net.measured_share else link_eff))
    group_share = 1.0
    if link is not None and not (load.gpus_per_node and tp > load.gpus_per_node):
        group_share = mesh_peer_share(link, tp - 1)  # a mesh gives a group of tp GPUs tp - 1 of its links
    link_bw *= group_share
    curve_link = None
    if link is not None and link.id in MEASURED_ALLREDUCE_BUSBW_GBPS and not (
            load.gpus_per_node and tp > load.gpus_per_node):
        curve_link = link
    host = host_overhead(load.engine.lower(), load.engine_version, load.overlap_scheduling, load.num_scheduler_steps,
                         load.backend)
    gemm_extra, skinny_tokens = library_gemm_extra_s(load.engine, gpu, linear, load.engine_version) if linear \
        else (0.0, 0)
    gemms = dense_gemms_per_step(spec) if gemm_extra else 0
    sglang_library = not gemm_extra and sglang_hipblaslt_applies(load.engine, gpu, linear)
    if sglang_library:
        # SGLang's 16-bit linears: hipBLASLt calls at every step (serve_rocm_hipblaslt).
        gemm_extra, skinny_tokens = SGLANG_HIPBLASLT_EXTRA_S, 0
        gemms = sglang_hipblaslt_gemms(spec, tp, ROCM_COMPUTE_UNITS.get(gpu.id, 0))
    tile_tokens = gemm_tile_tokens(gpu, fmt)
    size_shapes = gemm_size_shapes(load.engine, gpu, linear, spec, tp) if dp_attn == 1 else ()
    assumptions = [
        Assumption("host_overhead_s", _("{step} per step + {request} per running request, {mode}").format(
            step=format_duration(host.step_s), request=format_duration(host.request_s),
            mode=_("overlapped with the GPU") if host.overlap else _("added to the GPU step")), host.source,
            raw(step_s=host.step_s, request_s=host.request_s, overlapped=host.overlap)),
        Assumption("hbm_efficiency", _("{share} of {bandwidth}").format(
            share=format_percent(hbm_eff, digits=None),
            bandwidth=format_rate(gpu.memory_bandwidth_gbps * 1e9, digits=None)), hbm_source,
            raw(share=hbm_eff, bandwidth_bytes_per_s=gpu.memory_bandwidth_gbps * 1e9)),
        Assumption("matmul_efficiency", _("{share} of {peak} {dtype}").format(
            share=format_percent(mm_eff, digits=None), peak=format_flops(peak), dtype=peak_note), mm_source,
            raw(share=mm_eff, peak_flops_per_s=peak))
        if fp4_shares is None else Assumption("matmul_efficiency", _(
            "{decode} of {peak} FP4 for steps of up to {small} tokens, {large} from {big} tokens").format(
            decode=format_percent(fp4_shares[0], digits=None), peak=format_flops(peak), small=FP4_DECODE_TOKENS,
            large=format_percent(fp4_shares[1], digits=None), big=FP4_LARGE_TOKENS), FP4_GEMM_SOURCE,
            raw(decode_share=fp4_shares[0], large_share=fp4_shares[1], peak_flops_per_s=peak)),
        Assumption("kernel_floor_s", _("{time} x {kernels} kernels per step").format(
            time=format_duration(kernel_s), kernels=kernels), layer_source,
            raw(kernel_s=kernel_s, kernels_per_step=kernels)),
        Assumption("gemm_tile_tokens", _("a step of fewer than {tokens} tokens costs the GEMM math of {tokens} "
                                         "tokens").format(tokens=tile_tokens), GEMM_TILE_SOURCE,
                   raw(tokens=tile_tokens)),
    ]
    if prefill_launch_s:
        assumptions.append(Assumption("prefill_launch_s", _(
            "steps with prompt tokens run without CUDA graphs: they last at least the {time} the CPU takes to issue "
            "their {kernels} kernels").format(time=format_duration(prefill_launch_s * dims.layers), kernels=kernels),
            EAGER_PREFILL_SOURCE, raw(kernel_s=launch_s_per_kernel(load.engine), kernels_per_step=kernels)))
    if attention_launch_s:
        assumptions.append(Assumption("piecewise_attention_launch_s", _(
            "vLLM replays piecewise graphs and issues the attention of every layer eagerly: each step lasts at "
            "least the {time} the CPU takes to issue its {kernels} kernels").format(
            time=format_duration(attention_launch_s), kernels=attention_kernels),
            ASCEND_PIECEWISE_SOURCE if ascend_npu else PIECEWISE_SOURCE,
            raw(kernel_s=attention_launch_s / attention_kernels, kernels_per_step=attention_kernels)))
    if serial_s:
        assumptions.append(Assumption("ascend_piecewise_sync_s", _(
            "vLLM-Ascend replays piecewise graphs and stops the NPU before each piece: every step waits {time} on "
            "the host (the stop and the eager issue of the attention's {kernels} kernels, every layer)").format(
            time=format_duration(serial_s * dims.layers), kernels=attention_kernels),
            ASCEND_SYNC_SOURCE, raw(layer_s=serial_s, layers=dims.layers, kernels_per_step=attention_kernels)))
    assumptions += eager_decode_assumptions(prefill_launch_s * dims.layers, kernels, v0_graph_max_batch,
                                            graph_max_batch, graph_max_context)
    if mla is not None and prefill_attention is not None:
        prefill_per_head = prefill_attention / (heads_per_gpu * (spec.local_attention_layers
                                                                 + spec.global_attention_layers))
        assumptions.append(Assumption("mla_attention_flops", _(
            "multi-head latent attention: {decode:.0f} FLOPs per head and context token at decode (absorbed form), "
            "{prefill:.0f} at prompt steps").format(decode=mla.decode_flops_per_head, prefill=prefill_per_head),
            mla.source, raw(decode_flops_per_head=mla.decode_flops_per_head, prefill_flops_per_head=prefill_per_head)))
    block_rate, block_source = block_fp8_dense_stream_bytes_per_s(gpu)
    hbm_rate = gpu.memory_bandwidth_gbps * 1e9 * hbm_eff
    ada_rate = ada_narrow_stream_bytes_per_s(gpu.compute_capability, hbm_rate) \
        if gpu.vendor == BLOCK_FP8_TILES_VENDOR else None
    if ada_rate:
        # Ada: the Triton kernel's CTAs stream at a latency-bound rate (serve_block_fp8_tiles).
        block_rate, block_source = ada_rate, NARROW_STREAM_SOURCE
    # The tile scaling is the NVIDIA kernels' grid (serve_block_fp8_tiles); AMD GPUs keep their measured rate.
    block_shapes = block_fp8_linear_shapes(spec, tp, attn_tp) \
        if block_bytes and gpu.vendor == BLOCK_FP8_TILES_VENDOR else ()
    listed_bytes = sum(n * k for n, k in block_shapes) * dims.layers
    dense_mix = tile_mix(block_shapes, listed_bytes / block_bytes) if block_bytes else ()
    if block_bytes:
        # Each linear streams at the narrow GEMM's measured rate x its output tiles (serve_block_fp8_tiles).
        block_s = block_fp8_stream_s(block_bytes, block_shapes, dims.layers, block_rate, hbm_rate)
        if block_shapes:
            block_rate, block_source = block_bytes / block_s, f"{block_source}; {BLOCK_FP8_TILES_SOURCE}"
    dense_extra = block_bytes * max(0.0, 1 / block_rate - 1 / hbm_rate) if block_bytes else 0.0
    dense_extra += mla_dequant_bytes / hbm_rate
    if mla_dequant_kernels:
        assumptions.append(Assumption("rocm_mla_weight_dequant", _(
            "{kernels} kernels and {gb:.2f} GB per step cast the FP8 MLA up-projection weights to BF16 before "
            "their batched matmuls").format(kernels=mla_dequant_kernels, gb=mla_dequant_bytes / 1e9),
            ROCM_MLA_DEQUANT_SOURCE))
    if block_bytes:
        assumptions.append(Assumption("block_fp8_weight_stream", _(
            "{gb:.2f} GB of block-FP8 dense weights per GPU read at {share} of the memory bandwidth").format(
            gb=block_bytes / 1e9, share=format_percent(block_rate / (gpu.memory_bandwidth_gbps * 1e9), digits=None)),
            block_source, raw(bytes_per_gpu=block_bytes, bytes_per_s=block_rate)))
    if size_shapes:
        assumptions.append(Assumption("gemm_size_rate", _(
            "dense FP8 GEMMs at 955 TFLOPS at 4096^3 FLOPs, slower below it as measured GEMMs of serving shapes "
            "are, rising to the full rate at 8192^3 (measured rate by size)"),
            GEMM_SIZE_SOURCE + "; " + SMALL_SIZE_SOURCE))
    if gemms and sglang_library:
        assumptions.append(Assumption("library_gemm_s", _(
            "{gemms} dense 16-bit GEMMs per step through hipBLASLt at every step, {time} each beyond a skinny "
            "kernel").format(gemms=gemms, time=format_duration(gemm_extra)),
            SGLANG_HIPBLASLT_SOURCE, raw(gemms_per_step=gemms, extra_s=gemm_extra, above_tokens=0)))
    elif gemms:
        assumptions.append(Assumption("library_gemm_s", _(
            "{gemms} dense GEMMs per step through the vendor library, {time} each beyond the roofline, above "
            "{tokens} token(s) per step").format(gemms=gemms, time=format_duration(gemm_extra), tokens=skinny_tokens),
            HIPBLASLT_SOURCE, raw(gemms_per_step=gemms, extra_s=gemm_extra, above_tokens=skinny_tokens)))
    slow_share, slow_routed, slow_source = block_fp8_triton_flops_share(spec, load.engine, load.engine_version, gpu) \
        if block_fp8 else (0.0, 0.0, "")
    slow_flops = slow_share * 2.0 * spec.active_params / tp
    slow_expert_flops = slow_routed * 2.0 * spec.active_params / tp
    slow_peak = peak
    if slow_flops and peak * BLOCK_FP8_TRITON_PEAK_SHARE < peak * mm_eff:
        assumptions.append(Assumption("block_fp8_triton_gemm", _(
            "{share} of the matmul FLOPs run by block-FP8 Triton kernels at {peak}").format(
            share=format_percent(slow_share, digits=None), peak=format_flops(peak * BLOCK_FP8_TRITON_PEAK_SHARE)),
            slow_source, raw(share=slow_share, flops_per_s=peak * BLOCK_FP8_TRITON_PEAK_SHARE)))
    else:
        slow_flops, slow_expert_flops, slow_peak = 0.0, 0.0, 0.0
    expert_width = spec.moe_ffn_size or spec.ffn_size or 0
    moe_tiles: MoeTiles | None = None
    if slow_expert_flops and experts:
        local_experts, local_width = local_expert_shape(experts, expert_width or dims.hidden_size, tp, ep)
        tuned = tuned_block_fp8_config(local_experts, local_width)
        moe_tiles = fused_moe_tiles(load.engine, load.engine_version, tuned)
        assumptions.append(Assumption("fused_moe_tile_rows", _(
            "each active expert computes whole tiles of {small} rows up to {tokens} tokens per step, of {large} "
            "rows above").format(small=moe_tiles.small_rows, tokens=moe_tiles.small_up_to_tokens,
                                 large=moe_tiles.large_rows), MOE_TILE_SOURCE))
        if not tuned:
            assumptions.append(Assumption("fused_moe_default_config", _(
                "no tuned fused-MoE configuration ships for the GPU's expert shape E={experts}, N={width} (block "
                "FP8): the engine runs its default tiles").format(experts=local_experts, width=local_width),
                MOE_CONFIG_SOURCE, raw(local_experts=local_experts, local_width=local_width)))
    moe_kernel_flops, moe_kernel_rate = 0.0, 0.0
    if experts and not slow_expert_flops:
        moe_kernel_flops, moe_kernel_rate = _moe_kernel_rate(spec, load, gpu, fmt, peak, peak_note, peak * mm_eff,
                                                             expert_width or dims.hidden_size, assumptions)
    linear_kernel_flops, linear_kernel_rate = _linear_kernel_rate(spec, load, gpu, peak, peak_note, peak * mm_eff,
                                                                  assumptions)
    reconstruct_bytes = 0.0
    reconstruct_above = GPTQ_GEMM_MAX_FUSED_ROWS
    if plain_awq_kernel(load.engine, load.engine_version, gpu.vendor, load.weight_format, gpu.compute_capability,
                        load.quantization):
        linear_params = _quantized_linear_params(spec)
        linear_bytes = linear_params * weight_bits_per_param(fmt) / 8 / tp
        stream_share = plain_awq_stream_share(gpu.compute_capability)
        if stream_share and linear_bytes:
            # awq_gemm streams the 4-bit linears below the modelled HBM rate (serve_awq_gemm: RTX 4090)
            awq_rate = gpu.memory_bandwidth_gbps * 1e9 * stream_share
            dense_extra += linear_bytes * max(0.0, 1 / awq_rate - 1 / hbm_rate)
        if plain_awq_dequantizes(load.engine_version):
            reconstruct_bytes = linear_params * AWQ_DEQUANT_BYTES_PER_WEIGHT / tp
            reconstruct_above = AWQ_DEQUANT_ABOVE_TOKENS
        share_text = format_percent(stream_share or hbm_eff, digits=None)
        text = _("vLLM runs the AWQ linears through its plain AWQ kernels, not Marlin: steps of more than {rows} "
                 "tokens first write and read back the 16-bit weights ({gb} GB per GPU); smaller steps stream the "
                 "4-bit weights at {share} of the datasheet bandwidth").format(
            rows=AWQ_DEQUANT_ABOVE_TOKENS, gb=f"{reconstruct_bytes / 1e9:.3g}", share=share_text) \
            if reconstruct_bytes else _("vLLM runs the AWQ linears through its plain AWQ kernels, not Marlin: the "
                                        "4-bit weights stream at {share} of the datasheet bandwidth").format(
            share=share_text)
        assumptions.append(Assumption("plain_awq_kernel", text, PLAIN_AWQ_SOURCE, raw(
            dequant_bytes=reconstruct_bytes, above_tokens=reconstruct_above, stream_share=stream_share or hbm_eff)))
    elif rocm_gptq_reconstructs(load.engine, gpu.vendor, load.weight_format):
        linear_params = _quantized_linear_params(spec)
        reconstruct_bytes = linear_params * RECONSTRUCT_BYTES_PER_WEIGHT / tp
        if reconstruct_bytes:
            assumptions.append(Assumption("rocm_gptq_reconstruct", _(
                "steps of more than {rows} tokens rebuild the 16-bit linear weights first ({gb} GB written and read "
                "back per GPU)").format(rows=GPTQ_GEMM_MAX_FUSED_ROWS, gb=f"{reconstruct_bytes / 1e9:.3g}"),
                ROCM_GPTQ_SOURCE, raw(bytes=reconstruct_bytes, above_tokens=GPTQ_GEMM_MAX_FUSED_ROWS)))
    small_m_bytes = 0.0
    if fp8_small_m_applies(load.engine, load.engine_version, load.backend, gpu.vendor, gpu.compute_capability,
                           linear):
        # per-tensor FP8 linears through cuBLASLt at steps of a few tokens: the time of their 16-bit bytes
        # (serve_fp8_small_m): the FP8 read is counted, as many bytes again are added
        small_m_bytes = _quantized_linear_params(spec) * weight_bits_per_param(fmt) / 8 / tp
        if small_m_bytes:
            assumptions.append(Assumption("fp8_small_m_gemm", _(
                "steps of at most {rows} tokens run the FP8 linears as tensor-core library GEMMs no faster than "
                "16-bit ones: {gb} GB more per GPU read time").format(
                rows=SMALL_M_MAX_TOKENS, gb=f"{small_m_bytes / 1e9:.3g}"), FP8_SMALL_M_SOURCE,
                raw(extra_bytes=small_m_bytes, max_tokens=SMALL_M_MAX_TOKENS)))
    marlin_s = narrow_expert_block_s(load.engine, gpu, load.weight_format, dims.hidden_size, expert_width, tp, experts)
    if marlin_s:
        assumptions.append(Assumption("marlin_moe_expert_s", _(
            "{time} per active routed expert and MoE layer while the expert blocks fit one 16-row block (Marlin "
            "MoE on a narrow tensor-parallel expert slice)").format(time=format_duration(marlin_s)), MARLIN_MOE_SOURCE,
            raw(expert_s=marlin_s)))
    rocm_int4 = rocm_int4_moe_applies(load.engine, gpu, load.weight_format, dims.hidden_size, expert_width, experts)
    if rocm_int4:
        assumptions.append(Assumption("rocm_int4_moe_layer_s", _(
            "routed experts through the untuned Triton int4 fused MoE: {decode} per MoE layer at 1 token, "
            "{prefill} from 128 to 2048 tokens").format(
            decode=format_duration(triton_int4_moe_layer_s(1)), prefill=format_duration(triton_int4_moe_layer_s(128))),
            ROCM_INT4_MOE_SOURCE, raw(layer_s_at_1_token=triton_int4_moe_layer_s(1),
                                      layer_s_at_128_tokens=triton_int4_moe_layer_s(128))))
    kloop_up = kloop_down = 0.0
    if experts and kloop_applies(load.engine, gpu, fmt, block_fp8) and not (marlin_s or rocm_int4):
        moe_tp = max(1, tp // max(1, ep))
        kloop_up = kloop_chain_s(dims.hidden_size, bytes_per_param)
        kloop_down = kloop_chain_s(max(1, (expert_width or dims.hidden_size) // moe_tp), bytes_per_param)
        assumptions.append(Assumption("fused_moe_k_loop_s", _(
            "each routed-expert grouped GEMM lasts at least one program's serial K loop: {up} (gate/up) and {down} "
            "(down) per MoE layer").format(up=format_duration(kloop_up), down=format_duration(kloop_down)),
            KLOOP_SOURCE + "; " + HBM_LATENCY_SOURCE, raw(up_s=kloop_up, down_s=kloop_down)))
    aiter_points = aiter_moe_points(load.engine, load.rocm_aiter, gpu, ROCM_COMPUTE_UNITS.get(gpu.id, 0),
                                    load.weight_format, dims.hidden_size, expert_width, experts,
                                    spec.moe_active_experts or 0, tp, ep)
    if aiter_points:
        assumptions.append(aiter_moe_assumption(aiter_points))
    if qk_norm_allreduces:
        assumptions.append(layer_qk_norm_assumption(qk_norm_allreduces, qk_norm_kernels, attn_tp))
    if expert_quant:
        assumptions.append(Assumption("expert_quant_kernels", _(
            "{kernels} FP8 quantization kernels per step inside the fused MoE (two per MoE layer), each at the kernel "
            "floor").format(kernels=expert_quant), EXPERT_QUANT_SOURCE, raw(kernels_per_step=expert_quant)))
    if quant_kernels:
        assumptions.append(Assumption("activation_quant_kernels", _(
            "{kernels} FP8 activation-quantization kernels per step, each at the kernel floor").format(
            kernels=quant_kernels), ACTIVATION_QUANT_SOURCE))
    if dequant_rate:
        assumptions.append(Assumption("dequant_weights_per_s", _("{rate} trillion weights per second").format(
            rate=f"{dequant_rate / 1e12:.3g}"), dequant_source, raw(weights_per_s=dequant_rate)))
        assumptions.append(Assumption(
            "dequant_overlap", _("overlapped with the weight loads") if overlapped else _("added to the weight loads"),
            overlap_source or dequant_source))
    if replicated:
        assumptions.append(Assumption("replicated_mla_projections", _(
            "{gb:.2f} GB of MLA down-projection weights per GPU held whole on every tensor-parallel rank and read "
            "every step").format(gb=replicated * attn_tp / max(1, attn_tp - 1) / 1e9), REPLICATED_MLA_SOURCE))
    if dp_attn > 1:
        assumptions.append(Assumption("attention_dp", _(
            "attention in {groups} data-parallel groups of {gpus} GPU(s): {gb:.2f} GB more attention weights per GPU "
            "read every step, 1/{groups} of the KV cache read per GPU").format(
            groups=dp_attn, gpus=attn_tp,
            gb=attention_params_per_layer(spec) * dims.layers * bytes_per_param * (1 / attn_tp - 1 / tp) / 1e9),
            DP_ATTENTION_SOURCE))
    # expert parallelism across DP ranks: an all-to-all per MoE layer replaces the MLP's gather + scatter; the
    # attention keeps one all-reduce per layer inside a rank of several GPUs (serve_wide_ep)
    wide_a2a = alltoall_bytes_per_token(spec, load) if tp > 1 else 0.0
    all_to_all_only = bool(wide_a2a) and attn_tp == 1  # no all-reduce left in the step
    if tp > 1 and link is not None and not all_to_all_only:
        assumptions.append(Assumption("tp_allreduce", _(
            "2 per layer over {link} ({bandwidth} per direction x {efficiency}), {latency} latency each").format(
            link=link.name, bandwidth=format_rate(link.bandwidth_gbps_per_direction * group_share * 1e9, digits=None),
            efficiency=format_percent(link_eff, digits=None), latency=format_duration(alpha)),
            "; ".join(dict.fromkeys(("Megatron-LM arXiv 1909.08053 section 3", alpha_source, link_source)))
            + (f"; {MESH_SOURCE}" if group_share < 1 else "")
            + (f"; {ENGINE_ALLREDUCE_SOURCE}; {AZURE_GUIDE}" if curve_link is not None else "")
            + (f"; {ONE_SHOT_SOURCE}" if one_shot else ""),
            raw(per_layer=2, bytes_per_s_per_direction=link.bandwidth_gbps_per_direction * group_share * 1e9,
                link_efficiency=link_eff, latency_s=alpha)))
    if tp > 1 and link is not None and load.gpus_per_node and tp > load.gpus_per_node:
        assumptions.append(Assumption("tp_allreduce_network", _(
            "the group spans {nodes} nodes of {per_node} GPUs: its messages cross the network ({transport}) at "
            "{bandwidth}, {level} per network level").format(
            nodes=-(-tp // load.gpus_per_node), per_node=load.gpus_per_node,
            transport=_("TCP sockets, no RDMA") if net.measured_share else _("RDMA"),
            bandwidth=format_rate(link_bw, digits=None), level=format_duration(net.latency_s)), net.source,
            raw(network_bytes_per_s=link_bw, network_level_s=net.latency_s)))
    ar_curve = rocm_allreduce_curve(load.engine, link, tp, load.gpus_per_node) if dp_attn == 1 else ()
    # a TP group of NVIDIA GPUs on NVLink inside one node (no staged all-reduce)
    nvlink_group = (tp > 1 and link is not None and gpu.vendor == "NVIDIA" and link.kind == "nvlink" and staged is None
                    and not (load.gpus_per_node and tp > load.gpus_per_node))
    nvlink_curve = nvlink_allreduce_curve(tp) if nvlink_group and load.engine.lower() == "vllm" else ()
    # Inside a model step every all-reduce also waits for the slowest rank (serve_nvlink_allreduce): NVLink groups
    # of NVIDIA GPUs in one node, where the measured one-shot times come from a loop on idle GPUs.
    skew = rank_skew_s(tp) if nvlink_group and not all_to_all_only else 0.0
    if fused_ar:
        assumptions.append(Assumption("sglang_allreduce_fusion", _(
            "each all-reduce of a step of up to {tokens} tokens runs fused with the residual add and RMSNorm: {time} "
            "per call, the slowest GPU's wait included").format(tokens=FUSED_MAX_TOKENS,
                                                                 time=format_duration(FUSED_ALLREDUCE_S)),
            FUSION_SOURCE))
    if skew:
        assumptions.append(Assumption("tp_allreduce_skew", _(
            "each all-reduce waits {wait} for the slowest of {tp} GPUs").format(wait=format_duration(skew), tp=tp),
            RANK_SKEW_SOURCE))
    kv_heads = spec.kv_heads_resolved
    unsplit_workgroups = 0.0
    if uses_unsplit_decode(load.engine, gpu.id, gpu.vendor, load.rocm_aiter, spec.head_dim_resolved,
                           max(1, dims.num_attention_heads // max(1, kv_heads)), load.kv_block_size,
                           load.input_tokens + load.output_tokens, gpu.architecture,
                           version_triple(load.engine_version)):
        unsplit_workgroups = max(1.0, kv_heads / attn_tp)
        assumptions.append(Assumption("rocm_decode_attention", unsplit_note(
            unsplit_workgroups, ROCM_COMPUTE_UNITS[gpu.id], load.kv_block_size), ROCM_ATTENTION_SOURCE))
    if nvlink_curve and not all_to_all_only:
        assumptions.append(Assumption("tp_allreduce_measured", _(
            "all-reduces up to {mib:g} MiB take the engine kernel's time measured per message size on this "
            "link").format(mib=nvlink_curve[-1][0] / 2**20), NVLINK_ALLREDUCE_SOURCE))
    if ar_curve:
        assumptions.append(Assumption("tp_allreduce_measured", _(
            "all-reduces up to {mib:g} MiB take the engine kernel's time measured per message size on this "
            "link").format(mib=ENGINE_ALLREDUCE_MAX_BYTES / 2**20), ROCM_ALLREDUCE_SOURCE))
    if wide_a2a:
        assumptions.append(Assumption("expert_alltoall", _(
            "expert parallelism across {ranks} data-parallel ranks: each MoE layer dispatches every token to the "
            "GPUs holding its experts and combines the results back, {kib:.1f} KiB sent per GPU and token of the "
            "step; every rank steps in lockstep with the others").format(
            ranks=dp_attn, kib=wide_a2a / 1024), ALLTOALL_SOURCE + "; " + WIDE_EP_SOURCE,
            raw(bytes_per_token=wide_a2a, ranks=dp_attn)))
    model = StepModel(
        layers=dims.layers, hidden_size=dims.hidden_size, tp=tp, dense_weight_bytes=dense, expert_bytes=expert_bytes,
        moe_layers=moe_layers, experts=experts, active_experts=spec.moe_active_experts or 0,
        kv_bytes_per_token=kv_per_token, elementwise_bytes_per_token=elementwise, flops_per_token=2.0 * spec.active_params / tp,
        attention_flops_per_context_token=attention, prefill_attention_flops_per_context_token=prefill_attention,
        bytes_per_s=gpu.memory_bandwidth_gbps * 1e9 * hbm_eff,
        flops_per_s=peak * mm_eff, attention_flops_per_s=attention_peak * attention_eff, layer_latency_s=layer_s,
        prefill_launch_layer_s=prefill_launch_s, eager_decode_above_requests=graph_max_batch,
        eager_decode_above_context_tokens=graph_max_context,
        attention_launch_layer_s=attention_launch_s / dims.layers, serial_layer_s=serial_s,
        allreduce_alpha_s=alpha, link_bytes_per_s=link_bw,
        assumptions=tuple(assumptions), host_step_s=host.step_s, host_request_s=host.request_s,
        host_overlap=host.overlap, weight_bytes_per_element=bytes_per_param, dequant_weights_per_s=dequant_rate,
        dequant_overlapped=overlapped and bool(dequant_rate),
        link=curve_link, dense_stream_extra_s=dense_extra, library_gemm_s=gemms * gemm_extra,
        skinny_max_tokens=skinny_tokens, small_m_extra_bytes=small_m_bytes,
        small_m_max_tokens=SMALL_M_MAX_TOKENS if small_m_bytes else 0, one_shot_max_bytes=one_shot,
        gemm_tile_tokens=tile_tokens,
        gemm_peak_flops_per_s=peak if fp4_shares else 0.0, gemm_decode_share=fp4_shares[0] if fp4_shares else 0.0,
        gemm_large_share=fp4_shares[1] if fp4_shares else 0.0, slow_flops_per_token=slow_flops,
        slow_expert_flops_per_token=slow_expert_flops, slow_peak_flops_per_s=slow_peak,
        dense_tile_mix=dense_mix,
        expert_rows_per_token=(spec.moe_active_experts or 0) / experts if experts else 0.0,
        allreduces_per_layer=(1 if attn_tp > 1 else 0) if wide_a2a else 2 if attn_tp > 1 else 1,
        alltoall_bytes_per_token=wide_a2a, alltoall_layer_share=moe_layers / dims.layers if wide_a2a else 0.0,
        moe_tiles=moe_tiles,
        allreduce_curve=ar_curve, allreduce_skew_s=skew,
        fused_allreduce_s=FUSED_ALLREDUCE_S if fused_ar else 0.0,
        fused_allreduce_max_tokens=FUSED_MAX_TOKENS if fused_ar else 0, nvlink_curve=nvlink_curve, decode_workgroups_per_request=unsplit_workgroups,
        compute_units=ROCM_COMPUTE_UNITS.get(gpu.id, 0) if unsplit_workgroups else 0,
        size_curve_shapes=size_shapes, marlin_expert_s=marlin_s, rocm_int4_moe=rocm_int4, expert_parallel=ep,
        aiter_moe_points=aiter_points, aiter_moe_floor_s=AITER_MOE_FLOOR_KERNELS * kernel_s if aiter_points else 0.0,
        norm_allreduces_per_layer=qk_norm_allreduces, moe_kloop_up_s=kloop_up, moe_kloop_down_s=kloop_down,
        moe_kernel_flops_per_token=moe_kernel_flops, moe_kernel_flops_per_s=moe_kernel_rate,
        linear_kernel_flops_per_token=linear_kernel_flops, linear_kernel_flops_per_s=linear_kernel_rate,
        reconstruct_bytes=reconstruct_bytes, reconstruct_above_tokens=reconstruct_above)
    if load.pp == 1 or link is None:
        return model
    # vLLM V1 keeps pp batches in flight, but only 2 with asynchronous scheduling (its overlap of host and GPU).
    in_flight = min(load.pp, VLLM_ASYNC_BATCHES) if load.engine.lower() == "vllm" and host.overlap else load.pp
    return pipeline_stage(model, load.pp, link, gpu, load.gpus_per_node, in_flight,
                          network_level(parse_internode_network(load.internode_network)))


VLLM_ASYNC_BATCHES = 2
PIPELINE_SOURCE = ("TensorRT-LLM PyTorch executor: num_micro_batches = pp_size (tensorrt_llm/_torch/pyexecutor/"
                   "py_executor.py, https://github.com/NVIDIA/TensorRT-LLM); vLLM V1 max_concurrent_batches = "
                   "pipeline_parallel_size, 2 with async scheduling (vllm/v1/executor/multiproc_executor.py, https://github.com/"
                   "vllm-project/vllm); Narayanan et al. 2021, arXiv 2104.04473 (stage partition, point-to-point "
                   "activation sends)")


def pipeline_stage(model: StepModel, pp: int, link: Link, gpu: GPU, gpus_per_node: int | None,
                   micro_batches: int | None = None, network: NetworkLevel | None = None) -> StepModel:
    """``model`` (a whole replica's figures per GPU) as the fullest of ``pp`` pipeline stages: ``ceil(L / pp)`` of
    its ``L`` layers, their weights, KV cache, elementwise traffic and FLOPs, and the activation send to the next
    stage over ``link`` (one hop of the measured library latency, the link's bandwidth; the NIC across nodes), with
    ``micro_batches`` (default ``pp``) in flight."""
    micro = max(1, min(pp, micro_batches or pp))
    layers = -(-model.layers // pp)
    share = layers / model.layers
    key = "amd" if gpu.vendor == "AMD" else "nvidia"
    link_eff, _source = link_efficiency(link)
    bandwidth = link.bandwidth_gbps_per_direction * 1e9 * link_eff * mesh_peer_share(link, 1)  # one peer, one link
    alpha = RING_HOP_S[key]
    if gpus_per_node and model.tp * pp > gpus_per_node:
        net = network or network_level(None)
        bandwidth = min(bandwidth, net.bytes_per_s * (1.0 if net.measured_share else link_eff))
        alpha = net.latency_s
    assumption = Assumption("pipeline_parallel", _(
        "{pp} stages of up to {layers} layers; {micro} micro-batches in flight; each step of a request passes "
        "every stage and {hops} activation send(s) of {latency} + bytes at {bandwidth}").format(
        pp=pp, layers=layers, micro=micro, hops=pp - 1, latency=format_duration(alpha),
        bandwidth=format_rate(bandwidth, digits=None)), PIPELINE_SOURCE,
        raw(stages=pp, layers_per_stage=layers, micro_batches=micro, send_latency_s=alpha, send_bytes_per_s=bandwidth))
    return dataclasses.replace(
        model, layers=layers, pp=pp, pp_micro_batches=micro, dense_weight_bytes=model.dense_weight_bytes * share,
        expert_bytes=model.expert_bytes * share, kv_bytes_per_token=model.kv_bytes_per_token * share,
        elementwise_bytes_per_token=model.elementwise_bytes_per_token * share,
        flops_per_token=model.flops_per_token * share, slow_flops_per_token=model.slow_flops_per_token * share,
        slow_expert_flops_per_token=model.slow_expert_flops_per_token * share,
        moe_kernel_flops_per_token=model.moe_kernel_flops_per_token * share,
        linear_kernel_flops_per_token=model.linear_kernel_flops_per_token * share,
        reconstruct_bytes=model.reconstruct_bytes * share,
        attention_flops_per_context_token=model.attention_flops_per_context_token * share,
        prefill_attention_flops_per_context_token=None if model.prefill_attention_flops_per_context_token is None
        else model.prefill_attention_flops_per_context_token * share,
        dense_stream_extra_s=model.dense_stream_extra_s * share, library_gemm_s=model.library_gemm_s * share,
        small_m_extra_bytes=model.small_m_extra_bytes * share,
        moe_kloop_up_s=model.moe_kloop_up_s * share, moe_kloop_down_s=model.moe_kloop_down_s * share,
        p2p_alpha_s=alpha, p2p_bytes_per_s=bandwidth, assumptions=model.assumptions + (assumption,))

