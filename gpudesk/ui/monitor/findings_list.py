"""The Findings view: a one-paragraph summary, the timeline of the spans (heat map with the spans marked), and
the findings grouped by rule with the worst first; activating a finding (click, Enter) emits
``zoomRequested(t0, t1)`` so the plots can zoom to its span, and marks it on the timeline.

Self-contained: :meth:`FindingsListView.set_findings` takes the findings of ``gpudesk.telemetry.rules.run_rules``
(or an ``Analysis``' findings and summary) and, optionally, a heat map. All text is shown as plain text.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpudesk.telemetry.rules.heatmap import Heatmap
from gpudesk.telemetry.rules.evidence_names import evidence_name, rule_name, severity_name
from gpudesk.telemetry.rules.base import CRITICAL, INFO, NOT_JUDGED, WARNING, Finding
from gpudesk.ui.monitor.display import when
from gpudesk.units import format_duration, format_gib, format_rate
from gpudesk.ui.monitor.span_chart import SpanChart
from gpudesk.ui.tooltips import plain_tooltip

ORDER = {CRITICAL: 0, WARNING: 1, INFO: 2, NOT_JUDGED: 3}
COLOUR = {CRITICAL: "#b00020", WARNING: "#8a5a00", INFO: "#1f5fa8", NOT_JUDGED: "#666666"}
SPAN_ROLE = int(Qt.ItemDataRole.UserRole) + 1
FINDING_ROLE = int(Qt.ItemDataRole.UserRole) + 2


def _length(f: Finding) -> float:
    """The span's length as the rule counts it (samples x interval), else end - start."""
    d = f.evidence.get("duration_s")
    if isinstance(d, (int, float)) and not isinstance(d, bool):
        return float(d)
    return (f.span[1] - f.span[0]) if f.span else 0.0


# Evidence keys end in their unit (DESIGN.md): the suffix says how to show the value and is dropped from the label.
_UNITS = (("_bytes_per_s", "bytes/s"), ("_bytes", "bytes"), ("_pct", "%"), ("_w", "W"), ("_c", "°C"),
          ("_hz", "Hz"), ("_s", "s"))
_EPOCH_MIN_S = 1e8  # a value in seconds this large is a time stamp (1973 on), not a duration


def _number(value: float) -> str:
    return f"{value:.4g}" if abs(value) < 1e5 else f"{value:,.0f}"


def evidence_line(key: str, value: object) -> tuple[str, str]:
    """One evidence entry for people: ("duration", "35 s"), ("start", "14:02:30"), ("gpu", "N/A").

    Times read as the shown history's times do (:func:`display.when`: a clock time, or "t+150 s" for a log
    without one); byte rates in MB/s or GB/s (decimal), bytes in GiB; None reads "N/A", booleans "yes"/"no"."""
    suffix, unit = next(((s, u) for s, u in _UNITS if key.endswith(s)), ("", ""))
    label = evidence_name(key)
    na = QCoreApplication.translate("Monitor", "N/A")
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return label, na
    if isinstance(value, bool):
        return label, QCoreApplication.translate("Monitor", "yes") if value else QCoreApplication.translate(
            "Monitor", "no")
    if not isinstance(value, (int, float)):
        return label, str(value)
    v = float(value)
    if unit == "s":
        if key == "offset_s":
            return QCoreApplication.translate("Monitor", "from the start"), f"t+{format_duration(v)}"
        if v > _EPOCH_MIN_S:
            return label, when(v, "%H:%M:%S")
        return label, format_duration(v)
    if unit == "bytes/s":
        return label, format_rate(v)
    if unit == "bytes":
        return label, format_gib(v)
    if unit == "Hz":
        return label, f"{v / 1e6:.0f} MHz"
    if unit:
        return label, f"{_number(v)} {unit}"
    return label, _number(v) if isinstance(value, float) else str(value)


def severity_text(severity: str) -> str:
    """A finding's severity as the window says it (the rules and the JSON keep the English id)."""
    return severity_name(severity)  # the one table the CLI and the reports use too


def details_text(f: Finding, rule_label: str, evidence_label: str, advice_label: str) -> str:
    """Plain text of one finding for the details pane: summary, evidence (one line per key), advice."""
    lines = [f.summary, "", f"{rule_label}: {rule_name(f.rule)} ({severity_text(f.severity)})", f"{evidence_label}:"]
    for key, value in f.evidence.items():
        if key == "spans" and isinstance(value, list):
            lines.append("  " + QCoreApplication.translate("Monitor", "spans: {n} (listed on the timeline)").format(
                n=len(value)))
            continue
        label, text = evidence_line(key, value)
        lines.append(f"  {label}: {text}")
    if f.advice:
        lines += ["", f"{advice_label}: {f.advice}"]
    return "\n".join(lines)


def worst_first(findings: Sequence[Finding]) -> list[Finding]:
    """Severity first, then the longest span, then GPU."""
    return sorted(findings, key=lambda f: (ORDER.get(f.severity, 9), -_length(f), -1 if f.gpu is None else f.gpu))


