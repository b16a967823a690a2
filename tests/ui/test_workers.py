"""The one background-work pattern: results, errors and progress reach the GUI thread; a ThreadWorker's
setup() and teardown() run in its own thread."""

from __future__ import annotations

import gc
import threading
import weakref

import pytest
from PySide6.QtCore import QTimer

from gpudesk.errors import GpudeskError
from gpudesk.ui.workers import ThreadWorker, failure_text, run_task, start_worker, stop_worker, tracker


def test_run_task_delivers_result_and_progress_on_gui_thread(qtbot):
    gui = threading.get_ident()
    seen = {}

    def work(n, progress):
        seen["thread"] = threading.get_ident()
        for i in range(n):
            progress(f"step {i + 1}", (i + 1) / n)
        return n * 2

    progress = []
    result = []
    # Wait on the delivered result itself: a waitSignal connected after run_task() started could miss a
    # finished signal emitted before it connected (the old version of this test was flaky for that reason).
    run_task(work, 3, on_result=result.append,
             on_progress=lambda message, fraction: progress.append((message, fraction, threading.get_ident())))
    qtbot.waitUntil(lambda: result == [6] and len(progress) == 3, timeout=5000)
    assert seen["thread"] != gui
    assert [p[:2] for p in progress] == [("step 1", 1 / 3), ("step 2", 2 / 3), ("step 3", 1.0)]
    assert all(p[2] == gui for p in progress)


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



def test_run_task_hands_partial_results_to_the_gui_and_stops_when_cancelled(qtbot):
    gui = threading.get_ident()
    started = threading.Event()
    partials: list[tuple[int, int]] = []
    result: list[object] = []

    def work(partial, should_stop):
        done = 0
        while not should_stop():
            done += 1
            partial(done)
            started.set()
            threading.Event().wait(0.01)
        return ("stopped after", done)

    task = run_task(work, on_partial=lambda value: partials.append((value, threading.get_ident())),
                    on_result=result.append)
    assert started.wait(5)
    assert not task.cancelled()
    task.cancel()
    assert task.cancelled()
    qtbot.waitUntil(lambda: len(result) == 1, timeout=5000)
    stopped_after = result[0][1]  # type: ignore[index]
    qtbot.waitUntil(lambda: len(partials) == stopped_after, timeout=5000)
    assert [p[0] for p in partials] == list(range(1, stopped_after + 1))
    assert all(p[1] == gui for p in partials)


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


class _Payload:
    """Stands for a large array handed to a task (weak-referenceable)."""

    def __init__(self) -> None:
        self.data = bytearray(1_000_000)


def test_finished_tasks_do_not_keep_their_arguments_or_results_alive(qtbot):
    # Issue 14: ten tasks given 50 MB arrays kept 500 MB alive after they finished.
    arguments, results, tasks = [], [], []
    done = []
    for _ in range(10):
        payload = _Payload()
        arguments.append(weakref.ref(payload))
        tasks.append(run_task(lambda p: _Payload(), payload, on_result=lambda r: (results.append(weakref.ref(r)), done.append(1))))
        del payload
    qtbot.waitUntil(lambda: len(done) == 10, timeout=5000)
    qtbot.wait(50)  # let the finished signals reach the GUI thread
    gc.collect()
    assert all(ref() is None for ref in arguments)
    assert all(ref() is None for ref in results)


def test_a_failed_task_without_on_error_reaches_the_tracker(qtbot):
    def boom():
        raise KeyError("gpu_index")

    with qtbot.waitSignal(tracker().unhandled, timeout=5000) as blocker:
        run_task(boom)
    assert isinstance(blocker.args[0], KeyError)
    assert failure_text(blocker.args[0]) == "KeyError: 'gpu_index'"


def test_base_exceptions_are_reported_too(qtbot):
    errors = []

    def leaves():
        raise SystemExit(3)

    run_task(leaves, on_error=errors.append)
    qtbot.waitUntil(lambda: len(errors) == 1, timeout=5000)
    assert isinstance(errors[0], SystemExit)


def test_pending_work_is_counted_in_one_place(qtbot):
    release = threading.Event()
    counts = []
    tracker().pendingChanged.connect(counts.append)
    try:
        before = tracker().pending()
        run_task(lambda: release.wait(5))
        run_task(lambda: release.wait(5))
        assert tracker().pending() == before + 2
        release.set()
        qtbot.waitUntil(lambda: tracker().pending() == before, timeout=5000)
    finally:
        tracker().pendingChanged.disconnect(counts.append)
    assert counts[:2] == [before + 1, before + 2]


def test_failure_text_uses_the_user_text_of_gpudesk_errors():
    exc = GpudeskError("Cannot write the data folder.", detail="Permission denied", remedy="Set GPUDESK_DATA_DIR.")
    assert failure_text(exc) == "Cannot write the data folder. (Permission denied) Set GPUDESK_DATA_DIR."


class _BrokenSetup(ThreadWorker):
    def setup(self) -> None:
        raise OSError(13, "Permission denied")


def test_a_thread_worker_setup_failure_is_emitted(qtbot):
    worker = _BrokenSetup()
    failures = []
    worker.failed.connect(failures.append)  # emitted in the worker thread (no qtbot.waitSignal timer there)
    start_worker(worker)
    qtbot.waitUntil(lambda: bool(failures), timeout=5000)
    assert isinstance(failures[0], OSError)
    assert stop_worker(worker)
