"""A group's sub-frame of a fleet history keeps exactly its GPUs' rows and reasons, renumbered in the group's order
(the reasons are grouped once per history, issue 25: judging group by group was quadratic in the fleet's size)."""

from __future__ import annotations

import numpy as np

from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.fleet.fleet import FleetHistory, GpuKey, frame_from_matrix


def test_sub_frames_carry_their_gpus_reasons_renumbered():
    keys = [GpuKey("a", 0), GpuKey("a", 1), GpuKey("b", 0), GpuKey("b", 1)]
    t = np.array([0.0, 15.0])
    util = np.array([[1.0, 2.0, 3.0, np.nan], [5.0, 6.0, 7.0, np.nan]])
    reasons = {(3, m.GPU_UTIL): "infinite (-Inf)", (1, m.POWER): "not exported", (2, m.POWER): "DCGM blank"}
    hist = FleetHistory(keys, frame_from_matrix(t, {m.GPU_UTIL: util}, reasons), 15.0)
    sub = hist.sub([3, 1])
    assert sub.reasons == {(0, m.GPU_UTIL): "infinite (-Inf)", (1, m.POWER): "not exported"}
    assert sub.series(1, m.GPU_UTIL)[1].tolist() == [2.0, 6.0]
    assert hist.sub([2]).reasons == {(0, m.POWER): "DCGM blank"}
    assert hist.sub([0]).reasons == {}
