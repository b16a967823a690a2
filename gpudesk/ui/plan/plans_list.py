"""Saved plans: a table with open, edit, duplicate, rename, compare, delete (with undo) and export.

Rows come from :mod:`gpudesk.store.plans` (GUI-thread connection; each operation is one small row write).
The list emits signals for the tab to act on; it never runs a plan itself.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpudesk.planner.classify import kind_label
from gpudesk.planner.document import PlanDocument, PlanDocumentError, top_option
from gpudesk.store import StoreError
from gpudesk.store.plans import (
    SavedPlan,
    delete_plan,
    duplicate_plan,
    list_plans,
    restore_plan,
    update_plan,
)
from gpudesk.ui.plan.charts import candidate_label
from gpudesk.ui.plan.export_menu import ExportButton
from gpudesk.units import format_duration, format_usd, not_available
from gpudesk.ui.error_text import error_text


class PlansList(QWidget):
    """The user's saved plans, most recent first.

    Signals:
        openRequested(SavedPlan): show the plan's results.
        editRequested(SavedPlan): load its profile into the wizard (saving then updates this plan).
        compareRequested(SavedPlan, SavedPlan): show two plans side by side.
    """

    openRequested = Signal(object)
    """Open was chosen: the SavedPlan whose results to show."""
    editRequested = Signal(object)
    """Edit was chosen: the SavedPlan whose profile to load into the wizard."""
    compareRequested = Signal(object, object)
    """Compare was chosen with two plans selected: the two SavedPlans."""

    COLUMNS = 6

    def __init__(self, ctx: Any, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctx = ctx
        self._plans: list[SavedPlan] = []
        self._last_deleted: int | None = None
        self._deleted_batch: list[int] = []
        self.table = QTableWidget(0, self.COLUMNS, self)
        self.table.setHorizontalHeaderLabels(
            [
                self.tr("Name"),
                self.tr("Workload"),
                self.tr("Top candidate"),
                self.tr("Time to result"),
                self.tr("3-year TCO (USD)"),
                self.tr("Updated (UTC)"),
            ]
        )
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        self.table.doubleClicked.connect(lambda _i: self.open_selected())

        self.open_button = self._button(self.tr("&Open"), self.tr("Show the saved plan's results"), self.open_selected)
        self.edit_button = self._button(self.tr("&Edit…"), self.tr("Load its answers into the wizard and re-plan"), self.edit_selected)
        self.duplicate_button = self._button(self.tr("Du&plicate"), self.tr("Save a copy under a new name"), self.duplicate_selected)
        self.rename_button = self._button(self.tr("&Rename…"), self.tr("Give the plan a new name"), self.rename_selected)
        self.compare_button = self._button(self.tr("&Compare two"), self.tr("Select two plans (Ctrl+click) to see them side by side"), self.compare_selected)
        self.delete_button = self._button(self.tr("&Delete"), self.tr("Delete the selected plans (can be undone)"), self.delete_selected)
        self.undo_button = self._button(self.tr("&Undo delete"), self.tr("Bring back the plan deleted last"), self.undo_delete)
        self.export_button = ExportButton(ctx, self)
        self.export_button.setToolTip(self.tr("Export the selected plan's configuration sheet"))
        QShortcut(QKeySequence(QKeySequence.StandardKey.Delete), self.table, self.delete_selected)
        QShortcut(QKeySequence(QKeySequence.StandardKey.Undo), self, self.undo_delete)

        self.filter_edit = QLineEdit(self)
        self.filter_edit.setPlaceholderText(self.tr("Filter by name"))
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(lambda _t: self.refresh())
        self.status = QLabel(self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)

        buttons = QHBoxLayout()
        for button in (self.open_button, self.edit_button, self.duplicate_button, self.rename_button, self.compare_button, self.delete_button, self.undo_button):
            buttons.addWidget(button)
        buttons.addWidget(self.export_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.filter_edit)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        self.refresh()

    def _button(self, text: str, tip: str, slot) -> QPushButton:
        button = QPushButton(text, self)
        button.setToolTip(tip)
        button.clicked.connect(slot)
        return button

    def _document(self, saved: Any) -> PlanDocument | None:
        """The saved plan as a plan document (migrated from its saved version); None when it cannot be read."""
        try:
            return PlanDocument.from_dict(saved.plan)
        except PlanDocumentError as exc:
            self.ctx.notify(self.tr("{0}: {1}").format(saved.name, error_text(exc)), "error")
            return None

    # -- data ---------------------------------------------------------------------------------------------
    def refresh(self, select_id: int | None = None) -> None:
        """Reload the rows from the store (keeps or sets the selection)."""
        if self.ctx.store is None:
            self._plans = []
            self.status.setText(self.tr("The user database is not available; plans cannot be saved."))
        else:
            try:
                needle = self.filter_edit.text().strip().lower()
                self._plans = [p for p in list_plans(self.ctx.store) if needle in p.name.lower()]
            except StoreError as exc:
                self._plans = []
                self.ctx.notify(error_text(exc), "error")
        self.table.setRowCount(len(self._plans))
        for row, saved in enumerate(self._plans):
            top = top_option(saved.plan)
            label = not_available()
            if top is not None:
                label = candidate_label(top)
            cells = [
                saved.name,
                self.tr("unreadable plan: edit and plan again") if saved.problem else (kind_label(kind) if isinstance(kind := saved.plan.get("workload_kind"), str) and kind else not_available()),
                label,
                format_duration(top.time_to_result_s) if top else not_available(),
                format_usd(top.tco_3y_usd) if top else not_available(),
                saved.updated_at.replace("T", " ").replace("+00:00", ""),
            ]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, saved.id)
                if saved.problem:
                    item.setToolTip(saved.problem)
                if column in (3, 4):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(row, column, item)
            if saved.id == select_id:
                self.table.selectRow(row)
        if not self._plans and self.ctx.store is not None:
            self.status.setText(self.tr("No saved plans yet: run the wizard and press “Save plan”."))
        elif self.ctx.store is not None:
            self.status.setText(self.tr("%n saved plan(s)", "", len(self._plans)))
        self._update_buttons()

    def plans(self) -> list[SavedPlan]:
        return list(self._plans)

    def selected(self) -> list[SavedPlan]:
        rows = sorted({index.row() for index in self.table.selectionModel().selectedRows()})
        return [self._plans[r] for r in rows if r < len(self._plans)]

    def select_ids(self, ids: list[int]) -> None:
        self.table.clearSelection()
        mode = self.table.selectionMode()
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.MultiSelection)
        for row, saved in enumerate(self._plans):
            if saved.id in ids:
                self.table.selectRow(row)
        self.table.setSelectionMode(mode)

    def _update_buttons(self) -> None:
        chosen = self.selected()
        one = len(chosen) == 1
        for button in (self.open_button, self.edit_button, self.duplicate_button, self.rename_button):
            button.setEnabled(one)
        self.compare_button.setEnabled(len(chosen) == 2)
        self.delete_button.setEnabled(bool(chosen))
        self.undo_button.setEnabled(self._last_deleted is not None)
        self.export_button.set_source(self._document(chosen[0]) if one else None, chosen[0].name if one else "")

    # -- actions ------------------------------------------------------------------------------------------
    def open_selected(self) -> None:
        chosen = self.selected()
        if len(chosen) != 1:
            return
        if chosen[0].problem:
            self.ctx.notify(chosen[0].problem, "error")
            return
        self.openRequested.emit(chosen[0])

    def edit_selected(self) -> None:
        chosen = self.selected()
        if len(chosen) == 1:
            self.editRequested.emit(chosen[0])

    def duplicate_selected(self) -> None:
        chosen = self.selected()
        if len(chosen) != 1:
            return
        try:
            new_id = duplicate_plan(self.ctx.store, chosen[0].id)
        except StoreError as exc:
            self.ctx.notify(error_text(exc), "error")
            return
        self.refresh(select_id=new_id)

    def rename_selected(self) -> None:
        chosen = self.selected()
        if len(chosen) != 1:
            return
        name, ok = QInputDialog.getText(self, self.tr("Rename plan"), self.tr("New name:"), text=chosen[0].name)
        if ok:
            self.rename(chosen[0].id, name)

    def rename(self, plan_id: int, name: str) -> bool:
        try:
            update_plan(self.ctx.store, plan_id, name=name)
        except StoreError as exc:
            self.ctx.notify(error_text(exc), "warning")
            return False
        self.refresh(select_id=plan_id)
        return True

    def compare_selected(self) -> None:
        chosen = self.selected()
        if len(chosen) == 2:
            self.compareRequested.emit(chosen[0], chosen[1])

    def delete_selected(self) -> None:
        chosen = self.selected()
        if not chosen:
            return
        try:
            for saved in chosen:
                delete_plan(self.ctx.store, saved.id)
        except StoreError as exc:
            self.ctx.notify(error_text(exc), "error")
            return
        self._deleted_batch = [s.id for s in chosen]
        self._last_deleted = chosen[-1].id
        names = ", ".join(s.name for s in chosen)
        self.refresh()
        self.ctx.notify(self.tr("Deleted {0}. Press Ctrl+Z or “Undo delete” to bring it back (until gpudesk closes).").format(names), "info")

    def undo_delete(self) -> None:
        if self._last_deleted is None:
            return
        batch = self._deleted_batch or [self._last_deleted]
        try:
            for plan_id in batch:
                restore_plan(self.ctx.store, plan_id)
        except StoreError as exc:
            self.ctx.notify(error_text(exc), "error")
            return
        self._last_deleted = None
        self._deleted_batch = []
        self.refresh()
        self.select_ids(batch)
