"""Heat map of a metric (default GPU utilization) as GPUs x time bins, for long runs such as a 72-hour burn-in.

Each cell is the mean of the readable values in its bin; a bin with none is NaN (drawn as "no data", never 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpudesk.i18n import _
from gpudesk.telemetry.core.model import GPU_UTIL, History, TelemetryError


@dataclass
class Heatmap:
    """values[i, j]: mean of the metric on GPU ``gpus[i]`` in time bin j, [edges[j], edges[j+1]) seconds."""

    values: np.ndarray
    edges: np.ndarray
    gpus: list[int]
    metric: str

    @property
    def bin_s(self) -> float:
        return float(self.edges[1] - self.edges[0]) if self.edges.size > 1 else 0.0


def heatmap(
    frame: History,
    metric: str = GPU_UTIL,
    *,
    bins: int | None = None,
    bin_s: float | None = None,
    t0: float | None = None,
    t1: float | None = None,
) -> Heatmap:
    """Bin ``metric`` per GPU over time; give either ``bins`` (count) or ``bin_s`` (width); default 288 bins.

    Raises:
        TelemetryError: the frame has no rows in the span, or bins/bin_s are not positive.
    """
    sub = frame.select(t0, t1) if (t0 is not None or t1 is not None) else frame
    if not len(sub):
        raise TelemetryError(_("No samples in the selected span: nothing to draw."))
    lo = float(sub.times[0]) if t0 is None else float(t0)
    hi = float(sub.times[-1]) if t1 is None else float(t1)
    span = max(hi - lo, 1e-9)
    if bin_s is not None:
        if bin_s <= 0:
            raise TelemetryError(_("Heat-map bin width must be positive, got {bin_s} s.").format(bin_s=bin_s))
        nbins = max(1, int(np.ceil(span / bin_s)))
    else:
        nbins = 288 if bins is None else int(bins)
        if nbins <= 0:
            raise TelemetryError(_("Heat-map bin count must be positive, got {nbins}.").format(nbins=nbins))
        bin_s = span / nbins
    edges = lo + np.arange(nbins + 1) * bin_s
    gpus = sub.gpus
    col = sub.columns.get(metric)
    values = np.full((len(gpus), nbins), np.nan)
    if col is None:
        return Heatmap(values, edges, gpus, metric)
    b = np.minimum(((sub.times - lo) / bin_s).astype(np.int64), nbins - 1)
    cells = np.arange(len(gpus))[None, :] * nbins + b[:, None]  # (rounds, GPUs) -> heat-map cell
    ok = ~np.isnan(col) & (b >= 0)[:, None]
    cell = cells[ok]
    sums = np.bincount(cell, weights=col[ok], minlength=len(gpus) * nbins)
    counts = np.bincount(cell, minlength=len(gpus) * nbins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    values[:] = mean.reshape(len(gpus), nbins)
    return Heatmap(values, edges, gpus, metric)
