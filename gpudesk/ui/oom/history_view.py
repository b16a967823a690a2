"""Past diagnoses from the user store: list, reopen, delete (``gpudesk.store.diagnoses``).

Every new diagnosis the tab shows is saved here with where it came from. Reopening loads the stored
diagnosis (report and causes) and shows it again; deleting asks first and removes only that entry.
Store calls are single small SQLite statements on the GUI thread's connection (``ctx.store``).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpudesk.oom.history import load_diagnosis, save_diagnosis
from gpudesk.oom.labels import CAUSE_NAMES, cause_name, runtime_name
from gpudesk.store.diagnoses import delete_diagnosis, list_diagnoses
from gpudesk.store.errors import StoreError
from gpudesk.ui.context import AppContext
from gpudesk.ui.oom.plain import plain_label
from gpudesk.units import format_percent
from gpudesk.ui.error_text import error_text

ID_ROLE = Qt.ItemDataRole.UserRole


def cause_names() -> dict[str, str]:
    """Short readable names of the cause ids (``gpudesk.oom.cause.CAUSE_IDS``) for the history table, from the one
    table the CLI uses too (gpudesk.oom.labels.CAUSE_NAMES); the stored row keeps only the id (shown in the cell's
    tooltip)."""
    return {cause_id: cause_name(cause_id) for cause_id in CAUSE_NAMES}


class HistoryView(QWidget):
    """Table of saved diagnoses (newest first) with Reopen, Delete and Refresh.

    Signals:
        reopenRequested(object, str): the stored ``Diagnosis`` and where it came from.

    ``confirm(title, text) -> bool`` asks before deleting; tests replace it.
    """

    reopenRequested = Signal(object, str)
    """Reopen was pressed: the stored Diagnosis and where it came from (with its save time)."""

    COLUMNS = ("When", "Source", "Framework", "Top cause", "Confidence")

    def __init__(self, ctx: AppContext, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctx = ctx
        self.confirm: Callable[[str, str], bool] = self._ask
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.table = QTableWidget(0, len(self.COLUMNS), self)
        self.table.setHorizontalHeaderLabels(
            [self.tr("When (UTC)"), self.tr("Source"), self.tr("Framework"), self.tr("Top cause"), self.tr("Confidence")]
        )
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.doubleClicked.connect(lambda _index: self.reopen_selected())
        self.table.itemSelectionChanged.connect(self._update_buttons)
        layout.addWidget(self.table, 1)
        self.info = plain_label("", self, wrap=True)
        layout.addWidget(self.info)
        buttons = QHBoxLayout()
        self.reopen_button = QPushButton(self.tr("&Reopen"), self)
        self.reopen_button.setToolTip(self.tr("Show the selected diagnosis again (double-click works too)"))
        self.reopen_button.clicked.connect(self.reopen_selected)
        self.delete_button = QPushButton(self.tr("D&elete"), self)
        self.delete_button.setToolTip(self.tr("Remove the selected diagnosis from the history"))
        self.delete_button.clicked.connect(self.delete_selected)
        self.refresh_button = QPushButton(self.tr("Refre&sh"), self)
        self.refresh_button.clicked.connect(self.refresh)
        for button in (self.reopen_button, self.delete_button, self.refresh_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        self.refresh()

    def save(self, diagnosis, source: str) -> int | None:
        """Store ``diagnosis`` (from ``source``) and show it at the top; None when there is no store."""
        if self.ctx.store is None:
            return None
        try:
            new_id = save_diagnosis(self.ctx.store, diagnosis, target=source)
        except StoreError as exc:
            self.ctx.notify(self.tr("The diagnosis could not be saved to the history: %1").replace("%1", error_text(exc)), "error")
            return None
        self.refresh()
        return new_id

    def refresh(self) -> None:
        """Reload the list from the store."""
        self.table.setRowCount(0)
        if self.ctx.store is None:
            self.info.setText(self.tr("No user database is open, so the history is not available."))
            self._update_buttons()
            return
        try:
            rows = list(list_diagnoses(self.ctx.store))
        except StoreError as exc:
            self.info.setText(self.tr("The history cannot be read: %1").replace("%1", error_text(exc)))
            self._update_buttons()
            return
        self.table.setRowCount(len(rows))
        names = cause_names()
        for r, row in enumerate(rows):
            values = [
                row.created_at.replace("T", " ").removesuffix("+00:00"),
                row.target or row.source,
                runtime_name(row.framework) or self.tr("N/A"),
                names.get(row.top_cause_id or "", row.top_cause_id or "") or self.tr("none"),
                format_percent(row.top_confidence),
            ]
            for c, text in enumerate(values):
                item = QTableWidgetItem(text)
                if c == 0:
                    item.setData(ID_ROLE, row.id)
                if c == 3 and row.top_cause_id:
                    item.setToolTip(self.tr("Cause id: %1").replace("%1", row.top_cause_id))
                self.table.setItem(r, c, item)
        self.info.setText(
            self.tr("%1 saved diagnosis(es).").replace("%1", str(len(rows)))
            if rows
            else self.tr("No saved diagnoses yet: every diagnosis you run is kept here.")
        )
        self._update_buttons()

    def selected_id(self) -> int | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        item = self.table.item(rows[0].row(), 0)
        value = item.data(ID_ROLE) if item is not None else None
        return int(value) if value is not None else None

    def _cell_text(self, row: int, column: int) -> str:
        item = self.table.item(row, column)
        return item.text() if item is not None else ""

    def select_row(self, row: int) -> None:
        self.table.selectRow(row)

    def reopen_selected(self) -> None:
        diagnosis_id = self.selected_id()
        if diagnosis_id is None or self.ctx.store is None:
            return
        try:
            loaded = load_diagnosis(self.ctx.store, diagnosis_id)
        except StoreError as exc:
            self.ctx.notify(error_text(exc), "error")
            return
        row = self.table.selectionModel().selectedRows()[0].row()
        source = self._cell_text(row, 1)
        when = self._cell_text(row, 0)
        self.reopenRequested.emit(loaded, self.tr("%1, saved %2").replace("%1", source).replace("%2", when))

    def delete_selected(self) -> None:
        diagnosis_id = self.selected_id()
        if diagnosis_id is None or self.ctx.store is None:
            return
        row = self.table.selectionModel().selectedRows()[0].row()
        what = f"{self._cell_text(row, 0)} · {self._cell_text(row, 1)}"
        if not self.confirm(
            self.tr("Delete diagnosis?"),
            self.tr("Delete the saved diagnosis %1 from the history? This cannot be undone.").replace("%1", what),
        ):
            return
        try:
            delete_diagnosis(self.ctx.store, diagnosis_id)
        except StoreError as exc:
            self.ctx.notify(self.tr("The diagnosis could not be deleted: %1").replace("%1", error_text(exc)), "error")
            return
        self.refresh()

    def _update_buttons(self) -> None:
        has = self.selected_id() is not None
        self.reopen_button.setEnabled(has)
        self.delete_button.setEnabled(has)

    def _ask(self, title: str, text: str) -> bool:
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle(title)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(text)
        box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
        box.setDefaultButton(QMessageBox.StandardButton.No)
        return box.exec() == QMessageBox.StandardButton.Yes
