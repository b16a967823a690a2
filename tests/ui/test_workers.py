"""The one background-work pattern: results, errors and progress reach the GUI thread; a ThreadWorker's
setup() and teardown() run in its own thread."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QTimer

from gpudesk.ui.workers import ThreadWorker, run_task, start_worker, stop_worker


def test_run_task_delivers_result_and_progress_on_gui_thread(qtbot):
    gui = threading.get_ident()
    seen = {}

    def work(n, progress):
        seen["thread"] = threading.get_ident()
        for i in range(n):
            progress(i + 1, n, f"step {i + 1}")
        return n * 2

    progress = []
    result = []
    with qtbot.waitSignal(run_task(work, 3, on_result=result.append,
                                   on_progress=lambda d, t, s: progress.append((d, t, s, threading.get_ident()))
                                   ).signals.finished, timeout=5000):
        pass
    qtbot.waitUntil(lambda: result == [6], timeout=2000)
    assert seen["thread"] != gui
    assert [p[:3] for p in progress] == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]
    assert all(p[3] == gui for p in progress)


def test_run_task_hands_errors_to_the_gui(qtbot):
    errors = []

    def boom():
        raise ValueError("bad input: samples must be positive")

    task = run_task(boom, on_error=errors.append)
    qtbot.waitUntil(lambda: len(errors) == 1, timeout=5000)
    assert isinstance(errors[0], ValueError)
    assert "bad input" in str(errors[0])
    assert "Traceback" in errors[0].__gpudesk_traceback__
    del task


class _Ticker(ThreadWorker):
    def __init__(self):
        super().__init__()
        self.setup_thread = None
        self.teardown_thread = None
        self.ticks = 0

    def setup(self) -> None:
        self.setup_thread = threading.get_ident()
        self.timer = QTimer()
        self.timer.timeout.connect(self._tick)
        self.timer.start(5)

    def _tick(self) -> None:
        self.ticks += 1

    def teardown(self) -> None:
        self.teardown_thread = threading.get_ident()
        self.timer.stop()


@pytest.mark.parametrize("round_", [1, 2])
def test_thread_worker_sets_up_and_tears_down_in_its_thread(qtbot, round_):
    worker = _Ticker()
    start_worker(worker)
    qtbot.waitUntil(lambda: worker.ticks >= 3, timeout=5000)
    assert worker.setup_thread not in (None, threading.get_ident())
    assert stop_worker(worker)
    assert worker.teardown_thread == worker.setup_thread


def test_dropped_tasks_still_deliver_their_results(qtbot):
    import gc

    results = []
    for i in range(20):
        run_task(lambda n=i: n, on_result=results.append)  # the returned Task is dropped at once
    gc.collect()
    qtbot.waitUntil(lambda: len(results) == 20, timeout=5000)
    assert sorted(results) == list(range(20))
