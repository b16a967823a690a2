"""How the time stamps of a history should be read and shown.

Sources give time in seconds since the Unix epoch, but a ``nvidia-smi dmon`` log only carries a date with
``-o D``/``-o DT``. The parser (:mod:`gpudesk.telemetry.formats.dmon`) then stores:

* ``-o DT`` (date and time): the node's local time as printed, stored as if UTC -> basis ``PRINTED``;
* ``-o T`` (time only): the time of day, counted from day 0 (a wrap past midnight adds a day) -> ``TIME_OF_DAY``;
* no time column: rows ``-d`` seconds apart from 0 -> ``RELATIVE`` ("t+12 s").

Without a date the stamps fall in the first days of 1970; shown as dates they would read "1970-01-01 00:00:00",
which the log never said. Live NVML samples and NVML recordings are real epoch times in this computer's zone ->
``LOCAL``. Formatting with these bases is done by the UI (``gpudesk.ui.monitor.display``) and the CLI.
"""

from __future__ import annotations

import datetime as _dt
import math

LOCAL = "local"
PRINTED = "printed"
TIME_OF_DAY = "time-of-day"
RELATIVE = "relative"

# Stamps before 1973-03-03 (1e8 s) cannot be real monitoring times: they are a dmon log without a date. A log
# read without dates spans days at most (a 72-hour burn-in is 259,200 s), far below this bound.
UNDATED_BEFORE_S = 1e8
DAY_S = 86400.0


def undated(t: float | None) -> bool:
    """True when ``t`` (s) is an undated dmon stamp (time of day, or seconds from the first row)."""
    return t is not None and math.isfinite(t) and t < UNDATED_BEFORE_S


def time_basis(t_first: float | None, t_last: float | None = None, *, as_printed: bool = False,
               has_time: bool | None = None) -> str:
    """The basis of a history that starts at ``t_first`` and ends at ``t_last`` (seconds).

    Args:
        as_printed: dated stamps are the node's local time as printed (dmon ``-o DT``), not this computer's.
        has_time: whether the log had a time column; None = unknown, then a history starting at exactly 0 is
            taken as relative (the parser starts logs without a time column at 0).
    """
    last = t_first if t_last is None else t_last
    if t_first is None or not undated(last):
        return PRINTED if as_printed else LOCAL
    if has_time is None:
        has_time = t_first != 0.0
    return TIME_OF_DAY if has_time else RELATIVE


def format_relative(seconds: float) -> str:
    """Seconds from the first row: "t+0 s", "t+45 s", "t+12:05" (min:s), "t+3:02:07" (h:min:s)."""
    s = max(0.0, float(seconds))
    if s < 100:
        return f"t+{s:.3g} s" if s != int(s) else f"t+{int(s)} s"
    whole = int(round(s))
    h, rest = divmod(whole, 3600)
    mi, sec = divmod(rest, 60)
    return f"t+{h}:{mi:02d}:{sec:02d}" if h else f"t+{mi}:{sec:02d}"


def format_time_of_day(t: float, seconds: bool = True) -> str:
    """A time-of-day stamp: "13:05:22", and "13:05:22 (+1 d)" after the log passed midnight."""
    day, rest = divmod(float(t), DAY_S)
    text = (_dt.datetime(2000, 1, 1) + _dt.timedelta(seconds=rest)).strftime("%H:%M:%S" if seconds else "%H:%M")
    return f"{text} (+{int(day)} d)" if day >= 1 else text


def format_time(t: float, basis: str, pattern: str = "%Y-%m-%d %H:%M:%S") -> str:
    """``t`` as text for ``basis``; ``pattern`` (strftime) applies to dated bases, and its lack of seconds
    (no ``%S``) to time-of-day stamps."""
    if not math.isfinite(t):
        return "N/A"
    if basis == RELATIVE:
        return format_relative(t)
    if basis == TIME_OF_DAY:
        return format_time_of_day(t, "%S" in pattern)
    if basis == PRINTED:
        return _dt.datetime.fromtimestamp(t, _dt.timezone.utc).strftime(pattern)
    return _dt.datetime.fromtimestamp(t).strftime(pattern)


def axis_label(value: float, spacing: float, basis: str) -> str:
    """Tick text of a time axis for an undated basis (``RELATIVE`` or ``TIME_OF_DAY``), given the tick spacing."""
    if basis == TIME_OF_DAY:
        return format_time_of_day(value, spacing < 60)
    v = max(0.0, value)
    if v == 0.0:
        return "t+0 s"
    if spacing < 60:
        return f"t+{v:.6g} s"
    if spacing < 3600:
        return f"t+{v / 60:.6g} min"
    return f"t+{v / 3600:.6g} h"
