"""The one-line agent, end to end on a CPU-only torch process (reports "CUDA not initialised")."""

from __future__ import annotations

import os
import signal
import socket
import stat
import time

import pytest
from oom_support import Target, needs_torch, spawn  # noqa: F401  (spawn is a fixture)

from gpudesk.oom import agent
from gpudesk.oom.attach import available_methods, probe_process
from gpudesk.oom.errors import MethodUnavailable, ProbeTimeout, TargetNotFound
from gpudesk.oom.probe_result import report_from_probe

AGENT_TARGET = """
import time, sys
{imports}
import gpudesk.oom.agent as a
a.install()
print("READY", flush=True)
while True:
    {work}
    time.sleep(0.01)
"""


@pytest.fixture(scope="module")
def torch_target():
    t = Target(AGENT_TARGET.format(imports="import torch", work="pass"))
    yield t
    t.close()


@needs_torch
@pytest.mark.torch
def test_probe_through_agent_socket(torch_target):
    statuses = {s.name: s for s in available_methods(torch_target.pid)}
    assert statuses["agent"].usable and not statuses["agent"].invasive
    assert "3.14" in statuses["remote_exec"].reason
    report = probe_process(torch_target.pid, progress=lambda m, f: None)
    assert report.parsed["probe_method"] == "agent"
    assert report.torch_imported is True and report.cuda_initialized is False
    assert report.status.startswith("CUDA not initialised")
    assert report.host_rss_samples and report.host_rss_samples[0][1] > 50 * 1024**2  # evidence merged
    assert report.parsed["probe_duration_s"] < 0.2
    # probing again: CUDA is still not initialised, so the first probe did not initialise it
    assert probe_process(torch_target.pid, with_evidence=False).cuda_initialized is False
    assert torch_target.alive()


@needs_torch
@pytest.mark.torch
def test_probe_through_agent_signal(torch_target):
    report = report_from_probe(agent.query_agent_signal(torch_target.pid, timeout_s=20))
    assert report.cuda_initialized is False
    assert torch_target.alive()


def test_agent_socket_is_private(spawn):
    t = spawn(AGENT_TARGET.format(imports="", work="pass"))
    path = agent.socket_path(t.pid)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    report = report_from_probe(agent.query_agent(t.pid))
    assert report.torch_imported is False and report.status.startswith("torch not imported")


def test_signal_probe_of_target_busy_in_native_code(spawn):
    # sum(range(...)) runs in C without returning to the eval loop: Python signal handlers wait until it ends.
    code = ("import time, gpudesk.oom.agent as a\na.install()\nprint('READY', flush=True)\n"
            "while True:\n    sum(range(150_000_000))\n")
    t = spawn(code)
    timeouts = []
    for _ in range(3):  # a signal that lands between two sum() calls is answered at once: try again
        time.sleep(0.3)
        try:
            agent.query_agent_signal(t.pid, timeout_s=0.5)
        except ProbeTimeout as exc:
            timeouts.append(str(exc))
            break
    assert timeouts and "left running and unharmed" in timeouts[0]
    assert t.alive()


def test_no_agent_and_stale_socket(spawn, tmp_path):
    t = spawn("print('READY', flush=True)\nimport time\ntime.sleep(60)")
    with pytest.raises(MethodUnavailable, match="no gpudesk agent"):
        agent.query_agent(t.pid)
    with pytest.raises(MethodUnavailable):
        probe_process(t.pid, method="agent")
    # a socket left behind by a process that has exited
    dead = spawn(AGENT_TARGET.format(imports="", work="pass"))
    dead.proc.send_signal(signal.SIGKILL)
    dead.proc.wait()
    with pytest.raises(TargetNotFound, match="stale"):
        agent.query_agent(dead.pid)
    os.unlink(agent.socket_path(dead.pid))


