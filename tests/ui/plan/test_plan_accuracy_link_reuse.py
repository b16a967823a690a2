"""qa22: each click of "How accurate is this?" made a new dialog and kept every closed one: a second click raises
the open dialog, a closed one is deleted, and the next click opens a fresh one. The checks stand at the worker's
own boundary (``check_speed_sets`` / ``load_accuracy``), failing at once so no task outlives the test."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QWidget
from shiboken6 import isValid

from gpudesk.errors import GpudeskError
from gpudesk.ui.plan import accuracy_view
from gpudesk.ui.plan.accuracy_view import AccuracyDialog, AccuracyLink, speed_pool
from gpudesk.ui.workers import tracker


def test_second_click_raises_the_open_dialog_and_a_closed_one_is_deleted(qtbot, monkeypatch):
    def no_speed_check(on_set: Callable[..., None], should_stop: Callable[[], bool]) -> Any:
        raise GpudeskError("speed check left out of this test")

    def no_memory_check() -> Any:
        raise GpudeskError("memory check left out of this test")

    monkeypatch.setattr(accuracy_view, "check_speed_sets", no_speed_check)
    monkeypatch.setattr(accuracy_view, "load_accuracy", no_memory_check)
    window = QWidget()
    qtbot.addWidget(window)
    link = AccuracyLink(window, method="full")
    link.click()
    first = link.dialog
    assert first is not None and first.isVisible()
    qtbot.waitUntil(lambda: "speed check left out" in first.view.speed_headline.text()
                    and "memory check left out" in first.view.headline.text(), timeout=10000)
    link.click()
    assert link.dialog is first and len(window.findChildren(AccuracyDialog)) == 1
    unhandled: list[BaseException] = []
    tracker().unhandled.connect(unhandled.append)
    try:
        first.close()
        qtbot.waitUntil(lambda: not isValid(first), timeout=5000)
        assert window.findChildren(AccuracyDialog) == []
        link.click()
        second = link.dialog
        assert second is not None and isValid(second) and second.isVisible()
        assert window.findChildren(AccuracyDialog) == [second]
        qtbot.waitUntil(lambda: "speed check left out" in second.view.speed_headline.text()
                        and "memory check left out" in second.view.headline.text(), timeout=10000)
        second.close()
        qtbot.waitUntil(lambda: not isValid(second), timeout=5000)
        qtbot.waitUntil(lambda: speed_pool().activeThreadCount() == 0, timeout=10000)
        qtbot.wait(50)
        assert unhandled == []  # both dialogs' failures were shown in them, none left over
    finally:
        tracker().unhandled.disconnect(unhandled.append)
