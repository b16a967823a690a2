"""Long-session leak check (issue 14, item 4): the Monitor tab holding 64 GPUs x a simulated 24 h, with span
statistics and findings recomputed 50 times, keeps process memory flat within 10 %.

Before the fix, every span-statistics run kept its snapshot alive in ``run_task`` (about 64 MB per call with
64 GPUs x 24 h; 500 -> 821 MB over 6 calls). RSS is measured with psutil after a warm-up and ``gc.collect()``;
tracemalloc shows the Python-object side. RSS is read after malloc_trim: glibc keeps the heap of a freed 60 MB
snapshot for later (untrimmed, one round in ten read ~11 % high and fell back the next round: retention, not a
leak). The figures are printed (``-s``) for the issue's report."""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os
import subprocess
import sys
import tracemalloc

import numpy as np
import psutil
import pytest
from PySide6.QtCore import QThreadPool

from gpudesk.telemetry.core.source import SourceKind
from gpudesk.nvml.device import DeviceInfo
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core.ring_buffer import HistoryBuffer
from gpudesk.ui.context import AppContext
from gpudesk.ui.monitor import actions
from gpudesk.ui.monitor.sources import HISTORY_METRICS
from gpudesk.ui.monitor.tab import MonitorTab
from gpudesk.ui.workers import tracker

N_GPUS = 64
DAY_S = 24 * 3600
INTERVAL_S = 5.0  # 17,280 ticks: the whole day fits the live history's 160 MB budget with 64 GPUs
ROUNDS = 50
WARM_UP = 5
RSS_ROUNDS = 25  # rounds 6..30 measured by RSS, 31..50 by tracemalloc


