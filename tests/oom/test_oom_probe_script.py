"""The in-process probe: never imports torch, never initialises CUDA, answers through a private file."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from oom_support import REPO

from gpudesk.oom import ProbeResultError, diagnose
from gpudesk.oom.channel import PrivateDir, check_private, wait_for_file
from gpudesk.oom.errors import ProbeTimeout, TargetNotFound
from gpudesk.oom.injection import write_probe_files
from gpudesk.oom.probe_result import report_from_probe

PROBE = REPO / "gpudesk" / "oom" / "probe_script.py"


def run_probe_in(code_before: str, tmp_path: Path) -> dict:
    """Run probe_script.py (as a plain file, as targets do) in a fresh interpreter after ``code_before``."""
    result = tmp_path / "out.json"
    code = (code_before + "\nimport runpy, sys\n"
            f"ns = runpy.run_path({str(PROBE)!r})\n"
            f"ns['run_to_file']({str(result)!r})\n"
            "print('torch' in sys.modules, ('torch' in sys.modules) and sys.modules['torch'].cuda.is_initialized())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    doc = json.loads(result.read_text())
    doc["_after"] = out.stdout.split()
    assert stat.S_IMODE(result.stat().st_mode) == 0o600
    return doc


def test_probe_without_torch_does_not_import_it(tmp_path):
    doc = run_probe_in("", tmp_path)
    assert doc["torch_imported"] is False and doc["cuda_initialized"] is None
    assert doc["status"].startswith("torch not imported")
    assert doc["_after"] == ["False", "False"]
    report = report_from_probe(doc)
    assert report.torch_imported is False and report.devices == []
    assert diagnose(report).causes == []


def test_probe_file_is_standalone():
    source = PROBE.read_text()
    imports = [ln.split()[1] for ln in source.splitlines() if ln.startswith(("import ", "from "))]
    assert set(imports) <= {"json", "os", "sys", "threading", "time"}
    assert "import torch" not in source.replace('"import torch"', "")


def test_injection_files_are_private(tmp_path):
    with PrivateDir() as folder:
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        probe, result, stub = write_probe_files(folder, reset_peak=True)
        assert stat.S_IMODE(probe.stat().st_mode) == 0o600
        assert "reset_peak=True" in probe.read_text()
        # the stub runs the probe in a fresh namespace and writes the answer
        namespace: dict = {}
        exec(stub, namespace)
        assert set(namespace) <= {"__builtins__"}
        doc = json.loads(result.read_text())
        assert doc["pid"] == os.getpid()
    assert not folder.exists()


def test_check_private_refuses_group_readable(tmp_path):
    f = tmp_path / "x.json"
    f.write_text("{}")
    os.chmod(f, 0o644)
    with pytest.raises(PermissionError):
        check_private(f)


@pytest.mark.parametrize("data", ["not json", b"\xff\xfe\x00", "[1, 2]", '{"devices": []}',
                                  '{"probe_version": 1, "devices": {}}', '{"probe_version": 1, "devices": [{}]}'])
def test_invalid_probe_answers(data):
    with pytest.raises(ProbeResultError):
        report_from_probe(data)


def test_probe_answer_to_report():
    doc = {"probe_version": 1, "pid": 5, "torch_imported": True, "torch_version": "2.13.0", "cuda_initialized": True,
           "status": "ok", "env": {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True,max_split_size_mb:128"},
           "errors": ["snapshot: boom"],
           "devices": [{"index": 1, "allocated_bytes": 10, "reserved_bytes": 30, "num_alloc_retries": 2}]}
    r = report_from_probe(json.dumps(doc))
    assert r.device_index == 1 and r.device.reserved_unallocated_bytes == 20
    assert r.alloc_conf == {"expandable_segments": "True", "max_split_size_mb": "128"}
    assert r.notes == ["probe: snapshot: boom"]


def test_wait_for_file_target_exits(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.3)"])
    try:
        with pytest.raises(TargetNotFound, match="exited"):
            wait_for_file(tmp_path / "never.json", proc.pid, timeout_s=20)
    finally:
        proc.wait()


def test_wait_for_file_times_out_and_leaves_target(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        with pytest.raises(ProbeTimeout, match="left running"):
            wait_for_file(tmp_path / "never.json", proc.pid, timeout_s=0.3)
        assert proc.poll() is None
    finally:
        proc.kill()
        proc.wait()
