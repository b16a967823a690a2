"""Block-scaled FP8 dense GEMMs at decode sizes: the weight stream scales with the GEMM's output tiles.

The engines' block-FP8 linears (128 x 128 weight blocks, 1 x 128 activation groups: the DeepSeek-V3 / R1, Qwen3
-FP8 and MiniMax checkpoints) tile the output in blocks of 128 columns and walk K without splitting it:

- vLLM's Triton ``w8a8_block_fp8_matmul`` (``vllm/model_executor/layers/quantization/utils/fp8_utils.py``) runs its
  default configuration ``BLOCK_SIZE_N = block_n`` = 128 (the checkpoint's weight block) and ``BLOCK_SIZE_K =
  block_k`` = 128 where no tuned JSON exists, and its grid is ``cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)``:
  one CTA per output tile, K walked serially; its SM90 CUTLASS blockwise kernel (``cutlass_w8a8_block_fp8``,
  ``csrc/quantization/cutlass_w8a8/c3x/scaled_mm_blockwise_sm90_fp8_dispatch.cuh``) uses a 128-wide N tile too;
- SGLang's Triton kernel is the same one (``python/sglang/srt/layers/quantization/fp8_kernel.py``), and
  DeepGEMM's normal GEMM also computes whole 128-deep scale groups per K step without split-K.

At a decode step (M of a few dozen tokens, one M tile) the GEMM therefore has ``ceil(N / 128)`` CTAs, each
streaming its 128 x K weight slice at a latency-bound rate: DeepSeek-V3's fused q_a / kv_a projection (N 2112,
17 tiles) streams at 0.133 of H100's bandwidth (:data:`gpudesk.sizing.serve_rates.BLOCK_FP8_WEIGHT_STREAM_SHARE`,
vllm-project/vllm PR 23280), i.e. 0.0078 of the bandwidth per busy tile. A wider GEMM keeps proportionally more
SMs streaming: the rate is the measured one x tiles / 17, capped at the memory roofline (on H100, 17 / 0.133 =
128 tiles, about its 132 SMs, reach it). Qwen3-8B's linears are 6144 (QKV), 4096 (O, down) and 24576 (gate_up)
wide: 32-192 tiles, 2-11x the narrow projection's rate. The narrow projections keep the measured rate (no GEMM
narrower than 17 tiles is taken slower than it: the measured figure is the floor of this model). Dense weights of
an MoE model outside the attention (shared experts, leading dense layers) keep the measured narrow rate.

On Ada (compute capability 8.9: L40S, L20, RTX 4090) vLLM's CUTLASS block-FP8 kernels do not run (SM90 / SM100
only), so its linears run the Triton kernel with its default configuration unless a tuned JSON ships (vllm-project/
vllm PR 29217 adds L40S ones for Qwen3-VL-32B). There the narrow rate is that kernel's measured rate in bytes per
second, not a share of the bandwidth: each CTA walks K serially with a fixed number of weight blocks in flight
(``num_stages`` 2), so by Little's law it streams bytes-in-flight / memory latency whatever the GPU's total
bandwidth. The default-configuration Triton kernel on H100 runs the N 2112 x K 7168 GEMM at 0.5276 TFLOPS at M = 1
(vllm-project/vllm PR 23939, "Before" table), 263.8 GB/s over 17 tiles (~15.5 GB/s per CTA,
:data:`ADA_NARROW_STREAM_BYTES_PER_S`), capped at the roofline: L40S (864 GB/s GDDR6) fills its bandwidth with
about 48 busy tiles. Other NVIDIA GPUs keep the share: they run other kernels (CUTLASS with TMA, DeepGEMM on
SM90 / SM100) whose bytes in flight per CTA the H100 Triton figure does not give.

NVIDIA GPUs only (:data:`TILES_VENDOR`): the grid and the 17-tile measurement are those of the CUDA kernels above.
On AMD Instinct both engines run AITER's kernels for these linears (Triton ``gemm_a8w8_blockscale`` with tuned
split-K configurations, CK preshuffled kernels on gfx950; :mod:`gpudesk.sizing.serve_rocm_block_fp8`), whose tile
grid is not established here, and the measured rate stays: on CDNA 3 SGLang's DeepSeek-V3 with DP attention on
8 x MI300X (every GPU reads all 128 heads' projections, N up to 24576) measured 463.8 output tokens/s at concurrency
100 (SGLang cookbook), which the unscaled rate matches and a tile-scaled one overshoots 2.2x.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from gpudesk.sizing.shapes import ModelSpec
from gpudesk.sizing.serve_rocm_gemm_size import dense_linear_shapes

BLOCK_FP8_TILE_N = 128
TILES_VENDOR = "NVIDIA"
# DeepSeek-V3's fused q_a / kv_a projection, the GEMM the measured stream share comes from (N 2112, K 7168).
MEASURED_N = 2112
MEASURED_TILES = math.ceil(MEASURED_N / BLOCK_FP8_TILE_N)
# vLLM's Triton w8a8_block_fp8_matmul, default configuration, on H100: N 2112 x K 7168 at M = 1, 0.5276 TFLOPS
# (vllm-project/vllm PR 23939 "Before"), 15.1 MB of FP8 weights at FLOPs = 2 x bytes: 263.8 GB/s over 17 tiles.
ADA_NARROW_STREAM_BYTES_PER_S = 0.527570e12 / 2
ADA_COMPUTE_CAPABILITY = "8.9"
NARROW_STREAM_SOURCE = ("on Ada (sm89) vLLM's block-FP8 linears run the Triton w8a8_block_fp8_matmul (CUTLASS "
                        "block-FP8 is SM90/SM100 only); its default configuration streams N 2112 x K 7168 at "
                        "263.8 GB/s at M = 1 (vllm-project/vllm PR 23939), a latency-bound rate per CTA (Little's "
                        "law), capped at the roofline")
TILES_SOURCE = ("block-FP8 GEMMs tile N in 128 columns without split-K (vLLM fp8_utils.py w8a8_block_fp8_matmul "
                "grid cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N), BLOCK_SIZE_N = block_n 128; CUTLASS "
                "blockwise SM90 128-wide tile; https://github.com/vllm-project/vllm): the measured N 2112 rate "
                "x ceil(N / 128) / 17, capped at the memory roofline")


def ada_narrow_stream_bytes_per_s(compute_capability: str | None, roofline_bytes_per_s: float) -> float | None:
    """Bytes per second at which an Ada GPU (compute capability 8.9) streams the block-FP8 weights of the measured
    narrow GEMM (17 tiles) at a decode step: the Triton kernel's latency-bound rate, at most the GPU's
    ``roofline_bytes_per_s``; None on any other GPU (module docstring)."""
    if (compute_capability or "").strip() != ADA_COMPUTE_CAPABILITY:
        return None
    return min(ADA_NARROW_STREAM_BYTES_PER_S, roofline_bytes_per_s)


def tile_scale(n_columns: int) -> float:
    """How many times the measured narrow GEMM's rate a block-FP8 GEMM of ``n_columns`` output columns streams its
    weights at a decode step (module docstring): its 128-wide tiles over the measured GEMM's 17, at least 1."""
    return max(1.0, math.ceil(n_columns / BLOCK_FP8_TILE_N) / MEASURED_TILES)


