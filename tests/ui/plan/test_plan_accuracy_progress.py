"""The "How accurate is this?" dialog fills its speed table set by set, says which set it is checking, and closing
it mid-check tells the check's thread to stop. The set table is cut to a few small real sets (real predictions)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from gpudesk.sizing import speed_validation as sv
from gpudesk.ui.plan.accuracy_view import AccuracyDialog, speed_pool


def _use_sets(monkeypatch, sets: dict[str, tuple[str, ...]]) -> None:
    monkeypatch.setattr(sv, "SET_FILES", sets)
    monkeypatch.setattr(sv, "_EVALUATED", {})  # predicted again, not taken from an earlier test's check


def _recording_dialog(qtbot, monkeypatch) -> tuple[AccuracyDialog, list[dict[str, Any]], list[Any]]:
    dialog = AccuracyDialog(method="full")
    qtbot.addWidget(dialog)
    # The memory check runs beside the speed check: each test waits for it, so no task outlives its test.
    memory_done: list[Any] = []
    dialog.view.set_report = lambda report, show=dialog.view.set_report: (show(report), memory_done.append(1))
    dialog.memory_done = memory_done  # type: ignore[attr-defined]
    view = dialog.view
    seen: list[dict[str, Any]] = []
    finished: list[Any] = []
    add, finish = view.add_speed_set, view.finish_speed

    def record(part):
        add(part)
        seen.append({"set": part[0], "rows": view.speed_table.rowCount(), "status": view.speed_status.text(),
                     "progress": (view.speed_progress.value(), view.speed_progress.maximum()),
                     "busy": view.speed_progress.isVisible()})

    def record_finish(check):
        finish(check)
        finished.append(check)

    monkeypatch.setattr(view, "add_speed_set", record)
    monkeypatch.setattr(view, "finish_speed", record_finish)
    return dialog, seen, finished


def test_speed_table_fills_set_by_set_with_progress(qtbot, monkeypatch):
    sets = ("fresh6", "fresh11", "fresh18")
    _use_sets(monkeypatch, {name: sv.SET_FILES[name] for name in sets})
    expected = {name: sv.speed_set_class_rows(name) for name in sets}
    monkeypatch.setattr(sv, "_EVALUATED", {})
    dialog, seen, finished = _recording_dialog(qtbot, monkeypatch)
    dialog.load()
    dialog.show()
    assert dialog.view.speed_status.text() == "Checking the speed model: set 1 of 3"
    qtbot.waitUntil(lambda: len(finished) == 1, timeout=120000)
    assert [s["set"] for s in seen] == list(sets)
    counts = [s["rows"] for s in seen]
    assert counts == [len(expected["fresh6"]), len(expected["fresh6"]) + len(expected["fresh11"]),
                      sum(len(rows) for rows in expected.values())]
    assert [s["status"] for s in seen] == ["Checking the speed model: set 2 of 3",
                                           "Checking the speed model: set 3 of 3", ""]
    assert [s["progress"] for s in seen[:2]] == [(1, 3), (2, 3)]
    assert [s["busy"] for s in seen] == [True, True, False]
    assert finished[0] is not None and finished[0].rows == [r for name in sets for r in expected[name]]
    table = dialog.view.speed_table
    assert table.item(0, 0).text() == "sixth fresh (collected after the model was frozen a sixth time)"
    assert table.item(table.rowCount() - 1, 0).text() == (
        "eighteenth fresh (collected after the model was frozen an eighteenth time)")
    qtbot.waitUntil(lambda: bool(dialog.memory_done), timeout=30000)
    dialog.close()


def test_second_opening_is_filled_from_the_kept_summary(qtbot, monkeypatch):
    _use_sets(monkeypatch, {"fresh6": sv.SET_FILES["fresh6"]})
    first, _seen, finished = _recording_dialog(qtbot, monkeypatch)
    first.load()
    qtbot.waitUntil(lambda: len(finished) == 1 and bool(first.memory_done), timeout=120000)
    first.close()

    def no_prediction(*_args):
        raise AssertionError("the kept summary should have been used")

    monkeypatch.setattr(sv, "speed_set_class_rows", no_prediction)
    second, _seen2, finished2 = _recording_dialog(qtbot, monkeypatch)
    second.load()
    qtbot.waitUntil(lambda: len(finished2) == 1 and bool(second.memory_done), timeout=30000)
    assert finished2[0] is not None and finished2[0].rows == finished[0].rows
    assert second.view.speed_table.rowCount() == len(finished[0].rows)
    second.close()


@pytest.mark.parametrize("how", ["close", "escape"])
def test_closing_mid_check_stops_its_thread(qtbot, monkeypatch, how):
    # A small set first, then sets of many serving runs (minutes together): the dialog is closed right after the
    # first set is shown.
    _use_sets(monkeypatch, {"fresh6": sv.SET_FILES["fresh6"], "later": sv.SET_FILES["later"],
                            "fresh23": sv.SET_FILES["fresh23"], "fresh24": sv.SET_FILES["fresh24"]})
    # The sets after the first are held until the check is told to stop, as a slow set would be: the speed model
    # checks these sets in seconds now, so without this the check could finish before the dialog closes.
    real = sv.speed_set_class_rows

    def held_after_first(set_name, should_stop=None):
        if set_name != "fresh6":
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                if should_stop is not None and should_stop():
                    return None
                time.sleep(0.01)
        return real(set_name, should_stop)

    monkeypatch.setattr(sv, "speed_set_class_rows", held_after_first)
    dialog, seen, finished = _recording_dialog(qtbot, monkeypatch)
    dialog.load()
    dialog.show()
    # Closed as soon as the first set is shown (the next one takes seconds). Not "and the memory check is done": on a
    # loaded machine the memory check outlasts the second set, len(seen) passes 1 and the wait never ends.
    qtbot.waitUntil(lambda: len(seen) >= 1, timeout=120000)
    task = dialog.speed_task
    assert task is not None
    if how == "close":
        dialog.close()
    else:
        qtbot.keyClick(dialog, "\x1b")  # Escape rejects the dialog
    assert not dialog.isVisible()
    assert dialog.speed_task is None and task.cancelled()
    # The check ends on its own thread (qa19: closing does not wait for it), and nothing of it reaches the dialog.
    qtbot.waitUntil(lambda: speed_pool().activeThreadCount() == 0, timeout=60000)
    qtbot.wait(50)  # its last signals, queued to the GUI thread, are delivered (to nothing)
    assert finished == []
    assert [s["set"] for s in seen] == ["fresh6"]
    assert dialog.view.speed_table.rowCount() == seen[0]["rows"]
    qtbot.waitUntil(lambda: bool(dialog.memory_done), timeout=120000)  # no task outlives the test
