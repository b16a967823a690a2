"""Two saved plans side by side: their top candidates' figures, row by row, differences in bold."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpudesk.planner.classify import kind_label
from gpudesk.planner.document import PlanDocument, PlanDocumentError
from gpudesk.store.plans import SavedPlan
from gpudesk.ui.plan.charts import candidate_label, tco_item_names
from gpudesk.ui.error_text import error_text
from gpudesk.units import format_duration, format_gib, format_usd, not_available


class CompareView(QWidget):
    """Signals: backRequested(): return to the plans list."""

    backRequested = Signal()
    """Back was pressed: return to the plans list. No arguments."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.title = QLabel(self.tr("Compare two plans"), self)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setStyleSheet("font-size: 13pt; font-weight: bold;")
        self.table = QTableWidget(0, 3, self)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        back = QPushButton(self.tr("< &Back to saved plans"), self)
        back.clicked.connect(self.backRequested)
        row = QHBoxLayout()
        row.addWidget(back)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.table, 1)
        layout.addLayout(row)

    def rows_for(self, saved: SavedPlan) -> list[tuple[str, str]]:
        """(label, value text) rows of one plan, in display order (the plan document, any saved version)."""
        try:
            plan = PlanDocument.from_dict(saved.plan)
        except PlanDocumentError as exc:
            return [(self.tr("Plan"), error_text(exc))]
        top = plan.top
        yes_no: dict[object, str] = {True: self.tr("yes"), False: self.tr("no")}
        rows = [
            (self.tr("Workload kind"), kind_label(plan.workload_kind) if plan.workload_kind else not_available()),
            (self.tr("Model"), plan.model.name if plan.model else not_available()),
            (self.tr("Top candidate"), candidate_label(top) if top else not_available()),
        ]
        if top is not None:
            rows += [
                (self.tr("Interconnect"), top.interconnect_name or top.interconnect or not_available()),
                (self.tr("Server"), top.server_name or not_available()),
                (self.tr("Memory per GPU"), format_gib(top.per_gpu_memory_bytes)),
                (self.tr("Safe line"), format_gib(top.safe_line_bytes)),
                (self.tr("Headroom to the safe line"), format_gib(top.headroom_to_safe_line_bytes)),
                # A serving option's step is one decode step: its time per output token, as the sheet names it.
                (self.tr("TPOT (time per output token)"), format_duration(top.tpot_s) if top.tpot_s is not None
                 else not_available()) if top.serving else
                (self.tr("Step time"), format_duration(top.step_time_s) if top.step_time_s is not None else not_available()),
                (self.tr("Time to result"), format_duration(top.time_to_result_s)),
                (self.tr("Meets the deadline"), yes_no.get(top.meets_deadline, not_available())),
                (self.tr("Sustained QPS"), f"{top.qps_capacity:.1f}" if top.qps_capacity is not None else not_available()),
                (self.tr("3-year TCO"), self.tr("price unknown") if top.tco_3y_usd is None and (
                    top.gpu_price_unknown or top.host_price_known is False)
                 else format_usd(top.tco_3y_usd)),
                (self.tr("GPU price used"), top.price.text or not_available()),
            ]
            names = tco_item_names()
            for key, value in top.tco_breakdown_usd.items():
                rows.append((self.tr("  TCO: {0}").format(names.get(key, key.replace("_", " "))), format_usd(value)))
        rows.append((self.tr("Candidates found"), str(len(plan.candidates))))
        rows.append((self.tr("Warnings on the top candidate"), str(len(top.warnings) if top else 0)))
        rows.append((self.tr("Updated (UTC)"), saved.updated_at.replace("T", " ").replace("+00:00", "")))
        return rows

    def compare(self, left: SavedPlan, right: SavedPlan) -> None:
        self.table.setHorizontalHeaderLabels([self.tr("Figure"), left.name, right.name])
        a, b = self.rows_for(left), dict(self.rows_for(right))
        labels = [label for label, _ in a] + [label for label in b if label not in dict(a)]
        left_values = dict(a)
        self.table.setRowCount(len(labels))
        bold = QFont()
        bold.setBold(True)
        self.differences = 0
        for row, label in enumerate(labels):
            va, vb = left_values.get(label, not_available()), b.get(label, not_available())
            items = [QTableWidgetItem(label), QTableWidgetItem(va), QTableWidgetItem(vb)]
            if va != vb and not label.startswith(self.tr("Updated")):
                self.differences += 1
                items[1].setFont(bold)
                items[2].setFont(bold)
            for column, item in enumerate(items):
                item.setToolTip(item.text())  # long cells (the price source) are elided in the table
                self.table.setItem(row, column, item)
        self.title.setText(self.tr("Compare: {0} | {1}").format(left.name, right.name))
