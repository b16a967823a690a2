"""The burn-in report: a recording (or an imported log), its findings and, optionally, a saved plan, joined.

The seed method asks, after every purchase, for a 72-hour run on real data with the monitor output recorded and a
utilization heat map drawn, compared with what was expected (DIGEST.md section 5). This module gathers that
comparison as plain data; :mod:`gpudesk.telemetry.recording.burnin_render` writes it as Markdown, HTML or JSON.

The plan is the plain dictionary the store keeps (the plan document's JSON, docs/plan-document.md): the telemetry layer
reads its candidate keys (``count``, ``gpu_name``, ``per_gpu_memory_bytes``, ``safe_line_bytes``, ``step_time_s``,
``qps_capacity``, ``gpu_power_w``) and never imports the planner. The post-delivery checks are the ones the
configuration sheet lists (gpudesk/planner/sheet.py, ``post_delivery_checks``), judged from what a recording
can show; what it cannot show (Xid errors in the kernel log, nccl-tests bandwidth, software versions) is said.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gpudesk.catalog import CatalogError, open_catalog
from gpudesk.i18n import _
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core import timebase
from gpudesk.telemetry.rules.analysis import Analysis, analyze
from gpudesk.telemetry.rules.heatmap import Heatmap, heatmap
from gpudesk.telemetry.core.model import DeviceInfo, History, TelemetryError
from gpudesk.telemetry.core.plausibility import screen
from gpudesk.telemetry.rules.base import CRITICAL, WARNING
from gpudesk.telemetry.rules.text import clauses, sentences
from gpudesk.units import format_duration, format_gib
from gpudesk.telemetry.rules.thresholds import Thresholds

PASS = "pass"
FAIL = "fail"
NOT_JUDGED = "not-judged"
INCOMPLETE = "incomplete"
BURN_IN_S = 72 * 3600.0  # DIGEST.md section 5: a 72-hour stress test on real data
REPORT_VERSION = 1


class BurnInError(TelemetryError):
    """A report that cannot be built (no samples, a plan without candidates)."""


@dataclass(frozen=True)
class GpuRow:
    """Per-GPU statistics of the run (None where the metric was not recorded)."""

    gpu: int
    name: str | None
    util_median_pct: float | None
    busy_share_pct: float | None
    mem_used_max_bytes: float | None
    mem_total_bytes: float | None
    power_median_w: float | None
    temp_max_c: float | None
    sm_clock_median_hz: float | None


@dataclass(frozen=True)
class Comparison:
    """One expectation of the plan next to what was measured."""

    item: str
    expected: str
    measured: str
    verdict: str
    note: str = ""


@dataclass(frozen=True)
class CheckVerdict:
    """A post-delivery check of the configuration sheet and what the recording says about it."""

    name: str
    expected: str
    verdict: str
    evidence: str


@dataclass
class BurnInReport:
    title: str
    source: str
    generated_at: str
    span: tuple[float, float]
    duration_s: float
    gpus: list[GpuRow]
    analysis: Analysis
    heatmap: Heatmap
    plan_name: str | None = None
    candidate_label: str | None = None
    comparisons: list[Comparison] = field(default_factory=list)
    checks: list[CheckVerdict] = field(default_factory=list)
    # how the times read (gpudesk.telemetry.core.timebase): real epoch times (LOCAL, shown in UTC), a dmon log's
    # node-local time as printed with no zone (PRINTED), a time of day or seconds from the first row
    time_basis: str = timebase.LOCAL

    @property
    def judged_findings(self) -> list[Any]:
        return [f for f in self.analysis.findings if f.severity in (WARNING, CRITICAL)]

    def to_json(self) -> dict[str, Any]:
        return {
            "version": REPORT_VERSION,
            "title": self.title, "source": self.source, "generated_at": self.generated_at,
            "span_s": list(self.span), "duration_s": self.duration_s, "time_basis": self.time_basis,
            "summary": self.analysis.summary,
            "gpus": [vars(g) for g in self.gpus],
            "plan_name": self.plan_name, "candidate": self.candidate_label,
            "comparisons": [vars(c) for c in self.comparisons],
            "checks": [vars(c) for c in self.checks],
            "findings": [f.to_dict() for f in self.analysis.findings],
            "heatmap": {"metric": self.heatmap.metric, "gpus": self.heatmap.gpus,
                        "bin_s": self.heatmap.bin_s, "t0_s": float(self.heatmap.edges[0]),
                        "values_pct": [[None if np.isnan(v) else round(float(v), 1) for v in row]
                                       for row in self.heatmap.values]},
            "thresholds": self.analysis.thresholds.to_dict(),
        }


def _stat(frame: History, j: int, metric: str, how: str) -> float | None:
    col = frame.columns.get(metric)
    if col is None:
        return None
    v = col[:, j]
    v = v[~np.isnan(v)]
    if not v.size:
        return None
    return float(np.median(v) if how == "median" else np.max(v))


def gpu_rows(frame: History, devices: dict[int, DeviceInfo], th: Thresholds) -> list[GpuRow]:
    rows = []
    util = frame.columns.get(m.GPU_UTIL)
    for idx, g in enumerate(frame.gpus):
        dev = devices.get(g) or DeviceInfo(g)
        busy = None
        if util is not None:
            u = util[:, idx]
            u = u[~np.isnan(u)]
            busy = float(100 * np.mean(u >= th.low_util_pct)) if u.size else None
        total = _stat(frame, idx, m.MEM_TOTAL, "max") or (float(dev.memory_total_bytes) if dev.memory_total_bytes
                                                          else None)
        rows.append(GpuRow(g, dev.name, _stat(frame, idx, m.GPU_UTIL, "median"), busy,
                           _stat(frame, idx, m.MEM_USED, "max"), total, _stat(frame, idx, m.POWER, "median"),
                           _stat(frame, idx, m.GPU_TEMP, "max"), _stat(frame, idx, m.SM_CLOCK, "median")))
    return rows


def _num(d: dict[str, Any], key: str) -> float | None:
    v = d.get(key)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def compare_plan(candidate: dict[str, Any], rows: list[GpuRow], analysis: Analysis,
                 tdp_w: float | None = None) -> list[Comparison]:
    """The plan's expectations side by side with the recording's measurements."""
    out: list[Comparison] = []
    count = candidate.get("count")
    if isinstance(count, int):
        out.append(Comparison(_("GPU count"), str(count), str(len(rows)), PASS if len(rows) == count else FAIL))
    names = sorted({r.name for r in rows if r.name})
    planned_name = str(candidate.get("gpu_name") or "")
    if planned_name:
        if names:
            ok = all(planned_name.lower() in n.lower() or n.lower() in planned_name.lower() for n in names)
            out.append(Comparison(_("GPU model"), planned_name, ", ".join(names), PASS if ok else FAIL))
        else:
            out.append(Comparison(_("GPU model"), planned_name, _("not in the recording"), NOT_JUDGED,
                                  _("dmon logs carry no GPU name; record through NVML to check it.")))
    peaks = [r.mem_used_max_bytes for r in rows if r.mem_used_max_bytes is not None]
    planned = _num(candidate, "per_gpu_memory_bytes")
    safe = _num(candidate, "safe_line_bytes")
    if planned is not None:
        if peaks:
            peak = max(peaks)
            note = _("measured peak is {pct:.0f} % of the plan's estimate (device memory used, all processes)").format(
                pct=100 * peak / planned) if planned else ""
            verdict = PASS if safe is None or peak <= safe else FAIL
            out.append(Comparison(_("Memory per GPU (peak)"), format_gib(planned, digits=1), format_gib(peak, digits=1), verdict, note))
        else:
            out.append(Comparison(_("Memory per GPU (peak)"), format_gib(planned, digits=1), _("not recorded"), NOT_JUDGED))
    utils = [r.util_median_pct for r in rows if r.util_median_pct is not None]
    if utils:
        med = float(np.median(utils))
        out.append(Comparison(_("GPU utilization (median)"), _("at least {pct:.0f} %").format(
            pct=analysis.thresholds.method_util_below_pct), _("{pct:.0f} %").format(pct=med),
            PASS if med >= analysis.thresholds.method_util_below_pct else FAIL,
            _("the sheet's burn-in check (u >= 60 % when PCIe is not saturated)")))
    busy = [r.busy_share_pct for r in rows if r.busy_share_pct is not None]
    step = _num(candidate, "step_time_s")
    if step is not None:
        out.append(Comparison(_("Step time"), _("{s:.3g} s").format(s=step),
                              _("busy {pct:.0f} % of the run").format(pct=float(np.mean(busy))) if busy else _("N/A"),
                              NOT_JUDGED, _("telemetry cannot time steps: compare with the job's own log; the busy "
                                            "share bounds how close the run can come to the plan.")))
    qps = _num(candidate, "qps_capacity")
    if qps is not None:
        out.append(Comparison(_("Throughput (requests/s, all GPUs)"), _("{q:.3g}").format(q=qps),
                              _("busy {pct:.0f} % of the run").format(pct=float(np.mean(busy))) if busy else _("N/A"),
                              NOT_JUDGED, _("telemetry cannot count requests: compare with the server's metrics.")))
    out.extend(compare_power(candidate, rows, tdp_w))
    return out


# A GPU's board power stays at or under its power limit (the TDP unless raised); NVML's power reading is averaged
# over about a second and can pass the limit briefly, so a median more than 10 % above the TDP is not a reading of
# that GPU (nvidia-smi --help-query-gpu, "power.draw" and "power.limit").
POWER_OVER_TDP_TOLERANCE = 1.10


def compare_power(candidate: dict[str, Any], rows: list[GpuRow], tdp_w: float | None) -> list[Comparison]:
    """Per-GPU median power against the plan's per-GPU figure (the plan's ``gpu_power_w`` is the TDP of all its
    GPUs together: gpudesk/planner/train_eval.py) and against the GPU's TDP from the catalog."""
    total = _num(candidate, "gpu_power_w")
    count = candidate.get("count")
    watts = [(r.gpu, r.power_median_w) for r in rows if r.power_median_w is not None]
    if not total and not tdp_w:
        return []
    per_gpu = total / count if total and isinstance(count, int) and count > 0 else None
    limit = per_gpu or tdp_w
    expected = _("{w:.0f} W").format(w=limit) if limit else _("N/A")
    if per_gpu and isinstance(count, int):
        expected = _("{w:.0f} W ({total:.0f} W for {count} GPUs)").format(w=per_gpu, total=total, count=count)
    item = _("Power per GPU (median)")
    if not watts:
        return [Comparison(item, expected, _("not recorded"), NOT_JUDGED)]
    gpu, top = max(watts, key=lambda w: w[1] or 0.0)
    measured = _("{w:.0f} W (GPU {gpu}, the highest)").format(w=top, gpu=gpu)
    if tdp_w and top > POWER_OVER_TDP_TOLERANCE * tdp_w:
        return [Comparison(item, expected, measured, FAIL, _(
            "{w:.0f} W is above this GPU's {tdp:.0f} W TDP (catalog): impossible for the planned GPU. The recording "
            "is from another GPU model, or its power column was misread.").format(w=top, tdp=tdp_w))]
    if per_gpu is None:  # no power figure in the plan: only an impossible reading is worth a row
        return []
    return [Comparison(item, expected, measured, PASS if top <= 1.05 * per_gpu else FAIL,
                       _("the plan's power figure feeds the TCO's electricity line"))]


