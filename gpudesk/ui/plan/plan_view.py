"""Results page: the ranked candidates, three charts, and the warnings and rationale of the chosen one.

Shows a plan dictionary (``plan_to_dict``), so a fresh plan and a reopened saved plan look the same. Text
from the planner and the catalog is shown as plain text.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from gpudesk.planner.classify import kind_label
from gpudesk.planner.search_notes import applied_settings, search_changes
from gpudesk.planner.sheet import candidates_of, gpu_price_unknown
from gpudesk.ui.plan.accuracy_view import AccuracyLink
from gpudesk.planner.serving_cost import cost_per_million_tokens_usd
from gpudesk.planner.tco import TcoAssumptions
from gpudesk.ui.plan.charts import CostTimeScatter, LatencyThroughputChart, TcoChart, candidate_label, tco_item_names
from gpudesk.ui.plan.export_menu import ExportButton
from gpudesk.ui.plan.live_preview import part_names
from gpudesk.ui.plan.memory_chart import MemoryBarSpec, MemoryBreakdownChart
from gpudesk.ui.plan.price_editor import PriceEditor
from gpudesk.units import format_duration, format_gib, format_percent, format_usd, not_available

MAX_ROWS = 25
CHART_CANDIDATES = 6
# the profile's model.mode -> the validation set's method (gpudesk.sizing.validation.MODE_OF_METHOD, inverted)
METHOD_OF_MODE = {"train": "full", "lora": "lora", "qlora": "qlora", "inference": "inference"}


def top_candidate(plan: dict[str, Any]) -> dict[str, Any] | None:
    """The best candidate of a plan dictionary, or None."""
    found = candidates_of(plan)
    return found[0] if found else None


class ElideRightDelegate(QStyledItemDelegate):
    """Elides a sentence at its end (the table elides the middle of long names)."""

    def initStyleOption(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:  # noqa: N802
        super().initStyleOption(option, index)
        option.textElideMode = Qt.TextElideMode.ElideRight  # type: ignore[attr-defined]


def why_rank_text(c: dict[str, Any]) -> str:
    """The "Why this rank" cell: the planner's rank reason without its leading "#N: " (the Rank column has it)."""
    reason = str(c.get("rank_reason") or "")
    head, sep, rest = reason.partition(": ")
    text = rest if sep and head.startswith("#") else reason
    return text or not_available()


def _yes_no(value: Any) -> str:
    if value is True:
        return QCoreApplication.translate("PlanView", "yes")
    if value is False:
        return QCoreApplication.translate("PlanView", "no")
    return not_available()


class NumericItem(QTableWidgetItem):
    """A table cell that sorts by a number (None last) while showing formatted text."""

    def __init__(self, text: str, value: float | None):
        super().__init__(text)
        self.value = value
        self.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)

    def __lt__(self, other: QTableWidgetItem) -> bool:  # noqa: D105 - Qt sort hook
        mine = self.value if self.value is not None else float("inf")
        theirs = getattr(other, "value", None)
        return mine < (theirs if theirs is not None else float("inf"))


#: Columns of long text (interconnect, server): sized to their content up to WIDE_TEXT_MAX_WIDTH px, then elided
#: (the full text is in the row's tooltip).
WIDE_TEXT_COLUMNS = (2, 3)
WIDE_TEXT_MAX_WIDTH = 150
TCO_COLUMN = 9
CONFIGURATION_COLUMN = 1
CONFIGURATION_MAX_WIDTH = 250
COST_PER_TOKEN_COLUMN = 12
SCATTER_TAB = 2
LATENCY_TAB = 3
REJECTED_TAB = 4
WHY_COLUMN = 11
WHY_COLUMN_WIDTH = 200
#: Smallest heights (px) of the results panes, so a 1024 x 700 window shows the summary's first lines, four table
#: rows and a readable chart; the panes scroll below that.
SUMMARY_MIN_HEIGHT = 48
TABLE_MIN_HEIGHT = 130
CHARTS_MIN_HEIGHT = 220
CHART_MIN_HEIGHT = 330


def _scrolled(chart: QWidget, parent: QWidget) -> QScrollArea:
    """``chart`` in a vertical scroll area: the plot keeps CHART_MIN_HEIGHT and the caption scrolls into view."""
    area = QScrollArea(parent)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    chart.setMinimumHeight(CHART_MIN_HEIGHT)
    area.setWidget(chart)
    return area


