"""The ``nvidia-smi dmon`` text format: column tokens and units, header layouts, one data line.

Shared by the file parser (:mod:`gpudesk.telemetry.formats.dmon`) and the live line parser
(:mod:`gpudesk.telemetry.formats.dmon_lines`). Facts from the dmon help text and public samples (monitor.md section 3).

Units: pwr W, temperatures C, utilizations %, clocks MHz (-> Hz), fb/bar1/ccpm "MB" (nvidia-smi's memory
figures are MiB: x 1024^2), rxpci/txpci "MB/s" taken as printed, in decimal megabytes (x 10^6): NVIDIA documents
the column as MB/s and NVML's throughput as "KB/s" without saying that a KB is 1024 bytes (nvml.h,
nvmlDeviceGetPcieThroughput; the cuda-python NVML docs), so a 41 in the log is 41 MB/s everywhere gpudesk shows it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gpudesk.i18n import _
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core.model import TelemetryError
from gpudesk.units import MIB

MB = 1e6  # dmon's rxpci/txpci "MB/s" (decimal, as printed)

# dmon token -> (metric, scale to the metric's unit)
COLUMN_MAP: dict[str, tuple[str, float]] = {
    "pwr": (m.POWER, 1.0),
    "temp": (m.GPU_TEMP, 1.0),
    "gtemp": (m.GPU_TEMP, 1.0),
    "mtemp": (m.MEM_TEMP, 1.0),
    "sm": (m.GPU_UTIL, 1.0),
    "mem": (m.MEM_UTIL, 1.0),
    "enc": (m.ENC_UTIL, 1.0),
    "dec": (m.DEC_UTIL, 1.0),
    "jpg": (m.JPG_UTIL, 1.0),
    "ofa": (m.OFA_UTIL, 1.0),
    "mclk": (m.MEM_CLOCK, 1e6),
    "pclk": (m.SM_CLOCK, 1e6),
    "pviol": (m.POWER_VIOLATION, 1.0),
    "tviol": (m.THERMAL_VIOLATION, 1.0),
    "fb": (m.MEM_USED, MIB),
    "bar1": (m.BAR1_USED, MIB),
    "ccpm": (m.CCPM_USED, MIB),
    "sbecc": (m.ECC_SBE, 1.0),
    "dbecc": (m.ECC_DBE, 1.0),
    "pci": (m.PCIE_REPLAY, 1.0),
    "rxpci": (m.PCIE_RX, MB),
    "txpci": (m.PCIE_TX, MB),
}
# dcgmi dmon -e 1009,1010 (DCGM fields, bytes/s): "# Entity PCITX PCIRX" / "GPU 0 4712070210 5237742827"
DCGM_COLUMN_MAP: dict[str, tuple[str, float]] = {"PCITX": (m.PCIE_TX, 1.0), "PCIRX": (m.PCIE_RX, 1.0)}

MAX_GPU_INDEX = 1023  # NVML and dmon count the GPUs of one node from 0; anything above is not a GPU index
UNSUPPORTED_MARKERS = ("not supported on the device", "failed to process command line", "failed to initialize nvml")
NA_REASON = "dmon printed '-' (not supported on this GPU, or it could not be read)"


class DmonError(TelemetryError):
    """The text is not dmon output (or nothing in it could be read)."""


@dataclass
class DmonLayout:
    """Column layout from one names header: index of date, time and gpu columns, and metric columns."""

    names: list[str]
    date_col: int | None
    time_col: int | None
    gpu_col: int
    metric_cols: list[tuple[int, str, float]]  # (column, metric, scale)
    unknown: list[str]
    dcgm: bool = False

    @property
    def ncols(self) -> int:
        return len(self.names)


def parse_header(line: str) -> DmonLayout | None:
    """Layout from a names header line (``# gpu sm mem`` / ``#Date Time gpu ...`` / ``# Entity PCITX``).

    Returns None for a units line (``# Idx ...``, ``#YYYYMMDD ...``, ``Id``) or a comment that is not a header.

    Raises:
        DmonError: the header is ``nvidia-smi pmon`` (per-process) output, not dmon.
    """
    tokens = line.lstrip("#").split()
    if not tokens:
        return None
    lower = [t.lower() for t in tokens]
    if lower[0] == "entity":
        cols = [(i, *DCGM_COLUMN_MAP[t]) for i, t in enumerate(tokens) if t in DCGM_COLUMN_MAP]
        unknown: list[str] = [t for t in tokens[1:] if t not in DCGM_COLUMN_MAP]
        # data rows are "GPU <n> v1 v2": one more token than the header
        return DmonLayout(["entity", "gpu", *tokens[1:]], None, None, 1, [(i + 1, mt, sc) for i, mt, sc in cols],
                          unknown, dcgm=True)
    if "gpu" not in lower:
        return None
    if "pid" in lower:
        raise DmonError(_("This is 'nvidia-smi pmon' (per-process) output, not 'nvidia-smi dmon'."),
                        remedy=_("Record with 'nvidia-smi dmon -s umt -o DT' instead."))
    date_col = lower.index("date") if "date" in lower else None
    time_col = lower.index("time") if "time" in lower else None
    gpu_col = lower.index("gpu")
    metric_cols: list[tuple[int, str, float]] = []
    unknown = []
    seen: set[str] = set()
    for i, tok in enumerate(lower):
        if i in (date_col, time_col, gpu_col):
            continue
        hit = COLUMN_MAP.get(tok)
        if hit is None:
            unknown.append(tokens[i])
            metric_cols.append((i, f"dmon_{tok}", 1.0))
        elif hit[0] not in seen:
            seen.add(hit[0])
            metric_cols.append((i, hit[0], hit[1]))
    return DmonLayout(tokens, date_col, time_col, gpu_col, metric_cols, unknown)


def parse_data_line(line: str, lay: DmonLayout) -> list[float] | None:
    """One data line -> numbers (time split into h, m, s; '-' -> NaN); None when truncated or foreign."""
    tokens = line.split()
    if lay.dcgm:
        if len(tokens) != lay.ncols or tokens[0] != "GPU":
            return None
        tokens = ["0", *tokens[1:]]
    elif len(tokens) != lay.ncols:
        return None
    out: list[float] = []
    try:
        for i, tok in enumerate(tokens):
            if i == lay.time_col:
                h, mi, s = tok.split(":")
                out.extend((float(h), float(mi), float(s)))
            elif tok == "-":
                out.append(math.nan)
            else:
                out.append(float(tok))
    except ValueError:
        return None
    return out


def _dates_to_epoch(dates: np.ndarray) -> np.ndarray:
    """Epoch seconds (00:00 UTC) of ``YYYYMMDD`` numbers, NaN where the number is not a calendar date
    (NaN, inf, fractions, month 13, 31 February, years outside 1900-9999). Vectorised, linear in the rows; a log's
    date changes once a day, so each stretch of one date is converted once.

    Days from the civil date: Howard Hinnant's ``days_from_civil``, http://howardhinnant.github.io/date_algorithms.html
    """
    d = np.asarray(dates, dtype=np.float64).reshape(-1)
    if d.size > 1:
        change = np.empty(d.size, dtype=bool)
        change[0] = True
        np.not_equal(d[1:], d[:-1], out=change[1:])  # NaN != NaN: every NaN is its own stretch
        firsts = np.flatnonzero(change)
        if firsts.size < d.size // 2:
            return np.repeat(_civil_dates_to_epoch(d[firsts]), np.diff(firsts, append=d.size))
    return _civil_dates_to_epoch(d)


def _civil_dates_to_epoch(d: np.ndarray) -> np.ndarray:
    ok = np.isfinite(d) & (d >= 19000101) & (d <= 99991231)
    whole = np.where(ok, d, 19700101.0)
    ok &= whole == np.floor(whole)
    n = whole.astype(np.int64)
    year, month, day = n // 10000, (n // 100) % 100, n % 100
    leap = ((year % 4 == 0) & (year % 100 != 0)) | (year % 400 == 0)
    month_days = np.array([0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31], dtype=np.int64)
    ok &= (month >= 1) & (month <= 12)
    last = month_days[np.clip(month, 0, 12)] + ((month == 2) & leap)
    ok &= (day >= 1) & (day <= last)
    y = year - (month <= 2)
    era = y // 400
    yoe = y - era * 400
    mp = (month + 9) % 12
    doy = (153 * mp + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    days = era * 146097 + doe - 719468
    out: np.ndarray = days.astype(np.float64) * 86400.0
    out[~ok] = np.nan
    return out
