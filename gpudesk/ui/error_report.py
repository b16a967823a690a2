"""Unhandled exceptions become visible messages, never a silent stop.

:func:`install_excepthook` replaces ``sys.excepthook`` (where PySide6 also sends exceptions raised in slots and
virtual overrides) and ``threading.excepthook``: the traceback still goes to the previous hook (stderr), and a
one-line message is handed to ``show(text, "error")`` on the GUI thread through a queued signal, so a worker
thread's exception is shown safely too.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from types import TracebackType

from PySide6.QtCore import QCoreApplication, QObject, Qt, Signal

from gpudesk.ui.workers import failure_text


class ErrorReporter(QObject):
    """Carries an unhandled exception's message to the GUI thread (``message(str)``, queued)."""

    message = Signal(str)
    """An unhandled exception was reported (from any thread, delivered queued): the sentence to show."""

    def __init__(self, show: Callable[[str, str], None]):
        super().__init__()
        self._show = show
        self.message.connect(self._deliver, Qt.ConnectionType.QueuedConnection)

    def _deliver(self, text: str) -> None:
        self._show(text, "error")

    def report(self, exc: BaseException) -> None:
        """Queue ``exc``'s message for the GUI thread (safe from any thread)."""
        what = QCoreApplication.translate("ErrorReport", "Something went wrong and the last action stopped: {0}")
        self.message.emit(what.format(failure_text(exc)))


def install_excepthook(show: Callable[[str, str], None]) -> Callable[[], None]:
    """Show every unhandled exception through ``show``; returns a function that restores the previous hooks."""
    reporter = ErrorReporter(show)
    previous = sys.excepthook
    previous_thread = threading.excepthook

    def hook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        previous(kind, exc, tb)
        if not isinstance(exc, KeyboardInterrupt):
            reporter.report(exc)

    def thread_hook(args: threading.ExceptHookArgs) -> None:
        previous_thread(args)
        if args.exc_value is not None and not isinstance(args.exc_value, SystemExit):
            reporter.report(args.exc_value)

    sys.excepthook = hook
    threading.excepthook = thread_hook

    def restore() -> None:
        sys.excepthook = previous
        threading.excepthook = previous_thread
        reporter.deleteLater()

    return restore
