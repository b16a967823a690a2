"""FSDP1 without its rate limiter (``limit_all_gathers=False``): every unit unsharded at once.

``FullyShardedDataParallel(limit_all_gathers=...)``: "If True, then FSDP explicitly synchronizes the CPU thread to
ensure GPU memory usage from only two consecutive FSDP instances (the current instance running computation and the
next instance whose all-gather is prefetched). If False, then FSDP allows the CPU thread to issue all-gathers
without any extra synchronization" (torch/distributed/fsdp/fully_sharded_data_parallel.py docstring). With the
limiter, ``_runtime_utils._unshard`` waits on ``state._free_event_queue`` (at most two pending frees) before each
all-gather; without it nothing holds the CPU back. The default was ``False`` up to PyTorch 2.0 (the v2.0.1
``FullyShardedDataParallel.__init__`` signature: ``limit_all_gathers: bool = False``) and is ``True`` from 2.1
(the signature that adds ``ignored_states`` and ``device_mesh``); recipes of mid-2023 on torch 2.0 that did not
pass it ran without the limiter (llama-recipes before meta-llama/llama-cookbook PR 41 of 2023-07-25, "Improve FSDP
LoRA Memory Usage", which set ``limit_all_gathers=True``).

A transformer layer's GPU work is long and its CPU work short (with activation checkpointing the forward is even
cheaper on the CPU), so the CPU thread runs ahead of the GPU through the whole forward: each unit's all-gather
output is allocated on the unshard stream when the CPU issues it, and the block it frees after its forward is only
reusable once the GPU has passed that point (the caching allocator's per-stream pools and ``record_stream``,
``c10/cuda/CUDACachingAllocator.cpp``). The bound, and what a CPU far ahead reaches, is every unit unsharded at
once: the whole model at the compute dtype, in place of the two blocks the limiter allows. The unsharded gradients
are produced by backward one unit at a time and are counted as before (two blocks in flight).

FSDP2 (``fully_shard``) has no such switch: its all-gathers are ordered by stream events with the prefetch depth
set explicitly.
"""

from __future__ import annotations

from gpudesk.i18n import _
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.shapes import ModelSpec


def check_fsdp1_limit_all_gathers(limit_all_gathers: bool, fsdp: bool, fsdp_version: int) -> None:
    """Refuse ``limit_all_gathers=False`` away from FSDP1 full sharding.

    Raises:
        SizingError: (field ``fsdp1_limit_all_gathers``) the rate limiter turned off with a sharding other than
            ``fsdp`` or with FSDP version 2.
    """
    if not limit_all_gathers and (not fsdp or fsdp_version != 1):
        raise SizingError("fsdp1_limit_all_gathers", _(
            "turning FSDP's rate limiter off (limit_all_gathers=False) applies to sharding fsdp with FSDP version 1."))


def unlimited_blocks_params(spec: ModelSpec) -> float:
    """Parameters of every block unit (the model less what the root unit keeps: embeddings, final norm, an untied
    LM head), all unsharded at once without the rate limiter (module docstring)."""
    return max(0.0, float(spec.params - spec.embedding_params))
