"""The Catalog tab: filterable, sortable GPU table with a detail pane, comparison, chart, user prices and
CSV export of the current view."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QItemSelectionModel, Qt, QUrl
from PySide6.QtGui import QDesktopServices, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from gpudesk.catalog.export import ExportError, catalog_cell, write_csv
from gpudesk.catalog.fields import SPEC_FIELDS
from gpudesk.ui.catalog.compare_view import MAX_COMPARE, CompareView
from gpudesk.ui.catalog.controller import CatalogPrices
from gpudesk.ui.catalog.detail_pane import GpuDetailPane
from gpudesk.ui.catalog.filter_bar import FilterBar
from gpudesk.ui.catalog.filter_proxy import GpuFilterProxy
from gpudesk.ui.catalog.price_sources import PriceSourcesView
from gpudesk.ui.catalog.table_model import GPU_ROLE, GpuTableModel, field_header
from gpudesk.ui.context import AppContext
from gpudesk.ui.error_text import error_text

EXPORT_KEYS: tuple[str, ...] = ("id",) + tuple(f.key for f in SPEC_FIELDS if f.key != "id")


class CatalogTab(QWidget):
    """Browse the bundled catalog. Works without a catalog (explains what to do) and without a store."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(self.tr("Catalog"))
        self.ctx = ctx
        self.catalog = ctx.catalog
        self.prices = CatalogPrices(ctx)
        layout = QVBoxLayout(self)
        if self.catalog is None:
            self.unavailable = unavailable_label(ctx, self)
            layout.addWidget(self.unavailable, 1)
            return
        gpus = self.catalog.gpus()
        self.model = GpuTableModel(gpus, self)
        self.proxy = GpuFilterProxy(lambda text: [g.id for g in self.catalog.search_gpus(text)], self)
        self.proxy.setSourceModel(self.model)
        self.filters = FilterBar(gpus, self)
        self.table = build_table(self.proxy, self)
        self.side = self._build_side()
        actions = self._build_actions()
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(self.side)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setSizes([700, 560])
        layout.addWidget(self.filters)
        layout.addLayout(actions)
        layout.addWidget(self.splitter, 1)
        # Ctrl+D / Ctrl+E as extra shortcuts: QAbstractButton.setShortcut would replace the Alt mnemonic.
        for keys, slot in ((QKeySequence(QKeySequence.StandardKey.Find), self.filters.search.setFocus),
                           (QKeySequence("Ctrl+D"), self.compare_button.click),
                           (QKeySequence("Ctrl+E"), self.export_button.click)):
            QShortcut(keys, self).activated.connect(slot)
        self._set_tab_order()

        self.filters.textChanged.connect(self.proxy.set_text)
        self.filters.changed.connect(lambda: self.proxy.set_filters(**self.filters.values()))
        self.reset_button.clicked.connect(self.filters.reset)
        self.compare_button.clicked.connect(self.compare_selected)
        self.export_button.clicked.connect(self._export_dialog)
        self.table.selectionModel().currentRowChanged.connect(self._on_current)
        self.detail.priceSet.connect(self.prices.set_user_price)
        self.detail.priceCleared.connect(self.prices.clear_user_price)
        self.detail.undoRequested.connect(self.prices.undo_price_change)
        self.prices.overridesChanged.connect(self.model.set_overrides)
        self.prices.priceChanged.connect(self._after_price_change)
        self.prices.undoChanged.connect(self.detail.set_undo)
        self.prices.undone.connect(self.select_gpu)
        self.prices.sourcesChanged.connect(
            lambda name, prices, rent, gpu: self.price_sources.set_prices(name, prices, rent, 1, gpu))
        self.prices.sourcesChanged.connect(lambda _name, prices, _rent, gpu: self.detail.set_sourced_prices(gpu, prices))
        self.price_sources.linkOpened.connect(lambda url: QDesktopServices.openUrl(QUrl(url)))
        self.proxy.rowsInserted.connect(self._view_changed)
        self.proxy.rowsRemoved.connect(self._view_changed)
        self.proxy.layoutChanged.connect(self._view_changed)
        self.proxy.modelReset.connect(self._view_changed)

        if ctx.store is None:
            reason = self.tr("the user database could not be opened (see the message above).")
            self.detail.set_overrides_available(False, reason)
        else:
            self.prices.load()
        self._view_changed()

    # Construction -----------------------------------------------------------------------------------------
    def _build_side(self) -> QTabWidget:
        self.detail = GpuDetailPane(self)
        self.compare = CompareView(self)
        self.price_sources = PriceSourcesView(self)
        # The chart (pyqtgraph, numpy) is built the first time its page is shown: it is not needed to start.
        self._chart = None
        self._chart_page = QWidget(self)
        QVBoxLayout(self._chart_page).setContentsMargins(0, 0, 0, 0)
        side = QTabWidget(self)
        side.addTab(self.detail, self.tr("Details"))
        side.addTab(self.price_sources, self.tr("Prices, rent vs buy"))
        side.addTab(self.compare, self.tr("Compare"))
        side.addTab(self._chart_page, self.tr("Chart"))
        # Builds the chart on first display of its page.
        side.currentChanged.connect(lambda index: self.chart if side.widget(index) is self._chart_page else None)
        return side

    def _build_actions(self) -> QHBoxLayout:
        self.count = QLabel(self)
        self.count.setTextFormat(Qt.TextFormat.PlainText)
        self.compare_button = QPushButton(self.tr("C&ompare selected"), self)
        self.compare_button.setToolTip(
            self.tr("Put the selected GPUs (up to {0}) side by side (Ctrl+D)").format(MAX_COMPARE)
        )
        self.export_button = QPushButton(self.tr("&Export CSV…"), self)
        self.export_button.setToolTip(self.tr("Save the GPUs in the current view, in view order, as CSV (Ctrl+E)"))
        self.reset_button = QPushButton(self.tr("&Reset filters"), self)
        self.reset_button.setToolTip(self.tr("Show every GPU again"))
        actions = QHBoxLayout()
        actions.addWidget(self.count, 1)
        for button in (self.reset_button, self.compare_button, self.export_button):
            actions.addWidget(button)
        return actions

    def _set_tab_order(self) -> None:
        """Tab follows the layout: the filter rows left to right, the action buttons, the table, then the
        side pane (its page tabs, then the page: details and price editor, price sources, comparison, chart)."""
        f = self.filters
        chain = [f.search, f.memory_min, f.memory_max, f.vendor, f.architecture, f.form_factor, f.fp8,
                 self.reset_button, self.compare_button, self.export_button, self.table, self.side.tabBar()]
        chain += self.detail.focus_chain() + [self.price_sources.table] + self.compare.focus_chain()
        for first, second in zip(chain, chain[1:]):
            QWidget.setTabOrder(first, second)

    # Chart ------------------------------------------------------------------------------------------------
    @property
    def chart(self):
        """The :class:`~gpudesk.ui.catalog.chart_view.ChartView`, built on first use."""
        if self._chart is None:
            from gpudesk.ui.catalog.chart_view import ChartView

            self._chart = ChartView(self.model.value, self._chart_page)
            self._chart_page.layout().addWidget(self._chart)
            self._chart.gpuClicked.connect(self.select_gpu)
            chain = [self.side.tabBar(), *self._chart.focus_chain()]
            for first, second in zip(chain, chain[1:]):
                QWidget.setTabOrder(first, second)
            self._chart.set_gpus(self.proxy.visible_gpus())
            current = self.detail.gpu()
            self._chart.set_selected(current.id if current else None, [g.id for g in self.selected_gpus()])
        return self._chart

    def show_chart(self) -> None:
        """Switch the side pane to the chart (building it if needed)."""
        self.side.setCurrentWidget(self._chart_page)

    def selected_gpus(self) -> list:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        return [self.proxy.index(r, 0).data(GPU_ROLE) for r in rows]

    def select_gpu(self, gpu_id: str) -> bool:
        """Select ``gpu_id`` in the table (clearing filters that hide it) and show its details."""
        source_row = self.model.row_of(gpu_id)
        if source_row < 0:
            return False
        index = self.proxy.mapFromSource(self.model.index(source_row, 0))
        if not index.isValid():
            self.filters.reset()
            index = self.proxy.mapFromSource(self.model.index(source_row, 0))
        self.table.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
        )
        self.table.scrollTo(index)
        return True

    def _on_current(self, current, _previous) -> None:
        gpu = current.data(GPU_ROLE) if current.isValid() else None
        self.detail.show_gpu(gpu, self.model.override(gpu.id) if gpu else None)
        self.prices.show_sources(gpu)
        if self._chart is not None:  # every selected GPU is highlighted, the current one among them
            self._chart.set_selected(gpu.id if gpu else None, [g.id for g in self.selected_gpus()])

    def compare_selected(self) -> None:
        gpus = self.selected_gpus()
        if not gpus:
            self.ctx.notify(self.tr("Select one or more GPUs in the table first (Ctrl+click for several)."), "info")
            return
        if len(gpus) > MAX_COMPARE:
            self.ctx.notify(
                self.tr("{0} GPUs selected; the comparison takes the first {1}.").format(len(gpus), MAX_COMPARE), "warning"
            )
        self.compare.set_gpus(gpus)
        self.side.setCurrentWidget(self.compare)
        widen_side(self.splitter, self.compare.preferred_width())

    # Filters ----------------------------------------------------------------------------------------------
    def _view_changed(self, *_args) -> None:
        visible = self.proxy.visible_gpus()
        self.count.setText(self.tr("{0} of {1} GPUs shown").format(len(visible), self.model.rowCount()))
        if self._chart is not None:
            self._chart.set_gpus(visible)
        self.export_button.setEnabled(bool(visible))

    # Prices -----------------------------------------------------------------------------------------------
    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        """Prices may have been entered elsewhere (the Plan tab's price strip): re-read them when shown."""
        super().showEvent(event)
        if self.ctx.store is not None:
            self.prices.load()
            gpu = self.detail.gpu()
            if gpu is not None:
                self.detail.show_gpu(gpu, self.model.override(gpu.id))

    def _after_price_change(self, gpu_id: str) -> None:
        gpu = self.detail.gpu()
        if gpu is not None and gpu.id == gpu_id:
            self.detail.show_gpu(gpu, self.model.override(gpu_id))
        if self._chart is not None:
            self._chart.redraw()

    # Export -----------------------------------------------------------------------------------------------
    def export_csv(self, path: str | Path) -> int:
        """Write the current view (filters and sort order applied, user prices in) to ``path``; an unpublished
        rate is written "unknown", an absent value as an empty cell (gpudesk.catalog.export.catalog_cell).

        Raises:
            ExportError: the file cannot be written.
        """
        fields = {f.key: f for f in SPEC_FIELDS}
        headers = [field_header(fields[k]) for k in EXPORT_KEYS]
        rows = ([catalog_cell(g, k, self.model.value(g, k)) for k in EXPORT_KEYS] for g in self.proxy.visible_gpus())
        return write_csv(path, headers, rows)

    def _export_dialog(self) -> None:
        default = str(Path.home() / "gpudesk-catalog.csv")
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Export GPUs as CSV"), default, self.tr("CSV files (*.csv)"))
        if not path:
            return
        try:
            count = self.export_csv(path)
        except ExportError as exc:
            self.ctx.notify(error_text(exc), "error")
            return
        self.ctx.notify(self.tr("Exported %n GPU(s) to {0}. \"unknown\": a rate the GPU has that was not published; "
                                "empty: the GPU does not have it.", "", count).format(path), "info")


