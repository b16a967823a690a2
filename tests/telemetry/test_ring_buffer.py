"""HistoryBuffer (gpudesk.telemetry.core.ring_buffer): the live history's decimation pyramid, memory budget and
binned means, without Qt (moved from the Monitor UI tests with the module)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core.ring_buffer import TOP_BLOCK, HistoryBuffer, capacity_for

from helpers.history import filled


def test_decimation_keeps_every_peak_and_bounds_the_points():
    buf, values = filled(200_000)
    values[123_457, 0] = 1000.0  # one spike must survive any zoom level
    buf.load(buf.times.copy(), {m.GPU_UTIL: values})
    t = buf.times
    for t0, t1, points in ((t[0], t[-1], 2000), (t[10], t[150_000], 1000), (t[5], t[900], 300)):
        x, y = buf.decimated(m.GPU_UTIL, 0, t0, t1, points)
        i0, i1 = buf.index_range(t0, t1)
        raw = values[max(0, i0 - 1):i1 + 1, 0]
        assert np.nanmax(y) == np.nanmax(raw) and np.nanmin(y) == np.nanmin(raw)
        assert len(y) <= points + 4 and np.all(np.diff(x) >= 0)
    x, y = buf.decimated(m.GPU_UTIL, 1, t[0], t[1000], 2000)  # raw: NaN stays NaN (a gap), never 0
    assert np.isnan(y[100:400]).all()


def test_incremental_pyramid_equals_bulk_and_full_buffer_drops_oldest_block():
    rng = np.random.default_rng(3)
    inc = HistoryBuffer(1, [m.GPU_UTIL], capacity=TOP_BLOCK)
    values = rng.random(TOP_BLOCK + 500).astype(np.float32)
    for i, v in enumerate(values):
        inc.append(float(i), {0: {m.GPU_UTIL: None if i % 11 == 0 else float(v)}})
    assert inc.count == 500 and inc.dropped == TOP_BLOCK
    assert inc.times[0] == TOP_BLOCK
    bulk = HistoryBuffer(1, [m.GPU_UTIL], capacity=TOP_BLOCK)
    kept = values[TOP_BLOCK:].copy()
    kept[np.arange(TOP_BLOCK, TOP_BLOCK + 500) % 11 == 0] = np.nan
    bulk.load(np.arange(TOP_BLOCK, TOP_BLOCK + 500, dtype=float), {m.GPU_UTIL: kept[:, None]})
    np.testing.assert_array_equal(inc.series(m.GPU_UTIL), bulk.series(m.GPU_UTIL))
    for k in range(len(inc._mins[m.GPU_UTIL])):
        np.testing.assert_array_equal(inc._mins[m.GPU_UTIL][k], bulk._mins[m.GPU_UTIL][k])


def test_72h_of_8_gpus_fits_the_memory_budget():
    cap = capacity_for(8, 9)
    assert cap >= 72 * 3600
    buf = HistoryBuffer(8, [f"m{i}" for i in range(9)])
    assert buf.capacity >= 72 * 3600 and buf.nbytes < 200e6
    assert capacity_for(64, 9) * 64 * 9 * 4 < 200e6  # 64 GPUs keep less live history, within the budget


def test_binned_mean_ignores_na_and_marks_empty_bins():
    buf, values = filled(1000)
    edges, means = buf.binned_mean(m.GPU_UTIL, 10)
    assert means.shape == (2, 10) and len(edges) == 11
    assert means[0, 0] == pytest.approx(float(values[:100, 0].mean()), rel=1e-5)
    assert means[1, 4] == pytest.approx(float(values[400:500, 1].mean()), rel=1e-5)
    assert all(math.isnan(means[1, b]) for b in (1, 2, 3))  # samples 100..399 of GPU 1 were not readable
