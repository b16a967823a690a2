"""The figures of an engine's KV-budget refusal: ``limit x fraction - weights - overhead = KV budget`` (sixty-second pass).

vLLM on Apple silicon (vllm-metal) plans its paged KV cache before allocating it and refuses to start when the plan
leaves nothing: ``_PagedAttentionPlan.kv_budget = int(metal_limit * fraction) - model_memory - overhead`` (less a
hybrid-model state reservation), and ``_validate_paged_attention_plan`` raises "Paged attention: not enough Metal
memory for KV cache. metal_limit=..GB, fraction=.., usable_metal=..GB, model_memory=..GB, overhead=..GB,
kv_budget=..GB" when ``kv_budget <= 0``; every figure is printed as bytes / 1e9 with the unit "GB"
(https://github.com/vllm-project/vllm-metal, vllm_metal/v1/cache_policy.py ``base_kv_budget_bytes``,
``_paged_attention_plan``, ``format_breakdown``, at 211a1e4bc976cd6c0c961cad8da59d649ea9bd65). It is the same budget
CUDA vLLM computes (total x gpu_memory_utilization - weights - the profiling run's peak,
``determine_available_memory``): a share the engine was given, not the device, is what ran out.

The relation decides between the engine's budget and the device: while the weights fit inside the device's limit,
some fraction (and a smaller profiling batch, which sizes the measured overhead) leaves the KV cache room, so the
budget is the knob (``kv_cache_budget``); weights larger than the whole limit do not fit at any fraction, and the
reading is left to the shortage rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# "name=12.34GB" as format_breakdown prints it (a negative budget keeps its sign).
_FIGURE = re.compile(r"\b(metal_limit|usable_metal|model_memory|overhead|kv_budget)\s{0,2}=\s{0,2}(-?\d{1,6}(?:\.\d{1,4})?)"
                     r"\s{0,2}GB\b", re.IGNORECASE)
_FRACTION = re.compile(r"\bfraction\s{0,2}=\s{0,2}(0?\.\d{1,4}|1(?:\.0{1,4})?)(?![\d.])", re.IGNORECASE)
# The figures are printed in decimal gigabytes (bytes / 1e9, module docstring).
_GB = 1e9


@dataclass(frozen=True)
class KvBudgetFigures:
    """The plan's figures in bytes (``fraction`` a share of ``limit_bytes``)."""

    limit_bytes: float
    fraction: float | None
    model_bytes: float
    overhead_bytes: float
    kv_budget_bytes: float

    @property
    def weights_fit_limit(self) -> bool:
        return self.model_bytes < self.limit_bytes

    @property
    def fraction_needed(self) -> float:
        """The share of the limit that weights plus overhead take: the budget is positive only above it."""
        return (self.model_bytes + self.overhead_bytes) / self.limit_bytes


def read(text: str, start: int = 0) -> KvBudgetFigures | None:
    """The plan's figures printed after ``start`` (the refusal's own words), or None unless all four byte figures
    (limit, weights, overhead, budget) are there."""
    window = text[start:start + 600]
    figures: dict[str, float] = {}
    for m in _FIGURE.finditer(window):
        figures.setdefault(m.group(1).lower(), float(m.group(2)) * _GB)
    if not {"metal_limit", "model_memory", "overhead", "kv_budget"} <= figures.keys() or figures["metal_limit"] <= 0:
        return None
    fraction = _FRACTION.search(window)
    return KvBudgetFigures(limit_bytes=figures["metal_limit"], fraction=float(fraction.group(1)) if fraction else None,
                           model_bytes=figures["model_memory"], overhead_bytes=figures["overhead"],
                           kv_budget_bytes=figures["kv_budget"])
