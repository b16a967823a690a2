"""GUI recording faults (issue 14): the disk fills while the Monitor tab records, or the database is from a newer
gpudesk. The sampler reports one clear message, stops recording, and the live view keeps receiving samples;
what was committed stays readable."""

from __future__ import annotations

import sqlite3

from helpers.fake_pynvml import make_fake_pynvml

from gpudesk.store import open_store
from gpudesk.telemetry.sources.nvml_source import NvmlSource
from gpudesk.telemetry.recording.recorder import Recorder, load_frame
from gpudesk.ui.monitor.sampler_worker import SamplerWorker


def test_disk_full_while_recording_in_the_gui_gives_one_message_and_live_view_goes_on(qtbot, tmp_path):
    fake = make_fake_pynvml(64)
    path = tmp_path / "gpudesk.db"
    dbs = []

    def recorder_factory():
        db = open_store(path)
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {pages + 48}")  # room for a few commits of 64 GPUs (with checksums)
        dbs.append(db)
        return Recorder(db, flush_interval_s=0.0)

    worker = SamplerWorker(lambda: NvmlSource(nvml=fake, interval_s=0.05), recorder_factory=recorder_factory)
    failures: list[str] = []
    batches: list = []
    worker.recordingFailed.connect(failures.append)
    worker.batches.connect(batches.append)
    worker.begin()
    worker._timer.stop()  # ticks driven by hand, in this thread
    worker._start_recording("disk-full test")
    sid = worker.session_id
    for _ in range(300):
        worker._tick()
    assert len(failures) == 1, failures  # not one exception per tick
    assert "is full" in failures[0] and str(path) in failures[0]
    assert worker.recorder is None and len(batches) == 301  # begin() ticks once; the live view kept every tick
    worker.teardown()
    dbs[0].close()
    fresh = open_store(path)
    assert len(load_frame(fresh, sid)) > 0
    fresh.close()


def test_newer_database_in_the_gui_record_path_is_a_message(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("GPUDESK_DATA_DIR", str(tmp_path))
    open_store(tmp_path / "gpudesk.db").close()
    conn = sqlite3.connect(tmp_path / "gpudesk.db")
    conn.execute("INSERT INTO _sqlite_migrations (migration_set, name, applied_at) VALUES ('gpudesk-plans', "
                 "'m999_future', '2030-01-01')")
    conn.commit()
    conn.close()
    worker = SamplerWorker(lambda: NvmlSource(nvml=make_fake_pynvml(1)))
    failures: list[str] = []
    worker.recordingFailed.connect(failures.append)
    worker.begin()
    worker._timer.stop()
    worker._start_recording("")
    assert len(failures) == 1 and "newer gpudesk" in failures[0]
    worker.teardown()


def test_disk_full_while_recording_in_the_monitor_tab(qtbot, tmp_path, monkeypatch):
    """The whole window path: Record clicked in the Monitor tab over 64 fake GPUs; once samples are committed the
    database file may not grow any more (SQLite's max_page_count set to its size, so the next growth answers
    SQLITE_FULL as a full disk does). One error message names the file, the Record button comes back unchecked,
    the plots keep receiving samples, and the committed samples stay readable."""
    from gpudesk.telemetry.recording.recorder import Recorder
    from gpudesk.ui.context import AppContext
    from gpudesk.ui.monitor.tab import MonitorTab

    monkeypatch.setenv("GPUDESK_DATA_DIR", str(tmp_path))
    path = tmp_path / "gpudesk.db"
    disk = {"full": False}
    flush = Recorder.flush

    def flush_on_a_disk_that_may_fill(self):  # runs in the sampler's thread, on the recorder's own connection
        if disk["full"]:
            pages = self.db.execute("PRAGMA page_count").fetchone()[0]
            self.db.execute(f"PRAGMA max_page_count = {pages}")
        flush(self)

    monkeypatch.setattr(Recorder, "flush", flush_on_a_disk_that_may_fill)
    messages: list[tuple[str, str]] = []
    tab = MonitorTab(AppContext(notify=lambda text, level="info": messages.append((level, text))),
                     nvml=make_fake_pynvml(64))
    qtbot.addWidget(tab, before_close_func=lambda widget: widget.shutdown())
    tab.resize(1280, 800)
    tab.show()
    qtbot.waitUntil(lambda: tab.ctl.buffer is not None and tab.toolbar.record_button.isEnabled(), timeout=20000)
    tab.toolbar.record_button.click()
    qtbot.waitUntil(lambda: tab.ctl.recording_id is not None, timeout=20000)
    sid = tab.ctl.recording_id
    reader = open_store(path)
    qtbot.waitUntil(lambda: len(load_frame(reader, sid)) >= 2, timeout=20000)
    disk["full"] = True
    qtbot.waitUntil(lambda: any(level == "error" for level, _ in messages), timeout=30000)
    count_at_failure = tab.ctl.buffer.count
    qtbot.waitUntil(lambda: tab.ctl.buffer.count >= count_at_failure + 2, timeout=10000)  # the live view goes on
    errors = [t for level, t in messages if level == "error"]
    assert len(errors) == 1, errors
    assert "is full" in errors[0] and str(path) in errors[0]
    assert not tab.toolbar.record_button.isChecked() and tab.ctl.recording_id is None
    assert tab.toolbar.record_button.isEnabled()  # a new recording can be asked for (once space is freed)
    tab.shutdown()
    assert len(load_frame(reader, sid)) >= 2  # what was committed before the disk filled stays readable
    reader.close()
