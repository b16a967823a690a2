"""Read Huawei Ascend ``npu-smi info watch`` output (a scrolling table, one row per chip per round) into the same
sample frame the dmon reader produces (issue 32).

Format (Huawei npu-smi command reference, "查询所有芯片监测数据" / "查询指定芯片监测数据",
https://www.hiascend.com/document/detail/zh/Atlas%20200I%20A2/2520/re/npu/npusmi_010.html and npusmi_011.html): a
header ``NpuID(Idx)  ChipId(Idx) Pwr(W)  Temp(C)  AI Core(%)  AI Cpu(%)  Ctrl Cpu(%)  Memory(%)  Memory BW(%)``
(newer npu-smi releases drop ChipId(Idx) and add ``NPU Util(%)`` and ``AI Cube(%)``; ``-s`` selects a subset),
then one whitespace-separated row per chip every ``-d`` seconds (default 1 s). Header names contain single spaces
(``AI Core(%)``), so the header is split on the ``(unit)`` suffixes, not on blanks; every row cell is one token.

Mapping: Pwr(W) -> power; Temp(C) -> temperature; AI Core(%) -> GPU utilization (the share of time the AI cores are
busy, like NVML's utilization.gpu); Memory BW(%) -> memory utilization (on-chip memory bandwidth usage, like NVML's
utilization.memory). Memory(%) is a share of on-chip memory with no total in the table, so no byte figure is made
from it. npu-smi prints no time stamp: rounds are ``interval_s`` apart (the ``-d`` delay, 1 s unless set); a new
round begins when a chip already seen reappears.

Device index: the NPU ID when every row is chip 0 (one chip per NPU), else the (NPU, chip) pairs numbered in sorted
order, so the two dies of an Atlas A3 (910C) package are two devices, as npu-smi lists them.

What the source cannot tell (said in the notes): no memory in bytes, no PCIe or HCCS traffic, no clocks, throttle
reasons or ECC counters.
"""

from __future__ import annotations

import re

import numpy as np

from gpudesk.i18n import _
from gpudesk.telemetry.core.model import GPU_TEMP, GPU_UTIL, MEM_UTIL, POWER, DeviceInfo, History, TelemetryError

_HEADER = re.compile(r"^NpuID\(Idx\)\s", re.IGNORECASE)
_COLUMN = re.compile(r"[A-Za-z][A-Za-z ]*?\([^)]*\)")
_MAX_INDEX = 4096

#: npu-smi info watch column -> metric
COLUMNS: dict[str, str] = {
    "Pwr(W)": POWER,
    "Temp(C)": GPU_TEMP,
    "AI Core(%)": GPU_UTIL,
    "Memory BW(%)": MEM_UTIL,
}


class NpuSmiWatchError(TelemetryError):
    """The text is not ``npu-smi info watch`` output."""


def looks_like_npu_smi_watch(text: str) -> bool:
    """Whether ``text`` carries an ``npu-smi info watch`` header (``NpuID(Idx) ...``)."""
    return any(_HEADER.match(line.strip()) for line in text.splitlines()[:200])


def _number(cell: str) -> float:
    try:
        v = float(cell)
    except ValueError:  # NA, -
        return float("nan")
    return v if np.isfinite(v) else float("nan")


def parse_npu_smi_watch(text: str, *, interval_s: float = 1.0) -> tuple[History, list[DeviceInfo], list[str]]:
    """Parse ``npu-smi info watch`` text.

    Raises:
        NpuSmiWatchError: no chip row could be read.
    """
    if not interval_s > 0:
        raise NpuSmiWatchError(_("The sampling interval must be positive; got {interval_s} s.").format(
            interval_s=interval_s))
    header: list[str] = []
    rows: list[tuple[int, int, int, list[float]]] = []  # (round, npu, chip, values)
    seen: set[tuple[int, int]] = set()
    round_no = 0
    skipped = 0
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if _HEADER.match(line):
            header = [c.strip() for c in _COLUMN.findall(line)]
            continue
        if not header:
            continue
        cells = line.split()
        if len(cells) != len(header) or not (cells[0].isdigit() and int(cells[0]) < _MAX_INDEX):
            skipped += 1
            continue
        row = dict(zip(header, cells, strict=True))
        chip_cell = row.get("ChipId(Idx)", "0")
        if not (chip_cell.isdigit() and int(chip_cell) < _MAX_INDEX):
            skipped += 1
            continue
        key = (int(cells[0]), int(chip_cell))
        if key in seen:  # a chip seen again: the next round began
            round_no += 1
            seen.clear()
        seen.add(key)
        rows.append((round_no, key[0], key[1], [_number(row[c]) if c in row else float("nan") for c in COLUMNS]))
    if not rows:
        raise NpuSmiWatchError(_("No npu-smi info watch rows could be read: expected the `NpuID(Idx) ...` header "
                                 "and one row per chip."))
    pairs = sorted({(npu, chip) for _r, npu, chip, _v in rows})
    one_chip = all(chip == 0 for _n, chip in pairs)
    index_of = {pair: (pair[0] if one_chip else i) for i, pair in enumerate(pairs)}
    values = np.array([v for *_k, v in rows], dtype=np.float64)
    t = np.array([r for r, *_rest in rows], dtype=np.float64) * interval_s
    gpu = np.array([index_of[(npu, chip)] for _r, npu, chip, _v in rows], dtype=np.int32)
    metrics = {metric: values[:, i] for i, metric in enumerate(COLUMNS.values())
               if np.isfinite(values[:, i]).any()}
    notes = [
        _("Imported from npu-smi info watch: {rounds} round(s) of {chips} chip(s); npu-smi prints no time stamps, "
          "so rounds are taken {interval_s:g} s apart.").format(rounds=round_no + 1, chips=len(pairs),
                                                               interval_s=interval_s),
        _("npu-smi info watch cannot tell memory in bytes (Memory(%) has no total), PCIe or HCCS traffic, clocks, "
          "throttle reasons or ECC counters: findings that need them are not judged."),
        _("GPU utilization here is npu-smi's AI Core(%) and memory utilization its Memory BW(%)."),
    ]
    if skipped:
        notes.append(_("{lines} line(s) after the npu-smi header were not chip rows and were skipped.").format(
            lines=skipped))
    frame = History.from_rows(t, gpu, metrics, notes=list(notes))
    devices = [DeviceInfo(index=index_of[(npu, chip)], name=_("Ascend NPU {npu}, chip {chip} (npu-smi)").format(
        npu=npu, chip=chip), reasons={"pcie_gen_max": _("npu-smi info watch reports no PCIe link")})
        for npu, chip in pairs]
    return frame, devices, notes