#: The name column's widest (pixels): most names fit whole; longer ones keep both ends (ElideMiddle).
NAME_COLUMN_MAX_WIDTH = 300


def build_table(proxy: GpuFilterProxy, parent: QWidget) -> QTableView:
    """The GPU table over ``proxy``: sortable (catalog order until a header is clicked), whole-row selection."""
    table = QTableView(parent)
    table.setModel(proxy)
    table.setSortingEnabled(True)
    table.sortByColumn(-1, Qt.SortOrder.AscendingOrder)  # catalog order until a header is clicked
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
    table.setAlternatingRowColors(True)
    # Long names keep both ends ("NVIDIA RTX PRO 6000…Server Edition 96GB"): the edition and memory tell rows apart.
    table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
    table.setWordWrap(False)  # a wrapped cell elides its last line at the right whatever the mode
    table.verticalHeader().setVisible(False)
    table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 8)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    table.resizeColumnsToContents()
    table.setColumnWidth(0, min(table.columnWidth(0), NAME_COLUMN_MAX_WIDTH))
    return table


def unavailable_label(ctx: AppContext, parent: QWidget) -> QLabel:
    """What the tab shows when no catalog could be opened: why, and what to do."""
    reasons = [p for p in ctx.problems if "catalog" in p.lower()] or ctx.problems
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setText(
        QCoreApplication.translate(
            "CatalogTab",
            "The GPU catalog could not be opened, so there is nothing to browse.\n\n{0}\n\n"
            "Reinstall gpudesk, or in a source checkout run `make catalog`, then restart gpudesk."
        ).format("\n".join(reasons) or QCoreApplication.translate("CatalogTab", "No catalog was given."))
    )
    return label


def widen_side(splitter: QSplitter, preferred_width: int) -> None:
    """Give the comparison the width its columns need, up to 72 % of the tab and at least 55 % (the table
    keeps the rest); never narrows the side pane."""
    sizes = splitter.sizes()
    total = sum(sizes)
    wanted = max(int(total * 0.55), min(preferred_width, int(total * 0.72)))
    if total > 0 and sizes[1] < wanted:
        splitter.setSizes([total - wanted, wanted])
