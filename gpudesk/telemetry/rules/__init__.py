"""Bottleneck rules over a window of samples; each module holds one rule (``check(frame, ctx) -> [Finding]``).

``run_rules(frame, devices=None, interval_s=None)`` runs them all and returns the findings, judged ones first.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from gpudesk.telemetry.model import DeviceInfo, SeriesFrame
from gpudesk.telemetry.rules import cpu_bound, imbalance, memory, pcie_link, starvation, throttling
from gpudesk.telemetry.rules.base import (
    CRITICAL, INFO, NOT_JUDGED, WARNING, Finding, RuleContext,
)

RULES = (starvation.check, cpu_bound.check, imbalance.check, memory.check, throttling.check, pcie_link.check)
_ORDER = {CRITICAL: 0, WARNING: 1, INFO: 2, NOT_JUDGED: 3}

__all__ = ["RULES", "Finding", "RuleContext", "run_rules", "CRITICAL", "WARNING", "INFO", "NOT_JUDGED"]


def estimate_interval(frame: SeriesFrame) -> float:
    """Typical sampling interval (s) of one GPU's rows; 1 s when it cannot be told."""
    if len(frame) < 2:
        return 1.0
    g = frame.gpu[0]
    t = frame.t[frame.gpu == g][:10_000]
    d = np.diff(t)
    d = d[d > 0]
    return float(np.median(d)) if d.size else 1.0


def run_rules(
    frame: SeriesFrame,
    devices: Iterable[DeviceInfo] | dict[int, DeviceInfo] | None = None,
    *,
    interval_s: float | None = None,
    min_sustained_s: float = 30.0,
) -> list[Finding]:
    """Run every rule over ``frame``; findings sorted by severity (critical first), then GPU."""
    if isinstance(devices, dict):
        devs = dict(devices)
    else:
        devs = {d.index: d for d in (devices or [])}
    ctx = RuleContext(devs, interval_s or estimate_interval(frame), min_sustained_s)
    findings: list[Finding] = []
    if not len(frame):
        return findings
    for rule in RULES:
        findings.extend(rule(frame, ctx))
    findings.sort(key=lambda f: (_ORDER.get(f.severity, 9), -1 if f.gpu is None else f.gpu, f.rule))
    return findings
