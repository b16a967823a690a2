"""The burn-in report view: summary, heat map with the findings' spans, per-GPU statistics, the plan's
expectations against the measurements, the post-delivery verdicts and the findings; exports Markdown, HTML and
PDF in the background (``gpudesk.ui.workers.run_task``).

Self-contained: :meth:`BurnInReportView.set_report` takes a ``gpudesk.telemetry.recording.burnin.BurnInReport``. Text from
outside (GPU names, plan names, file names) is shown as plain text in item views.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMarginsF, QSizeF, Qt, QUrl, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QImage,
    QPageLayout,
    QPageSize,
    QPdfWriter,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpudesk.telemetry.recording.burnin import FAIL, INCOMPLETE, PASS, BurnInReport
from gpudesk.telemetry.recording.burnin_render import format_for, to_html, verdict_text, write_report
from gpudesk.telemetry.rules.heatmap import Heatmap
from gpudesk.ui.monitor.findings_list import FindingsListView
from gpudesk.ui.monitor.span_chart import SpanChart
from gpudesk.ui.workers import run_task
from gpudesk.ui.export_folder import ask_save_path
from gpudesk.ui.error_text import error_text

VERDICT_COLOUR = {PASS: "#1e8449", FAIL: "#b00020", INCOMPLETE: "#8a5a00"}


def export_pdf(report: BurnInReport, path: Path, heatmap_image: QImage) -> Path:
    """Write the report as PDF: the HTML rendering laid out by Qt's rich text, the heat map as an image."""
    doc = QTextDocument()
    doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl("heatmap.png"), heatmap_image)
    doc.setHtml(to_html(report, svg=False))
    writer = QPdfWriter(str(path))
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize.PageSizeId.A4), QPageLayout.Orientation.Landscape,
                                     QMarginsF(12, 12, 12, 12), QPageLayout.Unit.Millimeter))
    writer.setResolution(150)
    doc.setPageSize(QSizeF(writer.width(), writer.height()))
    doc.print_(writer)
    return path


def export(report: BurnInReport, path: Path, heatmap_image: QImage) -> Path:
    """Write ``report`` to ``path`` in the format its ending names (.md, .html, .json, .pdf)."""
    if path.suffix.lower() == ".pdf":
        return export_pdf(report, path, heatmap_image)
    return write_report(report, path, format_for(path))


