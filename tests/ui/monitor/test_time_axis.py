"""The monitor's time axis: tick texts follow the history's time basis, and are computed once per set of ticks
(issue 15: following a live run, the same round times stay on the axis for many refreshes)."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtGui import QFont, QFontMetrics

from gpudesk.telemetry import timebase
from gpudesk.ui.monitor.time_axis import TimeAxis


def _ticks(axis: TimeAxis, t0: float, t1: float) -> list[tuple[float, list[str]]]:
    return [(spacing, axis.tickStrings(values, 1.0, spacing)) for spacing, values in axis.tickValues(t0, t1, 800)]


def test_tick_texts_match_the_date_axis_and_are_reused(qtbot):
    axis, reference = TimeAxis(), pg.DateAxisItem(orientation="bottom")
    axis.fontMetrics = reference.fontMetrics = QFontMetrics(QFont())  # set by the first paint otherwise
    t0 = 1_764_600_000.0  # 2025-12-01 14:40 UTC
    for basis, offset in ((timebase.LOCAL, None), (timebase.PRINTED, 0)):
        axis.set_basis(basis)
        reference.utcOffset = offset
        for shift in range(3):  # a followed live view: the window moves by one second per refresh
            ours = _ticks(axis, t0 + shift, t0 + 300 + shift)
            theirs = [(s, reference.tickStrings(v, 1.0, s)) for s, v in reference.tickValues(t0 + shift, t0 + 300 + shift, 800)]
            assert ours == theirs and any(texts for _s, texts in ours)
    cached = len(axis._texts)
    _ticks(axis, t0 + 1, t0 + 301)
    assert len(axis._texts) == cached  # the same ticks again: no new texts computed


def test_relative_basis_labels_seconds_from_the_start(qtbot):
    axis = TimeAxis()
    axis.fontMetrics = QFontMetrics(QFont())
    axis.set_basis(timebase.RELATIVE)
    labels = [t for _s, ts in _ticks(axis, -70.0, 230.0) for t in ts]
    assert "" in labels and "t+30 s" in labels  # ticks before the first row are blank
    assert labels == [t for _s, ts in _ticks(axis, -70.0, 230.0) for t in ts]  # the same from the cache
