"""An exception nobody catches in the UI becomes a visible message (gpudesk.ui.error_report)."""

from __future__ import annotations

import sys
import threading

from gpudesk.store.errors import StoreUnwritableError
from gpudesk.ui.error_report import install_excepthook


def test_unhandled_exceptions_from_the_gui_and_other_threads_reach_the_message_bar(qtbot, monkeypatch):
    shown, printed = [], []
    # The hooks before ours (pytest's own would fail the test on purpose): they must still be called.
    monkeypatch.setattr(sys, "excepthook", lambda kind, exc, tb: printed.append(kind))
    monkeypatch.setattr(threading, "excepthook", lambda args: printed.append(args.exc_type))
    before = sys.excepthook
    restore = install_excepthook(lambda text, level: shown.append((level, text)))
    try:
        try:
            raise StoreUnwritableError("Cannot write /nowhere/gpudesk.db.", remedy="Set GPUDESK_DATA_DIR.")
        except StoreUnwritableError:
            sys.excepthook(*sys.exc_info())
        qtbot.waitUntil(lambda: len(shown) == 1, timeout=2000)
        thread = threading.Thread(target=lambda: 1 / 0)
        thread.start()
        thread.join()
        qtbot.waitUntil(lambda: len(shown) == 2, timeout=2000)
    finally:
        restore()
    assert shown[0][0] == "error" and "Cannot write /nowhere/gpudesk.db. Set GPUDESK_DATA_DIR." in shown[0][1]
    assert "ZeroDivisionError" in shown[1][1]
    assert printed == [StoreUnwritableError, ZeroDivisionError]  # the previous hooks still got them
    assert sys.excepthook is before
