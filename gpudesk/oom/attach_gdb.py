"""Probe an older CPython process through gdb (Linux): a pending call queued with ``Py_AddPendingCall``.

How: ``gdb -p PID --batch`` stops the target for a moment, calls ``Py_AddPendingCall(PyRun_SimpleString,
"<stub>")`` and detaches at once. The interpreter runs the stub in its main thread at the next bytecode
boundary, with the GIL held, like a signal handler; the stub execs the probe from a 0700 folder and the
probe writes its JSON there. gdb never waits for Python code, so a target busy in native code is not held
stopped: gpudesk waits for the result file and, after ``timeout_s``, reports it busy and leaves it running
(the queued probe may run later and finds its folder gone).

Risks (shown to the user before it runs, :data:`WARNING`): gdb calls functions inside the target while it is
stopped; if the target was stopped inside malloc or holds the pending-call lock the call can deadlock and
gdb is killed after ``gdb_timeout_s`` (the kernel then detaches it). Use the agent where this matters.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable

from gpudesk.oom.channel import PrivateDir, wait_for_file
from gpudesk.oom.errors import MethodUnavailable, PermissionDenied, ProbeError, TargetNotFound
from gpudesk.oom.injection import write_probe_files
from gpudesk.oom.targets import TargetInfo, ptrace_refusal
from gpudesk.i18n import N_, _

METHOD = "gdb"
WARNING = (
    N_("gdb will pause the process for a moment and call into its Python interpreter to queue the probe. This is "
    "a debugger technique: in rare cases (the process paused inside memory allocation) it can hang or crash "
    "the process. Use it on jobs you can restart, or add the one-line agent instead.")
)


def _c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


_preflight_cache: dict[str, str | None] = {}


def gdb_preflight(timeout_s: float = 20.0) -> str | None:
    """Check once per gdb binary that gdb can call a function in a process and restore it, on a throwaway
    ``sleep`` child (never on the user's process). None when it can; else the reason.

    gdb 13 on CPUs with AMX and recent kernels cannot write the extended register state back ("Couldn't
    write extended state status: Bad address"), which leaves the interrupted system call returning an
    error in the target; such a gdb must not touch user processes.
    """
    gdb = shutil.which("gdb")
    if gdb is None:
        return _("gdb is not installed (e.g. `sudo apt-get install gdb`)")
    if gdb in _preflight_cache:
        return _preflight_cache[gdb]
    sleeper = subprocess.Popen(["sleep", "60"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        proc = subprocess.run(
            [gdb, "-p", str(sleeper.pid), "--batch", "-nx", "-q", "-ex", "set auto-load python-scripts off",
             "-ex", "call (int)getpid()", "-ex", "detach", "-ex", "quit"],
            capture_output=True, text=True, timeout=timeout_s, check=False, stdin=subprocess.DEVNULL,
        )
        out = proc.stdout + proc.stderr
        alive = sleeper.poll() is None
        if "ptrace: Operation not permitted" in out:
            reason = _("the system does not allow gdb to attach to processes (ptrace not permitted here)")
        elif f"= {sleeper.pid}" not in out or "Couldn't write" in out or not alive:
            detail = next((ln.strip() for ln in out.splitlines() if "Couldn't" in ln or "error" in ln.lower()), "")
            reason = (_("this gdb cannot call functions in a process safely on this machine ({detail}); gdb 13 "
                        "fails on CPUs with AMX — upgrade gdb to 14 or newer, or use the agent").format(detail=detail)
                      if detail else
                      _("this gdb cannot call functions in a process safely on this machine; gdb 13 fails on CPUs "
                        "with AMX — upgrade gdb to 14 or newer, or use the agent"))
        else:
            reason = None
    except subprocess.TimeoutExpired:
        reason = _('gdb did not finish a test call within {timeout_s:.0f} s').format(timeout_s=timeout_s)
    finally:
        sleeper.kill()
        sleeper.wait()
    _preflight_cache[gdb] = reason
    return reason


def unavailable_reason(info: TargetInfo, allow_other_user: bool = False, preflight: bool = True) -> str | None:
    """Why gdb injection cannot be used for this target (None when it can)."""
    missing = _tool_reason(info)
    if missing:
        return missing
    refusal = ptrace_refusal(info, allow_other_user)
    if refusal:
        return refusal
    return gdb_preflight() if preflight else None


def _tool_reason(info: TargetInfo) -> str | None:
    """Why gdb or the target's interpreter rule gdb injection out, before any permission question."""
    if not os.path.exists("/proc/self"):
        return _("gdb injection works on Linux only")
    if shutil.which("gdb") is None:
        return _("gdb is not installed (e.g. `sudo apt-get install gdb`)")
    if not info.is_python:
        return _('process {pid} ({name}) is not a CPython interpreter').format(pid=info.pid, name=info.name)
    if info.python_version is not None and info.python_version < (3, 7):
        return _("process {pid} runs Python {major}.{minor}; gpudesk needs 3.7 or newer").format(
            pid=info.pid, major=info.python_version[0], minor=info.python_version[1])
    return None


def gdb_command(pid: int, stub: str) -> list[str]:
    """The gdb command line that queues ``stub`` in process ``pid`` and detaches."""
    call = f"call (int)Py_AddPendingCall((void *)PyRun_SimpleString, (void *){_c_string(stub)})"
    return [
        "gdb", "-p", str(pid), "--batch", "-nx", "-q",
        "-ex", "set confirm off",
        "-ex", "set auto-load python-scripts off",
        "-ex", call,
        "-ex", "detach",
        "-ex", "quit",
    ]


def probe_with_gdb(info: TargetInfo, *, reset_peak: bool = False, timeout_s: float = 10.0,
                   gdb_timeout_s: float = 30.0, allow_other_user: bool = False,
                   progress: Callable[[str, float | None], None] | None = None) -> bytes:
    """Run the probe in ``info.pid`` through gdb; returns the raw JSON answer.

    Raises:
        MethodUnavailable: gdb missing, not Python, not Linux.
        PermissionDenied: other user, ptrace scope, another container, already traced.
        TargetNotFound: the process exited.
        ProbeTimeout: queued but not run in time (the target is busy in native code); left running.
        ProbeError: gdb failed to queue the call (its message is included).
    """
    missing = _tool_reason(info)
    if missing:
        raise MethodUnavailable(METHOD, missing)
    refusal = ptrace_refusal(info, allow_other_user)
    if refusal:
        raise PermissionDenied(_("gdb: {refusal}").format(refusal=refusal), field=METHOD, detail=refusal)
    broken = gdb_preflight()
    if broken:
        raise MethodUnavailable(METHOD, broken)
    with PrivateDir() as folder:
        _probe, result, stub = write_probe_files(folder, reset_peak=reset_peak,
                                            owner_uid=info.uid if not info.same_user else None)
        if progress:
            progress(_('Attaching gdb to process {pid}…').format(pid=info.pid), None)
        try:
            proc = subprocess.run(gdb_command(info.pid, stub), capture_output=True, text=True,
                                  timeout=gdb_timeout_s, check=False, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as exc:
            raise ProbeError(
                _('gdb did not finish within {gdb_timeout_s:.0f} s and was stopped (the kernel detached it); process {pid} may have been paused in a critical section. Check that it is still running.').format(gdb_timeout_s=gdb_timeout_s, pid=info.pid)
            ) from exc
        out = (proc.stdout or "") + (proc.stderr or "")
        if "No such process" in out:
            raise TargetNotFound(_('Process {pid} exited before gdb could attach.').format(pid=info.pid))
        if "ptrace: Operation not permitted" in out:
            raise PermissionDenied(_("gdb: the system refused to let gdb attach to {pid} (ptrace not "
                                     "permitted).").format(pid=info.pid))
        ok = any(line.strip().startswith("$1 = 0") for line in out.splitlines())
        if not ok:
            tail = "\n".join(out.strip().splitlines()[-4:])
            raise ProbeError(_('gdb could not queue the probe in process {pid}: {tail}').format(pid=info.pid, tail=tail))
        if progress:
            progress(_('Probe queued in process {pid}; waiting for it to run…').format(pid=info.pid), None)
        return wait_for_file(result, info.pid, timeout_s, progress, what="the probe queued by gdb")
