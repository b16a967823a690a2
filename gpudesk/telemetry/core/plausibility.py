"""Impossible values never shown as facts: NVML "not available" sentinels and readings no GPU can produce become
N/A with the reason, before views, statistics and rules see them (views show "N/A" with the reason in the
tooltip, plots leave a gap, rules skip them).

One set of bounds, three shapes of input:

- :func:`sentinel_reason` and :func:`check_values`: one live sample (NVML, a live dmon line), values ``None``;
- :func:`mask_impossible`: one column of a file import or replay (dmon file parser), values NaN;
- :func:`screen`: a whole frame before statistics and rules (every column's range, and memory used against the
  GPU's capacity), values NaN with a reason per GPU and a note.

Sentinels: NVML fills a value it could not read with all ones of the field's width,
``NVML_VALUE_NOT_AVAILABLE_ulonglong = (unsigned long long)-1`` and ``NVML_VALUE_NOT_AVAILABLE_uint =
(unsigned int)-1`` (nvml.h, https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceStructs.html), so an 80 GB
board can report 2^64-1 bytes of memory (shown as "17179869184.00 GiB" before this check).

Ranges: utilizations and violation shares are percentages of time (0-100 %, nvmlUtilization_t,
https://docs.nvidia.com/deploy/nvml-api/structnvmlUtilization__t.html); memory used cannot exceed the total
(nvmlMemory_t: ``total = used + free`` or ``used + free + reserved`` in v2); bytes, rates, watts, hertz and
counters are never negative. Ceilings far above any shipping board (10 kW per GPU, 100 GHz clocks,
temperatures above 250 C) catch garbled values without second-guessing real ones.

Capacity: a misread column, a corrupted log or a sentinel the source did not mark can put 1e32 MB in dmon's ``fb``
column; averaged into statistics it prints "memory peaked at 1.2e29 % of capacity". Memory used is checked against
the GPU's capacity when it is known (NVML's total, or the catalog model picked for a dmon log) and otherwise
against the most memory any single GPU carries.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from gpudesk.i18n import _
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core.model import DeviceInfo, History
from gpudesk.units import format_bytes

NVML_NOT_AVAILABLE_UINT = 2**32 - 1  # NVML_VALUE_NOT_AVAILABLE_uint
NVML_NOT_AVAILABLE_ULONGLONG = 2**64 - 1  # NVML_VALUE_NOT_AVAILABLE_ulonglong
NVML_SENTINELS = frozenset({NVML_NOT_AVAILABLE_UINT, NVML_NOT_AVAILABLE_ULONGLONG, 2**63 - 1, 2**31 - 1})

MAX_POWER_W = 10_000.0
MAX_CLOCK_HZ = 100e9
MIN_TEMP_C = -60.0
MAX_TEMP_C = 250.0
# a byte rate above 100 TB/s per GPU is beyond any link (NVLink 5: 1.8 TB/s per GPU)
MAX_RATE_BYTES_PER_S = 100e12
# The most memory one GPU holds, with room to spare: 288 GB of HBM3e on a B300 (NVIDIA Blackwell Ultra datasheet,
# https://www.nvidia.com/en-us/data-center/dgx-b300/); 1 TiB is over three times that.
MAX_GPU_MEMORY_BYTES = float(2**40)
# Memory used against a capacity from another source (the catalog model picked for a dmon log, whose rounding
# differs from the driver's): more than 2 % over it is not a reading of that GPU. Used and total read together
# from NVML (one nvmlMemory_t) are compared exactly (:func:`check_values`).
OVER_CAPACITY_TOLERANCE = 1.02


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


def _impossible(metric: str, col: np.ndarray) -> np.ndarray:
    """Boolean mask of the values of ``col`` outside ``metric``'s plausible range, or infinite (NaN is not)."""
    bounds = _bounds(metric)
    with np.errstate(invalid="ignore"):
        bad: np.ndarray = np.isinf(col)
        if bounds is not None:
            bad |= (col < bounds[0]) | (col > bounds[1])
    return bad


