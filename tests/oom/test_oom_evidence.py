"""Non-invasive evidence: NVML per-process memory (faked at the pynvml boundary) and psutil."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from helpers.fake_pynvml import FakeDevice, FakeProcess, make_fake_pynvml

from gpudesk.oom import MemoryReport, diagnose
from gpudesk.oom.errors import TargetNotFound
from gpudesk.oom.evidence import gather_evidence, merge_into
from gpudesk.oom.probe_result import report_from_probe
from gpudesk.nvml.nvml_session import reset_shared_sessions

GiB = 1024**3
ME = os.getpid()


@pytest.fixture(autouse=True)
def _sessions():
    yield
    reset_shared_sessions()


def test_nvml_figures_other_processes_and_non_pytorch_gap():
    fake = make_fake_pynvml([
        FakeDevice(0, memory_total=80 * GiB, compute_processes=[FakeProcess(ME, 30 * GiB), FakeProcess(999_999, 12 * GiB)]),
        FakeDevice(1, memory_total=80 * GiB, compute_processes=[FakeProcess(31337, 5 * GiB)]),
    ])
    report = gather_evidence(ME, nvml=fake)
    assert [d.index for d in report.devices] == [0]  # GPU 1 is not used by the target
    dev = report.devices[0]
    assert dev.process_used_bytes == 30 * GiB and dev.total_bytes == 80 * GiB
    assert [(p.pid, p.used_bytes) for p in dev.other_processes] == [(999_999, 12 * GiB)]
    assert dev.other_processes[0].alive is False  # not a process on this host
    # reconciled with the probe's allocator figures: NVML - reserved = context + NCCL + libraries
    probe = report_from_probe({"probe_version": 1, "devices": [{"index": 0, "allocated_bytes": 20 * GiB,
                                                                  "reserved_bytes": 22 * GiB}]})
    merge_into(probe, report)
    assert probe.device.non_pytorch_bytes == 8 * GiB
    ids = [c.id for c in diagnose(probe).causes]
    assert "allocation_outside_allocator" in ids and "other_process" in ids


def test_windows_wddm_memory_not_available():
    fake = make_fake_pynvml([FakeDevice(0, compute_processes=[FakeProcess(ME, None)])])
    report = gather_evidence(ME, nvml=fake)
    assert report.devices[0].process_used_bytes is None
    assert any("not available" in n for n in report.notes)


def test_no_nvml_is_a_note_not_an_error():
    fake = make_fake_pynvml(init_error="LibraryNotFound")
    report = gather_evidence(ME, nvml=fake)
    assert report.devices == []
    assert any(n.startswith("NVML unavailable") for n in report.notes)
    assert report.host_rss_samples and report.host_rss_samples[0][1] > 0


def test_workers_zombie_and_on_gpu():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # not reaped yet: a zombie child of this process
        import psutil

        if psutil.Process(child.pid).status() == psutil.STATUS_ZOMBIE:
            break
        time.sleep(0.02)
    try:
        fake = make_fake_pynvml([FakeDevice(0, compute_processes=[FakeProcess(ME, 2 * GiB)])])
        report = gather_evidence(ME, nvml=fake)
        worker = next(w for w in report.workers if w.pid == child.pid)
        assert worker.status == "zombie"
        assert diagnose(report).causes[0].id == "zombie_workers"
    finally:
        child.wait()


def test_host_samples_over_time():
    report = gather_evidence(ME, duration_s=0.5, interval_s=0.1, nvml=make_fake_pynvml([]))
    assert len(report.host_rss_samples) >= 2  # 5 on an idle machine; fewer when the CPU is busy
    times = [t for t, _ in report.host_rss_samples]
    assert times == sorted(times)


def test_missing_pid():
    with pytest.raises(TargetNotFound):
        gather_evidence(2**22 + 5, nvml=make_fake_pynvml([]))


def test_merge_keeps_primary_figures():
    a = report_from_probe({"probe_version": 1, "devices": [{"index": 0, "allocated_bytes": 1}]})
    b = MemoryReport(source="evidence")
    d = b.ensure_device(0)
    d.allocated_bytes, d.total_bytes = 99, 100
    merge_into(a, b)
    assert a.device.allocated_bytes == 1 and a.device.total_bytes == 100


def test_nvml_devices_map_to_cuda_indices():
    """NVML GPU 2 is CUDA device 0 in a process started with CUDA_VISIBLE_DEVICES=2 (by UUID, else by CVD)."""
    fake = make_fake_pynvml([FakeDevice(i, compute_processes=[FakeProcess(ME, 7 * GiB)] if i == 2 else [])
                             for i in range(3)])
    evidence = gather_evidence(ME, nvml=fake)
    assert [d.index for d in evidence.devices] == [2]
    by_cvd = report_from_probe({"probe_version": 1, "env": {"CUDA_VISIBLE_DEVICES": "2"},
                                "devices": [{"index": 0, "allocated_bytes": 5 * GiB, "reserved_bytes": 6 * GiB}]})
    merge_into(by_cvd, evidence)
    assert [d.index for d in by_cvd.devices] == [0] and by_cvd.device.process_used_bytes == 7 * GiB
    uuid = evidence.devices[0].uuid
    by_uuid = report_from_probe({"probe_version": 1, "devices": [
        {"index": 0, "uuid": uuid.removeprefix("GPU-"), "allocated_bytes": 5 * GiB, "reserved_bytes": 6 * GiB}]})
    merge_into(by_uuid, evidence)
    assert [d.index for d in by_uuid.devices] == [0] and by_uuid.device.non_pytorch_bytes == 1 * GiB
    hidden = report_from_probe({"probe_version": 1, "env": {"CUDA_VISIBLE_DEVICES": "0"}, "devices": []})
    merge_into(hidden, evidence)
    assert hidden.devices == [] and any("not visible" in n for n in hidden.notes)
