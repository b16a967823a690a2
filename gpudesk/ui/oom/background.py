"""Background work for the OOM doctor through :func:`gpudesk.ui.workers.run_task`, kept alive until done.

``run_task`` hands its ``Task`` to Qt's thread pool, which deletes the runnable after ``run``; the Task's
``signals`` object lives only as long as the Python Task does. A caller that drops the returned Task can
therefore lose the queued result. :func:`run_in_background` keeps a reference until ``finished`` has been
delivered on the GUI thread, then releases it on the next event-loop turn.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QTimer

from gpudesk.ui.workers import Task, run_task

_running: set[Task] = set()


def run_in_background(
    fn: Callable[..., Any],
    *args: Any,
    on_result: Callable[[Any], None] | None = None,
    on_error: Callable[[BaseException], None] | None = None,
    on_finished: Callable[[], None] | None = None,
    **kwargs: Any,
) -> Task:
    """``run_task(fn, *args, ...)`` whose callbacks are guaranteed to be delivered (see module docstring)."""
    holder: list[Task] = []

    def finished() -> None:
        if on_finished is not None:
            on_finished()
        QTimer.singleShot(0, lambda: _running.discard(holder[0]) if holder else None)

    task = run_task(fn, *args, on_result=on_result, on_error=on_error, on_finished=finished, **kwargs)
    holder.append(task)
    _running.add(task)
    return task


def running_count() -> int:
    """Tasks started here whose ``finished`` has not been delivered yet (tests use it to wait)."""
    return len(_running)
