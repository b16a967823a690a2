"""The monitor's time axis: tick texts follow the history's time basis, and are computed once per set of ticks
(issue 15: following a live run, the same round times stay on the axis for many refreshes)."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtGui import QFont, QFontMetrics

from gpudesk.telemetry.core import timebase
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


def test_tick_values_cut_from_a_wider_range_equal_the_date_axis_ones(qtbot):
    """Tick values are made once for a range three windows wide and cut to the view; for every window width of
    the tab (1 min to 72 h), sliding through midnight and a month end, in local time, UTC and UTC+8, they
    equal DateAxisItem's own for the view."""
    axis, reference = TimeAxis(), pg.DateAxisItem(orientation="bottom")
    axis.fontMetrics = reference.fontMetrics = QFontMetrics(QFont())
    month_end = 1_764_547_200.0 - 150.0  # 2025-12-01 00:00 UTC, minus 150 s
    for offset in (None, 0, -8 * 3600):
        axis.utcOffset = reference.utcOffset = offset
        for width in (60.0, 300.0, 3600.0, 21600.0, 86400.0, 259200.0):
            made = set()
            for step in range(0, 40):
                t0 = month_end - width / 2 + step * width / 17  # slides across midnight and the month end
                ours = axis.tickValues(t0, t0 + width, 800)
                # the ticks AxisItem draws: those inside the view (DateAxisItem's levels of an hour and more may
                # carry some outside it)
                theirs = [(s, [x for x in v if t0 <= x <= t0 + width]) for s, v in reference.tickValues(t0, t0 + width, 800)]
                assert ours == theirs, (offset, width, step)
                made.add(axis._ticks[:2] if axis._ticks else None)
            assert None not in made and len(made) <= 3  # 40 views, 3 ranges made
