"""Display formatting for the Plan tab. Values are bytes, seconds, US dollars and watts everywhere else;
conversion happens only here. ``None`` (a value that could not be computed) is shown as "N/A", never 0.

GiB are binary (1024**3, as allocators and NVML report memory); GB/s and TFLOPS are decimal (datasheets).
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

GIB = 1024**3


translate = QCoreApplication.translate  # called with literal texts only, so lupdate sees them


def na_text() -> str:
    """The translated "N/A" shown for a value that could not be computed."""
    return translate("PlanUnits", "N/A")


def format_gib(value: float | int | None, digits: int = 1) -> str:
    """``62.0 GiB`` for 66571993088 bytes; "N/A" for None."""
    if value is None:
        return na_text()
    return translate("PlanUnits", "{0} GiB").format(f"{float(value) / GIB:.{digits}f}")


def format_usd(value: float | int | None) -> str:
    """``$1,234,567`` (whole US dollars); "N/A" for None."""
    if value is None:
        return na_text()
    number = float(value)
    if abs(number) < 0.5:
        return "$0"
    return f"−${-number:,.0f}" if number < 0 else f"${number:,.0f}"


def format_duration(seconds: float | int | None) -> str:
    """``45 s``, ``12.5 min``, ``3.2 h``, ``6.4 days``; "N/A" for None."""
    if seconds is None:
        return na_text()
    value = float(seconds)
    if value < 120:
        return translate("PlanUnits", "{0} s").format(f"{value:.0f}")
    if value < 2 * 3600:
        return translate("PlanUnits", "{0} min").format(f"{value / 60:.1f}")
    if value < 2 * 86400:
        return translate("PlanUnits", "{0} h").format(f"{value / 3600:.1f}")
    return translate("PlanUnits", "{0} days").format(f"{value / 86400:.1f}")


def format_step_time(seconds: float | int | None) -> str:
    """A training step or decode step: ``610 ms`` below a second, ``1.50 s`` below two minutes, then as
    :func:`format_duration`; "N/A" for None."""
    if seconds is None:
        return na_text()
    value = float(seconds)
    if value < 1:
        return translate("PlanUnits", "{0} ms").format(f"{value * 1000:.3g}")
    if value < 120:
        return translate("PlanUnits", "{0} s").format(f"{value:.2f}")
    return format_duration(value)


def format_percent(fraction: float | None, digits: int = 0) -> str:
    """``85 %`` for 0.85; "N/A" for None."""
    if fraction is None:
        return na_text()
    return f"{fraction * 100:.{digits}f} %"
