"""Scatter chart of the GPUs in the current view with selectable axes; clicking a point selects that GPU."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from gpudesk.catalog import GPU
from gpudesk.catalog.fields import FIELDS_BY_KEY
from gpudesk.ui.catalog.table_model import field_header

AXIS_KEYS: tuple[str, ...] = (
    "bf16_dense_tflops",
    "memory_bandwidth_gbps",
    "memory_gb",
    "price_usd",
    "fp8_dense_tflops",
    "fp32_tflops",
    "tdp_w",
    "launch_year",
)
DEFAULT_X = "bf16_dense_tflops"
DEFAULT_Y = "memory_bandwidth_gbps"

_VENDOR_BRUSH = {"NVIDIA": pg.mkBrush(118, 185, 0, 200), "AMD": pg.mkBrush(237, 28, 36, 200)}
_OTHER_BRUSH = pg.mkBrush(80, 80, 200, 200)
_SELECTED_PEN = pg.mkPen("#0b3d6b", width=3)
_PLAIN_PEN = pg.mkPen("w", width=1)


class ChartView(QWidget):
    """``set_gpus`` draws the view; ``gpuClicked(gpu_id)`` fires when a point is clicked.

    ``value`` is a callable (gpu, key) -> number or None (the table model's, so user prices are used).
    GPUs without a value on either axis are left out and counted in the caption.
    """

    gpuClicked = Signal(str)
    """A point of the chart was clicked: the GPU's catalog id."""

    def __init__(self, value: Callable[[GPU, str], float | None], parent: QWidget | None = None):
        super().__init__(parent)
        self._value = value
        self._gpus: list[GPU] = []
        self._selected: str | None = None
        self._also_selected: set[str] = set()
        self._x = QComboBox(self)
        self._y = QComboBox(self)
        for combo, default in ((self._x, DEFAULT_X), (self._y, DEFAULT_Y)):
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(13)
            for key in AXIS_KEYS:
                combo.addItem(field_header(FIELDS_BY_KEY[key]), key)
            combo.setCurrentIndex(AXIS_KEYS.index(default))
            combo.currentIndexChanged.connect(self.redraw)
        self._x.setToolTip(self.tr("Value on the horizontal axis"))
        self._y.setToolTip(self.tr("Value on the vertical axis"))
        self._log = QCheckBox(self.tr("Lo&garithmic axes"), self)
        self._log.setToolTip(self.tr("Spread out the smaller GPUs when values span orders of magnitude"))
        self._log.setChecked(True)
        self._log.toggled.connect(self.redraw)
        x_label = QLabel(self.tr("&X axis:"), self)
        x_label.setBuddy(self._x)
        y_label = QLabel(self.tr("&Y axis:"), self)
        y_label.setBuddy(self._y)
        controls = QHBoxLayout()
        for widget in (x_label, self._x, y_label, self._y, self._log):
            controls.addWidget(widget)
        controls.addStretch(1)
        self._caption = QLabel(self)
        self._caption.setTextFormat(Qt.TextFormat.PlainText)
        self._caption.setWordWrap(True)

        self.plot = pg.PlotWidget(
            self, background="w", axisItems={"bottom": _SparseLogAxis("bottom"), "left": _SparseLogAxis("left")}
        )
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.plot.getPlotItem().setMenuEnabled(False)
        for axis in ("left", "bottom"):
            self.plot.getAxis(axis).setTextPen("k")
            self.plot.getAxis(axis).setPen("k")
        # A PlotDataItem (symbols, no line) follows the plot's log mode; a bare ScatterPlotItem would not.
        self.points = pg.PlotDataItem(pen=None, symbol="o")
        self.points.sigPointsClicked.connect(self._on_clicked)
        self.plot.addItem(self.points)
        # One label per GPU, added once and then moved/hidden: adding and removing items on every redraw
        # costs a signal disconnect each in pyqtgraph (see _label_for).
        self._labels: dict[str, pg.TextItem] = {}

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(controls)
        layout.addWidget(self.plot, 1)
        layout.addWidget(self._caption)

    def focus_chain(self) -> list[QWidget]:
        """The view's keyboard stops in layout order (the plot itself is for the mouse)."""
        return [self._x, self._y, self._log]

    def axes(self) -> tuple[str, str]:
        return self._x.currentData(), self._y.currentData()

    def set_axes(self, x_key: str, y_key: str) -> None:
        self._x.setCurrentIndex(AXIS_KEYS.index(x_key))
        self._y.setCurrentIndex(AXIS_KEYS.index(y_key))

    def set_gpus(self, gpus: list[GPU]) -> None:
        self._gpus = list(gpus)
        self.redraw()

    def set_selected(self, gpu_id: str | None, others: Sequence[str] = ()) -> None:
        """Highlight ``gpu_id`` (the current GPU) and ``others`` (the rest of the table's selection)."""
        self._selected = gpu_id
        self._also_selected = set(others)
        self.redraw()

    @property
    def scatter(self) -> pg.ScatterPlotItem:
        """The symbols of the plotted GPUs (``point.data()`` is the GPU id)."""
        return self.points.scatter

    def plotted_ids(self) -> list[str]:
        return [p.data() for p in self.scatter.points()]

    def redraw(self) -> None:
        x_key, y_key = self.axes()
        log = self._log.isChecked()
        spots, missing = [], []
        for gpu in self._gpus:
            x, y = self._value(gpu, x_key), self._value(gpu, y_key)
            if x is None or y is None or (log and (x <= 0 or y <= 0)):
                missing.append(gpu.id)
                continue
            selected = gpu.id == self._selected or gpu.id in self._also_selected
            spots.append(
                {
                    "pos": (float(x), float(y)),
                    "data": gpu.id,
                    "brush": _VENDOR_BRUSH.get(gpu.vendor, _OTHER_BRUSH),
                    "pen": _SELECTED_PEN if selected else _PLAIN_PEN,
                    "size": 18 if selected else 12,
                }
            )
        self.plot.setLogMode(x=log, y=log)
        self.points.setData(
            x=[s["pos"][0] for s in spots],
            y=[s["pos"][1] for s in spots],
            data=[s["data"] for s in spots],
            symbolBrush=[s["brush"] for s in spots],
            symbolPen=[s["pen"] for s in spots],
            symbolSize=[s["size"] for s in spots],
        )
        shown = set()
        for group in _label_groups(spots, log):
            # Points that (nearly) coincide share one label, "b200, b300, mi355x", instead of overprinting.
            first = group[0]
            label = self._label_for(first["data"])
            label.setText(", ".join(s["data"] for s in group))
            x, y = first["pos"]
            label.setPos(*((_log10(x), _log10(y)) if log else (x, y)))
            label.setVisible(True)
            shown.add(first["data"])
        for gpu_id, label in self._labels.items():
            if gpu_id not in shown:
                label.setVisible(False)
        self.plot.setLabel("bottom", field_header(FIELDS_BY_KEY[x_key]))
        self.plot.setLabel("left", field_header(FIELDS_BY_KEY[y_key]))
        text = self.tr("%n GPU(s) plotted; click a point to select it.", "", len(spots))
        if missing:
            text += " " + self.tr("Not plotted (no value on an axis): {0}.").format(", ".join(missing))
        self._caption.setText(text)
        self._fit(spots, log)

    def _fit(self, spots: list[dict], log: bool) -> None:
        """Show every point with a margin (labels are ignored for the range)."""
        if not spots:
            return
        conv = _log10 if log else float
        xs = [conv(s["pos"][0]) for s in spots]
        ys = [conv(s["pos"][1]) for s in spots]
        self.plot.setXRange(min(xs), max(xs) + (max(xs) - min(xs)) * 0.22 or 1.0, padding=0.06)
        self.plot.setYRange(min(ys), max(ys), padding=0.08)

    def _label_for(self, gpu_id: str) -> pg.TextItem:
        label = self._labels.get(gpu_id)
        if label is None:
            label = pg.TextItem(gpu_id, color="#333333", anchor=(0, 1))
            self.plot.addItem(label, ignoreBounds=True)
            self._labels[gpu_id] = label
        return label

    def _on_clicked(self, _item, points, _event=None) -> None:
        if len(points):
            self.gpuClicked.emit(points[0].data())


class _SparseLogAxis(pg.AxisItem):
    """On log axes spanning more than a decade, label only the 1, 2 and 5 ticks (the others would overlap)."""

    def logTickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph override
        strings = super().logTickStrings(values, scale, spacing)
        if len(values) <= 8:  # less than about a decade shown: every label fits
            return strings
        keep = []
        for value, text in zip(values, strings):
            mantissa = round(10 ** (value - math.floor(value)), 3)
            keep.append(text if mantissa in (1.0, 2.0, 5.0) else "")
        return keep


#: Points closer than this share of the plotted range on both axes share one label (labels of about ten
#: characters at the chart's default size span roughly that much).
LABEL_MERGE_FRACTION = 0.04


def _label_groups(spots: list[dict], log: bool) -> list[list[dict]]:
    """Spots grouped so that points within LABEL_MERGE_FRACTION of the range on both axes share a label."""
    conv = _log10 if log else float
    points = [(conv(s["pos"][0]), conv(s["pos"][1]), s) for s in spots]
    if not points:
        return []
    span_x = (max(p[0] for p in points) - min(p[0] for p in points)) or 1.0
    span_y = (max(p[1] for p in points) - min(p[1] for p in points)) or 1.0
    groups: list[tuple[float, float, list[dict]]] = []
    for x, y, spot in sorted(points, key=lambda p: (p[0], p[1])):
        for gx, gy, members in groups:
            if abs(x - gx) <= LABEL_MERGE_FRACTION * span_x and abs(y - gy) <= LABEL_MERGE_FRACTION * span_y:
                members.append(spot)
                break
        else:
            groups.append((x, y, [spot]))
    return [members for _x, _y, members in groups]


def _log10(value: float) -> float:
    return math.log10(value)
