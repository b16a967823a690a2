"""``nvidia-smi --query-gpu=<fields> --format=csv[,noheader][,nounits] [-l S | -lms MS]`` text -> samples.

The layout (``nvidia-smi --help-query-gpu``; https://docs.nvidia.com/deploy/nvidia-smi/index.html)::

    timestamp, index, utilization.gpu [%], memory.used [MiB], power.draw [W]
    2024/05/02 10:11:12.345, 0, 36 %, 2856 MiB, 106.56 W

The header names each query field with its unit in brackets; with ``nounits`` the values are plain numbers,
otherwise each value repeats the unit. ``[N/A]``, ``[Not Supported]``, ``[Unknown Error]`` ... are values that
could not be read (None with that reason). Without a ``timestamp`` column, rows are grouped into rounds (a round
ends when a GPU index repeats) spaced ``interval_s`` apart (``-l``). Query fields gpudesk does not map are kept as
``smi_<field>_<unit>`` in the base unit of their header unit (``clocks.gr [MHz]`` -> ``smi_clocks_gr_hz``, see
:data:`~gpudesk.telemetry.core.dcgm_fields.UNIT_SUFFIXES`); text fields other than name/uuid/pci.bus_id are dropped with a note.
"""

from __future__ import annotations

import csv
import datetime as _dt
import io
import math

import numpy as np

from gpudesk.i18n import _
from gpudesk.telemetry.core.dcgm_fields import UNIT_SUFFIXES
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core.model import DeviceInfo, History
from gpudesk.units import MIB


# query field (and its long alias) -> gpudesk metric; the unit factor comes from the header's [unit].
QUERY_FIELDS: dict[str, str] = {
    "utilization.gpu": m.GPU_UTIL,
    "utilization.memory": m.MEM_UTIL,
    "utilization.encoder": m.ENC_UTIL,
    "utilization.decoder": m.DEC_UTIL,
    "memory.used": m.MEM_USED,
    "memory.free": m.MEM_FREE,
    "memory.total": m.MEM_TOTAL,
    "memory.reserved": m.MEM_RESERVED,
    "power.draw": m.POWER,
    "power.draw.instant": m.POWER,
    "power.limit": m.POWER_LIMIT,
    "enforced.power.limit": m.POWER_LIMIT,
    "temperature.gpu": m.GPU_TEMP,
    "temperature.memory": m.MEM_TEMP,
    "clocks.sm": m.SM_CLOCK,
    "clocks.current.sm": m.SM_CLOCK,
    "clocks.mem": m.MEM_CLOCK,
    "clocks.current.memory": m.MEM_CLOCK,
    "pcie.link.gen.current": m.PCIE_GEN_CUR,
    "pcie.link.gen.gpucurrent": m.PCIE_GEN_CUR,
    "pcie.link.gen.max": m.PCIE_GEN_MAX,
    "pcie.link.width.current": m.PCIE_WIDTH_CUR,
    "pcie.link.width.max": m.PCIE_WIDTH_MAX,
    "clocks_event_reasons.active": m.CLOCK_EVENTS,
    "clocks_throttle_reasons.active": m.CLOCK_EVENTS,
    "ecc.errors.corrected.volatile.total": m.ECC_SBE,
    "ecc.errors.uncorrected.volatile.total": m.ECC_DBE,
}
UNIT_FACTORS = {"MiB": float(MIB), "MHz": 1e6, "W": 1.0, "%": 1.0, "KiB": 1024.0, "GiB": float(1024 ** 3)}
#: header unit -> (suffix of an unmapped field's metric name, the unit of its stored value after UNIT_FACTORS)
TEXT_FIELDS = ("name", "gpu_name", "uuid", "gpu_uuid", "pci.bus_id", "gpu_bus_id")


def _field(cell: str) -> tuple[str, str | None]:
    name, _sep, rest = cell.strip().partition(" [")
    return name.strip().lower(), (rest.rstrip("]").strip() or None) if rest else None


def _unmapped_metric(name: str, unit: str | None) -> str:
    """``smi_<field>`` plus its base unit's suffix, e.g. ``smi_clocks_current_graphics_hz``."""
    return "smi_" + name.replace(".", "_") + UNIT_SUFFIXES.get(unit or "", ("", ""))[0]


