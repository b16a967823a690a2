"""Reserved memory the caching allocator holds around a frozen base that is loaded one tensor at a time.

transformers' ``from_pretrained`` with a ``device_map`` (what ms-swift and most LoRA scripts pass) moves every
checkpoint tensor to the GPU on its own (accelerate ``set_module_tensor_to_device``: ``value.to(device)``), so
each weight matrix is one request to PyTorch's caching allocator. The allocator rounds a request by its size
(c10 ``CUDACachingAllocator.cpp`` ``get_allocation_size``,
https://github.com/pytorch/pytorch/blob/v2.2.0/c10/cuda/CUDACachingAllocator.cpp):

- up to ``kSmallSize`` (1 MiB): the small pool (2 MiB segments, 512-byte blocks): nothing of note is lost;
- below ``kMinLargeAlloc`` (10 MiB): a ``kLargeBuffer`` segment of 20 MiB, split by best fit (``get_free_block``)
  for later requests; a remainder stays a free block of the large pool only while it is over 1 MiB;
- from 10 MiB: a segment of its own rounded up to ``kRoundLarge`` (2 MiB).

Matrices between 1 and 10 MiB therefore leave the end of their 20 MiB segments free: three 5.5 MiB experts of
Qwen1.5-MoE-A2.7B (2048 x 1408 in bf16) fill 16.5 MiB of each segment and leave 3.5 MiB that no later weight of
that size fits. The frozen weights never move, so these remainders stay reserved for the whole run (the allocator
returns a segment only when all of it is free, ``release_cached_blocks``). :func:`frozen_segment_waste_bytes`
replays the best-fit rule over the layer's matrices in the order a safetensors checkpoint lists them (keys sorted:
``mlp.*`` before ``self_attn.*``; within the MoE block the routed experts' down/gate/up, then the shared expert).
Later small requests (activations, adapters) that could fill a remainder are left out: most are under 1 MiB and go
to the small pool.
"""

from __future__ import annotations

from bisect import bisect_left, insort

from gpudesk.sizing.shapes import ModelSpec
from gpudesk.units import MIB

SMALL_SIZE_BYTES = 1 * MIB  # kSmallSize
MIN_LARGE_ALLOC_BYTES = 10 * MIB  # kMinLargeAlloc
LARGE_BUFFER_BYTES = 20 * MIB  # kLargeBuffer
ROUND_LARGE_BYTES = 2 * MIB  # kRoundLarge
MIN_BLOCK_BYTES = 512  # kMinBlockSize


def _round_up(n: int, step: int) -> int:
    return -(-n // step) * step


def layer_weight_matrices(spec: ModelSpec) -> list[list[int]]:
    """Elements of each Linear weight of every decoder layer, in checkpoint order (one list per layer)."""
    dims = spec.transformer_dims
    h = dims.hidden_size
    heads = dims.num_attention_heads
    hd = spec.head_dim_resolved
    kv = (spec.num_kv_heads or heads) * hd
    q = heads * hd
    per = 3 if spec.gated else 2
    layers = max(1, spec.layers or dims.layers)
    # sorted keys: self_attn.k_proj, o_proj, q_proj, v_proj
    attn = [h * kv, q * h, h * q, h * kv]
    dense = [h * (spec.ffn_size or 4 * h)] * per
    out: list[list[int]] = []
    moe_layers = 0
    if spec.moe_experts and spec.moe_ffn_size:
        moe_layers = layers if spec.moe_layers is None else min(layers, spec.moe_layers)
    for i in range(layers):
        if i >= layers - moe_layers:
            mlp = [h * spec.moe_ffn_size] * (per * spec.moe_experts) if spec.moe_ffn_size and spec.moe_experts else []
            mlp.append(h * spec.moe_experts if spec.moe_experts else 0)  # router
            shared = spec.moe_shared_ffn_size or spec.moe_ffn_size or 0
            mlp += [h * shared] * (per * spec.moe_shared_experts)
        else:
            mlp = list(dense)
        out.append(mlp + attn)
    return out


def replay_reserved_bytes(request_bytes: list[int]) -> tuple[int, int]:
    """Replay the caching allocator's best fit over ``request_bytes`` allocated in order and never freed.
    Returns (bytes reserved in segments, bytes requested after rounding to 512) for the requests above 1 MiB."""
    free: list[int] = []  # sizes of the large pool's free blocks, sorted
    reserved = used = 0
    for raw in request_bytes:
        size = _round_up(max(1, raw), MIN_BLOCK_BYTES)
        if size <= SMALL_SIZE_BYTES:
            continue
        used += size
        i = bisect_left(free, size)
        if i < len(free):
            block = free.pop(i)
        else:
            block = LARGE_BUFFER_BYTES if size < MIN_LARGE_ALLOC_BYTES else _round_up(size, ROUND_LARGE_BYTES)
            reserved += block
        rest = block - size
        if rest > SMALL_SIZE_BYTES:
            insort(free, rest)
    return reserved, used


def frozen_segment_waste_bytes(spec: ModelSpec, bytes_per_param: float) -> float:
    """Bytes the allocator reserves beyond the decoder layers' frozen weights themselves (per-tensor loading)."""
    requests = [int(n * bytes_per_param) for layer in layer_weight_matrices(spec) for n in layer]
    reserved, used = replay_reserved_bytes(requests)
    return float(max(0, reserved - used))
