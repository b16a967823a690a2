"""The one pattern for background work in the UI.

``run_task(fn, *args, on_result=..., on_error=..., on_progress=...)`` runs ``fn`` on Qt's global thread
pool and delivers its result, exception or progress to slots on the GUI thread through queued signals.
``fn`` may accept a ``progress`` keyword (:class:`gpudesk.progress.Progress`: ``progress(message, fraction)``,
the same protocol as the core's long jobs) to report progress; ``on_progress(message, fraction)`` gets it on the
GUI thread. Likewise a ``partial`` keyword (``partial(value)``) hands results over while the task goes on
(``on_partial(value)``), and a ``should_stop`` keyword (a function answering whether :meth:`Task.cancel` was
called) lets a long task end early when its caller no longer wants it: the task checks it and returns.

Every exception a task raises (``BaseException`` included) reaches the GUI thread: to ``on_error`` when the
caller gave one, otherwise to :attr:`WorkTracker.unhandled`, which the main window shows in its message bar.
:func:`tracker` counts the work in flight for the whole application (``pendingChanged``), so no tab keeps
its own counter. A finished task drops its function, arguments and result, so they are freed as soon as the
caller's slots are done with them.

Workers never touch widgets. Long-lived workers with their own timer (monitor sampling, recording) are
QObjects moved to a QThread; see :class:`ThreadWorker`, whose ``setup``/``teardown`` failures are emitted as
``failed`` as well.
"""

from __future__ import annotations

import inspect
import itertools
import threading
import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QMetaObject, QObject, QRunnable, Qt, QThread, QThreadPool, Signal, Slot

from gpudesk.errors import GpudeskError
from gpudesk.ui.error_text import error_text


def failure_text(exc: BaseException) -> str:
    """A one-paragraph plain-text description of ``exc`` for a message bar."""
    if isinstance(exc, (GpudeskError, OSError)):
        return error_text(exc)
    text = error_text(exc)  # an unexpected error: its type helps whoever reads the report
    return text if text == type(exc).__name__ else f"{type(exc).__name__}: {text}"


class _TaskSignals(QObject):
    result = Signal(object)
    """The task returned: its return value."""
    error = Signal(object)
    """The task raised: the exception (its traceback text in .__gpudesk_traceback__)."""
    progress = Signal(str, object)
    """The task reported progress: a message and the fraction done (0..1) or None."""
    partial = Signal(object)
    """The task handed over part of its result (its own value) while it goes on."""
    finished = Signal()
    """The task ended, after result or error. No arguments."""


class Task(QRunnable):
    """A function run once on the thread pool. Connect to ``signals`` before starting it."""

    def __init__(self, fn: Callable[..., Any], *args: Any, **kwargs: Any):
        super().__init__()
        self.fn: Callable[..., Any] | None = fn
        self.args: tuple[Any, ...] = args
        self.kwargs: dict[str, Any] = kwargs
        self.signals = _TaskSignals()
        self.setAutoDelete(True)
        self._stop = threading.Event()
        try:
            parameters = inspect.signature(fn).parameters
        except (TypeError, ValueError):
            parameters = {}  # type: ignore[assignment]
        self._wants_progress = "progress" in parameters
        self._wants_partial = "partial" in parameters
        self._wants_should_stop = "should_stop" in parameters

    def cancel(self) -> None:
        """Ask the task to end early: its ``should_stop`` answers true from now on (a task without it runs on)."""
        self._stop.set()

    def cancelled(self) -> bool:
        """Whether :meth:`cancel` was called."""
        return self._stop.is_set()

    @Slot()
    def run(self) -> None:
        # Take the call out of the task first: a task object may outlive its run (Qt and the caller can hold
        # it), but what it was given must not (issue 14: ten tasks given 50 MB arrays kept 500 MB alive).
        fn, args, kwargs = self.fn, self.args, self.kwargs
        self.fn, self.args, self.kwargs = None, (), {}
        try:
            if fn is None:
                raise RuntimeError("a gpudesk task was run twice")
            if self._wants_progress:
                signals = self.signals
                kwargs["progress"] = lambda message, fraction: signals.progress.emit(str(message), fraction)
            if self._wants_partial:
                kwargs["partial"] = self.signals.partial.emit
            if self._wants_should_stop:
                kwargs["should_stop"] = self._stop.is_set
            value = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - every error is handed to the GUI, never swallowed
            exc.__gpudesk_traceback__ = traceback.format_exc()  # type: ignore[attr-defined]
            exc.__traceback__ = None  # the frames would keep the arguments alive
            del fn, args, kwargs
            self.signals.error.emit(exc)
        else:
            del fn, args, kwargs
            self.signals.result.emit(value)
            del value
        finally:
            self.signals.finished.emit()


