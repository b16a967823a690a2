"""The rates a serving step runs at on one GPU and link, each from the catalog or a cited measurement.

- Matmul efficiency: the catalog's ``matmul_efficiency`` (measured maximum achievable matmul FLOPS / datasheet
  peak, Stas Bekman, ML Engineering, compute/accelerator "Maximum Achievable Matmul FLOPS"); where the catalog
  has none, the vendor's lowest measured figure of that table (NVIDIA 0.75, :data:`gpudesk.sizing.time.
  DEFAULT_MATMUL_EFFICIENCY`; AMD 0.514, MI300X; Intel 0.677, Gaudi 3).
- HBM efficiency: the share of the datasheet bandwidth a memory-bound kernel streams, measured per GPU where
  published, else per vendor (module constants below).
- Per-layer latency: the fixed time of one decoder layer's kernels whatever the batch.
- All-reduce latency (alpha): the fixed time of one small all-reduce on the link; above the engines' one-shot
  kernel limit (8 MiB) the collective library's measured bus bandwidth at the message's size.
"""

from __future__ import annotations

import math

from gpudesk.catalog.records import GPU, Link
from gpudesk.i18n import _
from gpudesk.sizing.engine_version import version_triple
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.serve_rocm_fp8_skinny import fp8_skinny_available
from gpudesk.sizing.serve_vllm_ascend import EAGER_SOURCE, eager_kernel_s
from gpudesk.sizing.shapes import ModelSpec
from gpudesk.sizing.time import DEFAULT_LINK_EFFICIENCY, DEFAULT_MATMUL_EFFICIENCY
from gpudesk.units import MIB

MAMF_SOURCE = ("Stas Bekman, ML Engineering, compute/accelerator, Maximum Achievable Matmul FLOPS table "
               "(https://github.com/stas00/ml-engineering/tree/master/compute/accelerator)")
AZURE_GUIDE = ("Azure AI benchmarking guide, measured tables ND H100 v5 / ND MI300X v5 "
               "(https://github.com/samuel-bohman/AI-benchmarking-guide/tree/main/Azure_Results)")
# Vendor fallbacks: the lowest measured BF16 MAMF / peak of each vendor in the table above.
VENDOR_MATMUL_EFFICIENCY = {"NVIDIA": DEFAULT_MATMUL_EFFICIENCY, "AMD": 0.514, "Intel": 0.677}
# FP8 GEMMs reach a smaller share of the (twice as high) FP8 peak: largest measured cuBLASLt / hipBLASLt FP8 GEMM
# over the datasheet FP8 peak, H100 SXM 1382.2 / 1978.9 TFLOPS, MI300X 1159.5 / 2614.9 TFLOPS (AZURE_GUIDE).
VENDOR_FP8_MATMUL_EFFICIENCY = {"NVIDIA": 1382.2 / 1978.9, "AMD": 1159.5 / 2614.9}
# The BF16 MAMF / peak of those two GPUs (MAMF_SOURCE: H100 SXM 794.5 of 989, MI300X 668.4 of 1300 TFLOPS).
FP8_REFERENCE_BF16_EFFICIENCY = {"NVIDIA": 794.5 / 989.0, "AMD": 668.4 / 1300.0}
# STREAM copy over the datasheet bandwidth: H100 SXM 2.90 / 3.35 TB/s, MI300X 4.11 / 5.3 TB/s (AZURE_GUIDE).
VENDOR_HBM_EFFICIENCY = {"NVIDIA": 2.90 / 3.35, "AMD": 4.11 / 5.3}
# The GPUs with their own measured STREAM copy (TB/s; AZURE_GUIDE: ND A100 v4 with A100-SXM4-80GB, ND H100 v5,
# ND H200 v5, ND MI300X v5): each streams a different share of its datasheet figure (A100 0.79, H100 0.87,
# H200 0.84), so the vendor's share applies only to the GPUs not measured.
MEASURED_STREAM_COPY_TBPS = {"a100-80-sxm4": 1.61, "h100-sxm5": 2.90, "h200-sxm": 4.01, "mi300x": 4.11}
# A kernel replayed from a CUDA graph costs about 3.4 us even when it does almost nothing, 3.8 us when launched
# from a stream without synchronisation (NVIDIA developer blog "Getting Started with CUDA Graphs", 2019,
# https://developer.nvidia.com/blog/cuda-graphs/); a PyTorch eager op adds its CPU dispatch (~10 us).
SMALL_KERNEL_GRAPH_S = 3.4e-6
SMALL_KERNEL_EAGER_S = 10e-6
# Kernels one decoder layer launches per step, counted from vLLM's model code (the GEMMs included: at a small batch
# on a TP slice a GEMM reads a few MB and lasts no longer than its launch floor, which the roofline alone misses).
# - Attention block of a Llama-style layer (vllm/model_executor/models/llama.py LlamaAttention): fused residual add +
#   RMSNorm, QKV GEMM, rotary embedding, KV-cache write (reshape_and_cache), attention, O GEMM: 6.
# - Multi-head latent attention (vllm/model_executor/models/deepseek_v2.py DeepseekV2MLAAttention, absorbed decode):
#   fused add + RMSNorm, fused q_a/kv_a GEMM, q_a RMSNorm, kv_a RMSNorm, q_b GEMM, W_UK batched GEMM, rotary, KV-cache
#   write, MLA attention, W_UV batched GEMM, O GEMM: 11.
# - Dense MLP (LlamaMLP): fused add + RMSNorm, gate_up GEMM, SiLU x mul, down GEMM: 4.
# - Routed MoE (vllm/model_executor/layers/fused_moe/fused_moe.py): fused add + RMSNorm, router GEMM, top-k
#   softmax, moe_align_block_size, grouped GEMM 1, activation, grouped GEMM 2, moe_sum: 8; shared experts add their
#   MLP's gate_up GEMM, activation and down GEMM: 3.
ATTENTION_KERNELS = 6
MLA_KERNELS = 11
DENSE_MLP_KERNELS = 4
MOE_KERNELS = 8
SHARED_EXPERT_KERNELS = 3
KERNEL_COUNT_SOURCE = ("vllm/model_executor/models/llama.py, deepseek_v2.py, layers/fused_moe/fused_moe.py "
                       "(https://github.com/vllm-project/vllm)")
