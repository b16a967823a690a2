"""Read AMD ``rocm-smi`` output (the concise table, and ``--csv``) into the same sample frame the dmon reader
produces (issue 32).

Concise table (``rocm-smi`` with no option; ROCm SMI ``showAllConcise`` in rocm_smi.py, ROCm/rocm_smi_lib): one row
per device under a header ending in ``... PwrCap  VRAM%  GPU%``. Two layouts are read:

* ROCm <= 5: ``GPU  Temp  AvgPwr  SCLK  MCLK  Fan  Perf  PwrCap  VRAM%  GPU%`` (edge temperature, average power);
* ROCm 6/7: ``Device  Node  IDs  Temp  Power  Partitions  SCLK  MCLK  Fan  Perf  PwrCap  VRAM%  GPU%`` (junction
  temperature, socket power; secondary partitions of a DPX/CPX-partitioned MI300 print N/A).

The last seven columns are the same in both, so they are read from the right; temperature (``25.0c`` / ``60.0°C``)
and power (``10.0W``) are the first cells with those units left of SCLK. Mapping: GPU% -> GPU utilization (the
share of time the graphics/compute engine is busy, sysfs ``gpu_busy_percent``), SCLK -> SM clock, MCLK -> memory
clock, PwrCap -> power limit. VRAM% is a share of VRAM with no total in the table, so no byte figure is made from it.

``--csv`` (``rocm-smi --showuse --showmemuse --showmeminfo vram ... --csv``): a header ``device,<field>,...`` and one
row per ``cardN``; read by field name: ``GPU use (%)`` -> GPU utilization, ``GPU memory use (%)`` (sysfs
``mem_busy_percent``, memory-controller activity) -> memory utilization, ``VRAM Total Used Memory (B)`` / ``VRAM
Total Memory (B)`` -> memory used / total, ``Temperature (Sensor edge) (C)``, the package power columns and the
clocks where present.

Several tables or CSV blocks in one file (``watch rocm-smi`` or a loop) are successive snapshots ``interval_s``
apart: rocm-smi prints no time stamp. What the source cannot tell (said in the notes): no PCIe or Infinity Fabric
throughput, no throttle reasons, no ECC counters.
"""

from __future__ import annotations

import csv
import io
import re

import numpy as np

from gpudesk.i18n import _
from gpudesk.telemetry.core.model import GPU_TEMP, GPU_UTIL, MEM_CLOCK, MEM_TOTAL, MEM_USED, MEM_UTIL, POWER, \
    POWER_LIMIT, SM_CLOCK, DeviceInfo, History, TelemetryError

MHZ = 1e6
_TABLE_HEADER = re.compile(r"^(GPU|Device)\s+.*\bPwrCap\s+VRAM%\s+GPU%\s*$")
_ROW = re.compile(r"^\d{1,4}\s")  # a device index (bounded: it becomes an int32 row key)
_TEMP = re.compile(r"^(-?\d+(?:\.\d+)?)(?:c|°C|C)$")
_WATTS = re.compile(r"^(\d+(?:\.\d+)?)W$")
_MHZ = re.compile(r"^\(?(\d+(?:\.\d+)?)Mhz\)?$", re.IGNORECASE)
_PCT = re.compile(r"^(\d+(?:\.\d+)?)%$")

#: rocm-smi --csv field -> (metric, factor to the metric's unit)
CSV_FIELDS: dict[str, tuple[str, float]] = {
    "GPU use (%)": (GPU_UTIL, 1.0),
    "GPU memory use (%)": (MEM_UTIL, 1.0),
    "VRAM Total Used Memory (B)": (MEM_USED, 1.0),
    "VRAM Total Memory (B)": (MEM_TOTAL, 1.0),
    "Temperature (Sensor edge) (C)": (GPU_TEMP, 1.0),
    "Average Graphics Package Power (W)": (POWER, 1.0),
    "Current Socket Graphics Package Power (W)": (POWER, 1.0),
    "Max Graphics Package Power (W)": (POWER_LIMIT, 1.0),
}
_CSV_CLOCKS = {"sclk clock speed:": SM_CLOCK, "mclk clock speed:": MEM_CLOCK}


class RocmSmiError(TelemetryError):
    """The text is not rocm-smi output gpudesk reads."""


def looks_like_rocm_smi_table(text: str) -> bool:
    """Whether ``text`` carries a ``rocm-smi`` concise table header (``... PwrCap VRAM% GPU%``)."""
    return any(_TABLE_HEADER.match(line.strip()) for line in text.splitlines()[:200])


def looks_like_rocm_smi_csv(text: str) -> bool:
    """Whether the first line of ``text`` is a ``rocm-smi --csv`` header (``device,`` then rocm-smi field names)."""
    for line in text.splitlines():
        if line.strip():
            head = line.strip().lower()
            return head.startswith("device,") and any(f.lower() in head for f in (*CSV_FIELDS, *_CSV_CLOCKS))
    return False


def _num(pattern: re.Pattern[str], cell: str, factor: float = 1.0) -> float:
    m = pattern.match(cell.strip())
    return float(m.group(1)) * factor if m else float("nan")


def _notes(kind: str, snapshots: int, gpus: int, interval_s: float) -> list[str]:
    return [
        _("Imported from {kind}: {snapshots} snapshot(s) of {gpus} GPU(s); rocm-smi prints no time stamps, so "
          "snapshots are taken {interval_s:g} s apart.").format(kind=kind, snapshots=snapshots, gpus=gpus,
                                                                interval_s=interval_s),
        _("rocm-smi cannot tell PCIe or Infinity Fabric traffic, throttle reasons or ECC counters: findings that "
          "need them are not judged."),
    ]