def day_of_samples(n_gpus: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """A training-like day: utilization swinging with a data-loader stall every 10 min, memory near full,
    power following utilization, PCIe bursts; seeded so every run sees the same numbers."""
    rng = np.random.default_rng(14)
    t = 1.7e9 + np.arange(0, DAY_S, INTERVAL_S)
    n = len(t)
    phase = (np.arange(n)[:, None] % 120) < 10  # 50 s stall every 10 min
    util = np.clip(rng.normal(92, 4, (n, n_gpus)), 0, 100)
    util[np.broadcast_to(phase, util.shape)] = rng.uniform(0, 15, int(phase.sum()) * n_gpus)
    data = {
        m.GPU_UTIL: util,
        m.MEM_UTIL: util * 0.6,
        m.MEM_USED: np.full((n, n_gpus), 70e9) + rng.normal(0, 1e8, (n, n_gpus)),
        m.PCIE_RX: np.abs(rng.normal(2e9, 5e8, (n, n_gpus))),
        m.PCIE_TX: np.abs(rng.normal(1e9, 3e8, (n, n_gpus))),
        m.POWER: 100 + util * 3.0,
        m.GPU_TEMP: 55 + util * 0.2,
        m.SM_CLOCK: np.full((n, n_gpus), 1980.0),
        m.MEM_CLOCK: np.full((n, n_gpus), 2619.0),
    }
    return t, {k: v.astype(np.float32) for k, v in data.items() if k in HISTORY_METRICS}


def rss_bytes(trim: bool = False) -> int:
    """Resident memory once the pool's threads are idle (a task's frame may still hold its snapshot for a moment
    after its result was delivered) and the collector ran."""
    QThreadPool.globalInstance().waitForDone(10_000)
    gc.collect()
    if trim:  # glibc keeps freed heap pages of its arenas; hand them back so RSS shows what is still in use
        trim_heap = getattr(ctypes.CDLL(ctypes.util.find_library("c")), "malloc_trim", None)  # glibc only
        if trim_heap is not None:
            trim_heap(0)
    return int(psutil.Process().memory_info().rss)


ISOLATED = "GPUDESK_LONG_SESSION_ISOLATED"


@pytest.mark.slow
def test_monitor_tab_memory_stays_flat_in_a_fresh_process():
    """The process's memory is only meaningful in a process that ran nothing else: inside the whole suite the
    heap carries every earlier test's leftovers and glibc's arenas, and RSS swings by 20 % either way. So the
    long-session check runs in a fresh interpreter of its own."""
    node = f"{__file__}::test_monitor_tab_memory_stays_flat_over_50_statistics_and_findings_runs"
    env = {**os.environ, ISOLATED: "1", "QT_QPA_PLATFORM": "offscreen"}
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", node],
                            env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "1 passed" in result.stdout, result.stdout[-2000:]  # not skipped: the check itself ran
    print(result.stdout.strip().splitlines()[0])  # the figures, for the benchmark log


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get(ISOLATED), reason="runs in its own process (see the test above)")
def test_monitor_tab_memory_stays_flat_over_50_statistics_and_findings_runs(qtbot):
    messages: list[tuple[str, str]] = []
    ctx = AppContext(store=None, notify=lambda text, level="info": messages.append((level, text)))
    tab = MonitorTab(ctx, autostart=False)
    qtbot.addWidget(tab, before_close_func=lambda widget: widget.shutdown())
    tab.resize(1280, 800)
    tab.show()
    times, data = day_of_samples(N_GPUS)
    buffer = HistoryBuffer(N_GPUS, HISTORY_METRICS, capacity=len(times))
    buffer.load(times, data)
    del data
    assert buffer.count == len(times)  # the whole simulated day is in view, none dropped
    devices = [DeviceInfo(index=i, name="NVIDIA H100 80GB HBM3", memory_total_bytes=80 * 1024**3, pcie_gen_max=5,
                          pcie_width_max_lanes=16, pcie_link_source="nvml", power_limit_w=700.0)
               for i in range(N_GPUS)]
    tab.ctl.source_kind = SourceKind.RECORDING
    tab.ctl.show_history(buffer, devices, "24 h x 64 GPUs")
    t0, t1 = float(times[0]), float(times[-1])
    stats_seen: list[int] = []
    findings_seen: list[int] = []
    tab.stats.set_stats = _counting(tab.stats.set_stats, stats_seen)  # type: ignore[method-assign]
    tab.findings.set_findings = _counting(tab.findings.set_findings, findings_seen)  # type: ignore[method-assign]

    def one_round() -> None:
        n_stats, n_findings = len(stats_seen), len(findings_seen)
        actions.compute_stats(tab, t0, t1)
        actions.analyze(tab)
        qtbot.waitUntil(lambda: len(stats_seen) > n_stats and len(findings_seen) > n_findings
                        and tracker().pending() == 0, timeout=120_000)

    for _ in range(WARM_UP):
        one_round()
    qtbot.wait(50)
    rss_start = rss_bytes(trim=True)
    trend = []
    for _ in range(RSS_ROUNDS):
        one_round()
        trend.append(rss_bytes(trim=True))  # heap glibc still holds after a 60 MB round is not in use
    rss_end = trend[-1]
    # Python objects over the remaining rounds (tracemalloc's own bookkeeping would blur the RSS figure above).
    tracemalloc.start()
    gc.collect()
    py_start, _ = tracemalloc.get_traced_memory()
    for _ in range(ROUNDS - WARM_UP - RSS_ROUNDS):
        one_round()
    qtbot.wait(50)
    gc.collect()
    py_end, py_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    snapshot_bytes = buffer.nbytes
    print(f"\nlong session: {N_GPUS} GPUs x {len(times)} ticks ({DAY_S / 3600:.0f} h at {INTERVAL_S:.0f} s), "
          f"history {snapshot_bytes / 1e6:.0f} MB; RSS after warm-up {rss_start / 1e6:.0f} MB, "
          f"after {WARM_UP + RSS_ROUNDS} rounds {rss_end / 1e6:.0f} MB ({(rss_end - rss_start) / rss_start:+.1%}, "
          f"max {max(trend) / 1e6:.0f} MB); Python objects over the last {ROUNDS - WARM_UP - RSS_ROUNDS} rounds "
          f"{(py_end - py_start) / 1e6:+.2f} MB (peak {py_peak / 1e6:.0f} MB)")
    assert not [t for level, t in messages if level == "error"], messages
    assert len(stats_seen) == ROUNDS and len(findings_seen) == ROUNDS
    # A leak keeps what the rounds allocate: the readings climb and stay up (one snapshot kept per round is
    # +1.6 GB over these rounds). One round's snapshot still held at the moment of a single reading (a worker
    # thread's arena: +57 MB once or twice in 25 readings in a CI run, the next reading back at the start) is not.
    assert sorted(trend)[len(trend) // 2] <= rss_start * 1.10  # the median reading
    assert min(trend[-5:]) <= rss_start * 1.10  # and where the session ends
    # Python objects: what one round allocates must be handed back (a kept snapshot alone would be ~the history).
    assert py_end - py_start < 0.05 * snapshot_bytes


def _counting(method, seen: list[int]):
    def wrapper(*args, **kwargs):
        seen.append(1)
        return method(*args, **kwargs)
    return wrapper


def test_memory_after_100_tasks_given_and_returning_10_mb_each_stays_flat(qtbot):
    """Issue 14's "memory after 100 tasks": each task gets a 10 MB array and returns another; before the fix
    run_task kept every finished task's arguments (2 GB here)."""
    from gpudesk.ui.workers import run_task

    def one(payload: np.ndarray) -> np.ndarray:
        return payload * 2

    def batch(n: int) -> None:
        done: list[int] = []
        for _ in range(n):
            run_task(one, np.ones(10 * 2**20 // 8), on_result=lambda r: done.append(int(r.size)))
        qtbot.waitUntil(lambda: len(done) == n and tracker().pending() == 0, timeout=60_000)

    batch(10)  # warm-up: thread pool, allocator arenas
    rss_start = rss_bytes(trim=True)
    tracemalloc.start()
    py_start, _ = tracemalloc.get_traced_memory()
    batch(100)
    qtbot.wait(50)
    gc.collect()
    py_end, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss_end = rss_bytes()
    rss_trimmed = rss_bytes(trim=True)
    print(f"\n100 tasks x (10 MB in, 10 MB out): RSS {rss_start / 1e6:.0f} -> {rss_end / 1e6:.0f} MB "
          f"({(rss_end - rss_start) / 1e6:+.1f} MB), {rss_trimmed / 1e6:.0f} MB once malloc_trim returned the freed heap; Python objects {(py_end - py_start) / 1e6:+.2f} MB")
    assert py_end - py_start < 5 * 2**20  # half of one task's argument
    # 100 arguments queued at once peak near 1 GB; glibc keeps that heap until trimmed: compare trimmed figures.
    # Trimmed, the worker threads' malloc arenas still keep up to ~55 MB (52.5 MB seen in a clean-clone CI run,
    # Python objects +0.05 MB): the bound sits above that and far below a leak (keeping every task's arrays is
    # 2 GB, keeping one task in ten 200 MB).
    assert rss_trimmed - rss_start < 128 * 2**20
