"""The monitor's plots: utilization, memory and PCIe RX/TX on one shared time axis, plus a panel for power,
temperature and clocks. One curve per shown GPU (colours follow the GPU index).

Drawing cost does not grow with the history: on every refresh each curve receives only the samples inside
the visible time range (clip to view), reduced to about two points per pixel column by min/max (peak)
decimation from the buffer's pyramid (:meth:`HistoryBuffer.decimated`); the data themselves are kept whole.
A value that could not be read is NaN and drawn as a gap (``connect="finite"``), never as 0.

PCIe is drawn as a share of the link per direction (throughput / per-direction capacity of the link's
maximum generation x width, PCIe base specification rates as in ``gpudesk.nvml.pcie``) when every
shown GPU's link is known; the plot title names the link and whether it was read from NVML or assumed from
the catalog GPU model picked for a dmon log. Otherwise the plots fall back to MB/s (decimal, dmon's own unit) and
say why.

A short history (a few sampling rounds, e.g. the one-round demo) is drawn with a dot per sample, since a line
needs two points, and the whole-run view is padded so the first and last samples are not on the frame's edge.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QPointF, QRectF, QTimer, Signal
from PySide6.QtGui import QBrush, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsView, QVBoxLayout, QWidget

from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core.ring_buffer import HistoryBuffer
from gpudesk.ui.monitor.display import gpu_color, shown
from gpudesk.ui.monitor.empty_notes import EmptyNotes
from gpudesk.ui.monitor.plot_items import TimePlot, TimeView
from gpudesk.ui.monitor.time_axis import TimeAxis
from gpudesk.ui.monitor.view_range import can_place_x_range, place_x_range

PCIE_METRICS = (m.PCIE_RX, m.PCIE_TX)
MAIN_METRICS = (m.GPU_UTIL, m.MEM_USED, m.PCIE_RX, m.PCIE_TX)
SIDE_METRICS = (m.POWER, m.GPU_TEMP, m.SM_CLOCK, m.MEM_UTIL)
PLOTTED = MAIN_METRICS + SIDE_METRICS
# Samples scrolled out of view that a followed view's paths may keep before they are built again: each tick then
# extends the paths (microseconds) and every 64th builds them (~1 ms for 8 GPUs x 9 series), while the paths
# drawn stay within 64 points of the view's.
PATH_SLACK_ROWS = 64
SPARSE_TICKS = 5  # histories up to this many sampling rounds also get a dot per sample (one round has no line)

WINDOWS_S: tuple[tuple[str, float | None], ...] = (  # labels are translated by the tab (context MonitorTab)
    (QT_TRANSLATE_NOOP("MonitorTab", "1 min"), 60.0),
    (QT_TRANSLATE_NOOP("MonitorTab", "5 min"), 300.0),
    (QT_TRANSLATE_NOOP("MonitorTab", "15 min"), 900.0),
    (QT_TRANSLATE_NOOP("MonitorTab", "1 h"), 3600.0),
    (QT_TRANSLATE_NOOP("MonitorTab", "6 h"), 21600.0),
    (QT_TRANSLATE_NOOP("MonitorTab", "24 h"), 86400.0),
    (QT_TRANSLATE_NOOP("MonitorTab", "72 h"), 259200.0),
    (QT_TRANSLATE_NOOP("MonitorTab", "Whole run"), None),
)


def finite_runs_path(x: np.ndarray, y: np.ndarray) -> QPainterPath:
    """A path joining each run of consecutive readable samples (``y`` finite; NaN is a value that could not be
    read, a gap); a lone readable sample between gaps has no line. Each run is one polygon added to the path,
    filled from the arrays as pyqtgraph's ``arrayToQPath`` fills its polygon for data without gaps."""
    path = QPainterPath()
    readable = np.isfinite(y)
    bounds = np.flatnonzero(np.diff(np.concatenate(([False], readable, [False])).astype(np.int8)))
    for start, stop in zip(bounds[0::2].tolist(), bounds[1::2].tolist()):
        polygon = pg.functions.create_qpolygonf(stop - start)
        points = pg.functions.ndarray_from_qpolygonf(polygon)
        points[:, 0] = x[start:stop]
        points[:, 1] = y[start:stop]
        path.addPolygon(polygon)
    return path


