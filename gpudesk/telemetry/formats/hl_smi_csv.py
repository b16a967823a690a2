"""Read Intel Gaudi ``hl-smi -Q <fields> -f csv`` output into the same sample frame the dmon reader produces
(issue 32).

Format (Intel Gaudi docs, "System Management Interface Tool (hl-smi)",
https://docs.habana.ai/en/latest/Management_and_Monitoring/Embedded_System_Tools_Guide/System_Management_Interface_Tool.html):
``-Q, --query-aip`` selects fields printed as CSV, like ``nvidia-smi --query-gpu``: a header of field names with the
unit in brackets (``power.draw [W]``, ``temperature.aip [C]``, ``utilization.aip [%]``, ``memory.used [MiB]``),
cells separated by ``", "``, values with or without units (``nounits``), ``N/A`` where a field is not supported.
``-l [seconds]`` "continuously reports query data at the specified interval" (same page): a device seen again
starts the next repetition, and a repeated header line is read as the same header.

Mapping: ``utilization.aip`` -> GPU utilization (the share of time the AIP, i.e. the Gaudi accelerator, is busy);
``temperature.aip`` -> GPU temperature; ``power.draw`` -> power; ``memory.used`` / ``memory.total`` /
``memory.free`` (MiB) -> memory in bytes; ``timestamp`` -> the time of the row when present. The device is the
``index`` field, else the ``module_id``, else the ``uuid`` / ``serial`` / ``bus_id`` in the order first seen: a
query without an index lists the devices in the driver's order, which can differ from run to run.

What the source cannot tell (said in the notes): no memory-controller activity, no clocks or throttle reasons, no
PCIe or RoCE (scale-out) traffic in these fields.
"""

from __future__ import annotations

import csv
import io
import math
import re
from datetime import datetime

import numpy as np

from gpudesk.i18n import _
from gpudesk.units import MIB
from gpudesk.telemetry.core.model import GPU_TEMP, GPU_UTIL, MEM_FREE, MEM_TOTAL, MEM_USED, POWER, POWER_LIMIT, \
    DeviceInfo, History, TelemetryError


_MAX_INDEX = 4096

#: hl-smi query field -> (metric, factor to the metric's unit)
FIELDS: dict[str, tuple[str, float]] = {
    "utilization.aip": (GPU_UTIL, 1.0),
    "temperature.aip": (GPU_TEMP, 1.0),
    "power.draw": (POWER, 1.0),
    "power.limit": (POWER_LIMIT, 1.0),
    "memory.used": (MEM_USED, MIB),
    "memory.total": (MEM_TOTAL, MIB),
    "memory.free": (MEM_FREE, MIB),
}
_KEYS = ("uuid", "serial", "bus_id")
_NUMBER = re.compile(r"^\s*(-?\d+(?:\.\d+)?)")


class HlSmiCsvError(TelemetryError):
    """The text is not ``hl-smi -Q ... -f csv`` output gpudesk reads."""


def _field(cell: str) -> str:
    return cell.strip().split(" [")[0].strip().lower()


def looks_like_hl_smi_csv(text: str) -> bool:
    """Whether the first line of ``text`` is an hl-smi query header (field names, at least one ``*.aip`` field)."""
    for line in text.splitlines():
        if line.strip():
            names = [_field(c) for c in line.split(",")]
            return any(n.endswith(".aip") for n in names) and all(n and " " not in n for n in names)
    return False


def _number(cell: str, factor: float) -> float:
    m = _NUMBER.match(cell)
    if m is None:  # N/A, [N/A], empty
        return float("nan")
    v = float(m.group(1)) * factor
    return v if math.isfinite(v) else float("nan")


def _stamp(cell: str) -> float | None:
    text = cell.strip()
    for fmt in ("%Y/%m/%d %H:%M:%S.%f", "%Y/%m/%d %H:%M:%S", "%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%d %H:%M:%S",
                "%a %b %d %H:%M:%S %Y"):
        try:
            return datetime.strptime(text, fmt).timestamp()
        except ValueError:
            continue
    return None


