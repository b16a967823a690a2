"""Results page: the ranked candidates, three charts, and the warnings and rationale of the chosen one.

Shows the plan document (gpudesk.planner.document.PlanDocument; a saved plan's JSON of any version reads as
one), so a fresh plan and a reopened saved plan look the same. Text from the planner and the catalog is shown as
plain text.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication, QModelIndex, QPersistentModelIndex, QPoint, QRect, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
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
from gpudesk.planner.document import PlanDocument, PlanOption, as_document
from gpudesk.planner.requirement import Requirement
from gpudesk.planner.serve_launch import is_serving_option, launch_inputs
from gpudesk.ui.plan.accuracy_view import AccuracyLink
from gpudesk.planner.serving_cost import cost_per_million_tokens_usd
from gpudesk.planner.text_language import prose_language_note
from gpudesk.ui.plan.charts import CostTimeScatter, LatencyThroughputChart, TcoChart, candidate_label, tco_item_names
from gpudesk.ui.plan.export_menu import ExportButton
from gpudesk.ui.plan.live_preview import part_names
from gpudesk.ui.plan.memory_chart import MemoryBarSpec, MemoryBreakdownChart
from gpudesk.ui.plan.price_editor import PriceEditor
from gpudesk.ui.plan.recheck_notice import RecheckNotice
from gpudesk.ui.plan.serving_side import ServingSide
from gpudesk.units import format_duration, format_gib, format_percent, format_usd, not_available

MAX_ROWS = 25
CHART_CANDIDATES = 6
# the profile's model.mode -> the validation set's method (gpudesk.sizing.validation.MODE_OF_METHOD, inverted)
METHOD_OF_MODE = {"train": "full", "lora": "lora", "qlora": "qlora", "inference": "inference"}


def top_candidate(plan: PlanDocument | dict[str, Any]) -> PlanOption | None:
    """The best option of a plan, or None."""
    return as_document(plan).top


class ElideRightDelegate(QStyledItemDelegate):
    """Elides a sentence at its end (the table elides the middle of long names)."""

    def initStyleOption(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:  # noqa: N802
        super().initStyleOption(option, index)
        option.textElideMode = Qt.TextElideMode.ElideRight  # type: ignore[attr-defined]


def why_rank_text(c: PlanOption) -> str:
    """The "Why this rank" cell: the planner's rank reason without its leading "#N: " (the Rank column has it)."""
    reason = c.rank_reason or ""
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
SERVING_SIDE_TAB = 5
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
        saveRequested(): the user wants the shown plan saved (or its saved copy updated).
        editRequested(): back to the wizard with the same answers.
        priceEntered(gpu_id, usd): the user typed their own price for a GPU and wants to plan again with it.
        applyRequested(dict): write the selected option's settings (micro-batch, sharding, recomputation, tensor
            parallel) back into the wizard (profile sections, gpudesk.planner.search_notes.applied_settings).
    """

    saveRequested = Signal()
    """Save was pressed: save the shown plan (or update its saved copy). No arguments."""
    editRequested = Signal()
    """Edit was pressed: back to the wizard with the same answers. No arguments."""
    priceEntered = Signal(str, float)
    """The user typed their own price for a GPU: the GPU id and the price (USD per GPU)."""
    applyRequested = Signal(dict)
    """Apply was pressed: the selected option's settings as profile sections, for the wizard."""

    def __init__(self, ctx: Any, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctx = ctx
        self.plan: PlanDocument | None = None
        self.profile: dict[str, Any] | None = None
        self.req: Requirement | None = None
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
        # A mixed plan (training share below 1 with a QPS target) also shows its serving side.
        self.serving_side = ServingSide(self.charts)
        self.charts.addTab(self.serving_side, self.tr("Serving side"))
        self.charts.setTabVisible(SERVING_SIDE_TAB, False)
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
        self.save_button.clicked.connect(self.saveRequested)
        self.edit_button = QPushButton(self.tr("&Change answers"), self)
        self.edit_button.setToolTip(self.tr("Back to the wizard with these answers"))
        self.edit_button.clicked.connect(self.editRequested)
        self.apply_button = QPushButton(self.tr("Appl&y this option"), self)
        self.apply_button.setToolTip(self.tr("Write the selected option's micro-batch, sharding, recomputation and "
                                             "tensor-parallel degree into the wizard's answers"))
        self.apply_button.clicked.connect(self._apply_selected)
        self.launch_button = QPushButton(self.tr("Will it &fit in an engine?…"), self)
        self.launch_button.setToolTip(self.tr("Open \"Will it fit?\" with the selected serving option's model, GPU, "
                                              "tensor-parallel degree, context and concurrency, in the engine the "
                                              "answers name"))
        self.launch_button.setEnabled(False)
        self.launch_button.clicked.connect(self.open_launch_check)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._table_menu)
        self.export_button = ExportButton(ctx, self)
        self.export_button.setToolTip(self.tr("Export the selected candidate's configuration sheet"))

        lower = QSplitter(Qt.Orientation.Horizontal, self)
        lower.addWidget(self.charts)
        details_box = QWidget(lower)
        details_layout = QVBoxLayout(details_box)
        details_layout.setContentsMargins(0, 0, 0, 0)
        self.price_editor = PriceEditor(details_box)
        self.price_editor.set_store_available(getattr(ctx, "store", None) is not None)
        self.price_editor.priceEntered.connect(self.priceEntered)
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
        self.summary_area = summary_area
        self._decision_text = ""
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
        buttons.addWidget(self.launch_button)
        buttons.addStretch(1)
        buttons.addWidget(self.save_button)
        buttons.addWidget(self.export_button)
        # A reopened saved plan whose figures this gpudesk computes differently (the Plan tab fills it in).
        self.recheck_notice = RecheckNotice(self)
        # Tab follows the layout: the recheck notice's buttons (when shown), table, charts, price editor, details, then the buttons left to right.
        chain = [self.recheck_notice.use_button, self.recheck_notice.keep_button, self.table, self.charts, self.accuracy, self.price_editor.price, self.price_editor.apply_button, self.details,
                 self.edit_button, self.apply_button, self.launch_button, self.save_button, self.export_button]
        for before, after in zip(chain, chain[1:]):
            QWidget.setTabOrder(before, after)
        layout = QVBoxLayout(self)
        layout.addWidget(self.recheck_notice)
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

    def _serving_cells(self, c: PlanOption) -> dict[int, QTableWidgetItem]:
        """The serving columns of one option (replicas x TP, sustained QPS, TTFT / TPOT, cost per million tokens)."""
        tp = c.tensor_parallel or 1
        replicas = c.replicas or max(1, (c.count or tp) // tp)
        qps = c.qps_capacity
        cost = self.cost_per_million(c)
        return {
            6: QTableWidgetItem(self.tr("{0} × TP{1}").format(replicas, tp)),
            7: NumericItem(not_available() if qps is None else self.tr("{0:.1f} req/s").format(qps), qps),
            10: QTableWidgetItem(f"{format_duration(c.ttft_s)} / {format_duration(c.tpot_s)}"),
            COST_PER_TOKEN_COLUMN: NumericItem(self.tr("price unknown") if cost is None and c.gpu_price_unknown
                                               else not_available() if cost is None else f"${cost:,.2f}", cost),
        }

    def cost_per_million(self, c: PlanOption) -> float | None:
        req = self.req
        if req is None:
            return None
        return cost_per_million_tokens_usd(c.tco_3y_usd, req.workload.target_qps, req.workload.output_tokens,
                                           req.tco.years)

    def show_plan(self, plan: PlanDocument | dict[str, Any], name: str = "", profile: dict[str, Any] | None = None) -> None:
        """Fill the page from a plan document (or a saved plan's dictionary) and the profile it was planned from."""
        doc = as_document(plan)
        self.plan = doc
        self.profile = profile
        self.req = doc.requirement
        self.name = name or doc.name
        self.accuracy.set_method(METHOD_OF_MODE.get(doc.mode or "train") if doc.requirement else None)
        candidates = doc.candidates
        serving = any(c.serving for c in candidates)
        self._set_headers(serving)
        self.summary.setText(self.summary_text(doc, candidates))
        QTimer.singleShot(0, self.fit_summary)
        self.table.setSortingEnabled(False)
        self.table.setRowCount(min(len(candidates), MAX_ROWS))
        for row, c in enumerate(candidates[:MAX_ROWS]):
            meets = c.meets_deadline if not c.serving else c.meets_qps
            cells: list[QTableWidgetItem] = [
                NumericItem(str(row + 1), row + 1),
                QTableWidgetItem(candidate_label(c)),
                QTableWidgetItem(str(c.interconnect_name or c.interconnect or not_available())),
                QTableWidgetItem(str(c.server_name or c.server_id or not_available())),  # full name in tooltip
                NumericItem(format_gib(c.per_gpu_memory_bytes), c.per_gpu_memory_bytes),
                NumericItem(format_gib(c.safe_line_bytes), c.safe_line_bytes),
                NumericItem(format_duration(c.step_time_s), c.step_time_s),
                NumericItem(format_duration(c.time_to_result_s), c.time_to_result_s),
                QTableWidgetItem(_yes_no(meets)),
                NumericItem(self.tco_text(c), c.tco_3y_usd),
                QTableWidgetItem(self.settings_text(c)),
                QTableWidgetItem(why_rank_text(c)),
                QTableWidgetItem(""),
            ]
            if serving:
                for column, item in self._serving_cells(c).items():
                    cells[column] = item
            changes = search_changes(c, self.req)
            if changes:  # the search changed an answer: say so where the memory figure is
                cells[4].setText(cells[4].text() + " *")
            tip = "\n".join([c.interconnect_name or "", c.server_name or "", c.rank_reason or ""]
                            + [self.tr("* The search changed: {0}").format("; ".join(changes))] * bool(changes)
                            + list(c.warnings)).strip()
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
        self.scatter.set_candidates(candidates[:MAX_ROWS], doc.deadline_s)
        workload = doc.requirement.workload if doc.requirement else None
        side = doc.serving_side
        self.latency.set_candidates(candidates[:MAX_ROWS], workload.target_qps if workload else None,
                                    workload.ttft_target_s if workload else None,
                                    workload.tpot_target_s if workload else None)
        self.serving_side.show_side(side)  # a mixed plan: its serving options and their latency chart, one tab
        # a service is judged by latency against throughput, a training job by cost against time to result, a
        # mixed plan by both
        self.charts.setTabVisible(SCATTER_TAB, not serving)
        self.charts.setTabVisible(LATENCY_TAB, serving)
        self.charts.setTabVisible(SERVING_SIDE_TAB, side is not None)
        if self.charts.currentIndex() in (SCATTER_TAB, LATENCY_TAB, SERVING_SIDE_TAB):
            self.charts.setCurrentIndex(0)
        self.export_button.set_source(doc, self.name, profile, 0)
        self.charts.setTabText(REJECTED_TAB, self.tr("Rejected ({0})").format(len(doc.rejected)))
        self.rejected.setPlainText(self.rejections_text(doc))
        if candidates:
            self.table.selectRow(0)
            # Row 0 may have been selected before the re-plan: no selection change fires then, and the warnings
            # and rationale pane would keep the previous plan's text.
            self._selection_changed()
        else:
            self.price_editor.show_candidate(None)
            self.rent_label.clear()
            plan_warnings = [f"⚠ {w}" for w in doc.warnings]
            self.details.setPlainText("\n\n".join([*plan_warnings, self.rejections_text(doc)]))

    def layout_text(self, c: PlanOption) -> str:
        """How the memory is laid out: ``zero3, recompute full``; a single GPU has no sharding."""
        sharding = c.sharding or (self.tr("single GPU") if c.count == 1 else not_available())
        return self.tr("{0}, {1}").format(sharding, self.recompute_text(c.recompute))

    def recompute_text(self, value: str | None) -> str:
        """The recomputation the search chose (model.recompute: none / selective / full) in the UI language."""
        return {"none": self.tr("no recompute"), "selective": self.tr("selective recompute"),
                "full": self.tr("full recompute")}.get(value or "", value or not_available())

    def settings_text(self, c: PlanOption) -> str:
        """The settings the option is computed with: layout, then what the search changed against the answers."""
        changes = search_changes(c, self.req)
        layout = self.layout_text(c)
        return f"{layout}; {'; '.join(changes)}" if changes else layout

    def _apply_selected(self) -> None:
        if self.plan is None:
            return
        option = self.plan.option(self.selected_index())
        if option is not None:
            self.applyRequested.emit(applied_settings(option))

    def tco_text(self, c: PlanOption) -> str:
        """The TCO cell: dollars, or "price unknown" when the GPU has no price (never a made-up figure)."""
        if c.tco_3y_usd is None and (c.gpu_price_unknown or c.host_price_known is False):  # as the sheet says
            return self.tr("price unknown")
        return format_usd(c.tco_3y_usd)

    def memory_bar(self, c: PlanOption) -> MemoryBarSpec:
        return MemoryBarSpec(candidate_label(c), list(c.per_gpu_memory_breakdown_bytes.items()), c.usable_memory_bytes,
                             c.safe_line_bytes)

    def fit_summary(self) -> None:
        """Grow the header so its decision lines (the plan's title, the top candidate and the serving side) show
        without scrolling at the window's width, taking the height from the table, then the charts, never below
        their minimums; the context lines after them may scroll."""
        sizes = self.splitter.sizes()
        width = self.summary_area.viewport().width() - 2
        if not self._decision_text or width < 100 or len(sizes) != 3 or sum(sizes) <= 0:
            return
        rect = self.summary.fontMetrics().boundingRect(QRect(0, 0, width, 100000), int(Qt.TextFlag.TextWordWrap),
                                                       self._decision_text)
        needed = rect.height() + 2 * self.summary.fontMetrics().lineSpacing() // 3
        if sizes[0] < needed:
            want = needed - sizes[0]
            from_table = min(want, max(0, sizes[1] - TABLE_MIN_HEIGHT))
            from_lower = min(want - from_table, max(0, sizes[2] - CHARTS_MIN_HEIGHT - 40))
            sizes = [sizes[0] + from_table + from_lower, sizes[1] - from_table, sizes[2] - from_lower]
        self.splitter.setSizes(self._whole_lines(sizes, width))

    def _whole_lines(self, sizes: list[int], width: int) -> list[int]:
        """``sizes`` with the summary pane ending between two lines when its text scrolls (qa51 D16: a pane of 3.5
        lines cut the fourth in half under the table's header): the part of a line is given to the table, or, when
        that would take the pane below its minimum, a whole line is taken from the table."""
        spacing = self.summary.fontMetrics().lineSpacing()
        full = self.summary.heightForWidth(width)
        if spacing <= 0 or full <= sizes[0]:
            return sizes  # all of the text shows: nothing is cut
        part = sizes[0] % spacing
        if not part:
            return sizes
        if sizes[0] - part >= SUMMARY_MIN_HEIGHT:
            return [sizes[0] - part, sizes[1] + part, sizes[2]]
        grow = spacing - part
        if sizes[1] - grow >= TABLE_MIN_HEIGHT:
            return [sizes[0] + grow, sizes[1] - grow, sizes[2]]
        return sizes

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 (Qt)
        super().resizeEvent(event)
        self.fit_summary()

    def showEvent(self, event: Any) -> None:  # noqa: N802 (Qt)
        super().showEvent(event)
        QTimer.singleShot(0, self.fit_summary)

    def summary_text(self, plan: PlanDocument, candidates: list[PlanOption]) -> str:
        """The header: the title, then the decision lines (top candidate, unpriced options, serving side, what
        binds), then the context (the job before the search, warnings); :meth:`fit_summary` keeps the decision lines
        in view."""
        model = plan.model
        lines = [
            self.tr("{0} — workload kind: {1}. Model: {2} ({3} B parameters{4}).").format(
                self.name or self.tr("Plan"),
                kind_label(plan.workload_kind) if plan.workload_kind else not_available(),
                model.name if model else not_available(),
                f"{model.params / 1e9:.2f}" if model and model.params is not None else not_available(),
                self.tr(", shape guessed") if model and model.shape_is_guess else "",
            )
        ]
        context = [self.tr("Before the search (the answers as given, one GPU, no sharding) the job needs {0}; each option "
                           "below is computed with the settings the search chose.").format(
            format_gib(plan.memory.need_bytes if plan.memory else None))]
        warnings = list(plan.warnings)
        binding = plan.binding
        binding_text = " ".join([binding.text] + [c.text for c in binding.changes]).strip() if binding else ""
        fitting = [c for c in candidates if c.fits is not False]
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
            if top.serving and top.qps_capacity is not None:
                target = plan.target_qps
                tp = top.tensor_parallel or 1
                cost = self.cost_per_million(top)
                lines.append(self.tr("Top candidate: {0} as {1} replica(s) × TP{2}, sustains {3:.1f} req/s (target {4}), "
                                     "TTFT {5}, TPOT {6}, {7} per GPU against a safe line of {8}, 3-year TCO {9}, {10} per "
                                     "million output tokens.").format(
                    candidate_label(top), top.replicas or max(1, (top.count or tp) // tp), tp, top.qps_capacity,
                    not_available() if target is None else f"{target:g}", format_duration(top.ttft_s),
                    format_duration(top.tpot_s), format_gib(top.per_gpu_memory_bytes),
                    format_gib(top.safe_line_bytes), self.tco_text(top),
                    self.tr("price unknown") if cost is None else f"${cost:,.2f}"))
            else:
                lines.append(
                    self.tr("Top candidate: {0} over {1}, {2} per GPU against a safe line of {3}, time to result {4}, 3-year TCO {5}.").format(
                        candidate_label(top),
                        top.interconnect_name or top.interconnect,
                        format_gib(top.per_gpu_memory_bytes),
                        format_gib(top.safe_line_bytes),
                        format_duration(top.time_to_result_s),
                        self.tco_text(top),
                    )
                )
            changes = search_changes(top, self.req)
            if changes:
                context.append(self.tr("The search changed your answers for it: {0}. “Apply this option” writes them into "
                                     "the wizard.").format("; ".join(changes)))
            unpriced = list(dict.fromkeys(c.name for c in candidates if c.gpu_price_unknown))
            if unpriced:  # a decision line: it changes the ranking, so fit_summary keeps it in view, wrapped whole
                lines.append(self.tr("Price unknown for {0} (ranked after priced options): select one and enter your quote "
                                     "on the right, or in the Catalog tab.").format(", ".join(unpriced[:4])
                                                                                    + (", …" if len(unpriced) > 4 else "")))
        side = plan.serving_side
        if side is not None and side.top is not None and side.top.qps_capacity is not None:
            best = side.top
            tp = best.tensor_parallel or 1
            lines.append(self.tr("Serving side at {0} req/s: {1} as {2} replica(s) × TP{3}, sustains {4:.1f} req/s, "
                                 "TTFT {5}, TPOT {6}, 3-year TCO {7} (tab “Serving side”).").format(
                f"{side.target_qps:g}" if side.target_qps is not None else not_available(), candidate_label(best),
                best.replicas or max(1, best.count // tp), tp, best.qps_capacity, format_duration(best.ttft_s),
                format_duration(best.tpot_s), self.tco_text(best)))
        over_limit = bool(binding is not None and binding.field == "operations.max_gpus" and plan.closest)
        if over_limit:
            nearest = "; ".join(
                self.tr("{0} × {1}, time to result {2}").format(f"{c.count:,}", c.gpu_id,
                                                                 format_duration(c.time_to_result_s))
                for c in plan.closest[:3]
            )
            lines.append(self.tr("Closest options beyond the GPU-count limit: {0}.").format(nearest))
        elif plan.deadline_met_by_any is False:
            misses = "; ".join(
                self.tr("{0} × {1} late by {2}").format(c.count, c.gpu_id, format_duration(c.deadline_miss_s))
                for c in plan.closest[:3]
            )
            lines.append(self.tr("No candidate meets the deadline. Closest: {0}.").format(misses or not_available()))
        if warnings_left:
            context.append(self.tr("⚠ %n plan warning(s), listed first on the right: ", "", len(warnings_left))
                           + warnings_left[0])
        language_note = prose_language_note(plan.text_language)
        if language_note:  # a saved plan written in another language: kept in view, it explains the mixed text below
            lines.append(language_note)
        self.summary.setToolTip("\n".join(warnings))
        self._decision_text = "\n".join(lines)
        return "\n".join(lines + context)

    def rejections_text(self, plan: PlanDocument) -> str:
        if not plan.rejected:
            return self.tr("No configuration was rejected.")
        lines = [self.tr("Rejected configurations and why (each reason names its rule or datasheet):")]
        for r in plan.rejected[:200]:
            name = r.gpu_name or r.gpu_id
            what = f"{r.count} × {name}" if r.count else self.tr("{0} (any count)").format(name)
            where = f" ({r.server_id})" if r.server_id else ""
            lines.append(f"• {what}{where}: " + "; ".join(r.reasons))
        return "\n".join(lines)

    def rent_text(self, c: PlanOption) -> str:
        """Rent vs buy of a candidate: the same GPUs rented at the lowest sourced on-demand rate."""
        if c.rent is None or not c.rent.text:
            return self.tr("Rent vs buy: no public on-demand cloud rate for this GPU.")
        return self.tr("Rent vs buy: {0}.").format(c.rent.text)

    def selected_option(self) -> PlanOption | None:
        """The selected option, or None."""
        return None if self.plan is None else self.plan.option(self.selected_index())

    def open_launch_check(self) -> QWidget | None:
        """Open "Will it fit?" filled from the selected serving option (None when it is not one)."""
        c = self.selected_option()
        if self.plan is None or c is None or not is_serving_option(c):
            return None
        from gpudesk.ui.serve_fit import open_serve_fit_dialog

        self.launch_dialog = open_serve_fit_dialog(self.window(), inputs=launch_inputs(self.plan, c))
        return self.launch_dialog

    def _table_menu(self, pos: QPoint) -> None:
        c = self.selected_option()
        if c is None or not is_serving_option(c):
            return
        menu = QMenu(self.table)
        menu.addAction(self.launch_button.text(), self.open_launch_check)
        menu.exec(self.table.viewport().mapToGlobal(pos))

    def selected_index(self) -> int:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return 0
        item = self.table.item(rows[0].row(), 0)
        return int(item.data(Qt.ItemDataRole.UserRole)) if item is not None else 0

    def _selection_changed(self) -> None:
        if self.plan is None:
            return
        index = self.selected_index()
        c = self.plan.option(index)
        if c is None:
            return
        self.launch_button.setEnabled(is_serving_option(c))
        self.export_button.set_source(self.plan, self.name, self.profile, index)
        self.price_editor.show_candidate(c)
        self.rent_label.setText(self.rent_text(c))
        lines = []
        if c.rank_reason:
            lines += [self.tr("Ranking: {0}").format(c.rank_reason), ""]
        if self.plan.warnings:
            lines.append(self.tr("Plan warnings:"))
            lines += [f"  ⚠ {w}" for w in self.plan.warnings]
            lines.append("")
        lines += [candidate_label(c) + f" — {c.server_name or c.server_id}", ""]
        if c.serving:  # the engine settings the search chose for a service
            tp = c.tensor_parallel or 1
            lines.append(self.tr("Replicas × TP: {0} × TP{1}; requests in flight per replica: {2}; engine: {3}").format(
                c.replicas or max(1, c.count // tp), tp, not_available() if c.concurrent_sequences is None
                else c.concurrent_sequences, c.engine or self.tr("roofline estimate")))
        else:  # the training layout and batch the search chose
            lines.append(self.tr("Sharding: {0}; recomputation: {1}; exposed communication: {2}").format(
                c.sharding or (self.tr("single GPU") if c.count == 1 else not_available()), self.recompute_text(c.recompute),
                format_percent(c.comm_share, digits=1)))
            if c.micro_batch_size is not None:
                lines.append(self.tr("Micro-batch {0} × {1} accumulation step(s) per optimizer step").format(
                    c.micro_batch_size, c.gradient_accumulation or 1))
        if c.qps_capacity is not None:
            lines.append(self.tr("Sustained QPS: {0:.1f}").format(c.qps_capacity))
        lines.append("")
        lines.append(self.tr("Warnings:") if c.warnings else self.tr("Warnings: none"))
        lines += [f"  ⚠ {w}" for w in c.warnings]
        lines.append("")
        lines.append(self.tr("Rationale:"))
        for step in c.rationale:
            lines.append(f"  • {step.text}")
            if step.source:
                lines.append(f"      ↳ {step.source}")
        self.details.setPlainText("\n".join(lines))
        self.details.verticalScrollBar().setValue(0)
