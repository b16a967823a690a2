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

    def set_basis(self, basis: str) -> None:
        self.basis = basis
        # dated stamps as printed (dmon -o DT) and undated ones are laid out in UTC (offset 0): ticks at round
        # hours of the printed clock, or at round seconds from the first row
        self.utcOffset = None if basis == timebase.LOCAL else 0
        self.picture = None
        self.update()

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph override
        if self.basis in (timebase.LOCAL, timebase.PRINTED):
            return super().tickStrings(values, scale, spacing)
        return ["" if (self.basis == timebase.RELATIVE and v < 0) else timebase.axis_label(v, spacing, self.basis)
                for v in values]
