"""Conversions between the tab's :class:`HistoryBuffer` and the telemetry layer's ``SeriesFrame``.

A ``SeriesFrame`` has one row per (time, GPU) with NaN for values that could not be read; the buffer has one
row per tick and one column per GPU. Device ``i`` of the source is column ``i`` of the buffer; the frame's
``gpu`` column holds the device's own index (NVML or dmon index).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gpudesk.telemetry import model as m
from gpudesk.telemetry.model import DeviceInfo, SeriesFrame
from gpudesk.telemetry.ring_buffer import HistoryBuffer

# Slowly changing metrics whose last value the GPU list shows even though the plots do not keep them.
LATEST_EXTRA = (m.MEM_TOTAL, m.POWER_LIMIT, m.PCIE_GEN_MAX, m.PCIE_WIDTH_MAX, m.PCIE_GEN_CUR, m.PCIE_WIDTH_CUR)


@dataclass
class Snapshot:
    """A copy of a span of the buffer, safe to hand to another thread (the buffer keeps changing)."""

    times: np.ndarray
    data: dict[str, np.ndarray]
    reasons: dict[tuple[int, str], str]
    n_gpus: int


def snapshot(buffer: HistoryBuffer, t0: float | None = None, t1: float | None = None) -> Snapshot:
    """Copy the samples between t0 and t1 (both optional); float32 copies, cheap on the GUI thread."""
    span = buffer.span()
    if span is None:
        return Snapshot(np.empty(0), {}, {}, buffer.n_gpus)
    i0, i1 = buffer.index_range(span[0] if t0 is None else t0, span[1] if t1 is None else t1)
    return Snapshot(buffer.times[i0:i1].copy(), {k: buffer.series(k)[i0:i1].copy() for k in buffer.metrics},
                    dict(buffer.reasons), buffer.n_gpus)


def snapshot_to_frame(snap: Snapshot, devices: Sequence[DeviceInfo]) -> SeriesFrame:
    """A ``SeriesFrame`` (one row per tick and GPU) from a snapshot; run it off the GUI thread."""
    n, g = len(snap.times), snap.n_gpus
    if not n:
        return SeriesFrame(np.empty(0), np.empty(0), {})
    index = np.array([d.index for d in devices][:g] + list(range(len(devices), g)), dtype=np.int32)
    t = np.repeat(snap.times, g)
    gpu = np.tile(index, n)
    metrics = {name: arr.reshape(-1).astype(np.float64) for name, arr in snap.data.items()}
    reasons = {(int(index[col]), metric): why for (col, metric), why in snap.reasons.items() if col < g}
    return SeriesFrame(t, gpu, metrics, reasons, sort=False)


def buffer_to_frame(buffer: HistoryBuffer, devices: Sequence[DeviceInfo], t0: float | None = None,
                    t1: float | None = None) -> SeriesFrame:
    """Rows of the buffer between t0 and t1 (both optional) as a ``SeriesFrame`` (copies the data)."""
    return snapshot_to_frame(snapshot(buffer, t0, t1), devices)


def frame_to_buffer(frame: SeriesFrame, devices: Sequence[DeviceInfo], metrics: Sequence[str],
                    capacity: int | None = None) -> HistoryBuffer:
    """A new buffer holding ``frame`` (one column per device, in ``devices`` order); ticks are the frame's
    distinct time stamps, so GPUs sampled at the same second share a row."""
    order = {d.index: col for col, d in enumerate(devices)}
    n_gpus = max(1, len(devices))
    if capacity is None:
        from gpudesk.telemetry.ring_buffer import capacity_for

        ticks = len(np.unique(frame.t)) if len(frame) else 1
        capacity = max(ticks, min(capacity_for(n_gpus, len(metrics)), ticks))
    buffer = HistoryBuffer(n_gpus, metrics, capacity=capacity)
    if not len(frame):
        return buffer
    times, row = np.unique(frame.t, return_inverse=True)
    col = np.array([order.get(int(g), -1) for g in frame.gpu], dtype=np.int64)
    keep = col >= 0
    data = {}
    for name in metrics:
        arr = np.full((len(times), n_gpus), np.nan, dtype=np.float32)
        if name in frame.metrics:
            arr[row[keep], col[keep]] = frame.metrics[name][keep]
        data[name] = arr
    buffer.load(times, data)
    buffer.reasons.update({(order[g], metric): why for (g, metric), why in frame.reasons.items() if g in order})
    for col_index, device in enumerate(devices):
        rows = np.flatnonzero(frame.gpu == device.index)
        values = buffer.latest.setdefault(col_index, {})
        for metric in LATEST_EXTRA:
            if metric in frame.metrics and metric not in values:
                column = frame.metrics[metric][rows]
                finite = column[np.isfinite(column)]
                values[metric] = float(finite[-1]) if finite.size else None
    return buffer


def widen(buffer: HistoryBuffer, columns: Sequence[int | None]) -> HistoryBuffer:
    """A new buffer with one column per entry of ``columns``: the old column's history, or NaN for None
    (a GPU that appeared later, e.g. in a dmon stream)."""
    bigger = HistoryBuffer(len(columns), buffer.metrics, capacity=buffer.capacity)
    data = {}
    for metric in buffer.metrics:
        arr = np.full((buffer.count, len(columns)), np.nan, dtype=np.float32)
        for new_col, old_col in enumerate(columns):
            if old_col is not None:
                arr[:, new_col] = buffer.series(metric)[:, old_col]
        data[metric] = arr
    bigger.load(buffer.times.copy(), data)
    moved = {old: new for new, old in enumerate(columns) if old is not None}
    bigger.reasons.update({(moved[c], k): why for (c, k), why in buffer.reasons.items() if c in moved})
    return bigger
