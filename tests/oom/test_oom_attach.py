"""Target inspection and the injection methods' refusals: each says plainly why it cannot run."""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import replace

import pytest
from oom_support import spawn  # noqa: F401  (spawn is a fixture)

from gpudesk.oom import attach_gdb, attach_remote_exec
from gpudesk.oom.errors import MethodUnavailable, PermissionDenied, TargetNotFound
from gpudesk.oom.targets import TargetInfo, inspect_target, ptrace_refusal

BASE = TargetInfo(pid=4242, name="python3.11", exe="/usr/bin/python3.11", uid=os.getuid(), username="me",
                  same_user=True, is_python=True, python_version=(3, 11), same_mount_ns=True, same_pid_ns=True)


def test_inspect_own_process():
    info = inspect_target(os.getpid())
    assert info.same_user and info.is_python
    assert info.python_version == sys.version_info[:2]
    assert info.same_mount_ns is True and info.traced_by == 0


def test_inspect_missing_pid():
    with pytest.raises(TargetNotFound, match="No process"):
        inspect_target(2**22 + 11)


@pytest.mark.parametrize("change, words", [
    ({"same_user": False, "uid": 12345, "username": "alice"}, "belongs to alice"),
    ({"traced_by": 77}, "already traced by PID 77"),
    ({"ptrace_scope": 3}, "ptrace is disabled"),
    ({"ptrace_scope": 1, "we_are_root": False}, "ptrace_scope = 1"),
    ({"ptrace_scope": 2, "we_are_root": False}, "only administrators"),
    ({"same_mount_ns": False}, "another container"),
])
def test_ptrace_refusals(change, words):
    assert words in ptrace_refusal(replace(BASE, **change), allow_other_user=False)


def test_other_user_needs_root_even_when_elevated():
    info = replace(BASE, same_user=False, uid=12345, we_are_root=False)
    assert "needs root" in ptrace_refusal(info, allow_other_user=True)
    assert ptrace_refusal(replace(info, we_are_root=True), allow_other_user=True) is None


def test_remote_exec_refusals():
    assert "needs Python 3.14" in attach_remote_exec.unavailable_reason(BASE)
    newer = replace(BASE, python_version=(3, 14))
    assert attach_remote_exec.unavailable_reason(newer) is None
    assert "disabled" in attach_remote_exec.unavailable_reason(replace(newer, remote_debug_disabled=True))
    assert "not a Python" in attach_remote_exec.unavailable_reason(replace(newer, is_python=False))
    with pytest.raises(MethodUnavailable, match="3.14"):
        attach_remote_exec.probe_with_remote_exec(BASE)
    with pytest.raises(PermissionDenied, match="container"):
        attach_remote_exec.probe_with_remote_exec(replace(newer, same_mount_ns=False))


def test_remote_exec_uses_the_targets_interpreter():
    info = replace(BASE, pid=os.getpid(), python_version=(3, 14))
    cmd = attach_remote_exec.remote_exec_command(info, "/tmp/x/remote.py")
    assert cmd[0] == f"/proc/{os.getpid()}/exe"
    assert cmd[-1] == f"import sys; sys.remote_exec({os.getpid()}, '/tmp/x/remote.py')"


def test_remote_debug_disabled_is_seen_in_argv(spawn):
    t = spawn("print('READY', flush=True)\nimport time\ntime.sleep(30)")
    assert inspect_target(t.pid).remote_debug_disabled is False
    t2 = spawn("print('READY', flush=True)\nimport time\ntime.sleep(30)", env={"PYTHON_DISABLE_REMOTE_DEBUG": "1"})
    assert inspect_target(t2.pid).remote_debug_disabled is True


def test_gdb_command_queues_a_pending_call():
    cmd = attach_gdb.gdb_command(123, "print('a \"b\"')\n")
    call = next(c for c in cmd if c.startswith("call "))
    assert "Py_AddPendingCall" in call and "PyRun_SimpleString" in call
    assert '\\"b\\"' in call and "\\n" in call
    assert cmd[-4:] == ["-ex", "detach", "-ex", "quit"]


def test_gdb_refusals():
    assert "not a CPython" in attach_gdb.unavailable_reason(replace(BASE, is_python=False), preflight=False) \
        or shutil.which("gdb") is None
    with pytest.raises((MethodUnavailable, PermissionDenied)):
        attach_gdb.probe_with_gdb(replace(BASE, same_user=False, uid=1, username="bob"))


@pytest.mark.skipif(shutil.which("gdb") is None, reason="gdb not installed")
def test_gdb_preflight_says_whether_it_can_inject(spawn):
    reason = attach_gdb.gdb_preflight()
    t = spawn("print('READY', flush=True)\nimport time\nwhile True: time.sleep(0.01)")
    info = inspect_target(t.pid)
    if reason is not None:
        # e.g. gdb 13 on CPUs with AMX: the reason names the problem and the way out, and the user's
        # process is never touched.
        assert "gdb" in reason and ("agent" in reason or "permitted" in reason)
        assert attach_gdb.unavailable_reason(info) == reason
        with pytest.raises(MethodUnavailable):
            attach_gdb.probe_with_gdb(info)
        assert t.alive()
    else:
        from gpudesk.oom.probe_result import report_from_probe

        report = report_from_probe(attach_gdb.probe_with_gdb(info, timeout_s=20))
        assert report.pid == t.pid and report.torch_imported is False
        assert t.alive()