def planned_tdp_w(candidate: dict[str, Any] | None, devices: Iterable[DeviceInfo]) -> float | None:
    """The TDP of the GPUs: the devices' power limit from the catalog model picked for a log, else the plan's
    catalog GPU (``gpu_id``); None when neither is known."""
    limits = [d.power_limit_w for d in devices if d.power_limit_w]
    if limits:
        return float(max(limits))
    gpu_id = candidate.get("gpu_id") if candidate else None
    if not isinstance(gpu_id, str) or not gpu_id:
        return None
    try:
        tdp = open_catalog().gpu(gpu_id).tdp_w
    except CatalogError:
        return None
    return float(tdp) if tdp else None


def judge_checks(candidate: dict[str, Any] | None, rows: list[GpuRow], analysis: Analysis, frame: History,
                 duration_s: float) -> list[CheckVerdict]:
    """Verdicts for the sheet's post-delivery checks (gpudesk/planner/sheet.py ``post_delivery_checks``)."""
    th = analysis.thresholds
    bad = {f.rule for f in analysis.findings if f.severity in (WARNING, CRITICAL)}
    parts_fail: list[str] = []
    parts_ok: list[str] = []
    unknown: list[str] = [_("Xid errors are not in telemetry (check dmesg | grep -i xid)")]
    dbe = frame.columns.get(m.ECC_DBE)
    if dbe is not None and np.any(~np.isnan(dbe)):
        (parts_fail if np.nanmax(dbe) > 0 else parts_ok).append(_("uncorrectable ECC errors: {n:.0f}").format(
            n=float(np.nanmax(dbe))))
    else:
        unknown.append(_("ECC counters not recorded"))
    throttled = bad & {"power-throttling", "thermal-throttling"}
    if throttled:
        parts_fail.append(_("throttling found ({rules})").format(rules=", ".join(sorted(throttled))))
    elif any(f.rule in ("power-throttling", "thermal-throttling") and f.judged for f in analysis.findings):
        parts_ok.append(_("no power or thermal throttling"))
    else:
        unknown.append(_("throttling reasons not recorded"))
    utils = [r.util_median_pct for r in rows if r.util_median_pct is not None]
    if utils:
        med = float(np.median(utils))
        (parts_ok if med >= th.method_util_below_pct else parts_fail).append(
            _("median utilization {pct:.0f} %").format(pct=med))
    stalls = bad & {"low-utilization", "input-starvation", "periodic-dips"}
    if stalls:
        parts_fail.append(_("utilization not steady ({rules})").format(rules=", ".join(sorted(stalls))))
    if parts_fail:
        verdict = FAIL
    elif duration_s < BURN_IN_S:
        verdict = INCOMPLETE
    else:
        verdict = PASS
    said = [_("Recorded {length} of {need}.").format(length=format_duration(duration_s), need=format_duration(BURN_IN_S))]
    if parts_fail:
        said.append(_("Failed: {what}.").format(what=clauses(parts_fail)))
    if parts_ok:
        said.append(_("Held: {what}.").format(what=clauses(parts_ok)))
    said.append(_("Not judged: {what}.").format(what=clauses(unknown)))
    evidence = sentences(said)
    checks = [CheckVerdict(
        _("72-hour burn-in on real data"),
        _("no Xid errors, no uncorrectable ECC errors, no thermal or power-brake throttling, utilisation steady "
          "(median u >= 60 % when p < 85 %)"), verdict, evidence)]
    peaks = [(r.gpu, r.mem_used_max_bytes, r.mem_total_bytes) for r in rows if r.mem_used_max_bytes is not None]
    safe = _num(candidate, "safe_line_bytes") if candidate else None
    if peaks:
        worst = max(peaks, key=lambda p: p[1] or 0.0)
        line = safe
        basis = _("the sheet's safe line")
        if line is None and worst[2]:
            line = worst[2] * th.safe_line_pct / 100.0
            basis = _("{pct:.0f} % of the card").format(pct=th.safe_line_pct)
        if line is None:
            checks.append(CheckVerdict(_("Peak memory against the safe line"), _("peak below the safe line"),
                                       NOT_JUDGED, _("memory capacity unknown; pick the GPU model or attach a plan.")))
        else:
            peak = float(worst[1] or 0.0)
            checks.append(CheckVerdict(
                _("Peak memory against the safe line"), _("peak below {basis} ({line})").format(basis=basis,
                                                                                           line=format_gib(line, digits=1)),
                PASS if peak <= line else FAIL,
                _("GPU {gpu} peaked at {peak} (device memory used; the sheet's check reads torch's reserved memory, "
                  "which is lower).").format(gpu=worst[0], peak=format_gib(peak, digits=1))))
    count = candidate.get("count") if candidate else len(rows)
    if isinstance(count, int) and count > 1:
        nv = next((f for f in analysis.findings if f.rule == "nvlink-idle"), None)
        if nv is not None and nv.severity in (WARNING, CRITICAL):
            checks.append(CheckVerdict(_("nccl-tests all-reduce bandwidth"), _("bus bandwidth at least 80 % of the "
                                       "link's figure"), FAIL, nv.summary))
        else:
            checks.append(CheckVerdict(_("nccl-tests all-reduce bandwidth"), _("bus bandwidth at least 80 % of the "
                                       "link's figure"), NOT_JUDGED, _("run nccl-tests all_reduce_perf; a recording "
                                                                      "cannot measure bus bandwidth.")))
    checks.append(CheckVerdict(_("Driver, CUDA and framework versions"), _("the versions the sheet lists"), NOT_JUDGED,
                               _("not in telemetry: compare nvidia-smi and torch.__version__ with the sheet.")))
    return checks


