"""Bottleneck findings: what each rule concluded, with its evidence (numbers and span) and advice.

Findings come from ``gpudesk.telemetry.rules.run_rules`` (computed in the background). A rule that could
not judge (its metrics were N/A) is listed as "not judged" with the reason, never silently dropped.
Details are shown as plain text.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpudesk.ui.monitor.display import fmt_span
from gpudesk.ui.tooltips import plain_tooltip

SEVERITY_ORDER = {"critical": 0, "warning": 1, "info": 2, "not-judged": 3}
SEVERITY_COLOUR = {"critical": "#b00020", "warning": "#8a5a00", "info": "#1f5fa8", "not-judged": "#666666"}


def severity_text(severity: str) -> str:
    return {"critical": QCoreApplication.translate("Monitor", "critical"),
            "warning": QCoreApplication.translate("Monitor", "warning"),
            "info": QCoreApplication.translate("Monitor", "info"),
            "not-judged": QCoreApplication.translate("Monitor", "not judged")}.get(severity, severity)


def finding_details(finding) -> str:
    """Plain-text description of one finding: summary, evidence, span, advice."""
    lines = [finding.summary, ""]
    if finding.evidence:
        lines.append(QCoreApplication.translate("Monitor", "Evidence:"))
        for name, value in finding.evidence.items():
            shown_value = f"{value:.4g}" if isinstance(value, float) else str(value)
            lines.append(f"  {name} = {shown_value}")
    if finding.span:
        lines.append(QCoreApplication.translate("Monitor", "Span: {s}").format(s=fmt_span(*finding.span)))
    if finding.advice:  # an info or not-judged finding has nothing to advise
        lines += ["", QCoreApplication.translate("Monitor", "Advice:"), finding.advice]
    return "\n".join(lines).rstrip()


class FindingsView(QWidget):
    """List of findings (most severe first) and the selected one's details; ``analyzeRequested`` asks the
    tab to run the rules over the selected span (or the visible range)."""

    analyzeRequested = Signal()
    spanSelected = Signal(float, float)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.findings: list = []
        self.analyze_button = QPushButton(self.tr("&Analyze span"), self)
        self.analyze_button.setToolTip(self.tr(
            "Run the bottleneck rules over the selected span, or over the visible range when no span is shown."))
        self.analyze_button.clicked.connect(self.analyzeRequested)
        self.status = QLabel(self.tr("No analysis yet."), self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        top = QHBoxLayout()
        top.addWidget(self.analyze_button)
        top.addWidget(self.status, 1)
        self.tree = QTreeWidget(self)
        self.tree.setHeaderLabels([self.tr("Severity"), self.tr("Rule"), self.tr("GPU"), self.tr("Summary")])
        self.tree.setRootIsDecorated(False)
        self.tree.setColumnWidth(0, 90)
        self.tree.setColumnWidth(1, 170)
        self.tree.setColumnWidth(2, 50)
        self.tree.currentItemChanged.connect(self._show_current)
        self.tree.itemDoubleClicked.connect(self._zoom_to)
        self.details = QPlainTextEdit(self)
        self.details.setReadOnly(True)
        self.details.setPlaceholderText(self.tr("Select a finding to see its evidence and advice. "
                                                "Double-click it to zoom the plots to its span."))
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.tree)
        split.addWidget(self.details)
        split.setSizes([260, 160])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(split, 1)

    def set_busy(self) -> None:
        self.status.setText(self.tr("Analyzing…"))
        self.analyze_button.setEnabled(False)

    def show_error(self, message: str) -> None:
        self.analyze_button.setEnabled(True)
        self.status.setText(self.tr("The analysis failed: {m}").format(m=message))

    def set_findings(self, findings: list, span_text: str = "") -> None:
        self.analyze_button.setEnabled(True)
        self.findings = sorted(findings, key=lambda f: (SEVERITY_ORDER.get(f.severity, 9), f.rule,
                                                        -1 if f.gpu is None else f.gpu))
        self.tree.clear()
        for finding in self.findings:
            item = QTreeWidgetItem([severity_text(finding.severity), finding.rule,
                                    QCoreApplication.translate("Monitor", "all") if finding.gpu is None
                                    else str(finding.gpu), finding.summary])
            item.setForeground(0, QBrush(QColor(SEVERITY_COLOUR.get(finding.severity, "#000000"))))
            item.setToolTip(3, plain_tooltip(finding.summary))
            self.tree.addTopLevelItem(item)
        problems = sum(1 for f in self.findings if f.severity in ("warning", "critical"))
        unjudged = sum(1 for f in self.findings if f.severity == "not-judged")
        self.status.setText(self.tr("{n} findings ({p} warnings or worse, {u} not judged){s}.").format(
            n=len(self.findings), p=problems, u=unjudged, s=f" — {span_text}" if span_text else ""))
        if self.findings:
            self.tree.setCurrentItem(self.tree.topLevelItem(0))

    def _show_current(self, current, _previous) -> None:
        if current is None:
            self.details.clear()
            return
        self.details.setPlainText(finding_details(self.findings[self.tree.indexOfTopLevelItem(current)]))

    def _zoom_to(self, item) -> None:
        finding = self.findings[self.tree.indexOfTopLevelItem(item)]
        if finding.span:
            self.spanSelected.emit(float(finding.span[0]), float(finding.span[1]))
