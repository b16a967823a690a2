"""Low-utilization spans per GPU and for the whole job, and the share of the run the GPUs were busy.

A job span (most GPUs low together, ``job_low_share_pct``) is a stall of the whole job: a data-loader or host
stall, checkpointing, evaluation, or all ranks waiting on one collective. A GPU span while the others work is that
GPU idling alone. Spans that touch the start or the end of the recording are reported as warm-up/teardown (info),
not stalls, unless the GPU was busy in less than ``min_busy_share_pct`` of the run. Thresholds:
:class:`gpudesk.telemetry.rules.thresholds.Thresholds`.
"""

from __future__ import annotations

import numpy as np

from gpudesk.i18n import _
from gpudesk.telemetry.core.model import nan_middle
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core.model import History
from gpudesk.telemetry.rules.base import (
    CRITICAL,
    INFO,
    WARNING,
    Finding,
    RuleContext,
    checked,
    n_samples,
    not_judged,
    util_not_recorded,
)
from gpudesk.telemetry.rules.spans import (
    Span,
    busy_share,
    coverage,
    gpu_spans,
    job_spans,
    step_of,
    touches,
)
from gpudesk.telemetry.rules.text import gpu_list, offset, sentences
from gpudesk.units import format_duration, format_duration_range, format_rate
from gpudesk.telemetry.rules.thresholds import Thresholds

RULE = "low-utilization"


def advice() -> str:
    return _("A span where the GPUs do little in the middle of a run is time paid for and lost. Open the span "
             "(click it) and compare with the job's log at that time: data loading, checkpoint saving, "
             "evaluation, or one rank holding the others at a collective. The other findings of this span say "
             "which.")


def advice_barely() -> str:
    return _("The GPU worked for only a small part of the run: the job spends most of its time on the CPU, on "
             "I/O or waiting. Profile one run (torch.profiler or nsys) to see where the time goes before adding "
             "GPUs.")


def in_use(frame: History, th: Thresholds) -> dict[int, bool]:
    """GPU -> whether a job is on it (utilization ever at idle_util_pct, or median memory used of a GiB or more)."""
    util = frame.columns.get(m.GPU_UTIL)
    mem = frame.columns.get(m.MEM_USED)
    out: dict[int, bool] = {}
    for idx, g in enumerate(frame.gpus):
        used = False
        if util is not None and np.any(~np.isnan(util[:, idx])):
            used = float(np.nanmax(util[:, idx])) >= th.idle_util_pct
        if not used and mem is not None and np.any(~np.isnan(mem[:, idx])):
            used = nan_middle(mem[:, idx]) >= th.idle_mem_bytes
        out[g] = used
    return out


def _who(span: Span, n_gpus: int) -> str:
    if span.gpu is not None:
        return _("GPU {gpu}").format(gpu=span.gpu)
    return _("Both GPUs") if n_gpus == 2 else _("All {n} GPUs").format(n=n_gpus)


def _finding(span: Span, start: float, run_s: float, n_gpus: int) -> Finding:
    who = _who(span, n_gpus)
    if span.at_edge:
        summary = _("{who} at a median {util:.0f} % for {length} {where} (start or end of the recording: warm-up, "
                    "loading or teardown).").format(who=who, util=span.util_median_pct, length=format_duration(span.duration_s),
                                                    where=offset(span.t0, start))
        severity = INFO
    else:
        summary = _("{who} at a median {util:.0f} % (at most {top:.0f} %) for {length} {where}; PCIe RX meanwhile "
                    "{rx} per GPU.").format(who=who, util=span.util_median_pct, top=span.util_max_pct,
                                              length=format_duration(span.duration_s), where=offset(span.t0, start),
                                              rx=format_rate(span.pcie_rx_median_bytes_per_s))
        if span.host_cpu_median_pct is not None:
            summary = sentences([summary, _("Host CPU at {cpu:.0f} %.").format(cpu=span.host_cpu_median_pct)])
        severity = CRITICAL if run_s and span.duration_s >= 0.25 * run_s else WARNING
    evidence = span.to_dict()
    evidence["offset_s"] = round(span.t0 - start, 1)
    return Finding(RULE, span.gpu, severity, summary, evidence, (span.t0, span.t1), "" if span.at_edge else advice())


