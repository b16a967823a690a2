"""Per-process memory over time: N/A readings are not zeros, a reused PID starts anew, the history is bounded."""

from __future__ import annotations

from gpudesk.nvml.nvml_processes import GpuProcess
from gpudesk.telemetry.core.process_history import ProcessHistory

GiB = 1024**3


def _p(pid: int, mem: float | None, cmd: str = "python train.py", gpu: int = 0) -> GpuProcess:
    return GpuProcess(pid, gpu, None, "compute", None if mem is None else int(mem), cmdline=cmd)


def test_rate_peak_and_na():
    h = ProcessHistory()
    for k, mem in enumerate([10 * GiB, None, 11 * GiB, 12 * GiB]):
        h.add(60.0 * k, [_p(7, mem)])
    got = h.get(0, 7)
    assert got is not None and len(got.points) == 3  # the N/A reading is skipped, not kept as 0
    assert got.peak_bytes == 12 * GiB
    # least squares over (0 s, 10 GiB), (120 s, 11 GiB), (180 s, 12 GiB): 180/16800 GiB/s = 0.643 GiB/min
    assert round(got.rate_bytes_per_s() * 60 / GiB, 3) == 0.643


def test_bounded_and_reused_pid():
    h = ProcessHistory(max_points=5, max_processes=3)
    for k in range(10):
        h.add(float(k), [_p(1, GiB)])
    assert len(h.get(0, 1).points) == 5
    h.add(20.0, [_p(1, GiB, cmd="python other.py")])
    assert len(h.get(0, 1).points) == 1
    for pid in (2, 3, 4):
        h.add(30.0 + pid, [_p(pid, GiB)])
    assert h.get(0, 1) is None and h.get(0, 4) is not None  # the longest-silent one went first
