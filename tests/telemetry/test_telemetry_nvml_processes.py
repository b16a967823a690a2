"""Process listing over the fake pynvml and psutil: the process faults from monitor.md section 7."""

from __future__ import annotations

import os
import subprocess
import sys

import psutil
import pytest

from gpudesk.nvml import nvml_processes
from gpudesk.nvml.nvml_processes import list_gpu_processes
from gpudesk.nvml.nvml_session import NvmlSession, reset_shared_sessions
from helpers.fake_pynvml import FakeDevice, FakeProcess, make_fake_pynvml

ME = os.getpid()


def listing(devices, **kw):
    with NvmlSession(make_fake_pynvml(devices, **kw)) as session:
        return list_gpu_processes(session)


def test_own_process_is_looked_up():
    out = listing([FakeDevice(0, compute_processes=[FakeProcess(ME, 3 * 1024**3)])])
    (p,) = list(out)
    assert p.pid == ME and p.type == "compute" and p.used_memory_bytes == 3 * 1024**3
    assert p.visible and p.name == psutil.Process(ME).name()
    assert p.user == psutil.Process(ME).username()
    assert "python" in (p.cmdline or "").lower() or "pytest" in (p.cmdline or "")
    assert p.gpu_uuid.startswith("GPU-") and p.gpu_instance_id is None


def test_bad_pids_are_dropped_with_one_warning():
    procs = [FakeProcess(ME, 100), FakeProcess(0, 5), FakeProcess(0xFFFFFFFF, 5), FakeProcess(0, 7)]
    out = listing([FakeDevice(0, compute_processes=procs)])
    assert [p.pid for p in out] == [ME]
    assert len([w for w in out.warnings if "invalid PID" in w]) == 1
    assert "3 process entries" in out.warnings[0]


def test_wddm_memory_not_available_is_none_and_warned():
    out = listing([FakeDevice(0, compute_processes=[FakeProcess(ME, None)])])
    assert out[0].used_memory_bytes is None
    assert "WDDM" in out[0].memory_reason
    assert any("not counted in totals" in w for w in out.warnings)


def test_same_pid_in_both_lists_is_one_row():
    out = listing([FakeDevice(0, compute_processes=[FakeProcess(ME, None)],
                              graphics_processes=[FakeProcess(ME, 2048)])])
    assert len(out) == 1
    assert out[0].type == "compute+graphics"
    assert out[0].used_memory_bytes == 2048


def test_vanished_process_is_kept_with_reason():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    out = listing([FakeDevice(0, compute_processes=[FakeProcess(child.pid, 4096)])])
    assert len(out) == 1
    p = out[0]
    assert not p.visible and p.used_memory_bytes == 4096
    assert "not found locally" in p.host_reason


def test_vanishing_between_listing_and_lookup(monkeypatch):
    """psutil raises FileNotFoundError('/proc/<pid>/stat') mid-lookup (gpustat #95)."""

    class Vanishing:
        def __init__(self, pid):
            raise FileNotFoundError(2, "No such file or directory", f"/proc/{pid}/stat")

    monkeypatch.setattr(nvml_processes.psutil, "Process", Vanishing)
    out = listing([FakeDevice(0, compute_processes=[FakeProcess(1234, 10), FakeProcess(1235, 20)])])
    assert [p.pid for p in out] == [1234, 1235]
    assert all(not p.visible for p in out)


def test_container_host_pid_outside_range():
    out = listing([FakeDevice(0, compute_processes=[FakeProcess(5_000_000, 1 << 30)])])
    p = out[0]
    assert not p.visible and p.used_memory_bytes == 1 << 30
    assert any("--pid=host" in w for w in out.warnings)


def test_lost_gpu_and_not_supported_per_device():
    devs = [FakeDevice(0, compute_processes=[FakeProcess(ME, 1)]),
            FakeDevice(1, faults={"nvmlDeviceGetComputeRunningProcesses": "NotSupported",
                                  "nvmlDeviceGetGraphicsRunningProcesses": "NotSupported"}),
            FakeDevice(2, compute_processes=[FakeProcess(ME, 2)])]
    fake = make_fake_pynvml(devs)
    with NvmlSession(fake) as session:
        fake.devices[2].lose()
        out = list_gpu_processes(session)
    assert [(p.gpu_index, p.used_memory_bytes) for p in out] == [(0, 1)]
    assert out.errors[1].startswith("compute: NotSupported")
    assert "GpuIsLost" in out.errors[2]


def test_function_not_found_says_bindings_newer_than_driver():
    missing = ("nvmlDeviceGetComputeRunningProcesses", "nvmlDeviceGetGraphicsRunningProcesses",
               "nvmlDeviceGetComputeRunningProcesses_v2", "nvmlDeviceGetGraphicsRunningProcesses_v2")
    out = listing([FakeDevice(0)], missing_functions=missing)
    assert "newer than the driver" in out.errors[0]


def test_v3_process_call_missing_falls_back_to_v2():
    out = listing([FakeDevice(0, compute_processes=[FakeProcess(ME, 77)])],
                  missing_functions=("nvmlDeviceGetComputeRunningProcesses",))
    assert [(p.pid, p.used_memory_bytes) for p in out] == [(ME, 77)]


def test_shared_session_with_injected_module():
    fake = make_fake_pynvml([FakeDevice(0, compute_processes=[FakeProcess(ME, 5)])])
    try:
        out = list_gpu_processes(nvml=fake)
        assert out.for_pid(ME)[0].used_memory_bytes == 5
        assert list_gpu_processes(nvml=fake).for_pid(ME)  # reused session
        assert fake.call_log.count("nvmlInit") == 1
    finally:
        reset_shared_sessions()


@pytest.mark.gpu
def test_real_nvml_processes():
    from gpudesk.nvml.nvml_session import probe_nvml

    if not probe_nvml().available:
        pytest.skip("no NVIDIA GPU / NVML here")
    with NvmlSession() as session:
        out = list_gpu_processes(session)
        assert all(p.pid > 0 for p in out)
