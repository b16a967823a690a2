"""Read AMD ``amd-smi monitor`` (alias ``amd-smi dmon``) tables into the same sample frame the dmon reader produces
(issue 32).

Layout (amdsmi CLI, ``AMDSMILogger._convert_json_to_tabular`` and ``AMDSMICommands.monitor`` in
amdsmi_cli/amdsmi_logger.py and amdsmi_commands.py, https://github.com/ROCm/amdsmi): a header of upper-case column
names (``GPU  POWER  GPU_TEMP  MEM_TEMP  GFX_UTIL ...``), then one right-aligned row per GPU whose cells carry their
unit (``248 W``, ``55 °C``, ``83 %``, ``1613 MHz``, ``283 MB``, ``N/A Mb/s``). With ``-w`` (watch) a ``TIMESTAMP``
column (Unix seconds) comes first; on stdout every iteration repeats the header, with ``--file`` one header heads all
rows. An optional process table (``PROCESS INFO:``, ``-q``) follows the monitor table and is skipped.

Mapping: POWER (socket power, ``current_socket_power`` or ``average_socket_power``) -> power; GPU_TEMP (the hotspot,
i.e. junction sensor) -> GPU temperature; MEM_TEMP -> memory temperature; GFX_UTIL (``average_gfx_activity``) -> GPU
utilization; MEM_UTIL (``average_umc_activity``, the memory controller) -> memory utilization; GFX_CLOCK / MEM_CLOCK
-> SM / memory clock (MHz -> Hz); ENC_UTIL / DEC_UTIL -> encoder / decoder; SINGLE_ECC / DOUBLE_ECC / PCIE_REPLAY ->
the ECC and replay counters; PVIOL -> power violation (%). VRAM_USED / VRAM_TOTAL are printed in "MB" but are
MiB: the library divides bytes by 1024 * 1024 (``amdsmi_get_gpu_vram_usage`` in src/amd_smi/amd_smi.cc).

On MI300-class parts in CPX/DPX mode each compute partition is its own GPU row (the CDNA 3 XCDs of one package):
the rows are read as separate devices, as amd-smi lists them.

What the source cannot tell (said in the notes): PCIE_BW is one bidirectional figure, not RX and TX, so no PCIe
direction; TVIOL is a share of time, not the throttle-reason bits; no XGMI (Infinity Fabric) traffic.
"""

from __future__ import annotations

import re

import numpy as np

from gpudesk.i18n import _
from gpudesk.units import MIB
from gpudesk.telemetry.core.model import DEC_UTIL, ECC_DBE, ECC_SBE, ENC_UTIL, GPU_TEMP, GPU_UTIL, MEM_CLOCK, MEM_TEMP, \
    MEM_TOTAL, MEM_USED, MEM_UTIL, PCIE_REPLAY, POWER, POWER_VIOLATION, SM_CLOCK, DeviceInfo, History, \
    TelemetryError


MHZ = 1e6

#: amd-smi monitor column -> (metric, factor to the metric's unit)
COLUMNS: dict[str, tuple[str, float]] = {
    "POWER": (POWER, 1.0),
    "GPU_TEMP": (GPU_TEMP, 1.0),
    "MEM_TEMP": (MEM_TEMP, 1.0),
    "GFX_UTIL": (GPU_UTIL, 1.0),
    "GFX_CLOCK": (SM_CLOCK, MHZ),
    "MEM_UTIL": (MEM_UTIL, 1.0),
    "MEM_CLOCK": (MEM_CLOCK, MHZ),
    "ENC_UTIL": (ENC_UTIL, 1.0),
    "DEC_UTIL": (DEC_UTIL, 1.0),
    "SINGLE_ECC": (ECC_SBE, 1.0),
    "DOUBLE_ECC": (ECC_DBE, 1.0),
    "PCIE_REPLAY": (PCIE_REPLAY, 1.0),
    "VRAM_USED": (MEM_USED, MIB),
    "VRAM_TOTAL": (MEM_TOTAL, MIB),
    "PVIOL": (POWER_VIOLATION, 1.0),
}
#: Units amd-smi prints after a value (a cell is a value, then at most one unit).
UNITS = frozenset({"W", "°C", "C", "%", "MHz", "MB", "GB", "KB", "B", "Mb/s", "mV"})
_HEADER_TOKEN = re.compile(r"^[A-Z][A-Z0-9_]*$")
_MAX_INDEX = 4096


class AmdSmiMonitorError(TelemetryError):
    """The text is not ``amd-smi monitor`` output gpudesk reads."""


def _header(line: str) -> list[str] | None:
    """The column names when ``line`` is an amd-smi monitor header, else None."""
    tokens = line.split()
    if not tokens or not all(_HEADER_TOKEN.match(t) for t in tokens):
        return None
    start = 1 if tokens[0] == "TIMESTAMP" else 0
    if len(tokens) < start + 2 or tokens[start] != "GPU":
        return None
    rest = tokens[start + 1:]
    # newer amd-smi releases add columns: unknown upper-case names are kept (their cells are skipped by position),
    # as long as two of the columns gpudesk maps are there
    if sum(t in COLUMNS for t in rest) < 2 or len(set(rest)) != len(rest):
        return None
    return tokens


