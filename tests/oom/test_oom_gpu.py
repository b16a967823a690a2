"""Real GPU checks (issue 5 "Real hardware"): real OOMs (shortage and fragmentation) caught by launch, a
probe by attach (agent) on a CUDA process, and no CUDA context created by the probe.

They run only where NVML finds a GPU and torch has CUDA. With ``GPUDESK_OOM_CAPTURE_DIR`` set, the real OOM
texts are written there so they can be kept as fixtures.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest
from oom_support import need_cuda, spawn  # noqa: F401  (fixtures)

pytestmark = [pytest.mark.gpu, pytest.mark.torch, pytest.mark.usefixtures("need_cuda")]


def _capture(name: str, text: str) -> None:
    folder = os.environ.get("GPUDESK_OOM_CAPTURE_DIR")
    if folder:
        Path(folder, name).write_text(text, encoding="utf-8")


SHORTAGE = """
import torch
keep = []
while True:
    keep.append(torch.empty(2 << 30, dtype=torch.uint8, device="cuda"))
"""

FRAGMENTATION = """
import torch
GiB, MiB = 1 << 30, 1 << 20
segments = []
while True:  # 8 GiB cached segments carved into 64 MiB blocks (the blocks split the cached segment)
    try:
        big = torch.empty(8 * GiB, dtype=torch.uint8, device="cuda")
    except torch.OutOfMemoryError:
        break
    del big
    segments.append([torch.empty(64 * MiB, dtype=torch.uint8, device="cuda") for _ in range(128)])
rest = []
while True:  # fill what is left of the GPU
    try:
        rest.append(torch.empty(64 * MiB, dtype=torch.uint8, device="cuda"))
    except torch.OutOfMemoryError:
        break
for pieces in segments:  # free every other block: 64 MiB holes in segments that cannot be released
    del pieces[::2]
print("holes ready", torch.cuda.memory_reserved() - torch.cuda.memory_allocated(), flush=True)
x = torch.empty(2 * GiB, dtype=torch.uint8, device="cuda")  # larger than every hole
"""


def _launch(tmp_path, code: str):
    from gpudesk.oom.launch import launch_job

    script = tmp_path / "job.py"
    script.write_text(code)
    return launch_job([sys.executable, str(script)], interval_s=0.2, timeout_s=300)


def test_real_shortage_by_launch(tmp_path):
    result = _launch(tmp_path, SHORTAGE)
    report = result.report
    assert result.returncode != 0 and report.kind == "pytorch_oom", result.output_tail[-5:]
    _capture("real_shortage.txt", "".join(result.output_tail[-20:]))
    assert result.oom_events, "the OOM observer caught the moment"
    assert report.samples and max(s.allocated_bytes for s in report.samples) > 8 << 30
    assert report.cuda_initialized is True
    assert result.diagnosis.causes[0].id == "genuine_shortage"


def test_real_fragmentation_by_launch(tmp_path):
    result = _launch(tmp_path, FRAGMENTATION)
    report = result.report
    assert report.kind == "pytorch_oom", result.output_tail[-5:]
    _capture("real_fragmentation.txt", "".join(result.output_tail[-20:]))
    dev = report.device
    assert dev.reserved_unallocated_bytes > 2 << 30
    assert dev.largest_free_block_bytes is not None and dev.largest_free_block_bytes < report.requested_bytes
    assert result.diagnosis.causes[0].id == "fragmentation"


def test_probe_by_agent_on_cuda_process(spawn):
    from gpudesk.oom.attach import probe_process

    t = spawn("import time, torch, gpudesk.oom.agent as a\nx = torch.empty(1 << 30, dtype=torch.uint8, device='cuda')\n"
              "a.install()\nprint('READY', flush=True)\nwhile True:\n    time.sleep(0.01)\n")
    report = probe_process(t.pid)
    assert report.cuda_initialized is True
    dev = report.device
    assert dev.index == 0 and dev.allocated_bytes >= 1 << 30 and dev.reserved_bytes >= dev.allocated_bytes
    assert dev.memory_summary and "PyTorch CUDA memory summary" in dev.memory_summary
    assert dev.process_used_bytes is not None and dev.non_pytorch_bytes > 0  # CUDA context is outside the allocator


def test_probe_creates_no_cuda_context(spawn):
    from gpudesk.oom.attach import probe_process
    from gpudesk.nvml.nvml_processes import list_gpu_processes

    t = spawn("import time, torch, gpudesk.oom.agent as a\na.install()\nprint('READY', flush=True)\n"
              "while True:\n    time.sleep(0.01)\n")
    report = probe_process(t.pid)
    assert report.cuda_initialized is False
    time.sleep(0.5)
    assert list_gpu_processes().for_pid(t.pid) == [], "the probe created a CUDA context"


def test_probe_touches_only_used_devices(spawn):
    import torch

    if torch.cuda.device_count() < 2:
        pytest.skip("needs two GPUs")
    from gpudesk.oom.attach import probe_process
    from gpudesk.nvml.nvml_processes import list_gpu_processes

    t = spawn("import time, torch, gpudesk.oom.agent as a\nx = torch.ones(1, device='cuda:1')\na.install()\n"
              "print('READY', flush=True)\nwhile True:\n    time.sleep(0.01)\n")
    report = probe_process(t.pid)
    assert [d.index for d in report.devices] == [1]
    assert {p.gpu_index for p in list_gpu_processes().for_pid(t.pid)} == {1}
