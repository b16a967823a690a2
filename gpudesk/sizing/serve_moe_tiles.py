"""Row tiles of the Triton fused-MoE kernel: each routed expert computes whole tiles of token rows.

vLLM's and SGLang's Triton fused MoE (``fused_moe_kernel``, the kernel both engines run for block-scaled FP8
routed experts at tensor parallelism) sorts the step's (token, expert) pairs by expert and pads every expert's
rows to a multiple of the configuration's ``BLOCK_SIZE_M`` (``moe_align_block_size``: "Pads the token counts of
each expert to a multiple of block_size", vllm/model_executor/layers/fused_moe/moe_align_block_size.py,
https://github.com/vllm-project/vllm; sglang python/sglang/srt/layers/moe/fused_moe_triton/fused_moe.py); each
program then multiplies a ``BLOCK_SIZE_M`` x ``BLOCK_SIZE_N`` tile. With ``n`` tokens routing to ``k`` of ``E``
experts, ``E (1 - (1 - k/E)^n)`` experts are active and each gets ``n k / active`` rows on average, so a decode step
of a 256-expert model computes ``active x BLOCK_SIZE_M`` rows where ``n k`` are real: at 8 tokens, 57 experts of one
or two real rows each become 57 x 64 = 3648 rows with 64-row tiles.

The kernel pipelines its weight loads with the tile math (``num_stages`` 3-5 in the configurations), so the padded
math costs time only where it exceeds the weight stream and the real rows' math it overlaps with:
``max(0, padded math / rate - (expert weights / HBM rate + real math / rate))``, the rate that of the engines'
block-FP8 Triton kernels (:data:`gpudesk.sizing.serve_rates.BLOCK_FP8_TRITON_TFLOPS_BY_M` at 256 rows). With
16-row tiles the padded math hides under the weight stream; with 64-row tiles it sets the step of a 256-expert
model from a few tokens on.

``BLOCK_SIZE_M`` by engine release (the shipped configuration for the DeepSeek-V3 / R1 expert shape, E 256 / 257,
N 256 at TP 8, block FP8, on H200; other GPUs and shapes are taken to follow the same configuration):

- vLLM before v0.12: 64 rows from 4 tokens on, 16 below (``configs/E=256,N=256,device_name=NVIDIA_H200,dtype=
  fp8_w8a8,block_shape=[128,128].json`` as shipped before vllm-project/vllm PR 28992, "[Kernels] Improve H200 Fused
  MoE Config", merged 2025-11-19; the default ``get_default_config`` for block FP8 is 64 rows at every size until
  vllm-project/vllm PR 34846, v0.17). From v0.12: 16 rows up to 512 tokens, 64 above (PR 28992's file).
- SGLang before v0.4.8: 64 rows (``get_default_config``, block-wise FP8: ``BLOCK_SIZE_M`` 64; the shipped tuned
  configurations for this shape that were found are those of the per-Triton-version folders that start with
  v0.4.8's Triton 3.3.1, sgl-project/sglang PR 7687). From v0.4.8: 16 rows up to 512 tokens, 64 above
  (``configs/triton_3_3_1/E=257,N=256,device_name=NVIDIA_H200,dtype=fp8_w8a8,block_shape=[128, 128].json``).
- No version given: the current releases' tiles (16 up to 512 tokens).

Those are the tuned files' tiles. A local expert shape with no tuned file (:mod:`gpudesk.sizing.serve_moe_configs`)
runs ``get_default_config``'s block-FP8 tiles: 64 rows at every size in SGLang and in vLLM before v0.17
(``"BLOCK_SIZE_M": 64`` with ``BLOCK_SIZE_N`` / ``BLOCK_SIZE_K`` the quantization block), and from vLLM PR 34846
("[Perf] Improve default triton fused moe configs", merged 2026-02-18, v0.17) 16 rows up to 64 tokens, 64 above
(``"BLOCK_SIZE_M": 16 if M <= 64 else 64``); with no version the latter.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from gpudesk.sizing.serve_host import engine_version_tuple

MOE_TILE_SOURCE = ("Triton fused MoE pads each expert's rows to BLOCK_SIZE_M (moe_align_block_size); BLOCK_SIZE_M "
                   "64 in vLLM's H200 DeepSeek config before PR 28992 (v0.12) and in both engines' block-FP8 default "
                   "config, 16 up to 512 tokens in vLLM PR 28992 and SGLang's triton_3_3_1 config (PR 7687, v0.4.8), "
                   "16 up to 64 tokens in vLLM's default config from PR 34846 (v0.17) "
                   "(https://github.com/vllm-project/vllm, https://github.com/sgl-project/sglang)")
SMALL_TILE_ROWS = 16
LARGE_TILE_ROWS = 64
VLLM_SMALL_TILES_SINCE = (0, 12)
VLLM_OLD_SMALL_TILE_BELOW_TOKENS = 4
SGLANG_SMALL_TILES_SINCE = (0, 4, 8)
SMALL_TILES_UP_TO_TOKENS = 512
VLLM_SMALL_DEFAULT_TILES_SINCE = (0, 17)
DEFAULT_SMALL_TILES_UP_TO_TOKENS = 64


@dataclass(frozen=True)
class MoeTiles:
    """Rows of one tile: ``small_rows`` for steps of at most ``small_up_to_tokens`` tokens, else ``large_rows``."""

    small_rows: int = SMALL_TILE_ROWS
    large_rows: int = LARGE_TILE_ROWS
    small_up_to_tokens: int = SMALL_TILES_UP_TO_TOKENS

    def rows(self, tokens: int) -> int:
        """Tile rows of a step of ``tokens`` tokens."""
        return self.small_rows if tokens <= self.small_up_to_tokens else self.large_rows


def _sglang_release(version: str | None) -> tuple[int, int, int] | None:
    match = re.match(r"\s*v?(\d+)\.(\d+)(?:\.(\d+))?", version or "")
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2)), int(match.group(3) or 0)


def fused_moe_tiles(engine: str, version: str | None, tuned: bool = True) -> MoeTiles:
    """The row tiles of ``engine``'s Triton fused MoE at the published ``version`` (module docstring): those of the
    shipped tuned configuration, or with ``tuned`` False those of the engine's default configuration.

    Raises:
        SizingError: a version with no major.minor in it.
    """
    name = engine.lower()
    if not tuned and name in ("vllm", "sglang"):
        parsed = engine_version_tuple(version)
        if name == "vllm" and (parsed is None or parsed >= VLLM_SMALL_DEFAULT_TILES_SINCE):
            return MoeTiles(small_up_to_tokens=DEFAULT_SMALL_TILES_UP_TO_TOKENS)
        return MoeTiles(small_rows=LARGE_TILE_ROWS)
    if name == "vllm":
        parsed = engine_version_tuple(version)
        if parsed is not None and parsed < VLLM_SMALL_TILES_SINCE:
            return MoeTiles(small_up_to_tokens=VLLM_OLD_SMALL_TILE_BELOW_TOKENS - 1)
    elif name == "sglang":
        engine_version_tuple(version)  # the same check as every engine version
        release = _sglang_release(version)
        if release is not None and release < SGLANG_SMALL_TILES_SINCE:
            return MoeTiles(small_rows=LARGE_TILE_ROWS)
    return MoeTiles()


def padded_expert_rows(tokens: int, experts: int, active_per_token: int, tile_rows: int) -> tuple[float, float]:
    """(rows the active experts compute after padding, active experts) for ``tokens`` tokens routing to
    ``active_per_token`` of ``experts`` experts, uniform routing (module docstring)."""
    if tokens <= 0 or experts <= 0 or active_per_token <= 0:
        return 0.0, 0.0
    active = experts * (1.0 - (1.0 - active_per_token / experts) ** tokens)
    rows_each = tokens * active_per_token / active
    return active * math.ceil(rows_each / tile_rows - 1e-9) * tile_rows, active