# Small-message all-reduce latency. Engines on NVLink use their own one-shot kernel (vLLM custom_all_reduce,
# TensorRT-LLM customAllReduceKernels): 9.5 / 9.1 / 10.1 us at TP 2 / 4 / 8 for 512 bytes on H100 (vLLM kernel,
# measured in sgl-project/sglang PR 2904, https://github.com/sgl-project/sglang/pull/2904). Elsewhere the library's
# ring: nccl-tests / rccl-tests all-reduce of 1 KB over 8 GPUs, bus bandwidth 0.07 GB/s on H100 NVLink and 0.04 GB/s
# on MI300X Infinity Fabric (AZURE_GUIDE), i.e. 1024 x 2 x 7/8 / busbw = 25.6 us and 44.8 us, 1.83 and 3.2 us per
# ring hop (2 (n-1) = 14 hops). On Infinity Fabric vLLM's ROCm one-shot kernel (enabled on MI300-series full xGMI
# meshes) measures 6.3 us for 24 KB at TP 8 on MI355X (vllm-project/vllm PR 39080); no MI300X figure was found, so
# that one is used for every AMD board.
CUSTOM_ALLREDUCE_S = {2: 9.5e-6, 4: 9.1e-6, 8: 10.1e-6}
CUSTOM_ALLREDUCE_SOURCE = "vLLM one-shot custom all-reduce on H100, 512 B: sgl-project/sglang PR 2904"
AMD_CUSTOM_ALLREDUCE_S = 6.3e-6
AMD_CUSTOM_ALLREDUCE_SOURCE = "vLLM ROCm one-shot all-reduce, 24 KB at TP 8 on MI355X: vllm-project/vllm PR 39080"
# One-shot or two-shot: the engines' custom all-reduce reads every peer's whole buffer in one stage (one-shot: each
# rank pulls (n - 1) x S bytes over its links) while the buffer is small, and switches to a reduce-scatter plus an
# all-gather (two-shot: 2 (n - 1) / n x S, the ring's volume) above a size that falls with the group: always one-shot
# at 2 GPUs, below 512 KiB at up to 4 GPUs, below 256 KiB at up to 8 (vLLM csrc/custom_all_reduce.cuh
# CustomAllreduce::allreduce, the REDUCE_CASE switch between cross_device_reduce_1stage and
# cross_device_reduce_2stage; SGLang's copy of the kernel has the same switch). At TP 8 a 70B decode step of 15
# tokens all-reduces 240 KiB one-shot: 1.7 MB read per rank, four times the ring's 0.42 MB.
ONE_SHOT_MAX_BYTES = {2: math.inf, 4: 512 * 1024, 8: 256 * 1024}
ONE_SHOT_SOURCE = ("vLLM custom all-reduce one-shot below 512 KiB (TP <= 4) / 256 KiB (TP <= 8), two-shot above: "
                   "csrc/custom_all_reduce.cuh (https://github.com/vllm-project/vllm)")


# vLLM runs its custom all-reduce on AMD GPUs only on the MI300 series and later: ``RocmPlatform.use_custom_allreduce``
# ("We only enable custom allreduce for MI300 series", ``supported_archs = ['gfx94', 'gfx95']``,
# vllm/platforms/rocm.py; ROCm/vllm at f8c9a38, 2025-08, after vllm-project/vllm PR 14125 brought the kernel to ROCm
# upstream in April 2025). On CDNA 2 (MI250X, MI210: gfx90a) and CDNA (MI100: gfx908) every tensor-parallel
# all-reduce goes through RCCL. SGLang's copy of the kernel is enabled on any HIP GPU (sglang
# srt/distributed/device_communicators/custom_all_reduce.py, no architecture check).
VLLM_ROCM_CUSTOM_ALLREDUCE_ARCHITECTURES = ("CDNA 3", "CDNA 4")
VLLM_ROCM_CUSTOM_ALLREDUCE_SOURCE = ("vLLM custom all-reduce on AMD only for MI300-series (gfx94x / gfx95x): "
                                     "vllm/platforms/rocm.py RocmPlatform.use_custom_allreduce; RCCL elsewhere")


def engine_custom_allreduce(engine: str, gpu: GPU) -> bool:
    """Whether ``engine`` runs its own one-shot all-reduce kernel on ``gpu`` where the link allows it: not vLLM on
    AMD GPUs before CDNA 3 (:data:`VLLM_ROCM_CUSTOM_ALLREDUCE_ARCHITECTURES`)."""
    return not (engine.lower() == "vllm" and gpu.vendor == "AMD"
                and gpu.architecture not in VLLM_ROCM_CUSTOM_ALLREDUCE_ARCHITECTURES)


def one_shot_max_bytes(link: Link, gpu: GPU, tp: int, gpus_per_node: int | None = None, engine: str = "") -> float:
    """Largest all-reduce (bytes, exclusive) the engine's custom kernel runs one-shot over ``tp`` GPUs of one node
    joined by ``link`` (module constants); 0 where the library's ring runs instead (PCIe, several nodes, more than 8
    GPUs, vLLM on AMD GPUs before the MI300 series)."""
    if (gpus_per_node and tp > gpus_per_node) or not engine_custom_allreduce(engine, gpu):
        return 0.0
    if not (link.id.startswith("amd-if") or (gpu.vendor == "NVIDIA" and link.kind == "nvlink")):
        return 0.0
    for size in sorted(ONE_SHOT_MAX_BYTES):
        if tp <= size:
            return float(ONE_SHOT_MAX_BYTES[size])
    return 0.0


RING_HOP_S = {"nvidia": 1024 * 2 * 7 / 8 / 0.07e9 / 14, "amd": 1024 * 2 * 7 / 8 / 0.04e9 / 14}
# Weight-only formats on a GPU without matrix units for them are dequantised in the GEMM's main loop: each weight
# element is unpacked and scaled on the vector ALUs once per step (decode: one M tile; large prefill chunks: the
# kernels dequantise once into a 16-bit or FP8 tile, meta-pytorch/MSLK PR 379 "pre-dequant path" on MI300X).
# MXFP4 (E2M1 + E8M0 scale per 32): 57 ALU instructions per packed int32 of 8 values in the fused Marlin MXFP4 MoE
# kernel, 40 after an optimisation that postdates the measured runs ("the main loop is bottlenecked on the per-group
# scale and FP4 decode instructions rather than the tensor core", flagos-ai/FlagGems PR 4908, 2026-07).
DEQUANT_INSTRUCTIONS_PER_WEIGHT = {"mxfp4": 57 / 8}
DEQUANT_SOURCE = ("MXFP4 decode, 57 ALU instructions per 8 weights: flagos-ai/FlagGems PR 4908 "
                  "(https://github.com/flagos-ai/FlagGems/pull/4908)")
# Vector lanes x clock from the datasheet FP32 vector figure (2 FLOPs per lane per FMA). CDNA 3 / CDNA 4 datasheets
# count packed FP32 (v_pk_fma_f32, two results per lane): MI300X 163.4 TFLOPS FP32 vector = 2 x its 81.7 TFLOPS
# FP64 vector, 304 CUs x 64 lanes x 2.1 GHz (AMD CDNA 3 white paper); the dequantisation's integer and 16-bit
# instructions issue one per lane per clock.
PACKED_FP32_ARCHITECTURES = ("CDNA 3", "CDNA 4")
# Block-scaled FP8 GEMMs (DeepSeek-V3's 128 x 128 weight blocks with per-token-group activation scales, the format
# the DeepSeek-V3 / R1 and other FP8 checkpoints ship) at decode batch sizes stream their weights far below the
# memory roofline: the kernels tile the output in 128-wide blocks without splitting K, so a narrow TP slice keeps
# only a few dozen CTAs (SMs) busy. vLLM's W8A8 block-FP8 CUTLASS kernel on H100 runs DeepSeek-V3's fused q_a/kv_a
# projection (N 2112, K 7168: 15.1 MB of FP8 weights) at 0.893 / 13.94 / 55.79 TFLOPS for M = 1 / 16 / 64 tokens
# (vllm-project/vllm PR 23280, Sep 2025), i.e. 33.9 / 34.7 / 34.7 us whatever M: 0.445 TB/s, 0.133 of H100's
# 3.35 TB/s; DeepGEMM and vLLM's Triton kernel measure 10.3 and 14.5 us for N 3072, K 1536 (4.7 MB; 0.46 and
# 0.33 TB/s) and 13.6 and 20.6 us for N 512, K 7168 (3.7 MB) at M = 1 (sgl-project/sglang PR 5820). The share of
# the datasheet bandwidth of the CUTLASS figure applies to every GPU (no other GPU was measured).
# At M = 1 the FLOPs are twice the FP8 weight bytes: bytes/s = TFLOPS / 2.
BLOCK_FP8_WEIGHT_STREAM_SHARE = 0.893e12 / 2 / 3.35e12
BLOCK_FP8_SOURCE = ("block-FP8 GEMM at decode sizes, 15.1 MB in 33.9 us on H100 (0.133 of 3.35 TB/s): vllm-project/"
                    "vllm PR 23280; DeepGEMM / Triton 0.27-0.46 TB/s: sgl-project/sglang PR 5820")
