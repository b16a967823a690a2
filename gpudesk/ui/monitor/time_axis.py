"""The time axis of the monitor's plots and heat map: dates and times for dated histories (pyqtgraph's
DateAxisItem), time of day or "t+N s" for dmon logs without a date (``gpudesk.telemetry.timebase``), so an
undated log never reads as 1970-01-01."""

from __future__ import annotations

import pyqtgraph as pg

from gpudesk.telemetry import timebase


class TimeAxis(pg.DateAxisItem):
    """A bottom axis whose labels follow a :mod:`gpudesk.telemetry.timebase` basis (set with :meth:`set_basis`).

    Tick positions come from DateAxisItem in every basis (round seconds, minutes, hours from 0 when the offset
    is 0); only the texts change for undated histories.
    """

    def __init__(self, **kwargs):
        super().__init__(orientation="bottom", **kwargs)
        self.basis = timebase.LOCAL
        # Tick texts by (values, spacing, basis, offset): following a live run, the ticks stay on the same round
        # times for many refreshes and only move across the axis (issue 15: no strftime per tick and refresh).
        self._texts: dict[tuple, list[str]] = {}

    def set_basis(self, basis: str) -> None:
        self.basis = basis
        # dated stamps as printed (dmon -o DT) and undated ones are laid out in UTC (offset 0): ticks at round
        # hours of the printed clock, or at round seconds from the first row
        self.utcOffset = None if basis == timebase.LOCAL else 0
        self.picture = None
        self.update()

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
