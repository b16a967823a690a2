"""Readings no GPU can produce are set to N/A, with the reason, before statistics and rules see them.

A misread column, a corrupted log or a sentinel the source did not mark can put 1e32 MB in dmon's ``fb`` column;
averaged into statistics it prints "memory peaked at 1.2e29 % of capacity". Memory used is checked against the
GPU's capacity when it is known (NVML's total, or the catalog model picked for a dmon log) and otherwise against
the most memory any single GPU carries.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from gpudesk.i18n import _
from gpudesk.telemetry import model as m
from gpudesk.telemetry.model import DeviceInfo, SeriesFrame
from gpudesk.units import format_bytes

# The most memory one GPU holds, with room to spare: 288 GB of HBM3e on a B300 (NVIDIA Blackwell Ultra datasheet,
# https://www.nvidia.com/en-us/data-center/dgx-b300/); 1 TiB is over three times that.
MAX_GPU_MEMORY_BYTES = float(2**40)
# Memory used may read a little above the total (NVML's v1 call counts reserved memory as used); more than 2 %
# over it is not a reading of that GPU.
OVER_CAPACITY_TOLERANCE = 1.02


def _capacity(frame: SeriesFrame, rows: np.ndarray, device: DeviceInfo | None) -> float | None:
    total = frame.metrics.get(m.MEM_TOTAL)
    if total is not None:
        vals = total[rows]
        vals = vals[~np.isnan(vals) & (vals > 0) & (vals <= MAX_GPU_MEMORY_BYTES)]
        if vals.size:
            return float(np.max(vals))
    if device is not None and device.memory_total_bytes:
        return float(device.memory_total_bytes)
    return None


def screen(frame: SeriesFrame, devices: Mapping[int, DeviceInfo] | None = None) -> SeriesFrame:
    """``frame`` with impossible memory readings set to NaN (reason and a note say which and why); the same
    frame when every reading is plausible."""
    used = frame.metrics.get(m.MEM_USED)
    if used is None or not len(frame):
        return frame
    bad = np.zeros(len(frame), dtype=bool)
    reasons = dict(frame.reasons)
    notes = list(frame.notes)
    for g, rows in frame.gpu_rows().items():
        vals = used[rows]
        cap = _capacity(frame, rows, (devices or {}).get(g))
        limit = cap * OVER_CAPACITY_TOLERANCE if cap else MAX_GPU_MEMORY_BYTES
        wrong = ~np.isnan(vals) & ((vals > limit) | (vals < 0))
        if not wrong.any():
            continue
        bad[rows[wrong]] = True
        worst = float(np.nanmax(np.abs(vals[wrong])))
        if cap:
            why = _("above the GPU's {capacity} capacity").format(capacity=format_bytes(cap))
        else:
            why = _("above {limit}, more than any GPU holds").format(limit=format_bytes(MAX_GPU_MEMORY_BYTES))
        reasons[(g, m.MEM_USED)] = _("implausible reading ({why})").format(why=why)
        notes.append(_("GPU {gpu}: {n} memory-used reading(s) up to {worst:.3g} bytes are {why}: shown as N/A "
                       "(a misread column or a corrupted log).").format(gpu=g, n=int(wrong.sum()), worst=worst,
                                                                        why=why))
    if not bad.any():
        return frame
    cols = dict(frame.metrics)
    col = used.copy()
    col[bad] = np.nan
    cols[m.MEM_USED] = col
    return SeriesFrame(frame.t, frame.gpu, cols, reasons, notes, sort=False)
