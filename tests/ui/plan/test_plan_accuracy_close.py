"""qa19: closing the "How accurate is this?" dialog while the speed check is inside a slow run returns at once: the
check is told to stop and ends on its own thread, and what it hands over afterwards reaches nothing of the dialog,
even once the dialog is deleted. The fake stands at the worker's own boundary (``check_speed_sets``, which the
dialog's task calls), not at the model."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from shiboken6 import isValid

from gpudesk.errors import GpudeskError
from gpudesk.ui.plan import accuracy_view
from gpudesk.ui.plan.accuracy_view import AccuracyDialog, speed_pool
from gpudesk.ui.workers import tracker


def test_close_returns_while_a_run_is_in_progress_and_later_results_touch_nothing(qtbot, monkeypatch):
    in_slow_run = threading.Event()
    release = threading.Event()
    ended: list[str] = []

    def slow_check(on_set: Callable[..., None], should_stop: Callable[[], bool]) -> Any:
        on_set("dev", 1, 3, [])
        in_slow_run.set()
        # One run that takes long and looks at should_stop only at its end (a row boundary): held by the test.
        release.wait(30)
        on_set("later", 2, 3, [])  # handed over after the dialog is gone
        ended.append("stopped" if should_stop() else "ran on")
        return None

    def no_memory_check() -> Any:
        raise GpudeskError("memory check left out of this test")

    monkeypatch.setattr(accuracy_view, "check_speed_sets", slow_check)
    monkeypatch.setattr(accuracy_view, "load_accuracy", no_memory_check)
    unhandled: list[BaseException] = []
    tracker().unhandled.connect(unhandled.append)
    dialog = AccuracyDialog(method="full")
    dialog.load()
    dialog.show()
    qtbot.waitUntil(lambda: "memory check left out" in dialog.view.headline.text(), timeout=10000)
    assert in_slow_run.wait(10)
    task = dialog.speed_task
    assert task is not None
    try:
        dialog.close()  # before the fix: waits on the GUI thread until the run ends (here: until released)
        assert not dialog.isVisible()
        assert not release.is_set() and ended == []  # closed while the run goes on
        assert task.cancelled()
        dialog.deleteLater()
        qtbot.waitUntil(lambda: not isValid(dialog), timeout=5000)
    finally:
        release.set()
    qtbot.waitUntil(lambda: speed_pool().activeThreadCount() == 0, timeout=30000)
    qtbot.wait(50)  # the check's last signals reach the GUI thread: nothing may take them to the deleted dialog
    assert ended == ["stopped"]
    assert unhandled == []
    tracker().unhandled.disconnect(unhandled.append)


def test_a_failure_after_closing_still_reaches_the_message_bar(qtbot, monkeypatch):
    release = threading.Event()
    started = threading.Event()

    def failing_check(on_set: Callable[..., None], should_stop: Callable[[], bool]) -> Any:
        started.set()
        release.wait(30)
        raise GpudeskError("the kept sets could not be read")

    monkeypatch.setattr(accuracy_view, "check_speed_sets", failing_check)
    monkeypatch.setattr(accuracy_view, "load_accuracy", lambda: (_ for _ in ()).throw(GpudeskError("left out")))
    unhandled: list[BaseException] = []
    tracker().unhandled.connect(unhandled.append)
    dialog = AccuracyDialog()
    qtbot.addWidget(dialog)
    dialog.load()
    dialog.show()
    assert started.wait(10)
    qtbot.waitUntil(lambda: "left out" in dialog.view.headline.text(), timeout=10000)
    dialog.close()
    release.set()
    qtbot.waitUntil(lambda: len(unhandled) == 1, timeout=30000)
    assert "could not be read" in str(unhandled[0])
    assert "could not be read" not in dialog.view.speed_headline.text()
    tracker().unhandled.disconnect(unhandled.append)


def test_a_memory_check_failing_after_closing_reaches_the_message_bar(qtbot, monkeypatch):
    # review10: the memory check's failure went to the closed (hidden) dialog's view, where nobody saw it.
    release = threading.Event()
    started = threading.Event()

    def failing_memory_check() -> Any:
        started.set()
        release.wait(30)
        raise GpudeskError("the measured peaks could not be read")

    def quick_speed_check(on_set: Callable[..., None], should_stop: Callable[[], bool]) -> Any:
        return None

    monkeypatch.setattr(accuracy_view, "check_speed_sets", quick_speed_check)
    monkeypatch.setattr(accuracy_view, "load_accuracy", failing_memory_check)
    unhandled: list[BaseException] = []
    tracker().unhandled.connect(unhandled.append)
    try:
        dialog = AccuracyDialog()
        qtbot.addWidget(dialog)
        dialog.load()
        dialog.show()
        assert started.wait(10)
        dialog.close()
        release.set()
        qtbot.waitUntil(lambda: len(unhandled) == 1, timeout=30000)
        assert "could not be read" in str(unhandled[0])
        assert "could not be read" not in dialog.view.headline.text()
    finally:
        release.set()
        tracker().unhandled.disconnect(unhandled.append)
