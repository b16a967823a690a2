"""Impossible values never shown as facts: NVML "not available" sentinels and out-of-range readings become
``None`` with the reason, so views show "N/A" (reason in the tooltip), plots leave a gap and rules skip them.

Sentinels: NVML fills a value it could not read with all ones of the field's width,
``NVML_VALUE_NOT_AVAILABLE_ulonglong = (unsigned long long)-1`` and ``NVML_VALUE_NOT_AVAILABLE_uint =
(unsigned int)-1`` (nvml.h, https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceStructs.html), so an 80 GB
board can report 2^64-1 bytes of memory (shown as "17179869184.00 GiB" before this check).

Ranges: utilizations and violation shares are percentages of time (0-100 %, nvmlUtilization_t,
https://docs.nvidia.com/deploy/nvml-api/structnvmlUtilization__t.html); memory used cannot exceed the total
(nvmlMemory_t: ``total = used + free`` or ``used + free + reserved`` in v2); bytes, rates, watts, hertz and
counters are never negative. Ceilings far above any shipping board (10 kW per GPU, 100 GHz clocks,
temperatures above 250 C) catch garbled values without second-guessing real ones.
"""

from __future__ import annotations

import math

import numpy as np

from gpudesk.i18n import _
from gpudesk.telemetry import model as m

NVML_NOT_AVAILABLE_UINT = 2**32 - 1  # NVML_VALUE_NOT_AVAILABLE_uint
NVML_NOT_AVAILABLE_ULONGLONG = 2**64 - 1  # NVML_VALUE_NOT_AVAILABLE_ulonglong
NVML_SENTINELS = frozenset({NVML_NOT_AVAILABLE_UINT, NVML_NOT_AVAILABLE_ULONGLONG, 2**63 - 1, 2**31 - 1})

MAX_POWER_W = 10_000.0
MAX_CLOCK_HZ = 100e9
MIN_TEMP_C = -60.0
MAX_TEMP_C = 250.0
# a byte rate above 100 TB/s per GPU is beyond any link (NVLink 5: 1.8 TB/s per GPU)
MAX_RATE_BYTES_PER_S = 100e12


def sentinel_reason(raw: object) -> str | None:
    """The reason text when ``raw`` (an integer straight from NVML) is a "not available" sentinel, else None."""
    if isinstance(raw, int) and not isinstance(raw, bool) and raw in NVML_SENTINELS:
        return _("NVML returned {raw:#x}, its 'not available' value (not a reading)").format(raw=raw)
    return None


def _range_reason(metric: str, value: float) -> str | None:
    """Why ``value`` of ``metric`` is impossible, or None when it is plausible."""
    if not math.isfinite(value):
        return _("the source reported {value!r}, not a finite number").format(value=value)
    info = m.METRICS.get(metric)
    unit = info.unit if info is not None else None
    if unit == "%":
        if value < 0 or value > 100:
            return _("the source reported {value:g} %, outside 0-100 % (impossible; not shown)").format(value=value)
        return None
    if unit in ("bytes", "bytes/s", "W", "Hz", "count", "bitmask", "gen", "lanes", "bool") and value < 0:
        return _("the source reported {value:g} {unit}, below zero (impossible; not shown)").format(value=value, unit=unit)
    if unit == "W" and value > MAX_POWER_W:
        return _("the source reported {value:g} W, above {limit:g} W for one GPU (impossible; not shown)").format(
            value=value, limit=MAX_POWER_W)
    if unit == "Hz" and value > MAX_CLOCK_HZ:
        return _("the source reported a {value:g} Hz clock (impossible; not shown)").format(value=value)
    if unit == "bytes/s" and value > MAX_RATE_BYTES_PER_S:
        return _("the source reported {value:g} bytes/s, beyond any GPU link (impossible; not shown)").format(value=value)
    if unit == "C" and not MIN_TEMP_C <= value <= MAX_TEMP_C:
        return _("the source reported {value:g} C (impossible; not shown)").format(value=value)
    return None


def check_values(values: dict[str, float | None], reasons: dict[str, str]) -> int:
    """Turn impossible readings in one sample into None with the reason (in place); returns how many.

    Also flags memory used greater than the total: both figures cannot be right, so ``mem_used_bytes`` and
    ``mem_free_bytes`` become None with a reason that quotes the two numbers.
    """
    changed = 0
    for metric, value in values.items():
        if value is None:
            continue
        why = _range_reason(metric, float(value))
        if why is not None:
            values[metric] = None
            reasons[metric] = why
            changed += 1
    used, total = values.get(m.MEM_USED), values.get(m.MEM_TOTAL)
    if used is not None and total is not None and used > total:
        why = _("memory used ({used:.0f} bytes) is greater than the total ({total:.0f} bytes): the two readings "
                "contradict each other, so neither used nor free is shown").format(used=used, total=total)
        for metric in (m.MEM_USED, m.MEM_FREE):
            if values.get(metric) is not None:
                values[metric] = None
                reasons[metric] = why
                changed += 1
    return changed


def _bounds(metric: str) -> tuple[float, float] | None:
    """(lowest, highest) plausible value of ``metric`` (see the module docstring), None when unbounded."""
    info = m.METRICS.get(metric)
    unit = info.unit if info is not None else None
    if unit == "%":
        return 0.0, 100.0
    if unit == "W":
        return 0.0, MAX_POWER_W
    if unit == "Hz":
        return 0.0, MAX_CLOCK_HZ
    if unit == "bytes/s":
        return 0.0, MAX_RATE_BYTES_PER_S
    if unit == "C":
        return MIN_TEMP_C, MAX_TEMP_C
    if unit in ("bytes", "count", "bitmask", "gen", "lanes", "bool"):
        return 0.0, math.inf
    return None


def mask_impossible(metric: str, column: np.ndarray) -> tuple[np.ndarray, int, str | None]:
    """The columnar form of :func:`check_values` for file imports and replays: values of ``column`` outside the
    metric's plausible range (or infinite) become NaN. Returns (column, how many were masked, the reason for
    the frame's ``reasons``, or None when nothing was masked). Linear in the column length."""
    col = np.asarray(column)
    bounds = _bounds(metric)
    with np.errstate(invalid="ignore"):
        bad = np.isinf(col)
        if bounds is not None:
            bad |= (col < bounds[0]) | (col > bounds[1])
    n = int(np.count_nonzero(bad))
    if not n:
        return col, 0, None
    out = col.copy()
    out[bad] = np.nan
    lo, hi = bounds if bounds is not None else (-math.inf, math.inf)
    why = _("{count} reading(s) outside the possible range {low:g} to {high:g} were not shown").format(
        count=n, low=lo, high=hi)
    return out, n, why
