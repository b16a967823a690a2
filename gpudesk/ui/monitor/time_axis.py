"""The time axis of the monitor's plots and heat map: dates and times for dated histories (pyqtgraph's
DateAxisItem), time of day or "t+N s" for dmon logs without a date (``gpudesk.telemetry.core.timebase``), so an
undated log never reads as 1970-01-01."""

from __future__ import annotations

import pyqtgraph as pg
from pyqtgraph.graphicsItems.DateAxisItem import HOUR_SPACING

from gpudesk.telemetry.core import timebase
from gpudesk.ui.monitor.axis_specs import bottom_axis_specs, handles


class TimeAxis(pg.DateAxisItem):
    """A bottom axis whose labels follow a :mod:`gpudesk.telemetry.core.timebase` basis (set with :meth:`set_basis`).

    Tick positions come from DateAxisItem in every basis (round seconds, minutes, hours from 0 when the offset
    is 0); only the texts change for undated histories.
    """

    def __init__(self, **kwargs):
        super().__init__(orientation="bottom", **kwargs)
        self.basis = timebase.LOCAL
        # Tick texts by (values, spacing, basis, offset): following a live run, the ticks stay on the same round
        # times for many refreshes and only move across the axis (issue 15: no strftime per tick and refresh).
        self._texts: dict[tuple, list[str]] = {}
        # Tick values over a range three windows wide, with the zoom level they were made for (see tickValues).
        self._zoom_key: tuple | None = None
        self._ticks: tuple[float, float, list[tuple[float, list[float]]]] | None = None
        self._text_sizes: dict[tuple[str, str], tuple[float, float]] = {}  # (font, label) -> measured size

    def generateDrawSpecs(self, p):  # noqa: N802 - pyqtgraph override
        """AxisItem's layout of the ticks and labels, made with less work per call (:mod:`.axis_specs`)."""
        if not handles(self):
            return super().generateDrawSpecs(p)
        if self.style["tickFont"] is not None:
            p.setFont(self.style["tickFont"])
        self.fontMetrics = p.fontMetrics()  # as DateAxisItem: the zoom level is chosen with it
        if len(self._text_sizes) > 4096:
            self._text_sizes.clear()
        return bottom_axis_specs(self, p, self._text_sizes)

    def set_basis(self, basis: str) -> None:
        self.basis = basis
        # dated stamps as printed (dmon -o DT) and undated ones are laid out in UTC (offset 0): ticks at round
        # hours of the printed clock, or at round seconds from the first row
        self.utcOffset = None if basis == timebase.LOCAL else 0
        self.picture = None
        self._zoom_key = self._ticks = None
        self.update()

    def tickValues(self, minVal, maxVal, size):  # noqa: N802, N803 - pyqtgraph override
        """DateAxisItem's tick values, made once for a range three windows wide and then cut to the view.

        Following a live run the view slides by one sampling interval per refresh at a constant width: the zoom
        level (chosen from the seconds per pixel) stays, and so do the ticks, which only enter and leave the view
        (issue 15: DateAxisItem recomputed both on every refresh, ~20 % of the Monitor's drawing). Each level's
        ticks are those of DateAxisItem for the wider range that fall inside the view: every tick stepper of
        one second or coarser places a tick at a position that depends on the tick alone (a multiple of its
        step, a month or year start, moved to local time), so cutting the wider list gives the ticks that
        asking for the view would draw (for the levels it moves to local time DateAxisItem also returns some
        outside the view; AxisItem drops them). Sub-second levels accumulate float steps from the range's start
        and are asked for directly.
        """
        density = (maxVal - minVal) / size
        metrics = getattr(self, "fontMetrics", None)  # set from the painter by DateAxisItem.generateDrawSpecs
        font_key = (metrics.height(), metrics.averageCharWidth()) if metrics is not None else None
        zoom_key = (density, self.utcOffset, font_key)
        if zoom_key != self._zoom_key:
            self.setZoomLevelForDensity(density)  # sets zoomLevel and minSpacing
            self._zoom_key, self._ticks = zoom_key, None
        if any(spec.spacing < 1 for spec in self.zoomLevel.tickSpecs):
            return self.zoomLevel.tickValues(minVal, maxVal, minSpc=self.minSpacing)
        if self._ticks is None or not (self._ticks[0] <= minVal and maxVal <= self._ticks[1]):
            width = maxVal - minVal
            lo, hi = minVal - width, maxVal + width
            self._ticks = (lo, hi, self.zoomLevel.tickValues(lo, hi, minSpc=self.minSpacing))
        # DateAxisItem's steppers start after the range's start (a tick on it is not made); levels of an hour
        # and coarser are moved to local time and may end on it
        return [(spacing, [v for v in values if (minVal < v if spacing < HOUR_SPACING else minVal <= v) and v <= maxVal])
                for spacing, values in self._ticks[2]]

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph override
        zoom = getattr(self, "zoomLevel", None)  # DateAxisItem's format for this density, set by tickValues
        key = (tuple(values), scale, spacing, self.basis, self.utcOffset, id(zoom))
        texts = self._texts.get(key)
        if texts is None:
            if len(self._texts) > 256:  # a long session zooming around: keep the cache small
                self._texts.clear()
            texts = self._texts[key] = self._tick_texts(values, scale, spacing)
        return list(texts)

    def _tick_texts(self, values, scale, spacing) -> list[str]:
        if self.basis in (timebase.LOCAL, timebase.PRINTED):
            return super().tickStrings(values, scale, spacing)
        return ["" if (self.basis == timebase.RELATIVE and v < 0) else timebase.axis_label(v, spacing, self.basis)
                for v in values]
