"""Which statistic of a serving benchmark's latencies a figure is: mean, median or a high percentile.

The benchmark clients report each latency as a mean, a median and percentiles over the requests of a run (vLLM
``benchmarks/serve.py`` / ``benchmark_serving.py`` ``calculate_metrics``: ``mean_ttft_ms``, ``median_ttft_ms``,
``p99_ttft_ms`` with ``np.mean``, ``np.median``, ``np.percentile``; SGLang ``bench_serving.py`` the same names):

- TTFT and end-to-end latency: one value per request.
- TPOT: per request ``(latency - ttft) / (output tokens - 1)``, requests of one output token left out.
- ITL: every gap between two streamed chunks of every request pooled together (``itls`` extended per request), so
  its mean weighs each request by its tokens and its median is the typical gap between two decode steps: a prompt
  step that pauses decoding (no mixed prefill) lengthens one gap of each running request, which moves the mean
  and the p99 and leaves the median.

Percentiles interpolate linearly between order statistics (``np.percentile``'s default); the pooled ITL gaps are
counted with their multiplicity.
"""

from __future__ import annotations

import bisect
import itertools
import math
import operator
from collections.abc import Sequence

from gpudesk.i18n import _
from gpudesk.sizing.errors import SizingError

STATISTICS = ("mean", "median", "p90", "p95", "p99")
LATENCY_METRICS = ("ttft_s", "tpot_s", "itl_s", "e2e_latency_s")
_QUANTILES = {"median": 0.5, "p90": 0.9, "p95": 0.95, "p99": 0.99}


def check_statistic(statistic: str) -> str:
    """``statistic`` when it is one of :data:`STATISTICS`.

    Raises:
        SizingError: another name.
    """
    if statistic not in STATISTICS:
        raise SizingError("measured.statistic", _("{statistic!r} is not a latency statistic; use one of {names}."
                                                  ).format(statistic=statistic, names=", ".join(STATISTICS)))
    return statistic


def summary(values: Sequence[float]) -> dict[str, float]:
    """Mean and the percentiles of :data:`STATISTICS` of ``values`` (all 0.0 when empty): :func:`weighted_summary`
    with every value once, without building the pairs (the same sums in the same order, so the same floats)."""
    ordered = sorted(values)
    if not ordered:
        return {name: 0.0 for name in STATISTICS}
    return _summarize(ordered, list(range(1, len(ordered) + 1)), sum(ordered))


def weighted_summary(pairs: Sequence[tuple[float, int]]) -> dict[str, float]:
    """Mean and percentiles of values given as (value, how many times it occurs) pairs (all 0.0 when empty)."""
    items = sorted(p for p in pairs if p[1] > 0)
    if not items:
        return {name: 0.0 for name in STATISTICS}
    values = list(map(_VALUE, items))
    counts = list(map(_COUNT, items))
    return _summarize(values, list(itertools.accumulate(counts)), sum(map(operator.mul, values, counts)))


_VALUE, _COUNT = operator.itemgetter(0), operator.itemgetter(1)


def _summarize(values: list[float], ends: list[int], total: float) -> dict[str, float]:
    """Mean and percentiles of sorted ``values``; ``ends[i]``: how many values sort at or before ``values[i]``;
    ``total``: the sum of every value counted as often as it occurs."""
    out = {"mean": total / ends[-1]}
    for name, q in _QUANTILES.items():
        out[name] = _quantile(values, ends, q)
    return out


def _quantile(values: list[float], ends: list[int], q: float) -> float:
    """Linear interpolation between the order statistics at rank ``q (total - 1)`` (numpy's default)."""
    rank = q * (ends[-1] - 1)
    low, high = math.floor(rank), math.ceil(rank)
    return _nth(values, ends, low) + (rank - low) * (_nth(values, ends, high) - _nth(values, ends, low))


def _nth(values: list[float], ends: list[int], index: int) -> float:
    """The ``index``-th (from 0) order statistic: the first value whose run of copies reaches past ``index``."""
    return values[min(bisect.bisect_right(ends, index), len(values) - 1)]
