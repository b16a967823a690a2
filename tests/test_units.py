"""gpudesk.units: display formatting of bytes (binary), rates (decimal) and durations; None/NaN is N/A."""

from __future__ import annotations

import math

from gpudesk.units import format_bytes, format_duration, format_gib, format_rate


def test_bytes_are_binary_and_unknown_is_na():
    assert format_bytes(512) == "512 B"
    assert format_bytes(1.5 * 1024**2) == "1.50 MiB"
    assert format_bytes(80 * 1024**3) == "80.00 GiB"
    assert format_bytes(None) == "N/A" and format_bytes(math.nan) == "N/A"
    assert format_gib(79.25 * 1024**3) == "79.25 GiB"


def test_rates_are_decimal_as_datasheets_state_them():
    assert format_rate(31.504e9) == "31.5 GB/s"  # PCIe Gen4 x16, per direction
    assert format_rate(850e6) == "850 MB/s"
    assert format_rate(None) == "N/A"


def test_durations_read_naturally():
    assert format_duration(45) == "45 s"
    assert format_duration(2.5) == "2.5 s"
    assert format_duration(600) == "10 min"
    assert format_duration(3 * 3600 + 20 * 60) == "3 h 20 min"
    assert format_duration(52 * 3600) == "2 d 4 h"
    assert format_duration(-1) == "N/A" and format_duration(None) == "N/A"