# Block-scaled FP8 (128 x 128 weight blocks, 1 x 128 activation groups: the DeepSeek-V3 / R1 checkpoints) at
# prefill sizes: the kernels vLLM and SGLang run for it reach a small share of the FP8 tensor-core peak, far below
# the per-tensor cuBLASLt rate of the catalog's measured FP8 GEMM (about 0.70 of peak on H100/H200). vLLM's own
# table on H100 for DeepSeek-V3's fused q_a/kv_a projection (N 2112, K 7168) at M = 2048 / 4096 / 8192 tokens:
# Triton ``w8a8_block_fp8_matmul`` 396 / 403 / 407 TFLOPS, its SM90 CUTLASS block-FP8 kernel 427 / 457 / 490,
# against 648-716 for BF16 (vllm-project/vllm PR 23280, Sep 2025); SGLang's Triton kernel on the wide N 24576,
# K 7168 GEMM takes 2200 us at M = 4096 (656 TFLOPS) where DeepGEMM takes 1127 us (sgl-project/sglang PR 5820).
# The Triton figure at M = 8192, 406.5 TFLOPS of H100's 1979 FP8 peak, is taken as the share of every GPU's FP8
# peak these kernels reach. Which GEMMs run them:
# - routed experts: the Triton fused-MoE kernel with block-FP8 scales (vLLM ``fused_moe.py`` ``use_fp8_w8a8`` with
#   ``block_shape``; SGLang ``fused_moe_triton``), the default of both engines at tensor-parallel MoE in every
#   version (DeepGEMM's grouped kernels serve SGLang's expert-parallel DeepEP path only);
# - dense (attention, shared experts, dense MLP) linears: vLLM's Triton or CUTLASS block-FP8 kernels (PR 23280
#   benchmarks them as the production path in Sep 2025); SGLang's Triton kernel until DeepGEMM became its default
#   on Hopper (sgl-project/sglang PR 5628, "Turn on DeepGemm By Default", April 2025, release 0.4.6), DeepGEMM
#   (near the per-tensor rate) from 0.4.6 on NVIDIA GPUs of compute capability 9.0 and above, the only ones it
#   runs on (:data:`DEEPGEMM_SOURCE`); on AMD Instinct SGLang's dense linears stay on AITER's Triton kernel.
# TensorRT-LLM runs its own block-scale GEMMs and grouped MoE kernels and is not counted. Not checked: recent vLLM
# selects DeepGEMM for block-FP8 MoE and linears when ``VLLM_USE_DEEP_GEMM`` is set and the package is installed
# (``vllm/model_executor/layers/quantization/fp8.py`` get_fp8_moe_backend); the version from which both hold by
# default in the published images is not established here, so every vLLM version keeps the Triton rate.
BLOCK_FP8_TRITON_PEAK_SHARE = 406.5e12 / 1978.9e12
# The same table's Triton column by M (tokens, TFLOPS on H100): the kernel reaches its rate only from a few thousand
# rows. A routed expert's GEMM sees M = tokens x top-k / experts rows (256 for a 8192-token prefill chunk of
# DeepSeek-V3: 8 of 256 experts). Below 256 rows the step is weight bound and the weight stream is counted apart
# (:data:`BLOCK_FP8_WEIGHT_STREAM_SHARE`): the 256-row rate is kept there.
BLOCK_FP8_TRITON_TFLOPS_BY_M = ((256, 219.3), (512, 305.2), (1024, 366.8), (2048, 396.0), (4096, 403.0),
                                (8192, 406.5))
BLOCK_FP8_TABLE_PEAK_TFLOPS = 1978.9
SGLANG_DEEPGEMM_DEFAULT_SINCE = (0, 4, 6)
# DeepGEMM is a CUDA library for compute capability 9.0 and above: SGLang enables it only on CUDA (or MUSA) devices
# of SM 90 or newer (``python/sglang/srt/layers/quantization/deep_gemm_wrapper/configurer.py``
# ``_compute_enable_deep_gemm``: ``if not (_is_cuda or _is_musa): return False``, ``sm_version < 90: return False``).
# Elsewhere its block-FP8 linear dispatch (``fp8_utils.py`` ``dispatch_w8a8_block_fp8_linear``) falls through to
# AITER's Triton ``gemm_a8w8_blockscale`` on AMD GPUs (``_use_aiter``) or its own Triton ``w8a8_block_fp8_matmul``.
DEEPGEMM_VENDOR = "NVIDIA"
DEEPGEMM_MIN_COMPUTE_CAPABILITY = (9, 0)
DEEPGEMM_SOURCE = ("SGLang enables DeepGEMM only on CUDA devices of compute capability 9.0 or newer "
                   "(python/sglang/srt/layers/quantization/deep_gemm_wrapper/configurer.py _compute_enable_deep_gemm); "
                   "otherwise fp8_utils.py dispatch_w8a8_block_fp8_linear runs AITER's or its own Triton block-FP8 "
                   "GEMM (https://github.com/sgl-project/sglang)")
BLOCK_FP8_TRITON_SOURCE = ("block-FP8 Triton/CUTLASS GEMMs on H100, DeepSeek-V3 N 2112 K 7168: 396-490 TFLOPS at "
                           "M 2048-8192 (vllm-project/vllm PR 23280); SGLang Triton vs DeepGEMM (sgl-project/sglang "
                           "PR 5820); SGLang DeepGEMM default from 0.4.6 (sgl-project/sglang PR 5628)")
BLOCK_FP8_TRITON_ENGINES = ("vllm", "sglang")


def block_fp8_triton_peak_share(rows: float) -> float:
    """Share of the FP8 peak the block-FP8 Triton kernel reaches on a GEMM of ``rows`` token rows
    (:data:`BLOCK_FP8_TRITON_TFLOPS_BY_M`, interpolated in log M, held at both ends)."""
    table = BLOCK_FP8_TRITON_TFLOPS_BY_M
    if rows <= table[0][0]:
        return table[0][1] / BLOCK_FP8_TABLE_PEAK_TFLOPS
    for (m0, t0), (m1, t1) in zip(table, table[1:]):
        if rows <= m1:
            f = math.log(rows / m0) / math.log(m1 / m0)
            return (t0 + f * (t1 - t0)) / BLOCK_FP8_TABLE_PEAK_TFLOPS
    return table[-1][1] / BLOCK_FP8_TABLE_PEAK_TFLOPS


def runs_deepgemm(gpu: GPU | None) -> bool:
    """Whether SGLang can run DeepGEMM on ``gpu`` (:data:`DEEPGEMM_SOURCE`): an NVIDIA GPU of compute capability
    9.0 or newer (Hopper, Blackwell). None (no GPU given) is taken as such a GPU; an NVIDIA GPU whose capability the
    catalog does not give as "major.minor" is not (the catalog's other capability readers treat it so too)."""
    if gpu is None:
        return True
    if gpu.vendor != DEEPGEMM_VENDOR or not gpu.compute_capability:
        return False
    try:
        major, minor = (int(part) for part in str(gpu.compute_capability).split(".")[:2])
    except ValueError:
        return False
    return (major, minor) >= DEEPGEMM_MIN_COMPUTE_CAPABILITY


