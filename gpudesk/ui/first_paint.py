"""Notice the main window's first paint: used by ``gpudesk --self-test`` and by ``GPUDESK_EXIT_AFTER_PAINT``.

``GPUDESK_EXIT_AFTER_PAINT=1 gpudesk`` opens the window as usual, and right after the window has been painted
for the first time prints ``gpudesk: first paint at <unix time in seconds>`` to stderr; it then quits with
status 0 as soon as the start-up work that follows the first paint (``window.startup``, see
gpudesk/ui/startup.py: charts, user store) has finished, so a timing run also exercises that work.
It is a documented measuring option (packaging/measure_startup.py uses it to compare the start-up time of the
bundle against the pip-installed app); it changes nothing when the variable is unset.
"""

from __future__ import annotations

import os
import sys
import time

from PySide6.QtCore import QEvent, QObject, QTimer, Signal
from PySide6.QtWidgets import QApplication, QWidget

ENV_EXIT_AFTER_PAINT = "GPUDESK_EXIT_AFTER_PAINT"


class FirstPaintWatcher(QObject):
    """Emits ``painted(unix_time_s)`` once, after the watched widget's first Paint event has been handled."""

    painted = Signal(float)
    """Once, after the watched widget's first paint: the time it was handled (Unix time, s)."""

    def __init__(self, widget: QWidget):
        super().__init__(widget)
        self.painted_at: float | None = None
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if self.painted_at is None and event.type() == QEvent.Type.Paint:
            watched.removeEventFilter(self)
            # Queue the signal so it fires after this paint (and the backing-store flush) has completed.
            QTimer.singleShot(0, self._emit)
        return False

    def _emit(self) -> None:
        self.painted_at = time.time()
        self.painted.emit(self.painted_at)


def exit_after_first_paint_requested() -> bool:
    """True when ``GPUDESK_EXIT_AFTER_PAINT`` is set to a non-empty value other than ``0``."""
    return os.environ.get(ENV_EXIT_AFTER_PAINT, "") not in ("", "0")


def quit_after_first_paint(app: QApplication, window: QWidget) -> FirstPaintWatcher:
    """Report the first paint of ``window`` on stderr, then quit ``app`` (exit status 0) once the window's
    post-paint start-up (``window.startup``, when it has one) is done."""
    watcher = FirstPaintWatcher(window)

    def _quit() -> None:
        window.close()
        app.quit()

    def _done(when: float) -> None:
        print(f"gpudesk: first paint at {when:.6f}", file=sys.stderr, flush=True)
        startup = getattr(window, "startup", None)
        if startup is not None and not startup.done:
            startup.finished.connect(_quit)
        else:
            _quit()

    watcher.painted.connect(_done)
    return watcher
