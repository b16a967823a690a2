"""Start-up work that waits for the main window's first paint (issue 2: start-up time).

The window paints first with its frame only: menus, message bar and tab bar (issue 15: the first paint costs at
most 1.5x a bare QMainWindow's). The main window adds its own steps before the chart step: the catalog opens
and the open tab is built (its module imported on the thread pool first). Then, on the thread pool
(:func:`gpudesk.ui.workers.run_task`), the slow imports run one step at a time — numpy and pyqtgraph for the charts, then sqlite-utils and the store modules — and after each step the GUI
thread does the quick part: the charts built during start-up get their plots (:func:`when_charts_ready`),
then the user store opens and the tabs are told (``store_opened()``). The GUI thread is never blocked by an
import; it only builds the plots and opens the database, each a few tens of milliseconds.

Anything that needs a deferred service earlier calls :func:`finish_startup`, which does the remaining steps
at once on the GUI thread (waiting for an import already under way rather than repeating it). Without a
pending start-up (tests, dialogs built on their own) :func:`when_charts_ready` runs its callback at once.
"""

from __future__ import annotations

import importlib
import threading
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QObject, QThreadPool, QTimer, Signal
from shiboken6 import Shiboken

CHART_MODULES: tuple[str, ...] = ("numpy", "pyqtgraph")
#: ``gpudesk.store`` and the modules that register migration sets (see gpudesk.store.db._import_feature_sets).
STORE_MODULES: tuple[str, ...] = (
    "gpudesk.store",
    "gpudesk.store.prices",
    "gpudesk.store.plans",
    "gpudesk.store.recordings",
    "gpudesk.store.diagnoses",
)

_current: weakref.ref[Startup] | None = None
_LIVE_TASKS: set = set()  # import tasks not yet finished (see Startup._next)


def import_modules(names: Sequence[str], stop: threading.Event | None = None) -> list[str]:
    """Import ``names`` in order (a worker-thread job); returns the ones imported.

    A module that does not exist at all is skipped (a build may leave out a feature's store module); any
    other import error propagates. Stops early when ``stop`` is set.
    """
    done = []
    for name in names:
        if stop is not None and stop.is_set():
            break
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        done.append(name)
    return done


@dataclass
class _Step:
    name: str
    modules: tuple[str, ...]
    run: Callable[[], None]