def block_fp8_triton_flops_share(spec: ModelSpec, engine: str, version: str | None,
                                 gpu: GPU | None = None) -> tuple[float, float, str]:
    """(share of a block-FP8 model's matmul FLOPs per token that ``engine`` at ``version`` runs through its Triton
    or CUTLASS block-FP8 kernels on ``gpu``, the routed experts' part of it, source): the routed experts' share
    (``2 x moe_layers x top-k x expert params`` of ``2 x active params``) for vLLM and SGLang, plus the dense rest
    for vLLM, for SGLang before 0.4.6 and for SGLang on a GPU DeepGEMM does not run on (:func:`runs_deepgemm`: AMD
    Instinct runs AITER's Triton block-FP8 GEMM); 0 for other engines (module constants)."""
    engine = engine.lower()
    if engine not in BLOCK_FP8_TRITON_ENGINES:
        return 0.0, 0.0, ""
    active = float(spec.active_params)
    routed = 0.0
    if spec.moe_experts and spec.moe_active_experts:
        moe_layers = spec.moe_layers if spec.moe_layers is not None else (spec.layers or 0)
        routed = min(1.0, moe_layers * spec.moe_active_experts * spec.expert_params / active)
    dense_slow = engine == "vllm"
    if engine == "sglang":
        if not runs_deepgemm(gpu):
            return 1.0, routed, f"{BLOCK_FP8_TRITON_SOURCE}; {DEEPGEMM_SOURCE}"
        parsed = version_triple(version)
        dense_slow = parsed is not None and parsed < SGLANG_DEEPGEMM_DEFAULT_SINCE
    return (1.0 if dense_slow else routed), routed, BLOCK_FP8_TRITON_SOURCE


# FP4 GEMMs on data-center Blackwell (compute capability 10.x: B200, GB200, B300) reach a smaller share of the FP4
# peak than the FP8 GEMMs of Hopper reach of theirs, and a much smaller one at decode batch sizes. Measured on B200:
# NVFP4 M 1024 x N 7168 x K 4608 at 3370 TFLOPS with FlashInfer's fastest backend (CUTLASS; cuDNN 2976, TensorRT-LLM
# 2187; flashinfer-ai/flashinfer PR 1979), and cuBLASLt FP4 8192^3 at 5239 TFLOPS (deepseek-ai/DeepGEMM PR 348,
# cublasTest 13.3), of the 9000 dense FP4 peak; vLLM's CUTLASS NVFP4 GEMM at a Llama-3-8B layer shape (N 6144,
# K 4096) measures 2895 TFLOPS at M 1024 and 3779 at M 8192 (vllm-project/vllm PR 20646). A step of at most
# FP4_DECODE_TOKENS tokens runs at the first share, one of at least FP4_LARGE_TOKENS at the second, linearly in
# log2(tokens) between. The share also depends on the GEMM's reduction length K: each output tile pays a fixed
# prologue / epilogue (scale-factor loads, FP4 block-scale handling, the 16-bit output write) against a main loop
# that grows with K, so a model of hidden size 4096 (the K of its QKV and gate/up GEMMs, the bulk of its FLOPs, whatever
# the tensor parallelism: they are column-parallel) reaches the vLLM figures measured at K 4096, and one of hidden
# size 8192 or more the larger-shape figures (K 4608 to 8192); log2-linear in the hidden size between
# (FP4_SMALL_K_HIDDEN, FP4_LARGE_K_HIDDEN). Other GPUs with FP4 units (GeForce / RTX PRO Blackwell, compute
# capability 12.x, CDNA 4) have no measured figure and keep the vendor's FP8 share.
FP4_DECODE_TOKENS = 1024
FP4_LARGE_TOKENS = 8192
FP4_DECODE_MATMUL_EFFICIENCY = 3370.0 / 9000.0
FP4_LARGE_MATMUL_EFFICIENCY = 5239.0 / 9000.0
FP4_SMALL_K_DECODE_MATMUL_EFFICIENCY = 2895.0 / 9000.0
FP4_SMALL_K_LARGE_MATMUL_EFFICIENCY = 3779.0 / 9000.0
FP4_SMALL_K_HIDDEN = 4096
FP4_LARGE_K_HIDDEN = 8192
FP4_MEASURED_CAPABILITY = 10
FP4_GEMM_SOURCE = ("NVFP4 GEMM on B200, M 1024: 3370 of 9000 TFLOPS, flashinfer-ai/flashinfer PR 1979; cuBLASLt FP4 "
                   "8192^3: 5239 TFLOPS, deepseek-ai/DeepGEMM PR 348; vLLM CUTLASS NVFP4 2895 / 3779 TFLOPS at M "
                   "1024 / 8192 (N 6144, K 4096), vllm-project/vllm PR 20646")


def fp4_matmul_efficiency(gpu: GPU, hidden_size: int = FP4_LARGE_K_HIDDEN) -> tuple[float, float] | None:
    """(share of the FP4 peak at decode sizes, at large sizes) on ``gpu`` for a model of ``hidden_size`` (the K of
    its column-parallel GEMMs), or None where no FP4 GEMM was measured on its architecture (see
    :data:`FP4_DECODE_MATMUL_EFFICIENCY`)."""
    if gpu.vendor != "NVIDIA" or not gpu.fp4_dense_tflops:
        return None
    try:
        capability = float(gpu.compute_capability or 0)
    except ValueError:
        return None
    if int(capability) != FP4_MEASURED_CAPABILITY:
        return None
    clamped = min(max(hidden_size, FP4_SMALL_K_HIDDEN), FP4_LARGE_K_HIDDEN)
    large_k = math.log2(clamped / FP4_SMALL_K_HIDDEN) / math.log2(FP4_LARGE_K_HIDDEN / FP4_SMALL_K_HIDDEN)
    decode = FP4_SMALL_K_DECODE_MATMUL_EFFICIENCY + large_k * (
        FP4_DECODE_MATMUL_EFFICIENCY - FP4_SMALL_K_DECODE_MATMUL_EFFICIENCY)
    large = FP4_SMALL_K_LARGE_MATMUL_EFFICIENCY + large_k * (
        FP4_LARGE_MATMUL_EFFICIENCY - FP4_SMALL_K_LARGE_MATMUL_EFFICIENCY)
    return decode, large


def gemm_rate_share(tokens: int, decode_share: float, large_share: float) -> float:
    """The matmul efficiency of a step of ``tokens`` tokens between the decode-size and large-size figures
    (:data:`FP4_DECODE_TOKENS`, :data:`FP4_LARGE_TOKENS`; linear in log2 tokens)."""
    if tokens <= FP4_DECODE_TOKENS:
        return decode_share
    if tokens >= FP4_LARGE_TOKENS:
        return large_share
    share = math.log2(tokens / FP4_DECODE_TOKENS) / math.log2(FP4_LARGE_TOKENS / FP4_DECODE_TOKENS)
    return decode_share + share * (large_share - decode_share)


_PEAK_FIELD = {"bf16": "bf16_dense_tflops", "fp8": "fp8_dense_tflops", "fp4": "fp4_dense_tflops"}