class WorkTracker(QObject):
    """The application's count of background tasks in flight, and where unhandled task failures go.

    Signals:
        pendingChanged(int): the number of tasks started and not yet finished.
        unhandled(object): a task failed and its caller gave no ``on_error``; the main window shows it.
    """

    pendingChanged = Signal(int)
    """A task started or finished: the number of tasks started and not yet finished."""
    unhandled = Signal(object)
    """A task failed and its caller gave no on_error: the exception (the main window shows it)."""

    def __init__(self) -> None:
        super().__init__()
        self._pending = 0

    def pending(self) -> int:
        """Tasks started through :func:`run_task` and not yet finished."""
        return self._pending

    def _started(self) -> None:
        self._pending += 1
        self.pendingChanged.emit(self._pending)

    def _finished(self) -> None:
        self._pending = max(0, self._pending - 1)
        self.pendingChanged.emit(self._pending)


_TRACKER: WorkTracker | None = None
_LIVE_TASKS: dict[int, Task] = {}  # started tasks, kept alive until their finished signal reaches the GUI thread
_TASK_KEYS = itertools.count()


def tracker() -> WorkTracker:
    """The one :class:`WorkTracker` (created on first use, from the GUI thread)."""
    global _TRACKER
    if _TRACKER is None:
        _TRACKER = WorkTracker()
    return _TRACKER


def run_task(
    fn: Callable[..., Any],
    *args: Any,
    on_result: Callable[[Any], None] | None = None,
    on_error: Callable[[BaseException], None] | None = None,
    on_progress: Callable[[str, float | None], None] | None = None,
    on_partial: Callable[[Any], None] | None = None,
    on_finished: Callable[[], None] | None = None,
    pool: QThreadPool | None = None,
    **kwargs: Any,
) -> Task:
    """Start ``fn(*args, **kwargs)`` in the background; callbacks run on the GUI thread.

    A failure goes to ``on_error``, or, without one, to :attr:`WorkTracker.unhandled` (a visible message).
    """
    work = tracker()
    task = Task(fn, *args, **kwargs)
    if on_result is not None:
        task.signals.result.connect(on_result)
    task.signals.error.connect(on_error if on_error is not None else work.unhandled.emit)
    if on_progress is not None:
        task.signals.progress.connect(on_progress)
    if on_partial is not None:
        task.signals.partial.connect(on_partial)
    if on_finished is not None:
        task.signals.finished.connect(on_finished)
    # The caller may drop the returned Task; without a reference its signals object could be collected
    # before the result is delivered. The slot holds a key, not the task, so no reference cycle through
    # Qt's connection keeps a finished task alive. Connected last, so it runs after the caller's own slots.
    key = next(_TASK_KEYS)
    _LIVE_TASKS[key] = task
    task.signals.finished.connect(lambda: _task_done(key))
    work._started()
    (pool or QThreadPool.globalInstance()).start(task)
    return task


def _task_done(key: int) -> None:
    _LIVE_TASKS.pop(key, None)
    tracker()._finished()


class ThreadWorker(QObject):
    """Base for long-lived workers: create timers and connections in :meth:`setup`, in the worker thread.

    Usage: ``worker = MyWorker(); thread = start_worker(worker)``; stop with :func:`stop_worker`.
    An exception from ``setup`` or ``teardown`` is emitted as ``failed`` (the exception), never lost.
    """

    failed = Signal(object)
    """The worker's setup, teardown or its own work in the thread raised: the exception."""

    @Slot()
    def _run_setup(self) -> None:
        # Connected to QThread.started. A Python override of a decorated slot in a subclass is not always
        # dispatched as a queued slot by PySide6, so the base-class slot calls the override from here, which
        # is guaranteed to run in the worker thread.
        try:
            self.setup()
        except Exception as exc:  # noqa: BLE001 - reported to the GUI through `failed`
            self.failed.emit(exc)

    def setup(self) -> None:
        """Called in the worker thread once it starts. Override to create timers and connections."""

    @Slot()
    def _run_teardown(self) -> None:
        try:
            self.teardown()
        except Exception as exc:  # noqa: BLE001 - reported to the GUI through `failed`
            self.failed.emit(exc)

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
    QMetaObject.invokeMethod(worker, "_run_teardown", Qt.ConnectionType.BlockingQueuedConnection)
    thread.quit()
    return thread.wait(timeout_ms)
