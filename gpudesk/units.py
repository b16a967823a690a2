"""Formatting of bytes, rates and durations for display: the one place where units are converted.

Inside the code values are bytes, bytes per second and seconds; a value that could not be read is ``None``
and is shown as "N/A". GiB are binary (2**30 bytes, as allocators count); GB/s are decimal (10**9 bytes per
second, as datasheets state link and memory bandwidth), see the NIST note on binary prefixes:
https://physics.nist.gov/cuu/Units/binary.html
"""

from __future__ import annotations

import math

GIB = 1024**3
MIB = 1024**2
NOT_AVAILABLE = "N/A"


def _missing(value: float | None) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def format_bytes(value_bytes: float | None, *, digits: int = 2) -> str:
    """Bytes in binary units: "512 B", "1.50 MiB", "79.25 GiB"; None or NaN -> "N/A"."""
    if _missing(value_bytes):
        return NOT_AVAILABLE
    assert value_bytes is not None
    size = float(value_bytes)
    sign = "-" if size < 0 else ""
    size = abs(size)
    if size < 1024:
        return f"{sign}{size:.0f} B"
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        size /= 1024
        if size < 1024 or unit == "TiB":
            return f"{sign}{size:.{digits}f} {unit}"
    return f"{sign}{size:.{digits}f} TiB"


def format_gib(value_bytes: float | None, *, digits: int = 2) -> str:
    """Bytes as GiB with the unit: "79.25 GiB"; None or NaN -> "N/A"."""
    if _missing(value_bytes):
        return NOT_AVAILABLE
    assert value_bytes is not None
    return f"{float(value_bytes) / GIB:.{digits}f} GiB"


def format_rate(bytes_per_s: float | None, *, digits: int = 1) -> str:
    """A transfer rate in decimal units: "850 MB/s", "31.5 GB/s"; None or NaN -> "N/A"."""
    if _missing(bytes_per_s):
        return NOT_AVAILABLE
    assert bytes_per_s is not None
    rate = float(bytes_per_s)
    if abs(rate) >= 1e9:
        return f"{rate / 1e9:.{digits}f} GB/s"
    if abs(rate) >= 1e6:
        return f"{rate / 1e6:.0f} MB/s"
    if abs(rate) >= 1e3:
        return f"{rate / 1e3:.0f} kB/s"
    return f"{rate:.0f} B/s"


def format_duration(seconds: float | None) -> str:
    """A duration for people: "45 s", "12 min", "3 h 20 min", "2 d 4 h"; None, NaN or negative -> "N/A"."""
    if _missing(seconds) or seconds is None or seconds < 0:
        return NOT_AVAILABLE
    total = float(seconds)
    if total < 60:
        return f"{total:.0f} s" if total >= 10 or total == int(total) else f"{total:.1f} s"
    minutes = int(round(total / 60))
    if minutes < 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    days, hours = divmod(hours, 24)
    return f"{days} d {hours} h" if hours else f"{days} d"
