"""Units and display formatting: the one place where bytes, rates, durations, percentages, counts and money
become text, for the window, the CLI and the sheets alike (``tests/test_units.py`` fails when a second formatter or
a second ``GIB =`` appears anywhere in the package).

Inside the code values are bytes, bytes per second, seconds, fractions (0..1) and US dollars; a value that could not
be read is ``None`` (or NaN) and is shown as the translated "N/A", never as 0.

Rules, one per kind of quantity:

* bytes: binary units (KiB, MiB, GiB = 2**30 bytes, as allocators, NVML and PyTorch count them), two decimals;
* rates: decimal units (GB/s = 10**9 bytes per second, as datasheets state link and memory bandwidth), one
  decimal in GB/s, whole numbers below;
* durations: microseconds below a millisecond, milliseconds below a second (three significant figures: "3.4 µs",
  "17.6 µs", "12.2 ms"), then seconds, minutes, "3 h 20 min" and "2 d 4 h": 12,000 s reads "3 h 20 min" in every
  tab, command and sheet;
* compute rates: decimal TFLOPS (10**12 FLOP/s), as datasheets state them, three significant figures;
* percentages: a fraction times 100 with a space before "%" (``digits`` chosen by the caller, or three
  significant figures: "86.6 %");
* counts: whole numbers with thousands separators; money: whole US dollars.

See the NIST note on binary prefixes: https://physics.nist.gov/cuu/Units/binary.html
"""

from __future__ import annotations

import math

from gpudesk.i18n import _

KIB = 1024
MIB = 1024**2
GIB = 1024**3
TIB = 1024**4
#: Decimal units, as datasheets state bandwidth and disk sizes.
GB = 10**9
MINUTE_S = 60
HOUR_S = 3600
DAY_S = 86400


def not_available() -> str:
    """The translated "N/A" shown for a value that could not be read or computed."""
    return _("N/A")


def _missing(value: float | None) -> bool:
    return value is None or (isinstance(value, float) and not math.isfinite(value))


def format_bytes(value_bytes: float | None, *, digits: int = 2) -> str:
    """Bytes in binary units: "512 B", "1.50 MiB", "79.25 GiB"; None or NaN -> "N/A".

    >>> format_bytes(14377562849)
    '13.39 GiB'
    """
    if _missing(value_bytes):
        return not_available()
    assert value_bytes is not None
    size = float(value_bytes)
    sign = "-" if size < 0 else ""
    size = abs(size)
    if size < KIB:
        return f"{sign}{size:.0f} B"
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        size /= KIB
        if size < KIB or unit == "TiB":
            return f"{sign}{size:.{digits}f} {unit}"
    return f"{sign}{size:.{digits}f} TiB"  # pragma: no cover - the loop returns at TiB


