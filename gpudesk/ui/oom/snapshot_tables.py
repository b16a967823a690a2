"""Tables of a snapshot's peak: top frames and top allocations by bytes alive, and the stack of the row picked.

Frame names and file paths come from the snapshot file: they are shown as plain text only.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QPlainTextEdit,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from gpudesk.oom.snapshot.analysis import DeviceAnalysis, SnapshotAnalysis
from gpudesk.units import format_bytes

STACK_ROLE = int(Qt.ItemDataRole.UserRole) + 1


class _BytesItem(QTableWidgetItem):
    """A cell showing bytes in binary units and sorting by the byte count."""

    def __init__(self, value: int) -> None:
        super().__init__(format_bytes(value))
        self.value = value
        self.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)

    def __lt__(self, other: QTableWidgetItem) -> bool:
        return self.value < other.value if isinstance(other, _BytesItem) else super().__lt__(other)


def _table(headers: list[str]) -> QTableWidget:
    t = QTableWidget(0, len(headers))
    t.setHorizontalHeaderLabels(headers)
    t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    t.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    t.verticalHeader().setVisible(False)
    t.horizontalHeader().setStretchLastSection(True)
    t.setSortingEnabled(True)
    return t


class SnapshotTables(QWidget):
    """Top frames / top allocations at the peak; selecting a row shows its allocation stack below."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._analysis: SnapshotAnalysis | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        split = QSplitter(Qt.Orientation.Vertical, self)
        self.tabs = QTabWidget(split)
        self.frames = _table([self.tr("Bytes alive"), self.tr("Allocations"), self.tr("Kind"), self.tr("Frame")])
        self.allocations = _table([self.tr("Size"), self.tr("Created at event"), self.tr("Kind"), self.tr("Frame")])
        self.tabs.addTab(self.frames, self.tr("Top frames"))
        self.tabs.addTab(self.allocations, self.tr("Top allocations"))
        self.stack = QPlainTextEdit(split)
        self.stack.setReadOnly(True)
        self.stack.setPlaceholderText(self.tr("Select a row to see where the allocation was made."))
        split.addWidget(self.tabs)
        split.addWidget(self.stack)
        layout.addWidget(split)
        for table in (self.frames, self.allocations):
            table.itemSelectionChanged.connect(self._show_stack)

    def set_analysis(self, analysis: SnapshotAnalysis, device: DeviceAnalysis) -> None:
        self._analysis = analysis
        self._fill(self.frames, [(g.bytes, f"{g.count:,}", g.category, g.label, g.stack_id)
                                 for g in device.top_frames])
        self._fill(self.allocations, [(a.size_bytes, self.tr("before the trace") if a.created_at < 0
                                       else f"{a.created_at:,}", a.category, a.label, a.stack_id)
                                      for a in device.top_allocations])
        self.stack.clear()

    def _fill(self, table: QTableWidget, rows: list[tuple[int, str, str, str, int]]) -> None:
        table.setSortingEnabled(False)
        table.setRowCount(len(rows))
        for r, (nbytes, second, kind, label, stack_id) in enumerate(rows):
            first = _BytesItem(nbytes)
            first.setData(STACK_ROLE, stack_id)
            table.setItem(r, 0, first)
            table.setItem(r, 1, QTableWidgetItem(second))
            table.setItem(r, 2, QTableWidgetItem(kind.replace("_", " ")))
            table.setItem(r, 3, QTableWidgetItem(label or self.tr("(no stack recorded)")))
        table.setSortingEnabled(True)
        table.sortItems(0, Qt.SortOrder.DescendingOrder)
        table.resizeColumnsToContents()

    def _show_stack(self) -> None:
        table = self.sender()
        if not isinstance(table, QTableWidget) or self._analysis is None:
            return
        rows = table.selectionModel().selectedRows()
        if not rows:
            return
        item = table.item(rows[0].row(), 0)
        stack_id = item.data(STACK_ROLE) if item is not None else -1
        stack = self._analysis.snapshot.stack(int(stack_id)) if stack_id is not None else ()
        if not stack:
            self.stack.setPlainText(self.tr("No stack was recorded for this allocation (it was made before the "
                                            "history started, or with context=None)."))
            return
        self.stack.setPlainText("\n".join(f.label() for f in stack))