def _table(headers: list[str], rows: list[list[str]], verdict_col: int | None = None) -> QTableWidget:
    table = QTableWidget(len(rows), len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    table.setWordWrap(True)
    for i, row in enumerate(rows):
        for j, text in enumerate(row):
            item = QTableWidgetItem(verdict_text(text) if j == verdict_col else text)  # verdicts in words
            if j == verdict_col and text in VERDICT_COLOUR:
                item.setForeground(QBrush(QColor(VERDICT_COLOUR[text])))
            table.setItem(i, j, item)
    table.resizeColumnsToContents()
    for j in range(len(headers)):
        table.setColumnWidth(j, min(table.columnWidth(j), 380))  # long text wraps instead of scrolling away
    table.horizontalHeader().setStretchLastSection(True)
    table.resizeRowsToContents()
    # tall enough for every row: the report scrolls as a whole, not table by table
    height = (table.horizontalHeader().height() + sum(table.rowHeight(i) for i in range(len(rows)))
              + table.horizontalScrollBar().sizeHint().height() + 6)
    table.setFixedHeight(height)
    table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    return table


class BurnInReportView(QWidget):
    """Shows one burn-in report; ``zoomRequested(t0, t1)`` when a finding or span is activated."""

    zoomRequested = Signal(float, float)
    """A finding or span was activated: its start and end t0, t1 (s on the history's time axis)."""
    exported = Signal(str)
    """The background export finished: the written file's path."""
    exportFailed = Signal(str)
    """The background export failed: the message to show."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.report: BurnInReport | None = None
        self.title = QLabel()
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setBold(True)
        self.title.setFont(font)
        self.meta = QLabel()
        self.meta.setTextFormat(Qt.TextFormat.PlainText)
        self.meta.setWordWrap(True)
        self.findings = FindingsListView()
        self.findings.zoomRequested.connect(self.zoomRequested)
        self.gpus = QTableWidget()
        self.comparisons = QTableWidget()
        self.checks = QTableWidget()
        self.status = QLabel()
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.export_buttons = []
        buttons = QHBoxLayout()
        for label, suffix in ((self.tr("Export &PDF…"), "pdf"), (self.tr("Export &HTML…"), "html"),
                              (self.tr("Export &Markdown…"), "md")):
            button = QPushButton(label)
            button.clicked.connect(lambda _checked=False, s=suffix: self._ask_export(s))
            buttons.addWidget(button)
            self.export_buttons.append(button)
        buttons.addStretch(1)
        buttons.addWidget(self.status)
        content = QWidget()
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(content)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)
        self.findings.setMinimumHeight(460)
        self.layout_ = QVBoxLayout(content)
        self.layout_.addWidget(self.title)
        self.layout_.addWidget(self.meta)
        self.layout_.addLayout(buttons)
        self.layout_.addWidget(self.findings, 3)
        self.gpu_label = QLabel(self.tr("Per-GPU statistics"))
        self.plan_label = QLabel(self.tr("Plan against measurement"))
        self.check_label = QLabel(self.tr("Post-delivery checks"))
        for heading, table in ((self.gpu_label, self.gpus), (self.plan_label, self.comparisons),
                               (self.check_label, self.checks)):
            self.layout_.addWidget(heading)
            self.layout_.addWidget(table)
        self.layout_.addStretch(1)

    def _replace(self, old: QTableWidget, new: QTableWidget) -> QTableWidget:
        self.layout_.replaceWidget(old, new)
        old.hide()
        old.deleteLater()
        return new

    def set_report(self, report: BurnInReport) -> None:
        self.report = report
        self.title.setText(report.title)
        plan = (self.tr("Plan: {plan}, configuration {label}.").format(plan=report.plan_name,
                                                                       label=report.candidate_label or "")
                if report.plan_name else self.tr("No plan attached: the report judges the recording alone."))
        self.meta.setText(self.tr("Source: {source}. {plan}").format(source=report.source, plan=plan))
        a = report.analysis
        self.findings.set_findings(a.findings, a.summary, report.span, report.heatmap)
        na = self.tr("N/A")

        def num(value: float | None, scale: float, unit: str, digits: int = 0) -> str:
            return na if value is None else f"{value / scale:.{digits}f} {unit}"

        gib = float(2**30)
        self.gpus = self._replace(self.gpus, _table(
            [self.tr("GPU"), self.tr("Model"), self.tr("Utilization (median, %)"), self.tr("Busy share (%)"),
             self.tr("Memory used, peak (GiB)"), self.tr("Memory total (GiB)"), self.tr("Power, median (W)"),
             self.tr("Temperature, max (°C)"), self.tr("SM clock, median (MHz)")],
            [[str(r.gpu), r.name or self.tr("unknown"), num(r.util_median_pct, 1, "%"), num(r.busy_share_pct, 1, "%"),
              num(r.mem_used_max_bytes, gib, "GiB", 1), num(r.mem_total_bytes, gib, "GiB", 1),
              num(r.power_median_w, 1, "W"), num(r.temp_max_c, 1, "°C"), num(r.sm_clock_median_hz, 1e6, "MHz")]
             for r in report.gpus]))
        self.comparisons = self._replace(self.comparisons, _table(
            [self.tr("Item"), self.tr("Expected (plan)"), self.tr("Measured"), self.tr("Verdict"), self.tr("Note")],
            [[c.item, c.expected, c.measured, c.verdict, c.note] for c in report.comparisons], 3))
        self.plan_label.setVisible(bool(report.comparisons))
        self.comparisons.setVisible(bool(report.comparisons))
        self.checks = self._replace(self.checks, _table(
            [self.tr("Check"), self.tr("Expected"), self.tr("Verdict"), self.tr("Evidence")],
            [[c.name, c.expected, c.verdict, c.evidence] for c in report.checks], 2))

    def heatmap_image(self) -> QImage:
        chart = SpanChart()
        if self.report is not None:
            heat: Heatmap | None = self.report.heatmap
            chart.set_data(self.report.analysis.findings, self.report.span, heat)
        return chart.to_image()

    def _ask_export(self, suffix: str) -> None:
        if self.report is None:
            return
        filters = {"pdf": self.tr("PDF (*.pdf)"), "html": self.tr("HTML (*.html)"), "md": self.tr("Markdown (*.md)")}
        name = ask_save_path(self, self.tr("Export the burn-in report"), f"burn-in.{suffix}", filters[suffix])
        if name:
            self.export_to(Path(name))

    def export_to(self, path: Path) -> None:
        """Export in the background; ``exported(path)`` or ``exportFailed(message)`` reports the outcome."""
        if self.report is None:
            return
        for button in self.export_buttons:
            button.setEnabled(False)
        self.status.setText(self.tr("Exporting {name}…").format(name=path.name))
        run_task(export, self.report, path, self.heatmap_image(), on_result=self._done, on_error=self._failed)

    def _done(self, path: object) -> None:
        for button in self.export_buttons:
            button.setEnabled(True)
        self.status.setText(self.tr("Saved {name}.").format(name=Path(str(path)).name))
        self.exported.emit(str(path))

    def _failed(self, error: BaseException) -> None:
        for button in self.export_buttons:
            button.setEnabled(True)
        message = error_text(error)
        self.status.setText(message)
        self.exportFailed.emit(message)
