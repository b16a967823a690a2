"""Display formatting for the OOM doctor: bytes -> binary units (KiB/MiB/GiB, as the allocators print them).

Values stay in bytes everywhere else; conversion happens only here, at display. ``None`` (a value that could
not be read) is shown as "N/A", never as 0.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

_UNITS = ("bytes", "KiB", "MiB", "GiB", "TiB")


def na_text() -> str:
    """The translated "N/A" shown for a value that could not be read."""
    return QCoreApplication.translate("OomUnits", "N/A")


def format_bytes(value: float | int | None, digits: int = 2) -> str:
    """``13.39 GiB`` for 14377562849; "N/A" for None. Binary (1024-based) units, as PyTorch prints them."""
    if value is None:
        return na_text()
    size = float(value)
    sign = "-" if size < 0 else ""
    size = abs(size)
    unit = 0
    while size >= 1024.0 and unit < len(_UNITS) - 1:
        size /= 1024.0
        unit += 1
    if unit == 0:
        return f"{sign}{int(size)} bytes"
    return f"{sign}{size:.{digits}f} {_UNITS[unit]}"


def format_gib(value: float | int | None, digits: int = 2) -> str:
    """``13.39`` (GiB, without the unit) for axis labels and compact tables; "N/A" for None."""
    if value is None:
        return na_text()
    return f"{float(value) / 1024**3:.{digits}f}"


def format_percent(fraction: float | None, digits: int = 0) -> str:
    """``85 %`` for 0.85; "N/A" for None."""
    if fraction is None:
        return na_text()
    return f"{fraction * 100:.{digits}f} %"


def format_seconds(value: float | None) -> str:
    """``12.3 s`` / ``2 min 05 s``; "N/A" for None."""
    if value is None:
        return na_text()
    if value < 120:
        return f"{value:.1f} s"
    minutes, seconds = divmod(int(round(value)), 60)
    return f"{minutes} min {seconds:02d} s"
