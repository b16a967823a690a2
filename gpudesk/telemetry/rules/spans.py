"""Low-utilization spans on a regular time grid, per GPU and for the whole job.

The frame's rows are binned into ``interval_s`` slots from the first time stamp (one slot per sampling round;
GPUs of one round land in the same slot even when their time stamps differ by a few milliseconds). A span is a
run of low slots (GPU utilization under ``low_util_pct``) where gaps of up to ``merge_gap_s`` of higher samples
are bridged, lasting at least the minimum length. A job span is a run of slots where at least
``job_low_share_pct`` of the GPUs with a reading are low together. Vectorised: a 72 h x 8 GPU x 1 Hz log is
259,200 slots x 8 columns.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gpudesk.telemetry import model as m
from gpudesk.telemetry.host_metrics import HOST_CPU_UTIL
from gpudesk.telemetry.model import SeriesFrame
from gpudesk.telemetry.rules.thresholds import Thresholds

MAX_SLOTS = 5_000_000  # 58 days at 1 Hz; beyond that the interval is widened


@dataclass(frozen=True)
class Grid:
    """Metrics on a regular grid: ``t`` (slot start, epoch s), one column per GPU in ``gpus`` order."""

    t: np.ndarray
    interval_s: float
    gpus: list[int]
    util: np.ndarray  # (slots, gpus) percent, NaN = no reading
    pcie_rx: np.ndarray  # bytes/s host-to-device
    pcie_tx: np.ndarray
    host_cpu: np.ndarray  # (slots,) percent, NaN when not recorded
    # spans found on this grid, by (kind, thresholds, minimum length): low_util, input_starvation and periodic
    # ask for the same ones, and each rule used to find them again
    spans: dict[tuple[str, Thresholds, float], list[Span]] = field(default_factory=dict, compare=False, repr=False)


def _column(frame: SeriesFrame, metric: str, slot: np.ndarray, col: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    out = np.full(shape, np.nan)
    values = frame.metrics.get(metric)
    if values is not None:
        out[slot, col] = values
    return out


def build_grid(frame: SeriesFrame, interval_s: float) -> Grid:
    """Bin ``frame`` onto a regular grid of ``interval_s`` slots (the last reading in a slot wins)."""
    gpus = frame.gpus
    if not len(frame) or not gpus:
        empty = np.empty((0, len(gpus)))
        return Grid(np.empty(0), interval_s, gpus, empty, empty, empty, np.empty(0))
    t0 = float(frame.t[0])
    span = float(frame.t[-1]) - t0
    step = max(float(interval_s), 1e-3)
    if span / step > MAX_SLOTS:
        step = span / MAX_SLOTS
    slot = np.rint((frame.t - t0) / step).astype(np.int64)
    n = int(slot[-1]) + 1 if slot.size else 0
    col = np.searchsorted(np.asarray(gpus), frame.gpu)
    shape = (n, len(gpus))
    util = _column(frame, m.GPU_UTIL, slot, col, shape)
    rx = _column(frame, m.PCIE_RX, slot, col, shape)
    tx = _column(frame, m.PCIE_TX, slot, col, shape)
    cpu_cols = _column(frame, HOST_CPU_UTIL, slot, col, shape)
    with np.errstate(all="ignore"):
        cpu = np.nanmax(np.where(np.isnan(cpu_cols), -np.inf, cpu_cols), axis=1) if n else np.empty(0)
    cpu = np.where(np.isinf(cpu), np.nan, cpu)
    return Grid(t0 + np.arange(n) * step, step, gpus, util, rx, tx, cpu)


@dataclass(frozen=True)
class Span:
    """A stretch of low utilization.

    ``gpu`` is None for a job span (the GPUs low together). ``at_edge`` is True when the span touches the
    start or the end of the recording (warm-up, loading, teardown rather than a stall in the middle).
    """

    gpu: int | None
    t0: float
    t1: float
    duration_s: float
    util_median_pct: float
    util_max_pct: float
    pcie_rx_median_bytes_per_s: float | None
    pcie_tx_median_bytes_per_s: float | None
    host_cpu_median_pct: float | None
    at_edge: bool
    first_slot: int
    last_slot: int

    def to_dict(self) -> dict[str, object]:
        return {"gpu": self.gpu, "start_s": self.t0, "end_s": self.t1, "duration_s": self.duration_s,
                "gpu_util_median_pct": round(self.util_median_pct, 1),
                "gpu_util_max_pct": round(self.util_max_pct, 1),
                "pcie_rx_median_bytes_per_s": self.pcie_rx_median_bytes_per_s,
                "pcie_tx_median_bytes_per_s": self.pcie_tx_median_bytes_per_s,
                "host_cpu_median_pct": self.host_cpu_median_pct, "at_edge": self.at_edge}


def runs(mask: np.ndarray, bridge: int) -> list[tuple[int, int]]:
    """(first, last) index of each run of True, joining runs separated by at most ``bridge`` False entries.

    Only runs of two samples or more are joined (and a lone True sample never starts or extends a bridged run):
    a stall that flickers up for a second stays one stall, while noise that dips below the line now and then
    does not chain into a long "span"."""
    if not mask.size or not mask.any():
        return []
    d = np.diff(np.concatenate(([0], mask.astype(np.int8), [0])))
    starts = np.flatnonzero(d == 1)
    ends = np.flatnonzero(d == -1) - 1
    if bridge > 0 and starts.size > 1:
        solid = (ends - starts) >= 1
        s_starts, s_ends = starts[solid], ends[solid]
        l_starts, l_ends = starts[~solid], ends[~solid]
        if s_starts.size > 1:
            keep = (s_starts[1:] - s_ends[:-1] - 1) > bridge
            s_starts = np.concatenate((s_starts[:1], s_starts[1:][keep]))
            s_ends = np.concatenate((s_ends[:-1][keep], s_ends[-1:]))
        # lone samples inside a bridged run are part of it; the others stay runs of one
        if l_starts.size and s_starts.size:
            pos = np.searchsorted(s_starts, l_starts, side="right") - 1
            outside = (pos < 0) | (l_starts > s_ends[np.maximum(pos, 0)])
            l_starts, l_ends = l_starts[outside], l_ends[outside]
        starts, ends = np.concatenate((s_starts, l_starts)), np.concatenate((s_ends, l_ends))
        order = np.lexsort((ends, starts))
        starts, ends = starts[order], ends[order]
    return list(zip(starts.tolist(), ends.tolist()))


def coverage(spans: list[Span], n_slots: int) -> np.ndarray:
    """Prefix count of slots covered by ``spans``: slots first..last are touched iff c[last + 1] - c[first] > 0."""
    marks = np.zeros(n_slots + 1, dtype=np.int64)
    for sp in spans:
        marks[sp.first_slot] += 1
        marks[sp.last_slot + 1] -= 1
    covered = np.cumsum(marks)[:n_slots] > 0
    return np.concatenate(([0], np.cumsum(covered)))


def touches(cov: np.ndarray, span: Span) -> bool:
    return bool(cov[span.last_slot + 1] - cov[span.first_slot] > 0)


def _median(values: np.ndarray) -> float | None:
    v = values[~np.isnan(values)]
    return float(np.median(v)) if v.size else None


def _low_mask(util: np.ndarray, th: Thresholds) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        mask: np.ndarray = ~np.isnan(util) & (util < th.low_util_pct)
    return mask


def _make_span(grid: Grid, gpu: int | None, cols: np.ndarray, first: int, last: int) -> Span:
    sl = slice(first, last + 1)
    n_slots = grid.util.shape[0]
    if cols.size == 1:  # one GPU: its columns as they are (views, no sums)
        j = int(cols[0])
        u, rx_slot, tx_slot = grid.util[sl, j], grid.pcie_rx[sl, j], grid.pcie_tx[sl, j]
    else:
        u = grid.util[sl][:, cols]
        # per-slot sums over the GPUs in scope: the job moves rx bytes/s in total
        rx = grid.pcie_rx[sl][:, cols]
        tx = grid.pcie_tx[sl][:, cols]
        rx_slot = np.where(np.all(np.isnan(rx), axis=1), np.nan, np.nansum(rx, axis=1)) if rx.size else np.empty(0)
        tx_slot = np.where(np.all(np.isnan(tx), axis=1), np.nan, np.nansum(tx, axis=1)) if tx.size else np.empty(0)
    uv = u[~np.isnan(u)]
    # for a job span report the per-GPU median traffic (what each link carried)
    per = max(len(cols), 1)
    rx_med = _median(rx_slot)
    tx_med = _median(tx_slot)
    return Span(
        gpu, float(grid.t[first]), float(grid.t[last]), float(last - first + 1) * grid.interval_s,
        float(np.median(uv)) if uv.size else float("nan"), float(uv.max()) if uv.size else float("nan"),
        None if rx_med is None else rx_med / per, None if tx_med is None else tx_med / per,
        _median(grid.host_cpu[sl]), first == 0 or last >= n_slots - 1, first, last)


def gpu_spans(grid: Grid, th: Thresholds, min_s: float | None = None) -> list[Span]:
    """Low spans of each GPU, in time order per GPU (found once per grid, thresholds and length)."""
    need = th.min_span_s if min_s is None else min_s
    cached = grid.spans.get(("gpu", th, need))
    if cached is not None:
        return list(cached)
    bridge = round(th.merge_gap_s / grid.interval_s)
    out: list[Span] = []
    for j, g in enumerate(grid.gpus):
        low = _low_mask(grid.util[:, j], th)
        for first, last in runs(low, bridge):
            if (last - first + 1) * grid.interval_s >= need:
                out.append(_make_span(grid, g, np.array([j]), first, last))
    grid.spans[("gpu", th, need)] = out
    return list(out)


def job_low_mask(grid: Grid, th: Thresholds) -> np.ndarray:
    """Slots where at least ``job_low_share_pct`` of the GPUs with a reading are low (two GPUs or more)."""
    readable = ~np.isnan(grid.util)
    n_read = readable.sum(axis=1)
    n_low = _low_mask(grid.util, th).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(n_read > 0, 100.0 * n_low / np.maximum(n_read, 1), 0.0)
    mask: np.ndarray = (n_read >= 2) & (share >= th.job_low_share_pct - 1e-9)
    return mask


def job_spans(grid: Grid, th: Thresholds, min_s: float | None = None) -> list[Span]:
    """Spans where the job's GPUs are low together (empty for a single GPU; found once per grid, thresholds and
    length)."""
    if len(grid.gpus) < 2:
        return []
    need = th.min_span_s if min_s is None else min_s
    cached = grid.spans.get(("job", th, need))
    if cached is not None:
        return list(cached)
    bridge = round(th.merge_gap_s / grid.interval_s)
    cols = np.arange(len(grid.gpus))
    out = [_make_span(grid, None, cols, first, last)
           for first, last in runs(job_low_mask(grid, th), bridge)
           if (last - first + 1) * grid.interval_s >= need]
    grid.spans[("job", th, need)] = out
    return list(out)


def busy_share(grid: Grid, th: Thresholds) -> dict[int, float]:
    """GPU -> share (0-1) of its readable slots at or above ``low_util_pct``."""
    out: dict[int, float] = {}
    for j, g in enumerate(grid.gpus):
        u = grid.util[:, j]
        ok = ~np.isnan(u)
        if ok.any():
            out[g] = float(np.mean(u[ok] >= th.low_util_pct))
    return out
