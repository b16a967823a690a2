"""``launch_job`` / ``gpudesk oom run``: the probe preinstalled through sitecustomize, output captured."""

from __future__ import annotations

import json
import os
import sys
import textwrap
import threading
import time

import pytest
from oom_support import load_cases, needs_torch

from gpudesk.oom.errors import LaunchError
from gpudesk.oom.launch import launch_job
from gpudesk.oom.launch_channel import JobChannel

CASES = load_cases()


@needs_torch
@pytest.mark.torch
def test_launch_cpu_torch_job(tmp_path):
    script = tmp_path / "job.py"
    # The job waits (at most 20 s) until the sampler has reported on it, so the test does not race the sampler.
    script.write_text(
        "import os, time, torch\nx = torch.ones(10)\nprint('step', float(x.sum()), flush=True)\n"
        "path = os.path.join(os.environ['GPUDESK_OOM_DIR'], '%d.jsonl' % os.getpid())\n"
        "deadline = time.monotonic() + 20\n"
        "while 'CUDA not initialised' not in open(path).read() and time.monotonic() < deadline:\n"
        "    time.sleep(0.05)\n"
        "time.sleep(0.2)\n"
    )
    lines, messages = [], []
    result = launch_job([sys.executable, str(script)], interval_s=0.1, on_output=lines.append,
                        progress=lambda m, f: messages.append(m))
    assert result.returncode == 0
    assert "step 10.0\n" in lines
    r = result.report
    assert r.source == "launch" and r.torch_imported is True and r.cuda_initialized is False
    assert r.status.startswith("CUDA not initialised")
    assert any("CUDA not initialised" in m for m in messages)
    assert r.samples == []  # no GPU memory: nothing to sample
    assert r.host_rss_samples and all(b > 0 for _, b in r.host_rss_samples)
    assert result.diagnosis.causes == []


def test_launch_job_that_prints_an_oom(tmp_path):
    script = tmp_path / "job.py"
    script.write_text(f"import sys\nsys.stderr.write({CASES[9]['message']!r} + '\\n')\nsys.exit(1)\n")
    result = launch_job([sys.executable, str(script)], interval_s=0.1)
    assert result.returncode == 1
    assert result.report.kind == "pytorch_oom" and result.report.source == "launch"
    assert result.diagnosis.causes[0].id == "fragmentation"
    assert result.report.torch_imported is False  # from the final probe: the job never imported torch


def test_launch_chains_the_jobs_own_sitecustomize(tmp_path):
    own = tmp_path / "site"
    own.mkdir()
    (own / "sitecustomize.py").write_text("import builtins\nbuiltins.JOB_SITE = 'loaded'\n")
    script = tmp_path / "job.py"
    script.write_text("import builtins, sys\nprint(getattr(builtins, 'JOB_SITE', 'missing'))\n"
                      "print(sys.modules['sitecustomize'].__file__)\n")
    lines = []
    result = launch_job([sys.executable, str(script)], interval_s=0.1, on_output=lines.append,
                        env={"PYTHONPATH": str(own)})
    assert lines[0].strip() == "loaded"
    assert "gpudesk-run-" in lines[1]  # ours stays registered
    assert result.returncode == 0


def test_launch_non_python_command_says_probe_did_not_load():
    result = launch_job(["sh", "-c", "echo hello"], interval_s=0.1)
    assert result.output_tail == ["hello\n"]
    assert any("did not load" in n for n in result.report.notes)


def test_launch_python_isolated_mode():
    result = launch_job([sys.executable, "-I", "-c", "print('x')"], interval_s=0.1)
    assert any("-I/-S" in n for n in result.report.notes)


def test_launch_stop_event_ends_the_job():
    stop = threading.Event()
    timer = threading.Timer(0.5, stop.set)
    timer.start()
    t0 = time.monotonic()
    result = launch_job([sys.executable, "-c", "import time; print('up', flush=True); time.sleep(60)"],
                        interval_s=0.1, stop=stop)
    assert time.monotonic() - t0 < 15
    assert result.stopped and result.returncode != 0
    assert any("stopped" in n for n in result.report.notes)


@pytest.mark.parametrize("argv, message", [
    ([], "No command"),
    (["gpudesk-no-such-command-xyz"], "command not found"),
    (["./no/such/file.py"], "no such file"),
])
def test_launch_errors(argv, message):
    with pytest.raises(LaunchError, match=message):
        launch_job(argv)


def test_launch_not_executable(tmp_path):
    f = tmp_path / "job.sh"
    f.write_text("echo hi\n")
    os.chmod(f, 0o600)
    with pytest.raises(LaunchError, match="not executable"):
        launch_job([str(f)])


