"""Marlin MoE on narrow tensor-parallel expert slices: a fixed time per active expert at decode sizes.

Both engines run 4-bit weight-only routed experts (AWQ, GPTQ, compressed-tensors W4A16 such as Kimi-K2-Thinking /
K2.5's group-32 INT4) on NVIDIA GPUs through the Marlin MoE kernel: SGLang ``CompressedTensorsWNA16MoEMethod.apply``
calls ``fused_marlin_moe`` (python/sglang/srt/layers/quantization/compressed_tensors/compressed_tensors_moe.py,
https://github.com/sgl-project/sglang), vLLM ``moe_wna16_marlin_gemm`` (csrc/moe/marlin_moe_wna16/ops.cu,
https://github.com/vllm-project/vllm). ``fused_marlin_moe`` picks the rows of one expert block as the first of
8, 16, 32, 48, 64 with ``tokens x top-k / experts / rows < 0.9`` (64 if none), and the kernel runs the blocks of up
to 16 rows with its small-batch tile (``small_batch_thread_configs``: 128 x 128 weight tiles, one 16-row m-block).

At tensor parallelism a DeepSeek-V3-shaped expert (hidden 7168, width 2048) is split to a gate+up GEMM of
``2 x 2048 / 8 = 512`` output columns per GPU: 4 Marlin column tiles, so the kernel splits each expert's 56
k-tiles over many thread blocks and reduces them in series (Marlin's striped partition and serial global reduction,
Frantar et al. 2024, arXiv 2408.11743 section 3.4), and each active expert costs a fixed time rather than its
weight bytes at the HBM rate: vLLM PR 14138 ("[Kernel] optimize performance of gptq marlin kernel when n is small",
https://github.com/vllm-project/vllm/pull/14138) measures DeepSeek-V3-AWQ on 8 x A800 at 50.2, 84.1, 130.7, 190.2,
267.4 tok/s for 1, 2, 4, 8, 16 requests: the step grows by 0.42 ms per active expert of the 256 (the
``E (1 - (1 - k/E)^n)`` experts the step's tokens touch), over 58 MoE layers 7.3 us per active expert and layer, 4
to 5 times the time its 2.8 MB slice takes to stream from the A800's HBM. The kernel is latency bound in this regime, so the time
is taken as the same on other GPUs. Where an expert's gate+up slice is wider than 4 column tiles (a 30B-A3B expert
of width 768 on one GPU: 1536 columns, 12 tiles) the kernel spreads over the columns and runs at the weight
stream (not counted here). Only the measured expert shape (hidden 7168, width 2048: DeepSeek-V3 / R1, Kimi-K2) is
charged; narrow slices of other shapes (Qwen3-235B-A22B at TP 8: 384 columns, K 4096) have no published time and
keep the weight stream. TensorRT-LLM runs 4-bit weight-only experts through its own CUTLASS grouped GEMM
(``MoeGemmRunner<T, cutlass::uint4b_t>`` in tensorrt_llm/kernels/cutlass_kernels/moe_gemm,
https://github.com/NVIDIA/TensorRT-LLM), not Marlin, and is not charged.
"""

from __future__ import annotations

from gpudesk.catalog.records import GPU
from gpudesk.sizing.serve_int4_moe_shape import measured_int4_experts

MARLIN_BLOCK_ROWS = (8, 16, 32, 48, 64)
MARLIN_SMALL_BLOCK_MAX_ROWS = 16  # one 16-row m-block: the kernel's small-batch tile configuration
MARLIN_TILE_COLUMNS = 128  # thread_n of small_batch_thread_configs
MARLIN_NARROW_MAX_TILES = 4  # gate+up columns per GPU of a DeepSeek-V3 expert at TP 8: 512 / 128
MARLIN_EXPERT_LAYER_S = 7.3e-6  # vLLM PR 14138, DeepSeek-V3-AWQ 8 x A800, 1 -> 16 requests (module docstring)
MARLIN_MOE_ENGINES = ("vllm", "sglang")
MARLIN_MOE_SOURCE = ("Marlin MoE runs 4-bit weight-only routed experts on NVIDIA: sglang compressed_tensors_moe.py "
                     "CompressedTensorsWNA16MoEMethod -> fused_marlin_moe (block rows 8-64), vllm csrc/moe/"
                     "marlin_moe_wna16/ops.cu; 7.3 us per active expert and MoE layer for a 512-column TP slice: "
                     "vLLM PR 14138, DeepSeek-V3-AWQ on 8 x A800, 1-16 requests "
                     "(https://github.com/vllm-project/vllm/pull/14138); Frantar et al., arXiv 2408.11743")


def marlin_block_rows(tokens: int, experts: int, top_k: int) -> int:
    """Rows of one expert block ``fused_marlin_moe`` picks for a step of ``tokens`` tokens (module docstring)."""
    for rows in MARLIN_BLOCK_ROWS:
        if tokens * top_k / experts / rows < 0.9:
            return rows
    return MARLIN_BLOCK_ROWS[-1]


def narrow_expert_block_s(engine: str, gpu: GPU, weight_format: str, hidden: int, expert_width: int, tp: int,
                          experts: int) -> float:
    """Seconds per active expert and MoE layer the Marlin MoE kernel takes at decode sizes under ``engine`` on
    ``gpu`` for routed experts of ``hidden`` x ``expert_width`` split over ``tp`` GPUs in ``weight_format``; 0 where
    it is not counted (an engine that does not run Marlin MoE, not a 4-bit weight-only MoE on NVIDIA, not the
    measured expert shape, or a gate+up slice wider than 4 column tiles)."""
    if (engine.lower() not in MARLIN_MOE_ENGINES or gpu.vendor.upper() != "NVIDIA"
            or not measured_int4_experts(weight_format, hidden, expert_width, experts)):
        return 0.0
    columns = 2 * expert_width / max(1, tp)
    if columns > MARLIN_NARROW_MAX_TILES * MARLIN_TILE_COLUMNS:
        return 0.0
    return MARLIN_EXPERT_LAYER_S