def matmul_efficiency(gpu: GPU, precision: str = "bf16") -> tuple[float, str]:
    """(share of the dense peak matmuls reach at ``precision``, source): BF16 from the catalog's measured figure,
    else the vendor's; FP8 and FP4 from the vendor's measured FP8 GEMM (module constants; FP4 on data-center
    Blackwell: :func:`fp4_matmul_efficiency`)."""
    if precision in ("fp8", "fp4") and gpu.vendor in VENDOR_FP8_MATMUL_EFFICIENCY:
        value = VENDOR_FP8_MATMUL_EFFICIENCY[gpu.vendor]
        if gpu.matmul_efficiency:
            # The matrix units of one chip run every precision at the clock its power limit sustains: scale by its
            # measured BF16 MAMF over that of the GPU the FP8 figure was measured on. MI325X is MI300X's CDNA 3 die
            # with the same datasheet peaks at 1000 W instead of 750 W: 784.9 against 668.4 BF16 TFLOPS measured.
            value = min(1.0, value * float(gpu.matmul_efficiency) / FP8_REFERENCE_BF16_EFFICIENCY[gpu.vendor])
        return value, _("{vendor} measured FP8 GEMM: {source}").format(vendor=gpu.vendor, source=AZURE_GUIDE)
    if gpu.matmul_efficiency:
        return float(gpu.matmul_efficiency), gpu.matmul_efficiency_source or MAMF_SOURCE
    value = VENDOR_MATMUL_EFFICIENCY.get(gpu.vendor, DEFAULT_MATMUL_EFFICIENCY)
    return value, _("{vendor} default (no measured figure for this GPU): {source}").format(
        vendor=gpu.vendor, source=MAMF_SOURCE)


def compute_peak_flops(gpu: GPU, precision: str) -> tuple[float, str]:
    """(dense peak FLOP/s at ``precision`` or the nearest slower one the GPU has, note).

    Raises:
        SizingError: the catalog has no dense 16-bit rate for the GPU.
    """
    for name in (precision, "fp8", "bf16") if precision == "fp4" else (precision, "bf16"):
        value = getattr(gpu, _PEAK_FIELD[name], None) or (gpu.fp16_dense_tflops if name == "bf16" else None)
        if value:
            return float(value) * 1e12, name.upper()
    raise SizingError("gpu", _("no dense 16-bit rate for {gpu} in the catalog.").format(gpu=gpu.name))


def hbm_efficiency(gpu: GPU) -> tuple[float, str]:
    """(share of the datasheet memory bandwidth streaming kernels reach, source): the GPU's own measured STREAM
    copy over its datasheet figure where measured, else its vendor's (NVIDIA's for Intel and others)."""
    measured = MEASURED_STREAM_COPY_TBPS.get(gpu.id)
    if measured is not None and gpu.memory_bandwidth_gbps:
        return min(1.0, measured * 1000 / gpu.memory_bandwidth_gbps), _(
            "{gpu} STREAM copy {tbps:g} TB/s over the datasheet bandwidth: {source}").format(
            gpu=gpu.name, tbps=measured, source=AZURE_GUIDE)
    if gpu.vendor in VENDOR_HBM_EFFICIENCY:
        return VENDOR_HBM_EFFICIENCY[gpu.vendor], _(
            "{vendor} default (no measured figure for this GPU): STREAM copy over the datasheet bandwidth, "
            "{source}").format(vendor=gpu.vendor, source=AZURE_GUIDE)
    # Nothing measured for this vendor (Huawei Ascend, Intel Gaudi...): say that NVIDIA's share stands in for it.
    return VENDOR_HBM_EFFICIENCY["NVIDIA"], _(
        "NVIDIA's share for want of a {vendor} measurement: STREAM copy over the datasheet bandwidth, "
        "{source}").format(vendor=gpu.vendor, source=AZURE_GUIDE)


# vLLM on CDNA 3 and CDNA 4 (gfx942: MI300X, MI325X; gfx950: MI350X, MI355X) sends a dense GEMM to its own skinny kernels only when the step has few
# tokens, and to hipBLASLt (``torch.nn.functional.linear`` / ``torch._scaled_mm``) otherwise: unquantized BF16/FP16
# linears take ``wvSplitK`` for 1-4 tokens (``vllm/model_executor/layers/utils.py`` rocm_unquantized_gemm_impl,
# ``m > 8 and 0 < n <= 4``), per-tensor FP8 linears take ``wvSplitKQ`` for one token
# (``vllm/model_executor/layers/quantization/kernels/scaled_mm/rocm.py`` rocm_per_tensor_float_w8a8_scaled_mm_impl,
# ``A.shape[0] == 1``); https://github.com/vllm-project/vllm. A hipBLASLt call costs more than the skinny kernel at
# decode sizes: Llama 3.1 70B FP16 at TP 8 on MI300X, benchmark_latency 32 in / 128 out, takes 1.412 s / 1.446 s at
# batch 1 / 2 through hipBLASLt and 1.289 s / 1.344 s through the skinny kernels (vllm-project/vllm PR 15830,
# April 2025): 0.123 s and 0.102 s over 127 decode steps of 321 GEMMs (80 layers x QKV, O, gate_up, down + LM head),
# 3.0 and 2.5 us per GEMM; their mean is taken. The kernels that compute the routed experts (fused MoE) and other
# quantized formats (AWQ/GPTQ, block-scaled FP8) are not hipBLASLt calls. CDNA 4 (gfx950: MI350X, MI355X) takes the
# same dispatch: the unquantized path gates the skinny kernels on ``on_gfx9()`` and the per-tensor FP8 kernel class
# (``ROCmFP8ScaledMMLinearKernel.is_supported``) on ``on_mi3xx()``, and vllm/platforms/rocm.py counts gfx950 in both
# (``_ON_MI3XX = ... ["gfx942", "gfx950"]``, ``_ON_GFX9 = ... ["gfx90a", "gfx942", "gfx950"]``); no gfx950 timing of
# the hipBLASLt call was found, so the MI300X figure is used for both generations.
HIPBLASLT_EXTRA_GEMM_S = (0.123 + 0.102) / 2 / 127 / 321
HIPBLASLT_ARCHITECTURES = ("CDNA 3", "CDNA 4")
SKINNY_MAX_TOKENS = {"bf16": 4, "fp8": 1}
HIPBLASLT_SOURCE = ("vLLM ROCm skinny-GEMM dispatch (vllm/model_executor/layers/utils.py rocm_unquantized_gemm_impl; "
                    "quantization/kernels/scaled_mm/rocm.py rocm_per_tensor_float_w8a8_scaled_mm_impl; gfx942 and "
                    "gfx950 both on_mi3xx / on_gfx9 in vllm/platforms/rocm.py); hipBLASLt "
                    "against the skinny kernels, Llama 3.1 70B TP 8 on MI300X: vllm-project/vllm PR 15830; "
                    "one-token FP8 steps reach wvSpltKQ only from vLLM 0.8.2 (ROCm/vllm v0.8.2+rocm Fp8LinearOp; "
                    "earlier tags pad the activations to 17 rows for torch._scaled_mm)")


def library_gemm_extra_s(engine: str, gpu: GPU, linear_format: str,
                         engine_version: str | None = None) -> tuple[float, int]:
    """(seconds a dense GEMM costs beyond its roofline time when the engine hands it to the vendor GEMM library,
    the most tokens a step may have for the engine's own skinny kernels to take it instead): vLLM on CDNA 3 or 4 with
    unquantized (``bf16``) or per-tensor FP8 (``fp8``) linears (module constants; FP8 before vLLM 0.8.2 takes no
    skinny kernel: :mod:`gpudesk.sizing.serve_rocm_fp8_skinny`); (0, 0) elsewhere."""
    if engine.lower() != "vllm" or gpu.architecture not in HIPBLASLT_ARCHITECTURES:
        return 0.0, 0
    limit = SKINNY_MAX_TOKENS.get(linear_format)
    if limit is None:
        return 0.0, 0
    if linear_format == "fp8" and not fp8_skinny_available(version_triple(engine_version)):
        limit = 0
    return HIPBLASLT_EXTRA_GEMM_S, limit


