"""``gpudesk oom run -- CMD...``: start a job with the probe preinstalled, stream its memory curve, catch
the OOM moment, and diagnose the result.

The job gets a private 0700 folder: ``boot/`` (``sitecustomize.py`` from :mod:`.launch_bootstrap` and
``_gpudesk_probe.py``) first on PYTHONPATH, and ``out/`` where each of its Python processes appends JSON
lines (samples, status, the OOM event, the final probe). gpudesk reads them every tick, adds psutil host
memory of the job, forwards output lines, and after exit builds one MemoryReport: the OOM text from the job's
output when there is one, completed with the probe taken at the OOM moment. The folder is removed at the
end; a memory-history snapshot (``record_history=True``) is moved to ``<data dir>/oom-snapshots/``.

Callbacks run in the calling thread: ``on_sample(MemorySample)``, ``on_output(line)``,
``progress(message, fraction|None)``. ``stop`` (threading.Event) ends the job: SIGTERM to its process group,
SIGKILL after 5 s.
"""

from __future__ import annotations

import collections
import os
import queue
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import psutil

from gpudesk.oom import launch_bootstrap, probe_script
from gpudesk.oom.cause import Diagnosis
from gpudesk.oom.channel import PrivateDir
from gpudesk.oom.diagnose import diagnose
from gpudesk.oom.errors import LaunchError
from gpudesk.oom.launch_channel import JobChannel, JobCollector, JobWatcher
from gpudesk.oom.report import MemoryReport, MemorySample
from gpudesk.i18n import _

OUTPUT_TAIL_LINES = 400
TICK_S = 0.05


@dataclass
class LaunchResult:
    """What a launched job left: exit status, the diagnosed report, the OOM events, output tail."""

    argv: list[str]
    returncode: int | None
    report: MemoryReport
    diagnosis: Diagnosis
    oom_events: list[dict[str, Any]] = field(default_factory=list)
    output_tail: list[str] = field(default_factory=list)
    snapshot_paths: list[str] = field(default_factory=list)
    stopped: bool = False


def _resolve(argv: Sequence[str], cwd: str | None) -> list[str]:
    if not argv:
        raise LaunchError(_("No command given; use e.g. `gpudesk oom run -- python train.py`."))
    first = argv[0]
    if os.sep in first:
        path = Path(cwd or os.curdir, first) if not os.path.isabs(first) else Path(first)
        if not path.exists():
            raise LaunchError(_('{first}: no such file.').format(first=first))
        if not os.access(path, os.X_OK):
            raise LaunchError(_('{first}: not executable.').format(first=first))
    elif shutil.which(first) is None:
        raise LaunchError(_('{first}: command not found on PATH.').format(first=first))
    return list(argv)


def _prepare(folder: Path, interval_s: float, record_history: bool,
             env: dict[str, str] | None) -> tuple[dict[str, str], Path]:
    boot, out = folder / "boot", folder / "out"
    boot.mkdir(mode=0o700)
    out.mkdir(mode=0o700)
    shutil.copyfile(launch_bootstrap.__file__, boot / "sitecustomize.py")
    shutil.copyfile(probe_script.__file__, boot / "_gpudesk_probe.py")
    full = dict(os.environ)
    full.update(env or {})
    full["PYTHONPATH"] = str(boot) + (os.pathsep + full["PYTHONPATH"] if full.get("PYTHONPATH") else "")
    full["GPUDESK_OOM_DIR"] = str(out)
    full["GPUDESK_OOM_INTERVAL_S"] = repr(float(interval_s))
    full["GPUDESK_OOM_RECORD_HISTORY"] = "1" if record_history else "0"
    full.setdefault("PYTHONUNBUFFERED", "1")
    return full, out


def _job_rss(proc: psutil.Process | None) -> int | None:
    """Resident host memory of the job (all its processes), bytes; None when none could be read."""
    if proc is None:
        return None
    try:
        procs = [proc] + proc.children(recursive=True)
    except psutil.NoSuchProcess:
        return None
    total, read = 0, 0
    for p in procs:
        try:
            rss = p.memory_info().rss
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue  # this process ended or is not ours: counted as unknown, not as 0
        if rss > 0:  # a zombie (exited, not yet reaped) reads as 0: unknown, not empty
            total += rss
            read += 1
    return total if read else None


