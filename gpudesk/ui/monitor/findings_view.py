"""The Findings sub-tab: Analyze span, the rule thresholds and the burn-in report as buttons, and the findings
themselves in a :class:`~gpudesk.ui.monitor.findings_list.FindingsListView` (summary, timeline of the spans,
findings grouped by rule, worst first; activating one zooms the plots to its span).

Findings come from ``gpudesk.telemetry.rules.run_rules`` (computed in the background by the tab's actions). A
rule that could not judge (its metrics were N/A) is listed as "not judged" with the reason, never dropped.
Everything shown is plain text.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from gpudesk.telemetry.rules.heatmap import Heatmap
from gpudesk.telemetry.rules.base import CRITICAL, NOT_JUDGED, WARNING, Finding
from gpudesk.ui.monitor.findings_list import FindingsListView, worst_first


class FindingsView(QWidget):
    """The findings page. Signals: analyzeRequested(): run the rules over the selected span (or the visible
    range); spanSelected(t0, t1): a finding's span was activated; thresholdsRequested(): edit the rule
    thresholds; burninRequested(): make the burn-in report of the recording in view."""

    analyzeRequested = Signal()
    """Analyze was clicked: run the rules over the selected span (or the visible range); no arguments."""
    spanSelected = Signal(float, float)
    """A finding's span was activated: its start and end t0, t1 (s on the history's time axis)."""
    thresholdsRequested = Signal()
    """Rule thresholds was clicked: open the threshold editor; no arguments."""
    burninRequested = Signal()
    """Burn-in report was clicked: make the report of the recording in view; no arguments."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.findings: list[Finding] = []
        self.analyze_button = QPushButton(self.tr("&Analyze span"), self)
        self.analyze_button.setToolTip(self.tr(
            "Run the bottleneck rules over the selected span, or over the visible range when no span is shown."))
        self.analyze_button.clicked.connect(self.analyzeRequested)
        self.status = QLabel(self.tr("No analysis yet."), self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        self.thresholds_button = QPushButton(self.tr("Rule &thresholds…"), self)
        self.thresholds_button.setToolTip(self.tr("Change the limits the rules judge by; the findings are "
                                                  "computed again when you save."))
        self.thresholds_button.clicked.connect(self.thresholdsRequested)
        self.burnin_button = QPushButton(self.tr("&Burn-in report…"), self)
        self.burnin_button.setToolTip(self.tr("The burn-in report of the recording in view, optionally against "
                                              "a saved plan; exports PDF, HTML and Markdown."))
        self.burnin_button.clicked.connect(self.burninRequested)
        top = QHBoxLayout()
        top.addWidget(self.analyze_button)
        top.addWidget(self.status, 1)
        top.addWidget(self.thresholds_button)
        top.addWidget(self.burnin_button)
        self.list = FindingsListView(self)
        self.list.zoomRequested.connect(self.spanSelected)
        self.tree = self.list.tree
        self.details = self.list.details
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.list, 1)

    def set_busy(self) -> None:
        self.status.setText(self.tr("Analyzing…"))
        self.analyze_button.setEnabled(False)

    def clear(self, reason: str) -> None:
        """No history in view: no findings and ``reason`` (plain text)."""
        self.findings = []
        self.list.set_findings([], reason)
        self.status.setText(reason)

    def show_error(self, message: str) -> None:
        self.analyze_button.setEnabled(True)
        self.status.setText(self.tr("The analysis failed: {m}").format(m=message))

    def set_findings(self, findings: Sequence[Finding], span_text: str = "", summary: str = "",
                     run_span: tuple[float, float] | None = None, heatmap: Heatmap | None = None) -> None:
        """Show ``findings`` (worst first) with ``summary``; ``span_text`` names the span analysed."""
        self.analyze_button.setEnabled(True)
        self.findings = worst_first(findings)
        self.list.set_findings(self.findings, summary, run_span, heatmap)
        problems = sum(1 for f in self.findings if f.severity in (WARNING, CRITICAL))
        unjudged = sum(1 for f in self.findings if f.severity == NOT_JUDGED)
        self.status.setText(self.tr("{n} findings ({p} warnings or worse, {u} not judged){s}.").format(
            n=len(self.findings), p=problems, u=unjudged, s=f" — {span_text}" if span_text else ""))