def block_fp8_linear_shapes(spec: ModelSpec, tp: int, attention_tp: int) -> tuple[tuple[int, int], ...]:
    """Per-layer (N, K) of the dense linears whose block-FP8 weights each GPU streams every decode step: the
    attention projections (MLA's replicated down-projections, up-projections and output, or Q/K/V and O), plus the
    gated MLP of a model without routed experts. Dense weights not listed keep the measured narrow rate."""
    dims = spec.transformer_dims
    h, heads = dims.hidden_size, dims.num_attention_heads
    local_heads = max(1, heads // attention_tp)
    if spec.attention_kind == "mla" and spec.kv_lora_rank:
        rope = spec.qk_rope_head_dim or 0
        nope = spec.qk_nope_head_dim or 128
        v_dim = spec.v_head_dim or 128
        q_lora = spec.q_lora_rank or 0
        shapes = [(q_lora + spec.kv_lora_rank + rope, h)] if q_lora else [
            (local_heads * (nope + rope), h), (spec.kv_lora_rank + rope, h)]
        if q_lora:
            shapes.append((local_heads * (nope + rope), q_lora))
        shapes += [(local_heads * (nope + v_dim), spec.kv_lora_rank), (h, local_heads * v_dim)]
    else:
        qkv, out, _up, _down = dense_linear_shapes(spec, attention_tp)
        shapes = [qkv, out]
    if not spec.moe_experts:
        _qkv, _out, up, down = dense_linear_shapes(spec, tp)
        shapes += [up, down]
    return tuple(shapes)


def block_fp8_stream_s(block_bytes: float, shapes: tuple[tuple[int, int], ...], layers: int,
                       narrow_rate: float, roofline_rate: float) -> float:
    """Seconds to stream ``block_bytes`` of block-FP8 dense weights per GPU: the ``shapes`` linears of ``layers``
    layers (one byte per weight) at the narrow rate x :func:`tile_scale`, capped at ``roofline_rate``; the rest of
    the bytes at ``narrow_rate``."""
    listed = sum(n * k for n, k in shapes) * layers
    scale = min(1.0, block_bytes / listed) if listed else 0.0
    seconds = 0.0
    for n, k in shapes:
        seconds += n * k * layers * scale / min(roofline_rate, narrow_rate * tile_scale(n))
    return seconds + max(0.0, block_bytes - listed * scale) / narrow_rate


def tile_mix(shapes: tuple[tuple[int, int], ...], covered_share: float) -> tuple[tuple[float, float], ...]:
    """(weight, :func:`tile_scale`) of each of ``shapes`` by its share of the dense block-FP8 FLOPs, the
    ``covered_share`` of them those linears carry; the rest at scale 1 (the measured narrow GEMM).

    The Triton table of :data:`gpudesk.sizing.serve_rates.BLOCK_FP8_TRITON_TFLOPS_BY_M` was measured on the N 2112
    GEMM: its rise with M (219 TFLOPS at 256 rows, 406 at 8192) is the grid filling the SMs, ``cdiv(M, 64) x 17``
    tiles (BLOCK_SIZE_M 64 in the default configuration). A GEMM with ``s`` times the output tiles fills them at
    ``1 / s`` of the rows, so it is read at ``rows x s`` (:func:`dense_peak_share`)."""
    total = float(sum(n * k for n, k in shapes))
    if not total:
        return ()
    covered = max(0.0, min(1.0, covered_share))
    mix = tuple((covered * n * k / total, tile_scale(n)) for n, k in shapes)
    return mix + ((1.0 - covered, 1.0),) if covered < 1.0 else mix


def dense_peak_share(rows: float, mix: tuple[tuple[float, float], ...],
                     share_at_rows: Callable[[float], float]) -> float:
    """Share of the FP8 peak the dense block-FP8 linears of a step of ``rows`` tokens reach together: the
    FLOP-weighted harmonic mean of ``share_at_rows(rows x tile scale)`` over ``mix`` (:func:`tile_mix`); the
    measured narrow GEMM's ``share_at_rows(rows)`` where ``mix`` is empty."""
    if not mix:
        return float(share_at_rows(rows))
    return 1.0 / sum(weight / share_at_rows(rows * scale) for weight, scale in mix if weight > 0)