def launch_job(
    argv: Sequence[str],
    *,
    interval_s: float = 0.5,
    on_sample: Callable[[MemorySample], None] | None = None,
    on_output: Callable[[str], None] | None = None,
    progress: Callable[[str, float | None], None] | None = None,
    stop: threading.Event | None = None,
    cwd: str | None = None,
    env: dict[str, str] | None = None,
    record_history: bool = False,
    timeout_s: float | None = None,
    nvml: ModuleType | None = None,
) -> LaunchResult:
    """Run ``argv`` to completion (or until ``stop``/``timeout_s``) with the probe preinstalled.

    Every ``interval_s`` it also reads, without touching the job, the job's host memory (psutil, all its
    processes), its child processes' states, and NVML's per-process GPU memory (``nvml``: the pynvml module
    to use, tests pass the fake); the last NVML view goes into the report (this process's NVML memory,
    other processes on the same GPUs).

    Raises:
        LaunchError: empty command, not found, not executable, or the OS refused to start it.
    """
    argv = _resolve(argv, cwd)
    if interval_s <= 0:
        raise LaunchError(_('The sampling interval must be positive, got {interval_s} s.').format(interval_s=interval_s))
    with PrivateDir(prefix="gpudesk-run-", strict=False) as folder:
        full_env, out = _prepare(folder, interval_s, record_history, env)
        try:
            proc = subprocess.Popen(argv, cwd=cwd, env=full_env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, start_new_session=True)
        except OSError as exc:
            raise LaunchError(_("{program}: could not start: {error}").format(program=argv[0],
                                                                              error=exc.strerror or exc)) from exc
        if progress:
            progress(_("Started process {pid}: {command}").format(pid=proc.pid, command=" ".join(argv)), None)
        lines: queue.Queue[str] = queue.Queue()

        def pump() -> None:
            assert proc.stdout is not None
            for raw in iter(proc.stdout.readline, b""):
                lines.put(raw.decode("utf-8", errors="replace"))
            proc.stdout.close()

        reader = threading.Thread(target=pump, name="gpudesk-run-output", daemon=True)
        reader.start()
        state = JobCollector(proc.pid, on_sample, progress)
        channel = JobChannel(out)
        tail: collections.deque[str] = collections.deque(maxlen=OUTPUT_TAIL_LINES)
        try:
            ps_proc = psutil.Process(proc.pid)
        except psutil.NoSuchProcess:
            ps_proc = None  # exited at once; output and lines are still read below
        watcher = JobWatcher(proc.pid, nvml)
        start = time.monotonic()
        next_rss = start
        stopped = False
        try:
            while True:
                running = proc.poll() is None
                _drain(lines, tail, on_output)
                state.feed(channel.read(), start_epoch=time.time() - (time.monotonic() - start))
                now = time.monotonic()
                if running and now >= next_rss:
                    rss = _job_rss(ps_proc)
                    if rss is not None:
                        state.report.host_rss_samples.append((now - start, rss))
                    if ps_proc is not None:
                        watcher.poll(ps_proc)
                    next_rss = now + interval_s
                if not running:
                    break
                if (stop is not None and stop.is_set()) or (timeout_s is not None and now - start > timeout_s):
                    stopped = True
                    _terminate(proc)
                    if progress:
                        progress(_('Stopped process {pid}.').format(pid=proc.pid), None)
                time.sleep(TICK_S)
        except BaseException:
            # A callback raised or the caller was interrupted (Ctrl-C): do not leave the job running.
            _terminate(proc)
            raise
        reader.join(timeout=5)
        _drain(lines, tail, on_output)
        state.feed(channel.read(), start_epoch=time.time() - (time.monotonic() - start))
        if channel.bad_lines:
            state.report.notes.append(_('{bad_lines} probe line(s) from the job were not valid JSON and were skipped.').format(bad_lines=channel.bad_lines))
        snapshots = _keep_snapshots(state.oom_events)
        report = state.finish(tail)
        watcher.apply(report)
        if stopped:
            report.notes.append(_("The job was stopped before it finished."))
        return LaunchResult(argv=argv, returncode=proc.returncode, report=report, diagnosis=diagnose(report),
                            oom_events=state.oom_events, output_tail=list(tail), snapshot_paths=snapshots,
                            stopped=stopped)


def _drain(lines: queue.Queue[str], tail: collections.deque[str], on_output: Callable[[str], None] | None) -> None:
    while True:
        try:
            line = lines.get_nowait()
        except queue.Empty:
            return
        tail.append(line)
        if on_output is not None:
            on_output(line)


def _terminate(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            proc.kill()
        proc.wait()


def _keep_snapshots(events: list[dict[str, Any]]) -> list[str]:
    from gpudesk.paths import data_dir

    kept = []
    for ev in events:
        src = ev.get("snapshot")
        if src and os.path.exists(src):
            dest_dir = data_dir() / "oom-snapshots"
            dest_dir.mkdir(parents=True, exist_ok=True)
            dest = dest_dir / f"{time.strftime('%Y%m%d-%H%M%S')}-{ev.get('pid')}.pickle"
            shutil.move(src, dest)
            ev["snapshot"] = str(dest)
            kept.append(str(dest))
    return kept
