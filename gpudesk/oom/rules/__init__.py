"""Diagnosis rules, one module per cause id. Each has ``check(facts) -> Cause | None`` and documents its
thresholds and sources. :data:`RULES` is in tie-break order (more specific causes first)."""

from gpudesk.oom.rules import (
    allocation_outside_allocator,
    bank_allocator,
    budget_words,
    cuda_graph_pools,
    engine_budget,
    engine_growth,
    engine_settings,
    fragmentation,
    genuine_shortage,
    host_memory_growth,
    kv_cache_budget,
    leak,
    mps_limit,
    multi_gpu_imbalance,
    not_capacity,
    other_process,
    per_process_cap,
    placement_figures,
    preallocation,
    signature,
    single_allocation_exceeds_capacity,
    sysmem_fallback,
    unparseable,
    zombie_workers,
)
from gpudesk.oom.rules.base import Facts

RULES = (
    signature,
    bank_allocator,
    kv_cache_budget,
    per_process_cap,
    not_capacity,
    mps_limit,
    engine_budget,
    engine_growth,
    engine_settings,
    budget_words,
    single_allocation_exceeds_capacity,
    cuda_graph_pools,
    other_process,
    fragmentation,
    genuine_shortage,
    preallocation,
    allocation_outside_allocator,
    multi_gpu_imbalance,
    placement_figures,
    leak,
    host_memory_growth,
    zombie_workers,
    sysmem_fallback,
    unparseable,
)

__all__ = ["RULES", "Facts"]
