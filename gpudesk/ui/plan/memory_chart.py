"""Stacked memory-breakdown bars (pyqtgraph) drawn against each card's usable capacity and safe line.

One vertical bar per entry (a card, or a candidate on the results page). The parts (weights, gradients,
optimizer state, activations, KV cache, overhead ...) stack from 0 in GiB. Two short horizontal marks per
bar: the usable capacity (what the allocator can get, below the marketing size) and the safe line (usable
minus the free fraction the method keeps for the CUDA context, temporaries and fragmentation; see
../shared/reference/catalog.md §6 and the source article §3: "an 80 GB card is safe to about 64 GB").

Updating reuses the same plot items (``setOpts``/``setData``) so a redraw per keystroke stays cheap.

Start-up: the legend and the caption (the figures as text) are plain Qt and shown at once; the plot itself
(pyqtgraph, numpy) is built through :func:`gpudesk.ui.startup.when_charts_ready`, i.e. right away normally and
after the window's first paint when the chart is part of it. Bars set before then are drawn when it is built.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from gpudesk.units import GIB, format_gib
from gpudesk.ui.startup import when_charts_ready

if TYPE_CHECKING:
    import numpy as np
    import pyqtgraph as pg

#: Fixed colours for the usual part names; other names take the fallback cycle in order of appearance.
PART_COLORS: dict[str, str] = {
    "weights": "#1f5fa8",
    "master_weights": "#3d7cc9",
    "gradients": "#6fa3e0",
    "optimizer_states": "#a9c8ee",
    "lora_adapters": "#6a4c93",
    "modules_to_save_copies": "#9d7cc1",
    "activations": "#e08a1e",
    "logits": "#f2b56b",
    "kv_cache": "#2e8b57",
    "prefill_workspace": "#8fc9a3",
    "gathered_layers": "#17becf",
    "cuda_context": "#7f7f7f",
    "framework_overhead": "#a6a6a6",
    "fragmentation": "#d0d0d0",
}
_FALLBACK = ["#b0413e", "#8c564b", "#17becf", "#bcbd22", "#e377c2", "#7f7f7f", "#393b79", "#637939"]
SAFE_COLOR = "#c62828"
USABLE_COLOR = "#333333"


def gib_unbroken(value: float) -> str:
    """format_gib with a no-break space between the figure and "GiB": a wrapped label keeps them on one line."""
    return format_gib(value).replace(" ", "\u00a0")


@dataclass(frozen=True)
class MemoryBarSpec:
    """What one bar shows.

    Attributes:
        label: x-axis label (card name, "8 x H100 SXM" ...).
        parts: (part name, bytes) in stacking order, bottom first. Bytes per GPU.
        usable_bytes: memory the card can actually allocate, or None when unknown (no mark drawn).
        safe_bytes: the safe line in bytes, or None (no mark drawn).
    """

    label: str
    parts: list[tuple[str, float]] = field(default_factory=list)
    usable_bytes: float | None = None
    safe_bytes: float | None = None

    @property
    def total_bytes(self) -> float:
        return float(sum(size for _, size in self.parts))

    @property
    def need_bytes(self) -> float:
        """What must fit on the card: the parts less those outside its reported total (paged optimizer states in
        CUDA unified memory, drawn as their own part; :attr:`gpudesk.sizing.MemoryEstimate.device_need_bytes`)."""
        from gpudesk.sizing.estimate import OFF_CARD_PARTS

        return float(sum(size for name, size in self.parts if name not in OFF_CARD_PARTS))


def part_color(name: str, order: list[str]) -> str:
    """Colour of a part: the fixed one for known names, otherwise the fallback cycle by first appearance."""
    if name in PART_COLORS:
        return PART_COLORS[name]
    if name not in order:
        order.append(name)
    return _FALLBACK[order.index(name) % len(_FALLBACK)]


class ChartLegend(QWidget):
    """A legend under a plot (swatch + plain-text name per entry, in a grid), so it never hides bars."""

    def __init__(self, parent: QWidget | None = None, columns: int = 4):
        super().__init__(parent)
        self._columns = columns
        self._grid = QGridLayout(self)
        self._grid.setContentsMargins(4, 0, 4, 0)
        self._grid.setHorizontalSpacing(12)
        self._grid.setVerticalSpacing(2)
        self.entries: list[str] = []

    def set_entries(self, entries: list[tuple[str, str, str]]) -> None:
        """``entries``: (name, colour, style) with style "box", "line" or "dash"."""
        while self._grid.count():
            item = self._grid.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.hide()
                widget.setParent(None)
                widget.deleteLater()
        self.entries = [name for name, _, _ in entries]
        for index, (name, color, style) in enumerate(entries):
            cell = QWidget(self)
            row = QHBoxLayout(cell)
            row.setContentsMargins(0, 0, 0, 0)
            row.setSpacing(4)
            swatch = QLabel(cell)
            if style == "box":
                swatch.setFixedSize(12, 12)
                swatch.setStyleSheet(f"background: {color}; border: 1px solid #888;")
            else:
                swatch.setFixedSize(18, 3 if style == "line" else 2)
                border = "dashed" if style == "dash" else "solid"
                swatch.setStyleSheet(f"border-top: 2px {border} {color};")
            label = QLabel(name, cell)
            label.setTextFormat(Qt.TextFormat.PlainText)
            row.addWidget(swatch)
            row.addWidget(label)
            row.addStretch(1)
            self._grid.addWidget(cell, index // self._columns, index % self._columns)


class MemoryBreakdownChart(QWidget):
    """A pyqtgraph plot of stacked per-GPU memory parts (GiB) with usable and safe-line marks.

    ``part_names`` maps part keys to translated display names for the legend; unknown keys are shown as
    they are with underscores turned into spaces.
    """

    BAR_WIDTH = 0.6

    def __init__(self, parent: QWidget | None = None, part_names: dict[str, str] | None = None):
        super().__init__(parent)
        self._part_names = dict(part_names or {})
        self._fallback_order: list[str] = []
        self._items: dict[str, pg.BarGraphItem] = {}
        self._specs: list[MemoryBarSpec] = []
        self.plot: pg.PlotWidget | None = None  # built by _build_plot
        # Holds the plot's place (same stretch, white like the plot) until the plot is built.
        self._plot_slot = QLabel(self.tr("Drawing the chart…"), self)
        self._plot_slot.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._plot_slot.setStyleSheet("background: white; color: #888888;")
        self.legend = ChartLegend(self, columns=3)
        self.caption = QLabel(self)
        self.caption.setTextFormat(Qt.TextFormat.PlainText)
        self.caption.setWordWrap(True)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.addWidget(self._plot_slot, 1)
        self._layout.addWidget(self.legend)
        self._layout.addWidget(self.caption)
        self.update_count = 0
        self._legend_keys: list[str] | None = None
        self._ticks: list[tuple[float, str]] | None = None
        self._top: float | None = None
        when_charts_ready(self._build_plot, self)

    def _build_plot(self) -> None:
        """Create the pyqtgraph plot in place of the "Drawing the chart…" stand-in and draw the bars set so far."""
        import pyqtgraph as pg

        if self.plot is not None:
            return
        plot = pg.PlotWidget(self, background="w")
        plot.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # no keyboard action; the caption gives the figures as text
        plot.viewport().setFocusPolicy(Qt.FocusPolicy.NoFocus)
        plot.setMenuEnabled(False)
        plot.setMouseEnabled(x=False, y=False)
        plot.hideButtons()
        plot.showGrid(x=False, y=True, alpha=0.25)
        plot.setLabel("left", self.tr("Memory per GPU (GiB)"))
        self._safe = pg.PlotDataItem(pen=pg.mkPen(SAFE_COLOR, width=2, style=Qt.PenStyle.DashLine), connect="pairs")
        self._usable = pg.PlotDataItem(pen=pg.mkPen(USABLE_COLOR, width=2), connect="pairs")
        plot.addItem(self._usable)
        plot.addItem(self._safe)
        for axis in ("left", "bottom"):
            plot.getAxis(axis).setTextPen("#222222")
            plot.getAxis(axis).setPen("#666666")
        self._layout.replaceWidget(self._plot_slot, plot)
        self._plot_slot.hide()
        self._plot_slot.deleteLater()
        self.plot = plot
        self._draw()

    @property
    def plot_built(self) -> bool:
        """True once the pyqtgraph plot exists (see the module docstring: it may follow the first paint)."""
        return self.plot is not None

    def part_display_name(self, key: str) -> str:
        return self._part_names.get(key, key.replace("_", " "))

    def specs(self) -> list[MemoryBarSpec]:
        return list(self._specs)

    def set_bars(self, specs: list[MemoryBarSpec], caption: str = "") -> None:
        """Redraw with these bars (reusing plot items). ``caption`` is shown under the plot as plain text."""
        self._specs = list(specs)
        keys = self._keys()
        if keys != self._legend_keys:
            self._legend_keys = list(keys)
            entries = [(self.part_display_name(k), part_color(k, self._fallback_order), "box") for k in keys]
            entries += [(self.tr("Usable capacity"), USABLE_COLOR, "line"), (self.tr("Safe line"), SAFE_COLOR, "dash")]
            self.legend.set_entries(entries)
        self.caption.setText(caption or self.default_caption(specs))
        self._draw()
        self.update_count += 1

    def _keys(self) -> list[str]:
        keys: list[str] = []
        for spec in self._specs:
            for key, _ in spec.parts:
                if key not in keys:
                    keys.append(key)
        return keys

    def _draw(self) -> None:
        """Draw :attr:`_specs` on the plot, once it is built."""
        if self.plot is None:
            return
        import numpy as np
        import pyqtgraph as pg

        specs, keys = self._specs, self._keys()
        xs = np.arange(len(specs), dtype=float)
        bottoms = np.zeros(len(specs))
        for key in keys:
            heights = np.array([dict(spec.parts).get(key, 0.0) for spec in specs], dtype=float) / GIB
            item = self._items.get(key)
            if item is None:
                color = part_color(key, self._fallback_order)
                item = pg.BarGraphItem(x=xs, height=heights, y0=bottoms.copy(), width=self.BAR_WIDTH, brush=color, pen=pg.mkPen("#ffffff", width=0.5))
                self._items[key] = item
                self.plot.addItem(item)
            else:
                item.setOpts(x=xs, height=heights, y0=bottoms.copy(), width=self.BAR_WIDTH)
                item.setVisible(True)
            bottoms = bottoms + heights
        for key, item in list(self._items.items()):
            if key not in keys:
                self.plot.removeItem(item)
                del self._items[key]
        self._usable.setData(*self._marks(specs, "usable_bytes"))
        self._safe.setData(*self._marks(specs, "safe_bytes"))
        # Axes are re-rendered only when their ticks or range change: keep both stable while the user types
        # (the usable-capacity mark usually sets the top), which keeps a keystroke's repaint cheap.
        short = len(specs) > 2
        ticks = [(float(i), f"#{i + 1}" if short else spec.label) for i, spec in enumerate(specs)]
        if ticks != self._ticks:
            self._ticks = ticks
            self.plot.getAxis("bottom").setTicks([ticks])
            self.plot.setXRange(-0.6, max(len(specs) - 0.4, 0.6), padding=0)
        top = max([float(b) for b in bottoms] + [(s.usable_bytes or 0) / GIB for s in specs] + [1.0]) * 1.12
        if self._top is None or top > self._top or top < 0.7 * self._top:
            self._top = top
            self.plot.setYRange(0, top, padding=0)

    def _marks(self, specs: list[MemoryBarSpec], attr: str) -> tuple[np.ndarray, np.ndarray]:
        import numpy as np

        xs: list[float] = []
        ys: list[float] = []
        half = self.BAR_WIDTH / 2 + 0.08
        for i, spec in enumerate(specs):
            value = getattr(spec, attr)
            if value is None:
                continue
            xs += [i - half, i + half]
            ys += [value / GIB, value / GIB]
        return np.array(xs, dtype=float), np.array(ys, dtype=float)

    def default_caption(self, specs: list[MemoryBarSpec]) -> str:
        """One line per bar: total against the safe line, with the headroom or the overshoot. A figure and its unit
        are joined by a no-break space, so the word-wrapped caption never leaves "GiB" alone on the next line."""
        lines = []
        for index, spec in enumerate(specs):
            if len(specs) > 2:
                spec = MemoryBarSpec(f"#{index + 1} {spec.label}", spec.parts, spec.usable_bytes, spec.safe_bytes)
            if spec.safe_bytes is None:
                lines.append(self.tr("{0}: {1} per GPU (no safe line known)").format(spec.label, gib_unbroken(spec.need_bytes)))
                continue
            margin = spec.safe_bytes - spec.need_bytes
            if margin >= 0:
                text = self.tr("{0}: {1} per GPU, {2} under the safe line of {3}")
            else:
                text = self.tr("{0}: {1} per GPU, {2} OVER the safe line of {3}")
            lines.append(text.format(spec.label, gib_unbroken(spec.need_bytes), gib_unbroken(abs(margin)), gib_unbroken(spec.safe_bytes)))
        return "\n".join(lines)
