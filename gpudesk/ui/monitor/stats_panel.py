"""Median, p5 and p95 of each metric per GPU over a chosen span (for example three epochs).

The span comes from the plots' LinearRegionItem (or the whole visible range). The numbers are computed by
``gpudesk.telemetry.core.stats.span_stats`` in the background (``run_task``); values that could not be read are
left out of the statistics and counted as missing, and a metric with no readable value shows N/A.
Cells read "median (p5 – p95)"; the tooltip gives the sample counts.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpudesk.telemetry.core import model as m
from gpudesk.ui.monitor.display import fmt, fmt_span, shown

STATS_METRICS = (m.GPU_UTIL, m.MEM_UTIL, m.MEM_USED, m.PCIE_RX, m.PCIE_TX, m.POWER, m.GPU_TEMP, m.SM_CLOCK)


def compute_stats(frame, t0: float, t1: float) -> dict:
    """Run ``span_stats`` on the frame (called on the thread pool)."""
    from gpudesk.telemetry.core.stats import span_stats

    return span_stats(frame, t0, t1)


class StatsPanel(QWidget):
    """Table of span statistics; ``spanRequested(bool)`` asks the plots to show or hide the span selector."""

    spanRequested = Signal(bool)
    """The span button was toggled: True to show the span selector on the plots, False to hide it."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.span_button = QPushButton(self.tr("&Select span…"), self)
        self.span_button.setCheckable(True)
        self.span_button.setToolTip(self.tr(
            "Show a span on the utilization plot; drag its edges over, for example, three epochs. "
            "The table then shows the median, p5 and p95 of each metric over that span."))
        self.span_button.toggled.connect(self.spanRequested)
        self.label = QLabel(self.tr("Statistics of the visible range."), self)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        top = QHBoxLayout()
        top.addWidget(self.span_button)
        top.addWidget(self.label, 1)
        self.table = QTableWidget(0, len(STATS_METRICS), self)
        self.table.setHorizontalHeaderLabels([self._header(metric, False) for metric in STATS_METRICS])
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.setToolTip(self.tr("Each cell: median (p5 – p95) over the span; hover for sample counts."))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        self.stats: dict = {}

    def set_busy(self, t0: float, t1: float) -> None:
        self.label.setText(self.tr("Computing statistics for {span}…").format(span=self.span_text(t0, t1)))

    def show_error(self, message: str) -> None:
        self.label.setText(self.tr("Statistics could not be computed: {m}").format(m=message))

    def clear(self, reason: str) -> None:
        """No history in view: an empty table and ``reason`` (plain text)."""
        self.stats = {}
        self.table.setRowCount(0)
        self.label.setText(reason)

    def _header(self, metric: str, share: bool) -> str:
        short = {m.GPU_UTIL: self.tr("GPU util"), m.MEM_UTIL: self.tr("Mem-ctrl util"),
                 m.MEM_USED: self.tr("Memory used"), m.PCIE_RX: self.tr("PCIe RX"), m.PCIE_TX: self.tr("PCIe TX"),
                 m.POWER: self.tr("Power"), m.GPU_TEMP: self.tr("Temp"), m.SM_CLOCK: self.tr("SM clock")}
        unit = self.tr("% of link") if share else shown(metric).unit
        return f"{short.get(metric, metric)} ({unit})"

    def set_stats(self, stats: dict, t0: float, t1: float, gpu_names: dict[int, str],
                  links: dict[int, float | None] | None = None) -> None:
        """Fill the table: ``stats[gpu][metric] -> SpanStats(median, p5, p95, n, missing)``.

        ``links[gpu]`` is the PCIe link capacity per direction (bytes/s); when every GPU's link is known the
        PCIe columns show the share of the link, otherwise MB/s.
        """
        self.stats = stats
        gpus = sorted(stats)
        links = links or {}
        share = bool(gpus) and all(links.get(g) for g in gpus)
        for col, metric in enumerate(STATS_METRICS):
            self.table.setHorizontalHeaderItem(col, QTableWidgetItem(
                self._header(metric, share and metric in (m.PCIE_RX, m.PCIE_TX))))
        self.label.setText(self.tr("Span {span}: median (p5 – p95) per GPU.").format(span=self.span_text(t0, t1)))
        self.table.setRowCount(len(gpus))
        self.table.setVerticalHeaderLabels([gpu_names.get(g, str(g)) for g in gpus])
        for row, gpu in enumerate(gpus):
            for col, metric in enumerate(STATS_METRICS):
                st = stats[gpu].get(metric)
                scale = 1.0
                link = links.get(gpu)  # every GPU has a link rate when the PCIe columns are shares
                if share and link and metric in (m.PCIE_RX, m.PCIE_TX):
                    scale = 100.0 / link
                item = QTableWidgetItem(self._cell(metric, st, scale))
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                item.setToolTip(self._tip(st))
                self.table.setItem(row, col, item)

    def _cell(self, metric: str, st, scale: float = 1.0) -> str:
        if st is None or st.median is None or not math.isfinite(st.median):
            return self.tr("N/A")
        if scale != 1.0:
            return f"{st.median * scale:.0f} ({st.p5 * scale:.0f} – {st.p95 * scale:.0f})"
        return f"{fmt(metric, st.median, with_unit=False)} ({fmt(metric, st.p5, with_unit=False)} – " \
               f"{fmt(metric, st.p95, with_unit=False)})"

    def _tip(self, st) -> str:
        if st is None:
            return self.tr("N/A: this source does not report the metric.")
        text = self.tr("{n} readable samples, {k} missing").format(n=st.n, k=st.missing)
        if st.median is None:
            text = self.tr("N/A: no readable sample in the span. ") + text
        return text

    def span_text(self, t0: float, t1: float) -> str:
        return fmt_span(t0, t1)
