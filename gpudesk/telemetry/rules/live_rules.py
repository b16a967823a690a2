"""The findings rules (:func:`gpudesk.telemetry.rules.run_rules`) run live, as alerts: the same rules, thresholds
and busy-signal choice that judge a recording judge the last ``window_s`` of the live history.

The history is the batches the alert loop read, kept for ``window_s`` (a bounded deque). The rules run at most
once every ``every_s`` seconds of sample time, so their cost (a frame of the window, then every rule: about
linear in window x GPUs) does not grow with the sampling rate. A judged finding of severity warning or critical
becomes an alert of kind ``finding`` that names its rule (``Alert.rule``) and carries the finding's evidence; it
is raised once per episode: again only after an evaluation where that rule no longer found it on that GPU.

Rules whose condition an alert kind already watches sample by sample (throttling: the ``throttling`` alert) are
left to that kind, so one condition never raises two alerts.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from gpudesk.i18n import _
from gpudesk.telemetry.rules.alerts import CRITICAL, WARNING, Alert, AlertKind
from gpudesk.telemetry.core.model import DeviceInfo, SampleBatch, History
from gpudesk.telemetry.rules import run_rules
from gpudesk.telemetry.rules import throttling as throttling_rule
from gpudesk.telemetry.rules.thresholds import Thresholds

# Rules whose condition is an alert kind of its own (judged sample by sample there).
COVERED_BY_KINDS = frozenset({throttling_rule.RULE_POWER, throttling_rule.RULE_THERMAL})
DEFAULT_WINDOW_S = 900.0
DEFAULT_EVERY_S = 30.0


class LiveRules:
    """Feed it every batch (:meth:`feed`); it returns the alerts the rules raise when an evaluation is due."""

    def __init__(self, thresholds: Thresholds | None = None, *, window_s: float = DEFAULT_WINDOW_S,
                 every_s: float = DEFAULT_EVERY_S, devices: list[DeviceInfo] | None = None) -> None:
        if window_s <= 0 or every_s <= 0:
            raise ValueError("window_s and every_s must be positive")
        self.thresholds = thresholds or Thresholds()
        self.window_s = window_s
        self.every_s = every_s
        self.devices = {d.index: d for d in devices or []}
        self.evaluations = 0
        self._batches: deque[SampleBatch] = deque()
        self._last_eval: float | None = None
        self._active: set[tuple[str, int | None]] = set()

    def feed(self, batch: SampleBatch) -> list[Alert]:
        self._batches.append(batch)
        while self._batches and batch.t - self._batches[0].t > self.window_s:
            self._batches.popleft()
        if self._last_eval is not None and batch.t - self._last_eval < self.every_s:
            return []
        self._last_eval = batch.t
        return self.evaluate(batch.t)

    def evaluate(self, t: float) -> list[Alert]:
        """Run every rule over the window now; the alerts for findings not already raised in this episode."""
        self.evaluations += 1
        frame = History.from_batches(self._batches)
        findings = run_rules(frame, self.devices or None, thresholds=self.thresholds) if len(frame) else []
        uuids = {s.gpu_index: s.gpu_uuid for b in self._batches for s in b.samples}
        found: set[tuple[str, int | None]] = set()
        out: list[Alert] = []
        for f in findings:
            if not f.judged or f.severity not in (WARNING, CRITICAL) or f.rule in COVERED_BY_KINDS:
                continue
            key = (f.rule, f.gpu)
            found.add(key)
            if key in self._active:
                continue
            evidence: dict[str, Any] = {"rule": f.rule, **f.evidence}
            if f.span is not None:
                evidence["span_s"] = [round(f.span[0], 1), round(f.span[1], 1)]
            out.append(Alert(AlertKind.FINDING, f.severity, f.gpu, uuids.get(f.gpu) if f.gpu is not None else None,
                             t, _("Rule {rule}: {summary}").format(rule=f.rule, summary=f.summary), evidence,
                             rule=f.rule))
        self._active = found
        return out