def format_limit(limit_bytes: int) -> str:
    """A limit as written where it is defined: ``256 MiB``, ``2 GiB`` (binary) or ``5 MB``, ``20 MB``
    (decimal) when it is a round number of either; else binary with one decimal (``1.5 MiB``)."""
    for units in ((("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)),
                  (("GB", 10**9), ("MB", 10**6), ("kB", 10**3))):
        for unit, size in units:
            if limit_bytes >= size and limit_bytes % size == 0:
                return f"{limit_bytes // size} {unit}"
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if limit_bytes >= size:
            return f"{limit_bytes / size:.1f} {unit}"
    return f"{limit_bytes} B"


def format_gib(value_bytes: float | None, *, digits: int = 2, with_unit: bool = True) -> str:
    """Bytes as GiB: "79.25 GiB" (``with_unit=False``: "79.25", for axes and compact columns); None -> "N/A".

    >>> format_gib(66571993088)
    '62.00 GiB'
    """
    if _missing(value_bytes):
        return not_available()
    assert value_bytes is not None
    number = f"{float(value_bytes) / GIB:.{digits}f}"
    return f"{number} GiB" if with_unit else number


def _significant(value: float, figures: int = 3) -> str:
    """``value`` with at least ``figures`` significant figures, every digit of its whole part, thousands separators
    and no trailing zeros: 3350 -> "3,350", 989.4 -> "989", 17.578 -> "17.6", 0.9 -> "0.9"."""
    if value == 0:
        return "0"
    decimals = max(0, figures - 1 - math.floor(math.log10(abs(value))))
    text = f"{value:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def format_rate(bytes_per_s: float | None, *, digits: int | None = 1) -> str:
    """A transfer rate in decimal units: "850 MB/s", "31.5 GB/s"; ``digits=None``: three significant figures with
    thousands separators, as datasheets state bandwidth ("3,350 GB/s", "450 GB/s", "2.9 GB/s"); None or NaN -> "N/A".

    >>> format_rate(31.504e9)
    '31.5 GB/s'
    >>> format_rate(3350e9, digits=None)
    '3,350 GB/s'
    """
    if _missing(bytes_per_s):
        return not_available()
    assert bytes_per_s is not None
    rate = float(bytes_per_s)
    if digits is None:
        for size, unit in ((1e9, "GB/s"), (1e6, "MB/s"), (1e3, "kB/s")):
            if abs(rate) >= size:
                return f"{_significant(rate / size)} {unit}"
        return f"{_significant(rate)} B/s"
    if abs(rate) >= 1e9:
        return f"{rate / 1e9:.{digits}f} GB/s"
    if abs(rate) >= 1e6:
        return f"{rate / 1e6:.0f} MB/s"
    if abs(rate) >= 1e3:
        return f"{rate / 1e3:.0f} kB/s"
    return f"{rate:.0f} B/s"


def format_duration(seconds: float | None) -> str:
    """A duration for people: "3.4 µs", "610 ms", "2.5 s", "45 s", "12 min", "3 h 20 min", "2 d 4 h"; None, NaN or
    negative -> "N/A".

    >>> format_duration(12000)
    '3 h 20 min'
    >>> format_duration(1.7578e-05)
    '17.6 µs'
    """
    if _missing(seconds) or seconds is None or seconds < 0:
        return not_available()
    total = float(seconds)
    if total == 0:
        return _("{seconds} s").format(seconds=0)
    if total < 1e-6:
        return _("{nanoseconds} ns").format(nanoseconds=f"{total * 1e9:.3g}")
    if float(f"{total * 1000:.3g}") < 1:
        return _("{microseconds} µs").format(microseconds=f"{total * 1e6:.3g}")
    if total < 1:
        return _("{milliseconds} ms").format(milliseconds=f"{total * 1000:.3g}")
    if total < 10:
        return _("{seconds} s").format(seconds=f"{total:.3g}")
    if total < MINUTE_S - 0.5:
        return _("{seconds} s").format(seconds=f"{total:.0f}")
    minutes = int(round(total / MINUTE_S))
    if minutes < 60:
        return _("{minutes} min").format(minutes=minutes)
    if total < 48 * HOUR_S - 30:
        hours, minutes = divmod(minutes, 60)
        if minutes:
            return _("{hours} h {minutes} min").format(hours=hours, minutes=minutes)
        return _("{hours} h").format(hours=hours)
    days, hours = divmod(int(round(total / HOUR_S)), 24)
    if hours:
        return _("{days} d {hours} h").format(days=days, hours=hours)
    return _("{days} d").format(days=days)


def format_duration_range(shortest_s: float, longest_s: float) -> str:
    """"6 s" when both ends read the same, else "20 s to 40 s" (never "6 s to 6 s")."""
    short, long = format_duration(shortest_s), format_duration(longest_s)
    return short if short == long else _("{short} to {long}").format(short=short, long=long)


def format_percent(fraction: float | None, *, digits: int | None = 0) -> str:
    """A fraction (0..1) as a percentage: "85 %" for 0.85; ``digits=None``: three significant figures ("86.6 %",
    "90 %"); None or NaN -> "N/A".

    >>> format_percent(0.854, digits=1)
    '85.4 %'
    >>> format_percent(0.865672, digits=None)
    '86.6 %'
    """
    if _missing(fraction):
        return not_available()
    assert fraction is not None
    if digits is None:
        return f"{_significant(float(fraction) * 100)} %"
    return f"{float(fraction) * 100:.{digits}f} %"


def format_flops(flops_per_s: float | None) -> str:
    """A compute rate in decimal TFLOPS as datasheets state it, three significant figures: "989 TFLOPS",
    "1,979 TFLOPS", "0.5 TFLOPS"; None or NaN -> "N/A".

    >>> format_flops(989.4e12)
    '989 TFLOPS'
    """
    if _missing(flops_per_s):
        return not_available()
    assert flops_per_s is not None
    return f"{_significant(float(flops_per_s) / 1e12)} TFLOPS"


def format_count(count: float | None) -> str:
    """A count with thousands separators: "1,234,567"; None -> "N/A"."""
    if _missing(count):
        return not_available()
    assert count is not None
    return f"{round(count):,}"


def format_usd(value_usd: float | None) -> str:
    """Whole US dollars: "$1,234,567", "−$50"; None -> "N/A"."""
    if _missing(value_usd):
        return not_available()
    assert value_usd is not None
    number = float(value_usd)
    if abs(number) < 0.5:
        return "$0"
    return f"−${-number:,.0f}" if number < 0 else f"${number:,.0f}"
