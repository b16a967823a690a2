"""Read Huawei Ascend ``npu-smi info`` output (one table per snapshot) into the same sample frame the dmon
reader produces, so analysis, findings, heat maps and the burn-in report work on Ascend captures (issue 32).

The table layout is npu-smi's (Huawei "npu-smi info" command reference; captures in
tests/fixtures/vendor_logs with the issue URLs): per chip two rows,

    | NPU   Name        | Health | Power(W)   Temp(C)            Hugepages-Usage(page) |
    | Chip  Phy-ID      | Bus-Id | AICore(%)  Memory-Usage(MB)   HBM-Usage(MB)         |

Mapping: device index = the chip's Phy-ID (unique per die); AICore(%) -> GPU utilization (share of time the
AI cores are busy, like NVML's "gpu" utilization, not an occupancy); HBM-Usage used/total MB -> memory used and
total (MiB -> bytes; cards without HBM report only Memory-Usage, used instead); Power(W) and Temp(C) as they
are. On Atlas A3 boards the second die of a package prints "-" for power: npu-smi reports the package power on
chip 0 only, so that die's power is N/A with the reason. Several tables in one file (``watch npu-smi info`` or a
loop) are successive snapshots ``interval_s`` apart: npu-smi prints no time stamp.

What the source cannot tell (said in the notes so the findings do not over-read it): no PCIe or HCCS
throughput, no clocks or throttle reasons, no ECC or retired-page counters, no memory-controller activity.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gpudesk.i18n import _
from gpudesk.telemetry.core.model import GPU_TEMP, GPU_UTIL, MEM_TOTAL, MEM_USED, POWER, DeviceInfo, History, \
    TelemetryError

from gpudesk.units import MIB
_HEADER = re.compile(r"^\|\s*NPU\s+Name\s*\|", re.IGNORECASE)
_TOP = re.compile(
    r"^\|\s*(?P<npu>\d{1,4})\s+(?P<name>\S+)\s*\|\s*(?P<health>[^|]*?)\s*\|\s*(?P<power>[-\d.]+|NA)\s+(?P<temp>[-\d.]+|NA)\s+"
    r"(?P<hp_used>\d+)\s*/\s*(?P<hp_total>\d+)\s*\|")
_BOTTOM = re.compile(
    r"^\|\s*(?P<chip>\d{1,4})\s+(?P<phy>\d{1,4})?\s*\|\s*(?P<bus>[0-9A-Fa-f:.]+)\s*\|\s*(?P<aicore>[-\d.]+|NA)\s+"
    r"(?P<mem_used>\d+)\s*/\s*(?P<mem_total>\d+)(?:\s+(?P<hbm_used>\d+)\s*/\s*(?P<hbm_total>\d+))?\s*\|")
_PROCESS = re.compile(r"Process\s+id", re.IGNORECASE)


class NpuSmiError(TelemetryError):
    """The text is not ``npu-smi info`` output."""


@dataclass
class NpuSmiLog:
    """Result of reading ``npu-smi info`` text: the frame, the devices (name, bus id, HBM size) and notes."""

    frame: History
    devices: list[DeviceInfo]
    snapshots: int
    notes: list[str] = field(default_factory=list)


def looks_like_npu_smi(text: str) -> bool:
    """Whether ``text`` carries an ``npu-smi info`` chip table (its header row)."""
    return any(_HEADER.match(line.strip()) for line in text.splitlines()[:200])


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return float("nan")


def parse_npu_smi_info(text: str, *, interval_s: float = 1.0, start_time: float = 0.0) -> NpuSmiLog:
    """Parse ``npu-smi info`` text (one or more snapshots).

    Raises:
        NpuSmiError: no chip row could be read.
    """
    if interval_s <= 0:
        raise NpuSmiError(_("The sampling interval must be positive; got {interval_s} s.").format(
            interval_s=interval_s))
    rows: list[tuple[int, int, float, float, float, float, float]] = []
    devices: dict[int, DeviceInfo] = {}
    chips_of: dict[str, set[str]] = {}
    snapshot = -1
    pending: dict[str, str] | None = None
    in_processes = False
    skipped = 0
    for raw in text.splitlines():
        line = raw.strip()
        if _HEADER.match(line):
            snapshot += 1
            in_processes = False
            pending = None
            continue
        if _PROCESS.search(line):
            in_processes = True
            continue
        if in_processes or snapshot < 0 or not line.startswith("|"):
            continue
        top = _TOP.match(line)
        if top:
            pending = top.groupdict()
            continue
        bottom = _BOTTOM.match(line)
        if bottom and pending is not None:
            b = bottom.groupdict()
            index = int(b["phy"]) if b["phy"] is not None else int(pending["npu"])
            used, total = (b["hbm_used"], b["hbm_total"]) if b["hbm_total"] and int(b["hbm_total"]) > 0 else (
                b["mem_used"], b["mem_total"])
            chips_of.setdefault(pending["npu"], set()).add(b["chip"])
            rows.append((snapshot, index, _number(pending["power"]), _number(pending["temp"]),
                         _number(b["aicore"]), float(used) * MIB, float(total) * MIB))
            devices.setdefault(index, DeviceInfo(
                index=index, name=_("{name} (NPU {npu}, chip {chip})").format(
                    name=pending["name"], npu=pending["npu"], chip=b["chip"]),
                pci_bus_id=b["bus"], memory_total_bytes=int(total) * MIB,
                reasons={"pcie_gen_max": _("npu-smi info reports no PCIe link")}))
            pending = None
        elif line.startswith("| ") and not set(line) <= set("|+-= "):
            skipped += 1
    if not rows:
        raise NpuSmiError(_("No npu-smi chip rows could be read: expected the two-row table of `npu-smi info` "
                            "(NPU Name | Health | Power(W) Temp(C) ...)."))
    arr = np.array(rows, dtype=np.float64)
    t = start_time + arr[:, 0] * interval_s
    reasons: dict[tuple[int, str], str] = {}
    for i in np.unique(arr[np.isnan(arr[:, 2]), 1]).astype(int):
        reasons[(int(i), POWER)] = _("npu-smi reports the package power on chip 0 only; this die prints '-'")
    notes = [
        _("Imported from npu-smi info: {snapshots} snapshot(s) of {chips} chip(s); npu-smi prints no time stamps, "
          "so snapshots are taken {interval_s:g} s apart.").format(snapshots=snapshot + 1, chips=len(devices),
                                                                   interval_s=interval_s),
        _("npu-smi info cannot tell PCIe or HCCS traffic, clocks, throttle reasons, ECC counters or memory-controller "
          "activity: findings that need them are not judged."),
        _("GPU utilization here is npu-smi's AICore(%): the share of time the AI (Cube) cores are busy."),
    ]
    multi = sorted((npu for npu, chips in chips_of.items() if len(chips) > 1), key=int)
    if multi:
        notes.append(_("NPU {npus}: each package holds {chips} dies (Atlas A3, Ascend 910C); every die is its own "
                       "device with its own HBM, listed here by its Phy-ID.").format(
            npus=", ".join(multi), chips=max(len(chips_of[n]) for n in multi)))
    if skipped:
        notes.append(_("{lines} table line(s) were not chip rows and were skipped.").format(lines=skipped))
    frame = History.from_rows(t, arr[:, 1].astype(np.int32), {
        POWER: arr[:, 2], GPU_TEMP: arr[:, 3], GPU_UTIL: arr[:, 4], MEM_USED: arr[:, 5], MEM_TOTAL: arr[:, 6],
    }, reasons=reasons, notes=notes)
    return NpuSmiLog(frame, [devices[i] for i in sorted(devices)], snapshot + 1, notes)


def read_npu_smi_file(path: str | Path, *, interval_s: float = 1.0) -> NpuSmiLog:
    """Read an ``npu-smi info`` capture from ``path``.

    Raises:
        NpuSmiError: the file cannot be read or holds no npu-smi chip rows (the message names the file).
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise NpuSmiError(_("Cannot read {path}: {reason}").format(path=p, reason=exc.strerror or exc)) from exc
    try:
        return parse_npu_smi_info(text, interval_s=interval_s)
    except NpuSmiError as exc:
        raise NpuSmiError(_("{name}: {reason}").format(name=p.name, reason=exc)) from exc
