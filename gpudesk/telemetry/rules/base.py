"""What a rule returns, the context it reads, and small helpers shared by the rules.

A rule is a function ``check(frame, ctx) -> list[Finding]`` over a window of samples (a
:class:`~gpudesk.telemetry.core.model.History`: one column per GPU per metric, read as it is). Each finding names the
rule, the GPU (None for the whole machine), a severity, the evidence (numbers with units in their keys) and the
span it covers, and advice that cites the method (DIGEST.md). When the metrics a rule needs are N/A, it returns
one finding with severity "not-judged" that says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeGuard

import numpy as np

from gpudesk.i18n import _, ngettext
from gpudesk.telemetry.core.model import DeviceInfo, History
from gpudesk.telemetry.rules.spans import SpanCache, on_grid
from gpudesk.telemetry.rules.thresholds import Thresholds

INFO = "info"
WARNING = "warning"
CRITICAL = "critical"
NOT_JUDGED = "not-judged"


@dataclass
class Finding:
    """One result of a rule.

    Attributes:
        rule: rule id ("pipeline-starvation", ...).
        gpu: GPU index, or None when the finding is about the machine (e.g. imbalance).
        severity: "info" | "warning" | "critical" | "not-judged".
        summary: one sentence.
        evidence: name (unit in the name) -> number or text.
        span: (t0, t1) seconds since the epoch the evidence covers.
        advice: what to do, citing the method.
    """

    rule: str
    gpu: int | None
    severity: str
    summary: str
    evidence: dict[str, Any] = field(default_factory=dict)
    span: tuple[float, float] | None = None
    advice: str = ""

    @property
    def judged(self) -> bool:
        return self.severity != NOT_JUDGED

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "gpu": self.gpu,
            "severity": self.severity,
            "summary": self.summary,
            "evidence": self.evidence,
            "span_s": list(self.span) if self.span else None,
            "advice": self.advice,
        }


@dataclass
class RuleContext:
    """What the rules know besides the samples: static device facts (link, memory total) and thresholds."""

    devices: dict[int, DeviceInfo] = field(default_factory=dict)
    interval_s: float = 1.0
    min_sustained_s: float = 30.0
    thresholds: Thresholds = field(default_factory=Thresholds)
    _grids: dict[int, tuple[History, History]] = field(default_factory=dict, repr=False)
    spans: SpanCache = field(default_factory=dict, repr=False)  # spans found once per grid, shared by the rules

    def device(self, gpu: int) -> DeviceInfo:
        return self.devices.get(gpu) or DeviceInfo(gpu)

    def grid(self, frame: History) -> History:
        """The frame on a regular grid of ``interval_s`` slots (:func:`~gpudesk.telemetry.rules.spans.on_grid`:
        the frame's own columns when its rounds are regular), made once per frame and shared by the rules."""
        cached = self._grids.get(id(frame))
        if cached is None or cached[0] is not frame:
            cached = self._grids[id(frame)] = (frame, on_grid(frame, self.interval_s))
        return cached[1]


def checked(rule: str, summary: str, evidence: dict[str, Any] | None = None,
            span: tuple[float, float] | None = None) -> Finding:
    """The quiet result of a judged rule: what it checked and that it found nothing (severity "info")."""
    return Finding(rule, None, INFO, summary, {"checked": True, **(evidence or {})}, span)


def _not_judged_sentence() -> str:
    # Translators: {why} is a whole reason sentence, e.g. "the SM clock was not recorded (dmon -s c, or NVML)."
    return _("Could not judge: {why}")


def not_judged(rule: str, gpu: int | None, why: str, span: tuple[float, float] | None) -> Finding:
    return Finding(rule, gpu, NOT_JUDGED, _not_judged_sentence().format(why=why), {}, span)


def util_not_recorded(rule: str, span: tuple[float, float] | None) -> Finding:
    """The not-judged finding of a machine-wide rule that needs GPU utilization and has no reading of it."""
    return not_judged(rule, None, _("GPU utilization was not recorded (or is N/A on every GPU)."), span)


def not_judged_reason(summary: str) -> str:
    """The reason of a not-judged finding's summary (the sentence without "Could not judge: "), in the language
    the summary was written in; the whole summary when it does not have that form."""
    head, _field, tail = _not_judged_sentence().partition("{why}")
    if summary.startswith(head) and summary.endswith(tail) and len(summary) >= len(head) + len(tail):
        return summary[len(head):len(summary) - len(tail)]
    return summary


def gpu_span(t: np.ndarray) -> tuple[float, float] | None:
    return (float(t[0]), float(t[-1])) if t.size else None


def seen_span(frame: History, j: int) -> tuple[float, float] | None:
    """(first, last) time at which column ``j`` (one GPU) has any reading; None when it has none."""
    return frame.seen_span(j)


def longest_run(mask: np.ndarray, t: np.ndarray, interval_s: float) -> tuple[float, float, float]:
    """Longest stretch of consecutive True samples: (duration s, start t, end t); durations count one interval
    per sample."""
    if not mask.any():
        return 0.0, 0.0, 0.0
    m = mask.astype(np.int8)
    d = np.diff(np.concatenate(([0], m, [0])))
    starts = np.flatnonzero(d == 1)
    ends = np.flatnonzero(d == -1)  # exclusive
    lengths = ends - starts
    k = int(np.argmax(lengths))
    s, e = int(starts[k]), int(ends[k]) - 1
    return float(lengths[k]) * interval_s, float(t[s]), float(t[e])


def readable(values: np.ndarray | None) -> TypeGuard[np.ndarray]:
    return values is not None and not bool(np.isnan(values).all())  # one pass, no negated copy


def n_samples(n: int) -> str:
    """ "1 sample", "2 samples"."""
    return ngettext("{n} sample", "{n} samples", n).format(n=n)


def r(x: float | None, nd: int = 1) -> float | None:
    return None if x is None or (isinstance(x, float) and np.isnan(x)) else round(float(x), nd)