def _range_text(metric: str, count: int) -> str:
    lo, hi = _bounds(metric) or (-math.inf, math.inf)
    return _("{count} reading(s) outside the possible range {low:g} to {high:g} were not shown").format(
        count=count, low=lo, high=hi)


def mask_impossible(metric: str, column: np.ndarray) -> tuple[np.ndarray, int, str | None]:
    """The columnar form of :func:`check_values` for file imports and replays: values of ``column`` outside the
    metric's plausible range (or infinite) become NaN. Returns (column, how many were masked, the reason for
    the frame's ``reasons``, or None when nothing was masked). Linear in the column length."""
    col = np.asarray(column)
    if not np.issubdtype(col.dtype, np.floating):
        return col, 0, None  # integer columns (GPU index) hold no NaN and no infinity
    bad = _impossible(metric, col)
    n = int(np.count_nonzero(bad))
    if not n:
        return col, 0, None
    out = col.copy()
    out[bad] = np.nan
    return out, n, _range_text(metric, n)


def _capacity(frame: History, j: int, device: DeviceInfo | None) -> float | None:
    total = frame.columns.get(m.MEM_TOTAL)
    if total is not None:
        vals = total[:, j]
        vals = vals[~np.isnan(vals) & (vals > 0) & (vals <= MAX_GPU_MEMORY_BYTES)]
        if vals.size:
            return float(np.max(vals))
    if device is not None and device.memory_total_bytes:
        return float(device.memory_total_bytes)
    return None


def screen(frame: History, devices: Mapping[int, DeviceInfo] | None = None) -> History:
    """``frame`` with impossible readings set to NaN: every column outside its metric's range
    (:func:`mask_impossible`), and memory used above the GPU's capacity. Reasons (per GPU) and notes say which
    and why; the same frame when every reading is plausible."""
    if not len(frame):
        return frame
    cols = dict(frame.columns)
    reasons = dict(frame.reasons)
    notes = list(frame.notes)
    changed = False
    for metric, col in frame.columns.items():
        masked, n, why = mask_impossible(metric, col)
        if not n or why is None:
            continue
        changed = True
        cols[metric] = masked
        newly = np.isnan(masked) & ~np.isnan(col)
        for j, count in enumerate(np.count_nonzero(newly, axis=0).tolist()):
            g = frame.gpus[j]
            if count:
                reasons[(g, metric)] = _range_text(metric, count)
        notes.append(_("{metric}: {why}.").format(metric=metric, why=why))
    used = cols.get(m.MEM_USED)
    if used is not None:
        bad = np.zeros(used.shape, dtype=bool)
        for j, g in enumerate(frame.gpus):
            vals = used[:, j]
            cap = _capacity(frame, j, (devices or {}).get(g))
            limit = cap * OVER_CAPACITY_TOLERANCE if cap else MAX_GPU_MEMORY_BYTES
            with np.errstate(invalid="ignore"):
                wrong = ~np.isnan(vals) & ((vals > limit) | (vals < 0))
            if not wrong.any():
                continue
            bad[:, j] = wrong
            worst = float(np.nanmax(np.abs(vals[wrong])))
            if cap:
                why = _("above the GPU's {capacity} capacity").format(capacity=format_bytes(cap))
            else:
                why = _("above {limit}, more than any GPU holds").format(limit=format_bytes(MAX_GPU_MEMORY_BYTES))
            reasons[(g, m.MEM_USED)] = _("implausible reading ({why})").format(why=why)
            notes.append(_("GPU {gpu}: {n} memory-used reading(s) up to {worst:.3g} bytes are {why}: shown as N/A "
                           "(a misread column or a corrupted log).").format(gpu=g, n=int(wrong.sum()), worst=worst,
                                                                            why=why))
        if bad.any():
            changed = True
            col = used.copy()
            col[bad] = np.nan
            cols[m.MEM_USED] = col
    if not changed:
        return frame
    return frame.replace(columns=cols, reasons=reasons, notes=notes)
