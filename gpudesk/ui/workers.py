"""The one pattern for background work in the UI.

``run_task(fn, *args, on_result=..., on_error=..., on_progress=...)`` runs ``fn`` on Qt's global thread
pool and delivers its result, exception or progress to slots on the GUI thread through queued signals.
``fn`` may accept a ``progress`` keyword (a callable taking ``(done, total, text)``) to report progress.
Workers never touch widgets. Long-lived workers with their own timer (monitor sampling, recording) are
QObjects moved to a QThread; see :class:`ThreadWorker`.
"""

from __future__ import annotations

import inspect
import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThread, QThreadPool, Signal, Slot


class _TaskSignals(QObject):
    result = Signal(object)
    error = Signal(object)  # the exception instance; its traceback text is in .__gpudesk_traceback__
    progress = Signal(int, int, str)
    finished = Signal()


class Task(QRunnable):
    """A function run once on the thread pool. Connect to ``signals`` before starting it."""

    def __init__(self, fn: Callable[..., Any], *args: Any, **kwargs: Any):
        super().__init__()
        self.fn = fn
        self.args = args
        self.kwargs = kwargs
        self.signals = _TaskSignals()
        self.setAutoDelete(True)
        try:
            self._wants_progress = "progress" in inspect.signature(fn).parameters
        except (TypeError, ValueError):
            self._wants_progress = False

    @Slot()
    def run(self) -> None:
        try:
            if self._wants_progress:
                self.kwargs["progress"] = lambda done, total, text="": self.signals.progress.emit(
                    int(done), int(total), str(text)
                )
            value = self.fn(*self.args, **self.kwargs)
        except Exception as exc:  # noqa: BLE001 - every error is handed to the GUI, never swallowed
            exc.__gpudesk_traceback__ = traceback.format_exc()  # type: ignore[attr-defined]
            self.signals.error.emit(exc)
        else:
            self.signals.result.emit(value)
        finally:
            self.signals.finished.emit()


_LIVE_TASKS: set[Task] = set()  # started tasks, kept alive until their finished signal reaches the GUI thread


def run_task(
    fn: Callable[..., Any],
    *args: Any,
    on_result: Callable[[Any], None] | None = None,
    on_error: Callable[[BaseException], None] | None = None,
    on_progress: Callable[[int, int, str], None] | None = None,
    on_finished: Callable[[], None] | None = None,
    pool: QThreadPool | None = None,
    **kwargs: Any,
) -> Task:
    """Start ``fn(*args, **kwargs)`` in the background; callbacks run on the GUI thread."""
    task = Task(fn, *args, **kwargs)
    if on_result is not None:
        task.signals.result.connect(on_result)
    if on_error is not None:
        task.signals.error.connect(on_error)
    if on_progress is not None:
        task.signals.progress.connect(on_progress)
    if on_finished is not None:
        task.signals.finished.connect(on_finished)
    # The caller may drop the returned Task; without a reference its signals object could be collected
    # before the result is delivered. Connected last, so it runs after the caller's own slots.
    _LIVE_TASKS.add(task)
    task.signals.finished.connect(lambda: _LIVE_TASKS.discard(task))
    (pool or QThreadPool.globalInstance()).start(task)
    return task


class ThreadWorker(QObject):
    """Base for long-lived workers: create timers and connections in :meth:`setup`, in the worker thread.

    Usage: ``worker = MyWorker(); thread = start_worker(worker)``; stop with :func:`stop_worker`.
    """

    failed = Signal(object)

    @Slot()
    def _run_setup(self) -> None:
        # Connected to QThread.started. A Python override of a decorated slot in a subclass is not always
        # dispatched as a queued slot by PySide6, so the base-class slot calls the override from here, which
        # is guaranteed to run in the worker thread.
        self.setup()

    def setup(self) -> None:
        """Called in the worker thread once it starts. Override to create timers and connections."""

    @Slot()
    def _run_teardown(self) -> None:
        self.teardown()

    def teardown(self) -> None:
        """Called in the worker thread before it quits. Override to stop timers and close connections."""


def start_worker(worker: ThreadWorker, name: str = "gpudesk-worker") -> QThread:
    """Move ``worker`` to a new QThread, call its ``setup`` there, and start the thread."""
    thread = QThread()
    thread.setObjectName(name)
    worker.moveToThread(thread)
    thread.started.connect(worker._run_setup)
    thread.start()
    worker._gpudesk_thread = thread  # type: ignore[attr-defined]  # keep the thread alive with the worker
    return thread


def stop_worker(worker: ThreadWorker, timeout_ms: int = 5000) -> bool:
    """Run ``teardown`` in the worker thread, stop the thread and wait; returns False on time-out."""
    thread: QThread | None = getattr(worker, "_gpudesk_thread", None)
    if thread is None or not thread.isRunning():
        return True
    from PySide6.QtCore import QMetaObject, Qt

    QMetaObject.invokeMethod(worker, "_run_teardown", Qt.ConnectionType.BlockingQueuedConnection)
    thread.quit()
    return thread.wait(timeout_ms)