class PlanView(QWidget):
    """The results of one plan.

    Signals:
        save_requested(): the user wants the shown plan saved (or its saved copy updated).
        edit_requested(): back to the wizard with the same answers.
        price_entered(gpu_id, usd): the user typed their own price for a GPU and wants to plan again with it.
        apply_requested(dict): write the selected option's settings (micro-batch, sharding, recomputation, tensor
            parallel) back into the wizard (profile sections, gpudesk.planner.search_notes.applied_settings).
    """

    save_requested = Signal()
    edit_requested = Signal()
    price_entered = Signal(str, float)
    apply_requested = Signal(dict)

    def __init__(self, ctx: Any, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctx = ctx
        self.plan: dict[str, Any] | None = None
        self.profile: dict[str, Any] | None = None
        self.name = ""
        self.summary = QLabel(self)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        self.summary.setStyleSheet("font-size: 11pt;")
        self.table = QTableWidget(0, 13, self)
        self._set_headers(serving=False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        # The two long-text columns (interconnect, server) are sized by the user and elided; the figures are sized
        # by their content so Memory, Step time and TCO stay on screen at 1024 px.
        for column in WIDE_TEXT_COLUMNS:
            self.table.horizontalHeader().setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header = self.table.horizontalHeader()
        for column in WIDE_TEXT_COLUMNS:  # figures first on screen, the long text after them
            header.moveSection(header.visualIndex(column), self.table.columnCount() - 2)
        # "Why this rank" beside the TCO, elided to a fixed width (the full reason is the cell's tooltip).
        header.setSectionResizeMode(WHY_COLUMN, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(CONFIGURATION_COLUMN, QHeaderView.ResizeMode.Interactive)
        header.moveSection(header.visualIndex(WHY_COLUMN), header.visualIndex(TCO_COLUMN) + 1)
        self.table.setColumnWidth(WHY_COLUMN, WHY_COLUMN_WIDTH)
        self.table.setItemDelegateForColumn(WHY_COLUMN, ElideRightDelegate(self.table))
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 8)
        self.table.setMinimumHeight(TABLE_MIN_HEIGHT)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.memory_chart = MemoryBreakdownChart(self, part_names())
        self.tco_chart = TcoChart(self, tco_item_names())
        self.scatter = CostTimeScatter(self)
        self.charts = QTabWidget(self)
        # Each chart keeps a readable plot (CHART_MIN_HEIGHT) and scrolls to its legend and caption in a small window.
        self.charts.addTab(_scrolled(self.memory_chart, self.charts), self.tr("Memory breakdown"))
        self.charts.addTab(_scrolled(self.tco_chart, self.charts), self.tr("TCO breakdown"))
        self.charts.addTab(_scrolled(self.scatter, self.charts), self.tr("Cost vs time to result"))
        self.latency = LatencyThroughputChart(self)
        self.rejected = QPlainTextEdit(self)
        self.rejected.setReadOnly(True)
        self.charts.addTab(self.rejected, self.tr("Rejected"))
        self.charts.insertTab(LATENCY_TAB, _scrolled(self.latency, self.charts), self.tr("Latency vs throughput"))
        # Every tab stays on screen at 1280 x 820 in both languages (no scroll arrows hiding "Rejected").
        self.charts.setUsesScrollButtons(False)
        self.charts.setElideMode(Qt.TextElideMode.ElideRight)
        self.accuracy = AccuracyLink(self.charts)
        self.accuracy.setText(self.tr("How &accurate is this?"))
        self.accuracy.setToolTip(self.tr("How close the memory figures come to published measured peaks"))
        self.charts.setCornerWidget(self.accuracy, Qt.Corner.TopRightCorner)
        self.details = QPlainTextEdit(self)
        self.details.setReadOnly(True)
        self.details.setPlaceholderText(self.tr("Select a candidate to see its warnings and rationale."))
        self.save_button = QPushButton(self.tr("&Save plan"), self)
        self.save_button.setToolTip(self.tr("Keep this plan in your saved plans"))
        self.save_button.clicked.connect(self.save_requested)
        self.edit_button = QPushButton(self.tr("&Change answers"), self)
        self.edit_button.setToolTip(self.tr("Back to the wizard with these answers"))
        self.edit_button.clicked.connect(self.edit_requested)
        self.apply_button = QPushButton(self.tr("Appl&y this option"), self)
        self.apply_button.setToolTip(self.tr("Write the selected option's micro-batch, sharding, recomputation and "
                                             "tensor-parallel degree into the wizard's answers"))
        self.apply_button.clicked.connect(self._apply_selected)
        self.export_button = ExportButton(ctx, self)
        self.export_button.setToolTip(self.tr("Export the selected candidate's configuration sheet"))

        lower = QSplitter(Qt.Orientation.Horizontal, self)
        lower.addWidget(self.charts)
        details_box = QWidget(lower)
        details_layout = QVBoxLayout(details_box)
        details_layout.setContentsMargins(0, 0, 0, 0)
        self.price_editor = PriceEditor(details_box)
        self.price_editor.set_store_available(getattr(ctx, "store", None) is not None)
        self.price_editor.price_entered.connect(self.price_entered)
        details_layout.addWidget(self.price_editor)
        self.rent_label = QLabel(details_box)
        self.rent_label.setTextFormat(Qt.TextFormat.PlainText)
        self.rent_label.setWordWrap(True)
        self.rent_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        details_layout.addWidget(self.rent_label)
        details_layout.addWidget(QLabel(self.tr("Warnings and rationale of the selected candidate:"), details_box))
        details_layout.addWidget(self.details, 1)
        lower.addWidget(details_box)
        lower.setStretchFactor(0, 3)
        lower.setStretchFactor(1, 2)
        summary_area = QScrollArea(self)
        summary_area.setWidgetResizable(True)
        summary_area.setFrameShape(QFrame.Shape.NoFrame)
        summary_area.setWidget(self.summary)
        summary_area.setMinimumHeight(SUMMARY_MIN_HEIGHT)
        self.charts.setMinimumHeight(CHARTS_MIN_HEIGHT)
        vertical = QSplitter(Qt.Orientation.Vertical, self)
        vertical.addWidget(summary_area)
        vertical.addWidget(self.table)
        vertical.addWidget(lower)
        vertical.setChildrenCollapsible(False)
        vertical.setStretchFactor(0, 1)
        vertical.setStretchFactor(1, 2)
        vertical.setStretchFactor(2, 3)
        vertical.setSizes([80, 200, 480])
        self.splitter = vertical
        buttons = QHBoxLayout()
        buttons.addWidget(self.edit_button)
        buttons.addWidget(self.apply_button)
        buttons.addStretch(1)
        buttons.addWidget(self.save_button)
        buttons.addWidget(self.export_button)
        # Tab follows the layout: table, charts, price editor, details, then the buttons left to right.
        chain = [self.table, self.charts, self.accuracy, self.price_editor.price, self.price_editor.apply_button, self.details,
                 self.edit_button, self.apply_button, self.save_button, self.export_button]
        for before, after in zip(chain, chain[1:]):
            QWidget.setTabOrder(before, after)
        layout = QVBoxLayout(self)
        layout.addWidget(vertical, 1)
        layout.addLayout(buttons)

    # -- content ------------------------------------------------------------------------------------------
    def _set_headers(self, serving: bool) -> None:
        """The columns a buyer judges this kind of plan by: a service by replicas x TP, sustained QPS, TTFT/TPOT
        and cost per million output tokens; a training job by step time and time to result."""
        self.serving = serving
        labels = [
            self.tr("Rank"),
            self.tr("Configuration"),
            self.tr("Interconnect"),
            self.tr("Server"),
            self.tr("Memory per GPU"),
            self.tr("Safe line"),
            self.tr("Replicas × TP") if serving else self.tr("Step time"),
            self.tr("Sustained QPS") if serving else self.tr("Time to result"),
            self.tr("Target met"),
            self.tr("3-year TCO (USD)"),
            self.tr("TTFT / TPOT") if serving else self.tr("Settings the search chose"),
            self.tr("Why this rank"),
            self.tr("USD per million output tokens"),
        ]
        self.table.setHorizontalHeaderLabels(labels)
        self.table.setColumnHidden(COST_PER_TOKEN_COLUMN, not serving)
        cost_header = self.table.horizontalHeaderItem(COST_PER_TOKEN_COLUMN)
        if cost_header is not None:
            cost_header.setToolTip(self.tr("3-year TCO over the output tokens served at the target QPS around the clock "
                                           "for the TCO years; unpriced options have none"))

    def _serving_cells(self, c: dict[str, Any]) -> dict[int, QTableWidgetItem]:
        """The serving columns of one option (replicas x TP, sustained QPS, TTFT / TPOT, cost per million tokens)."""
        tp = int(c.get("tensor_parallel") or 1)
        replicas = max(1, int(c.get("count") or tp) // tp)
        qps = c.get("qps_capacity")
        cost = self.cost_per_million(c)
        return {
            6: QTableWidgetItem(self.tr("{0} × TP{1}").format(replicas, tp)),
            7: NumericItem(not_available() if qps is None else self.tr("{0:.1f} req/s").format(float(qps)), qps),
            10: QTableWidgetItem(f"{format_duration(c.get('ttft_s'))} / {format_duration(c.get('tpot_s'))}"),
            COST_PER_TOKEN_COLUMN: NumericItem(self.tr("price unknown") if cost is None and gpu_price_unknown(c)
                                               else not_available() if cost is None else f"${cost:,.2f}", cost),
        }

    def cost_per_million(self, c: dict[str, Any]) -> float | None:
        workload = (self.profile or {}).get("workload")
        tco = (self.profile or {}).get("tco")
        workload = workload if isinstance(workload, dict) else {}
        years = float((tco if isinstance(tco, dict) else {}).get("years") or TcoAssumptions().years)
        return cost_per_million_tokens_usd(c.get("tco_3y_usd"), workload.get("target_qps"), workload.get("output_tokens"),
                                           years)

    def show_plan(self, plan: dict[str, Any], name: str = "", profile: dict[str, Any] | None = None) -> None:
        """Fill the page from a plan dictionary and the profile it was planned from."""
        self.plan = plan
        self.profile = profile
        self.name = name or str(plan.get("name") or "")
        model = (profile or {}).get("model")
        self.accuracy.set_method(METHOD_OF_MODE.get(str(model.get("mode") or "train")) if isinstance(model, dict)
                                 else None)
        candidates = candidates_of(plan)
        serving = any(c.get("qps_capacity") is not None for c in candidates)
        self._set_headers(serving)
        self.summary.setText(self.summary_text(plan, candidates))
        self.table.setSortingEnabled(False)
        self.table.setRowCount(min(len(candidates), MAX_ROWS))
        for row, c in enumerate(candidates[:MAX_ROWS]):
            meets = c.get("meets_deadline") if c.get("qps_capacity") is None else c.get("meets_qps")
            cells: list[QTableWidgetItem] = [
                NumericItem(str(row + 1), row + 1),
                QTableWidgetItem(candidate_label(c)),
                QTableWidgetItem(str(c.get("interconnect_name") or c.get("interconnect") or not_available())),
                QTableWidgetItem(str(c.get("server_name") or c.get("server_id") or not_available())),  # full name in tooltip
                NumericItem(format_gib(c.get("per_gpu_memory_bytes")), c.get("per_gpu_memory_bytes")),
                NumericItem(format_gib(c.get("safe_line_bytes")), c.get("safe_line_bytes")),
                NumericItem(format_duration(c.get("step_time_s")), c.get("step_time_s")),
                NumericItem(format_duration(c.get("time_to_result_s")), c.get("time_to_result_s")),
                QTableWidgetItem(_yes_no(meets)),
                NumericItem(self.tco_text(c), c.get("tco_3y_usd")),
                QTableWidgetItem(self.settings_text(c)),
                QTableWidgetItem(why_rank_text(c)),
                QTableWidgetItem(""),
            ]
            if serving:
                for column, item in self._serving_cells(c).items():
                    cells[column] = item
            changes = search_changes(c, profile)
            if changes:  # the search changed an answer: say so where the memory figure is
                cells[4].setText(cells[4].text() + " *")
            tip = "\n".join([str(c.get("interconnect_name") or ""), str(c.get("server_name") or ""), str(c.get("rank_reason") or "")]
                            + [self.tr("* The search changed: {0}").format("; ".join(changes))] * bool(changes)
                            + [str(w) for w in c.get("warnings") or []]).strip()
            for column, item in enumerate(cells):
                item.setData(Qt.ItemDataRole.UserRole, row)
                item.setToolTip(tip)
                self.table.setItem(row, column, item)
        self.table.setSortingEnabled(True)
        self.table.sortItems(0, Qt.SortOrder.AscendingOrder)
        for column in WIDE_TEXT_COLUMNS:
            self.table.resizeColumnToContents(column)
            self.table.setColumnWidth(column, min(self.table.columnWidth(column), WIDE_TEXT_MAX_WIDTH))
        # The configuration name is elided in the middle past CONFIGURATION_MAX_WIDTH (its full name is the
        # tooltip), so "Why this rank" stays on screen at 1280 px.
        self.table.resizeColumnToContents(CONFIGURATION_COLUMN)
        self.table.setColumnWidth(CONFIGURATION_COLUMN,
                                  min(self.table.columnWidth(CONFIGURATION_COLUMN), CONFIGURATION_MAX_WIDTH))
        shown = candidates[:CHART_CANDIDATES]
        self.memory_chart.set_bars([self.memory_bar(c) for c in shown])
        self.tco_chart.set_candidates(shown)
        deadline = (profile or {}).get("workload", {}).get("deadline_s") if isinstance((profile or {}).get("workload"), dict) else None
        self.scatter.set_candidates(candidates[:MAX_ROWS], deadline)
        workload = (profile or {}).get("workload") if isinstance((profile or {}).get("workload"), dict) else {}
        workload = workload if isinstance(workload, dict) else {}
        self.latency.set_candidates(candidates[:MAX_ROWS], workload.get("target_qps"), workload.get("ttft_target_s"),
                                    workload.get("tpot_target_s"))
        # a service is judged by latency against throughput, a training job by cost against time to result
        self.charts.setTabVisible(SCATTER_TAB, not serving)
        self.charts.setTabVisible(LATENCY_TAB, serving)
        if self.charts.currentIndex() in (SCATTER_TAB, LATENCY_TAB):
            self.charts.setCurrentIndex(0)
        self.export_button.set_source(plan, self.name, profile, 0)
        rejected = plan.get("rejected") or []
        self.charts.setTabText(REJECTED_TAB, self.tr("Rejected ({0})").format(len(rejected)))
        self.rejected.setPlainText(self.rejections_text(plan))
        if candidates:
            self.table.selectRow(0)
            # Row 0 may have been selected before the re-plan: no selection change fires then, and the warnings
            # and rationale pane would keep the previous plan's text.
            self._selection_changed()
        else:
            self.price_editor.show_candidate(None)
            self.rent_label.clear()
            plan_warnings = [f"⚠ {w}" for w in plan.get("warnings") or []]
            self.details.setPlainText("\n\n".join([*plan_warnings, self.rejections_text(plan)]))

    def layout_text(self, c: dict[str, Any]) -> str:
        """How the memory is laid out: ``zero3, recompute full``; a single GPU has no sharding."""
        sharding = c.get("sharding") or (self.tr("single GPU") if c.get("count") == 1 else not_available())
        return self.tr("{0}, recompute {1}").format(sharding, c.get("recompute") or not_available())

    def settings_text(self, c: dict[str, Any]) -> str:
        """The settings the option is computed with: layout, then what the search changed against the answers."""
        changes = search_changes(c, self.profile)
        layout = self.layout_text(c)
        return f"{layout}; {'; '.join(changes)}" if changes else layout

    def _apply_selected(self) -> None:
        if self.plan is None:
            return
        candidates = candidates_of(self.plan)
        index = self.selected_index()
        if 0 <= index < len(candidates):
            self.apply_requested.emit(applied_settings(candidates[index]))

    def tco_text(self, c: dict[str, Any]) -> str:
        """The TCO cell: dollars, or "price unknown" when the GPU has no price (never a made-up figure)."""
        if c.get("tco_3y_usd") is None and gpu_price_unknown(c):
            return self.tr("price unknown")
        return format_usd(c.get("tco_3y_usd"))

    def memory_bar(self, c: dict[str, Any]) -> MemoryBarSpec:
        breakdown = c.get("per_gpu_memory_breakdown_bytes") or {}
        return MemoryBarSpec(candidate_label(c), list(breakdown.items()), c.get("usable_memory_bytes"), c.get("safe_line_bytes"))

    def summary_text(self, plan: dict[str, Any], candidates: list[dict[str, Any]]) -> str:
        model = plan.get("model") or {}
        memory = plan.get("memory") or {}
        lines = [
            self.tr("{0} — workload kind: {1}. Model: {2} ({3} B parameters{4}). Before the search (the answers as given, one GPU, no sharding) the job needs {5}; each option below is computed with the settings the search chose.").format(
                self.name or self.tr("Plan"),
                kind_label(str(plan["workload_kind"])) if plan.get("workload_kind") else not_available(),
                model.get("name", not_available()),
                f"{model['params'] / 1e9:.2f}" if isinstance(model.get("params"), (int, float)) else not_available(),
                self.tr(", shape guessed") if model.get("shape_is_guess") else "",
                format_gib(memory.get("total_bytes")),
            )
        ]
        warnings = [str(w) for w in plan.get("warnings") or []]
        raw_binding = plan.get("binding")
        binding: dict[str, Any] = raw_binding if isinstance(raw_binding, dict) else {}
        binding_text = " ".join([str(binding.get("text") or "")] + [str(c.get("text") or "") for c in binding.get("changes") or []]
                                ).strip() if binding else ""
        fitting = [c for c in candidates if c.get("fits", True)]
        if binding_text and (not candidates or not fitting):
            # the planner names the control that rules every option out and the smallest change to it
            lines.append(self.tr("No configuration fits this requirement: {0}").format(binding_text))
            warnings_left = [w for w in warnings if w != binding_text]
        elif not candidates and warnings:
            # the planner's first warning names what binds (e.g. the "Largest GPU count to consider" control)
            lines.append(self.tr("No configuration fits this requirement: {0}").format(warnings[0]))
            warnings_left = warnings[1:]
        elif not candidates:
            lines.append(self.tr("No configuration fits this requirement; see the reasons below."))
            warnings_left = warnings
        else:
            warnings_left = warnings
            top = candidates[0]
            if top.get("qps_capacity") is not None:
                workload = (self.profile or {}).get("workload")
                target = (workload if isinstance(workload, dict) else {}).get("target_qps")
                tp = int(top.get("tensor_parallel") or 1)
                cost = self.cost_per_million(top)
                lines.append(self.tr("Top candidate: {0} as {1} replica(s) × TP{2}, sustains {3:.1f} req/s (target {4}), "
                                     "TTFT {5}, TPOT {6}, {7} per GPU against a safe line of {8}, 3-year TCO {9}, {10} per "
                                     "million output tokens.").format(
                    candidate_label(top), max(1, int(top.get("count") or tp) // tp), tp, float(top["qps_capacity"]),
                    not_available() if target is None else f"{float(target):g}", format_duration(top.get("ttft_s")),
                    format_duration(top.get("tpot_s")), format_gib(top.get("per_gpu_memory_bytes")),
                    format_gib(top.get("safe_line_bytes")), self.tco_text(top),
                    self.tr("price unknown") if cost is None else f"${cost:,.2f}"))
            else:
                lines.append(
                    self.tr("Top candidate: {0} over {1}, {2} per GPU against a safe line of {3}, time to result {4}, 3-year TCO {5}.").format(
                        candidate_label(top),
                        top.get("interconnect_name") or top.get("interconnect"),
                        format_gib(top.get("per_gpu_memory_bytes")),
                        format_gib(top.get("safe_line_bytes")),
                        format_duration(top.get("time_to_result_s")),
                        self.tco_text(top),
                    )
                )
            changes = search_changes(top, self.profile)
            if changes:
                lines.append(self.tr("The search changed your answers for it: {0}. “Apply this option” writes them into "
                                     "the wizard.").format("; ".join(changes)))
            unpriced = list(dict.fromkeys(str(c.get("gpu_name") or c.get("gpu_id")) for c in candidates if gpu_price_unknown(c)))
            if unpriced:
                lines.append(self.tr("Price unknown for {0} (ranked after priced options): select one and enter your quote "
                                     "on the right, or in the Catalog tab.").format(", ".join(unpriced[:4])
                                                                                    + (", …" if len(unpriced) > 4 else "")))
        over_limit = bool(binding.get("field") == "operations.max_gpus" and plan.get("closest"))
        if over_limit:
            nearest = "; ".join(
                self.tr("{0} × {1}, time to result {2}").format(f"{c.get('count'):,}", c.get("gpu_id"),
                                                                 format_duration(c.get("time_to_result_s")))
                for c in (plan.get("closest") or [])[:3]
            )
            lines.append(self.tr("Closest options beyond the GPU-count limit: {0}.").format(nearest))
        elif plan.get("deadline_met_by_any") is False:
            closest = plan.get("closest") or []
            misses = "; ".join(
                self.tr("{0} × {1} late by {2}").format(c.get("count"), c.get("gpu_id"), format_duration(c.get("deadline_miss_s")))
                for c in closest[:3]
            )
            lines.append(self.tr("No candidate meets the deadline. Closest: {0}.").format(misses or not_available()))
        if warnings_left:
            lines.append(self.tr("⚠ %n plan warning(s), listed first on the right: ", "", len(warnings_left))
                         + warnings_left[0])
        self.summary.setToolTip("\n".join(warnings))
        return "\n".join(lines)

    def rejections_text(self, plan: dict[str, Any]) -> str:
        rejected = plan.get("rejected") or []
        if not rejected:
            return self.tr("No configuration was rejected.")
        lines = [self.tr("Rejected configurations and why (each reason names its rule or datasheet):")]
        for r in rejected[:200]:
            name = str(r.get("gpu_name") or r.get("gpu_id"))
            what = f"{r['count']} × {name}" if r.get("count") else self.tr("{0} (any count)").format(name)
            where = f" ({r['server_id']})" if r.get("server_id") else ""
            lines.append(f"• {what}{where}: " + "; ".join(str(x) for x in r.get("reasons") or []))
        return "\n".join(lines)

    def rent_text(self, c: dict[str, Any]) -> str:
        """Rent vs buy of a candidate: the same GPUs rented at the lowest sourced on-demand rate."""
        rent = c.get("rent")
        if not isinstance(rent, dict) or not rent.get("text"):
            return self.tr("Rent vs buy: no public on-demand cloud rate for this GPU.")
        return self.tr("Rent vs buy: {0}.").format(rent["text"])

    def selected_index(self) -> int:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return 0
        item = self.table.item(rows[0].row(), 0)
        return int(item.data(Qt.ItemDataRole.UserRole)) if item is not None else 0

    def _selection_changed(self) -> None:
        if self.plan is None:
            return
        candidates = candidates_of(self.plan)
        index = self.selected_index()
        if not 0 <= index < len(candidates):
            return
        c = candidates[index]
        self.export_button.set_source(self.plan, self.name, self.profile, index)
        self.price_editor.show_candidate(c)
        self.rent_label.setText(self.rent_text(c))
        lines = []
        if c.get("rank_reason"):
            lines += [self.tr("Ranking: {0}").format(c["rank_reason"]), ""]
        plan_warnings = [str(w) for w in self.plan.get("warnings") or []]
        if plan_warnings:
            lines.append(self.tr("Plan warnings:"))
            lines += [f"  ⚠ {w}" for w in plan_warnings]
            lines.append("")
        lines += [candidate_label(c) + f" — {c.get('server_name') or c.get('server_id')}", ""]
        lines.append(self.tr("Sharding: {0}; recomputation: {1}; exposed communication: {2}").format(
            c.get("sharding") or not_available(), c.get("recompute") or not_available(), format_percent(c.get("comm_share"), digits=1)))
        if c.get("qps_capacity") is not None:
            lines.append(self.tr("Sustained QPS: {0:.1f}").format(float(c["qps_capacity"])))
        lines.append("")
        warnings = c.get("warnings") or []
        lines.append(self.tr("Warnings:") if warnings else self.tr("Warnings: none"))
        lines += [f"  ⚠ {w}" for w in warnings]
        lines.append("")
        lines.append(self.tr("Rationale:"))
        for step in c.get("rationale") or []:
            if isinstance(step, dict):
                lines.append(f"  • {step.get('decision', '')}")
                if step.get("source"):
                    lines.append(f"      ↳ {step['source']}")
            else:
                lines.append(f"  • {step}")
        self.details.setPlainText("\n".join(lines))
        self.details.verticalScrollBar().setValue(0)
