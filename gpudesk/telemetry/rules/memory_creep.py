"""Memory creeping up over hours: a leak suspect (growing caches, tensors kept across steps, a DataLoader's
pinned-memory growth - DIGEST.md section 5's "memory is enough but OOM" table).

Judged per GPU on recordings of at least ``creep_min_duration_s``: memory used is reduced to the median of each
of (up to) 48 equal time bins; it creeps when the least-squares line through the bin medians rises by at least
``creep_min_rise_pct`` of the card (or 1 GiB when the capacity is unknown) over the run and the medians rise with time (Spearman
rank correlation at or above ``creep_min_monotonic``). The time to reach the card's capacity at that slope is
given when the capacity is known.
"""

from __future__ import annotations

import numpy as np

from gpudesk.i18n import _
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core.model import History
from gpudesk.telemetry.core.model import middle
from gpudesk.telemetry.rules.base import (
    WARNING,
    Finding,
    RuleContext,
    checked,
    not_judged,
)
from gpudesk.telemetry.rules.text import gpu_list, sentences
from gpudesk.units import GIB, format_duration, format_gib

RULE = "memory-creep"
BINS = 48


def advice() -> str:
    return _("Memory used grows steadily over hours: suspect a leak before the job ends in an out-of-memory "
             "error. Log torch.cuda.memory_allocated() and memory_reserved() per step: allocated growing means "
             "tensors kept alive (losses kept with their graph, lists of outputs, caches); reserved growing "
             "with allocated flat means fragmentation. gpudesk's OOM doctor reads a memory snapshot.")


def _spearman(y: np.ndarray) -> float:
    x = np.arange(y.size, dtype=float)
    ry = np.argsort(np.argsort(y, kind="stable"), kind="stable").astype(float)
    if np.std(ry) == 0:
        return 0.0
    return float(np.corrcoef(x, ry)[0, 1])


def check(frame: History, ctx: RuleContext) -> list[Finding]:
    th = ctx.thresholds
    used_col = frame.columns.get(m.MEM_USED)
    total_col = frame.columns.get(m.MEM_TOTAL)
    span = frame.span
    if used_col is None or np.all(np.isnan(used_col)):
        return [not_judged(RULE, None, _("memory used was not recorded."), span)]
    if span is None or span[1] - span[0] < th.creep_min_duration_s:
        length = 0.0 if span is None else span[1] - span[0]
        return [not_judged(RULE, None, _("the recording lasts {length}; a creep is judged over {need} or more.").format(
            length=format_duration(length), need=format_duration(th.creep_min_duration_s)), span)]
    out: list[Finding] = []
    judged: list[int] = []
    for idx, g in enumerate(frame.gpus):
        t = frame.times
        used = used_col[:, idx]
        ok = ~np.isnan(used)
        if ok.sum() < BINS:
            continue
        t, used = t[ok], used[ok]
        edges = np.linspace(t[0], t[-1], BINS + 1)
        which = np.clip(np.searchsorted(edges, t, side="right") - 1, 0, BINS - 1)
        counts = np.bincount(which, minlength=BINS)
        if np.any(counts == 0):
            filled = counts > 0
        else:
            filled = np.ones(BINS, dtype=bool)
        # times ascend, so the bin numbers do too: the samples are already grouped by bin
        groups = np.split(used, np.cumsum(counts)[:-1])
        centres = 0.5 * (edges[:-1] + edges[1:])
        med = np.array([middle(gr) if gr.size else np.nan for gr in groups])[filled]
        centres = centres[filled]
        if med.size < 8:
            continue
        judged.append(g)
        total = None
        if total_col is not None and np.any(~np.isnan(total_col[:, idx])):
            total = float(np.nanmax(total_col[:, idx]))
        elif ctx.device(g).memory_total_bytes:
            total = float(ctx.device(g).memory_total_bytes or 0) or None
        # least-squares slope of the bin medians (bytes per second) over the whole run
        slope_s = float(np.polyfit(centres - centres[0], med, 1)[0])
        rise = slope_s * float(t[-1] - t[0])
        need = (th.creep_min_rise_pct / 100.0) * total if total else float(GIB)
        rho = _spearman(med)
        if rise < need or rho < th.creep_min_monotonic:
            continue
        slope = slope_s * 3600.0  # bytes per hour
        evidence: dict[str, object] = {"mem_rise_bytes": rise, "mem_slope_bytes_per_h": slope,
                                       "rank_correlation": round(rho, 3), "mem_first_bytes": float(med[0]),
                                       "mem_last_bytes": float(med[-1]), "mem_total_bytes": total}
        summary = _("GPU {gpu}: memory used rose by {rise} over {length} ({slope} per hour), "
                    "steadily.").format(gpu=g, rise=format_gib(rise, digits=1), length=format_duration(t[-1] - t[0]),
                                        slope=format_gib(slope))
        if total:
            left = (total - float(med[-1])) / slope * 3600.0 if slope > 0 else None
            evidence["time_to_full_s"] = left
            if left is not None:
                summary = sentences([summary, _("At this rate the card is full in about {left}.").format(
                    left=format_duration(left))])
        out.append(Finding(RULE, g, WARNING, summary, evidence, (float(t[0]), float(t[-1])), advice()))
    if out:
        return out
    if not judged:
        return [not_judged(RULE, None, _("too few memory readings to see a trend."), span)]
    return [checked(RULE, _("No memory creep on {gpus} over {length}.").format(
        gpus=gpu_list(judged), length=format_duration(span[1] - span[0])), {}, span)]
