"""Low spans on the shared grid: runs, bridging, job spans, busy share."""

from __future__ import annotations

import numpy as np

from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core.model import History
from gpudesk.telemetry.rules.spans import (
    on_grid,
    busy_share,
    gpu_spans,
    job_spans,
    runs,
)
from gpudesk.telemetry.rules.thresholds import Thresholds


def frame_of(util_by_gpu: list[np.ndarray], jitter_s: float = 0.0) -> History:
    n = util_by_gpu[0].size
    t = np.repeat(1.7e9 + np.arange(n, dtype=float), len(util_by_gpu))
    t = t + np.tile(np.arange(len(util_by_gpu)) * jitter_s, n)
    g = np.tile(np.arange(len(util_by_gpu)), n)
    u = np.stack(util_by_gpu, axis=1).reshape(-1)
    return History.from_rows(t, g, {m.GPU_UTIL: u})


def test_runs_bridge_short_gaps():
    mask = np.array([0, 1, 1, 0, 1, 1, 0, 0, 0, 1], dtype=bool)
    assert runs(mask, 0) == [(1, 2), (4, 5), (9, 9)]
    assert runs(mask, 1) == [(1, 5), (9, 9)]
    assert runs(np.zeros(4, dtype=bool), 3) == []


def test_gpu_and_job_spans_with_edges_and_time_stamp_jitter():
    a = np.full(200, 95.0)
    b = np.full(200, 95.0)
    a[50:80] = b[52:80] = 10.0  # the job stalls 52-79; GPU 0 two seconds earlier
    a[0:15] = b[0:15] = 0.0  # warm-up
    grid = on_grid(frame_of([a, b], jitter_s=0.004), 1.0)
    th = Thresholds()
    jobs = job_spans(grid, th)
    assert [(round(s.t0 - 1.7e9), s.duration_s, s.at_edge) for s in jobs] == [(0, 15.0, True), (52, 28.0, False)]
    singles = gpu_spans(grid, th)
    assert (50.0, 30.0) in [(round(s.t0 - 1.7e9), s.duration_s) for s in singles if s.gpu == 0]
    share = busy_share(grid, th)
    assert round(share[0], 3) == round(1 - 45 / 200, 3)


def test_nan_is_not_low():
    u = np.full(60, np.nan)
    grid = on_grid(frame_of([u]), 1.0)
    assert gpu_spans(grid, Thresholds()) == [] and busy_share(grid, Thresholds()) == {}