def test_agent_skips_a_shared_folder_and_says_how_to_free_it(monkeypatch, tmp_path, capsys):
    """Issue 14: a folder another user made first must not stop the agent (denial of service): it is skipped
    with a warning naming it, and the next private candidate is used; a socket in it is never trusted."""
    shared = tmp_path / "run"
    shared.mkdir()
    (shared / "gpudesk-agents").mkdir(mode=0o777)
    os.chmod(shared / "gpudesk-agents", 0o777)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(shared))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("GPUDESK_AGENT_DIR", raising=False)
    base = agent.agent_dir(create=True)
    assert base == tmp_path / "cache" / "gpudesk" / "agents"
    assert oct(os.stat(base).st_mode & 0o777) == "0o700"
    warning = capsys.readouterr().err
    assert "not a private folder" in warning and "Remove it" in warning and str(base) in warning
    (shared / "gpudesk-agents" / "12345.sock").write_text("planted")
    assert agent.socket_path(12345) == base / "12345.sock"  # the planted file is ignored


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to make another user's folder")
def test_a_temp_folder_squatted_by_another_user_does_not_stop_the_agent(monkeypatch, tmp_path):
    squat = tmp_path / f"gpudesk-agents-{os.getuid()}"
    squat.mkdir(mode=0o755)
    os.chown(squat, 12345, 12345)
    monkeypatch.setattr(agent.tempfile, "gettempdir", lambda: str(tmp_path))
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.delenv("GPUDESK_AGENT_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert agent.agent_dir(create=True) == tmp_path / "cache" / "gpudesk" / "agents"
    # every candidate taken: the message names each and says what to do
    monkeypatch.setenv("XDG_CACHE_HOME", str(squat))
    os.chmod(squat, 0o777)
    (squat / "gpudesk").mkdir()
    (squat / "gpudesk" / "agents").mkdir(mode=0o777)
    os.chmod(squat / "gpudesk" / "agents", 0o777)
    with pytest.raises(PermissionError, match="GPUDESK_AGENT_DIR") as info:
        agent.agent_dir(create=True)
    assert "user id 12345" in str(info.value)


def test_nonexistent_pid():
    with pytest.raises(TargetNotFound, match="No process"):
        probe_process(2**22 + 17)
    with pytest.raises(TargetNotFound):
        available_methods(2**22 + 17)


def test_install_in_process_and_uninstall():
    path = agent.install(use_signal=False)
    try:
        assert path.exists()
        t0 = time.perf_counter()
        doc = report_from_probe(agent.query_agent(os.getpid()))
        assert doc.pid == os.getpid()
        assert time.perf_counter() - t0 < 5
    finally:
        agent.uninstall()
    assert not path.exists()


def test_client_finds_an_agent_started_without_xdg_runtime_dir(spawn, monkeypatch, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "XDG_RUNTIME_DIR"}
    env["XDG_RUNTIME_DIR"] = ""
    t = spawn(AGENT_TARGET.format(imports="", work="pass"), env=env)
    runtime = tmp_path / "run-user"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))  # gpudesk itself runs in a desktop session
    path = agent.socket_path(t.pid)
    assert path.exists() and path.parent != runtime / "gpudesk-agents"
    assert report_from_probe(agent.query_agent(t.pid)).pid == t.pid


def test_socket_probe_of_target_holding_the_gil_says_why(spawn):
    # A catastrophic regular expression runs in C with the GIL held: the agent's thread cannot answer.
    code = ("import gpudesk.oom.agent as a, re\na.install()\nprint('READY', flush=True)\n"
            "while True:\n    re.match(r'(a+)+$', 'a' * 40 + 'b')\n")
    t = spawn(code)
    time.sleep(0.2)
    with pytest.raises(ProbeTimeout) as info:
        agent.query_agent(t.pid, timeout_s=0.5)
    assert "0.5 s" in str(info.value) and "holds the GIL" in str(info.value)
    assert "left running and unharmed" in str(info.value)
    assert t.alive()


def test_a_socket_older_than_the_process_is_not_its_agent(spawn, monkeypatch, tmp_path):
    """`oom methods` must not offer the agent for a reused PID whose socket predates the process."""
    t = spawn("print('READY', flush=True)\nimport time\ntime.sleep(60)")
    # A private agent folder: a socket left by an earlier run whose PID this one reuses cannot collide.
    monkeypatch.setenv(agent.ENV_AGENT_DIR, str(tmp_path / "agents"))
    path = agent.agent_dir(create=True) / f"{t.pid}.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as leftover:
        leftover.bind(str(path))
    os.utime(path, (time.time() - 3600, time.time() - 3600))  # made an hour before the process started
    try:
        reason = agent.agent_available(t.pid)
        assert reason is not None and "stale agent socket" in reason
        assert not path.exists()
    finally:
        if path.exists():
            path.unlink()


def test_a_stale_socket_of_a_reused_pid_means_no_agent(spawn, monkeypatch, tmp_path):
    """A live process whose PID once belonged to an agent-running process that died: no agent, file removed."""
    t = spawn("print('READY', flush=True)\nimport time\ntime.sleep(60)")
    # A private agent folder: a socket left by an earlier run whose PID this one reuses cannot collide.
    monkeypatch.setenv(agent.ENV_AGENT_DIR, str(tmp_path / "agents"))
    path = agent.agent_dir(create=True) / f"{t.pid}.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as leftover:
        leftover.bind(str(path))  # the file stays; nobody listens: what a SIGKILLed agent leaves behind
    try:
        with pytest.raises(MethodUnavailable, match="stale agent socket"):
            agent.query_agent(t.pid)
        assert not path.exists()
    finally:
        if path.exists():
            path.unlink()
