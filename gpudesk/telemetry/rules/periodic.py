"""Periodic dips: stalls that come back at a steady period (checkpointing, evaluation, data-loader epoch or
shard boundaries, log flushing), with the period found.

Dips are job spans (all GPUs low together; on one GPU, that GPU's spans) of at least ``periodic_min_dip_s``,
edges included. They are periodic when there are at least ``periodic_min_dips`` and the intervals between their
starts have a coefficient of variation (stdev / mean) at or below ``periodic_max_cv``; a missing dip (one
interval about twice the period) is tolerated by judging the intervals against their median.
"""

from __future__ import annotations

import numpy as np

from gpudesk.i18n import _
from gpudesk.telemetry.core.model import middle
from gpudesk.telemetry.core.model import History
from gpudesk.telemetry.rules.base import (
    WARNING,
    Finding,
    RuleContext,
    checked,
    util_not_recorded,
)
from gpudesk.telemetry.rules.spans import Span, gpu_spans, job_spans, util_of
from gpudesk.telemetry.rules.text import sentences
from gpudesk.units import format_duration, format_duration_range

RULE = "periodic-dips"


def advice() -> str:
    return _("Stalls at a steady period point to something the job does on a schedule: checkpoint saving (make "
             "it asynchronous or less frequent), evaluation passes, data-loader epoch or shard boundaries "
             "(persistent workers, prefetch across the boundary), or logging that synchronises the GPUs. Match "
             "the period with the job's checkpoint/eval interval.")


def periodicity(starts: np.ndarray, max_cv: float) -> tuple[float, float] | None:
    """(period s, coefficient of variation) of the dip start times, or None when they are not periodic.

    Intervals are divided by the median interval and rounded, so one skipped dip (an interval of two periods)
    still counts as periodic."""
    if starts.size < 3:
        return None
    d = np.diff(np.sort(starts))
    med = middle(d)
    if med <= 0:
        return None
    k = np.maximum(np.rint(d / med), 1.0)
    per = d / k
    period = float(np.mean(per))
    cv = float(np.std(per) / period) if period > 0 else float("inf")
    if cv > max_cv or np.any(k > 2):
        return None
    return period, cv


def _describe(dips: list[Span], period: float, cv: float, scope: str) -> Finding:
    lengths = [s.duration_s for s in dips]
    cpu = [s.host_cpu_median_pct for s in dips if s.host_cpu_median_pct is not None]
    summary = _("{n} dips of {lengths} every {period} ({scope}).").format(
        n=len(dips), lengths=format_duration_range(min(lengths), max(lengths)), period=format_duration(period), scope=scope)
    if cpu and min(cpu) >= 90:
        summary = sentences([summary, _("Each with the host CPU at {cpu:.0f} % or more.").format(cpu=min(cpu))])
    evidence = {"period_s": round(period, 1), "period_cv": round(cv, 3), "dips": len(dips),
                "dip_length_min_s": min(lengths), "dip_length_max_s": max(lengths),
                "dip_starts_s": [round(s.t0, 1) for s in dips[:50]]}
    return Finding(RULE, dips[0].gpu, WARNING, summary, evidence, (dips[0].t0, dips[-1].t1), advice())


def check(frame: History, ctx: RuleContext) -> list[Finding]:
    th = ctx.thresholds
    grid = ctx.grid(frame)
    if not len(grid):
        return []
    if np.all(np.isnan(util_of(grid))):
        return [util_not_recorded(RULE, frame.span)]
    out: list[Finding] = []
    jobs = job_spans(grid, th, th.periodic_min_dip_s, ctx.spans)
    scopes: list[tuple[list[Span], str]] = []
    if len(grid.gpus) > 1:
        scopes.append((jobs, _("all GPUs together")))
    else:
        scopes.append((gpu_spans(grid, th, th.periodic_min_dip_s, ctx.spans), _("GPU {gpu}").format(gpu=grid.gpus[0])))
    counted = 0
    for dips, scope in scopes:
        dips = [s for s in dips if s.first_slot != 0]  # the start-up span is not a dip
        counted += len(dips)
        if len(dips) < th.periodic_min_dips:
            continue
        found = periodicity(np.array([s.t0 for s in dips]), th.periodic_max_cv)
        if found is not None:
            out.append(_describe(dips, found[0], found[1], scope))
    if out:
        return out
    return [checked(RULE, _("No periodic dips found: {n} dip(s) of {min} or more, fewer than {need} or not at a "
                            "steady period.").format(n=counted, min=format_duration(th.periodic_min_dip_s),
                                                     need=th.periodic_min_dips),
                    {"dips": counted}, frame.span)]
