"""Median, 5th and 95th percentile of each metric over a span, per GPU.

Percentiles use numpy's default linear interpolation between order statistics (Hyndman & Fan 1996,
definition 7). Values that could not be read (NaN) are left out and counted in ``missing``; a metric with no
readable value in the span gets ``median = p5 = p95 = None``. The method (DIGEST section 2): watch u, m and p every
second for three epochs and take the median.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpudesk.telemetry.core.model import History, widen
from gpudesk.telemetry.core.model import quantiles as quantiles_of


@dataclass(frozen=True)
class SpanStats:
    """Statistics of one metric on one GPU over a span (values in the metric's unit)."""

    median: float | None
    p5: float | None
    p95: float | None
    n: int
    missing: int
    mean: float | None = None
    min: float | None = None
    max: float | None = None

    def to_dict(self) -> dict[str, float | int | None]:
        return {"median": self.median, "p5": self.p5, "p95": self.p95, "mean": self.mean, "min": self.min,
                "max": self.max, "n": self.n, "missing": self.missing}


def summarize(values: np.ndarray) -> SpanStats:
    """:class:`SpanStats` of one array (NaN = missing), computed in float64.

    For float32 history columns the results are given at float32 precision (shortest decimal form), so a stored
    37.3 reads back as 37.3, not 37.29999923706055.
    """
    ok = values[~np.isnan(values)].astype(np.float64, copy=False)
    missing = int(values.size - ok.size)
    if not ok.size:
        return SpanStats(None, None, None, 0, missing)
    p5, med, p95 = quantiles_of(ok, [0.05, 0.5, 0.95])
    figures = np.array([med, p5, p95, ok.mean(), ok.min(), ok.max()])
    if values.dtype == np.float32:
        figures = widen(figures.astype(np.float32).ravel()).reshape(figures.shape)
    med, p5, p95, mean, lo, hi = figures.tolist()
    return SpanStats(med, p5, p95, int(ok.size), missing, mean, lo, hi)


_QUANTILES = (0.5, 0.05, 0.95)  # median, p5, p95
_COUNTED_RANGE = 1 << 17  # whole-number columns spanning at most this many grid steps are counted, not sorted


def _lerp(a: float, b: float, t: float) -> float:
    """numpy's own linear interpolation between neighbouring order statistics (numpy/lib/_function_base_impl.py,
    ``_lerp``), so the counted quantiles equal ``np.percentile``'s to the bit."""
    diff = b - a
    return b - diff * (1 - t) if t >= 0.5 else a + diff * t


def _counted_quantiles(x: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray | None:
    """(3, GPUs) median, p5, p95 of whole-number columns whose values lie on a grid of at most
    :data:`_COUNTED_RANGE` steps (percentages; bytes in whole MiB; rates in whole MB/s), by counting each value
    (linear in the rounds); None when the columns are not such."""
    if float((hi - lo).max()) >= 2.0**53:
        return None
    as_int = x.astype(np.int64)
    if not np.array_equal(as_int, x):  # also False for non-integral values
        return None
    base = lo.astype(np.int64)
    offsets = as_int - base[None, :]
    span = int((hi - lo).max())
    step = 1
    if span > _COUNTED_RANGE:
        step = int(np.gcd.reduce(offsets, axis=None))  # the grid the values lie on (1 MiB, 1 MB/s ...)
        if step < 1 or span // step > min(_COUNTED_RANGE, 2 * x.shape[0]):
            return None  # more grid steps than values: a partition is cheaper
        offsets = offsets // step
        span //= step
    n, g = x.shape
    counts = np.bincount((offsets + np.arange(g) * (span + 1)).reshape(-1), minlength=g * (span + 1))
    cumulative = np.cumsum(counts.reshape(g, span + 1), axis=1)
    out = np.empty((len(_QUANTILES), g))
    for row, q in enumerate(_QUANTILES):
        index = q * (n - 1)
        below = int(np.floor(index))
        above = min(below + 1, n - 1)
        for j in range(g):
            a, b = np.searchsorted(cumulative[j], [below, above], side="right")
            out[row, j] = _lerp(float(a * step + base[j]), float(b * step + base[j]), index - below)
    return out


def _columns_stats(col: np.ndarray) -> list[SpanStats]:
    """:class:`SpanStats` of each column of a (rounds, GPUs) array: all columns at once when no value is missing
    (the usual log; whole numbers of a small range, such as percentages, are counted rather than sorted), else
    column by column."""
    if not col.size:
        return [summarize(col[:, j]) for j in range(col.shape[1])]
    per_gpu = np.ascontiguousarray(col.T)  # one GPU's rounds contiguous: each reduction runs down one row
    if bool(np.isnan(per_gpu).any()):
        return [summarize(per_gpu[j]) for j in range(per_gpu.shape[0])]
    lo, hi = per_gpu.min(axis=1).astype(np.float64), per_gpu.max(axis=1).astype(np.float64)
    mean = per_gpu.mean(axis=1, dtype=np.float64)
    if bool(np.array_equal(lo, hi)):
        quantiles: np.ndarray | None = np.tile(lo, (len(_QUANTILES), 1))  # constant columns (enc, dec, bar1 ...)
    else:
        quantiles = _counted_quantiles(per_gpu.T, lo, hi)
    if quantiles is None:
        quantiles = np.array([quantiles_of(row, _QUANTILES) for row in per_gpu.astype(np.float64, copy=False)]).T
    figures = np.vstack([quantiles, mean, lo, hi])
    if col.dtype == np.float32:
        figures = widen(figures.astype(np.float32).ravel()).reshape(figures.shape)
    n = int(col.shape[0])
    return [SpanStats(med, p5, p95, n, 0, mean, mn, mx) for med, p5, p95, mean, mn, mx in figures.T.tolist()]


def span_stats(
    frame: History,
    t0: float | None = None,
    t1: float | None = None,
    *,
    metrics: list[str] | None = None,
    gpus: list[int] | None = None,
) -> dict[int, dict[str, SpanStats]]:
    """Per GPU, per metric :class:`SpanStats` over ``t0 <= t <= t1`` (whole frame when omitted).

    Metrics with no readable value on a GPU are still listed (all None) so the UI can show N/A with a reason
    (``frame.reason(gpu, metric)``). A round in which a GPU has no value of a metric counts as missing.
    """
    sub = frame.select(t0, t1) if (t0 is not None or t1 is not None) else frame
    names = metrics if metrics is not None else list(sub.columns)
    wanted = set(gpus) if gpus is not None else None
    keep = [(j, g) for j, g in enumerate(sub.gpus) if wanted is None or g in wanted]
    out: dict[int, dict[str, SpanStats]] = {int(g): {} for _j, g in keep}
    cols = [j for j, _g in keep]
    for name in names:
        col = sub.columns.get(name)
        if col is None:
            for _j, g in keep:
                out[int(g)][name] = SpanStats(None, None, None, 0, len(sub))
            continue
        part = col if len(cols) == col.shape[1] else col[:, cols]
        for (_j, g), stats in zip(keep, _columns_stats(part)):
            out[int(g)][name] = stats
    return out
