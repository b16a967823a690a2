"""Stop one's own GPU process: terminate (SIGTERM; lets PyTorch and friends save and clean up) or kill (SIGKILL).

Only processes whose real user is the caller's own are ever signalled (POSIX: ``uids().real == os.getuid()``;
Windows: the same account name), never another user's, never gpudesk itself. The caller confirms first (the CLI
asks, or takes ``--yes``); this function only checks and acts.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import psutil

from gpudesk.errors import GpudeskError
from gpudesk.i18n import _


class ProcessControlError(GpudeskError):
    """The process cannot be stopped by this user (not found, another user's, gpudesk itself, no permission)."""


@dataclass(frozen=True)
class StopResult:
    pid: int
    signal_name: str  # "SIGTERM" or "SIGKILL"
    exited: bool  # the process was gone within the wait


def _own(proc: psutil.Process) -> bool:
    if hasattr(os, "getuid"):
        return int(proc.uids().real) == os.getuid()
    return bool(proc.username() == psutil.Process(os.getpid()).username())


def check_stoppable(pid: int) -> psutil.Process:
    """The process ``pid`` if this user may stop it.

    Raises:
        ProcessControlError: it does not exist, belongs to another user, or is gpudesk itself.
    """
    if pid == os.getpid():
        raise ProcessControlError(_("PID {pid} is gpudesk itself.").format(pid=pid), field="pid")
    try:
        proc = psutil.Process(pid)
        own = _own(proc)
    except psutil.NoSuchProcess as exc:
        raise ProcessControlError(_("No process {pid} here (it ended, or it is a host PID seen from a container)."
                                    ).format(pid=pid), field="pid") from exc
    except (psutil.AccessDenied, ValueError, OverflowError) as exc:
        raise ProcessControlError(_("Process {pid} cannot be inspected: {reason}.").format(pid=pid, reason=exc),
                                  field="pid") from exc
    if not own:
        raise ProcessControlError(_("Process {pid} belongs to another user; gpudesk only stops your own processes."
                                    ).format(pid=pid), field="pid",
                                  remedy=_("Ask its owner or an administrator to stop it."))
    return proc


def stop_process(pid: int, *, force: bool = False, wait_s: float = 5.0) -> StopResult:
    """Send SIGTERM (or SIGKILL with ``force``) to one's own process ``pid`` and wait up to ``wait_s`` for it to exit.

    Raises:
        ProcessControlError: see :func:`check_stoppable`, or the signal could not be sent.
    """
    proc = check_stoppable(pid)
    try:
        if force:
            proc.kill()
        else:
            proc.terminate()
    except psutil.NoSuchProcess:
        return StopResult(pid, "SIGKILL" if force else "SIGTERM", True)
    except psutil.AccessDenied as exc:
        raise ProcessControlError(_("Process {pid} could not be signalled: permission denied.").format(pid=pid),
                                  field="pid") from exc
    try:
        proc.wait(timeout=wait_s)
        exited = True
    except psutil.TimeoutExpired:
        exited = False
    return StopResult(pid, "SIGKILL" if force else "SIGTERM", exited)