def _grouped(spans: list[Span], start: float, run_s: float, n_gpus: int) -> Finding:
    """One finding for a scope with many stall spans: the longest first, all listed in the evidence."""
    spans = sorted(spans, key=lambda s: -s.duration_s)
    total = sum(s.duration_s for s in spans)
    lengths = [s.duration_s for s in spans]
    longest = spans[0]
    summary = _("{who}: {n} low-utilization spans of {lengths} ({total} in all, {share:.0f} % of the run); "
                "the longest {where}.").format(who=_who(longest, n_gpus), n=len(spans),
                                             lengths=format_duration_range(min(lengths), max(lengths)), total=format_duration(total),
                                             share=100 * total / run_s if run_s else 0.0,
                                             where=offset(longest.t0, start))
    severity = CRITICAL if run_s and total >= 0.25 * run_s else WARNING
    evidence: dict[str, object] = {"spans": [dict(s.to_dict(), offset_s=round(s.t0 - start, 1)) for s in spans[:200]],
                                   "span_count": len(spans), "low_total_s": total,
                                   "duration_s": longest.duration_s}
    return Finding(RULE, longest.gpu, severity, summary, evidence, (longest.t0, longest.t1), advice())


def check(frame: History, ctx: RuleContext) -> list[Finding]:
    th = ctx.thresholds
    grid = ctx.grid(frame)
    if not len(grid):
        return []
    shares = busy_share(grid, th)
    if not shares:
        return [util_not_recorded(RULE, frame.span)]
    start = float(grid.times[0])
    run_s = float(len(grid)) * step_of(grid)
    if run_s < th.min_span_s:
        # a share of "busy" samples and a stall both need a run at least as long as the shortest stall counted
        return [not_judged(RULE, None, _("{samples} ({length}); judging busy time and stalls needs a run of at least "
                                         "{min}.").format(samples=n_samples(int(len(grid))),
                                                          length=format_duration(run_s), min=format_duration(th.min_span_s)),
                           frame.span)]
    n = len(grid.gpus)
    using = in_use(frame, th)
    busy_gpus = [g for g in shares if using.get(g)]
    jobs = job_spans(grid, th, cache=ctx.spans)
    # a GPU without a job is idle, not stalling (the imbalance rule reports a GPU left out of a busy job)
    cov = coverage(jobs, len(grid))
    singles = [s for s in gpu_spans(grid, th, cache=ctx.spans) if s.gpu in busy_gpus and not touches(cov, s)]
    findings: list[Finding] = []
    for scope in [None, *grid.gpus]:
        spans = [s for s in (jobs if scope is None else singles) if s.gpu == scope]
        stalls = [s for s in spans if not s.at_edge]
        edges = [s for s in spans if s.at_edge]
        if len(stalls) > th.max_spans_listed:
            findings.append(_grouped(stalls, start, run_s, n))
        else:
            findings.extend(_finding(s, start, run_s, n) for s in stalls)
        findings.extend(_finding(s, start, run_s, n) for s in edges)
    for g in busy_gpus:
        if shares[g] * 100 < th.min_busy_share_pct and run_s >= th.min_span_s:
            findings.append(Finding(
                RULE, g, WARNING,
                _("GPU {gpu} was busy (utilization of {low:.0f} % or more) in only {share:.0f} % of the run.").format(
                    gpu=g, low=th.low_util_pct, share=100 * shares[g]),
                {"busy_share_pct": round(100 * shares[g], 1), "min_busy_share_pct": th.min_busy_share_pct,
                 "duration_s": run_s},
                frame.span, advice_barely()))
    findings.sort(key=lambda f: (f.severity == INFO, -float(f.evidence.get("duration_s") or 0)))
    mean_busy = float(np.mean(list(shares.values())))
    evidence = {"busy_share_pct": round(100 * mean_busy, 1),
                "busy_share_pct_by_gpu": {str(g): round(100 * s, 1) for g, s in sorted(shares.items())},
                "low_util_pct": th.low_util_pct, "min_span_s": th.min_span_s,
                "job_spans": len(jobs), "gpu_spans": len(singles), "gpus_in_use": sorted(busy_gpus)}
    for f in findings:
        f.evidence.setdefault("busy_share_pct", evidence["busy_share_pct"])
    if not any(f.severity != INFO for f in findings):
        summary = _("{gpus} busy {busy:.0f} % of the run; no low-utilization span of {min} or more in the middle "
                    "of the run (checked each GPU and the job for utilization under {low:.0f} %).").format(
            gpus=gpu_list(sorted(shares)), busy=100 * mean_busy, min=format_duration(th.min_span_s), low=th.low_util_pct)
        findings.append(checked(RULE, summary, evidence, frame.span))
    return findings
