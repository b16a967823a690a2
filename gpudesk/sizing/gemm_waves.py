"""Wave quantization of one GEMM launch: the output tiles fill the GPU's streaming multiprocessors in whole waves.

A GEMM kernel splits its ``m x n`` output into tiles, one thread block per tile, and a GPU runs one such block per
streaming multiprocessor (SM) at a time at cuBLAS's large tiles; when the tile count is not a multiple of the SM
count the last wave runs with SMs idle, and a launch with fewer tiles than SMs leaves the rest idle for its whole
duration (NVIDIA, "Matrix Multiplication Background User's Guide", DU-09799-001_v001, February 2023, chapter 3.2
"Wave Quantization": the time of a GEMM steps up each time the tile count crosses a multiple of the SM count;
https://docs.nvidia.com/deeplearning/performance/dl-performance-matrix-multiplication/). The same guide (2.3
"Typical Tile Dimensions In cuBLAS And Performance") names 256 x 128 and 128 x 256 as the most efficient tiles, the
ones a large GEMM runs at. Useful work per launch: ``tiles / (waves x SMs)``.

Where it matters: a dense layer's GEMMs cover thousands of tiles (a few % lost in the last wave, inside the measured
MAMF efficiency), while a routed expert's GEMMs are launched one expert at a time (Transformer Engine
``GroupedLinear`` queues one cuBLAS GEMM per local expert, ``general_grouped_gemm`` ->
``nvte_multi_stream_cublas_gemm``, github.com/NVIDIA/TransformerEngine transformer_engine/common/gemm/
cublaslt_gemm.cu) with a few thousand rows and an expert width of 768-2048: Qwen3-30B-A3B's gate/up GEMM at 2048 rows
per expert is 8 x 12 = 96 tiles of 256 x 128, one wave with 52 of a B200's 148 SMs idle.

A framework that runs all local experts of a linear as ONE grouped launch (torch._grouped_mm: torchtitan's
``GroupedExperts._run_experts_grouped_mm``, prime-rl's MoE experts; PyTorch aten/src/ATen/native/cuda/GroupedBlas.cpp
``_grouped_mm_cuda`` takes the CUTLASS ``bf16bf16_grouped_mm`` path on sm90 and sm100) pools the experts' tiles into
one set of waves (``groups``).

Not modelled: a split of the reduction (split-K / stream-K) that a library may choose for a small output with a
long reduction (the experts' weight gradients at many rows per expert), and the overlap of the per-expert
launches Transformer Engine spreads over its compute streams; both would fill some of the idle SMs.

SM counts come from the catalog (``GPU.sm_count``: the ``gpu_streaming_multiprocessors`` table, built from
``db/gpu_sms.csv`` where each count has its source); a GPU without one gets no wave term (0).
"""

from __future__ import annotations

import math

# cuBLAS's large tile (output rows x columns), either orientation (the library picks the one with fewer tiles).
GEMM_TILE_LONG = 256
GEMM_TILE_SHORT = 128


def gemm_output_tiles(m: float, n: float) -> int:
    """Output tiles of an ``m x n`` GEMM at cuBLAS's large tile, in the orientation with fewer tiles."""
    rows, cols = max(1, math.ceil(m)), max(1, math.ceil(n))
    return min(math.ceil(rows / GEMM_TILE_LONG) * math.ceil(cols / GEMM_TILE_SHORT),
               math.ceil(rows / GEMM_TILE_SHORT) * math.ceil(cols / GEMM_TILE_LONG))


def wave_efficiency(m: float, n: float, sms: int, groups: int = 1) -> float:
    """Share of the GPU's SM-time one launch keeps busy: tiles / (waves x SMs); 1 when ``sms`` is 0 (unknown).

    ``groups``: equal ``m x n`` problems in the same launch (a grouped GEMM whose tile scheduler hands out the tiles
    of every group, as ``torch._grouped_mm`` does): their tiles share the waves.
    """
    if sms <= 0:
        return 1.0
    tiles = max(1, groups) * gemm_output_tiles(m, n)
    return tiles / (math.ceil(tiles / sms) * sms)


__all__ = ["GEMM_TILE_LONG", "GEMM_TILE_SHORT", "gemm_output_tiles", "wave_efficiency"]