def looks_like_amd_smi_monitor(text: str) -> bool:
    """Whether ``text`` carries an ``amd-smi monitor`` header (``[TIMESTAMP] GPU POWER GPU_TEMP ...``)."""
    return any(_header(line) is not None for line in text.splitlines()[:200])


def _cells(line: str) -> list[tuple[str, str]]:
    """Split a row into (value, unit) cells: a unit token joins the value before it."""
    cells: list[tuple[str, str]] = []
    for token in line.split():
        if token in UNITS and cells and not cells[-1][1]:
            cells[-1] = (cells[-1][0], token)
        else:
            cells.append((token, ""))
    return cells


def _value(cell: str, factor: float) -> float:
    try:
        v = float(cell) * factor
    except ValueError:  # N/A
        return float("nan")
    return v if np.isfinite(v) else float("nan")


def parse_amd_smi_monitor(text: str, *, interval_s: float = 1.0) -> tuple[History, list[DeviceInfo], list[str],
                                                                         bool]:
    """Parse ``amd-smi monitor`` tables (one or more iterations).

    Returns:
        The frame, the devices, the notes and whether the rows carried their own time stamps (``-w``).

    Raises:
        AmdSmiMonitorError: no GPU row could be read.
    """
    if not interval_s > 0:
        raise AmdSmiMonitorError(_("The sampling interval must be positive; got {interval_s} s.").format(
            interval_s=interval_s))
    header: list[str] | None = None
    snapshot = -1
    t: list[float] = []
    snaps: list[int] = []
    gpu: list[int] = []
    cols: dict[str, list[float]] = {metric: [] for metric, _f in COLUMNS.values()}
    stamped = True
    skipped = 0
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        names = _header(line)
        if names is not None:
            header = names
            snapshot += 1
            continue
        if header is None:
            continue
        if line.rstrip(":").upper() in ("PROCESS INFO", "PROCESS_INFO"):
            header = None  # the process table follows until the next monitor header
            continue
        cells = _cells(line)
        row = {name: cell for name, (cell, _unit) in zip(header, cells, strict=False)}
        try:
            index = int(row.get("GPU", ""))
        except ValueError:
            skipped += 1
            continue
        if not 0 <= index < _MAX_INDEX:
            skipped += 1
            continue
        stamp = _value(row["TIMESTAMP"], 1.0) if "TIMESTAMP" in row else float("nan")
        stamped = stamped and not np.isnan(stamp)
        t.append(stamp)
        snaps.append(snapshot)
        gpu.append(index)
        for name, (metric, factor) in COLUMNS.items():
            cols[metric].append(_value(row[name], factor) if name in row else float("nan"))
    if not t:
        raise AmdSmiMonitorError(_("No amd-smi monitor rows could be read: expected a header such as `GPU  POWER  "
                                   "GPU_TEMP ...` and one row per GPU."))
    # rows without a TIMESTAMP (amd-smi monitor without -w) share no clock with stamped ones: then every row is
    # placed by its table (iteration) number
    t_arr = np.array(t, dtype=np.float64) if stamped else np.array(snaps, dtype=np.float64) * interval_s
    metrics = {m: np.array(v) for m, v in cols.items() if np.isfinite(np.array(v)).any()}
    gpus = sorted(set(gpu))
    notes = [
        (_("Imported from amd-smi monitor: {rows} row(s) of {gpus} GPU(s), with amd-smi's time stamps.")
         if stamped else
         _("Imported from amd-smi monitor: {rows} row(s) of {gpus} GPU(s); the table has no TIMESTAMP column "
           "(amd-smi monitor without -w), so iterations are taken {interval_s:g} s apart.")).format(
            rows=len(t), gpus=len(gpus), interval_s=interval_s),
        _("amd-smi monitor cannot tell PCIe direction (PCIE_BW is one bidirectional figure), Infinity Fabric "
          "(XGMI) traffic or throttle reasons: findings that need them are not judged."),
        _("GPU temperature here is amd-smi's GPU_TEMP, the hotspot (junction) sensor, not the edge sensor."),
    ]
    if skipped:
        notes.append(_("{lines} line(s) under an amd-smi header were not GPU rows and were skipped.").format(
            lines=skipped))
    frame = History.from_rows(t_arr, np.array(gpu, dtype=np.int32), metrics, notes=list(notes))
    totals: dict[int, float] = {}
    for g, v in zip(gpu, cols[MEM_TOTAL], strict=True):
        if np.isfinite(v):
            totals.setdefault(g, v)
    devices = [DeviceInfo(index=g, name=_("AMD GPU {index} (amd-smi)").format(index=g),
                          memory_total_bytes=int(totals[g]) if g in totals else None,
                          reasons={"pcie_gen_max": _("amd-smi monitor reports no PCIe link")}) for g in gpus]
    return frame, devices, notes, stamped