class _Series(pg.GraphicsObject):
    """Every GPU's curve of one series in one plot, drawn by one item (issue 15: one ``set_columns`` per series
    and tick instead of one ``setData`` per GPU, and one paint call instead of one per curve).

    Each curve is a path through the samples (:func:`finite_runs_path`: NaN, a value that could not be read,
    is a gap), stroked with a 1-pixel pen in the GPU's colour (dashed for the memory clock), without
    anti-aliasing, in GPU order, as separate PlotCurveItems drew them. Paths are built once per data change;
    following a live run, where the new samples are the old ones (less those scrolled out of view) plus the
    newest, the paths are extended by the newest samples instead (:meth:`_added_rows`), and built again once
    they hold :data:`PATH_SLACK_ROWS` samples more than the view. The bounding rectangle is the view's visible
    rectangle: the plots set every range themselves (no auto-range) and the view clips its children, so data
    bounds are never computed.
    """

    def __init__(self, dashed: bool = False):
        super().__init__()
        self._dashed = dashed
        self._pens: dict[int, QPen] = {}
        self._dot_styles: dict[int, tuple[QPen, QBrush]] = {}
        self._x = np.empty(0)
        self._y = np.empty((0, 0), dtype=np.float32)
        self._gpus: list[int] = []
        self._paths: list[QPainterPath] | None = None
        self._path_rows = 0  # samples in each path (those scrolled out of view included)
        self._path_open: list[bool] = []  # per path: its last sample was readable (the next one continues it)
        self.hidden: set[int] = set()
        self.dots = False  # also a dot on every sample: a short history (one round has no line to draw)

    def set_columns(self, x: np.ndarray, y: np.ndarray, gpus: list[int], dots: bool = False) -> None:
        """Draw ``y[:, j]`` over ``x`` for GPU ``gpus[j]``; with ``dots``, a dot on every readable sample too."""
        x = np.array(x, dtype=np.float64)  # a copy: the history shifts its arrays in place when full
        gpus = list(gpus)
        added = self._added_rows(x, y, gpus) if self._paths is not None else None
        if added is None or self._path_rows + added > len(x) + PATH_SLACK_ROWS:
            self._paths = None  # built again by the next paint
        elif added:
            self._extend_paths(x[-added:], y[-added:])
        self._x, self._y, self._gpus, self.dots = x, y, gpus, dots
        self.update()

    def _added_rows(self, x: np.ndarray, y: np.ndarray, gpus: list[int]) -> int | None:
        """How many rows were added at the end when ``(x, y)`` is the drawn data less some leading rows plus
        new ones (a followed view moving on); None otherwise (another span, zoom level, decimation or GPUs)."""
        old_x, old_y = self._x, self._y
        if gpus != self._gpus or not old_x.size or not x.size or y.shape[1:] != old_y.shape[1:]:
            return None
        first = int(np.searchsorted(old_x, x[0]))
        overlap = old_x.size - first
        if first >= old_x.size or old_x[first] != x[0] or overlap > x.size:
            return None
        if not (np.array_equal(old_x[first:], x[:overlap])
                and np.array_equal(old_y[first:], y[:overlap], equal_nan=True)):
            return None
        return x.size - overlap

    def _extend_paths(self, x: np.ndarray, y: np.ndarray) -> None:
        """Continue each GPU's path with the rows ``(x, y)`` as :func:`finite_runs_path` draws them: a readable
        sample after a readable one is joined to it, one after a gap starts a new stroke."""
        xs = x.tolist()
        for j, path in enumerate(self._paths or ()):
            joined = self._path_open[j]
            for xi, value in zip(xs, y[:, j].tolist()):
                if math.isfinite(value):
                    if joined:
                        path.lineTo(xi, value)
                    else:
                        path.moveTo(xi, value)
                    joined = True
                else:
                    joined = False
            self._path_open[j] = joined
        self._path_rows += len(xs)

    def dot_points(self, gpu: int) -> tuple[np.ndarray, np.ndarray]:
        """The samples of ``gpu`` drawn as dots (none for a long history, or NaN, unreadable, samples)."""
        x, y = self.column(gpu)
        ok = np.isfinite(y)
        return (x[ok], y[ok]) if self.dots else (x[:0], y[:0])

    def column(self, gpu: int) -> tuple[np.ndarray, np.ndarray]:
        if gpu not in self._gpus:
            return np.empty(0), np.empty(0, dtype=np.float32)
        return self._x, self._y[:, self._gpus.index(gpu)]

    def _pen(self, gpu: int) -> QPen:
        pen = self._pens.get(gpu)
        if pen is None:
            pen = pg.mkPen(gpu_color(gpu), width=1)
            if self._dashed:
                pen.setStyle(pg.QtCore.Qt.PenStyle.DashLine)
            self._pens[gpu] = pen
        return pen

    def _dot_style(self, gpu: int) -> tuple[QPen, QBrush]:
        """The dots' pen and brush for ``gpu``, made once: filled in the GPU's colour, hollow when dashed."""
        style = self._dot_styles.get(gpu)
        if style is None:
            colour = pg.mkColor(gpu_color(gpu))
            style = self._dot_styles[gpu] = (pg.mkPen(colour), pg.mkBrush(None) if self._dashed else pg.mkBrush(colour))
        return style

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        view = self.getViewBox()
        return view.viewRect() if view is not None else QRectF()

    def paths(self) -> list[QPainterPath]:
        """Each GPU's path (in GPU order), built when the data changed other than by new rows at the end."""
        if self._paths is None:
            self._paths = [finite_runs_path(self._x, self._y[:, j]) for j in range(len(self._gpus))]
            self._path_rows = len(self._x)
            self._path_open = np.isfinite(self._y[-1]).tolist() if len(self._x) else []
        return self._paths

    def paint(self, painter: QPainter, *_args) -> None:
        paths = self.paths()
        if not self._x.size:
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        for gpu, path in zip(self._gpus, paths):
            if gpu not in self.hidden:
                painter.setPen(self._pen(gpu))
                painter.drawPath(path)
        if self.dots:
            self._paint_dots(painter)

    def _paint_dots(self, painter: QPainter) -> None:
        """A 7-pixel dot on every readable sample, in the GPU's colour (hollow for the dashed series), drawn in
        device pixels so that it keeps its size whatever the view's scale."""
        to_device = painter.transform()
        painter.resetTransform()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        for gpu in self._gpus:
            if gpu in self.hidden:
                continue
            pen, brush = self._dot_style(gpu)
            painter.setPen(pen)
            painter.setBrush(brush)
            for x, y in zip(*self.dot_points(gpu)):
                painter.drawEllipse(to_device.map(QPointF(float(x), float(y))), 3.5, 3.5)
        painter.setTransform(to_device)