def pick_candidate(plan: dict[str, Any], index: int = 0) -> dict[str, Any]:
    cands = plan.get("candidates")
    if not isinstance(cands, list) or not cands:
        raise BurnInError(_("The plan has no candidate configuration to compare with (nothing fitted when it was "
                            "made)."))
    if not 0 <= index < len(cands) or not isinstance(cands[index], dict):
        raise BurnInError(_("The plan has {n} candidate(s); pick one from 1 to {n}.").format(n=len(cands)))
    return dict(cands[index])


def build_report(
    frame: History,
    devices: Iterable[DeviceInfo] | None = None,
    *,
    source: str,
    title: str | None = None,
    plan: dict[str, Any] | None = None,
    plan_name: str | None = None,
    candidate_index: int = 0,
    thresholds: Thresholds | None = None,
    generated_at: str | None = None,
    heatmap_bins: int = 288,
    as_printed: bool | None = None,
) -> BurnInReport:
    """Join a recording (``frame``), its findings and an optional saved plan into one report."""
    if not len(frame):
        raise BurnInError(_("The recording has no samples: nothing to report."))
    devs = {d.index: d for d in (devices or [])}
    frame = screen(frame, devs)  # impossible readings are N/A in the tables as in the findings
    th = thresholds or Thresholds()
    analysis = analyze(frame, devs.values(), thresholds=th)
    span = frame.span or (0.0, 0.0)
    duration_s = span[1] - span[0]
    rows = gpu_rows(frame, devs, th)
    hm = heatmap(frame, bins=max(1, min(heatmap_bins, len(frame))))
    candidate = pick_candidate(plan, candidate_index) if plan else None
    label = None
    comparisons: list[Comparison] = []
    if candidate is not None:
        label = _("{count} x {gpu} ({link})").format(count=candidate.get("count"), gpu=candidate.get("gpu_name"),
                                                   link=candidate.get("interconnect_name") or candidate.get(
                                                       "interconnect") or _("no interconnect"))
        comparisons = compare_plan(candidate, rows, analysis, planned_tdp_w(candidate, devs.values()))
    checks = judge_checks(candidate, rows, analysis, frame, duration_s)
    stamp = generated_at or _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    if as_printed is None:
        # as the Monitor tab decides (gpudesk/ui/monitor/controller.py): GPUs without a UUID came from a dmon log,
        # whose stamps are the node's local time as printed, with no zone
        as_printed = not any(d.uuid for d in devs.values())
    basis = timebase.time_basis(span[0], span[1], as_printed=as_printed)
    return BurnInReport(title or _("Burn-in report"), source, stamp, span, duration_s, rows, analysis, hm,
                        plan_name, label, comparisons, checks, basis)
