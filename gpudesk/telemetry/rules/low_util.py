"""Low-utilization spans per GPU and for the whole job, and the share of the run the GPUs were busy.

A job span (every GPU low together) is a stall of the whole job: a data-loader or host stall, checkpointing,
evaluation, or all ranks waiting on one collective. A GPU span while the others work is that GPU idling alone.
Spans that touch the start or the end of the recording are reported as warm-up/teardown (info), not stalls.
Thresholds: :class:`gpudesk.telemetry.rules.thresholds.Thresholds` (low_util_pct, min_span_s, merge_gap_s).
"""

from __future__ import annotations

import numpy as np

from gpudesk.i18n import _
from gpudesk.telemetry.model import SeriesFrame
from gpudesk.telemetry.rules.base import CRITICAL, INFO, WARNING, Finding, RuleContext, checked, not_judged
from gpudesk.telemetry.rules.spans import Span, busy_share, gpu_spans, job_spans
from gpudesk.telemetry.rules.text import duration, gpu_list, offset, rate

RULE = "low-utilization"
MAX_FINDINGS = 40  # worst first; the count of the rest is said in the last one
ADVICE = _("A span where the GPUs do little in the middle of a run is time paid for and lost. Open the span "
           "(click it) and compare with the job's log at that time: data loading, checkpoint saving, evaluation, "
           "or one rank holding the others at a collective. The other findings of this span say which.")


def _overlaps(span: Span, others: list[Span]) -> bool:
    return any(o.first_slot <= span.last_slot and span.first_slot <= o.last_slot for o in others)


def _finding(span: Span, start: float, run_s: float, n_gpus: int) -> Finding:
    who = _("All {n} GPUs").format(n=n_gpus) if span.gpu is None else _("GPU {gpu}").format(gpu=span.gpu)
    if span.at_edge:
        summary = _("{who} at a median {util:.0f} % for {length} {where} (start or end of the recording: warm-up, "
                    "loading or teardown).").format(who=who, util=span.util_median_pct, length=duration(span.duration_s),
                                                    where=offset(span.t0, start))
        severity = INFO
    else:
        summary = _("{who} at a median {util:.0f} % (at most {top:.0f} %) for {length} {where}; PCIe RX meanwhile "
                    "{rx} per GPU.").format(who=who, util=span.util_median_pct, top=span.util_max_pct,
                                              length=duration(span.duration_s), where=offset(span.t0, start),
                                              rx=rate(span.pcie_rx_median_bytes_per_s))
        if span.host_cpu_median_pct is not None:
            summary += " " + _("Host CPU at {cpu:.0f} %.").format(cpu=span.host_cpu_median_pct)
        severity = CRITICAL if run_s and span.duration_s >= 0.25 * run_s else WARNING
    evidence = span.to_dict()
    evidence["offset_s"] = round(span.t0 - start, 1)
    return Finding(RULE, span.gpu, severity, summary, evidence, (span.t0, span.t1), "" if span.at_edge else ADVICE)


def check(frame: SeriesFrame, ctx: RuleContext) -> list[Finding]:
    th = ctx.thresholds
    grid = ctx.grid(frame)
    if not grid.t.size:
        return []
    shares = busy_share(grid, th)
    if not shares:
        return [not_judged(RULE, None, _("GPU utilization was not recorded (or is N/A on every GPU)."), frame.span)]
    start = float(grid.t[0])
    run_s = float(grid.t.size) * grid.interval_s
    busy_gpus = [g for g, s in shares.items() if s > 0]
    jobs = job_spans(grid, th)
    singles = [s for s in gpu_spans(grid, th) if not _overlaps(s, jobs) and s.gpu in busy_gpus]
    # a GPU that never works is not stalling: the imbalance rule reports a GPU left out
    findings = [_finding(s, start, run_s, len(grid.gpus)) for s in jobs + singles]
    findings.sort(key=lambda f: (f.severity == INFO, -float(f.evidence["duration_s"])))
    mean_busy = float(np.mean(list(shares.values())))
    evidence = {"busy_share_pct": round(100 * mean_busy, 1),
                "busy_share_pct_by_gpu": {str(g): round(100 * s, 1) for g, s in sorted(shares.items())},
                "low_util_pct": th.low_util_pct, "min_span_s": th.min_span_s,
                "job_spans": len(jobs), "gpu_spans": len(singles)}
    stalls = [f for f in findings if f.severity != INFO]
    if not stalls:
        summary = _("{gpus} busy {busy:.0f} % of the run; no low-utilization span of {min} or more in the middle "
                    "of the run (checked each GPU and the job for utilization under {low:.0f} %).").format(
            gpus=gpu_list(sorted(shares)), busy=100 * mean_busy, min=duration(th.min_span_s), low=th.low_util_pct)
        return [*findings, checked(RULE, summary, evidence, frame.span)]
    if len(findings) > MAX_FINDINGS:
        rest = len(findings) - MAX_FINDINGS
        findings = findings[:MAX_FINDINGS]
        findings[-1].evidence["more_spans_not_listed"] = rest
    for f in findings:
        f.evidence.setdefault("busy_share_pct", evidence["busy_share_pct"])
    return findings
