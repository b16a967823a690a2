"""A reading from a fleet server (Prometheus answer, exporter page) as a gpudesk value, or None with the reason.

Prometheus and the exporters pass on whatever the GPU, DCGM or a recording rule produced: ``NaN`` (no data, a
division by zero in a rule), ``+Inf``/``-Inf`` (an overflowed rate), DCGM's blank sentinels, and negative numbers
where the quantity cannot be negative (a counter reset seen through ``delta``, a bad relabelling). None of these is
a reading: each becomes None with its reason here, where the text is parsed, so nothing downstream shows
"util -inf %" or writes ``-Infinity`` into JSON. Text format: https://prometheus.io/docs/instrumenting/exposition_formats/
(``NaN``, ``+Inf``, ``-Inf`` are valid sample values); DCGM blanks: dcgm_fields.blank_reason.
"""

from __future__ import annotations

import math

import numpy as np

from gpudesk.telemetry.core import dcgm_fields as df

# Units whose quantities can be below zero (temperatures; a metric of unknown unit is not judged).
SIGNED_UNITS = frozenset({"C", ""})


_SENTINEL_VALUES = np.array(sorted(df.SENTINELS), dtype=np.float64)
_LOWEST_SENTINEL = float(_SENTINEL_VALUES.min())


def reading(raw: float, metric: str, scale: float = 1.0) -> tuple[float | None, str | None]:
    """(value in gpudesk units, None) or (None, why) for one raw sample value."""
    if raw != raw:
        return None, "not a number (NaN)"
    if math.isinf(raw):
        return None, "infinite (+Inf)" if raw > 0 else "infinite (-Inf)"
    why = df.blank_reason(raw)
    if why is not None:
        return None, why
    if raw < 0 and df.metric_unit(metric) not in SIGNED_UNITS:
        return None, f"negative ({raw:g}), impossible for a value in {df.metric_unit(metric)}"
    value = raw * scale
    if math.isinf(value):  # a huge negative reading of a signed unit (temperature) times the unit's scale
        return None, f"out of range ({raw:g})"
    return value, None


def readings(raw: np.ndarray, metric: str, scale: float = 1.0) -> tuple[np.ndarray, str | None]:
    """The vector form of :func:`reading`: values (NaN where not a reading) and the reason of the first value
    that was not a reading (None when all were)."""
    with np.errstate(over="ignore", invalid="ignore"):
        vals = raw * scale
    bad = ~np.isfinite(vals)
    high = raw >= _LOWEST_SENTINEL  # every DCGM sentinel is at least this: the set lookup only when one may be there
    if high.any():
        bad |= high & (np.isin(raw, _SENTINEL_VALUES) | (raw >= 2.0**63 - 16))
    if df.metric_unit(metric) not in SIGNED_UNITS:
        bad |= raw < 0
    if not bad.any():
        return vals, None
    first = float(raw[int(np.argmax(bad))])
    vals = np.where(bad, np.nan, vals)
    return vals, reading(first, metric, scale)[1] or "not a reading"
