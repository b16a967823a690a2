"""Facts about a target process that decide which probe methods can run (Linux /proc; psutil elsewhere).

Nothing here changes the target. ``inspect_target`` raises TargetNotFound for a PID that does not exist.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from gpudesk.oom.errors import TargetNotFound
from gpudesk.i18n import _

_LIBPYTHON = re.compile(r"libpython(\d+)\.(\d+)")
_EXE_VERSION = re.compile(r"python(\d+)\.(\d+)")


@dataclass
class TargetInfo:
    """What gpudesk knows about a process before attaching.

    Attributes:
        python_version: (major, minor) of the target's interpreter, None when unknown or not Python.
        same_user: the target runs under our uid (attach is limited to those unless elevated).
        same_mount_ns / same_pid_ns: None where /proc/<pid>/ns cannot be read; False = another container.
        traced_by: PID of a debugger already tracing it (0 = none).
        ptrace_scope: /proc/sys/kernel/yama/ptrace_scope, None when Yama is absent (classic ptrace rules).
        remote_debug_disabled: PYTHON_DISABLE_REMOTE_DEBUG or -X disable-remote-debug seen in the target.
    """

    pid: int
    name: str = ""
    exe: str | None = None
    cmdline: list[str] = field(default_factory=list)
    uid: int | None = None
    username: str | None = None
    same_user: bool = False
    is_python: bool = False
    python_version: tuple[int, int] | None = None
    same_mount_ns: bool | None = None
    same_pid_ns: bool | None = None
    traced_by: int = 0
    ptrace_scope: int | None = None
    remote_debug_disabled: bool = False
    we_are_root: bool = False


def _ns(pid: int | str, kind: str) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/{kind}")
    except OSError:
        return None


def ptrace_scope() -> int | None:
    """Yama's ptrace_scope (0 classic, 1 descendants only, 2 admin only, 3 disabled), None without Yama."""
    try:
        return int(Path("/proc/sys/kernel/yama/ptrace_scope").read_text().strip())
    except (OSError, ValueError):
        return None


def python_version_of(exe: str, timeout_s: float = 5.0) -> tuple[int, int] | None:
    """(major, minor) of a Python executable, by asking it in isolated mode; None when it is not Python."""
    try:
        out = subprocess.run(
            [exe, "-I", "-S", "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True, text=True, timeout=timeout_s, check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.fullmatch(r"(\d+)\.(\d+)\s*", out.stdout)
    return (int(m.group(1)), int(m.group(2))) if m and out.returncode == 0 else None


def inspect_target(pid: int) -> TargetInfo:
    """Gather :class:`TargetInfo` for ``pid``.

    Raises:
        TargetNotFound: no such process (or it is a zombie).
    """
    try:
        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE:
            raise TargetNotFound(_('Process {pid} has exited (zombie); there is nothing to probe.').format(pid=pid))
        info = TargetInfo(pid=pid, name=proc.name())
        info.uid = proc.uids().real
    except psutil.NoSuchProcess as exc:
        raise TargetNotFound(_('No process with PID {pid} exists.').format(pid=pid)) from exc
    info.we_are_root = os.geteuid() == 0
    info.same_user = info.uid == os.getuid()
    try:
        info.username = proc.username()
        info.exe = proc.exe() or None
        info.cmdline = proc.cmdline()
    except (psutil.AccessDenied, psutil.ZombieProcess):
        info.exe = None  # another user's process: its executable and command line stay unknown
    except psutil.NoSuchProcess as exc:
        raise TargetNotFound(_('Process {pid} exited while being inspected.').format(pid=pid)) from exc
    try:
        maps = Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        maps = ""  # not Linux, or not readable (another user): the interpreter is judged by its name
    lib = _LIBPYTHON.search(maps)
    exe_v = _EXE_VERSION.search(os.path.basename(info.exe or ""))
    if lib:
        info.is_python, info.python_version = True, (int(lib.group(1)), int(lib.group(2)))
    elif exe_v:
        info.is_python, info.python_version = True, (int(exe_v.group(1)), int(exe_v.group(2)))
    elif "python" in os.path.basename(info.exe or "").lower() or "python" in info.name.lower():
        info.is_python = True
        info.python_version = python_version_of(f"/proc/{pid}/exe") if info.same_user or info.we_are_root else None
    for kind, attr in (("mnt", "same_mount_ns"), ("pid", "same_pid_ns")):
        theirs, ours = _ns(pid, kind), _ns("self", kind)
        setattr(info, attr, None if theirs is None or ours is None else theirs == ours)
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("TracerPid:"):
                info.traced_by = int(line.split()[1])
    except OSError:
        info.traced_by = 0  # no /proc status (not Linux): no tracer known
    info.ptrace_scope = ptrace_scope()
    try:
        env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        info.remote_debug_disabled = any(e.startswith(b"PYTHON_DISABLE_REMOTE_DEBUG=") for e in env)
    except OSError:
        info.remote_debug_disabled = False  # environment unreadable: only the command line can tell
    argv = " ".join(info.cmdline)
    if re.search(r"-X\s*disable[-_]remote[-_]debug", argv):
        info.remote_debug_disabled = True
    return info


def ptrace_refusal(info: TargetInfo, allow_other_user: bool) -> str | None:
    """Why ptrace-based attach (gdb, sys.remote_exec) cannot work on this target; None when it can."""
    if not info.same_user and not allow_other_user:
        return _("process {pid} belongs to {user}, not to you; gpudesk attaches only to your own processes unless "
                 "you elevate explicitly").format(pid=info.pid, user=info.username or info.uid)
    if not info.same_user and not info.we_are_root:
        return _('process {pid} belongs to another user; attaching needs root or CAP_SYS_PTRACE').format(pid=info.pid)
    if info.traced_by:
        return _('process {pid} is already traced by PID {traced_by} (a debugger); only one tracer is allowed').format(pid=info.pid, traced_by=info.traced_by)
    if info.ptrace_scope == 3:
        return _("ptrace is disabled on this system (kernel.yama.ptrace_scope = 3)")
    if info.ptrace_scope == 2 and not info.we_are_root:
        return _("only administrators may ptrace here (kernel.yama.ptrace_scope = 2); run as root or use the agent")
    if info.ptrace_scope == 1 and not info.we_are_root:
        return (_("kernel.yama.ptrace_scope = 1 lets a process trace only its own descendants; run gpudesk with "
                "CAP_SYS_PTRACE, start the job with `gpudesk oom run`, or use the agent"))
    if info.same_mount_ns is False:
        return (_('process {pid} runs in another container (different mount namespace); run gpudesk inside that container (docker exec) or use the agent there').format(pid=info.pid))
    return None
