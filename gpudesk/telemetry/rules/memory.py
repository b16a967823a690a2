"""Memory near the safe line.

The method (DIGEST.md section 3): keep 15-20 % of GPU memory free for the CUDA context, temporaries and framework
overhead - an 80 GB card is safe to about 64 GB, i.e. a safe line at 80 % of capacity. Judged on the 95th
percentile of memory used against the total (NVML total, or the capacity of the GPU model picked for a dmon log).
"""

from __future__ import annotations

import numpy as np

from gpudesk.i18n import _
from gpudesk.telemetry.core.model import quantiles
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.rules.base import (
    CRITICAL, WARNING, Finding, RuleContext, not_judged, seen_span, r, readable,
)

RULE = "memory-safe-line"


def advice() -> str:
    return _("Keep 15-20 % of GPU memory free (the method's safe line: about 64 GB on an 80 GB card) for the "
             "CUDA context, temporaries and fragmentation. Reduce the peak: activation checkpointing at the "
             "block that peaks, smaller micro-batches with gradient accumulation, BF16, or sharding (FSDP/ZeRO) "
             "- or plan a larger card.")


def check(frame: m.History, ctx: RuleContext) -> list[Finding]:
    out: list[Finding] = []
    used_col = frame.columns.get(m.MEM_USED)
    total_col = frame.columns.get(m.MEM_TOTAL)
    for idx, g in enumerate(frame.gpus):
        span = seen_span(frame, idx)
        used = used_col[:, idx] if used_col is not None else None
        if not readable(used):
            out.append(not_judged(RULE, g, _("memory used is N/A ({reason}).").format(
                reason=frame.reason(g, m.MEM_USED) or _("not recorded")), span))
            continue
        total = None
        source = "nvml"
        if total_col is not None and readable(total_col[:, idx]):
            total = float(np.nanmax(total_col[:, idx]))
        elif memory_total_bytes := ctx.device(g).memory_total_bytes:
            total = float(memory_total_bytes)
            source = ctx.device(g).pcie_link_source or "device info"
        if not total:
            out.append(not_judged(RULE, g, _("memory capacity unknown (a dmon log has no total); pick the GPU model."),
                                  span))
            continue
        v = used[~np.isnan(used)]
        p95 = quantiles(v, [0.95])[0]
        peak = float(v.max())
        frac = p95 / total
        safe = ctx.thresholds.safe_line_pct / 100.0
        crit = ctx.thresholds.mem_critical_pct / 100.0
        evidence = {"mem_used_p95_bytes": p95, "mem_used_max_bytes": peak, "mem_total_bytes": total,
                    "mem_used_p95_pct": r(100 * frac), "safe_line_pct": safe * 100,
                    "mem_total_source": source}
        if peak / total >= crit:
            out.append(Finding(RULE, g, CRITICAL,
                               _("GPU {gpu}: memory peaked at {peak_pct:.0f} % of capacity - an OOM is one spike "
                                 "away.").format(gpu=g, peak_pct=100 * peak / total), evidence, span, advice()))
        elif frac >= safe:
            out.append(Finding(RULE, g, WARNING,
                               _("GPU {gpu}: memory used (p95) is {used_pct:.0f} % of capacity, above the "
                                 "{safe_pct:.0f} % safe line.").format(gpu=g, used_pct=100 * frac, safe_pct=100 * safe),
                               evidence, span, advice()))
    return out
