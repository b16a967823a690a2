"""Probe a Python >= 3.14 process with ``sys.remote_exec`` (PEP 768), run by the target's own interpreter.

``sys.remote_exec(pid, path)`` makes the target's main thread run the file at ``path`` at its next bytecode
boundary and returns at once. gpudesk calls it through ``/proc/<pid>/exe`` so the caller's CPython version
matches the target's by construction (PEP 768 requires the same major.minor). The file is the stub from
:mod:`gpudesk.oom.injection` in a 0700 folder; the answer comes back as a 0600 file in the same folder.

Refusals say why: Python older than 3.14, remote debugging disabled (``PYTHON_DISABLE_REMOTE_DEBUG`` or
``-X disable-remote-debug`` in the target), ptrace rules (other user, Yama scope), another container.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable

from gpudesk.oom.channel import PrivateDir, wait_for_file
from gpudesk.oom.errors import MethodUnavailable, PermissionDenied, ProbeError, TargetNotFound
from gpudesk.oom.injection import write_probe_files
from gpudesk.oom.targets import TargetInfo, ptrace_refusal
from gpudesk.i18n import _

METHOD = "remote_exec"


def unavailable_reason(info: TargetInfo, allow_other_user: bool = False) -> str | None:
    """Why ``sys.remote_exec`` cannot be used for this target (None when it can)."""
    return _interpreter_reason(info) or ptrace_refusal(info, allow_other_user)


def _interpreter_reason(info: TargetInfo) -> str | None:
    """Why the target's interpreter cannot run ``sys.remote_exec`` (None when it can)."""
    if not info.is_python:
        return _('process {pid} ({name}) is not a Python interpreter').format(pid=info.pid, name=info.name)
    if info.python_version is None:
        return _('the Python version of process {pid} cannot be read').format(pid=info.pid)
    if info.python_version < (3, 14):
        major, minor = info.python_version
        return _('process {pid} runs Python {major}.{minor}; sys.remote_exec needs Python 3.14 or newer').format(pid=info.pid, major=major, minor=minor)
    if info.remote_debug_disabled:
        return (_('remote debugging is disabled in process {pid} (PYTHON_DISABLE_REMOTE_DEBUG or -X disable-remote-debug)').format(pid=info.pid))
    return None


def remote_exec_command(info: TargetInfo, script: str) -> list[str]:
    """The command that runs ``sys.remote_exec`` with the target's own interpreter."""
    exe = f"/proc/{info.pid}/exe" if os.path.exists(f"/proc/{info.pid}/exe") else (info.exe or "python3")
    return [exe, "-I", "-S", "-c", f"import sys; sys.remote_exec({int(info.pid)}, {script!r})"]


def probe_with_remote_exec(info: TargetInfo, *, reset_peak: bool = False, timeout_s: float = 10.0,
                           allow_other_user: bool = False,
                           progress: Callable[[str, float | None], None] | None = None) -> bytes:
    """Run the probe in ``info.pid`` via ``sys.remote_exec``; returns the raw JSON answer.

    Raises:
        MethodUnavailable / PermissionDenied: see :func:`unavailable_reason`.
        TargetNotFound: the process exited.
        ProbeTimeout: the script was scheduled but did not run in time (busy in native code); left running.
        ProbeError: ``sys.remote_exec`` itself failed (its message is included).
    """
    missing = _interpreter_reason(info)
    if missing:
        raise MethodUnavailable(METHOD, missing)
    refusal = ptrace_refusal(info, allow_other_user)
    if refusal:
        raise PermissionDenied(_("remote_exec: {refusal}").format(refusal=refusal), field=METHOD, detail=refusal)
    with PrivateDir() as folder:
        _probe, result, stub = write_probe_files(folder, reset_peak=reset_peak,
                                            owner_uid=info.uid if not info.same_user else None)
        script = folder / "remote.py"
        fd = os.open(script, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(stub)
        if not info.same_user and info.uid is not None:
            os.chown(script, info.uid, -1)
        if progress:
            progress(_('Scheduling the probe in process {pid} with sys.remote_exec…').format(pid=info.pid), None)
        try:
            proc = subprocess.run(remote_exec_command(info, str(script)), capture_output=True, text=True,
                                  timeout=30, check=False, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ProbeError(_('sys.remote_exec could not be run for process {pid}: {exc}').format(pid=info.pid, exc=exc)) from exc
        if proc.returncode != 0:
            err = (proc.stderr or proc.stdout).strip().splitlines()
            last = err[-1] if err else _("exit status {status}").format(status=proc.returncode)
            if "No such process" in last or "ProcessLookupError" in last:
                raise TargetNotFound(_('Process {pid} exited before sys.remote_exec reached it.').format(pid=info.pid))
            if "PermissionError" in last or "Operation not permitted" in last:
                raise PermissionDenied(_("remote_exec: the system refused access to process {pid}: {last}").format(
                    pid=info.pid, last=last))
            raise ProbeError(_('sys.remote_exec failed for process {pid}: {last}').format(pid=info.pid, last=last))
        return wait_for_file(result, info.pid, timeout_s, progress, what="the remote_exec probe")
