"""Low-utilization spans on a regular time grid, per GPU and for the whole job.

The rules read the history on a grid of ``interval_s`` slots from the first round (:func:`on_grid`; one slot
per sampling round, so GPUs of one round land in the same slot even when their time stamps differ by a few
milliseconds). When the rounds already are one interval apart (a steady log or live sampling) the grid is the
history itself, its columns unchanged (no copy); otherwise each column is placed in its slots once. A span is a
run of low slots (GPU utilization under ``low_util_pct``) where gaps of up to ``merge_gap_s`` of higher samples
are bridged, lasting at least the minimum length. A job span is a run of slots where at least
``job_low_share_pct`` of the GPUs with a reading are low together. Vectorised: a 72 h x 8 GPU x 1 Hz log is
259,200 slots x 8 columns.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core.host_metrics import HOST_CPU_UTIL
from gpudesk.telemetry.core.model import History, middle
from gpudesk.telemetry.rules.thresholds import Thresholds

MAX_SLOTS = 5_000_000  # 58 days at 1 Hz; beyond that the interval is widened

# Spans found on a grid, by (grid, kind, thresholds, minimum length): low_util, input_starvation and periodic ask
# for the same ones (a rule run passes one dict; see RuleContext.spans).
SpanCache = dict[tuple[Any, ...], list["Span"]]


def on_grid(frame: History, interval_s: float) -> History:
    """``frame`` on a regular grid of ``interval_s`` slots from its first round (the last reading in a slot
    wins): the same columns when its rounds are already one interval apart, else one placed copy per column."""
    step = max(float(interval_s), 1e-3)
    if not len(frame) or not frame.gpus:
        return History(np.empty(0), frame.gpus, {k: v[:0] for k, v in frame.columns.items()}, frame.reasons,
                       frame.notes, step)
    t0 = float(frame.times[0])
    span = float(frame.times[-1]) - t0
    if span / step > MAX_SLOTS:
        step = span / MAX_SLOTS
    slot = np.rint((frame.times - t0) / step).astype(np.int64)
    n = int(slot[-1]) + 1
    grid_t = t0 + np.arange(n) * step
    if n == len(frame) and bool(np.all(np.diff(slot) == 1)):
        return History(grid_t, frame.gpus, frame.columns, frame.reasons, frame.notes, step)
    cols = {}
    for name, col in frame.columns.items():
        out = np.full((n, len(frame.gpus)), np.nan, dtype=col.dtype)
        rows, gpus = np.nonzero(~np.isnan(col))  # rounds that share a slot add up; the last reading wins
        out[slot[rows], gpus] = col[rows, gpus]
        cols[name] = out
    return History(grid_t, frame.gpus, cols, frame.reasons, frame.notes, step)


def step_of(grid: History) -> float:
    """The slot length (s) of a grid made by :func:`on_grid`."""
    return grid.interval_s or 1.0


def util_of(grid: History) -> np.ndarray:
    """GPU utilization (slots, GPUs) in percent; all NaN when not recorded."""
    return _column(grid, m.GPU_UTIL)


def rx_of(grid: History) -> np.ndarray:
    """PCIe host-to-device throughput (slots, GPUs) in bytes/s; all NaN when not recorded."""
    return _column(grid, m.PCIE_RX)


def _column(grid: History, metric: str) -> np.ndarray:
    col = grid.columns.get(metric)
    return np.full((len(grid), len(grid.gpus)), np.nan) if col is None else col


def host_cpu_of(grid: History) -> np.ndarray:
    """Host CPU utilization per slot (percent; the readings of the slot's GPUs, highest), NaN when not recorded."""
    cols = grid.columns.get(HOST_CPU_UTIL)
    if cols is None or not len(grid):
        return np.full(len(grid), np.nan)
    with np.errstate(all="ignore"):
        cpu = np.nanmax(np.where(np.isnan(cols), -np.inf, cols), axis=1)
    return np.where(np.isinf(cpu), np.nan, cpu)


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
    starts, ends = run_bounds(mask, bridge)
    return list(zip(starts.tolist(), ends.tolist()))


def long_runs(mask: np.ndarray, bridge: int, step_s: float, need_s: float) -> list[tuple[int, int]]:
    """:func:`runs` lasting at least ``need_s`` at ``step_s`` per slot (the short ones are left out before any
    Python loop)."""
    starts, ends = run_bounds(mask, bridge)
    keep = (ends - starts + 1) * step_s >= need_s
    return list(zip(starts[keep].tolist(), ends[keep].tolist()))


def run_bounds(mask: np.ndarray, bridge: int) -> tuple[np.ndarray, np.ndarray]:
    """The first and last indices of :func:`runs`, as arrays."""
    if not mask.size or not mask.any():
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
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
    return starts, ends


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
    """Median of the readable values (np.median's value: the mean of the two middle ones for an even count, in the
    array's precision), None when there are none; a sort, cheaper than np.median on the short slices of a span."""
    v = values[~np.isnan(values)]
    return middle(v) if v.size else None


def _sorted_middle(v: np.ndarray) -> float:
    """:func:`~gpudesk.telemetry.core.model.middle` of an already sorted, non-empty array."""
    k = v.size
    return float((v[(k - 1) // 2] + v[k // 2]) / 2) if k % 2 == 0 else float(v[k // 2])


def _low_mask(util: np.ndarray, th: Thresholds) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        mask: np.ndarray = ~np.isnan(util) & (util < th.low_util_pct)
    return mask


@dataclass(frozen=True)
class _Columns:
    """The columns a span reports on, looked up once per search."""

    util: np.ndarray
    rx: np.ndarray
    tx: np.ndarray
    host_cpu: np.ndarray
    step_s: float


def _columns(grid: History) -> _Columns:
    return _Columns(util_of(grid), _column(grid, m.PCIE_RX), _column(grid, m.PCIE_TX), host_cpu_of(grid),
                    step_of(grid))


def _make_span(c: _Columns, grid: History, gpu: int | None, cols: np.ndarray, first: int, last: int) -> Span:
    sl = slice(first, last + 1)
    n_slots = c.util.shape[0]
    if cols.size == 1:  # one GPU: its columns as they are (views, no sums)
        j = int(cols[0])
        u, rx_slot, tx_slot = c.util[sl, j], c.rx[sl, j], c.tx[sl, j]
    else:
        u = c.util[sl][:, cols]
        # per-slot sums over the GPUs in scope: the job moves rx bytes/s in total
        rx = c.rx[sl][:, cols]
        tx = c.tx[sl][:, cols]
        rx_slot = np.where(np.all(np.isnan(rx), axis=1), np.nan, np.nansum(rx, axis=1)) if rx.size else np.empty(0)
        tx_slot = np.where(np.all(np.isnan(tx), axis=1), np.nan, np.nansum(tx, axis=1)) if tx.size else np.empty(0)
    uv = np.sort(u[~np.isnan(u)])
    # for a job span report the per-GPU median traffic (what each link carried)
    per = max(len(cols), 1)
    rx_med = _median(rx_slot)
    tx_med = _median(tx_slot)
    return Span(
        gpu, float(grid.times[first]), float(grid.times[last]), float(last - first + 1) * c.step_s,
        _sorted_middle(uv) if uv.size else float("nan"), float(uv[-1]) if uv.size else float("nan"),
        None if rx_med is None else rx_med / per, None if tx_med is None else tx_med / per,
        _median(c.host_cpu[sl]), first == 0 or last >= n_slots - 1, first, last)


def gpu_spans(grid: History, th: Thresholds, min_s: float | None = None, cache: SpanCache | None = None
              ) -> list[Span]:
    """Low spans of each GPU of a grid (:func:`on_grid`), in time order per GPU (found once per grid, thresholds
    and length when a ``cache`` is given)."""
    need = th.min_span_s if min_s is None else min_s
    key = (id(grid), "gpu", th, need)
    cached = None if cache is None else cache.get(key)
    if cached is not None:
        return list(cached)
    c = _columns(grid)
    bridge = round(th.merge_gap_s / c.step_s)
    out: list[Span] = []
    low_all = _low_mask(c.util, th)
    for j, g in enumerate(grid.gpus):
        for first, last in long_runs(low_all[:, j], bridge, c.step_s, need):
            out.append(_make_span(c, grid, g, np.array([j]), first, last))
    if cache is not None:
        cache[key] = out
    return list(out)


def job_low_mask(grid: History, th: Thresholds) -> np.ndarray:
    """Slots where at least ``job_low_share_pct`` of the GPUs with a reading are low (two GPUs or more)."""
    util = util_of(grid)
    readable = ~np.isnan(util)
    n_read = readable.sum(axis=1)
    n_low = _low_mask(util, th).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(n_read > 0, 100.0 * n_low / np.maximum(n_read, 1), 0.0)
    mask: np.ndarray = (n_read >= 2) & (share >= th.job_low_share_pct - 1e-9)
    return mask


def job_spans(grid: History, th: Thresholds, min_s: float | None = None, cache: SpanCache | None = None
              ) -> list[Span]:
    """Spans where the job's GPUs are low together (empty for a single GPU; found once per grid, thresholds and
    length when a ``cache`` is given)."""
    if len(grid.gpus) < 2:
        return []
    need = th.min_span_s if min_s is None else min_s
    key = (id(grid), "job", th, need)
    cached = None if cache is None else cache.get(key)
    if cached is not None:
        return list(cached)
    c = _columns(grid)
    bridge = round(th.merge_gap_s / c.step_s)
    cols = np.arange(len(grid.gpus))
    out = [_make_span(c, grid, None, cols, first, last)
           for first, last in long_runs(job_low_mask(grid, th), bridge, c.step_s, need)]
    if cache is not None:
        cache[key] = out
    return list(out)


def busy_share(grid: History, th: Thresholds) -> dict[int, float]:
    """GPU -> share (0-1) of its readable slots at or above ``low_util_pct``."""
    util = util_of(grid)
    ok = ~np.isnan(util)
    n_ok = ok.sum(axis=0)
    with np.errstate(invalid="ignore"):
        n_busy = (util >= th.low_util_pct).sum(axis=0)
    return {g: float(n_busy[j] / n_ok[j]) for j, g in enumerate(grid.gpus) if n_ok[j]}
