"""Median, 5th and 95th percentile of each metric over a span, per GPU.

Percentiles use numpy's default linear interpolation between order statistics (Hyndman & Fan 1996,
definition 7). Values that could not be read (NaN) are left out and counted in ``missing``; a metric with no
readable value in the span gets ``median = p5 = p95 = None``. The method (DIGEST section 2): watch u, m and p every
second for three epochs and take the median.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpudesk.telemetry.model import History, widen


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
    p5, med, p95 = np.percentile(ok, [5.0, 50.0, 95.0])
    figures = np.array([med, p5, p95, ok.mean(), ok.min(), ok.max()])
    if values.dtype == np.float32:
        figures = widen(figures.astype(np.float32).ravel()).reshape(figures.shape)
    med, p5, p95, mean, lo, hi = figures.tolist()
    return SpanStats(med, p5, p95, int(ok.size), missing, mean, lo, hi)


def _columns_stats(col: np.ndarray) -> list[SpanStats]:
    """:class:`SpanStats` of each column of a (rounds, GPUs) array: all columns at once when no value is missing
    (the usual log), else column by column."""
    if not col.size or bool(np.isnan(col).any()):
        return [summarize(col[:, j]) for j in range(col.shape[1])]
    x = col.astype(np.float64, copy=False)
    figures = np.vstack([np.percentile(x, [50.0, 5.0, 95.0], axis=0), x.mean(axis=0), x.min(axis=0), x.max(axis=0)])
    if col.dtype == np.float32:
        figures = widen(figures.astype(np.float32).ravel()).reshape(figures.shape)
    n = int(col.shape[0])
    return [SpanStats(med, p5, p95, n, 0, mean, lo, hi) for med, p5, p95, mean, lo, hi in figures.T.tolist()]


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