def _check_interval(interval_s: float) -> None:
    if not interval_s > 0:
        raise RocmSmiError(_("The sampling interval must be positive; got {interval_s} s.").format(
            interval_s=interval_s))


def parse_rocm_smi_table(text: str, *, interval_s: float = 1.0) -> tuple[History, list[DeviceInfo], list[str]]:
    """Parse ``rocm-smi`` concise tables (one or more snapshots).

    Raises:
        RocmSmiError: no device row could be read.
    """
    _check_interval(interval_s)
    rows: list[tuple[int, int, float, float, float, float, float, float]] = []
    snapshot = -1
    new_layout = False
    skipped = 0
    for raw in text.splitlines():
        line = raw.strip()
        if _TABLE_HEADER.match(line):
            snapshot += 1
            new_layout = line.startswith("Device")
            continue
        if snapshot < 0 or not _ROW.match(line):
            continue
        cells = line.split()
        if len(cells) < 10:
            skipped += 1
            continue
        sclk, mclk, _fan, _perf, cap, _vram, util = cells[-7:]
        left = cells[1:-7]
        temp = next((_num(_TEMP, c) for c in left if _TEMP.match(c)), float("nan"))
        power = next((_num(_WATTS, c) for c in left if _WATTS.match(c)), float("nan"))
        rows.append((snapshot, int(cells[0]), temp, power, _num(_PCT, util), _num(_MHZ, sclk, MHZ),
                     _num(_MHZ, mclk, MHZ), _num(_WATTS, cap)))
    if not rows:
        raise RocmSmiError(_("No rocm-smi device rows could be read: expected the concise table of `rocm-smi` "
                             "(a header ending in PwrCap VRAM% GPU%, then one row per device)."))
    arr = np.array(rows, dtype=np.float64)
    gpus = sorted({int(i) for i in arr[:, 1]})
    notes = _notes("rocm-smi", snapshot + 1, len(gpus), interval_s)
    notes.append(_("Temperature is the junction (hotspot) sensor and power the socket power (ROCm 6 layout).")
                 if new_layout else _("Temperature is the edge sensor and power the average package power."))
    notes.append(_("VRAM% is a share with no total in the table, so memory in bytes is not known from this log."))
    if skipped:
        notes.append(_("{lines} table line(s) were not device rows and were skipped.").format(lines=skipped))
    frame = History.from_rows(arr[:, 0] * interval_s, arr[:, 1].astype(np.int32), {
        GPU_TEMP: arr[:, 2], POWER: arr[:, 3], GPU_UTIL: arr[:, 4], SM_CLOCK: arr[:, 5], MEM_CLOCK: arr[:, 6],
        POWER_LIMIT: arr[:, 7]}, notes=list(notes))
    devices = [DeviceInfo(index=g, name=_("AMD GPU {index} (rocm-smi)").format(index=g),
                          reasons={"pcie_gen_max": _("rocm-smi's table reports no PCIe link")}) for g in gpus]
    return frame, devices, notes


def parse_rocm_smi_csv(text: str, *, interval_s: float = 1.0) -> tuple[History, list[DeviceInfo], list[str]]:
    """Parse ``rocm-smi ... --csv`` output (one or more blocks, each with its header).

    Raises:
        RocmSmiError: no ``cardN`` row could be read.
    """
    _check_interval(interval_s)
    header: list[str] = []
    snapshot = -1
    t: list[float] = []
    gpu: list[int] = []
    cols: dict[str, list[float]] = {}
    names: dict[int, str] = {}
    for row in csv.reader(io.StringIO(text)):
        if not row or not row[0].strip():
            continue
        first = row[0].strip().lower()
        if first == "device":
            header = [c.strip() for c in row]
            snapshot += 1
            continue
        m = re.fullmatch(r"card(\d{1,4})", first)
        if not header or m is None:
            continue
        index = int(m.group(1))
        values: dict[str, float] = {}
        for name, cell in zip(header[1:], row[1:], strict=False):
            cell = cell.strip()
            if name in CSV_FIELDS:
                metric, factor = CSV_FIELDS[name]
                try:
                    values.setdefault(metric, float(cell) * factor)
                except ValueError:
                    values.setdefault(metric, float("nan"))
            elif name in _CSV_CLOCKS:
                values[_CSV_CLOCKS[name]] = _num(_MHZ, cell, MHZ)
            elif name == "Card Series" and cell:
                names.setdefault(index, cell)
        n = len(t)
        t.append(snapshot * interval_s)
        gpu.append(index)
        for metric, value in values.items():
            cols.setdefault(metric, [float("nan")] * n).append(value)
        for series in cols.values():
            if len(series) < n + 1:
                series.append(float("nan"))
    if not t:
        raise RocmSmiError(_("No rocm-smi CSV rows could be read: expected a `device,...` header and `cardN` rows."))
    gpus = sorted(set(gpu))
    notes = _notes("rocm-smi --csv", snapshot + 1, len(gpus), interval_s)
    frame = History.from_rows(np.array(t), np.array(gpu, dtype=np.int32), {k: np.array(v) for k, v in cols.items()},
                        notes=list(notes))
    totals = {g: v for g, v in zip(gpu, cols.get(MEM_TOTAL, []), strict=False) if np.isfinite(v)}
    devices = [DeviceInfo(index=g, name=names.get(g) or _("AMD GPU {index} (rocm-smi)").format(index=g),
                          memory_total_bytes=int(totals[g]) if g in totals else None,
                          reasons={"pcie_gen_max": _("rocm-smi's CSV reports no PCIe link")}) for g in gpus]
    return frame, devices, notes