def parse_hl_smi_csv(text: str, *, interval_s: float = 1.0) -> tuple[History, list[DeviceInfo], list[str], bool]:
    """Parse ``hl-smi -Q ... -f csv`` text (one header, then the rows of one or more repetitions).

    Returns:
        The frame, the devices, the notes and whether the rows carried their own time stamps.

    Raises:
        HlSmiCsvError: no header, or no device row could be read.
    """
    if not interval_s > 0:
        raise HlSmiCsvError(_("The sampling interval must be positive; got {interval_s} s.").format(
            interval_s=interval_s))
    header: list[str] = []
    rows: list[dict[str, str]] = []
    for cells in csv.reader(io.StringIO(text), skipinitialspace=True):
        if not cells or not any(c.strip() for c in cells):
            continue
        fields = [_field(c) for c in cells]
        if any(n.endswith(".aip") for n in fields) and all(n and " " not in n for n in fields):
            header = fields
            continue
        if header:
            rows.append({n: c.strip() for n, c in zip(header, cells, strict=False)})
    if not header:
        raise HlSmiCsvError(_("No hl-smi CSV header could be read: expected `hl-smi -Q <fields> -f csv` output, "
                              "whose header names fields such as utilization.aip."))
    keys: dict[str, int] = {}
    t: list[float] = []
    stamps: list[float | None] = []
    gpu: list[int] = []
    device_names: dict[int, str] = {}
    ids: dict[int, str] = {}
    cols: dict[str, list[float]] = {metric: [] for metric, _f in FIELDS.values()}
    seen_in_round: set[int] = set()
    round_no = 0
    skipped = 0
    for row in rows:
        index: int | None = None
        for name in ("index", "module_id"):
            if row.get(name, "").isdigit() and int(row[name]) < _MAX_INDEX:
                index = int(row[name])
                break
        key = next((row[k] for k in _KEYS if row.get(k) and row[k].upper() != "N/A"), None)
        if index is None and key is not None:
            index = keys.setdefault(key, len(keys))
        if index is None:
            skipped += 1
            continue
        if index in seen_in_round:  # a device seen again: the next repetition (-l) began
            round_no += 1
            seen_in_round.clear()
        seen_in_round.add(index)
        gpu.append(index)
        t.append(round_no * interval_s)
        stamps.append(_stamp(row["timestamp"]) if "timestamp" in row else None)
        if row.get("name"):
            device_names.setdefault(index, row["name"])
        if key is not None:
            ids.setdefault(index, key)
        for name, (metric, factor) in FIELDS.items():
            cols[metric].append(_number(row[name], factor) if name in row else float("nan"))
    if not gpu:
        raise HlSmiCsvError(_("No hl-smi CSV rows could be read: each row needs an index, module_id, uuid, serial "
                              "or bus_id to tell the devices apart."))
    stamped = all(s is not None for s in stamps)
    t_arr = np.array([s for s in stamps if s is not None] if stamped else t, dtype=np.float64)
    metrics = {m: np.array(v) for m, v in cols.items() if np.isfinite(np.array(v)).any()}
    gpus = sorted(set(gpu))
    notes = [
        (_("Imported from hl-smi CSV: {rows} row(s) of {devices} Gaudi device(s), with hl-smi's time stamps.")
         if stamped else
         _("Imported from hl-smi CSV: {rows} row(s) of {devices} Gaudi device(s); the query has no timestamp "
           "field, so repetitions are taken {interval_s:g} s apart.")).format(rows=len(gpu), devices=len(gpus),
                                                                          interval_s=interval_s),
        _("hl-smi's query fields cannot tell memory-controller activity, clocks, throttle reasons or PCIe and RoCE "
          "traffic: findings that need them are not judged."),
        _("GPU utilization here is hl-smi's utilization.aip: the share of time the Gaudi accelerator is busy."),
    ]
    if "index" not in header and "module_id" not in header:
        notes.append(_("The query has no index field: devices are numbered in the order their uuid, serial or "
                       "bus_id first appears."))
    if skipped:
        notes.append(_("{lines} row(s) had no field that names the device and were skipped.").format(lines=skipped))
    frame = History.from_rows(t_arr, np.array(gpu, dtype=np.int32), metrics, notes=list(notes))
    totals: dict[int, float] = {}
    for g, v in zip(gpu, cols[MEM_TOTAL], strict=True):
        if math.isfinite(v):
            totals.setdefault(g, v)
    devices = [DeviceInfo(index=g, uuid=ids.get(g), name=device_names.get(g) or _("Gaudi {index} (hl-smi)").format(index=g),
                          memory_total_bytes=int(totals[g]) if g in totals else None,
                          reasons={"pcie_gen_max": _("hl-smi's query CSV reports no PCIe link")}) for g in gpus]
    return frame, devices, notes, stamped
