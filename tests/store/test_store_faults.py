"""Fault scenarios of issue 14 for the user store: disk full while recording (a real tiny tmpfs when the tests
run as root, SQLite's own SQLITE_FULL through max_page_count otherwise), a garbled page mid-database (a message
naming the file and how to recover; `gpudesk store recover` copies every readable row), a newer-version
database (refused, left untouched)."""

from __future__ import annotations

import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers.fake_pynvml import make_fake_pynvml

from gpudesk.cli import main
from gpudesk.store import (
    StoreCorruptError,
    StoreFullError,
    StoreNewerVersionError,
    open_store,
)
from gpudesk.store.recordings import list_sessions
from gpudesk.store.salvage import salvage_database
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core.model import Sample, SampleBatch, TelemetryError
from gpudesk.telemetry.recording.recorder import Recorder, RecordingFailed, load_frame


def _batch(t: float, gpus: int = 8) -> SampleBatch:
    return SampleBatch(t, [Sample(t, g, None, {m.GPU_UTIL: 50.0, m.MEM_USED: 1e9 + t, m.POWER: 300.0})
                           for g in range(gpus)])


def test_sqlite_full_while_recording_stops_with_a_message_and_keeps_what_was_committed(tmp_path):
    path = tmp_path / "gpudesk.db"
    db = open_store(path)
    rec = Recorder(db, flush_interval_s=0.0)
    sid = rec.start([], source="test")
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages + 8}")
    with pytest.raises(RecordingFailed) as info:
        for i in range(100_000):
            rec.write(_batch(float(i)))
    assert isinstance(info.value.store_error, StoreFullError)
    assert isinstance(info.value, TelemetryError)  # the GUI sampler's recording path catches these
    assert str(path) in str(info.value) and "Free some space" in str(info.value)
    committed = rec.rows_written
    assert committed > 0 and rec.failed is info.value
    rec.write(_batch(1e9))  # after the failure: dropped, not another exception per tick
    rec.close()
    db.close()
    fresh = open_store(path)
    assert len(load_frame(fresh, sid).rows()[0]) == committed  # rows: one per (round, GPU)
    fresh.close()


def _can_mount_tmpfs(where: Path) -> bool:
    if os.geteuid() != 0:
        return False
    where.mkdir(parents=True, exist_ok=True)
    ok = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(where)], capture_output=True, check=False).returncode
    return ok == 0


def test_cli_record_on_a_full_disk_says_so_and_the_recording_stays_readable(tmp_path, monkeypatch, capsys):
    data = tmp_path / "tiny"
    if not _can_mount_tmpfs(data):
        pytest.skip("needs root to mount a 2 MiB tmpfs (the SQLITE_FULL test above covers the same path)")
    try:
        monkeypatch.setenv("GPUDESK_DATA_DIR", str(data))
        monkeypatch.setitem(sys.modules, "pynvml", make_fake_pynvml(64))
        status = main(["monitor", "record", "--interval", "0.01", "--duration", "120s"])
        err = capsys.readouterr().err
        assert status == 2
        assert "is full" in err and str(data / "gpudesk.db") in err and "keeps the" in err
        kept = int(err.split("keeps the ")[1].split()[0])
        db = open_store(data / "gpudesk.db", migrate=False)
        sessions = list_sessions(db)
        assert len(sessions) == 1 and len(load_frame(db, sessions[0].id).rows()[0]) == kept > 0
        db.close()
    finally:
        subprocess.run(["umount", "-l", str(data)], check=False)


def _varying_batch(t: float, rng: random.Random, gpus: int = 8) -> SampleBatch:
    """Readings that change every tick, as real ones do: the columnar chunks then fill most of the file (constant
    columns compress to a few bytes, and a garbled page would miss the recording)."""
    return SampleBatch(t, [Sample(t, g, None, {m.GPU_UTIL: rng.uniform(0, 100), m.MEM_USED: rng.uniform(1e9, 8e10),
                                               m.POWER: rng.uniform(60, 700)}) for g in range(gpus)])


def _recording(path: Path, ticks: int = 3000) -> int:
    db = open_store(path)
    rec = Recorder(db, flush_interval_s=1e9)
    sid = rec.start([], source="test")
    rng = random.Random(14)
    for i in range(ticks):
        rec.write(_varying_batch(float(i), rng))
    rec.stop()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return sid


def _garble_middle_page(path: Path) -> None:
    size = path.stat().st_size
    page = 4096
    with path.open("r+b") as f:
        f.seek((size // page // 2) * page)
        f.write(b"\xa5" * page)


def test_corrupt_page_mid_database_names_the_file_and_recover_copies_the_rest(tmp_path, monkeypatch, capsys):
    path = tmp_path / "gpudesk.db"
    sid = _recording(path)
    _garble_middle_page(path)
    db = open_store(path, migrate=False)
    with pytest.raises(StoreCorruptError) as info:
        load_frame(db, sid)
    db.close()
    assert str(path) in str(info.value) and "gpudesk store recover" in str(info.value)
    monkeypatch.setenv("GPUDESK_DATA_DIR", str(tmp_path))
    assert main(["store", "check"]) == 1
    out_file = tmp_path / "recovered.db"
    assert main(["store", "recover", "--to", str(out_file)]) == 0
    out = capsys.readouterr().out
    assert "integrity of the copy: ok" in out and "rename recovered.db to gpudesk.db" in out
    rescued = open_store(out_file)
    frame = load_frame(rescued, sid)
    rescued.close()
    # columnar chunks: the garbled page held part of one metric's chunk; those values are N/A, the rest came back
    values = sum(int(np.count_nonzero(~np.isnan(col))) for col in frame.columns.values())
    assert len(frame) == 3000 and len(frame.gpus) == 8 and 0.5 * 3 * 3000 * 8 < values < 3 * 3000 * 8


def test_salvage_of_a_healthy_database_is_complete(tmp_path):
    path = tmp_path / "gpudesk.db"
    sid = _recording(path, ticks=200)
    result = salvage_database(path, tmp_path / "copy.db")
    assert result.check == "ok" and result.rows_lost == 0
    db = open_store(tmp_path / "copy.db")
    assert len(load_frame(db, sid).rows()[0]) == 200 * 8
    db.close()


def test_newer_version_database_is_refused_and_left_untouched(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GPUDESK_DATA_DIR", str(tmp_path))
    path = tmp_path / "gpudesk.db"
    open_store(path).close()
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO _sqlite_migrations (migration_set, name, applied_at) VALUES ('gpudesk-recordings', "
                 "'m999_from_the_future', '2030-01-01')")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(StoreNewerVersionError, match="newer gpudesk"):
        open_store(path)
    with pytest.raises(RecordingFailed) as info:  # the GUI Record path opens it through Recorder()
        Recorder(None)
    assert isinstance(info.value.store_error, StoreNewerVersionError) and isinstance(info.value, TelemetryError)
    monkeypatch.setitem(sys.modules, "pynvml", make_fake_pynvml(1))
    assert main(["monitor", "record", "--duration", "0.1s"]) == 2
    assert "newer gpudesk" in capsys.readouterr().err
    assert path.read_bytes() == before
