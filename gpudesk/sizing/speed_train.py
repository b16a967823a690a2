"""Training speed of one fixed layout: tokens/s per GPU, step time, MFU, with every assumption and its source.

One micro-batch on one GPU (one pipeline stage, one tensor/context/expert shard) costs

- **GEMMs**: ``6 x`` the matmul parameters a token touches (2 forward, 4 backward; Kaplan et al. 2020, arXiv
  2001.08361 section 2.1), the active parameters for MoE (routed top-k experts + shared experts + attention + LM
  head; the input embedding is a lookup, no FLOPs), divided by tensor x pipeline parallelism. Rate: the dense
  peak at the GEMM precision x the catalog's measured matmul efficiency (MAMF / peak, Stas Bekman, ML
  Engineering, compute/accelerator/benchmarks), else :data:`DEFAULT_MATMUL_EFFICIENCY`. FP8 (Transformer Engine /
  torchao Float8Linear) runs only the GEMMs at the FP8 peak (on Hopper at a lower share of it, its backward GEMMs
  promoting partial sums, :func:`fp8_share_of_bf16_efficiency`); attention, the LM head and every other kernel stay
  16-bit, and each GEMM input is cast to FP8 (an extra memory pass), so the step gains far less than 2x (Micikevicius
  et al. 2022,
  "FP8 Formats for Deep Learning", arXiv 2209.05433; torchao float8 README: 1.2-1.5x end to end).
  Expert GEMMs are timed one expert GEMM at a time on a roofline (Williams et al. 2009) with the expert's own
  shape (:func:`expert_mlp_seconds`, :func:`gemm_seconds`): a grouped GEMM over few tokens per expert is bound by
  reading the expert weights and activations, not by FLOPs, and the output write after a narrow reduction (an
  expert width of a few hundred) costs a large share of the GEMM.
- **Attention**: forward ``4 x s x d_attn`` FLOPs per token per layer, halved for a causal mask that FlashAttention
  skips (PaLM, Chowdhery et al. 2022, arXiv 2204.02311 appendix B; Narayanan et al. 2021 eq. 3); forward +
  backward execute 3.5x the forward, the backward recomputing the scores (:data:`FLASH_BACKWARD_SHARE`). FlashAttention reaches about half of the 16-bit peak in forward + backward (FlashAttention-2,
  Dao 2023, arXiv 2307.08691: 50-73 % forward, lower backward; FlashAttention-3, Shah et al. 2024, arXiv
  2407.08608: 75 % forward on H100): :data:`ATTENTION_EFFICIENCY`, a kernel benchmark, of which a training step
  keeps the same in-step share as the GEMMs keep of MAMF (:func:`attention_rate_share`), at the model's head
  dimension (:func:`attention_head_dim_factor`: the fixed softmax work per score weighs more at head dimension 64).
  Blackwell Ultra (sm_103) doubles the special-function units' rate of the softmax exponentials that pace a
  Blackwell-class kernel (:mod:`gpudesk.sizing.attention_softmax`, from NVIDIA's measured GB300 / GB200 forward).
- **Other kernels** (norms, residual adds, activation functions, rotary, dropout, softmax statistics, MoE
  permutation): memory bound. Each value a layer saves for backward (Korthikanti et al. 2022, arXiv 2205.05198,
  Table 2: ``(18 + (6 or 4) ffn/h) x h`` bytes per token) is written in forward, read in backward and its
  gradient written: 3 passes over HBM at :data:`HBM_EFFICIENCY` of the datasheet bandwidth.
- **Recompute**: full adds one forward of everything (8 instead of 6 FLOPs per parameter; Narayanan et al. 2021
  section 5.1); selective adds the attention core's forward (Korthikanti et al. 2022 section 5).
- **Framework**: a user-selected implementation profile (:data:`FRAMEWORKS`): how many memory passes its non-GEMM
  kernels make (fused or eager), its attention kernel, and whether its tensor-parallel collectives overlap the
  GEMMs. The factors come from published measurements, cited there.
- **Communication** (:mod:`gpudesk.sizing.speed_parallel`): tensor + sequence parallel on the intra-node link,
  context-parallel ring overlapped with attention, expert all-to-all on NVLink inside the NVLink domain and the
  scale-out NIC beyond it, pipeline point-to-point sends (under the next chunk's compute in Megatron's interleaved
  schedule), and data-parallel / ZeRO / FSDP traffic overlapped with the compute its framework overlaps it with.
- **Pipeline stages** (:mod:`gpudesk.sizing.speed_pipeline`): the last stage runs the output head and the loss in
  place of one layer, and the pipeline runs at the pace of that stage when the head costs more than a layer.

Step: ``(m + (p-1)/v) x t_microbatch`` (1F1B / interleaved pipeline bubble, Narayanan et al. 2021) + exposed
data-parallel sync + the optimizer update (Adam reads and writes ~32 bytes per local parameter; ZeRO paper
section 3.1 16-byte states read and written).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from gpudesk.i18n import N_, _, marked
from gpudesk.sizing.attention_softmax import blackwell_ultra_attention_speedup
from gpudesk.sizing.checks import choice, positive_float, positive_int
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.gemm_waves import wave_efficiency
from gpudesk.sizing.shapes import ModelSpec
from gpudesk.sizing.speed_common import Assumption, raw
from gpudesk.sizing.speed_pipeline import exposed_pipeline_p2p_seconds, last_stage_extra_seconds
from gpudesk.sizing.speed_parallel import (
    LINK_EFFICIENCY,
    LinkSpeed,
    context_parallel_bytes_per_layer,
    context_parallel_exposed_seconds,
    ring_attention_chunk_slowdown,
    ring_attention_merge_bytes_per_layer,
    data_parallel_bytes,
    expert_all_to_all_bytes_per_layer,
    expert_ranks_per_domain,
    exposed_bucketed_sync_seconds,
    frozen_weight_gather_bytes,
    gradient_buckets,
    pipeline_bubble_fraction,
    pipeline_p2p_bytes,
    remote_nodes_per_token,
    tensor_parallel_bytes_per_layer,
)
from gpudesk.units import format_flops, format_percent, format_rate

# Below every NVIDIA GPU in Stas Bekman's MAMF table (A100 0.87, H100 0.80, B200 0.78, GB200 0.73): a stated
# default for GPUs without a measurement.
DEFAULT_MATMUL_EFFICIENCY = 0.75
# MAMF is the best large square GEMM run back to back; inside a training step the GEMMs have the model's shapes,
# share the GPU with other kernels and wait on launches. Stas Bekman (ML Engineering, compute/accelerator): real
# LLM training on A100 reached ~180 TFLOPS against 271 TFLOPS MAMF: 0.66 (gpudesk.sizing.time DEFAULT_MFU_OF_MAMF).
IN_SITU_SHARE_OF_MAMF = 0.66
# FP8 GEMM efficiency as a share of the BF16 MAMF fraction of the peak. Hopper's (and Ada's) FP8 tensor cores keep
# only ~14 bits of the running sum (DeepSeek-V3 technical report, arXiv 2412.19437 section 3.3.2), so training
# frameworks run the backward GEMMs (2/3 of the FLOPs) with the split accumulator that promotes partial sums to FP32
# (Transformer Engine ``_2X_ACC_DGRAD`` / ``_2X_ACC_WGRAD``; torchao float8 backward ``use_fast_accum=False``):
# on a Hopper-class GPU the same 8192^3 FP8 GEMM ran at 1170 TFLOPS through torch._scaled_mm (whose use_fast_accum
# defaults to False, the promoting path; the report names no cause) against 1609 TFLOPS through cuBLASLt, 0.73
# (cuBLASLt FP8 cross-check report, 2026-05-24, gitea.d-robotics.cc/han.zhao/test_gpu_scripts reports_cublaslt_fp8_
# crosscheck_20260524.md). Without promotion FP8 keeps the BF16 share of its doubled peak: 1609 of 1979 TFLOPS is
# 0.81 (H100 BF16 MAMF 0.80); cuBLASLt on an H200 NVL 1661 TFLOPS FP8 against 853 BF16, 0.97 of twice the BF16 rate
# (github.com/xzwgit/gpu-flops-bench README). So: 0.80 on the split-accumulation architectures, 1.0 where the tensor
# cores accumulate FP8 products in FP32 (Blackwell tcgen05 MMA into tensor memory, AMD CDNA MFMA into FP32
# registers) and no promotion is needed.
FP8_SHARE_OF_BF16_EFFICIENCY = 0.80
SPLIT_ACCUMULATION_ARCHITECTURES = ("Hopper", "Ada Lovelace")
# torch._grouped_mm in BF16 on compute capability 10.x (B200, GB200, B300, GB300) runs PyTorch's own CUTLASS grouped
# kernel (aten/src/ATen/native/cuda/GroupMM.cu, the sm100 path added by github.com/pytorch/pytorch pull 156203), a
# fixed tile configuration chosen by heuristics rather than cuBLAS's per-shape kernel selection (pytorch issue 163425).
# torchao's B200 microbenchmark of it (github.com/pytorch/ao torchao/prototype/moe_training/README.md at 0b1bb11,
# "Microbenchmarks", torch 2.10.0a0, bf16_fwd_bwd_us: forward + both backward GEMMs, 6 M N K FLOPs) at Llama4-16e
# (M 128000, N 8192, K 5120) and DeepSeek-V3 (N 2048, K 7168) shapes, 1-8 groups: 747, 816, 822, 854, 863, 757, 712
# and 753 TFLOPS, mean 791, against cuBLAS's 1746 TFLOPS MAMF on the same GPU (0.776 x 2250): 0.45 of MAMF. The
# MXFP8 grouped kernel of the same table is not affected (74.6 % of its peak) and keeps the dense FP8 rate. Keyed by
# the exact compute capability measured: 10.0 (B200, GB200). Blackwell Ultra (10.3: B300, GB300) has no published
# measurement and keeps the dense rate; taking 0.45 there too put the compiled gpt-oss-20b GB300 rows (917-1012
# TFLOPS per GPU by torchtitan's count, fresh32 / fresh39) at 0.63-0.77 of their measured speed.
GROUPED_MM_BF16_SHARE_OF_MAMF = {"10.0": 0.45}
# Fraction of the 16-bit dense peak fused attention reaches in forward + backward. FlashAttention-2 on A100: 50-73 %
# forward, 45-63 % backward (Dao 2023, arXiv 2307.08691): 0.655 at long sequences (FA2_AMPERE_EFFICIENCY below; 0.50,
# the short-sequence low end, before). FlashAttention-2 on Hopper/Blackwell uses none of
# the new asynchronous tensor-core instructions: "only 35 % utilization on H100" (FlashAttention-3, Shah et al.
# 2024, arXiv 2407.08608); FlashAttention-3 / cuDNN fused attention (Transformer Engine): 75 % forward, ~0.5 both.
# These are kernel benchmarks: one attention call run back to back on an otherwise idle GPU, as MAMF is for GEMMs.
# Inside a training step the attention kernel shares the GPU's power and clock budget with the GEMMs around it and
# waits on the same launches, so it keeps the same in-step share of its benchmark rate as the GEMMs do
# (IN_SITU_SHARE_OF_MAMF): see attention_rate_share. Check, not a fit: the attention-bound rows (NeMo long-sequence
# H100 tables at 128k-1M tokens, 80-96 % of the step in attention; torchtitan CP 1-8 at 32-256k) ran at 0.31-0.35 of
# the 16-bit peak with cuDNN attention and ~0.2 with FlashAttention-2, against 0.50 and 0.35 taken alone.
# cuDNN on H100 (FlashAttention-3 paper, figures 5-6, head dim 128, 16k): ~600 TFLOPS forward, 516 backward: 0.50
# of 989 weighted 1 : 2.5. cuDNN 9.13 on B200 is its own kernel (tcgen05, tensor memory): FlashAttention-4 (Zadouri,
# Shah, Dao et al. 2026, together.ai/blog/flashattention-4) reaches 1613 TFLOPS forward, "up to 1.3x faster than
# cuDNN 9.13": 1240 of 2250, 0.55; its backward taken at the same share (a stated assumption).
# "flash-attn-2": the flash-attn package's FlashAttention-2 kernels as called directly (Hugging Face transformers
# attn_implementation="flash_attention_2"). Its kernels are written with Ampere's warp-level mma.sync (CUTLASS SM80
# MMA atoms, no wgmma or tcgen05) whatever GPU they are compiled for, so on a B200 they stay near their Hopper
# absolute rate: flash-attn 2.7.4 benchmark_flash_attention.py on a B200 gave 333-346 TFLOPS forward + backward at
# 8k-16k tokens (github.com/Dao-AILab/flash-attention/issues/1589, 2025-04-13), and tritonbench's flash_v2 forward
# 330-362 TFLOPS at head dimension 128, 2k-16k tokens (github.com/meta-pytorch/tritonbench/pull/171): ~345 of the
# B200's 2250 TFLOPS, 0.155. Ampere and Hopper as "fa2".
# FlashAttention's backward pass does 2.5x the forward's matmul FLOPs: it recomputes S = QK^T and P from the saved
# softmax statistics, then forms dV, dP, dQ and dK (5 matmuls against 2; Dao 2023, arXiv 2307.08691 section 3.1.2;
# flash-attention benchmarks/benchmark_flash_attention.py counts bwd = 2.5 x fwd). The kernel efficiencies above are
# measured against that count.
FLASH_BACKWARD_SHARE = 2.5
# Attention without a fused kernel (Megatron-LM CoreAttention without --use-flash-attn, transformers "eager"): the
# score matrix of every head is materialised in HBM. FlashAttention (Dao et al. 2022, arXiv 2205.14135) section 3.2
# and Algorithm 0: standard attention writes S = QK^T, reads S and writes P = softmax(S), reads P for O = PV, Theta(N d
# + N^2) HBM accesses against flash's Theta(N^2 d^2 / M). Per score element, 16-bit: forward 8 bytes (S written, S
# read and P written by the fused scale-mask-softmax, P read), backward 14 (dP = dO V^T written, P read for dV = P^T
# dO, the softmax backward reads P and dP and writes dS, dS read by dQ = dS K and by dK = dS^T Q; the paper's
# appendix B.1 standard backward). Attention dropout is left out (off in current pre-training recipes): with it
# the mask is one more read and write per element each way. The matmuls run as batched GEMMs over every key, the
# causally masked half included, 2 in forward and 4 in backward (dP, dV, dQ, dK).
UNFUSED_SCORE_BYTES_FORWARD = 8.0
UNFUSED_SCORE_BYTES_BACKWARD = 14.0
UNFUSED_BACKWARD_SHARE = 2.0
# ALiBi without a fused kernel (Press et al. 2021, arXiv 2108.12409: a per-head linear bias added to every score).
# ModelLink / MindSpeed-LLM's unfused attention for ``--position-embedding-type alibi`` (github.com/aeeeeeep/ModelLink
# mirror of gitee.com/ascend/ModelLink at d4feda7: modellink/core/transformer/dot_product_attention.py lines 186-195
# and modellink/legacy/model/transformer.py core_attention_forward) computes the scores as
# ``self.beta * self.alibi.alibi_pse + torch.bmm(q, k) * (1.0 / self.norm_factor)``: besides the bmm's own write of S
# (counted above) three eager element-wise kernels run over the N x N scores, each through HBM in 16 bits: the
# scaling (read S, write: 4 bytes), the bias times beta (read the cached bias, write: 4) and their sum (read two,
# write one: 6), 14 bytes per score element in forward. In backward the sum's gradient goes on to the scaling's
# (read dS, write: 4); the bias needs none. The non-ALiBi path folds the scale into the GEMM (``torch.baddbmm`` with
# ``alpha``) and adds none of these. Megatron-LM itself has no ALiBi; a Megatron-class profile (``megatron``,
# ``megatron-lm``, ``nemo``) running an ALiBi model unfused is this fork's path.
ALIBI_SCORE_BYTES_FORWARD = 14.0
ALIBI_SCORE_BYTES_BACKWARD = 4.0
# An eager framework (non_gemm_traffic above 1: no fused scale-mask-softmax kernel) runs the scaling and the causal
# mask as their own element-wise kernels over the N x N scores: transformers ``eager_attention_forward``
# (src/transformers/models/llama/modeling_llama.py, v4.4x: ``torch.matmul(query, key_states.transpose(2, 3)) *
# scaling`` then ``attn_weights + causal_mask``) and rasbt/LLMs-from-scratch's MultiHeadAttention (ch05/
# 10_llm-training-speed/00_orig.py at 908dd2f: ``attn_scores.masked_fill_(mask_bool, -torch.inf)`` then
# ``torch.softmax(attn_scores / self.head_dim**0.5, dim=-1)``). Each reads and writes the 16-bit scores (4 bytes per
# element) in forward, and their gradients do the same in backward: 8 bytes per element each way.
EAGER_SCORE_BYTES_FORWARD = 8.0
EAGER_SCORE_BYTES_BACKWARD = 8.0
# Ampere: FlashAttention-2 is that GPU's own kernel (written for sm80's mma.sync), and the one every framework runs
# there (Transformer Engine's attention backends on sm80 are flash-attn 2 and cuDNN's FA2-class fused kernel; there is
# no wgmma on Ampere for a FlashAttention-3 class kernel). Dao 2023 (arXiv 2307.08691, section 4.1): "up to 73 % of
# the theoretical max throughput in the forward pass, and up to 63 % ... in the backward pass" on A100, the long-
# sequence points of its sweep (512 to 16k tokens, 16k tokens per batch; the 50 % / 45 % lower ends are its short-
# sequence and head-dimension-64 points, where the fixed per-tile softmax and epilogue work weighs most). The other
# entries of this table are long-sequence (16k) figures too, so Ampere takes the same point: forward and backward
# weighted by their matmul FLOPs (1 : FLASH_BACKWARD_SHARE). 0.655 of the peak; with the in-step share 0.43, against
# ~0.58 that xtuner's own TFLOPs give for its 128k-token A100 run (docs benchmark.rst: 180 TFLOPs at 72 % attention).
FA2_AMPERE_FORWARD_SHARE = 0.73
FA2_AMPERE_BACKWARD_SHARE = 0.63
FA2_AMPERE_EFFICIENCY = (1 + FLASH_BACKWARD_SHARE) / (1 / FA2_AMPERE_FORWARD_SHARE
                                                    + FLASH_BACKWARD_SHARE / FA2_AMPERE_BACKWARD_SHARE)
# Hopper: FlashAttention-2 weighted the same way from its two H100 SXM5 measurements in the FlashAttention-3 paper
# (Shah et al. 2024, arXiv 2407.08608, head dimension 128, 16k tokens, BF16): 370 TFLOPS forward (figure 5, the
# point ATTENTION_HEAD_DIM_TFLOPS takes) and 322 TFLOPS backward (figure 6, "Attention backward speed, head dim 128
# (H100 80GB SXM5)"). Weighted 1 : FLASH_BACKWARD_SHARE: 334 TFLOPS, 0.338 of the 989.4 TFLOPS dense BF16 peak (the
# "only 35 % utilization" the paper quotes is the forward alone). Ada and other non-Ampere GPUs take the same share.
FA2_HOPPER_FORWARD_TFLOPS = 370.0
FA2_HOPPER_BACKWARD_TFLOPS = 322.0
FA2_HOPPER_EFFICIENCY = (1 + FLASH_BACKWARD_SHARE) / (1 / FA2_HOPPER_FORWARD_TFLOPS
                                                    + FLASH_BACKWARD_SHARE / FA2_HOPPER_BACKWARD_TFLOPS) / 989.4
ATTENTION_EFFICIENCY = {"fa2": {"Ampere": FA2_AMPERE_EFFICIENCY, "default": FA2_HOPPER_EFFICIENCY},
                        "cudnn": {"Ampere": FA2_AMPERE_EFFICIENCY, "Blackwell": 0.55, "default": 0.50},
                        "flash-attn-2": {"Ampere": FA2_AMPERE_EFFICIENCY, "Blackwell": 345 / 2250,
                                         "default": FA2_HOPPER_EFFICIENCY}}
# The kernel efficiencies above are measured at head dimension 128. A fused attention kernel does per score the
# two matmuls (4 d FLOPs for head dimension d) and a fixed softmax step (scale, running max, exponential, sum,
# rescale) on the CUDA cores and the special-function units, which do not shrink with d; at d = 64 that fixed step
# weighs twice as much per FLOP, and at d = 256 the tiles shrink to fit the registers. FlashAttention-3 (Shah et al.
# 2024, arXiv 2407.08608, figure 5: BF16 forward, H100 SXM5, sequence 16k, non-causal) measured, in TFLOPS at head
# dimension 64 / 128 / 256: cuDNN 413 / 595 / 509, FlashAttention-2 324 / 370 / 298. Rate at d relative to d = 128,
# interpolated on log2(d) between the measured points and held flat outside them (see attention_head_dim_factor).
# The flash-attn package's kernels are the FlashAttention-2 measured here ("fa2").
_FA2_HEAD_DIM_TFLOPS = ((64, 324.0), (128, 370.0), (256, 298.0))
ATTENTION_HEAD_DIM_TFLOPS = {"cudnn": ((64, 413.0), (128, 595.0), (256, 509.0)),
                             "fa2": _FA2_HEAD_DIM_TFLOPS, "flash-attn-2": _FA2_HEAD_DIM_TFLOPS}
# PyTorch's ring backward accumulates dK/dV in FP32 (_ContextParallelOptions.convert_to_f32) and passes them
# around the ring in that dtype: twice the bytes of the 16-bit K/V (torch/distributed/tensor/experimental/_attention.py).
PYTORCH_RING_GRAD_BYTES_RATIO = 2.0
# Permute and unpermute in forward and again in backward: 4 passes over (1 + top_k) hidden states per token.
MOE_PERMUTE_PASSES = 4
# The same permutation without the fused kernels (Megatron-Core ``moe_permute_fusion`` False, the TransformerConfig
# default since core_r0.11, github.com/NVIDIA/Megatron-LM megatron/core/transformer/transformer_config.py;
# moe_utils.py ``permute`` / ``unpermute``, unfused branch, core_r0.12 to d98e8a6, where the token dispatcher permutes
# the probabilities with the tokens and applies them in the experts): forward ``tokens.index_select`` reads top_k
# rows and writes top_k rows (the fused kernel reads the token once), ``unpermute`` writes a zeroed output and
# scatter-adds the top_k expert rows into it; backward, the scatter-add's gradient is a gather of top_k rows (read
# and write top_k), the index_select's gradient a zeroed buffer and an index_add of top_k rows. 16-bit elements:
# 2 x (6 top_k + 4) hidden values per token against the fused kernels' 2 x 4 (1 + top_k).
MOE_UNFUSED_PERMUTE_TOPK_PASSES = 12
MOE_UNFUSED_PERMUTE_TOKEN_PASSES = 8


def moe_permute_bytes_per_token(hidden: int, top_k: int, fused: bool) -> float:
    """HBM bytes one token's permutation around the experts moves in one MoE layer, forward and backward.

    ``fused``: Transformer Engine's ``moe_permute`` / ``moe_unpermute`` kernels (Megatron-Core
    ``--moe-permute-fusion``): 4 passes over (1 + top_k) 16-bit hidden states (:data:`MOE_PERMUTE_PASSES`). Unfused:
    the PyTorch index_select / scatter_add path (:data:`MOE_UNFUSED_PERMUTE_TOPK_PASSES`).
    """
    if fused:
        return MOE_PERMUTE_PASSES * (1 + top_k) * hidden * 2
    return (MOE_UNFUSED_PERMUTE_TOPK_PASSES * top_k + MOE_UNFUSED_PERMUTE_TOKEN_PASSES) * hidden


# Stas Bekman (ML Engineering, compute/accelerator): measured memory bandwidth is ~80-90 % of the datasheet.
HBM_EFFICIENCY = 0.80
# Korthikanti et al. 2022: saved values written in forward, read in backward, their gradients written.
NON_GEMM_PASSES = 3
# The logits: the LM head writes tokens x vocabulary 16-bit values, the fused cross entropy reads them once for the
# maximum and the sum of exponentials, and in backward reads them again to form softmax - one-hot and writes that
# gradient (Megatron-Core fused vocab-parallel cross entropy, megatron/core/fusions/fused_cross_entropy.py; torchtitan
# compiles the loss the same way): 4 passes of 2 bytes per vocabulary entry and token, on the last pipeline stage.
# Beside a 4096-wide layer's saved values this is small, beside a 150-200k vocabulary on a 2-3k hidden model not.
LOGITS_PASSES = 4
# An unfused loss in FP32 outside the compiled region: the trainer casts the 16-bit logits to FP32 and calls the
# eager torch.nn.CrossEntropyLoss (prime-rl src/prime_rl/trainer/sft/train.py ``ce_loss(logits.view(-1, V), ...)``
# after model.py ``forward`` -> ``cast_float_and_contiguous``, commit 8718eb1; only the transformer blocks are
# compiled). Bytes per vocabulary entry and token: the head writes 2; the cast reads 2 and writes 4; log_softmax
# (ATen's non-persistent softmax kernel for a row this wide) reads 4 for the maximum, 4 for the sum and 4 to write
# 4; backward, nll_loss writes a zeroed FP32 gradient (4), log_softmax's backward reads the gradient twice (sum, then
# result) and the output once and writes 4 (16), the cast back reads 4 and writes 2: 2 + 6 + 16 + 4 + 16 + 6 = 50,
# against LOGITS_PASSES x 2 = 8 fused.
EAGER_FP32_LOSS_BYTES_PER_LOGIT = 50.0
# Adam step: read weights/master/gradients/m/v, write master/m/v/weights: ~32 bytes per parameter it updates.
OPTIMIZER_BYTES_PER_PARAM = 32
# Host cost per operator: 5-25 us of CPU work before the kernel is queued (see host_issue_seconds): 15 us.
HOST_SECONDS_PER_OP = 15e-6
# Operators one layer issues in forward + backward: a Transformer Engine layer (fused norm+QKV, rotary, attention,
# projection, residual, fused norm+MLP) ~20 in forward and twice that in backward. An MoE block, counted in
# Megatron-Core's forward path (github.com/NVIDIA/Megatron-LM, megatron/core/transformer/moe/router.py,
# token_dispatcher.py MoEAlltoAllTokenDispatcher, moe_utils.py permute/unpermute/sort_chunks_by_idxs, experts.py
# TEGroupedMLP): router ~16 (gating linear, FP32 cast, softmax/sigmoid, top-k, routing map scatter, probability
# normalisation, the load-balancing loss's token counts, products and sums, its auto-scaler), dispatch preprocess
# ~9 (tokens per expert, their gather over the EP group, the device-to-host copy of the split sizes and its stream
# wait, the split arithmetic), permute ~8 (routing map transpose, index build, gather of tokens and probabilities),
# dispatch all-to-all ~3, chunk sort ~2, expert MLP ~5 (two grouped linears, the fused activation, the probability
# product), chunk restore ~2, combine all-to-all ~3, unpermute ~4 (zeros, scatter-add, probability product):
# ~55 in forward, about twice that in backward: 165.
DENSE_LAYER_HOST_OPS = 60
MOE_LAYER_HOST_OPS = 165
# A LoRA adapter on a linear runs beside the frozen base GEMM as separate operators (PEFT ``lora.Linear.forward``,
# github.com/huggingface/peft src/peft/tuners/lora/layer.py: ``result = self.base_layer(x)``, then
# ``result = result + lora_B(lora_A(dropout(x))) * scaling``, with the input and result dtype casts; NeMo's
# ``ParallelLinearAdapter`` likewise runs linear_in, linear_out, the optional dropout and the alpha scaling as their
# own modules): forward dropout, A, B, scale, add = 5; backward the two trainable GEMMs' data and weight gradients
# (4), the scale's and dropout's gradients (2), the sum of the input's two gradient branches (1) and the two
# gradient accumulations into .grad (2), 9; 14 per adapted linear.
LORA_HOST_OPS_PER_ADAPTED_LINEAR = 14
# An eager transformers decoder layer (transformers LlamaDecoderLayer with flash_attention_2, github.com/huggingface/
# transformers src/transformers/models/llama/modeling_llama.py, v4.3x) issues each step as its own operator: two
# RMSNorms of 8 each (upcast, square, mean, add eps, rsqrt, multiply, cast, weight), q/k/v projections with their
# views and transposes (9), rotary on q and k (cos/sin lookup, rotate_half's two slices, negation and concatenation,
# two products and a sum: ~16), the attention call with its layout changes (~5), the output projection and its
# reshape (2), SwiGLU (gate, up, activation, product, down: 5), two residual adds: ~60 in forward, about twice that
# in backward: 180 (the fused Transformer Engine layer: DENSE_LAYER_HOST_OPS).
EAGER_LAYER_HOST_OPS = 180
# Linears LoRA adapts in one layer when the row does not say which: every projection of a Llama-style block (q, k,
# v, o, gate, up, down; PEFT's ``target_modules="all-linear"`` and the QLoRA paper's practice, Dettmers et al. 2023,
# arXiv 2305.14314 section 4: "LoRA on all linear transformer block layers").
LORA_ADAPTED_LINEARS_PER_LAYER = 7
# FP8 expert GEMMs one by one: per expert, 2 linears x (forward GEMM, two backward GEMMs, 2 casts) = 10.
FP8_HOST_OPS_PER_LOCAL_EXPERT = 10
# 16-bit expert GEMMs: Transformer Engine's GroupedLinear hands the whole group to one C++ call
# (general_grouped_gemm), which still queues one cuBLAS GEMM per expert, 2 linears x 3 GEMMs = 6 per expert,
# each ~5 us of host work without the Python layer (a third of HOST_SECONDS_PER_OP): 2 operator-equivalents.
BF16_HOST_OPS_PER_LOCAL_EXPERT = 2
# The non-fused chunk sort (moe_utils.sort_chunks_by_idxs: torch.split of the received tokens into ep x local
# chunks, then torch.cat in expert order) creates one tensor view per chunk in the split and takes one in the
# cat; the restore before the combine does it again and backward mirrors both: 4 passes over the chunks, ~3 us of
# ATen/Python host work per chunk and pass (tensor view creation and its autograd record).
HOST_SECONDS_PER_SORTED_CHUNK = 3e-6
# Share of the streaming multiprocessors the overlapped all-to-all kernels take from the compute they hide behind:
# DeepSeek-V3 dedicates 20 of the H800's 132 SMs to its dispatch/combine kernels under DualPipe ("only 20 SMs are
# sufficient to fully utilize the bandwidths of IB and NVLink", arXiv 2412.19437 section 3.2.2); Megatron-Core's
# HybridEP defaults to a similar budget (moe_hybridep_num_sms 32 of 148 on Blackwell). 20/132 = 0.15.
OVERLAP_COMM_SM_SHARE = 20 / 132
# The memory estimator's precisions (optimizers.PARAM_PRECISIONS): bf16/fp16/fp8 over an fp32 master, fp32,
# torch.autocast over fp32 parameters (fp16-amp, bf16-amp) and all-bf16 (bf16-pure). Under autocast the GEMMs run
# in 16-bit (torch/amp/autocast_mode.py: matmul/linear are on the lower-precision cast list), so the 16-bit peak
# applies; only fp32 runs its GEMMs at the TF32 rate.
TRAIN_PRECISIONS = ("bf16", "fp16", "fp8", "fp32", "fp16-amp", "bf16-amp", "bf16-pure")
# Precisions whose trained parameters, and so their .grad tensors, stay fp32: DDP buckets gradients by the
# parameter's dtype (torch/nn/parallel/distributed.py, _compute_bucket_assignment_by_size groups by dtype) and
# ZeRO-3 / FSDP gather the fp32 parameters, so each synchronised element is 4 bytes instead of 2.
FP32_PARAMETER_PRECISIONS = ("fp32", "fp16-amp", "bf16-amp")
# FP8 scaling recipes (Transformer Engine recipe names; torchao float8 "tensorwise" dynamic scaling is "current").
FP8_RECIPES = ("current", "delayed", "mxfp8", "rowwise", "rowwise_with_gw_hp")
# torchao's axis-wise recipes (Float8LinearRecipeName ROWWISE / ROWWISE_WITH_GW_HP, torchao/float8/config.py,
# github.com/pytorch/ao): one scale per row of each GEMM operand along its reduction dimension. The weight-gradient
# GEMM of ``rowwise_with_gw_hp`` stays in 16-bit (see fp8_cast_bytes_per_element, rowwise_weight_gradient_bytes).
AXISWISE_RECIPES = ("rowwise", "rowwise_with_gw_hp")
SHARDINGS = ("ddp", "zero1", "zero2", "zero3", "fsdp", "distributed-optimizer")
RECOMPUTES = ("none", "selective", "full")
# The shardings whose gradients are not partitioned while the backward runs: a DeepSpeed-style engine
# (Framework.reduces_after_backward) reduces them once, at the gradient-accumulation boundary.
SYNC_AT_BOUNDARY_SHARDINGS = ("ddp", "zero1")
# The submodules Megatron-Core's selective recompute can redo in backward (``TransformerConfig.recompute_modules``,
# megatron/core/transformer/transformer_config.py, github.com/NVIDIA/Megatron-LM; ``--recompute-modules``, default
# ["core_attn"]): "core_attn" the core attention, "moe_act" the MoE MLP activation function, "layernorm" the
# input_layernorm and pre_mlp_layernorm, "mla_up_proj" the MLA up projections and RoPE, "mlp" the dense MLP,
# "moe" the MoE layer, "shared_experts" the MoE layer's shared experts. Each adds its own forward to the backward.
RECOMPUTE_MODULES = ("core_attn", "moe_act", "layernorm", "mla_up_proj", "mlp", "moe", "shared_experts")


@dataclass(frozen=True)
class Framework:
    """An implementation profile: ``non_gemm_traffic`` (memory passes of the non-GEMM kernels relative to fused
    ones), ``tp_overlap`` (share of tensor-parallel collective time hidden behind GEMMs), ``source``, the
    attention kernel family (``cudnn`` / FlashAttention-3 class, or ``fa2``), and what its selective recompute
    redoes: ``selective_mm_share`` of the forward matmuls and, when ``selective_attention``, the attention core.
    ``fp8_recipe``: its default FP8 scaling (Megatron-LM ``--fp8-recipe`` defaults to ``delayed``, Transformer
    Engine's default ``DelayedScaling`` recipe; torchao ``Float8Linear`` defaults to tensorwise dynamic scaling,
    ``current``). ``cp_kv_exchange``: how its ring attention moves K/V between context-parallel ranks
    (:data:`gpudesk.sizing.speed_parallel.CP_KV_EXCHANGES`); ``expands_gqa_kv``: its attention repeats the
    grouped K/V heads to the query heads before the attention call, so context parallelism moves the expanded
    K/V (torchtitan's Llama ``Attention.forward``: ``repeat_kv(xk, self.n_rep)`` before
    ``F.scaled_dot_product_attention``, torchtitan/models/llama/model.py, github.com/pytorch/torchtitan, 2024;
    Transformer Engine's attention takes the grouped heads as they are). ``overlaps_interleaved_p2p``: its
    interleaved pipeline schedule runs the next model chunk while the stage-to-stage sends are in flight
    (Megatron-Core ``--overlap-p2p-communication``, on by default: :mod:`gpudesk.sizing.speed_pipeline`).
    ``reduces_after_backward``: without partitioned gradients (no sharding, ZeRO-1) its engine reduces the gradients
    only at the gradient-accumulation boundary, after the last backward has finished, and gathers the updated
    weights after the optimizer step, so none of that sync runs under compute (:data:`SYNC_AT_BOUNDARY_SHARDINGS`).
    ``hides_sharded_gathers``: under FSDP / ZeRO-3 it issues the next layer's weight all-gather (and the previous
    layer's gradient reduce-scatter) while the current layer computes; False where each layer's collectives run in
    that layer's own turn, ahead of or after the compute that needs them (:data:`FRAMEWORKS` ``xla-unpipelined``).
    ``layer_host_ops``: operators one layer issues in forward + backward (:func:`host_issue_seconds`).
    ``moe_permute_fusion``: its default for the token permutation around the experts, fused kernels or not
    (:func:`moe_permute_bytes_per_token`; Megatron-LM: off unless ``--moe-permute-fusion``, TransformerConfig
    default; Megatron-Bridge: on, its MoE model bridges and recipes set ``provider.moe_permute_fusion = True``,
    github.com/NVIDIA-NeMo/Megatron-Bridge src/megatron/bridge/models/*/…_bridge.py at 067f987).
    ``regathers_for_recompute``: under ZeRO-3 with full activation checkpointing the recomputed forward gathers each
    block's weights again: DeepSpeed's pre-forward module hook fires in the recompute as in the forward
    (deepspeed/runtime/zero/parameter_offload.py ``pre_sub_module_forward_function``; github.com/deepspeedai/
    DeepSpeed issue 4784 traces the hooks of the recomputation step in backward), its post-forward hook releases
    them, and the pre-backward hook gathers them once more: 3 all-gathers per micro-batch instead of 2. Torch FSDP
    unshards a wrapped block in its pre-backward hook before the checkpoint's recompute runs inside that block, so
    it gathers twice. ``grouped_expert_gemm``: its routed experts' linears run as one grouped GEMM launch over all
    local experts (``torch._grouped_mm``: torchtitan ``GroupedExperts``, prime-rl's MoE experts), whose tiles share
    the waves, instead of one GEMM launch per expert (Transformer Engine ``GroupedLinear``,
    :mod:`gpudesk.sizing.gemm_waves`). ``hf_modeling``: its model code is Hugging Face transformers' modeling
    files, so an architecture whose transformers MoE block runs every token through every routed expert
    (``ModelSpec.hf_dense_routed_experts``: Llama 4) computes all the experts' GEMMs, not the top-k ones."""

    name: str
    non_gemm_traffic: float
    tp_overlap: float
    source: str
    attention_kernel: str = "cudnn"
    selective_mm_share: float = 0.0
    selective_attention: bool = True
    fp8_recipe: str = "delayed"
    cp_kv_exchange: str = "p2p"
    expands_gqa_kv: bool = False
    overlaps_interleaved_p2p: bool = False
    logits_bytes_per_entry: float = LOGITS_PASSES * 2
    reduces_after_backward: bool = False
    hides_sharded_gathers: bool = True
    layer_host_ops: int = DENSE_LAYER_HOST_OPS
    regathers_for_recompute: bool = False
    moe_permute_fusion: bool = True
    grouped_expert_gemm: bool = False
    hf_modeling: bool = False


# Eager PyTorch runs each pointwise op as its own kernel over HBM: RMSNorm upcast, square, mean, rsqrt, multiply,
# cast (transformers LlamaRMSNorm); SiLU then multiply; rotary in ~8 ops; a fused kernel (Transformer Engine,
# torch.compile/Inductor) makes one pass. torchtitan's own measurement (benchmarks/llama3_h100_202412_torchtitan.md,
# Tables 1 and 3): the same FSDP run is 1.157x (8 GPUs) and 1.162x (128 GPUs) faster compiled. With GEMMs and
# attention unchanged, and the fused non-GEMM kernels 5 % of that step in this model, eager moves
# 1 + 0.157 / 0.05 = ~4x the non-GEMM bytes, in line with the op count above.
_EAGER = 4.0
# torchtitan's selective activation checkpointing (selective_ac_option "op", its default) saves the outputs of the
# compute ops, SDPA included, "except every second mm": half of the forward matmuls run again in backward and the
# attention core does not (torchtitan/distributed/activation_checkpoint.py, _custom_policy). Megatron-Core's
# selective recompute redoes only the core attention (Korthikanti et al. 2022 section 5).
_TORCHTITAN_SAC = (0.5, False, "current")
FRAMEWORKS: dict[str, Framework] = {
    "megatron": Framework("megatron", 1.0, 0.6,
                          N_("Megatron-Core with Transformer Engine fused kernels (one pass, 1.0); TP communication "
                             "overlap with GEMMs (tp_comm_overlap, userbuffers) hides most of it: 0.6 (Megatron-Core "
                             "docs, 'Communication overlap'; Wang et al. 2022, arXiv 2105.05720 overlap "
                             "decomposition)"),
                          overlaps_interleaved_p2p=True),
    "nemo": Framework("nemo", 1.0, 0.6, N_("NeMo / Megatron-Bridge run Megatron-Core: same profile as megatron"),
                      overlaps_interleaved_p2p=True),
    # Megatron-LM's --tp-comm-overlap (Transformer Engine userbuffers) is off unless passed (megatron/training/
    # arguments.py, github.com/NVIDIA/Megatron-LM: action='store_true'); NeMo's performance recipes turn it on. Without
    # it only the column-parallel linears' backward overlaps its collectives: the input all-gather for the weight
    # gradient runs under the input-gradient GEMM and the input-gradient reduce-scatter under the weight-gradient GEMM
    # (megatron/core/tensor_parallel/layers.py LinearWithGradAccumulationAndAsyncCommunication.backward; Transformer
    # Engine module/linear.py _Linear.backward, async_op=True). Of the 8 collectives a layer issues with sequence
    # parallelism (4 forward, 4 backward) the 2 column-parallel reduce-scatters of the backward hide: 2 / 8.
    # reduces_after_backward: plain Megatron-LM all-reduces the DDP gradients after the last backward unless the
    # launch passes --overlap-grad-reduce (megatron/training/arguments.py: store_true, default False;
    # megatron/core/distributed/param_and_grad_buffer.py finish_grad_sync: "If overlap_grad_reduce is False, start
    # (and finish) synchronous communication call here"), and so did the Megatron-LM of 2019-2022 with its default
    # --DDP-impl local (commit 8aa4619, 2021-03: megatron/training.py train_step calls model.allreduce_params after
    # forward_backward_*; github.com/NVIDIA/Megatron-LM). Check, not a fit: OneFlow DLPerf's V100 runs at that commit
    # (github.com/Oneflow-Inc/DLPerf Megatron-LM/README.md at c89430b) took 481 ms per step on 8 GPUs and 665 / 684
    # ms on 16 / 32 over one 100 Gb/s EDR HCA per node; the 1 GB fp16 gradient ring over that NIC, not hidden, is
    # ~0.2 s. Applies to sharding ddp / zero1 (SYNC_AT_BOUNDARY_SHARDINGS); the distributed optimizer keeps the
    # bucketed overlap its recipes turn on.
    "megatron-lm": Framework("megatron-lm", 1.0, 2 / 8,
                             N_("Megatron-LM without --tp-comm-overlap (its default): Transformer Engine fused "
                                "kernels (1.0); only the column-parallel backward reduce-scatters overlap GEMMs, "
                                "2 of the 8 tensor-parallel collectives a layer issues (megatron/core/tensor_parallel/"
                                "layers.py, async reduce-scatter under the weight-gradient GEMM); without "
                                "--overlap-grad-reduce (also its default) the DDP / ZeRO-1 gradient all-reduce runs "
                                "after the last backward, not overlapped with it (param_and_grad_buffer.py "
                                "finish_grad_sync)"),
                             overlaps_interleaved_p2p=True, moe_permute_fusion=False, reduces_after_backward=True),
    "torchtitan-compile": Framework("torchtitan-compile", 1.0, 0.0,
                                    N_("torch.compile fuses the pointwise kernels as Transformer Engine does "
                                       "(1.0); vanilla DTensor TP does not overlap its collectives (torchtitan "
                                       "async-TP benchmark, June 2025: async TP is 1.09-1.16x faster); attention "
                                       "through PyTorch SDPA (FlashAttention-2 kernels)"), "fa2", *_TORCHTITAN_SAC,
                                    cp_kv_exchange="allgather", expands_gqa_kv=True, grouped_expert_gemm=True),
    "torchtitan-eager": Framework("torchtitan-eager", _EAGER, 0.0,
                                  N_("torchtitan benchmarks/llama3_h100_202412_torchtitan.md: compile is 1.16x "
                                     "eager; SDPA FlashAttention-2"), "fa2", *_TORCHTITAN_SAC,
                                  cp_kv_exchange="allgather", expands_gqa_kv=True,
                                  layer_host_ops=EAGER_LAYER_HOST_OPS, grouped_expert_gemm=True),
    # prime-rl's trainer (src/prime_rl/trainer/model.py at github.com/PrimeIntellect-ai/prime-rl commit 8718eb1):
    # torch FSDP2 fully_shard per transformer block, each block compiled on its own (apply_compile:
    # ``model.model.layers[i].compile()``, so the pointwise kernels are fused as Inductor does), the model's
    # attention through transformers' attn_implementation, default "flash_attention_2" (trainer config.py
    # ModelConfig.attn), i.e. the flash-attn package; no tensor parallelism to overlap.
    "prime-rl": Framework("prime-rl", 1.0, 0.0,
                          N_("prime-rl trainer: torch FSDP2 with each transformer block compiled (fused pointwise "
                             "kernels, 1.0); attention through the flash-attn package's FlashAttention-2 kernels "
                             "(its default attn flash_attention_2; prime-rl src/prime_rl/trainer/model.py, "
                             "config.py at 8718eb1)"), "flash-attn-2",
                          logits_bytes_per_entry=EAGER_FP32_LOSS_BYTES_PER_LOGIT, grouped_expert_gemm=True),
    "prime-rl-eager": Framework("prime-rl-eager", _EAGER, 0.0,
                                N_("prime-rl trainer without --model.compile: eager transformers modules (the "
                                   "torchtitan-measured eager factor); flash-attn FlashAttention-2"), "flash-attn-2",
                                layer_host_ops=EAGER_LAYER_HOST_OPS, grouped_expert_gemm=True),
    # llm-foundry (MosaicML Composer + torch FSDP), github.com/mosaicml/llm-foundry at 5e85bd6 (2024-01). Its attention
    # implementations (llmfoundry/models/layers/attention.py) are attn_impl "flash" (the flash-attn package, 2.4.2 in
    # setup.py's 'gpu-flash2' extra that scripts/train/benchmarking/submit_benchmarks.py installs), "triton"
    # (flash_attn_triton.py, HazyResearch's Triton FlashAttention port on triton_pre_mlir, "only been tested on
    # A100"; the default of attn_config_defaults in llmfoundry/models/layers/blocks.py, of the pretrain yamls and of
    # submit_benchmarks.py --attn_impl) and "torch" (eager matmul-softmax-matmul). The fused two are written with
    # Ampere's mma.sync, neither with the Hopper wgmma kernels (cuDNN fused attention, FlashAttention-3) that
    # Transformer Engine calls, so on Hopper the profile takes the flash-attn FlashAttention-2 rate. The Triton port's
    # own benchmark rate (FlashAttention-2 paper figure 4d, github.com/Dao-AILab/flash-attention assets/
    # flash2_a100_fwd_bwd_benchmark.png: A100, causal, head dim 128, 16k tokens, 80 TFLOPS against 189 for
    # FlashAttention-2) is not taken: it would put llm-foundry's own A100 long-sequence rows (MPT-13B at 32k, MFU
    # 51.7 % by its benchmarking README) ~40 % slower than measured, so its kernel ran nearer FlashAttention-2's
    # rate. Fused pointwise kernels and no tensor parallelism kept as the default profile's.
    "llm-foundry": Framework("llm-foundry", 1.0, 0.0,
                             N_("llm-foundry (Composer, torch FSDP): attention at the flash-attn FlashAttention-2 "
                                "rate; its flash-attn and Triton kernels use Ampere mma.sync, no Hopper cuDNN/"
                                "FlashAttention-3 kernel (llmfoundry/models/layers/attention.py at 5e85bd6)"),
                             "flash-attn-2"),
    # DeepSpeed's engine (deepspeed/runtime/engine.py, DeepSpeedEngine.allreduce_gradients, github.com/microsoft/
    # DeepSpeed, v0.9-v0.16): "ZeRO stage >= 2 communicates during non gradient accumulation boundaries as well"
    # (reduce in backward hooks); otherwise "Communicate only at gradient accumulation boundaries": ZeRO-1
    # optimizer.reduce_gradients() / buffered_allreduce_fallback(), called from engine.backward() after the
    # autograd backward has returned; the ZeRO-1/2 step then all-gathers the updated partitions
    # (runtime/zero/stage_1_and_2.py, step(): all_gather_dp_groups).
    "deepspeed": Framework("deepspeed", _EAGER, 0.0,
                           N_("eager PyTorch modules under ZeRO (no kernel fusion by default): the eager factor "
                              "measured by torchtitan (compile 1.16x eager); FlashAttention-2; without partitioned "
                              "gradients (ZeRO-0/1) the gradient reduce runs after the last backward, at the "
                              "accumulation boundary (DeepSpeedEngine.allreduce_gradients)"), "fa2",
                           reduces_after_backward=True, layer_host_ops=EAGER_LAYER_HOST_OPS,
                           regathers_for_recompute=True, hf_modeling=True),
    "hf-trainer": Framework("hf-trainer", _EAGER, 0.0,
                            N_("eager transformers modules: the eager factor measured by torchtitan (compile "
                               "1.16x eager); SDPA FlashAttention-2"), "fa2", layer_host_ops=EAGER_LAYER_HOST_OPS,
                            hf_modeling=True),
    # JAX/XLA (MaxText) runs the decoder layers as one scanned loop (scan_layers: true in MaxText's base.yml,
    # github.com/AI-Hypercomputer/maxtext e591f30, and in AMD-AGI/Primus examples/maxtext/configs/MI355X); under FSDP
    # each iteration all-gathers its layer's weights and reduce-scatters its gradients. XLA moves those collectives
    # into the neighbouring iteration, under the other layer's compute, only with its collective pipeliner on
    # (--xla_gpu_enable_pipelined_all_gather / _reduce_scatter / _all_reduce and
    # --xla_gpu_enable_while_loop_double_buffering, all off unless passed): MaxText's GPU launch scripts pass them
    # (MaxText/configs/a3/llama_2_7b/16vm.sh at github.com/AI-Hypercomputer/maxtext efb6d9e). Without them the
    # latency-hiding scheduler has nothing in the same iteration to hide a gather behind (the layer's compute needs
    # the gathered weights) or a gradient reduce-scatter behind (it closes the iteration), so the FSDP traffic adds
    # to the step. The JAX training images AMD builds bake XLA_FLAGS with the latency-hiding scheduler on and no
    # pipelining flag (github.com/AMD-AGI/Primus .github/workflows/docker-release/Dockerfile.jax-v26.4, fd1eeab;
    # no Primus MaxText config sets one either).
    # Compute as the fused-kernel profile (XLA fuses the pointwise ops; 1.0); no collective matmul, so no TP overlap.
    "xla-unpipelined": Framework("xla-unpipelined", 1.0, 0.0,
                                 N_("JAX/XLA (MaxText) without XLA's collective pipeliner (the default XLA flags of "
                                    "AMD's JAX training images): each scanned layer's FSDP weight all-gather and "
                                    "gradient reduce-scatter run in that layer's turn, not under other layers' "
                                    "compute (MaxText configs/a3 launch scripts turn the pipeliner on)"),
                                 hides_sharded_gathers=False),
}


@dataclass(frozen=True)
class TrainSetup:
    """One fixed training layout (what ``gpudesk estimate speed`` takes).

    ``gpus`` in all, ``gpus_per_node`` the NVLink domain (8 for HGX, 72 for an NVL72 rack), ``intra_gbps`` /
    ``inter_gbps`` per-GPU per-direction GB/s of the NVLink (or PCIe) and the scale-out NIC. Parallel degrees
    ``tp pp vp cp ep etp``; ``global_batch`` and ``micro_batch`` in sequences of ``seq_len`` tokens;
    ``tokens`` to train (for time to result, optional). ``adapter_params``: the trainable parameters of a
    LoRA / QLoRA run (the base model frozen), None for full training. ``ep_comm_overlap``: the expert all-to-all
    runs under another micro-batch's compute (Megatron-Core ``--overlap-moe-expert-parallel-comm``, DeepSeek-V3
    DualPipe), see :func:`overlapped_all_to_all_seconds`. ``ep_node_dedup``: the dispatcher sends a token once per
    destination GPU inside the NVLink domain and across the network once per destination domain (DeepEP / HybridEP),
    see :func:`gpudesk.sizing.speed_parallel.remote_nodes_per_token`. ``fp8_recipe``: how FP8 GEMM inputs are scaled
    (:data:`FP8_RECIPES`, see :func:`fp8_cast_bytes_per_element`); None: the framework's default.
    ``mtp_layers``: multi-token-prediction depths trained with the model (Megatron-Core ``--mtp-num-layers``), each
    one more transformer layer, its projection and another pass of the output head (:func:`mtp_layer_gemm_params`).
    ``intra_kind``: the class of the in-node GPU-to-GPU link, ``nvlink`` (any scale-up fabric: NVLink, Infinity
    Fabric) or ``pcie`` (a PCIe-only server), see :func:`tensor_parallel_overlap`.
    ``recompute_modules``: the submodules selective recompute redoes in backward (:data:`RECOMPUTE_MODULES`,
    Megatron-Core ``--recompute-modules``); giving them means selective recompute of exactly those modules
    (:func:`recompute_module_seconds`); empty: ``recompute`` alone decides.
    ``moe_permute_fusion``: the tokens are permuted around the experts by fused kernels (Megatron-Core
    ``--moe-permute-fusion``) or not (:func:`moe_permute_bytes_per_token`); None: the framework's default
    (:attr:`Framework.moe_permute_fusion`).
    ``grouped_expert_gemm``: each routed-expert linear runs as one grouped GEMM launch over the local experts
    (torchtitan ``MoEArgs.use_grouped_mm``, ``torch._grouped_mm``) or as one launch per expert (torchtitan's
    for-loop path, Transformer Engine ``GroupedLinear``), see :func:`gpudesk.sizing.gemm_waves.wave_efficiency`;
    None: the framework's default (:attr:`Framework.grouped_expert_gemm`).
    ``flash_attention``: the attention runs as one fused (flash) kernel, the framework's own (:attr:`Framework.
    attention_kernel`); False: unfused, the score matrix materialised in HBM (:func:`unfused_attention_seconds`).
    ``moe_force_balance``: the router is forced to spread the tokens evenly over the experts (Megatron-Core
    ``--moe-router-force-load-balancing``, a benchmarking setting); False: learned routing. Recorded only: the
    estimate assumes balanced routing either way (a flat busiest-rank factor for learned routing was tried and
    lowered the share within 20 %, tests/fixtures/speed/speedfix109_notes.md).
    """

    gpus: int
    seq_len: int
    global_batch: int
    micro_batch: int = 1
    tp: int = 1
    pp: int = 1
    vp: int = 1
    cp: int = 1
    ep: int = 1
    etp: int = 1
    precision: str = "bf16"
    sharding: str = "distributed-optimizer"
    recompute: str = "none"
    framework: str = "megatron"
    gpus_per_node: int = 8
    intra_gbps: float = 450.0
    inter_gbps: float = 50.0
    intra_name: str = "NVLink"
    inter_name: str = "network"
    tokens: float | None = None
    adapter_params: float | None = None
    ep_comm_overlap: bool = False
    ep_node_dedup: bool = False
    fp8_recipe: str | None = None
    mtp_layers: int = 0
    recompute_modules: tuple[str, ...] = ()
    intra_kind: str = "nvlink"
    moe_permute_fusion: bool | None = None
    grouped_expert_gemm: bool | None = None
    flash_attention: bool = True
    moe_force_balance: bool = False


def permute_fused(s: TrainSetup, fw: Framework) -> bool:
    """Whether the run permutes its tokens with fused kernels: the setup's choice, else the framework's default."""
    return fw.moe_permute_fusion if s.moe_permute_fusion is None else s.moe_permute_fusion


def routed_copies(spec: ModelSpec, sh: _Shape, fw: Framework) -> int:
    """Copies of each token the routed experts compute: its ``top_k``; every expert where the framework runs
    transformers' modeling of an architecture whose MoE block sends each token to all routed experts
    (:data:`gpudesk.sizing.shapes.HF_DENSE_ROUTED_MODEL_TYPES`: Llama 4's ``Llama4TextMoe`` repeats the hidden states
    once per expert and zeroes the unselected ones by the router score, so Scout's 16 experts each run every token)."""
    if fw.hf_modeling and spec.hf_dense_routed_experts and sh.experts:
        return sh.experts
    return sh.top_k


def experts_grouped(s: TrainSetup, fw: Framework) -> bool:
    """Whether the run launches each expert linear once for all local experts (a grouped GEMM): the setup's choice,
    else the framework's default."""
    return fw.grouped_expert_gemm if s.grouped_expert_gemm is None else s.grouped_expert_gemm


@dataclass(frozen=True)
class GpuRates:
    """What the GPU sustains: dense peaks (TFLOPS) at 16-bit and FP8, matmul efficiency, HBM GB/s."""

    name: str
    bf16_tflops: float
    fp8_tflops: float | None
    matmul_efficiency: float | None
    hbm_gbps: float
    efficiency_source: str = ""
    architecture: str = ""
    compute_capability: str = ""  # CUDA "major.minor" (catalog); empty where unknown or not CUDA
    sm_count: int = 0  # streaming multiprocessors (gemm_waves); 0 where unknown: no wave quantization


@dataclass(frozen=True)
class TrainSpeed:
    """The estimate for one layout: ``tokens_per_s_per_gpu``, ``step_time_s``, ``mfu`` (model FLOPs / BF16 dense
    peak), ``time_to_result_s`` (None without ``tokens``), ``comm_share`` (exposed communication / step),
    ``bubble_share`` (pipeline idle / step), ``breakdown`` (seconds per step per term) and the assumptions."""

    tokens_per_s_per_gpu: float
    step_time_s: float
    mfu: float
    time_to_result_s: float | None
    comm_share: float
    bubble_share: float
    micro_batches: int
    model_flops_per_token: float
    breakdown: dict[str, float] = field(default_factory=dict)
    assumptions: tuple[Assumption, ...] = ()

    def to_dict(self) -> dict[str, object]:
        """Plain dict for JSON (``train`` of ``gpudesk estimate speed --json``)."""
        return {"tokens_per_s_per_gpu": self.tokens_per_s_per_gpu, "step_time_s": self.step_time_s, "mfu": self.mfu,
                "time_to_result_s": self.time_to_result_s, "comm_share": self.comm_share,
                "bubble_share": self.bubble_share, "micro_batches": self.micro_batches,
                "model_flops_per_token": self.model_flops_per_token, "breakdown_s": dict(self.breakdown)}


@dataclass(frozen=True)
class _Shape:
    """Per-token, per-layer figures of the model the time terms need."""

    layers: int
    hidden: int
    q_width: int
    kv_width: int
    dense_gemm_params: float  # per token, whole model, excluding routed experts
    expert_gemm_params: float  # per token: top_k routed experts, all MoE layers
    expert_params_total: float  # all routed experts, all layers (held once across EP ranks)
    moe_layers: int
    experts: int
    top_k: int
    expert_width: int
    expert_fc1_factor: int  # output width of an expert's first linear / expert_width: 2 gated (gate + up), 1 plain
    dense_ffn_width: int  # MLP width of the layers without experts
    saved_bytes_per_token_layer: float  # Korthikanti coefficient x h
    lm_head_params: float  # vocabulary x hidden: the output projection's GEMM parameters
    attention_context: float  # mean keys a query attends to (causal half, sliding windows capped)
    attention_width: int = 0  # per-token width of the attention core's matmuls, mean of QK and PV (q_width without MLA)
    kv_heads: int = 1  # K/V heads the attention call takes (split over tensor parallelism)
    expert_bias: bool = False  # the routed experts' linears carry biases
    clamped_glu: bool = False  # the gated activation clamps its inputs (swiglu_limit)
    extra_dense_params: float = 0.0  # trainable non-expert parameters beyond the model's own (the MTP modules)
    extra_expert_params: float = 0.0  # routed-expert parameters beyond the model's own (the MTP modules' experts)
    mla_up_params: float = 0.0  # per layer: MLA up-projection GEMM parameters (0 without MLA)
    dense_mlp_params: float = 0.0  # per dense (non-MoE) layer: MLP GEMM parameters
    shared_expert_params: float = 0.0  # per MoE layer: shared experts' GEMM parameters
    dense_layers: int = 0  # layers without routed experts


def _shape(spec: ModelSpec, seq_len: int, mtp_layers: int = 0) -> _Shape:
    if not spec.is_transformer or not spec.vocab_size:
        raise SizingError("model", _("{model}: the speed model needs a transformer shape with layers, hidden size, "
                                     "heads and vocabulary.").format(model=spec.name))
    layers, h = int(spec.layers or 0), int(spec.hidden_size or 0)
    heads = int(spec.num_attention_heads or 0)
    q_width = heads * spec.head_dim_resolved
    kv_width = spec.kv_heads_resolved * spec.head_dim_resolved
    attention_width, kv_heads = q_width, spec.kv_heads_resolved
    if spec.attention_kind == "mla" and spec.kv_lora_rank:
        # Training runs MLA decompressed (mla_attention_dims): every head has its own K of d_qk and V of d_v.
        d_qk, d_v = mla_attention_dims(spec)
        q_width, kv_width, kv_heads = heads * d_v, heads * (d_qk + d_v) // 2, heads
        attention_width = heads * (d_qk + d_v) // 2
    embedding = spec.vocab_size * h
    # The input embedding is a lookup; with tied embeddings the one matrix is the LM head GEMM.
    gemm_active = spec.active_params - (0 if spec.tied_embeddings else embedding)
    experts, top_k = int(spec.moe_experts or 0), int(spec.moe_active_experts or 0)
    moe_layers = (spec.moe_layers if spec.moe_layers is not None else layers) if experts else 0
    one_expert = spec.expert_params
    expert_gemm = moe_layers * top_k * one_expert
    ffn = spec.moe_ffn_size or spec.ffn_size or 4 * h
    mlp_width = top_k * ffn if experts else (spec.ffn_size or 4 * h)
    coeff = 18 + (6 if spec.gated else 4) * mlp_width / h
    if spec.attention_kind == "mla" and spec.kv_lora_rank:
        coeff += mla_extra_saved_bytes_per_token(spec) / h
    local = spec.local_attention_layers
    window = spec.sliding_window or seq_len
    causal = seq_len / 2
    per_matrix = 3 if spec.gated else 2
    dense_mlp = float(per_matrix * h * (spec.ffn_size or 4 * h))
    shared = float(spec.moe_shared_experts * per_matrix * h * ffn) if experts else 0.0
    dense_gemm = max(1.0, gemm_active - expert_gemm)
    extra_dense = 0.0
    mtp = max(0, int(mtp_layers))
    if mtp:
        # Each MTP depth: its transformer layer (the model's own layer kind), its projection, and the shared
        # output head run once more (mtp_layer_gemm_params); the head's weights are the model's own.
        layer_params = mtp_layer_gemm_params(spec)
        dense_gemm += mtp * (layer_params + embedding)
        extra_dense = mtp * layer_params
        expert_gemm += mtp * top_k * one_expert
    context = (local * min(window, causal) + (layers + mtp - local) * causal) / (layers + mtp)
    return _Shape(layers=layers + mtp, hidden=h, q_width=q_width, kv_width=kv_width,
                  dense_gemm_params=dense_gemm, expert_gemm_params=float(expert_gemm),
                  expert_params_total=float((moe_layers + (mtp if experts else 0)) * experts * one_expert),
                  moe_layers=moe_layers + (mtp if experts else 0), experts=experts,
                  top_k=top_k, expert_width=int(ffn),
                  expert_fc1_factor=max(1, round(one_expert / (h * ffn)) - 1) if experts else 1, dense_ffn_width=int(spec.ffn_size or 4 * h),
                  saved_bytes_per_token_layer=coeff * h, lm_head_params=float(embedding) * (1 + mtp),
                  attention_context=context, attention_width=attention_width, kv_heads=kv_heads,
                  expert_bias=bool(experts) and spec.expert_bias,
                  clamped_glu=bool(experts) and spec.clamped_glu, extra_dense_params=extra_dense,
                  extra_expert_params=float((mtp if experts else 0) * experts * one_expert),
                  mla_up_params=float(mla_up_projection_params(spec)), dense_mlp_params=dense_mlp,
                  shared_expert_params=shared, dense_layers=layers - moe_layers)


def attention_gemm_params(spec: ModelSpec) -> int:
    """GEMM parameters of one attention block: Q, K, V and output projections, or MLA's down- and up-projections
    and output projection at the per-head widths training uses (:func:`mla_attention_dims`)."""
    h, heads = int(spec.hidden_size or 0), int(spec.num_attention_heads or 0)
    if spec.attention_kind == "mla" and spec.kv_lora_rank:
        _d_qk, d_v = mla_attention_dims(spec)
        rope = spec.qk_rope_head_dim or MLA_DEFAULT_QK_ROPE_HEAD_DIM
        q_down = h * spec.q_lora_rank if spec.q_lora_rank else 0
        return q_down + h * (int(spec.kv_lora_rank) + rope) + mla_up_projection_params(spec) + heads * d_v * h
    d = spec.head_dim_resolved
    return 2 * h * heads * d + 2 * h * spec.kv_heads_resolved * d


def mla_up_projection_params(spec: ModelSpec) -> int:
    """GEMM parameters of MLA's up-projections per layer (what Megatron-Core's "mla_up_proj" recompute redoes):
    the query up-projection ``q_lora_rank x heads x d_qk`` (the full query projection ``hidden x heads x d_qk``
    without a query latent) and the key/value up-projection ``kv_lora_rank x heads x (qk_nope + d_v)`` (DeepSeek-V2
    report, arXiv 2405.04434 section 2.1; Megatron-Core MLASelfAttention linear_q_up_proj / linear_kv_up_proj).
    0 for a model without MLA."""
    if spec.attention_kind != "mla" or not spec.kv_lora_rank:
        return 0
    heads = int(spec.num_attention_heads or 0)
    d_qk, d_v = mla_attention_dims(spec)
    nope = spec.qk_nope_head_dim or MLA_DEFAULT_QK_NOPE_HEAD_DIM
    q_in = spec.q_lora_rank or int(spec.hidden_size or 0)
    return q_in * heads * d_qk + int(spec.kv_lora_rank) * heads * (nope + d_v)


def mtp_layer_gemm_params(spec: ModelSpec) -> float:
    """Trainable non-expert GEMM parameters of one multi-token-prediction depth.

    DeepSeek-V3 (arXiv 2412.19437, section 2.2): the k-th MTP module is a shared embedding, a projection matrix
    ``M_k`` of ``hidden x 2 hidden`` over the concatenated normalised hidden state and next-token embedding, one
    Transformer block ``TRM_k`` and the shared output head, whose logits and cross entropy run once more per depth.
    Megatron-Core builds the same (megatron/core/transformer/multi_token_prediction.py, MultiTokenPredictionLayer:
    enorm, hnorm, eh_proj, one transformer layer of the decoder's layer spec, final layernorm; the output layer is
    the GPT model's own, github.com/NVIDIA/Megatron-LM). The block is the model's own layer kind: an MoE layer for
    an MoE model (its routed experts are counted with the experts), a dense layer otherwise. The output head's
    GEMM is added by the caller (its weights are shared, its FLOPs are not)."""
    h = int(spec.hidden_size or 0)
    per_matrix = 3 if spec.gated else 2
    if spec.moe_experts:
        mlp = (spec.moe_shared_experts * per_matrix * h * (spec.moe_ffn_size or spec.ffn_size or 4 * h)
               + h * int(spec.moe_experts))  # shared experts + router
    else:
        mlp = per_matrix * h * (spec.ffn_size or 4 * h)
    return float(attention_gemm_params(spec) + mlp + 2 * h * h)


# Multi-head latent attention's per-head widths when the model record does not carry them: transformers'
# DeepseekV3Config defaults (qk_nope_head_dim 128, qk_rope_head_dim 64, v_head_dim 128; DeepSeek-V2/V3/R1 and Kimi K2
# ship these), the same defaults gpudesk.sizing.shapes reads a config.json with.
MLA_DEFAULT_QK_NOPE_HEAD_DIM = 128
MLA_DEFAULT_QK_ROPE_HEAD_DIM = 64
MLA_DEFAULT_V_HEAD_DIM = 128


def mla_attention_dims(spec: ModelSpec) -> tuple[int, int]:
    """(query/key width, value width) per head of multi-head latent attention as training runs it.

    Training does not attend in the compressed latent: Megatron-Core's ``MLASelfAttention`` (megatron/core/
    transformer/multi_latent_attention.py, github.com/NVIDIA/Megatron-LM) up-projects the ``kv_lora_rank`` latent to
    per-head keys of ``qk_nope_head_dim + qk_rope_head_dim`` (192 for DeepSeek-V3) and values of ``v_head_dim``
    (128) and calls the fused attention with those head sizes (DeepSeek-V2 report, arXiv 2405.04434 section 2.1.2;
    the absorbed form attends in the 512 + 64 latent only at inference). So the attention core does ``2 x 192`` FLOPs
    per head and key for QK^T and ``2 x 128`` for PV, not the 288-wide KV-cache view the memory model keeps.
    """
    nope = spec.qk_nope_head_dim or MLA_DEFAULT_QK_NOPE_HEAD_DIM
    rope = spec.qk_rope_head_dim or MLA_DEFAULT_QK_ROPE_HEAD_DIM
    return nope + rope, spec.v_head_dim or MLA_DEFAULT_V_HEAD_DIM


def mla_extra_saved_bytes_per_token(spec: ModelSpec) -> float:
    """16-bit bytes one MLA layer keeps per token for backward beyond the standard attention block of Korthikanti
    et al. 2022 (arXiv 2205.05198, section 4.1), whose Q, K (2h), V (h) and output-projection input (h) assume heads
    x head width = h. MLA keeps per-head queries and keys of ``d_qk`` and values and attention outputs of ``d_v``
    (:func:`mla_attention_dims`; 128 heads x 192 / 128 against h = 7168 for DeepSeek-V3), plus the down-projection
    outputs and their norms the up-projections take (``q_lora_rank`` twice, ``kv_lora_rank`` twice,
    ``qk_rope_head_dim``; Megatron-Core MLASelfAttention). Each linear keeps its input, the attention core its Q, K,
    V and output."""
    heads = int(spec.num_attention_heads or 0)
    h = int(spec.hidden_size or 0)
    d_qk, d_v = mla_attention_dims(spec)
    mla = (heads * (2 * d_qk + 2 * d_v) + 2 * (spec.q_lora_rank or 0) + 2 * int(spec.kv_lora_rank or 0)
           + (spec.qk_rope_head_dim or MLA_DEFAULT_QK_ROPE_HEAD_DIM))
    return 2.0 * max(0, mla - 4 * h)


def model_flops_per_token(spec: ModelSpec, seq_len: int, mtp_layers: int = 0) -> float:
    """Model FLOPs per trained token (no recompute): ``6 x`` active matmul parameters + causal attention
    ``3 x 4 x layers x d_attn x s/2`` (PaLM appendix B with the causal half); ``mtp_layers`` multi-token-prediction
    depths count as trained layers with their output head (Megatron-LM counts them in its reported FLOPs)."""
    sh = _shape(spec, positive_int("seq_len", seq_len), mtp_layers)
    return 6 * (sh.dense_gemm_params + sh.expert_gemm_params) + 12 * sh.layers * sh.attention_width * sh.attention_context


def _check(setup: TrainSetup) -> None:
    s = setup
    choice("precision", s.precision, TRAIN_PRECISIONS)
    choice("sharding", s.sharding, SHARDINGS)
    choice("recompute", s.recompute, RECOMPUTES)
    if s.fp8_recipe is not None:
        choice("fp8_recipe", s.fp8_recipe, FP8_RECIPES)
    choice("intra_kind", s.intra_kind, INTRA_LINK_KINDS)
    if s.mtp_layers:
        positive_int("mtp_layers", s.mtp_layers, maximum=64)
    for module in s.recompute_modules:
        choice("recompute_modules", module, RECOMPUTE_MODULES)
    if s.recompute_modules and s.recompute == "full":
        raise SizingError("recompute_modules", _("recompute modules choose what selective recompute redoes; full "
                                                 "recompute already redoes every layer's forward."))
    if not s.flash_attention and s.cp > 1:
        # Megatron-Core's context parallelism runs inside the fused attention (Transformer Engine
        # AttnFuncWithCPAndKVP2P); torch's ring attention wraps the SDPA flash / efficient kernels.
        raise SizingError("cp", _("context parallelism needs a fused (flash) attention kernel."))
    if s.framework not in FRAMEWORKS:
        raise SizingError("framework", _("{framework!r} is not a known framework; use one of {names}.").format(
            framework=s.framework, names=", ".join(FRAMEWORKS)))
    for name in ("gpus", "seq_len", "global_batch", "micro_batch", "tp", "pp", "vp", "cp", "ep", "etp",
                 "gpus_per_node"):
        positive_int(name, getattr(s, name))
    if s.tokens is not None:
        positive_float("tokens", s.tokens)
    model_parallel = s.tp * s.pp * s.cp
    if s.gpus % model_parallel:
        raise SizingError("gpus", _("{gpus} GPUs are not a multiple of tp x pp x cp = {n}.").format(
            gpus=s.gpus, n=model_parallel))
    stage_gpus = s.gpus // s.pp
    if stage_gpus % (s.ep * s.etp):
        # Name the degree the user got wrong: the one that alone does not divide the stage; both when each alone
        # divides it and only their product does not, or when neither does (the CLI shows "ep_etp" as "--ep/--etp").
        ep_bad, etp_bad = bool(stage_gpus % s.ep), bool(stage_gpus % s.etp)
        culprit = "ep" if ep_bad and not etp_bad else "etp" if etp_bad and not ep_bad else "ep_etp"
        raise SizingError(culprit, _("ep x etp = {n} does not divide the {gpus} GPUs of a pipeline stage.").format(
            n=s.ep * s.etp, gpus=s.gpus // s.pp))
    replicas = s.gpus // model_parallel
    if s.global_batch % (replicas * s.micro_batch):
        raise SizingError("global_batch", _("the global batch {gb} is not a multiple of micro-batch {mb} x {dp} "
                                            "data-parallel replicas.").format(gb=s.global_batch, mb=s.micro_batch,
                                                                              dp=replicas))


def train_speed(spec: ModelSpec, gpu: GpuRates, setup: TrainSetup) -> TrainSpeed:
    """Estimate one training layout (see the module docstring for every term and its source).

    Raises:
        SizingError: a degree that does not divide the GPUs or the batch, an unknown framework, precision,
            sharding or recompute, or a GPU without a rate at the precision.
    """
    _check(setup)
    s = setup
    if s.flash_attention and not fused_attention_available(gpu.compute_capability):
        s = replace(s, flash_attention=False)  # no fused attention kernel on this GPU (FUSED_ATTENTION_MIN_CAPABILITY)
    fw = FRAMEWORKS[s.framework]
    sh = _shape(spec, s.seq_len, s.mtp_layers)
    if s.ep > 1 and not sh.experts:
        raise SizingError("ep", _("{model} has no experts; expert parallelism needs an MoE model.").format(model=spec.name))
    if sh.experts and sh.experts % s.ep:
        # Megatron-Core asserts num_moe_experts % expert_model_parallel_size == 0 (each EP rank holds whole experts).
        raise SizingError("ep", _("{model} has {experts} routed experts; the expert-parallel degree {ep} must divide "
                                  "them.").format(model=spec.name, experts=sh.experts, ep=s.ep))
    if s.vp > 1 and s.pp == 1:
        raise SizingError("vp", _("virtual pipeline stages need pipeline parallelism; set --pp above 1 or leave "
                                  "--vp at 1."))
    eff = gpu.matmul_efficiency if gpu.matmul_efficiency else DEFAULT_MATMUL_EFFICIENCY
    fp8 = s.precision == "fp8"
    if fp8 and not gpu.fp8_tflops:
        raise SizingError("precision", _("{gpu} has no FP8 tensor cores.").format(gpu=gpu.name))
    base_peak = gpu.bf16_tflops * 1e12 if s.precision != "fp32" else gpu.bf16_tflops * 1e12 / 2
    per_param = 4 if s.adapter_params else 6
    fp8_share = fp8_gemm_share(gpu.architecture, per_param, s.recompute if not s.recompute_modules else "none",
                               fw.selective_mm_share) if fp8 else 1.0
    gemm_eff = eff * IN_SITU_SHARE_OF_MAMF * fp8_share
    gemm_rate = (gpu.fp8_tflops * 1e12 if fp8 and gpu.fp8_tflops else base_peak) * gemm_eff
    attn_rate = base_peak * attention_rate_share(fw, gpu.architecture) * attention_head_dim_factor(
        fw.attention_kernel, 128 if spec.attention_kind == "mla" else spec.head_dim_resolved)
    hbm = gpu.hbm_gbps * 1e9 * HBM_EFFICIENCY

    replicas = s.gpus // (s.tp * s.pp * s.cp)
    micro_batches = s.global_batch // (replicas * s.micro_batch)
    tokens_mb = s.micro_batch * s.seq_len / s.cp  # tokens this GPU's shard holds per micro-batch
    layers_local = sh.layers / s.pp
    moe_local = sh.moe_layers / s.pp

    # GEMMs (dense part compute bound; experts on a roofline over the tokens each local expert receives). A frozen
    # base (LoRA) skips the weight gradients: forward 2 + input gradients 2 FLOPs per parameter (Hu et al. 2021).
    dense_flops = per_param * sh.dense_gemm_params / (s.tp * s.pp) * tokens_mb
    t_dense = dense_flops / gemm_rate
    if fp8:
        # The LM head stays 16-bit under FP8 training: Megatron-Core builds the output layer as a plain
        # tensor_parallel.ColumnParallelLinear (megatron/core/models/gpt/gpt_model.py), outside Transformer Engine's
        # FP8 autocast, and torchtitan's float8 converter skips the "output" module (filter_fqns = ["output"],
        # torchtitan docs/float8.md). Its share of the dense GEMMs (vocabulary x hidden: 9 % of Qwen3-30B-A3B's
        # active GEMMs, 11 % of gpt-oss-120b's) runs at the 16-bit rate.
        head_flops = per_param * sh.lm_head_params / (s.tp * s.pp) * tokens_mb
        t_dense += head_flops / (base_peak * eff * IN_SITU_SHARE_OF_MAMF) - head_flops / gemm_rate
        if (s.fp8_recipe or fw.fp8_recipe) == "rowwise_with_gw_hp" and not s.adapter_params:
            # The weight-gradient GEMMs (2 of the 6 FLOPs per parameter) run at the 16-bit rate.
            wgrad_flops = 2 * (sh.dense_gemm_params - sh.lm_head_params) / (s.tp * s.pp) * tokens_mb
            t_dense += wgrad_flops / (base_peak * eff * IN_SITU_SHARE_OF_MAMF) - wgrad_flops / gemm_rate
    t_expert = 0.0
    if sh.experts and sh.expert_gemm_params:
        # Each local expert (a 1/etp slice of every routed expert on the ep ranks) receives its share of the
        # top_k routed copies of the tokens the expert-parallel group holds (uniform routing).
        local_experts = max(1.0, sh.experts / s.ep)
        rows = tokens_mb * routed_copies(spec, sh, fw) * s.etp / (s.tp * local_experts)
        expert_rate = gemm_rate * grouped_mm_share(gpu.compute_capability, experts_grouped(s, fw), fp8)
        t_expert = moe_local * local_experts * expert_mlp_seconds(
            rows, sh.hidden, sh.expert_width / s.etp, sh.expert_fc1_factor, 1 if fp8 else 2, expert_rate, hbm,
            weight_gradients=not s.adapter_params, sm_count=gpu.sm_count,
            experts_per_launch=round(local_experts) if experts_grouped(s, fw) else 1)
    modules = frozenset(m.lower() for m in s.recompute_modules)
    recompute_gemm = {"full": (per_param + 2) / per_param,
                      "selective": (per_param + 2 * fw.selective_mm_share) / per_param, "none": 1.0}[s.recompute]
    if modules:
        recompute_gemm = 1.0  # the listed modules replace the framework's default selective set
    t_gemm = (t_dense + t_expert) * recompute_gemm

    # Executed FLOPs: FlashAttention's backward recomputes the scores (5 matmuls to the forward's 2), 2.5x the forward.
    attn_flops = (4 * (1 + FLASH_BACKWARD_SHARE) * sh.attention_width * sh.attention_context * layers_local / s.tp
                  * tokens_mb)
    redo = (2 + FLASH_BACKWARD_SHARE) / (1 + FLASH_BACKWARD_SHARE)
    attn_factor = {"full": redo, "selective": redo if fw.selective_attention else 1.0, "none": 1.0}[s.recompute]
    if modules:
        attn_factor = redo if "core_attn" in modules else 1.0
    t_attn = attn_flops * attn_factor / attn_rate
    # Blackwell Ultra's doubled SFU rate shortens the softmax exponentials the kernel rate above was measured with.
    t_attn /= blackwell_ultra_attention_speedup(gpu.compute_capability, fw.attention_kernel, FLASH_BACKWARD_SHARE,
                                                2.0 if attn_factor > 1 else 1.0)
    if not s.flash_attention:
        t_attn = layers_local * unfused_attention_seconds(
            s.micro_batch, s.seq_len, int(spec.num_attention_heads or 0) / s.tp, sh.attention_width / s.tp,
            attn_factor > 1, base_peak * eff * IN_SITU_SHARE_OF_MAMF, hbm, alibi=uses_alibi(spec),
            eager=fw.non_gemm_traffic > 1)
    if s.cp > 1:
        # Ring attention: shorter per-step flash-attention calls and the partial-result merges (speed_parallel).
        t_attn *= ring_attention_chunk_slowdown(s.seq_len, s.cp)
        # The dK/dV accumulators are as wide as the K/V the attention call takes: the query width where the
        # framework repeats the grouped heads (Framework.expands_gqa_kv).
        merged_kv = (sh.q_width // s.tp if fw.expands_gqa_kv
                     else max(1, sh.kv_width // max(1, min(s.tp, sh.kv_heads))))
        t_attn += ring_attention_merge_bytes_per_layer(tokens_mb, sh.q_width // s.tp, merged_kv, s.cp) * (
            layers_local / hbm)

    saved = NON_GEMM_PASSES * sh.saved_bytes_per_token_layer * tokens_mb * layers_local / s.tp
    if sh.experts and moe_local:
        saved += NON_GEMM_PASSES * expert_input_saved_bytes(sh.hidden, sh.top_k) * tokens_mb / s.tp * moe_local
    if fp8:
        elements = tokens_mb / s.tp * ((layers_local - moe_local) * fp8_cast_elements_per_token(
            sh.hidden, sh.q_width, sh.dense_ffn_width) + moe_local * fp8_cast_elements_per_token(
            sh.hidden, sh.q_width, sh.expert_width, max(1, sh.top_k) if sh.experts else 1))
        recipe = s.fp8_recipe or fw.fp8_recipe
        saved += elements * fp8_cast_bytes_per_element(recipe, non_tn_fp8_gemm(gpu.compute_capability))
        linear_params = (sh.dense_gemm_params - sh.lm_head_params) / (s.tp * s.pp)
        if not s.adapter_params:
            saved += rowwise_weight_gradient_bytes(recipe, linear_params)
    if sh.experts and moe_local:
        # Token permutation around the experts (Megatron-Core moe_utils permute / unpermute, github.com/NVIDIA/
        # Megatron-LM megatron/core/transformer/moe/moe_utils.py): forward gathers each
        # token's hidden state into expert order (read h, write top_k h) and scatters the expert outputs back (read
        # top_k h, write h); backward does the same with the gradients. 16-bit elements.
        saved += moe_permute_bytes_per_token(sh.hidden, sh.top_k, permute_fused(s, fw)) * tokens_mb / s.tp * moe_local
        saved += expert_chunk_sort_bytes_per_token(sh.hidden, sh.top_k, sh.experts, s.ep, s.ep_node_dedup) * (
            tokens_mb / s.tp * moe_local)
        saved += sh.top_k * expert_eager_bytes_per_routed_token(sh.hidden, sh.expert_width / s.etp, sh.expert_bias,
                                                                sh.clamped_glu) * tokens_mb / s.tp * moe_local
        unselected = routed_copies(spec, sh, fw) - sh.top_k
        if unselected > 0:
            # The copies sent to the experts a token was not routed to (routed_copies) run the expert MLP's
            # element-wise steps as the selected ones do: the gated MLP's activation bytes of the layer's saved
            # activations, (6 gated, else 4) x the expert width per copy.
            saved += NON_GEMM_PASSES * unselected * (6 if spec.gated else 4) * sh.expert_width / s.etp * (
                tokens_mb / s.tp * moe_local)
    if s.recompute == "full":
        saved *= 4 / 3
    redo_gemm_s, redo_bytes = recompute_module_seconds(modules, sh, tokens_mb / s.tp, layers_local, moe_local,
                                                       gemm_rate)
    t_gemm += redo_gemm_s + (t_expert * 2 / per_param if "moe" in modules else 0.0)
    saved += redo_bytes
    # Logits and cross entropy (LOGITS_PASSES), vocabulary-parallel over tp, on one of pp stages (the stage mean).
    saved += fw.logits_bytes_per_entry * sh.lm_head_params / sh.hidden / (s.tp * s.pp) * tokens_mb
    t_other = saved / hbm
    t_other *= fw.non_gemm_traffic
    t_compute = t_gemm + t_attn + t_other

    intra = LinkSpeed(s.intra_name, s.intra_gbps)
    inter = LinkSpeed(s.inter_name, s.inter_gbps)
    node = s.gpus_per_node

    def link_for(span: int) -> LinkSpeed:
        return intra if span <= node else inter

    t_tp = 0.0
    if s.tp > 1:
        tp_bytes = tensor_parallel_bytes_per_layer(tokens_mb, sh.hidden, s.tp) * layers_local
        t_tp = link_for(s.tp).seconds(tp_bytes, hops=int(8 * (s.tp - 1) * layers_local))
    exposed_tp = t_tp * (1 - tensor_parallel_overlap(fw, s.intra_kind))
    t_cp = 0.0
    exposed_cp = 0.0
    if s.cp > 1:
        # K/V width one rank sends: its share of the grouped K/V heads, or of the query heads where the framework
        # repeats K/V to them before the attention call (Framework.expands_gqa_kv).
        kv_rank = (sh.q_width // s.tp if fw.expands_gqa_kv
                   else sh.kv_width // max(1, min(s.tp, sh.kv_heads)))
        cp_bytes = context_parallel_bytes_per_layer(tokens_mb, kv_rank, s.cp) * layers_local
        t_cp = link_for(s.tp * s.cp).seconds(cp_bytes, hops=int(3 * (s.cp - 1) * layers_local))
        # Attention per pass: forward 1, its recompute 1 where the attention is recomputed, backward
        # FLASH_BACKWARD_SHARE; the remote K/V are needed in each, dK/dV travel in the backward.
        unit = t_attn / (1 + FLASH_BACKWARD_SHARE + (1 if attn_factor > 1 else 0))
        passes = (unit, unit, FLASH_BACKWARD_SHARE * unit) if attn_factor > 1 else (unit, FLASH_BACKWARD_SHARE * unit)
        exposed_cp = context_parallel_exposed_seconds(
            fw.cp_kv_exchange, t_cp / 3, passes, FLASH_BACKWARD_SHARE * unit, s.cp,
            grad_bytes_ratio=PYTORCH_RING_GRAD_BYTES_RATIO if fw.cp_kv_exchange == "allgather" else 1.0)
    t_a2a = 0.0
    if s.ep > 1 and sh.experts:
        a2a_bytes = expert_all_to_all_bytes_per_layer(tokens_mb / s.tp, sh.hidden, sh.top_k, s.ep) * moe_local
        # The EP group's GPUs under Megatron-Core's MoE parallel folding (expert_ranks_per_domain): ep x etp
        # consecutive ranks, the attention's TP folded into them.
        inside = expert_ranks_per_domain(s.ep, s.etp, node)
        if inside >= s.ep:
            if s.ep_node_dedup:
                # One copy of a token per destination GPU instead of one per routed expert (of top_k (ep-1)/ep).
                a2a_bytes *= remote_nodes_per_token(sh.top_k, s.ep) / (sh.top_k * (s.ep - 1) / s.ep)
            t_a2a = intra.seconds(a2a_bytes, hops=int(4 * moe_local))
        else:
            # Peers inside the NVLink domain over NVLink, the rest over the NIC, both at once.
            share_out = (s.ep - inside) / (s.ep - 1)
            out_bytes = a2a_bytes * share_out
            if s.ep_node_dedup:
                # One copy per remote domain instead of one per remote expert (of top_k x (ep-1)/ep copies).
                copies = remote_nodes_per_token(sh.top_k, max(1, -(-s.ep // inside)))
                out_bytes = a2a_bytes * copies / (sh.top_k * (s.ep - 1) / s.ep)
            t_a2a = max(intra.seconds(a2a_bytes * (1 - share_out), hops=int(4 * moe_local)),
                        inter.seconds(out_bytes, hops=int(4 * moe_local)))
    if "moe" in modules:
        t_a2a *= 1.5  # the recomputed MoE forward dispatches and combines again: 6 all-to-alls instead of 4
    t_p2p = 0.0
    if s.pp > 1:
        t_p2p = link_for(s.gpus).seconds(pipeline_p2p_bytes(tokens_mb, sh.hidden, s.tp) * s.vp, hops=2 * s.vp)
    if s.ep_comm_overlap and t_a2a > 0:
        alone = unpartnered_chunk_share(s.pp, s.vp, micro_batches)
        t_a2a = alone * t_a2a + (1 - alone) * overlapped_all_to_all_seconds(t_a2a, t_compute)
    t_device = t_compute + exposed_tp + exposed_cp + t_a2a
    t_host = host_issue_seconds(sh, s, layers_local, moe_local, fp8)
    t_issue = max(t_device, t_host[0])
    if moe_local and t_host[1] > 0:
        # Dropless routing reads the tokens per expert back to the host in every MoE layer, so the host cannot run
        # ahead across those layers: each waits for the slower of its device work and its own issue time.
        per_layer = t_device / layers_local
        t_issue = max(t_host[0], (layers_local - moe_local) * per_layer + moe_local * max(per_layer, t_host[1]))
    # The last stage also runs the output head and the loss (speed_pipeline): its GEMMs at the 16-bit rate (the head
    # stays 16-bit under FP8) and the logits passes; the stage mean above carries 1/pp of them.
    t_last = 0.0
    if s.pp > 1:
        head_rate = base_peak * eff * IN_SITU_SHARE_OF_MAMF
        t_head = (per_param * sh.lm_head_params / s.tp * tokens_mb / head_rate
                  + fw.logits_bytes_per_entry * sh.lm_head_params / sh.hidden / s.tp * tokens_mb / hbm
                  * fw.non_gemm_traffic)
        t_layer = max(0.0, t_issue - t_head / s.pp) / layers_local
        t_last = last_stage_extra_seconds(t_head, t_layer, s.pp, head_units=1 + s.mtp_layers)
        t_p2p = exposed_pipeline_p2p_seconds(t_p2p, t_issue, s.vp, fw.overlaps_interleaved_p2p)
    t_mb = t_issue + t_p2p + t_last

    bubble = pipeline_bubble_fraction(s.pp, micro_batches, s.vp) if s.pp > 1 else 0.0
    t_pipeline = micro_batches * t_mb * (1 + bubble)

    # Data-parallel gradient sync (and FSDP weight gathers) on the dense shard and the expert shard.
    sharding = "fsdp" if s.sharding in ("fsdp", "zero3") else s.sharding
    # Only trainable parameters have gradients to sync and optimizer states to update: the adapters under LoRA.
    # The model's own parameters plus the MTP modules' (their routed experts are in expert_params_total).
    own_experts = sh.expert_params_total - sh.extra_expert_params
    dense_params_gpu = (s.adapter_params or spec.params + sh.extra_dense_params - own_experts) / (s.tp * s.pp)
    expert_params_gpu = 0.0 if s.adapter_params else sh.expert_params_total / (s.ep * s.etp * s.pp)
    dp_dense = s.gpus // (s.tp * s.pp)
    dp_expert = max(1, s.gpus // (s.ep * s.etp * s.pp))
    # Under activation checkpointing DeepSpeed's ZeRO-3 module hooks gather a block's weights for its recomputed
    # forward too, then release them and gather them again for its backward (Framework.regathers_for_recompute).
    weight_gathers = 3 if fw.regathers_for_recompute and s.recompute == "full" else 2
    sync_bytes = 4.0 if s.precision in FP32_PARAMETER_PRECISIONS else 2.0
    dp_bytes = data_parallel_bytes(dense_params_gpu, dp_dense, sharding, gradient_bytes=sync_bytes,
                                   weight_gathers=weight_gathers) if dp_dense > 1 else 0.0
    dp_bytes_expert = data_parallel_bytes(expert_params_gpu, dp_expert, sharding, gradient_bytes=sync_bytes,
                                          weight_gathers=weight_gathers) if (dp_expert > 1 and expert_params_gpu) else 0.0
    if sharding == "fsdp" and s.adapter_params:
        # The frozen base is sharded too and gathered for every forward and backward (frozen_weight_gather_bytes).
        if dp_dense > 1:
            dp_bytes += frozen_weight_gather_bytes((spec.params + sh.extra_dense_params - own_experts) / (s.tp * s.pp),
                                                   dp_dense, weight_gathers=weight_gathers)
        if dp_expert > 1 and sh.expert_params_total:
            dp_bytes_expert += frozen_weight_gather_bytes(sh.expert_params_total / (s.ep * s.etp * s.pp), dp_expert,
                                                          weight_gathers=weight_gathers)
    # Forward weight gathers: one of the (n-1)/n x P x 2 byte units above, per sharded group (trainable and frozen).
    forward_gather_bytes = 0.0
    if sharding == "fsdp":
        units = [(dense_params_gpu, dp_dense), (expert_params_gpu, dp_expert)]
        if s.adapter_params:
            units += [((spec.params + sh.extra_dense_params - own_experts) / (s.tp * s.pp), dp_dense),
                      (sh.expert_params_total / (s.ep * s.etp * s.pp), dp_expert)]
        forward_gather_bytes = sum(2.0 * (n - 1) / n * p for p, n in units if n > 1 and p)
    gathers = micro_batches if sharding == "fsdp" else 1  # FSDP re-gathers the weights for every micro-batch
    total_bytes = dp_bytes + dp_bytes_expert
    t_dp_dense = ring_link(intra, inter, node, s.tp * s.cp, dp_dense).seconds(dp_bytes * gathers, hops=2 * dp_dense)
    t_dp_expert = ring_link(intra, inter, node, s.ep * s.etp, dp_expert).seconds(dp_bytes_expert * gathers,
                                                                                 hops=2 * dp_expert)
    if sharding == "fsdp" and not fw.hides_sharded_gathers:
        # Each layer's gather and reduce-scatter run in that layer's own turn (Framework.hides_sharded_gathers).
        exposed_dp = t_dp_dense + t_dp_expert
    elif sharding == "fsdp":
        # FSDP prefetches one block ahead within each pass: in forward the next block's all-gather runs on its own
        # stream under the current block's forward ("implicit forward prefetching", PyTorch docs notes/fsdp.rst
        # "FSDP Prefetch Nuances"); in backward the previous block's all-gather (explicit prefetching in reverse
        # post-forward order, pytorch/pytorch PR 128884) and the reduce-scatter of the block just done run under the
        # current block's backward (FSDP2 RFC, pytorch/pytorch issue 114299). So the forward's gathers hide only
        # under forward compute, the backward's gathers and reduce-scatters only under backward compute (its
        # recomputed forward included): a pass whose traffic outlasts its own compute exposes the excess, even where
        # the step's traffic is less than the step's compute (an MoE model sharded without expert parallelism
        # gathers all its experts for a forward that computes only the routed few).
        t_forward = t_compute * 2 / (per_param + (2 if s.recompute == "full" else 0))
        t_sharded = t_dp_dense + t_dp_expert
        forward_share = forward_gather_bytes / total_bytes if total_bytes > 0 else 0.0
        exposed_dp = (max(0.0, t_sharded * forward_share - micro_batches * t_forward)
                      + max(0.0, t_sharded * (1 - forward_share) - micro_batches * (t_compute - t_forward)))
    elif fw.reduces_after_backward and s.sharding in SYNC_AT_BOUNDARY_SHARDINGS:
        exposed_dp = t_dp_dense + t_dp_expert
    else:
        # Megatron / DDP start the gradient reduce in the last micro-batch's backward and the (distributed
        # optimizer's) weight gather in the first one's forward, bucket by bucket.
        t_forward = t_compute * 2 / (per_param + (2 if s.recompute == "full" else 0))
        exposed_dp = sum(exposed_bucketed_sync_seconds(t, gradient_buckets(params, dp), t_forward,
                                                       t_compute - t_forward, sharded=sharding != "ddp")
                         for t, params, dp in ((t_dp_dense, dense_params_gpu, dp_dense),
                                               (t_dp_expert, expert_params_gpu, dp_expert)) if t > 0)
    optimizer_shards = dp_dense if s.sharding != "ddp" else 1
    t_opt = OPTIMIZER_BYTES_PER_PARAM * (dense_params_gpu / optimizer_shards + expert_params_gpu / (
        dp_expert if s.sharding != "ddp" else 1)) / hbm

    step = t_pipeline + exposed_dp + t_opt
    tokens_step = s.global_batch * s.seq_len
    tps = tokens_step / (step * s.gpus)
    mflops = model_flops_per_token(spec, s.seq_len, s.mtp_layers)
    mfu = tps * mflops / (gpu.bf16_tflops * 1e12)
    comm_exposed = micro_batches * (exposed_tp + exposed_cp + t_a2a + t_p2p) * (1 + bubble) + exposed_dp
    breakdown = {
        "gemm_s": micro_batches * t_gemm, "attention_s": micro_batches * t_attn,
        "other_kernels_s": micro_batches * t_other, "tensor_parallel_exposed_s": micro_batches * exposed_tp,
        "context_parallel_exposed_s": micro_batches * exposed_cp, "expert_all_to_all_s": micro_batches * t_a2a,
        "pipeline_p2p_s": micro_batches * t_p2p, "pipeline_last_stage_s": micro_batches * t_last,
        "pipeline_bubble_s": micro_batches * t_mb * bubble,
        "data_parallel_exposed_s": exposed_dp, "optimizer_s": t_opt,
        "host_issue_bound_s": micro_batches * (t_issue - t_device),
    }
    ttr = s.tokens / (tps * s.gpus) if s.tokens else None
    copies = routed_copies(spec, sh, fw)
    assumptions = _assumptions(gpu, eff, fw, s, bubble, bool(sh.experts), alibi=uses_alibi(spec),
                               dense_routed=copies if sh.experts and copies > sh.top_k else 0)
    return TrainSpeed(tokens_per_s_per_gpu=tps, step_time_s=step, mfu=mfu, time_to_result_s=ttr,
                      comm_share=comm_exposed / step, bubble_share=micro_batches * t_mb * bubble / step,
                      micro_batches=micro_batches, model_flops_per_token=mflops, breakdown=breakdown,
                      assumptions=assumptions)


def recompute_module_seconds(modules: frozenset[str], sh: _Shape, tokens: float, layers_local: float,
                             moe_local: float, gemm_rate: float) -> tuple[float, float]:
    """(GEMM seconds, non-GEMM HBM bytes) the selectively recomputed ``modules`` add to one micro-batch's backward
    on one GPU holding ``tokens`` tokens per tensor-parallel rank.

    Each module runs its forward once more before its backward (Megatron-Core ``recompute_modules``,
    megatron/core/transformer/transformer_config.py: "core_attn", "mlp", "moe" and "shared_experts" re-run under
    ordinary checkpointing, "moe_act", "layernorm" and "mla_up_proj" under output-discarding checkpointing): its
    forward GEMMs, 2 FLOPs per parameter and token, at the GEMM rate, and its element-wise passes over HBM:

    - "mla_up_proj": the MLA up-projections (:func:`mla_up_projection_params`) on every layer; RoPE is elementwise
      over the query and key heads, within the other kernels' passes;
    - "mlp": the dense layers' MLPs; "shared_experts": the MoE layers' shared experts;
    - "moe": the MoE layer: shared experts here, the routed experts' forward and the repeated dispatch and combine
      in :func:`train_speed`;
    - "moe_act": the gated activation reads the first expert linear's output and writes its product (16-bit) for
      every routed copy of a token;
    - "layernorm": the two RMSNorms per layer each read and write the hidden state (16-bit).
    The core attention's recompute ("core_attn") is the attention factor in :func:`train_speed`.
    """
    flops = 0.0
    if "mla_up_proj" in modules:
        flops += 2 * sh.mla_up_params * layers_local * tokens
    if "mlp" in modules:
        flops += 2 * sh.dense_mlp_params * max(0.0, layers_local - moe_local) * tokens
    if modules & {"moe", "shared_experts"}:
        flops += 2 * sh.shared_expert_params * moe_local * tokens
    bytes_ = 0.0
    if "moe_act" in modules and sh.experts:
        bytes_ += (sh.expert_fc1_factor + 1) * sh.expert_width * sh.top_k * 2 * tokens * moe_local
    if "layernorm" in modules:
        bytes_ += 2 * 2 * sh.hidden * 2 * tokens * layers_local
    return flops / gemm_rate, bytes_


def fp8_share_of_bf16_efficiency(architecture: str) -> float:
    """FP8 GEMM efficiency as a share of the BF16 MAMF fraction on ``architecture`` (see
    :data:`FP8_SHARE_OF_BF16_EFFICIENCY`)."""
    return FP8_SHARE_OF_BF16_EFFICIENCY if architecture in SPLIT_ACCUMULATION_ARCHITECTURES else 1.0


def grouped_mm_share(compute_capability: str, grouped: bool, fp8: bool) -> float:
    """The routed experts' GEMM rate as a share of the dense GEMM rate: :data:`GROUPED_MM_BF16_SHARE_OF_MAMF` where
    the experts run as one 16-bit ``torch._grouped_mm`` launch on a GPU of that compute capability, else 1."""
    if not grouped or fp8:
        return 1.0
    return GROUPED_MM_BF16_SHARE_OF_MAMF.get(compute_capability, 1.0)


def fp8_gemm_share(architecture: str, per_param: int, recompute: str = "none", selective_mm_share: float = 0.0) -> float:
    """FP8 GEMM efficiency as a share of the BF16 MAMF fraction over one training step's GEMMs: the forward GEMMs
    (and their recompute) with fast accumulation at the full share, the backward GEMMs at
    :func:`fp8_share_of_bf16_efficiency` (the split, promoting accumulator on Hopper / Ada).

    Transformer Engine promotes only in backward: ``_2X_ACC_FPROP = False``, ``_2X_ACC_DGRAD = True``,
    ``_2X_ACC_WGRAD = True`` (transformer_engine/pytorch/module/base.py, github.com/NVIDIA/TransformerEngine, passed as
    ``use_split_accumulator`` to each GEMM); torchao's ``Float8LinearConfig`` defaults to ``gemm_config_output =
    Float8GemmConfig(use_fast_accum=True)`` and leaves ``grad_input`` / ``grad_weight`` without fast accumulation
    (torchao/float8/config.py, github.com/pytorch/ao). ``per_param``: GEMM FLOPs per parameter and token (6; 4 for
    a frozen base under LoRA: forward and data gradient), of which 2 are the forward; ``recompute`` full adds one
    more forward of every GEMM, selective ``selective_mm_share`` of one. The time-weighted (harmonic) mean: on
    Hopper without recompute 6 / (2 + 4 / 0.8) = 0.857 instead of 0.8 for every GEMM."""
    backward_share = fp8_share_of_bf16_efficiency(architecture)
    if backward_share == 1.0:
        return 1.0
    forward = 2.0 + {"full": 2.0, "selective": 2.0 * selective_mm_share}.get(recompute, 0.0)
    backward = float(per_param - 2)
    return (forward + backward) / (forward + backward / backward_share)


def host_issue_seconds(sh: _Shape, s: TrainSetup, layers_local: float, moe_local: float,
                       fp8: bool) -> tuple[float, float]:
    """(host seconds to issue one micro-batch's forward + backward on this GPU, host seconds per MoE layer).

    Each operator costs the host ~5-25 us before its kernel is queued (Python, autograd, dispatcher, launch;
    https://jiahuanglin.xyz/all_lessons/gpu_kernel_serving/18_pytorch_to_kernel.html): :data:`HOST_SECONDS_PER_OP`.
    A transformer layer issues its framework's ``layer_host_ops`` in forward + backward (a fused Transformer Engine
    layer :data:`DENSE_LAYER_HOST_OPS`, an eager transformers layer :data:`EAGER_LAYER_HOST_OPS`); an MoE layer adds
    the router, permutation, two all-to-alls and the expert MLP (:data:`MOE_LAYER_HOST_OPS`), and in FP8 the expert
    GEMMs run one by one, each with its casts (Transformer Engine ``GroupedLinear`` splits the input per expert):
    :data:`FP8_HOST_OPS_PER_LOCAL_EXPERT` per expert on the GPU; in 16-bit the grouped call still queues one
    cuBLAS GEMM per expert (:data:`BF16_HOST_OPS_PER_LOCAL_EXPERT`). With several local experts behind the
    all-to-all dispatcher the received tokens are split into ``ep x local`` chunks and concatenated in expert
    order, and restored before the combine (:func:`expert_chunk_sort_bytes_per_token`): a host cost per chunk,
    :data:`HOST_SECONDS_PER_SORTED_CHUNK`, four passes; the node-deduplicating dispatchers skip it. Full recompute
    issues the forward again. Under LoRA each adapted linear adds its adapter's operators
    (:data:`LORA_HOST_OPS_PER_ADAPTED_LINEAR` x :data:`LORA_ADAPTED_LINEARS_PER_LAYER`). Dropless routing copies the tokens per expert to the host in every MoE layer, so these
    costs cannot be hidden behind earlier layers (see :func:`train_speed`).
    """
    redo = 4 / 3 if s.recompute == "full" else 1.0
    layer_ops = FRAMEWORKS[s.framework].layer_host_ops
    if s.adapter_params:
        layer_ops += LORA_HOST_OPS_PER_ADAPTED_LINEAR * LORA_ADAPTED_LINEARS_PER_LAYER
    dense = layer_ops * HOST_SECONDS_PER_OP * redo
    if not (sh.experts and moe_local):
        return layers_local * dense, 0.0
    local = sh.experts / (s.ep * s.etp)
    per_expert = FP8_HOST_OPS_PER_LOCAL_EXPERT if fp8 else BF16_HOST_OPS_PER_LOCAL_EXPERT
    moe = dense + (MOE_LAYER_HOST_OPS + per_expert * local) * HOST_SECONDS_PER_OP * redo
    if expert_chunk_sort_bytes_per_token(sh.hidden, max(1, sh.top_k), sh.experts, s.ep, s.ep_node_dedup):
        moe += 4 * s.ep * local * HOST_SECONDS_PER_SORTED_CHUNK * redo
    return (layers_local - moe_local) * dense + moe_local * moe, moe


def gemm_seconds(m: float, n: float, k: float, in_bytes: float, out_bytes: float, flops_per_s: float,
                 bytes_per_s: float) -> float:
    """Seconds of one ``m x k`` by ``k x n`` GEMM on a roofline (Williams, Waterman, Patterson 2009, "Roofline: an
    insightful visual performance model for multicore architectures", CACM 52(4)) whose output write is serial.

    The main loop is bound by the larger of its FLOPs ``2mnk`` at ``flops_per_s`` and its operand reads
    ``(mk + kn) x in_bytes`` at ``bytes_per_s``; the epilogue then writes the ``m x n`` output (``out_bytes`` per
    element) after the tile's last k-step, so that write does not overlap the tile's own main loop. Per unit of
    work the epilogue costs ``out_bytes / 2 x (flops_per_s / bytes_per_s) / k`` of the main loop: negligible for
    the wide reductions of dense layers (k = hidden or MLP width, thousands), a large share when k is a narrow
    expert width (Qwen3-30B-A3B: 768) or when the FP8 peak doubles the main-loop rate. Check (not a fit): DeepGEMM
    FP8 on H800 (github.com/deepseek-ai/DeepGEMM pull 74) reaches 1404 TFLOPS at k = 16384 and 591-748 TFLOPS at
    m x n x k = 4096 x 32768 x 512; this roofline at 1404 TFLOPS and 3.35 TB/s gives 772 TFLOPS there, and 1166 TFLOPS
    at 4096 x 7168 x 2048 (measured 1031-1204).
    """
    main_loop = max(2 * m * n * k / flops_per_s, (m * k + k * n) * in_bytes / bytes_per_s)
    return main_loop + m * n * out_bytes / bytes_per_s


# The weight-gradient GEMM's output is accumulated into the FP32 gradient buffer: Megatron-Core's
# gradient_accumulation_fusion (on unless --no-gradient-accumulation-fusion, megatron/training/arguments.py) runs the
# wgrad GEMM with beta = 1 into param.main_grad (fused_weight_gradient_mlp_cuda.wgrad_gemm_accum_fp32 for the dense
# linears; Transformer Engine GroupedLinear with fuse_wgrad_accumulation, general_grouped_gemm(..., accumulate=True,
# out=main_grads) for the experts), so its epilogue reads the running FP32 sum and writes it back: 4 + 4 bytes per
# weight element and micro-batch. Without the fusion autograd adds the fresh gradient to .grad in a separate kernel,
# which moves at least as much. Weight-sized, so it matters where an expert's GEMM sees few rows (many local experts).
WEIGHT_GRADIENT_BYTES = 8


def expert_mlp_seconds(rows: float, hidden: int, width: float, fc1_factor: int, in_bytes: float, flops_per_s: float,
                       bytes_per_s: float, weight_gradients: bool = True, sm_count: int = 0,
                       experts_per_launch: int = 1) -> float:
    """Seconds of one routed expert's MLP in forward + backward over ``rows`` routed tokens: six GEMMs, each on
    the roofline of :func:`gemm_seconds` with the expert's own shape.

    First linear ``hidden -> fc1_factor x width`` (gate and up fused for SwiGLU), second ``width -> hidden``.
    Forward: ``rows x hidden x (fc1_factor width)`` and ``rows x width x hidden`` (reduction over ``width``);
    data gradients: the transposes (reductions over ``hidden`` and ``fc1_factor x width``), each writing a 16-bit
    gradient; weight gradients: reductions over ``rows``, accumulated into the FP32 gradient (read and written,
    :data:`WEIGHT_GRADIENT_BYTES`), skipped
    for a frozen base (LoRA). Operands at ``in_bytes`` (2 for BF16, 1 for FP8), outputs 16-bit. Each GEMM is its own
    launch (one per local expert), so its FLOP rate is ``flops_per_s`` times the share of the ``sm_count`` SMs its
    output tiles keep busy (:func:`gpudesk.sizing.gemm_waves.wave_efficiency`; 0 SMs: no wave term);
    ``experts_per_launch`` experts' GEMMs share one grouped launch and its waves.
    """
    fc1 = fc1_factor * width

    def gemm(m: float, n: float, k: float, out_bytes: float) -> float:
        # Each expert's GEMM is its own launch: its output tiles fill the SMs in whole waves (gemm_waves).
        return gemm_seconds(m, n, k, in_bytes, out_bytes, flops_per_s * wave_efficiency(m, n, sm_count, experts_per_launch),
                            bytes_per_s)

    forward = gemm(rows, fc1, hidden, 2) + gemm(rows, hidden, width, 2)
    data_gradients = gemm(rows, width, hidden, 2) + gemm(rows, hidden, fc1, 2)
    if not weight_gradients:
        return forward + data_gradients
    w = WEIGHT_GRADIENT_BYTES
    return forward + data_gradients + gemm(hidden, fc1, rows, w) + gemm(width, hidden, rows, w)


def fp8_cast_elements_per_token(hidden: int, q_width: int, mlp_width: int, top_k: int = 1) -> float:
    """Elements of one token's GEMM inputs cast to FP8 in one layer, forward + backward.

    Forward casts each GEMM's input: the QKV and MLP inputs (``h``), the output projection's (``d_attn``) and the
    down projection's (the MLP width); backward casts each GEMM's output gradient, about the same count (the
    factor 2). In an MoE layer the expert GEMMs run on the permuted tokens: each of a token's ``top_k`` routed
    copies is a row of the grouped GEMM's input and of its output gradient, and is cast on its own (Transformer
    Engine ``GroupedLinear`` quantizes its ``m_splits`` input after the dispatcher's permutation; AMD Primus
    profile of Qwen3-30B-A3B FP8 on 8 MI355X, github.com/AMD-AGI/Primus agent/workspace/
    qwen3_fp8_tw_gfx950_20261010/README.md: the quantization kernels take 739 ms of a 6987 ms step, and casting
    before the permutation, ``turbo_fp8_permute``, saved 4.5 %). Expert widths count ``top_k`` times too.
    """
    k = positive_int("top_k", top_k)
    return 2 * (positive_int("hidden", hidden) + positive_int("q_width", q_width)
                + k * (hidden + positive_int("mlp_width", mlp_width)))


def expert_chunk_sort_bytes_per_token(hidden: int, top_k: int, experts: int, ep: int, node_dedup: bool) -> float:
    """HBM bytes per token and MoE layer, forward + backward, of the all-to-all dispatcher's second permutation.

    After the dispatch all-to-all a GPU holds the routed tokens grouped by SOURCE rank, each rank's block split by
    local expert; the grouped GEMM needs them grouped by EXPERT. Megatron-Core's ``MoEAlltoAllTokenDispatcher``
    therefore re-sorts the received chunks ("Permutation 2: Sort tokens by local expert (if multiple local
    experts)", ``sort_chunks_by_idxs`` in ``dispatch_postprocess``, github.com/NVIDIA/Megatron-LM
    megatron/core/transformer/moe/token_dispatcher.py and moe_utils.py) and restores the source order before the
    combine all-to-all; backward runs both on the gradients. Each sort reads and writes the ``top_k`` routed copies
    of the token (16-bit): 4 sorts x 2 passes x ``top_k x h`` x 2 bytes. Only with several experts per GPU
    (``experts / ep > 1``) and expert parallelism; the fused dispatchers (DeepEP, HybridEP: ``node_dedup``) write
    the received tokens straight into expert order inside their communication kernels, so they skip it.
    """
    if node_dedup or positive_int("ep", ep) <= 1 or positive_int("experts", experts) <= ep:
        return 0.0
    return 4 * 2 * positive_int("top_k", top_k) * positive_int("hidden", hidden) * 2


def expert_eager_bytes_per_routed_token(hidden: int, width: float, expert_bias: bool, clamped_glu: bool) -> float:
    """HBM bytes per routed copy of a token and MoE layer, forward + backward, of the element-wise steps that
    Megatron-Core runs as separate eager PyTorch operators around the grouped expert GEMMs (16-bit elements).

    Per-expert output bias (``expert_bias``): ``TEGroupedMLP`` builds ``linear_fc2`` with ``skip_bias_add=True`` and
    adds ``bias x prob`` itself, expert by expert (``_apply_bias``: split by tokens per expert, ``t + b * p``,
    ``torch.cat``; megatron/core/transformer/moe/experts.py at core_v0.15.0, commit 0d7e02bd26d3eb347ad8d1bef625002babfa6df7,
    github.com/NVIDIA/Megatron-LM, the Megatron-Core of Megatron-Bridge 25.11). Forward: write ``b x p`` (2h), read
    it and the GEMM output and write the sum (6h), copy into the concatenation (4h); backward: the bias gradient
    ``grad x p`` written and reduced over tokens (6h) and the probability gradient ``grad x b`` written and reduced
    over h (6h): 24 h bytes (router probabilities kept 16-bit; an FP32 router promotes these to 4-byte values).
    The first linear's bias is added inside the grouped GEMM (``skip_bias_add=False``), no extra traffic.

    Clamped gated activation (``clamped_glu``, the config's ``swiglu_limit``): ``weighted_bias_quick_geglu_impl``
    (megatron/core/fusions/fused_bias_geglu.py, same commit) clamps the two halves of the first linear's output and
    concatenates them eagerly before the fused kernel: forward two clamps (read + write, 8 w) and the concatenation
    (8 w); backward the two clamp gradients (read gradient and input, write: 12 w) and the chunk gradient's
    concatenation (8 w): 36 w bytes, ``w`` the expert width on this GPU. Both are per routed token, whatever the
    number of local experts or the sequence length.
    """
    out = 0.0
    if expert_bias:
        out += 24 * positive_int("hidden", hidden)
    if clamped_glu:
        out += 36 * width
    return out


def expert_input_saved_bytes(hidden: int, top_k: int) -> float:
    """16-bit bytes an MoE layer keeps per token for its expert GEMMs' weight gradients beyond the dense layer's
    activations: the ``top_k`` permuted copies of the token that form the first expert GEMM's input (Korthikanti
    et al. 2022, arXiv 2205.05198, section 4.1: each linear keeps its input for the weight gradient; Megatron-Core
    ``TEGroupedLinear`` runs on the permuted tokens, megatron/core/transformer/moe/experts.py). The unpermuted
    token stays counted as the router's input. Written in forward, read in backward, its gradient written."""
    return 2 * positive_int("top_k", top_k) * positive_int("hidden", hidden)


# The fused attention kernels the framework profiles run (ATTENTION_EFFICIENCY: "fa2", "cudnn", "flash-attn-2") exist
# only from CUDA compute capability 8.0 (Ampere) on: "FlashAttention-2 with CUDA currently supports: Ampere, Ada, or
# Hopper GPUs" (github.com/Dao-AILab/flash-attention README; FlashAttention 1.x stopped at "Turing or Ampere", never
# Volta), and cuDNN's fused flash attention, Transformer Engine's FusedAttention backend, needs sm80 or later (Transformer
# Engine docs, "Attention backends": on older GPUs it falls back to UnfusedDotProductAttention). On a Volta V100 (7.0)
# the attention therefore runs unfused, the score matrix through HBM (unfused_attention_seconds), as the Megatron-LM
# of 2019-2021 ran it everywhere (CoreAttention: baddbmm, FusedScaleMaskSoftmax, bmm). Check, not a fit: OneFlow
# DLPerf's single-V100 Megatron-LM GPT runs (github.com/Oneflow-Inc/DLPerf Megatron-LM/README.md at c89430b) took
# 464 ms per step at 16 x 1536, seq 2048, micro-batch 2; the fused-attention estimate gave 379 ms, unfused 470 ms.
FUSED_ATTENTION_MIN_CAPABILITY = (8, 0)


# Hugging Face ``model_type`` values whose models all place positions by ALiBi: BLOOM (BigScience 2022, arXiv
# 2211.05100 section 3.2.3 "ALiBi Positional Embeddings"; transformers ``build_alibi_tensor`` in modeling_bloom.py).
ALIBI_MODEL_TYPES = ("bloom",)
# Baichuan's configs carry no position-embedding field: the 13B models' own modeling code uses ALiBi and the 7B ones
# RoPE (Baichuan 2 report, Yang et al. 2023, arXiv 2309.10305 section 2.4 "we use Rotary Positional Embedding for
# Baichuan 2-7B and ALiBi for Baichuan 2-13B"; Baichuan-13B README, github.com/baichuan-inc/Baichuan-13B at
# 3e4bbdd: 位置编码 ALiBi, 隐藏层维度 5,120). The 13B width tells them apart.
BAICHUAN_ALIBI_HIDDEN = 5120


def uses_alibi(spec: ModelSpec) -> bool:
    """Whether the model adds ALiBi biases to its attention scores (:data:`ALIBI_MODEL_TYPES`, Baichuan 13B:
    :data:`BAICHUAN_ALIBI_HIDDEN`); only the model's config type and width are read."""
    model_type = (spec.model_type or "").lower()
    if model_type in ALIBI_MODEL_TYPES:
        return True
    return model_type == "baichuan" and spec.hidden_size == BAICHUAN_ALIBI_HIDDEN


def fused_attention_available(compute_capability: str) -> bool:
    """Whether a fused (flash) attention kernel of the frameworks runs on a GPU of this CUDA compute capability
    (:data:`FUSED_ATTENTION_MIN_CAPABILITY`). Unknown or non-CUDA (empty, ROCm, Ascend): True, the framework's own."""
    try:
        major_s, _, minor_s = compute_capability.strip().partition(".")
        major, minor = int(major_s), int(minor_s or 0)
    except ValueError:
        return True
    return (major, minor) >= FUSED_ATTENTION_MIN_CAPABILITY


def non_tn_fp8_gemm(compute_capability: str) -> bool:
    """Whether the GPU's FP8 GEMMs take operands in any layout (not only "TN"): CUDA compute capability 10.x
    (B200, B300, GB200, GB300) and 13.0 or later, but not 12.x (RTX 50 / RTX PRO Blackwell) nor Hopper 9.0.
    Transformer Engine's own test (``is_non_tn_fp8_gemm_supported`` in transformer_engine/pytorch/utils.py and
    ``nvte_is_non_tn_fp8_gemm_supported``, github.com/NVIDIA/TransformerEngine) uses exactly these bounds; on such
    a GPU its per-tensor FP8 quantizers (``Float8Quantizer`` / ``Float8CurrentScalingQuantizer``,
    transformer_engine/pytorch/csrc/quantizer.cpp: ``with_transpose = columnwise_usage &&
    !nvte_is_non_tn_fp8_gemm_supported()``) write no transposed copy. An unknown capability counts as TN-only."""
    try:
        major_s, _, minor_s = compute_capability.strip().partition(".")
        major, minor = int(major_s), int(minor_s or 0)
    except ValueError:
        return False
    return (10, 0) <= (major, minor) < (12, 0) or (major, minor) >= (13, 0)


def fp8_cast_bytes_per_element(recipe: str, non_tn_gemm: bool = False) -> float:
    """HBM bytes moved to quantize one 16-bit GEMM input element to FP8 under ``recipe``.

    Read the 16-bit value (2) and write two FP8 copies (1 + 1): the GEMM that consumes the tensor transposed (the
    weight-gradient GEMM for a forward input, the data-gradient GEMM for an output gradient) needs its own copy,
    since Hopper's FP8 tensor cores take only the "TN" layout and MXFP8's 1x32 scaling blocks run along the other
    dimension for it (Transformer Engine fused ``cast_transpose``, transformer_engine/common/transpose/, and its
    FP8 / MXFP8 user guide, https://docs.nvidia.com/deeplearning/transformer-engine/user-guide/examples/
    fp8_primer.html). Current (per-tensor, just-in-time) scaling first reduces the tensor's absolute maximum
    before it can scale it: one more 16-bit read (Transformer Engine ``Float8CurrentScaling``; torchao float8
    tensorwise dynamic scaling). Delayed scaling takes the scale from the amax history, and MXFP8 computes each
    32-element block's scale inside the cast kernel: no extra pass.

    ``non_tn_gemm`` (:func:`non_tn_fp8_gemm`, Blackwell data-center GPUs): the per-tensor recipes (``delayed``,
    ``current``) keep one FP8 copy that every GEMM reads in the layout it needs, so the transposed copy's write
    (1 byte) goes; MXFP8 still writes both, its scaling blocks differ per direction (Transformer Engine
    ``MXFP8Quantizer`` keeps rowwise and columnwise data on every GPU).
    """
    choice("fp8_recipe", recipe, FP8_RECIPES)
    if recipe == "rowwise":
        # Row pass (read 2, write 1, the row's amax in registers) + column pass (read 2 for the column amax, read 2
        # and write 1 for the cast) + the backward GEMMs' output rescale, per cast element (below): 8 + 2.
        return 3 + 5 + AXISWISE_RESCALE_BYTES_PER_CAST_ELEMENT
    if recipe == "rowwise_with_gw_hp":
        # Only the row pass: the weight-gradient GEMM takes its 16-bit inputs as they are; the data-gradient GEMM's
        # output is still rescaled: 3 + 2.
        return 3 + AXISWISE_RESCALE_BYTES_PER_CAST_ELEMENT
    transposed_copy = 0 if non_tn_gemm and recipe in ("delayed", "current") else 1
    return 2 + 1 + transposed_copy + (2 if recipe == "current" else 0)


# torchao runs the backward GEMMs of the axis-wise recipes without fast accumulation, and since PyTorch's row-wise
# CUTLASS kernel "is so slow without fast-accum" it calls the cuBLAS tensor-wise GEMM with unit scales and applies the
# row and column scales to the output in a separate kernel (github.com/pytorch/ao pull 1325, torchao/float8/
# float8_ops.py addmm_float8_unwrapped; issue 2184: "at least one extra triton kernel *per GEMM* ... just for the
# rescaling"). That kernel reads and writes the 16-bit output: 4 bytes per output element. The data-gradient GEMM's
# output is one element per forward input element, half the cast elements of fp8_cast_elements_per_token: 2 bytes
# per cast element.
AXISWISE_RESCALE_BYTES_PER_CAST_ELEMENT = 2.0


def rowwise_weight_gradient_bytes(recipe: str, weight_elements: float) -> float:
    """HBM bytes per micro-batch of the weight-gradient GEMMs' output rescale under ``rowwise``: the cuBLAS GEMM with
    unit scales writes the 16-bit weight gradient and a separate kernel reads it and writes it scaled (4 bytes per
    weight element; torchao pull 1325, see :data:`AXISWISE_RESCALE_BYTES_PER_CAST_ELEMENT`). Weight-sized, so it
    weighs as much as the activations where a micro-batch holds about as many tokens as a layer is wide (Llama 3 8B
    at 8192 tokens). Zero for every other recipe (``rowwise_with_gw_hp`` runs that GEMM in 16-bit, unscaled)."""
    choice("fp8_recipe", recipe, FP8_RECIPES)
    return 4.0 * weight_elements if recipe == "rowwise" else 0.0


def unpartnered_chunk_share(pp: int, vp: int, micro_batches: int) -> float:
    """Share of a rank's forward and backward model chunks that run with no other micro-batch's chunk to hide their
    expert all-to-all under (``--overlap-moe-expert-parallel-comm``, DualPipe).

    Megatron-Core pairs one micro-batch's forward with another's backward (combined 1F1B,
    megatron/core/pipeline_parallel/combined_1f1b.py, github.com/NVIDIA/Megatron-LM): without pipelining
    (``combined_1f1b_schedule_for_no_pipelining``: "Phases 0: 1st microbatch forward ... Phases 4: 4th microbatch
    backward") the first forward and the last backward run alone, ``1/m`` of the chunks; under a pipeline the
    warm-up forwards and the cool-down backwards run alone, ``(pp - 1) x 2 + (vp - 1) x pp`` of the ``m x vp`` chunk
    steps on the first stage (megatron/core/pipeline_parallel/schedules.py ``num_warmup_microbatches`` of the
    interleaved schedule). Megatron-Core accepts the overlap under PP > 1 only with virtual stages ("If enabling EP
    A2A overlap, virtual_pipeline_model_parallel_size must be specified when pipeline_model_parallel_size > 1",
    megatron/core/transformer/transformer_config.py), so an overlap under PP > 1 with one chunk per stage is a
    bidirectional schedule such as DualPipe, which feeds micro-batches from both ends and pairs the two directions'
    chunks from the start ("both all-to-all and PP communication can be fully hidden", arXiv 2412.19437 section
    3.2.1): 0.
    """
    m = max(1, micro_batches)
    if pp <= 1:
        return min(1.0, 1 / m)
    if vp <= 1:
        return 0.0
    return min(1.0, ((pp - 1) * 2 + (vp - 1) * pp) / (m * vp))


def overlapped_all_to_all_seconds(all_to_all_s: float, compute_s: float) -> float:
    """What the expert all-to-all adds to a micro-batch when it overlaps another micro-batch's compute.

    Megatron-Core's EP communication overlap (``--overlap-moe-expert-parallel-comm``, megatron/core/pipeline_parallel/
    combined_1f1b.py, https://github.com/NVIDIA/Megatron-LM: the forward of one micro-batch and the backward of another
    are split into attention / dispatch / experts / combine chunks and interleaved, each all-to-all running on its own
    stream under the other chunk's compute) and DeepSeek-V3's DualPipe (arXiv 2412.19437 section 3.2.1: "both
    all-to-all and PP communication can be fully hidden during execution") hide the all-to-all behind compute of
    the same size. What stays exposed: the all-to-all time beyond that compute, plus the compute slowed by the SMs
    the communication kernels hold while they run (:data:`OVERLAP_COMM_SM_SHARE`).
    """
    hidden = min(all_to_all_s, compute_s)
    return max(0.0, all_to_all_s - compute_s) + hidden * OVERLAP_COMM_SM_SHARE / (1 - OVERLAP_COMM_SM_SHARE)


def ring_link(intra: LinkSpeed, inter: LinkSpeed, node: int, inner: int, group: int) -> LinkSpeed:
    """The link a ring collective over ``group`` ranks runs at, the ranks strided by ``inner`` (the tensor/context
    or expert groups laid out inside them, Megatron-Core rank order tp-cp-ep-dp-pp).

    Inside one NVLink domain: NVLink. Across nodes, NCCL runs one ring per NIC and each ring crosses a node
    boundary once, so the ``k`` group members sharing a node send through ``k`` NICs at once: per-GPU bus bandwidth
    ``k x`` the NIC rate, at most NVLink (NCCL tests PERFORMANCE.md: inter-node bus bandwidth is the node's
    aggregate NIC bandwidth; Stas Bekman ML Engineering, network: DGX H100 all-reduce ~8 x 400 Gb/s).
    """
    if inner * group <= node:
        return intra
    per_node = max(1, node // max(1, inner))
    return LinkSpeed(inter.name, min(intra.gbps_per_direction, inter.gbps_per_direction * min(per_node, group)))


INTRA_LINK_KINDS = ("nvlink", "pcie")


def tensor_parallel_overlap(fw: Framework, intra_kind: str) -> float:
    """Share of the tensor-parallel collective time the framework hides behind GEMMs on this in-node link.

    Megatron-Core's TP communication overlap runs on Transformer Engine's Userbuffers, which "relies on CUDA
    Multicast handles that are only supported over" an NVLink domain (Transformer Engine maintainers, github.com/
    NVIDIA/TransformerEngine issue 1071, 2024-08; the fallback ``UB_SKIPMC`` uses CUDA IPC peer mappings, issue 966):
    GPUs that reach each other only over PCIe get no multicast object, so the collectives run as plain NCCL calls
    between the GPUs, exposed (NVIDIA's MLPerf Training v4.0 L40S llama2_70b_lora configuration sets
    ``TP_COMM_OVERLAP=False``). On a scale-up fabric the framework's own overlap applies (:data:`FRAMEWORKS`).
    """
    choice("intra_kind", intra_kind, INTRA_LINK_KINDS)
    return 0.0 if intra_kind == "pcie" else fw.tp_overlap


def unfused_attention_seconds(sequences: int, seq_len: int, heads: float, width: float, recomputed: bool,
                              gemm_rate: float, hbm_bytes_per_s: float, alibi: bool = False,
                              eager: bool = False) -> float:
    """Seconds one layer's attention core takes per micro-batch without a fused kernel (:data:`UNFUSED_SCORE_BYTES_
    FORWARD`): the batched score and value matmuls over all ``seq_len`` keys at the 16-bit GEMM rate (forward 2,
    backward :data:`UNFUSED_BACKWARD_SHARE` x that) and the score matrix's HBM traffic, ``heads x seq_len^2`` elements
    per sequence, serial with them. ``heads`` and ``width`` (the per-token width of the matmuls) are this GPU's
    tensor-parallel share; ``recomputed``: the forward runs once more in backward (full or selective recompute);
    ``alibi``: the model adds an ALiBi bias to the scores in their own element-wise passes
    (:data:`ALIBI_SCORE_BYTES_FORWARD`, :data:`ALIBI_SCORE_BYTES_BACKWARD`); ``eager``: the scaling and the mask run
    as their own kernels (:data:`EAGER_SCORE_BYTES_FORWARD`, :data:`EAGER_SCORE_BYTES_BACKWARD`)."""
    forward_passes = 2.0 if recomputed else 1.0
    flops = 4.0 * width * seq_len * seq_len * sequences * (forward_passes + UNFUSED_BACKWARD_SHARE)
    elements = heads * seq_len * seq_len * sequences
    forward_bytes = UNFUSED_SCORE_BYTES_FORWARD + (ALIBI_SCORE_BYTES_FORWARD if alibi else 0.0)
    backward_bytes = UNFUSED_SCORE_BYTES_BACKWARD + (ALIBI_SCORE_BYTES_BACKWARD if alibi else 0.0)
    if eager:
        forward_bytes += EAGER_SCORE_BYTES_FORWARD
        backward_bytes += EAGER_SCORE_BYTES_BACKWARD
    traffic = elements * (forward_passes * forward_bytes + backward_bytes)
    return flops / gemm_rate + traffic / hbm_bytes_per_s


def attention_efficiency(fw: Framework, architecture: str) -> float:
    """Share of the 16-bit peak the framework's attention kernel reaches on ``architecture`` (see
    :data:`ATTENTION_EFFICIENCY`)."""
    table = ATTENTION_EFFICIENCY[fw.attention_kernel]
    return table.get(architecture, table["default"])


def attention_head_dim_factor(kernel: str, head_dim: int) -> float:
    """The attention kernel's rate at ``head_dim`` relative to its rate at 128, where :data:`ATTENTION_EFFICIENCY`
    was measured: interpolated on log2 of the head dimension between the points of
    :data:`ATTENTION_HEAD_DIM_TFLOPS` (FlashAttention-3 paper, arXiv 2407.08608, figure 5), flat beyond them.

    Multi-head latent attention (DeepSeek-V2/V3: query/key 192, value 128 per head) is taken at 128: the benchmark
    has equal query and value widths, and no measurement at 192 / 128 of the same kernels is published.
    """
    points = ATTENTION_HEAD_DIM_TFLOPS[kernel]
    at_128 = dict(points)[128]
    d = math.log2(positive_int("head_dim", head_dim))
    if d <= math.log2(points[0][0]):
        return points[0][1] / at_128
    for (d0, r0), (d1, r1) in zip(points, points[1:]):
        x0, x1 = math.log2(d0), math.log2(d1)
        if d <= x1:
            return (r0 + (r1 - r0) * (d - x0) / (x1 - x0)) / at_128
    return points[-1][1] / at_128


def attention_rate_share(fw: Framework, architecture: str) -> float:
    """Share of the 16-bit peak the framework's attention kernel sustains inside a training step: its benchmark
    efficiency (:func:`attention_efficiency`) x :data:`IN_SITU_SHARE_OF_MAMF`, the share of a kernel's stand-alone
    rate that real LLM training keeps (Stas Bekman, ML Engineering, compute/accelerator: ~180 TFLOPS in A100
    training against 271 TFLOPS MAMF). The GEMMs take the same share of their MAMF; the attention kernels run in the
    same step under the same power-limited clocks, launches and memory traffic, so the benchmark of one kernel alone
    (FlashAttention-2 arXiv 2307.08691, FlashAttention-3 arXiv 2407.08608) overstates them by the same measure."""
    return attention_efficiency(fw, architecture) * IN_SITU_SHARE_OF_MAMF


def _assumptions(gpu: GpuRates, eff: float, fw: Framework, s: TrainSetup, bubble: float,
                 experts: bool = False, alibi: bool = False, dense_routed: int = 0) -> tuple[Assumption, ...]:
    """The estimate's inputs with their sources, in the user's language (names are stable ids, not translated)."""
    measured = gpu.matmul_efficiency is not None
    out = [
        Assumption("matmul_efficiency", _("{share} of the dense BF16 peak ({peak})").format(
            share=format_percent(eff, digits=None), peak=format_flops(gpu.bf16_tflops * 1e12)),
                   gpu.efficiency_source or _("Stas Bekman MAMF table (ML Engineering, compute/accelerator)")
                   if measured else _("default {value:g}: no MAMF measurement for {gpu} (below every NVIDIA GPU "
                                      "measured)").format(value=DEFAULT_MATMUL_EFFICIENCY, gpu=gpu.name),
                   raw(share=eff, peak_flops_per_s=gpu.bf16_tflops * 1e12)),
        Assumption("in_situ_share_of_mamf", format_percent(IN_SITU_SHARE_OF_MAMF, digits=None),
                   _("Stas Bekman ML Engineering: ~180 TFLOPS in real A100 LLM training vs 271 TFLOPS MAMF"),
                   raw(share=IN_SITU_SHARE_OF_MAMF)),
        Assumption("attention_efficiency", _("{kernel_share} ({kernel}) x {in_step} in the step = {share}").format(
            kernel_share=format_percent(attention_efficiency(fw, gpu.architecture), digits=None),
            kernel=fw.attention_kernel, in_step=format_percent(IN_SITU_SHARE_OF_MAMF, digits=None),
            share=format_percent(attention_rate_share(fw, gpu.architecture), digits=None)),
                   _("FlashAttention-2 (arXiv 2307.08691) 50-73 % forward on A100; FlashAttention-3 (arXiv "
                     "2407.08608): FA2 35 % on H100, FA3 75 % forward; in-step share as for GEMMs (Stas Bekman ML "
                     "Engineering)"),
                   raw(kernel_share=attention_efficiency(fw, gpu.architecture),
                       share=attention_rate_share(fw, gpu.architecture))),
        Assumption("hbm_efficiency", _("{share} of {bandwidth}").format(
            share=format_percent(HBM_EFFICIENCY, digits=None), bandwidth=format_rate(gpu.hbm_gbps * 1e9, digits=None)),
                   _("Stas Bekman ML Engineering: 80-90 % of datasheet bandwidth"),
                   raw(share=HBM_EFFICIENCY, bandwidth_bytes_per_s=gpu.hbm_gbps * 1e9)),
        Assumption("framework", _("{framework}: non-GEMM memory passes x{passes:g}, {overlap} of the tensor-parallel "
                                  "communication hidden over {link}").format(
            framework=fw.name, passes=fw.non_gemm_traffic,
            overlap=format_percent(tensor_parallel_overlap(fw, s.intra_kind), digits=None), link=s.intra_kind),
                   marked(fw.source), raw(non_gemm_passes=fw.non_gemm_traffic,
                                          tp_overlap_share=tensor_parallel_overlap(fw, s.intra_kind))),
        Assumption("link_efficiency", _("{share} of the per-direction link rate").format(
            share=format_percent(LINK_EFFICIENCY, digits=None)),
                   _("NCCL bus bandwidth ~80 % of the per-direction link rate (Stas Bekman, network benchmarks)"),
                   raw(share=LINK_EFFICIENCY)),
        Assumption("links", _("{intra} {intra_bandwidth} inside {node} GPUs, {inter} {inter_bandwidth} per GPU "
                              "between").format(intra=s.intra_name,
                                                intra_bandwidth=format_rate(s.intra_gbps * 1e9, digits=None),
                                                node=s.gpus_per_node, inter=s.inter_name,
                                                inter_bandwidth=format_rate(s.inter_gbps * 1e9, digits=None)),
                   _("catalog links / servers"), raw(intra_bytes_per_s=s.intra_gbps * 1e9, gpus_per_node=s.gpus_per_node,
                                                     inter_bytes_per_s_per_gpu=s.inter_gbps * 1e9)),
    ]
    if s.mtp_layers:
        out.append(Assumption("mtp_layers", _("{layers}: one more transformer layer, projection and output-head pass "
                                              "each; the layer spread over the pipeline stages like the others, the "
                                              "head pass on the last stage").format(layers=s.mtp_layers),
                              _("DeepSeek-V3 report (arXiv 2412.19437) section 2.2; Megatron-Core "
                                "multi_token_prediction.py (github.com/NVIDIA/Megatron-LM)")))
    if not s.flash_attention:
        out.append(Assumption("unfused_attention", _("score matrix in HBM: {forward:g} + {backward:g} bytes per score "
                                                     "element (forward + backward), matmuls over every key at the "
                                                     "GEMM rate").format(forward=UNFUSED_SCORE_BYTES_FORWARD,
                                                                        backward=UNFUSED_SCORE_BYTES_BACKWARD),
                              _("FlashAttention (arXiv 2205.14135) Algorithm 0 and appendix B.1: standard attention "
                                "reads and writes the N x N scores in HBM"),
                              raw(bytes_forward=UNFUSED_SCORE_BYTES_FORWARD,
                                  bytes_backward=UNFUSED_SCORE_BYTES_BACKWARD)))
        if alibi:
            out.append(Assumption("alibi_bias_passes", _("ALiBi bias added to the scores in separate passes: "
                                                         "{forward:g} + {backward:g} more bytes per score element "
                                                         "(forward + backward)").format(
                forward=ALIBI_SCORE_BYTES_FORWARD, backward=ALIBI_SCORE_BYTES_BACKWARD),
                                  _("ModelLink unfused ALiBi attention: beta * bias + bmm(q, k) * scale "
                                    "(modellink/core/transformer/dot_product_attention.py at d4feda7)"),
                                  raw(bytes_forward=ALIBI_SCORE_BYTES_FORWARD,
                                      bytes_backward=ALIBI_SCORE_BYTES_BACKWARD)))
    if s.recompute_modules:
        out.append(Assumption("recompute_modules", _("{modules}: each module's forward runs again in backward").format(
            modules=", ".join(s.recompute_modules)),
                              _("Megatron-Core TransformerConfig.recompute_modules (megatron/core/transformer/"
                                "transformer_config.py, github.com/NVIDIA/Megatron-LM)")))
    if s.pp > 1:
        out.append(Assumption("pipeline_bubble", _("{share} of the micro-batches' time idle").format(
            share=format_percent(bubble, digits=None)),
                              _("(p-1)/(v m), Narayanan et al. 2021 (arXiv 2104.04473) sections 2.2.1-2.2.2"),
                              raw(share=bubble)))
        out.append(Assumption("pipeline_last_stage", _("the last stage runs the output head and the loss in place of "
                                                       "one layer; the pipeline runs at its pace"),
                              _("Megatron-Core account_for_loss_in_pipeline_split (transformer_config.py), GPTModel "
                                "post_process (gpt_model.py)")))
        overlapped = s.vp > 1 and fw.overlaps_interleaved_p2p
        out.append(Assumption("pipeline_p2p", _("stage-to-stage sends under the next chunk's compute") if overlapped
                              else _("stage-to-stage sends exposed"),
                              _("Megatron-LM --overlap-p2p-communication (on by default, interleaved schedule only: "
                                "megatron/training/arguments.py)")))
    if s.cp > 1:
        out.append(Assumption("ring_attention", _("{cp} flash-attention calls per layer on {keys} keys each: "
                                                  "x{slowdown:.3f} attention time; partial-result merges as HBM "
                                                  "traffic").format(cp=s.cp, keys=s.seq_len // (2 * s.cp),
                                                                    slowdown=ring_attention_chunk_slowdown(s.seq_len,
                                                                                                           s.cp)),
                              _("Transformer Engine AttnFuncWithCPAndKVP2P (context_parallel.py); PyTorch "
                                "_templated_ring_attention (torch/distributed/tensor/experimental/_attention.py)")))
        how = (_("one K/V block per ring step under the step in hand") if fw.cp_kv_exchange == "p2p" else
               _("one all-gather of every rank's K/V per pass, under the first ring step only; FP32 dK/dV ring"))
        what = _("K/V repeated to the query heads") if fw.expands_gqa_kv else _("grouped K/V heads as they are")
        out.append(Assumption("cp_kv_exchange", _("{exchange}: {how}; {what}").format(
            exchange=fw.cp_kv_exchange, how=how, what=what),
                              _("PyTorch _AllGatherRotater / _ContextParallelOptions.rotate_method (torch/distributed/"
                                "tensor/experimental/_attention.py); torchtitan context_parallel_rotate_method, "
                                "repeat_kv (torchtitan/models/llama/model.py); Transformer Engine "
                                "AttnFuncWithCPAndKVP2P")))
    if s.ep_comm_overlap and s.ep > 1:
        out.append(Assumption("ep_comm_overlap", _("all-to-all under the other micro-batch's compute, {share} of "
                                                   "the SMs held by communication").format(
            share=format_percent(OVERLAP_COMM_SM_SHARE, digits=None)),
                              _("Megatron-Core --overlap-moe-expert-parallel-comm (combined_1f1b.py); DeepSeek-V3 "
                                "DualPipe (arXiv 2412.19437 sections 3.2.1-3.2.2: 20 of 132 SMs)")))
    if experts and not permute_fused(s, fw):
        out.append(Assumption("moe_permute_fusion", _("tokens permuted around the experts without fused kernels: "
                                                      "{topk} x top_k + {token} hidden states per token moved in "
                                                      "forward and backward, against {fused} x (top_k + 1) fused").format(
            topk=MOE_UNFUSED_PERMUTE_TOPK_PASSES // 2, token=MOE_UNFUSED_PERMUTE_TOKEN_PASSES // 2,
            fused=MOE_PERMUTE_PASSES),
                              _("Megatron-Core moe_utils.py permute / unpermute (index_select, scatter_add); "
                                "moe_permute_fusion off by default (transformer_config.py)")))
    if s.ep_node_dedup and s.ep > 1:
        out.append(Assumption("ep_node_dedup", _("one copy of a token per destination GPU inside the NVLink domain, "
                                                 "one per remote NVLink domain over the network"),
                              _("DeepEP normal kernels (github.com/deepseek-ai/DeepEP); DeepSeek-V3 report "
                                "(arXiv 2412.19437) section 3.2.2; Megatron-Core HybridEP")))
    if dense_routed:
        out.append(Assumption("hf_dense_routed_experts", _("every token runs through all {experts} routed experts "
                                                           "(the router score zeroes the unselected ones), not "
                                                           "only its top-k").format(experts=dense_routed),
                              _("transformers modeling_llama4.py Llama4TextMoe.forward (v4.51-4.56): the hidden "
                                "states repeated once per expert, then Llama4TextExperts over all of them"),
                              raw(routed_copies=dense_routed)))
    if experts:
        out.append(Assumption("expert_gemm_roofline", _("six GEMMs per routed expert, each max(FLOPs, operand reads) + "
                                                        "its output write, with the expert's own width and tokens per "
                                                        "expert"),
                              _("Williams, Waterman, Patterson 2009 (Roofline, CACM 52(4)); checked against DeepGEMM "
                                "FP8 narrow-K points on H800 (github.com/deepseek-ai/DeepGEMM pull 74)")))
        if gpu.sm_count > 0:
            grouped = experts_grouped(s, fw)
            out.append(Assumption(
                "expert_gemm_waves",
                (_("each expert linear is one grouped launch over the local experts, whose 256 x 128 output tiles "
                   "share waves of {sms} SMs") if grouped else
                 _("each expert's GEMM is its own launch, whose 256 x 128 output tiles fill waves of {sms} SMs; a "
                   "partly filled wave leaves SMs idle")).format(sms=gpu.sm_count),
                _("NVIDIA Matrix Multiplication Background User's Guide (DU-09799-001), 3.2 Wave Quantization; "
                  "torch._grouped_mm (grouped) or Transformer Engine GroupedLinear (one GEMM per expert)"),
                raw(sm_count=gpu.sm_count, grouped=grouped)))
        share = grouped_mm_share(gpu.compute_capability, experts_grouped(s, fw), s.precision == "fp8")
        if share < 1.0:
            out.append(Assumption(
                "expert_grouped_mm_rate",
                _("the experts' 16-bit grouped GEMM (torch._grouped_mm) at {share} of the dense GEMM rate").format(
                    share=format_percent(share)),
                _("torchao B200 microbenchmark of torch._grouped_mm, BF16 forward + backward, 712-863 TFLOPS "
                  "against 1746 TFLOPS cuBLAS MAMF (github.com/pytorch/ao torchao/prototype/moe_training/"
                  "README.md)"),
                raw(share=share)))
    if s.precision == "fp8":
        recipe = s.fp8_recipe or fw.fp8_recipe
        out.append(Assumption("fp8", _("GEMMs only at the FP8 peak x {share} of the BF16 efficiency; attention and "
                                       "other kernels 16-bit; {recipe} scaling casts at {cast_bytes:g} bytes per "
                                       "element").format(
            share=format_percent(fp8_gemm_share(gpu.architecture, 4 if s.adapter_params else 6, s.recompute,
                                                fw.selective_mm_share), digits=None), recipe=recipe,
            cast_bytes=fp8_cast_bytes_per_element(recipe, non_tn_fp8_gemm(gpu.compute_capability))),
                              _("Transformer Engine FP8 recipe, split accumulator in backward only (_2X_ACC_FPROP / "
                                "_2X_ACC_DGRAD / _2X_ACC_WGRAD, transformer_engine/pytorch/module/base.py); "
                                "Micikevicius et al. 2022 (arXiv 2209.05433); DeepSeek-V3 report (arXiv 2412.19437) "
                                "section 3.3.2")))
    return tuple(out)
