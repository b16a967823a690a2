"""The serving side of a mixed plan (training share below 1 with a QPS target): the options that serve the same
model at the target QPS, beside the training job's results (gpudesk.planner.mixed). Text is plain."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpudesk.planner.document import PlanDocument, PlanOption
from gpudesk.planner.serving_cost import cost_per_million_tokens_usd
from gpudesk.ui.plan.charts import LatencyThroughputChart, candidate_label
from gpudesk.units import format_duration, format_gib, format_usd, not_available

#: Serving options listed (the best first, as the planner ranked them).
SERVING_ROWS = 10


class ServingSide(QWidget):
    """A caption naming the target, a table (option, replicas x TP, sustained QPS, TTFT / TPOT, memory per GPU,
    3-year TCO, USD per million output tokens) and below it the serving options' latency against throughput."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.caption = QLabel(self)
        self.caption.setWordWrap(True)
        self.table = QTableWidget(0, 7, self)
        self.table.setHorizontalHeaderLabels([
            self.tr("Configuration"), self.tr("Replicas × TP"), self.tr("Sustained QPS"), self.tr("TTFT / TPOT"),
            self.tr("Memory per GPU"), self.tr("3-year TCO (USD)"), self.tr("USD per million output tokens")])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.latency = LatencyThroughputChart(self)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.table)
        split.addWidget(self.latency)
        split.setChildrenCollapsible(False)
        split.setSizes([160, 260])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.caption)
        layout.addWidget(split, 1)

    def show_side(self, side: PlanDocument | None) -> None:
        """Fill from the serving side's plan document (None: empty)."""
        options = side.candidates[:SERVING_ROWS] if side is not None else []
        self.table.setRowCount(len(options))
        if side is None:
            self.caption.clear()
            self.latency.set_candidates([])
            return
        w = side.requirement.workload if side.requirement else None
        self.latency.set_candidates(side.candidates[:25], side.target_qps, w.ttft_target_s if w else None,
                                    w.tpot_target_s if w else None)
        target = side.target_qps
        self.caption.setText(self.tr("The same model served at {0} requests/s, sized on its own GPUs (the training "
                                     "options are in the table above).").format(not_available() if target is None else f"{target:g}")
                             if options else self.tr("No configuration serves the model at the target QPS; see the "
                                                     "plan warnings."))
        for row, option in enumerate(options):
            cost = cost_per_million_tokens_usd(option.tco_3y_usd, target, side.output_tokens, side.tco_years)
            cells = [candidate_label(option), self.layout_text(option),
                     not_available() if option.qps_capacity is None else self.tr("{0:.1f} req/s").format(option.qps_capacity),
                     f"{format_duration(option.ttft_s)} / {format_duration(option.tpot_s)}",
                     format_gib(option.per_gpu_memory_bytes),
                     self.tr("price unknown") if option.tco_3y_usd is None and (
                         option.gpu_price_unknown or option.host_price_known is False)
                     else format_usd(option.tco_3y_usd),
                     not_available() if cost is None else f"${cost:,.2f}"]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(option.rank_reason or "")
                self.table.setItem(row, column, item)

    def layout_text(self, option: PlanOption) -> str:
        tp = option.tensor_parallel or 1
        return self.tr("{0} × TP{1}").format(option.replicas or max(1, option.count // tp), tp)
