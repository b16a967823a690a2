"""CPU-bound preprocessing: GPU utilization swinging between busy and idle.

From the method's "training does not get faster" list (DIGEST.md section 5): CPU preprocessing shows as
utilization swinging while the CPU sits at 100 %. Judged on the spread (p95 - p5) of GPU utilization and the
mean absolute change between consecutive samples, only when the GPU is busy part of the time (p95 >= 70 %); thresholds in gpudesk.telemetry.rules.thresholds.
"""

from __future__ import annotations

import numpy as np

from gpudesk.i18n import _, ngettext
from gpudesk.telemetry.core.model import quantiles
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.rules.base import (
    WARNING, Finding, RuleContext, not_judged, seen_span, r, readable,
)

RULE = "cpu-bound-preprocessing"


def advice() -> str:
    return _("Utilization swings between busy and idle: the GPU waits for the CPU between batches. The method's "
             "'training does not get faster' checklist: check CPU load (top/htop at 100 %), add DataLoader "
             "workers, enable pin_memory and prefetching, move decoding/augmentation to the GPU, and cache "
             "preprocessed data.")


def check(frame: m.History, ctx: RuleContext) -> list[Finding]:
    out: list[Finding] = []
    util = frame.columns.get(m.GPU_UTIL)
    th = ctx.thresholds
    for idx, g in enumerate(frame.gpus):
        span = seen_span(frame, idx)
        u = util[:, idx] if util is not None else None
        if not readable(u):
            out.append(not_judged(RULE, g, _("GPU utilization is N/A ({reason}).").format(
                reason=frame.reason(g, m.GPU_UTIL) or _("not recorded")), span))
            continue
        v = u[~np.isnan(u)]
        if v.size < th.swing_min_samples:
            out.append(not_judged(RULE, g, ngettext(
                "only {n} utilization sample; the swing needs at least {need}.",
                "only {n} utilization samples; the swing needs at least {need}.", int(v.size)).format(
                    n=int(v.size), need=th.swing_min_samples), span))
            continue
        p5, med, p95 = quantiles(v, [0.05, 0.5, 0.95])
        swing = float(np.mean(np.abs(np.diff(v))))
        idle_share = float(np.mean(v < th.low_util_pct))
        if p95 >= th.swing_busy_p95_pct and p95 - p5 >= th.swing_spread_pct and swing >= th.swing_change_pct:
            out.append(Finding(
                RULE, g, WARNING,
                _("GPU {gpu}: utilization swings between {p5:.0f} % and {p95:.0f} % (mean change {swing:.0f} points per "
                  "sample) - preprocessing on the CPU likely cannot keep up.").format(gpu=g, p5=p5, p95=p95,
                                                                                      swing=swing),
                {"gpu_util_p5_pct": r(p5), "gpu_util_median_pct": r(med), "gpu_util_p95_pct": r(p95),
                 "mean_abs_change_pct_points": r(swing), "time_below_30pct_share_pct": r(100 * idle_share)},
                span, advice()))
    return out