def dense_gemms_per_step(spec: ModelSpec) -> int:
    """Dense (library) GEMMs one step runs: each layer's attention projections (QKV and O; the five GEMMs of
    absorbed multi-head latent attention), the gate_up and down GEMMs of dense MLP layers and of shared experts, the
    router GEMM of routed-MoE layers, and the LM head (kernel counts of :func:`kernels_per_step`)."""
    layers = spec.layers or 0
    attention = 5 if spec.attention_kind == "mla" else 2
    moe_layers = 0
    if spec.moe_experts:
        moe_layers = spec.moe_layers if spec.moe_layers is not None else layers
    moe = 1 + (2 if spec.moe_shared_experts else 0)
    return layers * attention + moe_layers * moe + (layers - moe_layers) * 2 + 1


def kernels_per_step(spec: ModelSpec) -> int:
    """Kernels one step launches over all decoder layers (module constants): attention (MLA or not) per layer, a
    routed-MoE block on ``moe_layers`` layers (plus the shared experts' MLP), a dense MLP on the rest."""
    layers = spec.layers or 0
    attention = MLA_KERNELS if spec.attention_kind == "mla" else ATTENTION_KERNELS
    moe_layers = 0
    if spec.moe_experts:
        moe_layers = spec.moe_layers if spec.moe_layers is not None else layers
    moe = MOE_KERNELS + (SHARED_EXPERT_KERNELS if spec.moe_shared_experts else 0)
    return layers * attention + moe_layers * moe + (layers - moe_layers) * DENSE_MLP_KERNELS


# A W8A8 linear with per-tensor or per-token FP8 activations quantizes its 16-bit input in a kernel of its own
# before the FP8 GEMM where the engine runs its layers op by op: vLLM's ``apply_fp8_linear``
# (vllm/model_executor/layers/quantization/utils/w8a8_utils.py: ``ops.scaled_fp8_quant`` then
# ``cutlass_scaled_mm`` or ``torch._scaled_mm``; its fused MoE quantizes both grouped GEMMs' inputs the same way)
# and SGLang's copy of it (python/sglang/srt/layers/quantization/fp8_utils.py; SGLang runs without torch.compile
# unless ``--enable-torch-compile``). vLLM V0 (before v0.8) runs no compiler by default, so every quantization is a
# kernel; V1 compiles the model (torch.compile, vLLM V1 blog, Jan 2025) and its norm/activation + quant fusion
# (``PassConfig.enable_fusion``, RMSNorm/SiluMul + quant, vllm/config.py) and the native QuantFP8 op let the
# compiler merge the quantization into the kernel before it, so V1 is not charged. TensorRT-LLM's engines fuse the
# quantization into the preceding plugin (RMSNorm-quant, the GEMM epilogue) and are not charged either. Per layer:
# the QKV and O projections' inputs, and the two GEMM inputs of the MLP, of the routed experts and of the shared
# experts (each a kernel at the small-kernel floor).
QUANT_KERNELS_PER_GEMM_PAIR = 2
ACTIVATION_QUANT_SOURCE = ("separate FP8 activation-quantization kernel per W8A8 linear: vLLM w8a8_utils.py "
                           "apply_fp8_linear (ops.scaled_fp8_quant), SGLang fp8_utils.py (https://github.com/"
                           "vllm-project/vllm, https://github.com/sgl-project/sglang)")
VLLM_COMPILED_SINCE = (0, 8)


def activation_quant_kernels(spec: ModelSpec, engine: str, version: tuple[int, int] | None,
                             linear_format: str | None, v0: bool = False) -> int:
    """Kernels one step spends quantizing the activations of per-tensor / per-token FP8 linears (module comment):
    two per attention block and two per MLP, routed-expert or shared-expert block, for SGLang and vLLM V0 (a
    published version before 0.8, or ``v0``: a V0 fallback, :func:`gpudesk.sizing.serve_vllm_v0.vllm_v0_fallback`); 0
    for other formats, vLLM V1 and other engines."""
    if linear_format != "fp8":
        return 0
    name = engine.lower()
    if name == "vllm":
        if not v0 and (version is None or version >= VLLM_COMPILED_SINCE):
            return 0
    elif name != "sglang":
        return 0
    layers = spec.layers or 0
    moe_layers = 0
    if spec.moe_experts:
        moe_layers = spec.moe_layers if spec.moe_layers is not None else layers
    blocks = layers + layers + (moe_layers if spec.moe_shared_experts else 0)
    return QUANT_KERNELS_PER_GEMM_PAIR * blocks


# The routed experts' FP8 inputs are quantized inside the fused-MoE op itself, before each of its two grouped GEMMs:
# vLLM ``fused_experts_impl`` calls ``moe_kernel_quantize_input`` (``per_token_group_quant_fp8`` for block-scaled
# weights, ``scaled_fp8_quant`` per tensor) for the gate/up GEMM's input and again for the down GEMM's
# (vllm/model_executor/layers/fused_moe/fused_moe.py and utils.py), and SGLang's ``invoke_fused_moe_kernel`` the same
# (``sglang_per_token_group_quant_fp8`` / ``scaled_fp8_quant``, python/sglang/srt/layers/moe/fused_moe_triton/
# fused_moe.py). The op is registered as a custom op (``direct_register_custom_op``), opaque to vLLM V1's compiler, so
# no fusion pass merges these two kernels into the kernels around them, at any vLLM release, for block-scaled and
# per-tensor FP8 experts alike. :func:`activation_quant_kernels` already counts them where every FP8 linear is
# charged (per-tensor FP8 in SGLang and vLLM V0); elsewhere they are 2 kernels per MoE layer at the floor.
EXPERT_QUANT_KERNELS_PER_LAYER = 2
EXPERT_QUANT_SOURCE = ("FP8 activation quantization inside the fused MoE, before each grouped GEMM: vLLM fused_moe.py "
                       "fused_experts_impl (moe_kernel_quantize_input), SGLang fused_moe_triton/fused_moe.py "
                       "(https://github.com/vllm-project/vllm, https://github.com/sgl-project/sglang)")


def expert_quant_kernels(spec: ModelSpec, engine: str, version: tuple[int, int] | None, weight_format: str,
                         linear_format: str | None, v0: bool = False) -> int:
    """Kernels one step spends quantizing the routed experts' FP8 inputs inside vLLM's or SGLang's fused MoE, beyond
    those :func:`activation_quant_kernels` counts (module comment); 0 for other engines and formats."""
    if not spec.moe_experts or weight_format.lower() != "fp8" or engine.lower() not in ("vllm", "sglang"):
        return 0
    if activation_quant_kernels(spec, engine, version, linear_format, v0):
        return 0
    layers = spec.layers or 0
    moe_layers = spec.moe_layers if spec.moe_layers is not None else layers
    return EXPERT_QUANT_KERNELS_PER_LAYER * moe_layers


def kernel_latency_s(gpu: GPU, cuda_graphs: bool) -> tuple[float, str]:
    """(fixed seconds of one kernel whatever its work, source): replayed from a CUDA/HIP graph or launched eagerly
    (an Ascend NPU's eager launch: :mod:`gpudesk.sizing.serve_vllm_ascend`)."""
    npu = None if cuda_graphs else eager_kernel_s(gpu)
    if npu is not None:
        return npu, _("{us:g} us per kernel (eager, {gpu}): {source}; kernels per layer: {count}").format(
            us=npu * 1e6, gpu=gpu.name, source=EAGER_SOURCE, count=KERNEL_COUNT_SOURCE)
    kernel = SMALL_KERNEL_GRAPH_S if cuda_graphs else SMALL_KERNEL_EAGER_S
    return kernel, _(
        "{us:g} us per kernel ({mode}): NVIDIA developer blog, Getting Started with CUDA Graphs "
        "(https://developer.nvidia.com/blog/cuda-graphs/); kernels per layer: {source}").format(
        us=kernel * 1e6, mode=_("CUDA graphs") if cuda_graphs else _("eager"), source=KERNEL_COUNT_SOURCE)


