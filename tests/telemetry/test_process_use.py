"""Per-process use (nvmlDeviceGetProcessesUtilizationInfo / nvmlDeviceGetProcessUtilization, faked at the pynvml
boundary with the bindings' real sample structures), containers from cgroup paths, and stopping one's own process."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from helpers.fake_pynvml import FakeDevice, FakeProcess, make_fake_pynvml

from gpudesk.cli import main
from gpudesk.nvml.nvml_session import NvmlSession
from gpudesk.telemetry.core import process_control
from gpudesk.telemetry.core.process_control import ProcessControlError, check_stoppable, stop_process
from gpudesk.telemetry.core.process_use import container_of, process_use

GiB = 1024**3
ME = os.getpid()
PARENT = os.getppid()


def _session(**device_kw) -> NvmlSession:
    procs = [FakeProcess(ME, 3 * GiB), FakeProcess(PARENT, 1 * GiB)]
    return NvmlSession(make_fake_pynvml([FakeDevice(0, compute_processes=procs, **device_kw)])).open()


def test_shares_are_read_and_never_add_up_past_the_device():
    session = _session(util_gpu=50, util_memory=30, process_util=[(ME, 40, 25), (PARENT, 30, 20)])
    listing = process_use(session)
    by_pid = {p.pid: p for p in listing.processes}
    assert by_pid[ME].used_memory_bytes == 3 * GiB and by_pid[ME].user
    sm = [p.sm_util_pct for p in listing.processes]
    bw = [p.mem_util_pct for p in listing.processes]
    assert sum(sm) <= 50 + 1e-6 and sum(bw) <= 30 + 1e-6
    assert by_pid[ME].sm_util_pct == pytest.approx(40 * 50 / 70, abs=1e-3)  # scaled together, order kept
    assert any("scaled down" in n for n in listing.notes)


def test_shares_within_the_device_figure_are_kept_as_read():
    session = _session(util_gpu=90, util_memory=60, process_util=[(ME, 10, 5), (ME, 55, 30)])  # newest sample wins
    listing = process_use(session)
    me = next(p for p in listing.processes if p.pid == ME)
    assert (me.sm_util_pct, me.mem_util_pct) == (55.0, 30.0)
    assert not any("scaled down" in n for n in listing.notes)


def test_older_driver_falls_back_to_nvmlDeviceGetProcessUtilization():
    fake = make_fake_pynvml([FakeDevice(0, util_gpu=80, compute_processes=[FakeProcess(ME, GiB)],
                                        process_util=[(ME, 33, 12)])],
                            missing_functions=("nvmlDeviceGetProcessesUtilizationInfo",))
    with NvmlSession(fake) as session:
        me = process_use(session).processes[0]
    assert (me.sm_util_pct, me.mem_util_pct) == (33.0, 12.0)
    assert "nvmlDeviceGetProcessUtilization" in fake.call_log


def test_no_sample_since_last_time_is_zero_with_the_reason():
    listing = process_use(_session(util_gpu=0, process_util=[]))
    assert all(p.sm_util_pct == 0.0 and "no kernel ran" in (p.share_reason or "") for p in listing.processes)


@pytest.mark.parametrize(("text", "expected"), [
    ("0::/system.slice/docker-3f4e6c2b9a1d0e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a.scope\n",
     "docker:3f4e6c2b9a1d"),
    ("12:memory:/docker/3f4e6c2b9a1d0e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a\n",
     "docker:3f4e6c2b9a1d"),
    ("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1a2b3c4d_5e6f_7a8b_9c0d_1e2f3a4b5c6d.slice/"
     "cri-containerd-3f4e6c2b9a1d0e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a.scope\n",
     "k8s-pod:1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d containerd:3f4e6c2b9a1d"),
    ("0::/user.slice/user-1000.slice/session-2.scope\n", None),
])
def test_container_from_cgroup_paths(text, expected):
    assert container_of(text) == expected


def test_stop_own_process_after_check():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        result = stop_process(child.pid, wait_s=10)
        assert result.exited and result.signal_name == "SIGTERM"
    finally:
        if child.poll() is None:
            child.kill()
        child.wait(10)


def test_never_another_users_process(monkeypatch):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        other = os.getuid() + 4242
        monkeypatch.setattr(process_control.os, "getuid", lambda: other)  # we are someone else now
        with pytest.raises(ProcessControlError) as err:
            stop_process(child.pid)
        assert "another user" in err.value.user_text()
        assert child.poll() is None  # not signalled
        with pytest.raises(ProcessControlError):
            check_stoppable(ME)  # gpudesk itself
    finally:
        child.kill()
        child.wait(10)


def test_cli_stop_needs_a_confirmation_without_a_terminal(capsys, monkeypatch):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        monkeypatch.setattr("sys.stdin", None)
        assert main(["monitor", "stop", str(child.pid)]) == 2
        assert "--yes" in capsys.readouterr().err
        assert child.poll() is None
        assert main(["monitor", "stop", str(child.pid), "--yes"]) == 0
        assert "ended (SIGTERM)" in capsys.readouterr().out
    finally:
        if child.poll() is None:
            child.kill()
        child.wait(10)
