"""Runs ``gpudesk.oom.launch.launch_job`` for the tab in the background and relays what it reports.

The job runs on its own one-thread pool through :func:`gpudesk.ui.workers.run_task`. Its callbacks
(``on_sample``, ``on_output``, ``progress``) are called on that worker thread; they only emit signals of a
:class:`LaunchRunner` that lives on the GUI thread, so the slots run there (queued connections). Stop sets
the ``threading.Event`` that ``launch_job`` watches: the job is ended and the result still comes back.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from PySide6.QtCore import QObject, QThreadPool, Signal

from gpudesk.ui.workers import run_task


class LaunchRunner(QObject):
    """One launched command at a time.

    Signals:
        started(list): argv of the job that started.
        sample(object): a ``gpudesk.oom.MemorySample`` (seconds since start, per device, bytes).
        output(str): a line of the job's stdout/stderr (plain text).
        progress(str): a status sentence from the launcher.
        finished(object): the ``LaunchResult`` (returncode, report, oom_events, output_tail, diagnosis).
        failed(object): the exception (``gpudesk.oom.LaunchError`` when it could not start).
    """

    started = Signal(list)
    """A launched job started: its argv."""
    sample = Signal(object)
    """A memory sample of the job: a MemorySample (s since start, bytes per device)."""
    output = Signal(str)
    """The job printed a line on stdout or stderr: the line (plain text)."""
    progress = Signal(str)
    """The launcher reported its state: a status sentence."""
    finished = Signal(object)
    """The job ended: its LaunchResult (returncode, report, OOM events, output tail, diagnosis)."""
    failed = Signal(object)
    """The job could not run: the exception (a LaunchError when it could not start)."""

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._stop: threading.Event | None = None
        self.running = False
        self.start_epoch: float | None = None  # time.time() when the last job was started
        # A job can run for hours: it gets its own pool so it never holds one of the global pool's threads.
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)

    def start(
        self,
        argv: Sequence[str],
        *,
        interval_s: float = 0.5,
        cwd: str | None = None,
        record_history: bool = False,
    ) -> bool:
        """Start ``argv`` with the probe preinstalled; False when a job is already running."""
        if self.running:
            return False
        from gpudesk.oom.launch import launch_job

        self._stop = threading.Event()
        self.running = True
        self.start_epoch = time.time()
        self.started.emit(list(argv))
        stop = self._stop
        relay = self._relay_progress

        def job():
            # Wrapped so that launch_job's progress goes to this runner's own signal (it also carries samples).
            return launch_job(
                list(argv),
                interval_s=interval_s,
                on_sample=self.sample.emit,
                on_output=self.output.emit,
                progress=relay,
                stop=stop,
                cwd=cwd or None,
                record_history=record_history,
            )

        run_task(job, on_result=self._done, on_error=self._error, pool=self._pool)
        return True

    def stop(self) -> None:
        """Ask the running job to end (its result, with what was sampled so far, still arrives)."""
        if self._stop is not None:
            self._stop.set()

    def _relay_progress(self, message: str, fraction: float | None = None) -> None:
        self.progress.emit(str(message))

    def _done(self, result) -> None:
        self.running = False
        self._stop = None
        self.finished.emit(result)

    def _error(self, exc: BaseException) -> None:
        self.running = False
        self._stop = None
        self.failed.emit(exc)
