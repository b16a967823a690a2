"""KV capacity of vLLM V1's hybrid KV cache manager for a model that mixes sliding-window and full-attention layers
(gpt-oss, Gemma 2/3/4), as the serving scheduler counts it: context tokens of the running requests.

vLLM 0.10 and later (V1) split such a model's layers into KV cache groups of ``group_size`` layers that share one
block pool (:mod:`gpudesk.sizing.engines.vllm_hybrid`: ``num_blocks = available // page_size // group_size``,
``vllm/v1/core/kv_cache_utils.py``). A request takes ``ceil(context / block)`` blocks in each full-attention group,
but in each sliding-window group only the blocks its window still covers: ``SlidingWindowManager.
remove_skipped_blocks`` (``vllm/v1/core/single_type_kv_cache_manager.py``) frees every block whose tokens all lie
more than ``window - 1`` tokens back, so a decoding request holds ``ceil((window - 1) / block) + 1`` blocks there
(fewer while its context is shorter). gpt-oss-120b (18 full and 18 sliding layers, window 128, block 64): one
group of each, a request of 5,700 tokens holds 90 + 3 blocks of 18 layers instead of 90 blocks of 36 layers, so
the pool holds about twice the tokens that sizing every layer as full attention gives. Before 0.10, and with
``--disable-hybrid-kv-cache-manager``, every layer holds every token (:func:`gpudesk.sizing.serve_engine.
sum_layers_kv_bytes`).

The scheduler counts a request's context tokens against one capacity; the sliding groups' few blocks per request
are charged at the load's mean context (prompt + half the output, the running population's mean), so the capacity
in context tokens is ``num_blocks x block x context / blocks per request``. A prompt chunk's sliding blocks beyond
the window live for one step only (freed at the next) and are not counted.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpudesk.sizing.engines.vllm_hybrid import HybridGroups, hybrid_groups
from gpudesk.sizing.memory_inference import kv_global_layer_bytes_per_token, kv_layer_bytes_per_token
from gpudesk.sizing.shapes import ModelSpec

HYBRID_SOURCE = ("vLLM V1 hybrid KV cache manager (0.10+): vllm/v1/core/kv_cache_utils.py (groups, num_blocks), "
                 "vllm/v1/core/single_type_kv_cache_manager.py SlidingWindowManager.remove_skipped_blocks "
                 "(blocks outside the window freed); gpudesk/sizing/serve_hybrid_kv.py")


@dataclass(frozen=True)
class HybridCapacity:
    """``tokens``: context tokens the pool holds at the load's mean context; ``groups``; ``blocks`` in the pool;
    ``blocks_per_request`` at that context."""

    tokens: int
    groups: HybridGroups
    blocks: int
    blocks_per_request: int


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def hybrid_capacity(spec: ModelSpec, kv_dtype: str, tp: int, kv_bytes: float, block_tokens: int,
                    context_tokens: int, release: tuple[int, int] | None) -> HybridCapacity | None:
    """The capacity of ``kv_bytes`` on one of ``tp`` GPUs under vLLM ``release``'s hybrid manager (None: the newest)
    for requests of mean ``context_tokens``; None where the model has one attention type or the release predates
    the manager (module docstring)."""
    groups = hybrid_groups(spec, release)
    if groups is None or kv_bytes <= 0:
        return None
    block = max(1, block_tokens)
    # One page size for every group: the largest layer's (kv_cache_utils.py unify_kv_cache_spec_page_size).
    page = max(kv_layer_bytes_per_token(spec, kv_dtype, tp), kv_global_layer_bytes_per_token(spec, kv_dtype, tp)) * block
    blocks = int(kv_bytes // page // groups.group_size)
    context = max(1, context_tokens)
    full = _cdiv(context, block)
    window = int(spec.sliding_window or 0)
    sliding = min(full, _cdiv(max(0, window - 1), block) + 1)
    per_request = groups.full_groups * full + groups.sliding_groups * sliding
    return HybridCapacity(tokens=int(blocks * context / per_request), groups=groups, blocks=blocks,
                          blocks_per_request=per_request)