class FindingsListView(QWidget):
    zoomRequested = Signal(float, float)
    """A finding or timeline span was activated: its start and end t0, t1 (s on the history's time axis)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary = QLabel()
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.chart = SpanChart()
        self.tree = QTreeWidget()
        self.tree.setColumnCount(4)
        self.tree.setHeaderLabels([self.tr("Finding"), self.tr("Scope"), self.tr("Length"), self.tr("Severity")])
        self.tree.setAccessibleName(self.tr("Findings grouped by rule"))
        self.tree.setUniformRowHeights(False)
        self.tree.setWordWrap(True)
        self.tree.header().setStretchLastSection(False)
        self.tree.setColumnWidth(0, 620)
        self.details = QPlainTextEdit()
        self.details.setReadOnly(True)
        self.details.setAccessibleName(self.tr("Evidence and advice of the selected finding"))
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.tree)
        split.addWidget(self.details)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.chart)
        layout.addWidget(split, 1)
        self.tree.currentItemChanged.connect(self._show_details)
        self.tree.itemActivated.connect(self._activated)
        self.tree.itemClicked.connect(self._activated)
        self.chart.spanClicked.connect(self._chart_clicked)
        self.findings: list[Finding] = []
        self._by_item: list[Finding] = []

    def set_findings(self, findings: Sequence[Finding], summary: str = "",
                     run_span: tuple[float, float] | None = None, heatmap: Heatmap | None = None) -> None:
        self.findings = list(findings)
        self.summary.setText(summary or self.tr("No findings yet."))
        spans = [f.span for f in findings if f.span]
        if run_span is None and spans:
            run_span = (min(s[0] for s in spans), max(s[1] for s in spans))
        self.chart.set_data(findings, run_span, heatmap)
        self.tree.clear()
        self._by_item = []
        groups: dict[str, list[Finding]] = {}
        for f in worst_first(findings):
            groups.setdefault(f.rule, []).append(f)
        for rule, items in sorted(groups.items(), key=lambda kv: (ORDER.get(kv[1][0].severity, 9), kv[0])):
            worst = items[0]
            judged = [f for f in items if f.severity in (CRITICAL, WARNING)]
            name = rule_name(rule)
            head = QTreeWidgetItem([self.tr("{rule} ({n})").format(rule=name, n=len(judged)) if judged else name,
                                    "", "", severity_text(worst.severity)])
            head.setForeground(3, QBrush(QColor(COLOUR.get(worst.severity, "#000"))))
            font = head.font(0)
            font.setBold(True)
            head.setFont(0, font)
            if worst.span:
                head.setData(0, SPAN_ROLE, worst.span)
            self.tree.addTopLevelItem(head)
            for f in items:
                scope = self.tr("job") if f.gpu is None else self.tr("GPU {gpu}").format(gpu=f.gpu)
                length = format_duration(_length(f)) if f.span and f.severity in (CRITICAL, WARNING) else ""
                child = QTreeWidgetItem([f.summary, scope, length, severity_text(f.severity)])
                child.setForeground(3, QBrush(QColor(COLOUR.get(f.severity, "#000"))))
                tip = f.advice or f.summary
                child.setToolTip(0, plain_tooltip(tip))
                if f.span:
                    child.setData(0, SPAN_ROLE, f.span)
                child.setData(0, FINDING_ROLE, len(self._by_item))
                self._by_item.append(f)
                head.addChild(child)
            head.setExpanded(worst.severity in (CRITICAL, WARNING))
        first = self.tree.topLevelItem(0)
        if first is not None:
            self.tree.setCurrentItem(first)

    def _show_details(self, item: QTreeWidgetItem | None, _previous: QTreeWidgetItem | None = None) -> None:
        if item is None:
            self.details.clear()
            return
        index = item.data(0, FINDING_ROLE)
        first_child = item.child(0) if item.childCount() else None
        if index is None and first_child is not None:
            index = first_child.data(0, FINDING_ROLE)
        if index is None:
            self.details.clear()
            return
        self.details.setPlainText(details_text(self._by_item[int(index)], self.tr("Rule"), self.tr("Evidence"),
                                               self.tr("What to do")))

    def _activated(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        span = item.data(0, SPAN_ROLE)
        if span:
            t0, t1 = float(span[0]), float(span[1])
            self.chart.select((t0, t1))
            self.zoomRequested.emit(t0, t1)

    def _chart_clicked(self, t0: float, t1: float) -> None:
        for i in range(self.tree.topLevelItemCount()):
            head = self.tree.topLevelItem(i)
            if head is None:
                continue
            for j in range(head.childCount()):
                child = head.child(j)
                if child is None:
                    continue
                span = child.data(0, SPAN_ROLE)
                if span and (float(span[0]), float(span[1])) == (t0, t1):
                    self.tree.setCurrentItem(child)
                    self.zoomRequested.emit(t0, t1)
                    return
