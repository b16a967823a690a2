"""Analysis of a window of samples: per-GPU statistics (median, p5, p95 of each metric present) and the
bottleneck rules' findings, as one object with a JSON form (keys carry units through the metric names).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from dataclasses import dataclass, field


from gpudesk.telemetry.rules.findings_summary import summarize
from gpudesk.telemetry.core.plausibility import screen
from gpudesk.telemetry.core.model import DeviceInfo, History
from gpudesk.nvml.pcie import describe_link
from gpudesk.telemetry.core.dcgm_fields import metric_unit
from gpudesk.telemetry.rules import Finding, Thresholds, busy_signal, run_rules
from gpudesk.telemetry.core.stats import SpanStats, span_stats


@dataclass
class Analysis:
    """Result of :func:`analyze`.

    Attributes:
        span: (t0, t1) seconds since the epoch analysed, or None for an empty frame.
        stats: gpu -> metric -> :class:`SpanStats` (only metrics with readable values).
        findings: rule results, judged ones first (severity "not-judged" says why a rule could not judge).
        devices: gpu -> DeviceInfo used (PCIe link and memory assumptions).
        notes: source notes (e.g. dmon parser notes, link assumptions).
        rounds: distinct time stamps (sampling rounds) analysed; 1 for a single ``nvidia-smi dmon`` round.
        summary: one paragraph over the findings (gpudesk.telemetry.rules.findings_summary).
        thresholds: the rule thresholds used.
    """

    span: tuple[float, float] | None
    stats: dict[int, dict[str, SpanStats]]
    findings: list[Finding]
    devices: dict[int, DeviceInfo] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    rounds: int = 0
    summary: str = ""
    thresholds: Thresholds = field(default_factory=Thresholds)

    def to_json(self) -> dict[str, Any]:
        gpus: dict[str, dict[str, Any]] = {}
        for g, per in sorted(self.stats.items()):
            dev = self.devices.get(g)
            entry: dict[str, Any] = {
                "name": dev.name if dev else None,
                "uuid": dev.uuid if dev else None,
                "pcie_link": describe_link(dev.pcie_gen_max, dev.pcie_width_max_lanes, dev.pcie_link_source)
                if dev else None,
                "pcie_link_source": dev.pcie_link_source if dev else None,
                "metrics": {},
            }
            for name, s in per.items():
                if s.n == 0:
                    continue
                entry["metrics"][name] = {"unit": metric_unit(name) or None,
                                          "median": s.median, "p5": s.p5, "p95": s.p95, "samples": s.n,
                                          "missing": s.missing}
            gpus[str(g)] = entry
        return {
            "span_s": list(self.span) if self.span else None,
            "duration_s": (self.span[1] - self.span[0]) if self.span else 0.0,
            "sampling_rounds": self.rounds,
            "gpus": gpus,
            "summary": self.summary,
            "findings": [f.to_dict() for f in self.findings],
            "thresholds": self.thresholds.to_dict(),
            "notes": list(self.notes),
        }


def analyze(
    frame: History,
    devices: Iterable[DeviceInfo] | None = None,
    *,
    t0: float | None = None,
    t1: float | None = None,
    interval_s: float | None = None,
    thresholds: Thresholds | None = None,
) -> Analysis:
    """Statistics and findings over ``t0 <= t <= t1`` (whole frame by default)."""
    sub = frame.select(t0, t1) if (t0 is not None or t1 is not None) else frame
    devs = {d.index: d for d in (devices or [])}
    sub = screen(sub, devs)  # impossible readings (1e32 MB of memory) become N/A with a note
    stats = span_stats(sub)
    th = thresholds or Thresholds()
    findings = run_rules(sub, devs, interval_s=interval_s, thresholds=th)
    rounds = len(sub)
    notes = list(sub.notes)
    signal = busy_signal.signal_note(busy_signal.choose(sub))
    if signal:
        notes.append(signal)
    return Analysis(sub.span, stats, findings, devs, notes, rounds, summarize(findings), th)
