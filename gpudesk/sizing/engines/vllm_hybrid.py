"""vLLM V1's hybrid KV cache manager: how models that mix sliding-window and full-attention layers (Gemma 2/3,
gpt-oss) are split into KV cache groups, and what that does to the printed token capacity and concurrency.

Source: ``vllm/v1/core/kv_cache_utils.py`` of the 0.19.0 wheel
(https://github.com/vllm-project/vllm/blob/v0.19.0/vllm/v1/core/kv_cache_utils.py):

- ``_get_kv_cache_groups_uniform_page_size``: the layers of each attention type are split into groups of
  ``group_size`` layers, ``group_size`` being the fewest layers of any type (Gemma 3's "5:1" pattern: the global
  layers), or, from 0.19 (absent from the 0.17.0 wheel), the most when that is under 1.5 x the fewest; the last
  group of a type is padded ("Add N padding layers, may waste at most X% KV cache memory"). Gemma 3 27B: 10 global
  and 52 sliding layers -> one full group and six sliding groups of 10 layers (eight padding layers).
- ``get_kv_cache_config_from_groups``: ``group_size`` tensors, each shared by one layer of every group;
  ``num_blocks = available // page_size // group_size`` with ``page_size = block_size x bytes per token per layer``.
- ``_report_kv_cache_config``: "GPU KV cache size: N tokens" is ``num_blocks // len(groups) x block_size``;
  ``get_max_concurrency_for_kv_cache_config``: "Maximum concurrency" is ``num_blocks`` over the blocks one request
  of ``max_model_len`` takes in every group: ``cdiv(max_model_len, block_size)`` per full group and, per sliding
  group, ``cdiv(min(window - 1 + max_num_batched_tokens, max_model_len), block_size) + 1``
  (``vllm/v1/kv_cache_interface.py`` ``SlidingWindowSpec.max_memory_usage_bytes``).

The hybrid manager shipped with 0.10 (before it, V1 sized every layer as a full-attention one). Printed on one H100
by 0.19.0 (llm-d-planner accuracy logs): Gemma 3 27B, 19.53 GiB -> 36,560 tokens, 4.46x at 8,192 tokens; Gemma 3
12B, 47.72 GiB -> 130,304 tokens, 15.88x.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpudesk.sizing.shapes import ModelSpec

#: First release with the hybrid KV cache manager (earlier V1 releases unify every layer to full attention).
HYBRID_SINCE = (0, 10)
#: First release that widens the group to the larger type when it has under 1.5x the smaller one's layers.
WIDER_GROUPS_SINCE = (0, 19)


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True)
class HybridGroups:
    """The KV cache groups of a hybrid model: ``group_size`` layers each, ``full_groups`` + ``sliding_groups``."""

    group_size: int
    full_groups: int
    sliding_groups: int

    @property
    def groups(self) -> int:
        return self.full_groups + self.sliding_groups


def hybrid_groups(spec: ModelSpec, release: tuple[int, int] | None) -> HybridGroups | None:
    """The groups vLLM ``release`` (None: the newest) forms for ``spec``; None when the model has one attention type
    or the release predates the hybrid manager."""
    if release is not None and release < HYBRID_SINCE:
        return None
    layers = spec.layers or 0
    local = spec.local_attention_layers
    full = layers - local
    if not (local and full):
        return None
    group_size = min(local, full)
    if (release is None or release >= WIDER_GROUPS_SINCE) and max(local, full) < 1.5 * group_size:
        group_size = max(local, full)
    return HybridGroups(group_size, _cdiv(full, group_size), _cdiv(local, group_size))


def hybrid_num_blocks(groups: HybridGroups, available_bytes: float, page_bytes: float) -> int:
    """``available // page_size // group_size`` (``get_num_blocks``)."""
    if available_bytes <= 0 or page_bytes <= 0:
        return 0
    return int(available_bytes // page_bytes // groups.group_size)


def hybrid_tokens(groups: HybridGroups, num_blocks: int, block_tokens: int) -> int:
    """The printed "GPU KV cache size": ``num_blocks // groups x block_size``."""
    return num_blocks // groups.groups * block_tokens


def hybrid_blocks_per_request(groups: HybridGroups, window: int, max_model_len: int, max_num_batched_tokens: int,
                              block_tokens: int) -> int:
    """Blocks one request of ``max_model_len`` takes over all groups (module docstring)."""
    full = _cdiv(max_model_len, block_tokens)
    sliding = _cdiv(min(window - 1 + max_num_batched_tokens, max_model_len), block_tokens) + 1
    return groups.full_groups * full + groups.sliding_groups * sliding


def hybrid_max_context(groups: HybridGroups, window: int, num_blocks: int, concurrency: int,
                       max_num_batched_tokens: int, block_tokens: int, limit: int) -> int:
    """Longest request (at most ``limit`` tokens) of which ``concurrency`` fit in ``num_blocks`` blocks of every
    group (bisection over :func:`hybrid_blocks_per_request`); 0 when not even one token fits."""
    lo, hi = 0, max(1, limit)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        need = hybrid_blocks_per_request(groups, window, mid, max_num_batched_tokens, block_tokens) * concurrency
        if need <= num_blocks:
            lo = mid
        else:
            hi = mid - 1
    return lo
