"""The one in-memory shape of GPU time series (``model.History``): rows of a log or a recording become rounds once,
live buffers hand out views of themselves, and the rules read the columns as they are."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.formats.dmon import read_dmon_file
from gpudesk.telemetry.formats.dmon_import import demo_path
from gpudesk.telemetry.core.model import History
from gpudesk.telemetry.core.ring_buffer import HistoryBuffer
from gpudesk.telemetry.rules.spans import on_grid

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "monitor"


def test_whole_rounds_in_gpu_order_become_columns_without_a_copy():
    t = np.repeat(1.7e9 + np.arange(3.0), 2)
    util = np.array([10.0, 20.0, 11.0, 21.0, 12.0, 22.0], dtype=np.float32)
    h = History.from_rows(t, np.tile([0, 1], 3), {m.GPU_UTIL: util})
    assert h.times.tolist() == [1.7e9, 1.7e9 + 1, 1.7e9 + 2] and h.gpus == [0, 1]
    assert np.shares_memory(h.columns[m.GPU_UTIL], util)  # a reshaped view of the parser's array
    assert h.columns[m.GPU_UTIL][:, 1].tolist() == [20.0, 21.0, 22.0]


def test_nvml_rows_milliseconds_apart_are_one_round_and_a_repeated_gpu_a_new_one():
    # NVML reads GPUs one after another: the rows of a round differ by a few milliseconds
    t = np.array([0.000, 0.004, 1.000, 1.003, 2.001, 2.005])
    h = History.from_rows(t, np.array([0, 1, 0, 1, 0, 1]), {m.POWER: np.arange(6.0)})
    assert h.times.tolist() == [0.0, 1.0, 2.001] and h.columns[m.POWER].tolist() == [[0, 1], [2, 3], [4, 5]]
    # sampled faster than the tolerance: GPU 0 twice in a row starts a new round instead of overwriting the first
    fast = History.from_rows(np.array([0.0, 0.001, 0.002, 0.003]), np.array([0, 0, 1, 1]), {m.POWER: np.arange(4.0)})
    assert fast.sample_count(0) == 2 and fast.sample_count(1) == 2 and np.nansum(fast.columns[m.POWER]) == 6.0


def test_a_gpu_missing_from_a_round_is_nan_and_rows_give_back_only_what_was_read():
    h = History.from_rows(np.array([0.0, 0.0, 1.0]), np.array([0, 1, 0]), {m.GPU_UTIL: np.array([5.0, 6.0, 7.0])})
    assert np.isnan(h.columns[m.GPU_UTIL][1, 1]) and h.sample_count(1) == 1
    t, gpu, cols = h.rows()
    assert t.tolist() == [0.0, 0.0, 1.0] and gpu.tolist() == [0, 1, 0] and cols[m.GPU_UTIL].tolist() == [5, 6, 7]


def test_the_rules_grid_is_the_history_itself_when_rounds_are_regular():
    log = read_dmon_file(demo_path())  # 300 one-second rounds of 4 GPUs
    grid = on_grid(log.frame, 1.0)
    assert all(grid.columns[k] is v for k, v in log.frame.columns.items())  # no reshaping, no copy
    gappy = log.frame.replace(times=log.frame.times * 3)  # rounds 3 s apart on a 1 s grid: placed once, with gaps
    placed = on_grid(gappy, 1.0)
    assert len(placed) == 3 * len(gappy) - 2 and np.isnan(placed.columns[m.GPU_UTIL][1]).all()


def test_the_live_buffer_hands_out_views_and_a_loaded_history_is_held_once():
    buf = HistoryBuffer(2, [m.GPU_UTIL], capacity=10, gpus=[3, 5])
    buf.append(1.0, {0: {m.GPU_UTIL: 50.0}, 1: {m.GPU_UTIL: None}}, {(1, m.GPU_UTIL): "NotSupported"})
    view = buf.history()
    assert view.gpus == [3, 5] and view.reason(5, m.GPU_UTIL) == "NotSupported"
    assert np.shares_memory(view.columns[m.GPU_UTIL], buf.series(m.GPU_UTIL))
    log = read_dmon_file(FIXTURES / "sample_a_pucvmet.txt").frame
    held = HistoryBuffer.of(log, [m.GPU_UTIL, m.MEM_UTIL])
    back = held.history()
    assert set(log.columns) <= set(back.columns)  # every metric of the log, not only the plotted ones
    assert back.columns[m.MEM_USED].dtype == np.float64  # bytes stay exact
    assert np.array_equal(back.columns[m.MEM_CLOCK], log.columns[m.MEM_CLOCK], equal_nan=True)
