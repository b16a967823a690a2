"""Order feasible candidates: fits under the safe line, meets the deadline / QPS, within budget, cheapest
3-year TCO (which already charges the opportunity cost of lateness), then fastest.

"Cost to meet the deadline" and "time to result" are the two axes of Stas Bekman's ROI (ML Engineering,
insights/when-to-upgrade-gpus); the article's rule: training values time to result, inference values cost
per unit of throughput.
"""

from __future__ import annotations

import math

from gpudesk.planner.results import Candidate


def hardware_usd(c: Candidate) -> float | None:
    """GPUs + hosts purchase price (USD), None when a price is unknown."""
    if not c.tco:
        return None
    gpus, hosts = c.tco.breakdown_usd.get("gpus"), c.tco.breakdown_usd.get("hosts")
    if gpus is None or hosts is None:
        return None
    return gpus + hosts


def rank_key(c: Candidate, budget_usd: float | None, prefer_nvlink: bool = False) -> tuple:
    """Sort key: smaller is better. ``prefer_nvlink`` (large-model and long-sequence kinds) puts multi-GPU options
    whose GPUs talk over PCIe after NVLink/Infinity Fabric ones (article 4.3: "PCIe bandwidth cannot carry the
    13B all-reduce -> choose NVLink")."""
    hw = hardware_usd(c)
    if not budget_usd:
        budget_state = 0
    elif hw is None:
        budget_state = 1  # price unknown: after options known to be within budget, before those over it
    else:
        budget_state = 2 if hw > budget_usd else 0
    tco = c.tco_3y_usd
    return (
        not c.fits,
        c.meets_deadline is False,
        c.meets_qps is False,
        budget_state,
        prefer_nvlink and c.count > 1 and c.interconnect.startswith("pcie"),
        tco is None,
        tco if tco is not None else 0.0,
        c.time_to_result_s if c.time_to_result_s is not None else math.inf,
        c.count,
    )


def dedupe_best(candidates: list[Candidate], budget_usd: float | None) -> list[Candidate]:
    """Keep the best server option for each (GPU, count) pair."""
    best: dict[tuple[str, int], Candidate] = {}
    for c in candidates:
        key = (c.gpu_id, c.count)
        if key not in best or rank_key(c, budget_usd) < rank_key(best[key], budget_usd):
            best[key] = c
    return list(best.values())


def rank(candidates: list[Candidate], budget_usd: float | None = None, prefer_nvlink: bool = False) -> list[Candidate]:
    """Best first, one entry per (GPU, count)."""
    return sorted(dedupe_best(candidates, budget_usd), key=lambda c: rank_key(c, budget_usd, prefer_nvlink))


def closest_to_deadline(candidates: list[Candidate], limit: int = 3) -> list[Candidate]:
    """When nobody meets the deadline: the fitting candidates that miss it by the least."""
    late = [c for c in candidates if c.fits and c.deadline_miss_s is not None]
    return sorted(late, key=lambda c: (c.deadline_miss_s, c.tco_3y_usd or math.inf))[:limit]