def _timestamp(text: str) -> float | None:
    for fmt in ("%Y/%m/%d %H:%M:%S.%f", "%Y/%m/%d %H:%M:%S"):
        try:
            return _dt.datetime.strptime(text.strip(), fmt).replace(tzinfo=_dt.timezone.utc).timestamp()
        except ValueError:
            continue
    return None


def _number(cell: str, unit: str | None) -> tuple[float | None, str | None]:
    s = cell.strip()
    if not s or s.startswith("["):
        return None, "nvidia-smi " + (s or "empty")
    if unit and s.endswith(unit):
        s = s[: -len(unit)].strip()
    try:
        v = float(int(s, 16)) if s.lower().startswith("0x") else float(s)
    except ValueError:
        return None, f"nvidia-smi {cell.strip()[:20]!r}"
    if not math.isfinite(v):
        return None, "not finite"
    return v * UNIT_FACTORS.get(unit or "", 1.0), None


def parse_smi_query_csv(text: str, *, interval_s: float = 1.0) -> tuple[History, list[DeviceInfo], list[str]]:
    """Parse the whole text; returns (frame, devices by GPU index, notes). Rows that are not CSV of the header's
    width are skipped and counted in a note."""
    header: list[tuple[str, str | None]] | None = None
    t: list[float] = []
    gpu: list[int] = []
    cols: dict[str, list[float]] = {}
    reasons: dict[tuple[int, str], str] = {}
    devices: dict[int, DeviceInfo] = {}
    notes: list[str] = []
    skipped = 0
    dropped: set[str] = set()
    round_no = 0
    seen: set[int] = set()
    for row in csv.reader(io.StringIO(text), skipinitialspace=True):
        if not row or not "".join(row).strip() or row[0].lstrip().startswith("#"):
            continue
        if header is None:
            header = [_field(c) for c in row]
            continue
        if len(row) != len(header):
            skipped += 1
            continue
        cells = dict(zip((name for name, _unit in header), row))
        index_text = cells.get("index", "").strip()
        g = int(index_text) if index_text.isdigit() else len(seen) if index_text == "" else -1
        if g < 0:
            skipped += 1
            continue
        stamp = _timestamp(cells["timestamp"]) if "timestamp" in cells else None
        if stamp is None:
            if g in seen:
                round_no += 1
                seen = set()
            stamp = round_no * interval_s
        seen.add(g)
        n = len(t)
        t.append(stamp)
        gpu.append(g)
        dev = devices.setdefault(g, DeviceInfo(g))
        for (name, unit), cell in zip(header, row):
            if name in ("timestamp", "index"):
                continue
            if name in TEXT_FIELDS:
                value = cell.strip()
                if name in ("name", "gpu_name"):
                    dev.name = dev.name or value
                elif name in ("uuid", "gpu_uuid"):
                    dev.uuid = dev.uuid or value
                else:
                    dev.pci_bus_id = dev.pci_bus_id or value
                continue
            metric = QUERY_FIELDS.get(name) or _unmapped_metric(name, unit)
            v, why = _number(cell, unit)
            if v is None and why and why.startswith("nvidia-smi '") and metric.startswith("smi_"):
                dropped.add(name)  # a text field such as pstate or compute_mode
                continue
            col = cols.setdefault(metric, [])
            col.extend([math.nan] * (n - len(col)))
            col.append(math.nan if v is None else v)
            if v is None and why:
                reasons.setdefault((g, metric), why)
    for col in cols.values():
        col.extend([math.nan] * (len(t) - len(col)))
    cols = {k: v for k, v in cols.items() if not (k.startswith("smi_") and all(math.isnan(x) for x in v))}
    if skipped:
        notes.append(_("{n} nvidia-smi CSV rows that do not match the header were skipped.").format(n=skipped))
    if dropped:
        notes.append(_("Text fields were not read: {fields}.").format(fields=", ".join(sorted(dropped))))
    if header is not None and "timestamp" not in dict(header):
        notes.append(_("No timestamp column: rows placed {interval:g} s apart (add timestamp to --query-gpu).")
                     .format(interval=interval_s))
    frame = History.from_rows(np.array(t), np.array(gpu), {k: np.array(v) for k, v in cols.items()}, reasons, notes)
    return frame, [devices[g] for g in sorted(devices)], notes
