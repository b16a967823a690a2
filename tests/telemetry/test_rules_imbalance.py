"""The straggler search of ``gpudesk.telemetry.rules.imbalance``: one GPU out of step is named, GPUs that are all
out of step against each other name none (there is no single straggler to point at)."""

from __future__ import annotations

import numpy as np

from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core.model import History
from gpudesk.telemetry.rules.imbalance import stragglers
from gpudesk.telemetry.rules.thresholds import Thresholds

TH = Thresholds()


def phased_grid(shifts_s: list[int], seconds: int = 1200, period_s: int = 90, low_s: int = 30) -> History:
    """A 1 s grid of GPUs that each run ``period_s`` phases (busy at 95 %, then ``low_s`` at 12 %, an evaluation
    loop on every rank), GPU i's phases ``shifts_s[i]`` seconds behind (negative: ahead of) GPU 0's."""
    t = np.arange(seconds, dtype=float)
    util = np.stack([np.where((t - shift) % period_s >= period_s - low_s, 12.0, 95.0) for shift in shifts_s], axis=1)
    return History(t, range(len(shifts_s)), {m.GPU_UTIL: util}, interval_s=1.0)


def found(shifts_s: list[int]) -> list[tuple[int, float]]:
    return [(gpu, lag_s) for gpu, lag_s, _best, _zero in
            stragglers(phased_grid(shifts_s), TH.straggler_min_lag_s, TH.straggler_min_correlation)]


def test_one_gpu_behind_the_others_is_the_straggler():
    assert found([0, 0, 0, 6]) == [(3, 6.0)]


def test_the_last_gpu_far_ahead_is_named_whatever_its_best_shift():
    # GPU 3 runs 29 s ahead: its best shift is the second of the 61 tried; that index must not stand in for the
    # number of GPUs compared when deciding whether every GPU looks shifted
    assert found([0, 0, 0, -29]) == [(3, -29.0)]


def test_two_gpus_out_of_step_name_no_straggler():
    # each looks shifted against the other (one ahead, one behind): which one is slow cannot be told
    assert found([0, 6]) == []