def test_channel_skips_invalid_lines_and_waits_for_partial_ones(tmp_path):
    path = tmp_path / "1.jsonl"
    path.write_bytes(b'{"type": "hello", "pid": 1}\nnot json\n[1]\n{"type": "sam')
    ch = JobChannel(tmp_path)
    docs = ch.read()
    assert [d["type"] for d in docs] == ["hello"] and ch.bad_lines == 2
    with open(path, "ab") as fh:
        fh.write(b'ple", "pid": 1, "devices": []}\n')
    assert [d["type"] for d in ch.read()] == ["sample"]


def test_bootstrap_sampling_protocol(tmp_path):
    """The bootstrap, given a fake torch with CUDA 'initialised', samples only devices with reserved memory
    and attaches the OOM observer; the observer's event carries the probe at the OOM."""
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "torch").mkdir()
    (fake / "torch" / "__init__.py").write_text(textwrap.dedent("""
        __version__ = "fake"
        observers = []
        class _C:
            @staticmethod
            def _cuda_attach_out_of_memory_observer(fn):
                observers.append(fn)
        class _Props:
            name = "Fake GPU"
            total_memory = 8 << 30
        class cuda:
            calls = []
            @staticmethod
            def is_initialized(): return True
            @staticmethod
            def device_count(): return 2
            @staticmethod
            def memory_reserved(i): return [3 << 30, 0][i]
            @staticmethod
            def memory_allocated(i): return 2 << 30
            @staticmethod
            def max_memory_allocated(i): return 5 << 30
            @staticmethod
            def current_device(): return 0
            @staticmethod
            def memory_stats(i): return {"allocated_bytes.all.current": 2 << 30, "reserved_bytes.all.current": 3 << 30,
                                         "num_alloc_retries": 4}
            @staticmethod
            def get_device_properties(i): return _Props()
            @staticmethod
            def memory_summary(device=None, abbreviated=False): return "summary of %d" % device
            class memory:
                @staticmethod
                def _snapshot(): return {"segments": [{"device": 0, "segment_pool_id": [0, 0], "allocated_size": 1,
                                                        "blocks": [{"state": "inactive", "size": 1 << 20}]}]}
    """))
    script = tmp_path / "job.py"
    script.write_text("import time, torch\ntime.sleep(0.5)\n"
                      "torch.observers[0](0, 6 << 30, 2 << 30, 1 << 20)\ntime.sleep(0.3)\n")
    samples = []
    result = launch_job([sys.executable, str(script)], interval_s=0.1, on_sample=samples.append,
                        env={"PYTHONPATH": str(fake)})
    assert result.returncode == 0, result.output_tail
    assert samples and {s.device_index for s in samples} == {0}  # GPU 1 has no reserved memory: untouched
    assert samples[0].allocated_bytes == 2 << 30 and samples[0].reserved_bytes == 3 << 30
    assert len(result.oom_events) == 1
    r = result.report
    assert r.requested_bytes == 6 << 30 and r.device_index == 0
    dev = r.device
    assert dev.num_alloc_retries == 4 and dev.largest_free_block_bytes == 1 << 20
    assert dev.memory_summary == "summary of 0" and dev.total_bytes == 8 << 30
    json.dumps(r.to_dict())


def test_launch_reads_nvml_and_child_states(tmp_path):
    from helpers.fake_pynvml import FakeDevice, FakeProcess, make_fake_pynvml

    from gpudesk.nvml.nvml_session import reset_shared_sessions

    gpu = FakeDevice(0, memory_total=80 * 1024**3, compute_processes=[FakeProcess(999_999, 5 * 1024**3)])
    fake = make_fake_pynvml([gpu])

    def on_output(line: str) -> None:  # the job says its PID; the fake GPU then lists it
        if line.startswith("PID "):
            gpu.compute_processes.append(FakeProcess(int(line.split()[1]), 3 * 1024**3))

    script = tmp_path / "job.py"
    script.write_text("import os, subprocess, sys, time\nprint('PID', os.getpid(), flush=True)\n"
                      "child = subprocess.Popen([sys.executable, '-c', 'pass'])\ntime.sleep(1.0)\n")
    try:
        result = launch_job([sys.executable, str(script)], interval_s=0.1, on_output=on_output, nvml=fake)
    finally:
        reset_shared_sessions()
    dev = result.report.device
    assert dev.index == 0 and dev.process_used_bytes == 3 * 1024**3
    assert [(p.pid, p.alive) for p in dev.other_processes] == [(999_999, False)]
    assert any(w.status == "zombie" for w in result.report.workers)  # the job never reaped its child
    assert "zombie_workers" in [c.id for c in result.diagnosis.causes]


def test_a_failing_callback_does_not_leave_the_job_running():
    import psutil

    seen = []

    def on_output(line: str) -> None:
        seen.append(int(line.split()[1]))
        raise RuntimeError("callback failed")

    with pytest.raises(RuntimeError, match="callback failed"):
        launch_job([sys.executable, "-c", "import os, time; print('PID', os.getpid(), flush=True); time.sleep(60)"],
                   interval_s=0.1, on_output=on_output)
    assert seen and not psutil.pid_exists(seen[0])
