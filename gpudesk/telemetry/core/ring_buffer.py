"""Bounded numpy history of monitor samples, with a min/max pyramid for fast drawing of long spans.

Layout: the :class:`~gpudesk.telemetry.core.model.History` layout, preallocated: one shared time axis ``times``
(float64, seconds since the epoch, shape ``(capacity,)``) and, per metric, an array of shape ``(capacity,
n_gpus)`` (float32 for live sampling; a loaded history keeps its own column types). A value that could not be read
is stored as NaN (never 0) and its reason is kept per (column, metric) in :attr:`HistoryBuffer.reasons`.
:meth:`HistoryBuffer.history` hands out a span as a ``History`` whose arrays are views of the buffer (no copy);
:meth:`HistoryBuffer.of` puts a whole loaded history (log, recording, fleet GPU) into one buffer, every metric kept,
so the tab holds the samples once.

Data stay contiguous (oldest first) so that any span is a view, not a copy. When the buffer is full the
oldest :data:`TOP_BLOCK` samples are dropped in one move (every 9 hours at 1 Hz), which keeps the
pyramid aligned. Memory: ``capacity * n_gpus * 4 bytes`` per metric plus 2/7 of that for the pyramid
(blocks of 8, 64, 512, 4096 and 32768 samples, each holding min and max). 72 h at 1 Hz for 8 GPUs and
9 metrics is about 98 MB in total.

Decimation (:meth:`HistoryBuffer.decimated`) is min/max ("peak") decimation, as in pyqtgraph's
``downsampleMethod='peak'``: each output bucket keeps its smallest and largest sample, so a short spike
stays visible however far out the view is zoomed, and no sample is dropped from the data itself.
"""

from __future__ import annotations

from gpudesk.errors import GpudeskError
from gpudesk.i18n import _

import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from gpudesk.telemetry.core import model as _m
from gpudesk.telemetry.core.model import History

FACTOR = 8
LEVELS = 5
# Metrics kept for the rules only (throttling: NVML clock-event reasons, dmon pviol/tviol), never drawn: no
# min/max pyramid for them (it would only cost memory and time on every tick).
UNDRAWN_METRICS = frozenset({_m.CLOCK_EVENTS, _m.POWER_VIOLATION, _m.THERMAL_VIOLATION})
# Slowly changing metrics whose last readable value the GPU list shows (a loaded history's last round may lack them).
LATEST_EXTRA = (_m.MEM_TOTAL, _m.POWER_LIMIT, _m.PCIE_GEN_MAX, _m.PCIE_WIDTH_MAX, _m.PCIE_GEN_CUR, _m.PCIE_WIDTH_CUR)
TOP_BLOCK: int = FACTOR**LEVELS  # 32768 samples
DEFAULT_BUDGET_BYTES = 160_000_000
SECONDS_72H = 72 * 3600


class HistoryError(GpudeskError, ValueError):
    """Bad input for the history buffer (unknown GPU index, wrong array shape)."""