class _Curve:
    """One GPU's curve of a :class:`_Series`: its data and visibility, as a PlotCurveItem would show them."""

    def __init__(self, series: _Series, gpu: int):
        self.series = series
        self.gpu = gpu

    def getData(self) -> tuple[np.ndarray, np.ndarray]:  # noqa: N802 - pyqtgraph's name
        return self.series.column(self.gpu)

    def isVisible(self) -> bool:  # noqa: N802 - Qt's name
        return self.series.isVisible() and self.gpu not in self.series.hidden

    def setVisible(self, visible: bool) -> None:  # noqa: N802 - Qt's name
        if visible:
            self.series.hidden.discard(self.gpu)
        else:
            self.series.hidden.add(self.gpu)
        self.series.update()


@dataclass
class LinkInfo:
    """Per-direction PCIe capacity of one GPU's link and the text that names it (for titles/tooltips)."""

    bytes_per_s: float | None
    text: str
    assumed: bool = False


class MonitorPlots(QWidget):
    """Seven linked plots over a :class:`HistoryBuffer`.

    Signals:
        crosshairMoved(float): time (s since the epoch) under the mouse.
        spanChanged(float, float): the statistics span (LinearRegionItem) moved.
        followChanged(bool): following the newest sample was switched on or off (pan/zoom switches it off).
        rangeDrawn(float, float, int): a refresh drew t0 .. t1 with at most about that many points per curve.
    """

    crosshairMoved = Signal(float)
    """The mouse moved over a plot: the time t under it (s on the history's time axis)."""
    spanChanged = Signal(float, float)
    """The statistics span was moved: its start and end x0, x1 (s on the history's time axis)."""
    followChanged = Signal(bool)
    """Following the newest samples was turned on or off: True when it follows."""
    rangeDrawn = Signal(float, float, int)
    """A refresh drew the curves: t0, t1 (s) and the points per curve (the GPM panels follow)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.buffer: HistoryBuffer | None = None
        self.links: dict[int, LinkInfo] = {}
        self.gpu_labels: dict[int, str] = {}
        self.visible_gpus: list[int] = []
        self.window_s: float | None = 300.0
        self.follow = True
        self._series: dict[str, _Series] = {}  # "metric" or "metric:dash" -> every GPU's curve of it
        self._curves: dict[tuple[str, int], _Curve] = {}
        self._pcie_share = False
        self._setting_range = False
        self.last_refresh_points = 0
        self._y_ranges: dict[str, tuple[float, float]] = {}

        self.view = pg.GraphicsLayoutWidget(self)
        self.view.setBackground("w")
        # pyqtgraph caches the background as a pixmap of the whole view, blitted on every repaint; a plain white
        # fill is cheaper (issue 15: about 3 % of the app's CPU at 1 Hz, measured side by side)
        self.view.setCacheMode(QGraphicsView.CacheModeFlag.CacheNone)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        self.plots: dict[str, pg.PlotItem] = {}
        self._time_axes: dict[pg.ViewBox, TimeAxis] = {}  # each plot's bottom axis (the time), by its view
        rows = [(MAIN_METRICS[i], SIDE_METRICS[i] if i < len(SIDE_METRICS) else None) for i in range(4)]
        first: pg.PlotItem | None = None
        for row, (left, right) in enumerate(rows):
            for col, metric in enumerate((left, right)):
                if metric is None:
                    continue
                axis = TimeAxis()
                plot = TimePlot(viewBox=TimeView(), axisItems={"bottom": axis})
                self.view.addItem(plot, row=row, col=col)
                # No grid: pyqtgraph paints grid lines through the axis picture, which cost ~60 ms per repaint of
                # the eight plots in software rendering (measured), far more than the curves themselves.
                for side in ("left", "bottom"):
                    plot.getAxis(side).setPen(pg.mkPen("#bbbbbb"))
                    plot.getAxis(side).setTextPen(pg.mkPen("#404040"))
                # Units are already scaled (GiB, MHz, %). The hidden top and right axes follow the view too: with
                # an SI prefix they would re-typeset their (unshown) label on every range change, 8 per tick.
                for side in ("left", "top", "right"):
                    plot.getAxis(side).enableAutoSIPrefix(False)
                # The value axis changes only with its range; its inward ticks overlap the plot area, which is
                # repainted every tick: keep it as a pixmap instead of replaying its drawing each time.
                plot.getAxis("left").setCacheMode(pg.QtWidgets.QGraphicsItem.CacheMode.DeviceCoordinateCache)
                plot.setMenuEnabled(False)
                plot.hideButtons()
                plot.getViewBox().setMouseEnabled(x=True, y=False)
                plot.getViewBox().sigRangeChangedManually.connect(self._manual_range)
                if first is None:
                    first = plot
                else:
                    plot.setXLink(first)
                line = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen("#888888", width=1))
                line.setVisible(False)
                plot.addItem(line, ignoreBounds=True)
                plot._gpudesk_crosshair = line  # type: ignore[attr-defined]
                self.plots[metric] = plot
                self._time_axes[plot.getViewBox()] = axis
        self.view.ci.layout.setColumnStretchFactor(0, 3)
        self.view.ci.layout.setColumnStretchFactor(1, 2)
        self._style_axes()
        self._empty = EmptyNotes(self.plots)
        self.empty_notes = self._empty.notes  # metric -> the note its panel shows when the source lacks it
        self.region = pg.LinearRegionItem(brush=pg.mkBrush(70, 130, 180, 40))
        self.region.setZValue(-10)
        self.region.setVisible(False)
        self.plots[m.GPU_UTIL].addItem(self.region, ignoreBounds=True)
        self.region.sigRegionChangeFinished.connect(self._region_moved)
        self._mouse_proxy = pg.SignalProxy(self.view.scene().sigMouseMoved, rateLimit=30, slot=self._mouse_moved)
        self._range_timer = QTimer(self)
        self._range_timer.setSingleShot(True)
        self._range_timer.setInterval(30)
        self._range_timer.timeout.connect(self.refresh)
        first.getViewBox().sigXRangeChanged.connect(self._x_range_changed)

    # ----------------------------------------------------------------- configuration
    def _style_axes(self) -> None:
        for metric, plot in self.plots.items():
            s = shown(metric)
            if metric == m.SM_CLOCK:
                title = QCoreApplication.translate("Monitor", "SM clock (solid) and memory clock (dashed)")
            else:
                title = s.label
            plot.setTitle(title, size="9pt")
            plot.setLabel("left", s.unit)
            plot.getViewBox().disableAutoRange()
            if metric not in (m.PCIE_TX, m.MEM_UTIL):  # one shared time axis: only the bottom row shows it
                plot.hideAxis("bottom")

    def set_source(self, buffer: HistoryBuffer, gpu_labels: dict[int, str], links: dict[int, LinkInfo]) -> None:
        """Show ``buffer``; ``gpu_labels[col]`` names each GPU column, ``links[col]`` its PCIe link."""
        for key, series in self._series.items():
            self.plots[key.split(":")[0]].removeItem(series)
        self._series.clear()
        self._curves.clear()
        self.buffer = buffer
        self._empty.set_buffer(buffer)
        self.gpu_labels = dict(gpu_labels)
        self.links = dict(links)
        self.visible_gpus = list(range(min(buffer.n_gpus, 8)))
        self._update_pcie_titles()
        self.refresh()

    def set_time_basis(self, basis: str) -> None:
        """Label the time axis for a ``gpudesk.telemetry.core.timebase`` basis: local time, dmon's printed time (UTC),
        time of day, or seconds from the first row."""
        for plot in self.plots.values():
            plot.getAxis("bottom").set_basis(basis)

    def set_links(self, links: dict[int, LinkInfo]) -> None:
        self.links = dict(links)
        self._update_pcie_titles()
        self.refresh()

    def set_visible_gpus(self, gpus: list[int]) -> None:
        """Draw only these GPU columns (the others keep recording)."""
        self.visible_gpus = sorted(set(gpus))
        for (_metric, gpu), curve in self._curves.items():
            curve.setVisible(gpu in self.visible_gpus)
        self._update_pcie_titles()
        self.refresh()

    def set_window(self, seconds: float | None) -> None:
        """Time window shown while following: seconds, or None for the whole run."""
        self.window_s = seconds
        self.set_follow(True)

    def set_follow(self, follow: bool) -> None:
        if follow != self.follow:
            self.follow = follow
            self.followChanged.emit(follow)
        self.refresh()

    def show_region(self, visible: bool) -> None:
        """Show the statistics span; placed over the middle third of the view when first shown."""
        if visible and not self.region.isVisible():
            x0, x1 = self.plots[m.GPU_UTIL].getViewBox().viewRange()[0]
            third = (x1 - x0) / 3
            self.region.setRegion((x0 + third, x1 - third))
        self.region.setVisible(visible)
        if visible:
            self._region_moved()

    def _update_pcie_titles(self) -> None:
        shown_links = [self.links.get(g) for g in self.visible_gpus]
        self._pcie_share = bool(shown_links) and all(li is not None and li.bytes_per_s for li in shown_links)
        texts = sorted({li.text for li in shown_links if li is not None})
        for metric in PCIE_METRICS:
            plot = self.plots[metric]
            if metric == m.PCIE_RX:
                direction = QCoreApplication.translate("Monitor", "PCIe RX (host to GPU)")
            else:
                direction = QCoreApplication.translate("Monitor", "PCIe TX (GPU to host)")
            if self._pcie_share:
                link = texts[0] if len(texts) == 1 else QCoreApplication.translate("Monitor", "each GPU's own link")
                plot.setTitle(QCoreApplication.translate("Monitor", "{d}: share of link, {link}").format(
                    d=direction, link=link), size="9pt")
                plot.setLabel("left", QCoreApplication.translate("Monitor", "% of link"))
            else:
                plot.setTitle(QCoreApplication.translate("Monitor", "{d}: link unknown, shown in MB/s").format(
                    d=direction), size="9pt")
                plot.setLabel("left", "MB/s")

    # ----------------------------------------------------------------- drawing
    def _series_item(self, metric: str, dashed: bool = False) -> _Series:
        key = metric + (":dash" if dashed else "")
        series = self._series.get(key)
        if series is None:
            series = _Series(dashed)
            self.plots[metric].addItem(series)
            self._series[key] = series
        return series

    def _curve(self, metric: str, gpu: int, dashed: bool = False) -> _Curve:
        key = (metric + (":dash" if dashed else ""), gpu)
        curve = self._curves.get(key)
        if curve is None:
            curve = _Curve(self._series_item(metric, dashed), gpu)
            curve.setVisible(gpu in self.visible_gpus)
            self._curves[key] = curve
        return curve

    def dot_points(self, metric: str, gpu: int, dashed: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """The samples of ``gpu`` drawn as dots in ``metric``'s plot: every readable one of a short history (a
        line needs two points), none once the history is longer than :data:`SPARSE_TICKS` rounds."""
        series = self._series.get(metric + (":dash" if dashed else ""))
        return series.dot_points(gpu) if series is not None else (np.empty(0), np.empty(0, dtype=np.float32))

    def visible_range(self) -> tuple[float, float] | None:
        """The time span to draw: the follow window ending at the newest sample, or the current view."""
        if self.buffer is None or self.buffer.span() is None:
            return None
        first, last = self.buffer.span()
        if self.follow and self.window_s is None and self.buffer.count <= SPARSE_TICKS:
            # a short run whole: half a sampling interval (at least 0.5 s) beyond the first and last samples
            pad = max(0.5, (last - first) / max(1, self.buffer.count - 1) / 2)
            return first - pad, last + pad
        if self.follow:
            start = first if self.window_s is None else max(first, last - self.window_s)
            if self.window_s is not None and last - first < self.window_s:
                return last - self.window_s, last
            return start, max(last, start + 1.0)
        x0, x1 = self.plots[m.GPU_UTIL].getViewBox().viewRange()[0]
        return x0, x1

    def refresh(self) -> None:
        """Recompute every shown curve for the visible range (cost bounded by the plot width).

        Y ranges are set here from the drawn (decimated) points, so pyqtgraph never scans curve data for
        auto-range; utilization and PCIe shares keep a fixed 0-100 % axis unless a value exceeds it.
        """
        rng = self.visible_range()
        if rng is None or self.buffer is None:
            return
        t0, t1 = rng
        if self.follow:
            self._set_time_range(t0, t1)
        width = max(200, int(self.plots[m.GPU_UTIL].getViewBox().width()))
        max_points = width  # one min/max pair per two pixel columns of the wide plots: peaks stay, painting halves
        points = 0
        kept = set(self.buffer.metrics)
        gpus = self.visible_gpus
        sparse = self.buffer.count <= SPARSE_TICKS  # a dot on every sample too (drawn by the series itself)
        for metric in PLOTTED:
            if metric not in kept:
                self._empty.update(metric, gpus)
            if metric not in kept or not self.plots[metric].isVisible():
                continue
            series = [(metric, False)]
            if metric == m.SM_CLOCK and m.MEM_CLOCK in kept:
                series.append((m.MEM_CLOCK, True))
            lo, hi = math.inf, -math.inf
            for name, dashed in series:
                x, y = self.buffer.decimated_columns(name, gpus, t0, t1, max_points)
                y = self._scale_columns(name, gpus, y)  # one array operation for every GPU of the series
                if y.size:
                    # fmin/fmax skip NaN (unreadable samples); all-NaN gives NaN, which the range ignores
                    lo = min(lo, float(np.fmin.reduce(y, axis=None)))
                    hi = max(hi, float(np.fmax.reduce(y, axis=None)))
                self._series_item(metric, dashed).set_columns(x, y, gpus, dots=sparse)
                points += len(x) * len(gpus)
                key = metric + (":dash" if dashed else "")
                for gpu in gpus:
                    if (key, gpu) not in self._curves:
                        self._curve(metric, gpu, dashed)
            self._set_y_range(metric, lo if math.isfinite(lo) else math.inf, hi if math.isfinite(hi) else -math.inf)
            if not math.isfinite(lo) or self.empty_notes[metric].isVisible():  # nothing drawn: say why
                self._empty.update(metric, gpus)
        self.last_refresh_points = points
        self.rangeDrawn.emit(float(t0), float(t1), max_points)
        # Settle the view matrices and axes now; otherwise pyqtgraph does it inside the paint and asks for a
        # second paint of the whole widget.
        self.view.scene().prepareForPaint()

    def _set_time_range(self, t0: float, t1: float) -> None:
        """Show ``t0 .. t1`` (s) on the first plot and on every other one the range its x-link gives it, set
        directly (issue 15: the link's signal chain cost ~40 % of a followed refresh).

        The ranges are those of pyqtgraph's ``ViewBox.linkedViewChanged`` (graphicsItems/ViewBox/ViewBox.py), in
        the same arithmetic: a view overlapping the first one by at least a third of either's width (the same
        column) is lined up with it pixel for pixel (a wider value axis shows a little less time), any other view
        gets the same range. Geometries are the views' rectangles in the widget's pixels (``screenGeometry``
        without its global offset, which cancels). Each range is placed without the views' signals
        (:mod:`gpudesk.ui.monitor.view_range`) and the shown time axes are told; a view in another state gets
        pyqtgraph's ``setXRange``.
        """
        first = self.plots[m.GPU_UTIL].getViewBox()  # the others are x-linked to it
        views = [first] + [plot.getViewBox() for plot in self.plots.values() if plot.getViewBox() is not first]
        widget = self.view
        self._setting_range = True
        for vb in views:  # a linked view told of another's change (in either direction) ignores it meanwhile
            vb.blockLink(True)
        try:
            self._place_x(first, t0, t1)
            vr = first.viewRect()
            vg = widget.mapFromScene(first.sceneBoundingRect()).boundingRect()
            for vb in views[1:]:
                sg = widget.mapFromScene(vb.sceneBoundingRect()).boundingRect()
                overlap = min(sg.right(), vg.right()) - max(sg.left(), vg.left())
                if vg.width() <= 0 or overlap < min(vg.width() / 3, sg.width() / 3):  # (first plot hidden: copy)
                    x1, x2 = vr.left(), vr.right()
                else:
                    upp = float(vr.width()) / vg.width()
                    x1 = vr.left() + (sg.x() - vg.x()) * upp
                    x2 = x1 + sg.width() * upp
                self._place_x(vb, x1, x2)
        finally:
            for vb in views:
                vb.blockLink(False)
            self._setting_range = False

    def _place_x(self, vb: pg.ViewBox, x1: float, x2: float) -> None:
        """``vb.setXRange(x1, x2, padding=0)``, without the signal chain where the view's state allows."""
        if not can_place_x_range(vb, x1, x2):
            vb.enableAutoRange(vb.XAxis, False)
            vb.setXRange(x1, x2, padding=0)
        elif place_x_range(vb, x1, x2):
            axis = self._time_axes[vb]
            if axis.isVisible():
                axis.linkedViewChanged(vb)

    def _set_y_range(self, metric: str, lo: float, hi: float) -> None:
        fixed = metric in (m.GPU_UTIL, m.MEM_UTIL) or (metric in PCIE_METRICS and self._pcie_share)
        if fixed:
            lo, hi = 0.0, max(100.0, hi if math.isfinite(hi) else 100.0)
        elif not math.isfinite(lo):
            return
        if hi <= lo:  # a flat series (TX 120 MB/s, 64 °C) is drawn mid-axis, not on the floor of [v, v + 1]
            pad = max(abs(lo) * 0.05, 1.0)
            lo, hi = lo - pad, hi + pad
        if self._y_ranges.get(metric) != (lo, hi):
            self._y_ranges[metric] = (lo, hi)
            self.plots[metric].setYRange(lo, hi, padding=0.05)

    def _scale_columns(self, metric: str, gpus: list[int], y: np.ndarray) -> np.ndarray:
        """``y`` (samples x GPUs) in the plot's unit: a share of each GPU's own link for PCIe, else scaled."""
        if metric in PCIE_METRICS and self._pcie_share:
            factors = [100.0 / li.bytes_per_s if (li := self.links.get(g)) is not None and li.bytes_per_s
                       else shown(metric).scale for g in gpus]
            return y * np.asarray(factors, dtype=np.float32)
        scale = shown(metric).scale
        return y if scale == 1.0 else y * np.float32(scale)

    # ----------------------------------------------------------------- interaction
    def _x_range_changed(self, *_args) -> None:
        if not self._setting_range and not self.follow:
            self._range_timer.start()

    def _manual_range(self, *_args) -> None:
        if self.follow:
            self.follow = False
            self.followChanged.emit(False)
        self._range_timer.start()

    def _region_moved(self, *_args) -> None:
        x0, x1 = self.region.getRegion()
        self.spanChanged.emit(float(x0), float(x1))

    def _mouse_moved(self, event) -> None:
        pos = event[0]
        for plot in self.plots.values():
            if plot.sceneBoundingRect().contains(pos):
                t = plot.getViewBox().mapSceneToView(pos).x()
                self.set_crosshair(t)
                if math.isfinite(t):
                    self.crosshairMoved.emit(float(t))
                return

    def set_crosshair(self, t: float | None) -> None:
        """Show the vertical read-out line at time ``t`` on every plot (None hides it)."""
        for plot in self.plots.values():
            line = plot._gpudesk_crosshair  # type: ignore[attr-defined]
            if t is None:
                line.setVisible(False)
            else:
                line.setPos(t)
                line.setVisible(True)

    def export_png(self, path: str) -> bool:
        """Save the plots as a PNG image; returns False when the file could not be written."""
        return self.view.grab().save(path, "PNG")
