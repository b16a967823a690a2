"""A private channel for probe answers: a 0700 folder from ``tempfile.mkdtemp`` and a result file that the
probe creates with mode 0600. Only the current user (and root) can read it; nothing is world-writable."""

from __future__ import annotations

import os
import shutil
import stat
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from gpudesk.oom.errors import ProbeResultError, ProbeTimeout, TargetNotFound
from gpudesk.i18n import _

Progress = Callable[[str, "float | None"], None]
MAX_ANSWER_BYTES = 64 * 1024 * 1024  # a probe answer (with memory_summary and snapshot summary) is far smaller


class PrivateDir:
    """Context manager: a fresh 0700 folder, removed on exit (with everything in it)."""

    def __init__(self, prefix: str = "gpudesk-oom-", base: str | os.PathLike[str] | None = None, strict: bool = True):
        self.prefix = prefix
        self.base = base
        self.strict = strict  # False: a folder that cannot be removed is reported on stderr, not raised
        self.path: Path | None = None

    def __enter__(self) -> Path:
        self.path = Path(tempfile.mkdtemp(prefix=self.prefix, dir=self.base))
        os.chmod(self.path, 0o700)  # mkdtemp already uses 0700; make it explicit against odd umasks
        return self.path

    def __exit__(self, *exc: object) -> None:
        if self.path is None:
            return
        for attempt in range(3):
            try:
                shutil.rmtree(self.path)
                return
            except FileNotFoundError:
                return
            except OSError as exc:
                # A late probe may be writing its answer while we clean up (after a timeout), or a job's
                # leftover background process its samples: retry briefly.
                if attempt == 2:
                    if self.strict:
                        raise
                    sys.stderr.write(f"gpudesk: could not remove the private folder {self.path}: {exc}\n")
                    return
                time.sleep(0.1)


def pid_alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie (Linux /proc; signal 0 elsewhere)."""
    status = Path(f"/proc/{pid}/status")
    if Path("/proc/self").exists():
        try:
            for line in status.read_text().splitlines():
                if line.startswith("State:"):
                    return "Z" not in line.split()[1]
        except OSError:
            return False
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def check_private(path: Path) -> None:
    """Raise PermissionError unless ``path`` is owned by us and not readable by group/others."""
    st = path.stat()
    if st.st_uid != os.getuid() or stat.S_IMODE(st.st_mode) & 0o077:
        raise PermissionError(_("{path} is not private to this user (mode {mode}).").format(
            path=path, mode=oct(stat.S_IMODE(st.st_mode))))


def wait_for_file(path: Path, pid: int, timeout_s: float, progress: Progress | None = None,
                  what: str = "the probe") -> bytes:
    """Wait until ``path`` appears, then return its bytes.

    Raises:
        TargetNotFound: the process exited while we waited.
        ProbeTimeout: nothing came within ``timeout_s`` (the target is left running).
    """
    deadline = time.monotonic() + timeout_s
    delay = 0.01
    while True:
        if path.exists():
            check_private(path)
            size = path.stat().st_size
            if size > MAX_ANSWER_BYTES:
                raise ProbeResultError(_("{path} is {size} bytes, more than a probe answer ({limit}); "
                                         "it was not read.").format(path=path, size=size, limit=MAX_ANSWER_BYTES))
            return path.read_bytes()
        if not pid_alive(pid):
            raise TargetNotFound(_("Process {pid} exited before {what} answered.").format(pid=pid, what=what))
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ProbeTimeout(
                _("Process {pid} did not run {what} within {timeout_s:.1f} s: its main thread is probably busy in "
                  "native code (a CUDA synchronisation, an NCCL collective, a C extension or a long sleep). It was "
                  "left running and unharmed; try again when it is back in Python code, or use the agent.").format(
                    pid=pid, what=what, timeout_s=timeout_s)
            )
        if progress is not None:
            progress(f"Waiting for process {pid} to run {what}…", 1 - remaining / timeout_s)
        time.sleep(min(delay, remaining))
        delay = min(delay * 2, 0.2)
