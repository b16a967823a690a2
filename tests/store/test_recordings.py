"""Recordings store: migration of row-per-sample recordings to columnar chunks, crash safety under SIGKILL."""

from __future__ import annotations

import math
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from sqlite_utils import Database

from gpudesk.store import open_store
from gpudesk.store import recordings as rec
from gpudesk.store.migrations import MIGRATION_SETS
from gpudesk.telemetry.recording.recorder import load_frame

TESTS = Path(__file__).resolve().parent.parent


def _old_schema_db(path: Path) -> Database:
    """A database as gpudesk wrote it before m003: every set applied up to the columnar migration."""
    db = Database(sqlite3.connect(str(path)))
    for migrations in MIGRATION_SETS:
        migrations.apply(db, stop_before="m003_columnar_chunks")
    assert db["recording_samples"].exists() and not db["recording_chunks"].exists()
    return db


def test_migration_converts_row_recordings_without_loss(tmp_path):
    path = tmp_path / "old.db"
    db = _old_schema_db(path)
    conn = db.conn
    # two sessions as the old recorder wrote them: wide rows (None = N/A), a narrow extra metric, and an
    # old session without the recording_metrics index
    conn.execute("insert into recording_sessions (id, name, created_at, source, format_version, started_at, "
                 "ended_at) values (1, 'burn-in', '2024-01-01T00:00:00+00:00', 'nvml', 1, 1.7e9, 1.7e9 + 4)")
    conn.execute("insert into recording_sessions (id, name, created_at, source, format_version) "
                 "values (2, 'dmon', '2024-01-02T00:00:00+00:00', 'dmon-file:x.txt', 1)")
    rows = []
    for k in range(5):
        for g in range(2):
            rows.append((1, 1.7e9 + k, g, 40.0 + k + g, None if g == 1 else 250.5, 81920.0 * 1024**2 + k,
                         4513000000.0))
    conn.executemany("insert into recording_samples (session_id, t, gpu_index, gpu_util_pct, power_w, "
                     "mem_used_bytes, mem_clock_hz) values (?, ?, ?, ?, ?, ?, ?)", rows)
    conn.executemany("insert into recording_metrics (session_id, metric) values (?, ?)",
                     [(1, "gpu_util_pct"), (1, "power_w"), (1, "mem_used_bytes"), (1, "mem_clock_hz")])
    conn.executemany("insert into recording_samples (session_id, t, gpu_index, gpu_util_pct) values (?, ?, ?, ?)",
                     [(2, float(k), 0, float(k)) for k in range(3)])
    conn.executemany("insert into recording_extra (session_id, t, gpu_index, metric, value) values (?, ?, ?, ?, ?)",
                     [(2, 0.0, 0, "dmon_xyz", 7.0), (2, 2.0, 0, "dmon_xyz", 9.0)])
    conn.execute("insert into recording_reasons values (1, 1, 'power_w', 'NotSupported')")
    conn.commit()
    db.close()

    db = open_store(path)  # applies m003
    assert db.conn.execute("select count(*) from recording_samples").fetchone()[0] == 0
    assert db.conn.execute("select count(*) from recording_extra").fetchone()[0] == 0
    f1 = load_frame(db, 1)
    assert len(f1) == 5 and f1.gpus == [0, 1]  # five rounds of two GPUs
    assert f1.series(0, "gpu_util_pct")[1].tolist() == [40.0, 41.0, 42.0, 43.0, 44.0]
    assert f1.series(0, "power_w")[1].tolist() == [250.5] * 5
    assert np.all(np.isnan(f1.series(1, "power_w")[1]))  # NULL stays N/A, never 0
    assert f1.reason(1, "power_w") == "NotSupported"
    assert f1.series(1, "mem_used_bytes")[1].tolist() == [81920.0 * 1024**2 + k for k in range(5)]  # exact
    assert f1.series(0, "mem_clock_hz")[1].tolist() == [4513000000.0] * 5
    s1 = rec.get_session(db, 1)
    assert (s1.sample_rows, s1.first_t, s1.last_t, s1.interrupted) == (10, 1.7e9, 1.7e9 + 4, False)
    f2 = load_frame(db, 2)
    assert f2.times.tolist() == [0.0, 1.0, 2.0]
    assert np.array_equal(f2.columns["dmon_xyz"][:, 0], [7.0, math.nan, 9.0], equal_nan=True)
    assert rec.get_session(db, 2).interrupted
    # applied once: reopening changes nothing
    db.close()
    again = open_store(path)
    assert len(load_frame(again, 1).rows()[0]) == 10


