"""Side-by-side comparison of up to four GPUs; rows whose values differ are highlighted."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont
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

from gpudesk.catalog import GPU
from gpudesk.catalog.fields import SPEC_FIELDS, differing_keys
from gpudesk.ui.catalog.table_model import display_value, field_label
from gpudesk.ui.tooltips import plain_tooltip

MAX_COMPARE = 4
COMPARE_KEYS: tuple[str, ...] = tuple(
    f.key for f in SPEC_FIELDS if f.key not in ("name", "id", "notes", "price_source", "source_url", "accumulate_note")
)
DIFF_BRUSH = QBrush(QColor("#fff1c2"))


def short_name(gpu: GPU) -> str:
    """The GPU's name as a column header: without the vendor word that every column of a vendor repeats
    ("NVIDIA H100 SXM5 80GB" -> "H100 SXM5 80GB"); the full name and id are in the header's tooltip."""
    vendor = (gpu.vendor or "").strip()
    name = gpu.name or gpu.id
    return name[len(vendor):].strip() if vendor and name.startswith(vendor + " ") else name


class CompareView(QWidget):
    """Holds up to :data:`MAX_COMPARE` GPUs. ``add`` returns False (and changes nothing) when full."""

    changed = Signal()
    """The compared GPUs were added, removed or cleared (the table was redrawn). No arguments."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._gpus: list[GPU] = []
        self._hint = QLabel(self)
        self._hint.setTextFormat(Qt.TextFormat.PlainText)
        self._hint.setWordWrap(True)
        self._table = QTableWidget(len(COMPARE_KEYS), 0, self)
        self._table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self._table.setVerticalHeaderLabels([self._row_label(k) for k in COMPARE_KEYS])
        self._table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self._table.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self._remove = QPushButton(self.tr("Remo&ve column"), self)
        self._remove.setToolTip(self.tr("Remove the GPU whose column is selected"))
        self._remove.clicked.connect(self._remove_current)
        self._clear = QPushButton(self.tr("Clear compar&ison"), self)
        self._clear.clicked.connect(self.clear)
        buttons = QHBoxLayout()
        buttons.addWidget(self._hint, 1)
        buttons.addWidget(self._remove)
        buttons.addWidget(self._clear)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(buttons)
        layout.addWidget(self._table, 1)
        self._refresh()

    @staticmethod
    def _row_label(key: str) -> str:
        field = next(f for f in SPEC_FIELDS if f.key == key)
        return field_label(field)

    def focus_chain(self) -> list[QWidget]:
        """The view's keyboard stops in layout order (for the tab's tab order)."""
        return [self._remove, self._clear, self._table]

    def gpus(self) -> list[GPU]:
        return list(self._gpus)

    def table(self) -> QTableWidget:
        return self._table

    def differing_rows(self) -> list[str]:
        """Keys of the rows highlighted as different."""
        return [k for k in COMPARE_KEYS if k in differing_keys(self._gpus, COMPARE_KEYS)] if len(self._gpus) > 1 else []

    def add(self, gpu: GPU) -> bool:
        if any(g.id == gpu.id for g in self._gpus):
            return True
        if len(self._gpus) >= MAX_COMPARE:
            return False
        self._gpus.append(gpu)
        self._refresh()
        return True

    def set_gpus(self, gpus: list[GPU]) -> None:
        self._gpus = []
        for gpu in gpus[:MAX_COMPARE]:
            if all(g.id != gpu.id for g in self._gpus):
                self._gpus.append(gpu)
        self._refresh()

    def remove(self, gpu_id: str) -> None:
        self._gpus = [g for g in self._gpus if g.id != gpu_id]
        self._refresh()

    def clear(self) -> None:
        self._gpus = []
        self._refresh()

    def _fit_columns(self) -> None:
        """Equal columns that fill the width but never get narrower than the widest GPU id or value: a
        narrow pane scrolls sideways instead of clipping the ids that say which column is which GPU."""
        header = self._table.horizontalHeader()
        widest = 0
        for column in range(self._table.columnCount()):
            widest = max(widest, header.sectionSizeFromContents(column).width(), self._table.sizeHintForColumn(column))
        header.setMinimumSectionSize(max(widest + 8, 40))

    def preferred_width(self) -> int:
        """Width (px) at which every compared column shows without sideways scrolling."""
        table = self._table
        columns = table.columnCount() * table.horizontalHeader().minimumSectionSize()
        chrome = 2 * table.frameWidth() + table.verticalScrollBar().sizeHint().width() + 8 + 4
        return table.verticalHeader().sizeHint().width() + columns + chrome

    def _remove_current(self) -> None:
        column = self._table.currentColumn()
        if 0 <= column < len(self._gpus):
            self.remove(self._gpus[column].id)

    def _refresh(self) -> None:
        gpus = self._gpus
        self._table.setColumnCount(len(gpus))
        self._table.setHorizontalHeaderLabels([short_name(g) for g in gpus])
        for column, gpu in enumerate(gpus):
            header_item = self._table.horizontalHeaderItem(column)  # set just above by the header labels
            if header_item is not None:
                header_item.setToolTip(plain_tooltip(f"{gpu.name} ({gpu.id})"))  # catalog text, never markup
        diff = set(self.differing_rows())
        bold = QFont()
        bold.setBold(True)
        for row, key in enumerate(COMPARE_KEYS):
            field = next(f for f in SPEC_FIELDS if f.key == key)
            header = self._table.verticalHeaderItem(row)
            if header is not None:
                header.setFont(bold if key in diff else QFont())
            for column, gpu in enumerate(gpus):
                value = field.value(gpu)
                item = QTableWidgetItem(display_value(field, value) if value is not None or field.none_is_value else
                                        self.tr("unknown") if field.key in gpu.unpublished_rates else self.tr("N/A"))
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                if value is None:
                    item.setToolTip(display_value(field, None, gpu=gpu))
                if key in diff:
                    item.setBackground(DIFF_BRUSH)
                    item.setForeground(QBrush(QColor("#1a1a1a")))
                    differs = self.tr("Differs between the compared GPUs")
                    item.setToolTip(f"{item.toolTip()}\n{differs}" if item.toolTip() else differs)
                self._table.setItem(row, column, item)
        self._fit_columns()
        self._remove.setEnabled(bool(gpus))
        self._clear.setEnabled(bool(gpus))
        if not gpus:
            hint = self.tr("Select up to {0} GPUs in the table and press Compare (Ctrl+D). Differences are highlighted.")
            self._hint.setText(hint.format(MAX_COMPARE))
        else:
            self._hint.setText(
                self.tr("{0} of {1} GPUs; %n spec(s) differ (highlighted).", "", len(diff)).format(len(gpus), MAX_COMPARE)
            )
        self.changed.emit()