class Startup(QObject):
    """The deferred start-up steps of one main window, run in order by :meth:`begin` or :meth:`finish_now`.

    A step is (name, modules, run): ``modules`` are imported on the thread pool, then ``run()`` is called on
    the GUI thread. A step whose ``run`` raises is reported through ``report(text)``; the others still run.

    Signals:
        finished(): every step has run (also emitted by :meth:`finish_now`); :attr:`done` is then True.
    """

    finished = Signal()
    """Every deferred start-up step has run (also after finish_now); done is then True. No arguments."""

    def __init__(self, report: Callable[[str], None], parent: QObject | None = None):
        super().__init__(parent)
        self._report = report
        self._steps: list[_Step] = []
        self._chart_callbacks: list[tuple[QObject | None, Callable[[], None]]] = []
        self.charts_ready = False
        self.started = False
        self.done = False
        self.ran: list[str] = []  # names of the steps run, in order (for tests and the self-test)
        self._running: _Step | None = None
        self._pool = QThreadPool(self)  # its own pool: stop() waits for this work only
        self._pool.setMaxThreadCount(1)
        self._idle = threading.Event()
        self._idle.set()
        self._stop = threading.Event()
        self.add_step("charts", CHART_MODULES, self._charts_ready)

    # -- set-up -------------------------------------------------------------------------------------------
    def add_step(self, name: str, modules: Sequence[str], run: Callable[[], None], before: str | None = None) -> None:
        """Add a step at the end, or just before the step named ``before`` (at the end if there is none)."""
        step = _Step(name, tuple(modules), run)
        names = [s.name for s in self._steps]
        self._steps.insert(names.index(before) if before in names else len(self._steps), step)

    def activate(self) -> None:
        """Make this the pending start-up that :func:`when_charts_ready` and :func:`finish_startup` use."""
        global _current
        _current = weakref.ref(self)

    def when_charts_ready(self, callback: Callable[[], None], owner: QObject | None = None) -> None:
        if self.charts_ready:
            callback()
        else:
            self._chart_callbacks.append((owner, callback))

    # -- running ------------------------------------------------------------------------------------------
    def begin(self) -> None:
        """Start the steps in the background (call once the window has painted). Idempotent."""
        if self.started:
            return
        self.started = True
        self._next()

    def _next(self) -> None:
        if self.done or self._running is not None:
            return
        if not self._steps:
            self._finish()
            return
        from gpudesk.ui.workers import run_task

        step = self._steps[0]
        self._running = step
        self._idle.clear()
        # Keep the task alive (beyond this window, which may close first) until its last signal has been
        # delivered: its signals object lives only as long as the Python Task does.
        task = run_task(self._import_job, step.modules, on_result=lambda _names: self._imported(step),
                        on_error=lambda exc: self._import_failed(step, exc), pool=self._pool)
        _LIVE_TASKS.add(task)
        task.signals.finished.connect(lambda: QTimer.singleShot(0, lambda: _LIVE_TASKS.discard(task)))

    def _import_job(self, modules: tuple[str, ...]) -> list[str]:
        try:
            return import_modules(modules, self._stop)
        finally:
            self._idle.set()

    def _imported(self, step: _Step) -> None:
        if self._running is step:
            self._running = None
        if step in self._steps:  # not already run by finish_now
            self._steps.remove(step)
            self._run(step)
        self._next()

    def _import_failed(self, step: _Step, exc: BaseException) -> None:
        # The GUI-thread part imports the same modules itself and reports the failure with its context.
        self._imported(step)

    def _run(self, step: _Step) -> None:
        try:
            step.run()
        except Exception as exc:  # noqa: BLE001 - a failed step is reported; the window and later steps go on
            self._report(self.tr("Start-up step “{0}” failed: {1}").format(step.name, f"{type(exc).__name__}: {exc}"))
        self.ran.append(step.name)

    def run_now(self, name: str | None = None) -> None:
        """Run the remaining steps, or only the step ``name``, now on the GUI thread. An import under way
        is waited for, not repeated; a step already run is not run again."""
        if self.done:
            return
        self._idle.wait()
        for step in [s for s in self._steps if name in (None, s.name)]:
            self._steps.remove(step)
            self._run(step)
        if not self._steps and self._running is None:
            self._finish()

    def finish_now(self) -> None:
        """Run every remaining step now (see :meth:`run_now`)."""
        self.run_now(None)

    def stop(self, timeout_s: float = 10.0) -> None:
        """Drop the remaining steps (the window is closing) and wait for an import under way to end."""
        self._stop.set()
        self._steps.clear()
        self._chart_callbacks.clear()
        self._pool.waitForDone(int(timeout_s * 1000))  # the task has emitted its last signal when this returns
        self._running = None
        self._finish()

    def _finish(self) -> None:
        if self.done:
            return
        self.done = True
        global _current
        if _current is not None and _current() is self:
            _current = None
        self.finished.emit()

    def _charts_ready(self) -> None:
        import pyqtgraph  # noqa: F401 - imported in the background already; a failure surfaces here

        self.charts_ready = True
        callbacks, self._chart_callbacks = self._chart_callbacks, []
        for owner, callback in callbacks:
            if owner is None or Shiboken.isValid(owner):  # skip widgets deleted in the meantime
                callback()


def pending() -> Startup | None:
    """The main window's start-up still under way, or None."""
    startup = _current() if _current is not None else None
    if startup is None or startup.done or not Shiboken.isValid(startup):
        return None
    return startup


def when_charts_ready(callback: Callable[[], None], owner: QObject | None = None) -> None:
    """Call ``callback`` (on the GUI thread) once pyqtgraph may be used without slowing the first paint:
    after the window's first paint and the background import when a start-up is pending, otherwise now.
    The call is dropped when ``owner`` (the widget the callback draws into) has been deleted by then."""
    startup = pending()
    if startup is None:
        callback()
    else:
        startup.when_charts_ready(callback, owner)


def finish_startup(step: str | None = None) -> None:
    """Do a pending start-up's remaining steps now (or only ``step``: "charts" or "store"), so that e.g. the
    user store is open when this returns. Nothing when no start-up is pending."""
    startup = pending()
    if startup is not None:
        startup.run_now(step)
