"""Per-GPU memory bars: PyTorch allocated / reserved, NVML used by the process, other processes, free.

One horizontal stacked bar per GPU, drawn against the device's total memory. The reconciliation follows
the PyTorch CUDA notes and NVML's ``nvmlProcessInfo_t`` documentation (see ../shared/reference/oom.md §5)::

    NVML used by process = allocated + (reserved - allocated) + non-PyTorch (CUDA context, NCCL, cuBLAS ...)
    total                = NVML used by process + other processes + unattributed + free

Segments whose inputs are unknown (None) are not drawn; the row says which value is "N/A" and why.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QCoreApplication, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPalette, QPen
from PySide6.QtWidgets import QGridLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from gpudesk.oom.labels import PYTORCH_FRAMEWORKS, outside_allocator_words
from gpudesk.ui.oom.plain import plain_tooltip
from gpudesk.units import format_bytes

# Segment keys, in drawing order (left to right), with their colours.
SEGMENT_COLORS: dict[str, str] = {
    "allocated": "#1f5fa8",  # live tensors
    "reserved_unallocated": "#7fb0e6",  # cached by the allocator, not in use (fragmentation candidate)
    "non_pytorch": "#e08a1e",  # CUDA context, NCCL, cuBLAS, other allocators in this process
    "process_unsplit": "#8e6bb5",  # this process per NVML where the allocator's reserved figure is unknown
    "other_processes": "#b0413e",  # other processes on this GPU
    "unattributed": "#9a9a9a",  # driver, display, hidden PIDs: total - free - the parts above
    "free": "#cfe3c0",
}


@dataclass(frozen=True)
class GpuBarData:
    """What one GPU's bar shows. All sizes in bytes; None when unknown.

    Attributes:
        gpu_index: CUDA/NVML device index, or None when the source did not name one.
        name: device name (NVML) or a hint, or None.
        total_bytes: device memory (NVML ``memory.total`` or the OOM message's "total capacity").
        allocated_bytes: PyTorch ``memory_allocated`` (live tensor blocks).
        reserved_bytes: PyTorch ``memory_reserved`` (allocator segments, allocated included).
        process_used_bytes: NVML ``usedGpuMemory`` of the process (or "this process has U memory in use").
        other_processes_bytes: sum of other processes' NVML ``usedGpuMemory`` on this GPU.
        free_bytes: free device memory (NVML ``memory.free`` or the message's "of which F is free").
        notes: value name -> reason it is N/A (shown in the row's tooltip).
    """

    gpu_index: int | None = None
    name: str | None = None
    total_bytes: int | None = None
    allocated_bytes: int | None = None
    reserved_bytes: int | None = None
    process_used_bytes: int | None = None
    other_processes_bytes: int | None = None
    free_bytes: int | None = None
    notes: dict[str, str] = field(default_factory=dict)
    #: The accelerator platform ("cuda", "rocm", "mps"; None: unsaid), for the name of the per-process tool.
    platform: str | None = None
    #: The report's framework ("pytorch", "tensorflow", "unknown", ...; None: unsaid), for the name of the memory
    #: the process holds outside its allocator.
    framework: str | None = None


def bar_segments(data: GpuBarData) -> list[tuple[str, int]]:
    """The stacked segments (key, bytes) of a bar, left to right; unknown parts are left out.

    When the free memory is known, what the other segments leave of ``total - free`` is "unattributed".
    Values above the total are treated as unknown (WSL2/WDDM report garbage per-process figures).
    Negative remainders (inconsistent inputs) are clamped to 0 rather than drawn backwards.
    """
    total = data.total_bytes

    def sane(value: int | None) -> int | None:
        if value is None or value < 0:
            return None
        if total is not None and value > total:
            return None
        return int(value)

    allocated = sane(data.allocated_bytes)
    reserved = sane(data.reserved_bytes)
    used = sane(data.process_used_bytes)
    others = sane(data.other_processes_bytes)
    free = sane(data.free_bytes)
    segments: list[tuple[str, int]] = []
    if allocated is not None:
        segments.append(("allocated", allocated))
    if reserved is not None:
        segments.append(("reserved_unallocated", max(reserved - (allocated or 0), 0)))
    if used is not None:
        if reserved is not None:
            segments.append(("non_pytorch", max(used - reserved, 0)))
        else:
            # Without the allocator's reserved figure the rest of the process cannot be split into
            # cache and non-PyTorch memory: draw it as one part.
            segments.append(("process_unsplit", max(used - (allocated or 0), 0)))
    if others is not None:
        segments.append(("other_processes", others))
    if free is not None:
        if total is not None:
            rest = total - free - sum(size for _, size in segments)
            if rest > 0:
                segments.append(("unattributed", rest))
        segments.append(("free", free))
    return segments


class MemoryBar(QWidget):
    """One stacked bar; the full width is the GPU's total memory (or the sum of the parts if unknown)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._segments: list[tuple[str, int]] = []
        self._scale_bytes: int | None = None
        self.setMinimumHeight(22)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def set_segments(self, segments: list[tuple[str, int]], total_bytes: int | None) -> None:
        self._segments = list(segments)
        parts = sum(size for _, size in segments)
        self._scale_bytes = total_bytes if total_bytes else (parts or None)
        self.update()

    def segments(self) -> list[tuple[str, int]]:
        return list(self._segments)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(400, 24)

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt override
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        rect = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        painter.fillRect(rect, self.palette().color(QPalette.ColorRole.Base))
        if self._scale_bytes:
            x = rect.left()
            for key, size in self._segments:
                width = rect.width() * min(size / self._scale_bytes, 1.0)
                right = min(x + width, rect.right())
                if right > x:
                    painter.fillRect(QRectF(x, rect.top(), right - x, rect.height()), QColor(SEGMENT_COLORS[key]))
                x = right
        painter.setPen(QPen(self.palette().color(QPalette.ColorRole.Mid)))
        painter.drawRect(rect)
        painter.end()


class _Swatch(QWidget):
    def __init__(self, color: str, parent: QWidget | None = None):
        super().__init__(parent)
        self._color = QColor(color)
        self.setFixedSize(12, 12)

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt override
        painter = QPainter(self)
        painter.fillRect(self.rect(), self._color)
        painter.end()


class MemoryBarsPanel(QWidget):
    """A legend and one titled bar per GPU. Call :meth:`set_bars` with :class:`GpuBarData` items."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._legend_cells: dict[str, QWidget] = {}
        self._legend_labels: dict[str, QLabel] = {}
        self._framework: str | None = "pytorch"
        self._layout.addWidget(self._legend())
        self._rows = QWidget(self)
        self._rows_layout = QVBoxLayout(self._rows)
        self._rows_layout.setContentsMargins(0, 0, 0, 0)
        self._layout.addWidget(self._rows)
        self._empty = QLabel(self.tr("No memory figures yet: paste a message or pick a target."), self)
        self._empty.setTextFormat(Qt.TextFormat.PlainText)
        # The no-figures sentence is about 700 px on one line: it wraps to the pane instead of widening it.
        self._empty.setWordWrap(True)
        self._layout.addWidget(self._empty)
        self.bars: list[MemoryBar] = []
        self.captions: list[QLabel] = []
        self.titles: list[QLabel] = []

    def segment_names(self, framework: str | None = "pytorch") -> dict[str, str]:
        """The segments' names; the process's memory outside the allocator is named for ``framework``: PyTorch's
        words for PyTorch (and when unsaid), the runtime's own or the framework-neutral words otherwise."""
        outside = (self.tr("Non-PyTorch in process (CUDA context, NCCL, libraries)")
                   if framework is None or framework in PYTORCH_FRAMEWORKS else outside_allocator_words(framework))
        return {
            "allocated": self.tr("Allocated (live tensors)"),
            "reserved_unallocated": self.tr("Reserved but unallocated (allocator cache)"),
            "non_pytorch": outside,
            "process_unsplit": self.tr("This process per NVML (allocator figures unknown)"),
            "other_processes": self.tr("Other processes"),
            "unattributed": self.tr("Unattributed (driver, display, processes not listed)"),
            "free": self.tr("Free"),
        }

    def _legend(self) -> QWidget:
        legend = QWidget(self)
        self._legend_grid = QGridLayout(legend)
        self._legend_grid.setContentsMargins(0, 0, 0, 0)
        for key, text in self.segment_names().items():
            cell = QWidget(legend)
            row = QGridLayout(cell)
            row.setContentsMargins(0, 0, 8, 0)
            row.addWidget(_Swatch(SEGMENT_COLORS[key], cell), 0, 0)
            label = QLabel(text, cell)
            self._legend_labels[key] = label
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setWordWrap(True)
            row.addWidget(label, 0, 1)
            row.setColumnStretch(1, 1)
            self._legend_cells[key] = cell
        self._place_legend([])
        return legend

    def _place_legend(self, keys: list[str]) -> None:
        """Show the legend entries for ``keys`` only, two per row, in drawing order."""
        for cell in self._legend_cells.values():
            self._legend_grid.removeWidget(cell)
            cell.hide()
        for position, key in enumerate(keys):
            cell = self._legend_cells[key]
            self._legend_grid.addWidget(cell, position // 2, position % 2)
            cell.show()

    def legend_keys(self) -> list[str]:
        """Segment keys whose legend entry is shown (only those drawn in some bar)."""
        return [key for key, cell in self._legend_cells.items() if not cell.isHidden()]

    def _clear_rows(self) -> None:
        for index in reversed(range(self._rows_layout.count())):
            item = self._rows_layout.itemAt(index)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.setParent(None)
                widget.deleteLater()
        self.bars = []
        self.captions = []
        self.titles = []
        self._empty.show()

    def clear(self) -> None:
        self._clear_rows()
        self._empty.setText(self.tr("No memory figures yet: paste a message or pick a target."))

    def set_bars(self, items: list[GpuBarData]) -> None:
        """Replace the bars; an empty list (a diagnosis without per-GPU figures) says so."""
        self._clear_rows()
        self._empty.setText(self.tr("This input gives no per-GPU memory figures (total, allocated, free); the causes "
                                    "below come from the message itself."))
        for data in items:
            self._add_row(data)
        self._empty.setVisible(not items)
        self._framework = items[0].framework if items else "pytorch"
        for key, text in self.segment_names(self._framework).items():
            self._legend_labels[key].setText(text)
        drawn = {key for bar in self.bars for key, size in bar.segments() if size > 0}
        self._place_legend([key for key in self._legend_cells if key in drawn])

    def _add_row(self, data: GpuBarData) -> None:
        row = QWidget(self._rows)
        layout = QVBoxLayout(row)
        layout.setContentsMargins(0, 4, 0, 4)
        layout.setSpacing(2)
        title = QLabel(self._title(data), row)
        title.setWordWrap(True)
        title.setTextFormat(Qt.TextFormat.PlainText)
        bar = MemoryBar(row)
        segments = bar_segments(data)
        bar.set_segments(segments, data.total_bytes)
        caption = QLabel(self._caption(data), row)
        caption.setTextFormat(Qt.TextFormat.PlainText)
        caption.setWordWrap(True)
        caption.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        tooltip = self._tooltip(data, segments)
        for widget in (title, bar, caption):
            widget.setToolTip(plain_tooltip(tooltip))
        bar.setAccessibleName(self._title(data))
        bar.setAccessibleDescription(tooltip)
        layout.addWidget(title)
        layout.addWidget(bar)
        layout.addWidget(caption)
        self._rows_layout.addWidget(row)
        self.bars.append(bar)
        self.captions.append(caption)
        self.titles.append(title)

    def _title(self, data: GpuBarData) -> str:
        gpu = self.tr("GPU %1").replace("%1", str(data.gpu_index)) if data.gpu_index is not None else self.tr("GPU (index not given)")
        name = f" · {data.name}" if data.name else ""
        if data.total_bytes is None:
            # memory_summary tables and partial messages give allocator figures but not the GPU's size.
            return self.tr("%1%2 · total memory unknown (not in the input); the bar spans the parts shown").replace(
                "%1", gpu).replace("%2", name)
        return self.tr("%1%2 · %3 total").replace("%1", gpu).replace("%2", name).replace(
            "%3", format_bytes(data.total_bytes)
        )

    def _caption(self, data: GpuBarData) -> str:
        parts = [
            self.tr("allocated %1").replace("%1", format_bytes(data.allocated_bytes)),
            self.tr("reserved %1").replace("%1", format_bytes(data.reserved_bytes)),
            self.tr("%1 used by process %2").replace("%1", process_tool(data.platform)).replace(
                "%2", format_bytes(data.process_used_bytes)),
            self.tr("other processes %1").replace("%1", format_bytes(data.other_processes_bytes)),
            self.tr("free %1").replace("%1", format_bytes(data.free_bytes)),
        ]
        return " · ".join(parts)

    def _tooltip(self, data: GpuBarData, segments: list[tuple[str, int]]) -> str:
        names = self.segment_names(data.framework)
        lines = [f"{names[key]}: {format_bytes(size)}" for key, size in segments]
        for value_name, reason in data.notes.items():
            lines.append(self.tr("%1 is N/A: %2").replace("%1", value_name).replace("%2", reason))
        return "\n".join(lines)


def bars_from_report(report) -> list[GpuBarData]:
    """One :class:`GpuBarData` per device of a ``gpudesk.oom.MemoryReport`` (failing GPU first).

    A device without any figure at all is left out. Notes name the values that are N/A and why.
    """
    items: list[GpuBarData] = []
    for dev in getattr(report, "devices", None) or []:
        values = (dev.total_bytes, dev.allocated_bytes, dev.reserved_bytes, dev.process_used_bytes, dev.free_bytes)
        if all(v is None for v in values) and not dev.other_processes:
            continue
        notes: dict[str, str] = {}
        missing = ", ".join(getattr(report, "missing", None) or [])
        reason = (
            QCoreApplication.translate("MemoryBars", "not in the input (missing: %1)").replace("%1", missing)
            if missing
            else QCoreApplication.translate("MemoryBars", "not reported by the source")
        )
        for label, value in (
            (QCoreApplication.translate("MemoryBars", "total"), dev.total_bytes),
            (QCoreApplication.translate("MemoryBars", "allocated"), dev.allocated_bytes),
            (QCoreApplication.translate("MemoryBars", "reserved"), dev.reserved_bytes),
            (QCoreApplication.translate("MemoryBars", "%1 used by process").replace(
                "%1", process_tool(getattr(report, "platform", None))), dev.process_used_bytes),
            (QCoreApplication.translate("MemoryBars", "free"), dev.free_bytes),
        ):
            if value is None:
                notes[label] = reason
        items.append(
            GpuBarData(
                gpu_index=dev.index,
                name=dev.name,
                total_bytes=dev.total_bytes,
                allocated_bytes=dev.allocated_bytes,
                reserved_bytes=dev.reserved_bytes,
                process_used_bytes=dev.process_used_bytes,
                other_processes_bytes=dev.other_processes_bytes,
                free_bytes=dev.free_bytes,
                notes=notes,
                platform=getattr(report, "platform", None),
                framework=getattr(report, "framework", None),
            )
        )
    return items


def process_tool(platform: str | None) -> str:
    """What reports a process's device memory on ``platform``: NVML on NVIDIA (also when the platform is unsaid),
    amdsmi / rocm-smi on ROCm; macOS (MPS) has no per-process GPU figure, so the driver is named instead."""
    if platform == "rocm":
        return QCoreApplication.translate("MemoryBars", "rocm-smi")
    if platform == "mps":
        return QCoreApplication.translate("MemoryBars", "Metal driver")
    return QCoreApplication.translate("MemoryBars", "NVML")
