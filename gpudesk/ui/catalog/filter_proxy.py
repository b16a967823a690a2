"""Filtering and sorting of the GPU table: text (full-text search), vendor, architecture, memory range,
form factor and FP8 support. Sorting uses raw values; missing values (None) always sort last."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt

from gpudesk.ui.catalog.table_model import GPU_ROLE, SORT_ROLE


class GpuFilterProxy(QSortFilterProxyModel):
    """Accepts a GPU when it passes every active filter.

    ``search`` is a callable text -> list of GPU ids (the catalog's FTS search); an empty text shows all.
    """

    def __init__(self, search: Callable[[str], list[str]], parent=None):
        super().__init__(parent)
        self._search = search
        self._text_ids: set[str] | None = None
        self.text = ""
        self.vendor: str | None = None
        self.architecture: str | None = None
        self.form_factor: str | None = None
        self.memory_min_gb: float | None = None
        self.memory_max_gb: float | None = None
        self.fp8: bool | None = None
        self.setSortRole(SORT_ROLE)
        self.setDynamicSortFilter(True)

    def set_text(self, text: str) -> None:
        """Full-text filter over name, vendor, architecture, chip and notes (word prefixes)."""
        ids = set(self._search(text.strip())) if text.strip() else None
        self._begin_change()
        self.text = text.strip()
        self._text_ids = ids
        self._end_change()

    def set_filters(
        self,
        *,
        vendor: str | None = None,
        architecture: str | None = None,
        form_factor: str | None = None,
        memory_min_gb: float | None = None,
        memory_max_gb: float | None = None,
        fp8: bool | None = None,
    ) -> None:
        """Set every non-text filter at once (None = no filter)."""
        self._begin_change()
        self.vendor = vendor
        self.architecture = architecture
        self.form_factor = form_factor
        self.memory_min_gb = memory_min_gb
        self.memory_max_gb = memory_max_gb
        self.fp8 = fp8
        self._end_change()

    def _begin_change(self) -> None:
        # Qt >= 6.9 replaces invalidateFilter() (deprecated) with begin/endFilterChange().
        if hasattr(self, "beginFilterChange"):
            self.beginFilterChange()

    def _end_change(self) -> None:
        if hasattr(self, "endFilterChange"):
            self.endFilterChange()
        else:
            self.invalidateFilter()

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex) -> bool:  # noqa: N802
        gpu = self.sourceModel().index(source_row, 0, source_parent).data(GPU_ROLE)
        if gpu is None:
            return False
        if self._text_ids is not None and gpu.id not in self._text_ids:
            return False
        if self.vendor and gpu.vendor != self.vendor:
            return False
        if self.architecture and gpu.architecture != self.architecture:
            return False
        if self.form_factor and gpu.form_factor != self.form_factor:
            return False
        if self.memory_min_gb is not None and gpu.memory_gb < self.memory_min_gb:
            return False
        if self.memory_max_gb is not None and gpu.memory_gb > self.memory_max_gb:
            return False
        if self.fp8 is not None and gpu.supports_fp8 != self.fp8:
            return False
        return True

    def lessThan(self, left: QModelIndex | QPersistentModelIndex, right: QModelIndex | QPersistentModelIndex) -> bool:  # noqa: N802
        a = left.data(SORT_ROLE)
        b = right.data(SORT_ROLE)
        descending = self.sortOrder() == Qt.SortOrder.DescendingOrder
        if a is None or b is None:
            if a is None and b is None:
                return left.row() < right.row()
            # None last in both directions: in descending order Qt reverses, so invert here.
            return (a is None) if descending else (b is None)
        if isinstance(a, str) or isinstance(b, str):
            return str(a).casefold() < str(b).casefold()
        return a < b

    def visible_gpus(self) -> list:
        """GPUs in the current view, in view order."""
        return [self.index(r, 0).data(GPU_ROLE) for r in range(self.rowCount())]
