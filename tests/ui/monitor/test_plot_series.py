"""The monitor's per-series drawing item: following a live run its paths are extended by the newest samples
instead of being rebuilt (issue 15); built or extended, they draw each run of readable samples as a line and
nothing for unreadable (NaN) ones, pixel for pixel as a path made point by point, and as pyqtgraph's
``arrayToQPath`` where every sample is readable."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPen, QTransform

from PySide6.QtGui import QPainterPath

from gpudesk.ui.monitor.plots import _Series, finite_runs_path

T0 = 1.767e9


def _history(rows: int = 800) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    x = T0 + np.arange(rows, dtype=np.float64)
    y = (50 + 40 * np.sin(np.arange(rows)[:, None] / 17.0 + np.arange(3)) + rng.normal(0, 3, (rows, 3))).astype(np.float32)
    y[120:126, 1] = np.nan  # six unreadable samples
    y[200, 1], y[202, 1] = np.nan, np.nan  # a lone readable sample between two gaps (no line to draw)
    y[330:331, 0] = np.nan  # a gap that is, for a while, the newest row
    y[500:, 2] = np.nan  # a GPU that stops answering
    return x, y


def _point_by_point(x: np.ndarray, y: np.ndarray) -> QPainterPath:
    """The reference: a line from each readable sample to the next readable one, a new stroke after a gap."""
    path, joined = QPainterPath(), False
    for xi, value in zip(x.tolist(), y.tolist()):
        if np.isfinite(value):
            (path.lineTo if joined else path.moveTo)(xi, value)
        joined = bool(np.isfinite(value))
    return path


def _render(paths: list, x0: float, x1: float) -> QImage:
    image = QImage(640, 200, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.white)
    painter = QPainter(image)
    transform = QTransform()
    transform.scale(640 / (x1 - x0), -2.0)
    transform.translate(-x0, -100.0)
    painter.setTransform(transform)
    pen = QPen(QColor(0, 0, 0))
    pen.setCosmetic(True)
    painter.setPen(pen)
    for path in paths:
        painter.drawPath(path)
    painter.end()
    return image


def test_followed_view_extends_the_paths_and_draws_each_readable_run(qtbot):
    x, y = _history()
    series = _Series()
    extended = 0
    for start in range(0, 380, 3):  # a view 300 samples wide moving on by 3 samples, then growing
        end = start + 300 + max(0, start - 300)
        series.set_columns(x[start:end], y[start:end], [0, 1, 2])
        paths = series.paths()
        rows = series._path_rows  # the paths hold the view plus the samples scrolled out since the last build
        extended += rows > end - start
        reference = [_point_by_point(x[end - rows:end], y[end - rows:end, j]) for j in range(3)]
        for j in range(3):  # drawn the same, pixel for pixel, over the view
            assert _render([paths[j]], x[start], x[end - 1]) == _render([reference[j]], x[start], x[end - 1]), (start, j)
    assert extended > 100  # most moves extended the paths (a rebuild every ~21 moves of 3: 64 samples of slack)


def test_other_changes_rebuild_the_paths(qtbot):
    x, y = _history()
    series = _Series()
    series.set_columns(x[0:300], y[0:300], [0, 1, 2])
    built = series.paths()
    series.set_columns(x[10:310], y[10:310], [0, 1, 2])
    assert series.paths() is built and series._path_rows == 310  # moved on: extended
    changed = y[20:320].copy()
    changed[5, 0] += 1.0  # an earlier sample differs (another decimation, a reloaded history)
    series.set_columns(x[20:320], changed, [0, 1, 2])
    assert series.paths() is not built and series._path_rows == 300
    rebuilt = series.paths()
    series.set_columns(x[20:320], y[20:320, :2], [0, 1])  # other GPUs shown
    assert series.paths() is not rebuilt and len(series.paths()) == 2
    series.set_columns(x[0:300], y[0:300, :2], [0, 1])  # panned back
    assert series._path_rows == 300 and len(series.paths()) == 2


def test_a_history_without_gaps_is_drawn_as_pyqtgraph_draws_it(qtbot):
    x, y = _history()
    for j in range(3):
        ours, theirs = finite_runs_path(x[:120], y[:120, j]), pg.arrayToQPath(x[:120], y[:120, j], connect="finite")
        assert _render([ours], x[0], x[119]) == _render([theirs], x[0], x[119])
        assert ours.elementCount() == theirs.elementCount() == 120