def capacity_for(n_gpus: int, n_metrics: int, *, seconds: float = SECONDS_72H, interval_s: float = 1.0,
                 budget_bytes: int = DEFAULT_BUDGET_BYTES) -> int:
    """Samples to keep: ``seconds / interval_s`` rounded up to whole top blocks, capped by the byte budget.

    The cap keeps at least one top block; with 64 GPUs the live history then holds about 9 hours at 1 Hz
    (the recording in the store keeps everything).
    """
    want = max(1, math.ceil(seconds / max(interval_s, 1e-3)))
    per_sample = 8 + n_gpus * max(n_metrics, 1) * 4 * (1 + 2 / 7)
    fit = int(budget_bytes // per_sample)
    blocks = max(1, min(math.ceil(want / TOP_BLOCK), fit // TOP_BLOCK))
    return blocks * TOP_BLOCK


class HistoryBuffer:
    """History of ``metrics`` for ``n_gpus`` GPUs on one time axis.

    Args:
        n_gpus: number of GPUs (columns); GPU indices are 0 .. n_gpus-1 within this buffer.
        metrics: metric names kept (others given to :meth:`append` are ignored here).
        capacity: samples kept; rounded up to a multiple of :data:`TOP_BLOCK`. Default from
            :func:`capacity_for` (72 h at 1 Hz within a 160 MB budget).
        gpus: the GPU index (NVML, dmon or fleet position) of each column; default 0 .. n_gpus-1.
        dtypes: metric -> numpy dtype of its column; default float32.
        drawn: metrics that get a min/max pyramid for drawing; default every metric but :data:`UNDRAWN_METRICS`.
    """

    def __init__(self, n_gpus: int, metrics: Sequence[str], capacity: int | None = None, *,
                 gpus: Sequence[int] | None = None, dtypes: Mapping[str, np.dtype] | None = None,
                 drawn: Iterable[str] | None = None):
        if n_gpus < 1:
            raise HistoryError(_("A history needs at least one GPU, got {n_gpus}.").format(n_gpus=n_gpus))
        self.n_gpus = int(n_gpus)
        self.gpus = [int(g) for g in gpus] if gpus is not None else list(range(self.n_gpus))
        if len(self.gpus) != self.n_gpus:
            raise HistoryError(_("{indices} GPU indices given for {columns} columns.").format(
                indices=len(self.gpus), columns=self.n_gpus))
        self.metrics = tuple(dict.fromkeys(metrics))
        if capacity is None:
            capacity = capacity_for(self.n_gpus, len(self.metrics))
        self.capacity = max(TOP_BLOCK, math.ceil(int(capacity) / TOP_BLOCK) * TOP_BLOCK)
        self._t = np.full(self.capacity, np.nan, dtype=np.float64)
        kinds = dtypes or {}
        self._data = {m: np.full((self.capacity, self.n_gpus), np.nan, dtype=kinds.get(m, np.float32))
                      for m in self.metrics}
        wanted = None if drawn is None else set(drawn)
        self._drawn = tuple(m for m in self.metrics
                            if (m not in UNDRAWN_METRICS if wanted is None else m in wanted))
        self._mins = {m: self._new_levels(self._data[m].dtype) for m in self._drawn}
        self._maxs = {m: self._new_levels(self._data[m].dtype) for m in self._drawn}
        self.count = 0
        self.dropped = 0  # samples discarded from the front since creation
        self.clamped = 0  # timestamps raised to the previous one because the clock went backwards
        self.reasons: dict[tuple[int, str], str] = {}
        self.latest: dict[int, dict[str, float | None]] = {}

    def _new_levels(self, dtype: np.dtype = np.dtype(np.float32)) -> list[np.ndarray]:
        return [
            np.full((self.capacity // FACTOR ** (k + 1), self.n_gpus), np.nan, dtype=dtype)
            for k in range(LEVELS)
        ]

    @classmethod
    def of(cls, history: History, drawn: Sequence[str], *, gpus: Sequence[int] | None = None,
           capacity: int | None = None) -> HistoryBuffer:
        """A buffer holding the whole of a loaded ``history`` (every metric it has, in its own column types,
        plus the ``drawn`` ones it lacks as N/A), one column per GPU of ``gpus`` (default the history's), with a
        min/max pyramid for the ``drawn`` metrics. The buffer is then the one copy of the samples: hand
        :meth:`history` to the rules, statistics and exports."""
        order = list(history.gpus) if gpus is None else [int(g) for g in gpus]
        metrics = tuple(dict.fromkeys([*history.columns, *drawn]))
        n = len(history)
        if capacity is None:
            capacity = max(n, 1)
        dtypes = {k: v.dtype for k, v in history.columns.items()}
        buffer = cls(max(1, len(order)), metrics, capacity, gpus=order or [0], dtypes=dtypes,
                     drawn=[k for k in drawn if k not in UNDRAWN_METRICS])
        where = [history.position(g) for g in buffer.gpus]
        data = {}
        for name, col in history.columns.items():
            if where == list(range(len(history.gpus))):
                data[name] = col
                continue
            arr = np.full((n, buffer.n_gpus), np.nan, dtype=col.dtype)
            for new, old in enumerate(where):
                if old is not None:
                    arr[:, new] = col[:, old]
            data[name] = arr
        buffer.load(history.times, data)
        column = {g: j for j, g in enumerate(buffer.gpus)}
        buffer.reasons.update({(column[g], k): why for (g, k), why in history.reasons.items() if g in column})
        for j, old in enumerate(where):
            values = buffer.latest.setdefault(j, {})
            for metric in LATEST_EXTRA:
                extra = history.columns.get(metric)
                if extra is None or old is None:
                    continue
                finite = extra[:, old][np.isfinite(extra[:, old])]
                values[metric] = float(finite[-1]) if finite.size else None
        return buffer

    def history(self, t0: float | None = None, t1: float | None = None) -> History:
        """The samples between t0 and t1 (both optional) as a :class:`History` of views into the buffer (no copy;
        :meth:`History.copy` it before another thread reads it while samples arrive)."""
        i0, i1 = (0, self.count) if t0 is None and t1 is None else self.index_range(
            -math.inf if t0 is None else t0, math.inf if t1 is None else t1)
        reasons = {(self.gpus[c], k): why for (c, k), why in self.reasons.items() if 0 <= c < self.n_gpus}
        return History(self._t[i0:i1], self.gpus, {k: self._data[k][i0:i1] for k in self.metrics}, reasons)

    def widened(self, columns: Sequence[int | None], gpus: Sequence[int]) -> HistoryBuffer:
        """A new buffer with one column per entry of ``columns`` (GPU index ``gpus[i]``): the old column's history,
        or NaN for None (a GPU that appeared later, e.g. in a dmon stream)."""
        bigger = HistoryBuffer(len(columns), self.metrics, capacity=self.capacity, gpus=gpus,
                               dtypes={k: v.dtype for k, v in self._data.items()}, drawn=self._drawn)
        data = {}
        for metric in self.metrics:
            arr = np.full((self.count, len(columns)), np.nan, dtype=self._data[metric].dtype)
            for new_col, old_col in enumerate(columns):
                if old_col is not None:
                    arr[:, new_col] = self.series(metric)[:, old_col]
            data[metric] = arr
        bigger.load(self.times.copy(), data)
        moved = {old: new for new, old in enumerate(columns) if old is not None}
        bigger.reasons.update({(moved[c], k): why for (c, k), why in self.reasons.items() if c in moved})
        return bigger

    # ----------------------------------------------------------------- writing
    @property
    def nbytes(self) -> int:
        """Bytes held by the arrays (times, data and pyramid)."""
        total = self._t.nbytes
        for m in self.metrics:
            total += self._data[m].nbytes
            total += sum(a.nbytes for a in self._mins.get(m, ())) + sum(a.nbytes for a in self._maxs.get(m, ()))
        return total

    def append(self, t: float, rows: Mapping[int, Mapping[str, float | None]],
               reasons: Mapping[tuple[int, str], str] | None = None) -> None:
        """Add one tick at time ``t`` (s): ``rows[gpu][metric] -> value or None``; absent means None.

        Raises:
            HistoryError: a GPU index outside 0 .. n_gpus-1.
        """
        for gpu in rows:
            if not 0 <= gpu < self.n_gpus:
                raise HistoryError(_("GPU index {gpu} is outside this history (0..{last}).").format(
                    gpu=gpu, last=self.n_gpus - 1))
        self._make_room(1)
        i = self.count
        if i and t < self._t[i - 1]:
            t = float(self._t[i - 1])
            self.clamped += 1
        self._t[i] = t
        for gpu, values in rows.items():
            latest = self.latest.setdefault(gpu, {})
            latest.update(values)
            for metric, value in values.items():
                arr = self._data.get(metric)
                if arr is not None and value is not None:
                    arr[i, gpu] = value
        if reasons:
            self.reasons.update(reasons)
        self.count = i + 1
        self._update_pyramid(i, i + 1)

    def load(self, times: np.ndarray, data: Mapping[str, np.ndarray]) -> None:
        """Replace the content with ``times`` (n,) and ``data[metric]`` (n, n_gpus) with NaN for None.

        Keeps the newest ``capacity`` samples when more are given.

        Raises:
            HistoryError: when an array's shape does not match ``times`` and ``n_gpus``.
        """
        times = np.asarray(times, dtype=np.float64)
        n = len(times)
        for metric, arr in data.items():
            if metric in self._data and np.shape(arr) != (n, self.n_gpus):
                raise HistoryError(
                    _("Metric {metric!r} has shape {shape}, expected ({rows}, {columns}).").format(
                        metric=metric, shape=np.shape(arr), rows=n, columns=self.n_gpus)
                )
        start = max(0, n - self.capacity)
        keep = n - start
        self._t[:] = np.nan
        self._t[:keep] = np.maximum.accumulate(times[start:]) if keep else times[start:]
        for metric in self.metrics:
            self._data[metric][:] = np.nan
            if metric in data:
                self._data[metric][:keep] = np.asarray(data[metric][start:])
            for level in self._mins.get(metric, []) + self._maxs.get(metric, []):
                level[:] = np.nan
        self.count = keep
        self.dropped = start
        self._update_pyramid(0, keep)
        if keep:
            for gpu in range(self.n_gpus):
                self.latest[gpu] = {m: _finite_or_none(self._data[m][keep - 1, gpu]) for m in self.metrics}

    def clear(self) -> None:
        """Forget all samples (the arrays stay allocated)."""
        self.load(np.empty(0), {})
        self.latest.clear()
        self.reasons.clear()

    def _make_room(self, n: int) -> None:
        if self.count + n <= self.capacity:
            return
        shift = TOP_BLOCK * math.ceil((self.count + n - self.capacity) / TOP_BLOCK)
        keep = self.count - shift
        self._t[:keep] = self._t[shift:self.count]
        self._t[keep:] = np.nan
        for metric in self.metrics:
            arr = self._data[metric]
            arr[:keep] = arr[shift:self.count]
            arr[keep:] = np.nan
            if metric not in self._mins:
                continue
            for k in range(LEVELS):
                b = FACTOR ** (k + 1)
                for levels in (self._mins[metric], self._maxs[metric]):
                    lv = levels[k]
                    s, e = shift // b, self.count // b
                    lv[: e - s] = lv[s:e]
                    lv[e - s:] = np.nan
        self.count = keep
        self.dropped += shift

    def _update_pyramid(self, start: int, stop: int) -> None:
        """Recompute every complete block that covers raw samples [start, stop)."""
        for metric in self._drawn:
            below_min = below_max = self._data[metric]
            lo_idx, hi_idx = start, stop
            for k in range(LEVELS):
                first, last = lo_idx // FACTOR, hi_idx // FACTOR
                if last > first:
                    lo = first * FACTOR
                    hi = last * FACTOR
                    shape = (last - first, FACTOR, self.n_gpus)
                    self._mins[metric][k][first:last] = np.fmin.reduce(below_min[lo:hi].reshape(shape), axis=1)
                    self._maxs[metric][k][first:last] = np.fmax.reduce(below_max[lo:hi].reshape(shape), axis=1)
                below_min, below_max = self._mins[metric][k], self._maxs[metric][k]
                lo_idx, hi_idx = first, last

    # ----------------------------------------------------------------- reading
    @property
    def times(self) -> np.ndarray:
        """Time of each sample (s since the epoch), oldest first; a view."""
        return self._t[: self.count]

    def series(self, metric: str) -> np.ndarray:
        """All samples of ``metric``, shape (count, n_gpus), NaN where not read; a view.

        Raises:
            HistoryError: for a metric this buffer does not keep.
        """
        if metric not in self._data:
            raise HistoryError(_("The history does not keep {metric!r}; it keeps {kept}.").format(
                metric=metric, kept=", ".join(self.metrics)))
        return self._data[metric][: self.count]

    def span(self) -> tuple[float, float] | None:
        """(first, last) sample time, or None when empty."""
        if not self.count:
            return None
        return float(self._t[0]), float(self._t[self.count - 1])

    def typical_interval(self) -> float:
        """Median gap (s) between the last (up to 1000) sampling rounds; 1 s when there are fewer than two."""
        t = self.times[-1000:]
        gaps = np.diff(t)
        gaps = gaps[gaps > 0]
        return float(np.median(gaps)) if gaps.size else 1.0

    def index_range(self, t0: float, t1: float) -> tuple[int, int]:
        """Raw indices [i0, i1) of the samples with t0 <= t <= t1."""
        t = self.times
        return int(np.searchsorted(t, t0, "left")), int(np.searchsorted(t, t1, "right"))

    def decimated(self, metric: str, gpu: int, t0: float, t1: float, max_points: int) -> tuple[np.ndarray, np.ndarray]:
        """(x, y) for drawing ``metric`` of one GPU column; see :meth:`decimated_columns`."""
        x, y = self.decimated_columns(metric, [gpu], t0, t1, max_points)
        return x, y[:, 0]

    def decimated_columns(self, metric: str, gpus: Sequence[int], t0: float, t1: float, max_points: int
                          ) -> tuple[np.ndarray, np.ndarray]:
        """(x (k,), y (k, len(gpus))) for drawing ``metric`` between t0 and t1 with at most about
        ``max_points`` points per GPU.

        Raw samples are returned when they fit; otherwise min/max pairs per bucket taken from the pyramid, so
        the cost depends on ``max_points``, not on the span. Buckets with no readable value are NaN (drawn as
        a gap). One extra sample on each side keeps lines running to the view's edges; the last point is the
        newest sample in view.
        """
        data = self.series(metric)
        if metric not in self._mins:
            raise HistoryError(_("{metric!r} is kept for the rules, not for drawing.").format(metric=metric))
        cols = list(gpus)
        i0, i1 = self.index_range(t0, t1)
        i0, i1 = max(0, i0 - 1), min(self.count, i1 + 1)
        n = i1 - i0
        if n <= 0 or not cols:
            return np.empty(0), np.empty((0, len(cols)), dtype=np.float32)
        if n <= max_points:
            return self._t[i0:i1], data[i0:i1][:, cols]
        buckets = max(1, max_points // 2)
        want = n / buckets  # raw samples per output bucket
        level = -1  # -1 = raw
        while level + 1 < LEVELS and FACTOR ** (level + 2) <= want:
            level += 1
        b = FACTOR ** (level + 1)  # samples per block of the chosen level (1 = raw)
        r = max(1, math.ceil(want / b))  # blocks combined per bucket
        step = b * r
        first = -(-i0 // step)  # buckets fully inside [i0, i1)
        last = i1 // step
        mins_parts: list[np.ndarray] = []
        maxs_parts: list[np.ndarray] = []
        xs_parts: list[np.ndarray] = []
        if first * step > i0:  # head
            head = data[i0:min(first * step, i1)][:, cols]
            mins_parts.append(np.fmin.reduce(head, axis=0, keepdims=True))
            maxs_parts.append(np.fmax.reduce(head, axis=0, keepdims=True))
            xs_parts.append(self._t[i0:i0 + 1])
        if last > first:
            if level < 0:
                src_min = src_max = data
            else:
                src_min, src_max = self._mins[metric][level], self._maxs[metric][level]
            lo, hi = first * r, last * r
            shape = (last - first, r, len(cols))
            mins_parts.append(np.fmin.reduce(src_min[lo:hi][:, cols].reshape(shape), axis=1))
            maxs_parts.append(np.fmax.reduce(src_max[lo:hi][:, cols].reshape(shape), axis=1))
            xs_parts.append(self._t[first * step:last * step:step])
        tail_start = max(last * step, i0)
        if last >= first and tail_start < i1:  # tail
            tail = data[tail_start:i1][:, cols]
            mins_parts.append(np.fmin.reduce(tail, axis=0, keepdims=True))
            maxs_parts.append(np.fmax.reduce(tail, axis=0, keepdims=True))
            xs_parts.append(self._t[tail_start:tail_start + 1])
        mins = np.concatenate(mins_parts)
        maxs = np.concatenate(maxs_parts)
        xs = np.concatenate(xs_parts)
        k = len(xs)
        y = np.empty((2 * k + 1, len(cols)), dtype=np.float32)
        y[0:-1:2] = mins
        y[1:-1:2] = maxs
        y[-1] = data[i1 - 1, cols]  # end exactly at the newest sample in view
        x = np.empty(2 * k + 1)
        x[0:-1:2] = xs
        x[1:-1:2] = xs
        x[-1] = self._t[i1 - 1]
        return x, y

    def value_at(self, metric: str, gpu: int, t: float) -> tuple[float, float | None] | None:
        """(sample time, value or None) of the sample nearest to ``t``, or None when empty."""
        if not self.count or metric not in self._data:
            return None
        times = self.times
        i = int(np.searchsorted(times, t))
        if i >= self.count or (i > 0 and abs(times[i - 1] - t) <= abs(times[i] - t)):
            i -= 1
        i = max(i, 0)
        return float(times[i]), _finite_or_none(self._data[metric][i, gpu])

    def window(self, metric: str, t0: float, t1: float) -> np.ndarray:
        """Raw samples of ``metric`` between t0 and t1, shape (k, n_gpus); a view."""
        i0, i1 = self.index_range(t0, t1)
        return self.series(metric)[i0:i1]

    def binned_mean(self, metric: str, bins: int, t0: float | None = None, t1: float | None = None
                    ) -> tuple[np.ndarray, np.ndarray]:
        """(bin edges (bins+1,), means (n_gpus, bins)) of ``metric``; NaN for bins with no readable value."""
        span = self.span()
        if span is None:
            return np.empty(0), np.empty((self.n_gpus, 0))
        t0 = span[0] if t0 is None else t0
        t1 = span[1] if t1 is None else t1
        if t1 <= t0:
            t1 = t0 + 1.0
        edges = np.linspace(t0, t1, bins + 1)
        i0, i1 = self.index_range(t0, t1)
        values = self.series(metric)[i0:i1]
        means = np.full((bins, self.n_gpus), np.nan)
        if len(values):
            finite = np.isfinite(values)
            starts = np.searchsorted(self.times[i0:i1], edges[:-1], "left")
            stops = np.append(starts[1:], len(values))
            nonempty = stops > starts
            idx = np.minimum(starts, len(values) - 1)
            sums = np.add.reduceat(np.where(finite, values, 0.0), idx, axis=0)
            counts = np.add.reduceat(finite.astype(np.int32), idx, axis=0)
            counts[~nonempty] = 0
            np.divide(sums, counts, out=means, where=counts > 0)
        return edges, means.T


def _finite_or_none(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def rows_by_time(items: Iterable[tuple[float, int, Mapping[str, float | None]]], tolerance_s: float = 0.5
                 ) -> list[tuple[float, dict[int, dict[str, float | None]]]]:
    """Group (time, gpu, values) triples into ticks: samples within ``tolerance_s`` of a tick's first
    time and of a GPU not yet in it join that tick (NVML reads GPUs one after another)."""
    ticks: list[tuple[float, dict[int, dict[str, float | None]]]] = []
    for t, gpu, values in items:
        if ticks and abs(t - ticks[-1][0]) <= tolerance_s and gpu not in ticks[-1][1]:
            ticks[-1][1][gpu] = dict(values)
        else:
            ticks.append((t, {gpu: dict(values)}))
    return ticks