# Across nodes the engines' one-shot kernels do not apply (they need every peer's memory mapped over NVLink / xGMI;
# vLLM disables its custom all-reduce when the group spans nodes, vllm/distributed/device_communicators/
# custom_all_reduce.py) and the library's tree runs: the node's ring hops to reduce into and broadcast out of the
# node, plus the network round trip. An 8-byte all-reduce between two nodes over InfiniBand takes 19.9 us
# (nccl-tests all_reduce_perf, 2 x A100 on HDR, NVIDIA/nccl-tests issue 150); a tree of n nodes crosses
# ceil(log2 n) levels. The messages cross at the GPU's NIC rate: 400 Gb/s (50 GB/s) per GPU on HGX H100/H200/B200
# nodes (NVIDIA DGX H100 user guide: 8 x ConnectX-7 400 Gb/s).
NETWORK_ALLREDUCE_S = 19.9e-6
NETWORK_ALLREDUCE_SOURCE = ("8-byte all-reduce between 2 nodes over InfiniBand: NVIDIA/nccl-tests issue 150 "
                            "(https://github.com/NVIDIA/nccl-tests/issues/150)")
NIC_BYTES_PER_S = 50e9


def allreduce_latency_s(link: Link, gpu: GPU, tp: int, gpus_per_node: int | None = None,
                        engine: str = "", network: tuple[float, str] | None = None) -> tuple[float, str]:
    """(fixed seconds of one small all-reduce over ``tp`` GPUs joined by ``link``, source): the engines' one-shot
    kernel on NVLink and Infinity Fabric meshes, else (PCIe, other vendors) the library ring (2 (tp - 1) hops of
    the measured per-hop latency); over several nodes of ``gpus_per_node`` the library tree, each network level
    costing ``network`` (seconds, source; default the RDMA module constants, :mod:`gpudesk.sizing.serve_network`
    for TCP sockets)."""
    key = "amd" if gpu.vendor == "AMD" else "nvidia"
    if gpus_per_node and tp > gpus_per_node:
        nodes = -(-tp // gpus_per_node)
        levels = max(1, (nodes - 1).bit_length())
        inside = 2 * (gpus_per_node - 1) * RING_HOP_S[key]
        level_s, level_source = network or (NETWORK_ALLREDUCE_S, NETWORK_ALLREDUCE_SOURCE)
        return inside + levels * level_s, _(
            "{nodes} nodes: ring hops inside each node ({azure}) + {levels} network level(s) of {source}").format(
            nodes=nodes, azure=AZURE_GUIDE, levels=levels, source=level_source)
    if link.id.startswith("amd-if"):
        if engine_custom_allreduce(engine, gpu):
            return AMD_CUSTOM_ALLREDUCE_S, AMD_CUSTOM_ALLREDUCE_SOURCE
        return 2 * (tp - 1) * RING_HOP_S["amd"], _(
            "{engine}; RCCL ring: 1 KB all-reduce over 8 GPUs (rccl-tests) / 14 ring hops: {source}").format(
            engine=VLLM_ROCM_CUSTOM_ALLREDUCE_SOURCE, source=AZURE_GUIDE)
    if gpu.vendor == "NVIDIA" and link.kind == "nvlink":
        return CUSTOM_ALLREDUCE_S.get(tp, CUSTOM_ALLREDUCE_S[8]), CUSTOM_ALLREDUCE_SOURCE
    return 2 * (tp - 1) * RING_HOP_S[key], _(
        "1 KB all-reduce over 8 GPUs (nccl-tests / rccl-tests) / 14 ring hops: {source}").format(source=AZURE_GUIDE)


# Large all-reduces leave the engines' one-shot kernels for the collective library: vLLM and SGLang run their custom
# all-reduce only for messages up to 8 MiB (``CustomAllreduce(max_size=8192 * 1024)``,
# vllm/distributed/device_communicators/custom_all_reduce.py; sglang srt/distributed/device_communicators/
# custom_all_reduce.py) and NCCL / RCCL above. The library's bus bandwidth grows with the message size long after
# the link's latency stops mattering (protocol switches, channel count): measured nccl-tests / rccl-tests
# all_reduce_perf bus bandwidth over 8 GPUs, messages of 2^10 .. 2^33 bytes (AZURE_GUIDE: ND A100 v4 on NVLink 3,
# ND H100 v5 on NVLink 4, ND MI300X v5 on Infinity Fabric). A step of a few thousand tokens all-reduces tens of MB,
# where MI300X reaches 230-266 GB/s of its 336 GB/s asymptote and H100 295-362 of 470.
ENGINE_ALLREDUCE_MAX_BYTES = 8 * MIB
ENGINE_ALLREDUCE_SOURCE = ("vLLM / SGLang custom all-reduce up to 8 MiB (vllm/distributed/device_communicators/"
                           "custom_all_reduce.py max_size), NCCL / RCCL above")
MEASURED_ALLREDUCE_BUSBW_GBPS = {
    "nvlink3": (0.04, 0.08, 0.17, 0.33, 0.67, 1.37, 2.70, 5.15, 10.11, 19.24, 36.22, 53.54, 71.43, 89.99, 109.22,
                132.77, 166.63, 174.18, 213.87, 221.58, 228.10, 230.22, 230.48, 231.58),
    "nvlink4": (0.07, 0.14, 0.27, 0.53, 0.95, 1.71, 2.72, 5.40, 10.86, 21.35, 43.70, 81.93, 128.73, 172.13, 234.45,
                295.53, 361.78, 400.61, 423.38, 438.46, 466.35, 472.36, 475.54, 478.87),
    "amd-if-mi300x": (0.04, 0.07, 0.15, 0.29, 0.59, 1.13, 2.22, 4.18, 7.50, 13.01, 22.41, 43.41, 82.53, 131.57,
                      171.46, 230.35, 266.34, 290.81, 302.80, 308.89, 313.92, 315.06, 314.85, 316.82),
}
MEASURED_ALLREDUCE_FIRST_BYTES = 2**10


def measured_allreduce_busbw(link: Link, message_bytes: float) -> float | None:
    """Bus bandwidth (bytes/s) the collective library measured on ``link`` for an all-reduce of ``message_bytes``
    (log-log interpolation between the measured powers of two, clamped at both ends); None when the link has no
    measured curve (module constants)."""
    curve = MEASURED_ALLREDUCE_BUSBW_GBPS.get(link.id)
    if curve is None:
        return None
    position = math.log2(max(float(message_bytes), MEASURED_ALLREDUCE_FIRST_BYTES) / MEASURED_ALLREDUCE_FIRST_BYTES)
    low = min(int(position), len(curve) - 1)
    high = min(low + 1, len(curve) - 1)
    share = min(1.0, position - low)
    return 1e9 * math.exp((1 - share) * math.log(curve[low]) + share * math.log(curve[high]))


# xGMI links of an MI300X platform deliver about 48 of their 64 GB/s (CRC and protocol overhead): ROCm blog
# "Understanding RCCL Bandwidth and xGMI Performance on AMD Instinct MI300X", 2025
# (https://rocm.blogs.amd.com/software-tools-optimization/mi300x-rccl-xgmi/README.html).
XGMI_LINK_EFFICIENCY = 48 / 64


# Point-to-point meshes without a switch: every GPU has one link to each of its peers (AMD Instinct MI300X data
# sheet: 7 Infinity Fabric links of 128 GB/s bidirectional per GPU on the 8-GPU UBB; MI355X brochure: 7 x 153.6 GB/s,
# fully connected, no switch; db/links.csv). The link's per-direction figure in the catalog is the sum over the 7
# links, of which a GPU talking to ``p`` peers uses ``p``: a tensor-parallel group of n GPUs reaches n - 1 of them
# (its collectives spread over those links), a pipeline send between two GPUs one.
MESH_LINKS_PER_GPU = {"amd-if-mi300x": 7, "amd-if-mi355x": 7}
MESH_SOURCE = ("AMD Instinct MI300X data sheet (7 x 128 GB/s Infinity Fabric links per GPU, one per peer); "
               "MI355X brochure (7 x 153.6 GB/s, fully connected, no switch)")


def mesh_peer_share(link: Link, peers: int) -> float:
    """Share of ``link``'s per-direction bandwidth a GPU reaches when it talks to ``peers`` peers: ``peers / links``
    on a switchless mesh with one link per peer (:data:`MESH_LINKS_PER_GPU`), else 1 (a switch gives every peer the
    GPU's whole bandwidth)."""
    links = MESH_LINKS_PER_GPU.get(link.id)
    if not links:
        return 1.0
    return min(max(1, peers), links) / links


def link_efficiency(link: Link) -> tuple[float, str]:
    """(share of the link's per-direction bandwidth a ring all-reduce reaches, source)."""
    if link.id.startswith("amd-if"):
        return XGMI_LINK_EFFICIENCY, ("ROCm blog, Understanding RCCL Bandwidth and xGMI Performance on AMD Instinct "
                                      "MI300X (48 of 64 GB/s per link)")
    return DEFAULT_LINK_EFFICIENCY, "Stas Bekman, ML Engineering, network: 80-88 % measured (gpudesk.sizing.time)"


def dequant_weights_per_s(gpu: GPU, weight_format: str) -> tuple[float, str]:
    """(weight elements per second the vector ALUs dequantise, source) for ``weight_format`` on ``gpu``; 0 when
    the GEMM reads the format directly (native matrix units, 16-bit, FP8) or no instruction count is known."""
    instructions = DEQUANT_INSTRUCTIONS_PER_WEIGHT.get(weight_format.lower())
    if instructions is None or (weight_format.lower() == "mxfp4" and gpu.fp4_dense_tflops):
        return 0.0, ""
    packed = 2 if gpu.architecture in PACKED_FP32_ARCHITECTURES else 1
    lanes_per_s = gpu.fp32_tflops * 1e12 / 2 / packed
    return lanes_per_s / instructions, _(
        "{instructions:g} vector instructions per weight at {lanes:g} T lane-instructions/s: {source}").format(
        instructions=instructions, lanes=lanes_per_s / 1e12, source=DEQUANT_SOURCE)


# vLLM picks the MXFP4 MoE kernel by GPU generation: Marlin below compute capability 9 (and wherever the Triton
# kernels or FlashInfer are missing), OpenAI's Triton kernels (matmul_ogs) on Hopper, Triton on ROCm
# (vllm/model_executor/layers/quantization/mxfp4.py get_mxfp4_backend, v0.11). Marlin keeps a multi-stage cp.async
# pipeline of weight tiles in flight and dequantises the current tile while the next ones load, so at decode batch
# sizes a 4-bit Marlin GEMM runs at the weight stream's time (Frantar et al., MARLIN: Mixed-Precision
# Auto-Regressive Parallel Inference on Large Language Models, arXiv 2408.11743, sections 3.2-3.3: near-ideal 4x
# over FP16 up to batch 16-32).
MARLIN_MIN_UNSUPPORTED_CAPABILITY = 9.0
MARLIN_SOURCE = ("vLLM MXFP4 MoE on compute capability < 9 uses Marlin: vllm/model_executor/layers/quantization/"
                 "mxfp4.py get_mxfp4_backend (https://github.com/vllm-project/vllm); Marlin overlaps dequantisation "
                 "with its cp.async weight loads: Frantar et al., arXiv 2408.11743, section 3")


def dequant_overlaps_weight_stream(engine: str, gpu: GPU, weight_format: str) -> tuple[bool, str]:
    """(whether ``engine`` unpacks ``weight_format`` on ``gpu`` inside a kernel that overlaps it with the weight
    loads, source): vLLM's MXFP4 MoE on NVIDIA GPUs below compute capability 9 runs Marlin (module comment)."""
    if weight_format.lower() != "mxfp4" or engine.lower() != "vllm" or gpu.vendor.upper() != "NVIDIA":
        return False, ""
    try:
        capability = float(gpu.compute_capability or "")
    except ValueError:
        return False, ""
    if capability >= MARLIN_MIN_UNSUPPORTED_CAPABILITY:
        return False, ""
    return True, MARLIN_SOURCE



# A tensor-core GEMM computes whole tiles of its token rows: a step of fewer tokens than the tile's token
# dimension costs the math of the whole tile. Hopper's warpgroup MMA (wgmma.mma_async) and Blackwell's tcgen05.mma
# have a fixed 64-row operand (shapes m64nNk16 / M 64 or 128: PTX ISA, "Asynchronous Warpgroup Level Matrix
# Multiply-Accumulate", https://docs.nvidia.com/cuda/parallel-thread-execution/), and the decode kernels built on
# them take at least 64 token rows per tile: DeepGEMM's FP8 GEMM on H800 (K 7168, N 2112) is no faster at 1 token
# than at 64 (deepseek-ai/DeepGEMM issue 35, https://github.com/deepseek-ai/DeepGEMM/issues/35). The warp-level
# MMA of earlier NVIDIA GPUs (mma.sync m16n8k16), AMD's MFMA (16x16x16) and the Marlin kernel that runs 4-bit
# weight-only checkpoints on NVIDIA GPUs (16-row m-blocks: Frantar et al. 2024, arXiv 2408.11743 section 4) pad
# to 16 rows. On most GPUs the tile's math hides under the weight stream at every decode size; it sets the step
# where the matrix units are slow against the memory: H20 (148 BF16 TFLOPS against 4.0 TB/s, 37 FLOP per byte)
# computes 64 rows x 2 FLOPs per 2-byte weight, 64 FLOP per byte, so a batch-1 decode step is bound by the
# tensor cores, not the HBM.
GEMM_TILE_TOKENS_WGMMA = 64
GEMM_TILE_TOKENS_MMA = 16
WGMMA_MIN_CAPABILITY = 9.0
GEMM_TILE_SOURCE = ("tensor-core tile rows: PTX ISA wgmma m64nNk16 (Hopper, Blackwell) and mma.sync m16n8k16; "
                    "DeepGEMM issue 35 (H800 FP8 GEMM, 1 token as slow as 64); Marlin 16-row blocks, arXiv "
                    "2408.11743")


def gemm_tile_tokens(gpu: GPU, weight_format: str) -> int:
    """Token rows a dense GEMM computes at least on ``gpu`` for weights in ``weight_format`` (see
    :data:`GEMM_TILE_TOKENS_WGMMA`): 64 on NVIDIA compute capability 9.0 and later, 16 on earlier NVIDIA GPUs, on
    AMD, and for 4-bit weight-only formats (Marlin)."""
    fmt = weight_format.lower()
    if fmt.startswith(("int4", "nf4")) or gpu.vendor != "NVIDIA":
        return GEMM_TILE_TOKENS_MMA
    try:
        capability = float(gpu.compute_capability or 0)
    except ValueError:
        capability = 0.0
    return GEMM_TILE_TOKENS_WGMMA if capability >= WGMMA_MIN_CAPABILITY else GEMM_TILE_TOKENS_MMA