def test_recorder_killed_with_sigkill_loses_at_most_the_uncommitted_seconds(tmp_path):
    """A recorder process writing 1 Hz batches of 4 GPUs (sped up 20x) is killed with SIGKILL mid-run: what it
    reported as committed is all there, and at most the last 2 s of samples are missing."""
    marker = tmp_path / "committed.txt"
    script = textwrap.dedent(f"""
        import os, sys, time
        sys.path.insert(0, {str(TESTS)!r})
        from helpers.fake_pynvml import make_fake_pynvml
        from gpudesk.telemetry.sources.nvml_source import NvmlSource
        from gpudesk.telemetry.recording.recorder import Recorder
        t = [1.7e9]
        mono = [0.0]
        src = NvmlSource(nvml=make_fake_pynvml(4), clock=lambda: t[0])
        r = Recorder(flush_interval_s=1.0, clock=lambda: mono[0])
        r.start(src.devices(), source="nvml", interval_s=1.0)
        ticks = 0
        while True:
            r.write(src.read())
            ticks += 1
            t[0] += 1.0
            mono[0] += 1.0
            with open({str(marker)!r} + ".tmp", "w") as fh:
                fh.write(f"{{ticks}} {{r.rows_written}}")
            os.replace({str(marker)!r} + ".tmp", {str(marker)!r})
            time.sleep(0.05)
    """)
    env = {**os.environ, "GPUDESK_DATA_DIR": str(tmp_path / "data")}
    errors = tmp_path / "stderr.txt"
    with errors.open("w") as err:
        proc = subprocess.Popen([sys.executable, "-c", script], env=env, stderr=err)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if marker.exists() and int(marker.read_text().split()[0]) >= 30:
                break
            if proc.poll() is not None:
                raise AssertionError(errors.read_text())
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert proc.returncode == -signal.SIGKILL
    ticks, committed = (int(x) for x in marker.read_text().split())  # the last state it reported
    db = open_store(tmp_path / "data" / "gpudesk.db")
    (sess,) = rec.list_sessions(db)
    assert sess.interrupted
    frame = load_frame(db, sess.id)
    assert len(frame) * 4 >= committed  # everything reported committed survived
    assert frame.gpus == [0, 1, 2, 3] and all(frame.sample_count(g) == len(frame) for g in frame.gpus)  # no torn round
    rounds = len(frame)
    assert np.array_equal(frame.times, 1.7e9 + np.arange(rounds))  # no hole
    assert rounds >= ticks - 2  # lost at most the last 2 s (commits every 1 s of recorder time)
    assert db.conn.execute("pragma integrity_check").fetchone()[0] == "ok"


def test_sqlite_errors_come_out_as_store_errors(tmp_path):
    from gpudesk.errors import GpudeskError
    from gpudesk.store import StoreError

    db = open_store(tmp_path / "x.db")
    sid = rec.create_session(db, source="test")
    db.conn.execute("drop table recording_chunks")  # a damaged schema: SQLITE_ERROR, a plain store error
    with pytest.raises(StoreError) as caught:
        rec.read_arrays(db, sid)
    assert isinstance(caught.value, GpudeskError) and "no such table" in (caught.value.detail or "")
    assert isinstance(caught.value.__cause__, sqlite3.OperationalError)


def test_a_damaged_chunk_is_store_corrupt(tmp_path):
    from gpudesk.store.errors import StoreCorruptError

    db = open_store(tmp_path / "x.db")
    sid = rec.create_session(db, source="test")
    rec.insert_arrays(db, sid, 1.7e9 + np.arange(10.0), np.zeros(10, dtype=np.int32),
                      {"gpu_util_pct": np.arange(10.0)})
    db.conn.execute("update recording_chunk_values set v_blob = ?", (b"not zlib",))
    db.conn.commit()
    with pytest.raises(StoreCorruptError, match=f"recording {sid}"):
        rec.read_arrays(db, sid)
