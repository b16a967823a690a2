"""One damaged recording chunk costs its own span, not the recording (issue 25, case class "one bad chunk").

The chunk's bytes are flipped in the database FILE (where a failing disk or a stray write would flip them), not
through SQL: SQLite's integrity check cannot see it, the chunk checksum must.
"""

from __future__ import annotations

import os
import random
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from gpudesk.cli import main
from gpudesk.store import open_store
from gpudesk.store.chunk_health import TIME_BASE, find_damaged_chunks
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core.model import Sample, SampleBatch
from gpudesk.telemetry.recording.recorder import Recorder, load_frame

GPUS = 4
TICKS = 300


def _recording(path: Path) -> int:
    db = open_store(path)
    rec = Recorder(db, flush_interval_s=1e9)
    sid = rec.start([], source="test")
    rng = random.Random(3)
    for i in range(TICKS):
        t = 1_700_000_000.0 + i
        # each GPU read a little apart (as NVML queries them one after the other): every time base is unique
        rec.write(SampleBatch(t, [Sample(t + g * 1e-3, g, None, {m.GPU_UTIL: rng.uniform(0, 100),
                                                                 m.POWER: 300.0 + g, m.MEM_USED: 1e9})
                                  for g in range(GPUS)]))
    rec.stop()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return sid


def _flip_blob_in_file(path: Path, table: str, column: str, where: str) -> bytes:
    """Flip bytes in the middle of one blob, located by its bytes in the file."""
    conn = sqlite3.connect(path)
    blob = conn.execute(f"select {column} from {table} where {where}").fetchone()[0]
    conn.close()
    data = bytearray(path.read_bytes())
    at = data.find(blob)
    assert at > 0 and data.find(blob, at + 1) == -1, "the blob must be unique in the file"
    mid = at + len(blob) // 2
    data[mid] ^= 0xFF
    data[mid + 1] ^= 0x5A
    path.write_bytes(bytes(data))
    return blob


def test_a_flipped_value_chunk_is_left_out_and_named_and_the_rest_is_shown(tmp_path, monkeypatch, capsys):
    path = tmp_path / "gpudesk.db"
    sid = _recording(path)
    _flip_blob_in_file(path, "recording_chunk_values", "v_blob", "gpu_index = 2 and metric = 'gpu_util_pct'")
    db = open_store(path)
    frame = load_frame(db, sid)
    db.close()
    assert len(frame) == TICKS and len(frame.gpus) == GPUS  # every sample is still there
    util = frame.columns[m.GPU_UTIL]
    assert np.isnan(util[:, 2]).all() and not np.isnan(np.delete(util, 2, axis=1)).any()
    assert not np.isnan(frame.columns[m.POWER]).any()
    note = frame.notes[0]
    assert "GPU 2" in note and "gpu_util_pct" in note and "checksum mismatch" in note
    assert "2023-11-14 22:13:20 to 2023-11-14 22:18:19 UTC" in note
    assert "checksum" in frame.reasons[(2, m.GPU_UTIL)]

    monkeypatch.setenv("GPUDESK_DATA_DIR", str(tmp_path))
    assert main(["monitor", "analyze", str(sid)]) == 0
    assert "gpu_util_pct" in capsys.readouterr().out
    assert main(["monitor", "export", str(sid), str(tmp_path / "out.csv")]) == 0
    assert "GPU 2, gpu_util_pct" in capsys.readouterr().err
    assert main(["store", "check"]) == 1
    out = capsys.readouterr().out
    assert "1 recording chunks fail" in out and "GPU 2, gpu_util_pct" in out

    os.chmod(path, 0o600)
    copy = tmp_path / "copy.db"
    assert main(["store", "recover", "--to", str(copy)]) == 0
    out = capsys.readouterr().out
    assert "1 unreadable rows left behind" in out and "1 damaged recording chunks were left out" in out
    assert (copy.stat().st_mode & 0o777) == 0o600
    conn = sqlite3.connect(copy)
    assert find_damaged_chunks(conn) == []
    conn.close()
    assert main(["store", "check", "--db", str(copy)]) == 0


def test_a_flipped_time_base_drops_only_that_gpus_chunk(tmp_path):
    path = tmp_path / "gpudesk.db"
    sid = _recording(path)
    _flip_blob_in_file(path, "recording_chunks", "t_blob", "gpu_index = 1")
    db = open_store(path)
    frame = load_frame(db, sid)
    db.close()
    assert len(frame.rows()[0]) == TICKS * (GPUS - 1) and 1 not in frame.gpus
    assert "GPU 1: the time stamps of 300 samples" in frame.notes[0]
    conn = sqlite3.connect(path)
    damaged = find_damaged_chunks(conn)
    conn.close()
    assert [(d.gpu_index, d.metric) for d in damaged] == [(1, TIME_BASE)]


def test_stores_from_before_the_checksums_are_migrated_and_still_checked(tmp_path):
    path = tmp_path / "gpudesk.db"
    sid = _recording(path)
    conn = sqlite3.connect(path)  # as an older gpudesk left it: no checksum columns, no m004 record
    conn.execute("alter table recording_chunks drop column t_crc")
    conn.execute("alter table recording_chunk_values drop column v_crc")
    conn.execute("delete from _sqlite_migrations where name = 'm004_chunk_checksums'")
    conn.commit()
    conn.close()
    _flip_blob_in_file(path, "recording_chunk_values", "v_blob", "gpu_index = 0 and metric = 'power_w'")
    db = open_store(path)  # migrates: checksums are computed, the damaged blob still fails to decode
    assert db.conn.execute("select count(*) from recording_chunk_values where v_crc is null").fetchone()[0] == 0
    frame = load_frame(db, sid)
    db.close()
    assert np.isnan(frame.columns[m.POWER][:, 0]).all()
    assert "GPU 0, power_w" in frame.notes[0]


@pytest.mark.parametrize("umask", [0o022, 0o000])
def test_recover_copy_keeps_the_source_permissions(tmp_path, umask):
    path = tmp_path / "gpudesk.db"
    _recording(path)
    os.chmod(path, 0o600)
    old = os.umask(umask)
    try:
        from gpudesk.store.salvage import salvage_database
        salvage_database(path, tmp_path / "copy.db")
    finally:
        os.umask(old)
    assert ((tmp_path / "copy.db").stat().st_mode & 0o777) == 0o600
