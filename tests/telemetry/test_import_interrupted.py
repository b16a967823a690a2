"""Ctrl+C during ``monitor import``, and a log whose file name is not UTF-8 (issue 25, other tracebacks)."""

from __future__ import annotations

import os

from gpudesk.cli import main
from gpudesk.store import chunks, open_store
from gpudesk.store.recordings import list_sessions


def _log(path, rounds: int = 9000, gpus: int = 2) -> None:
    lines = ["# gpu    sm   mem", "# Idx     %     %"]
    lines += [f"    {g}    {i % 100}    {(i * 7) % 100}" for i in range(rounds) for g in range(gpus)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_ctrl_c_during_import_leaves_no_half_session(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GPUDESK_DATA_DIR", str(tmp_path / "data"))
    log = tmp_path / "dmon.txt"
    _log(log)
    real = chunks.write_chunks
    calls = []

    def interrupted(*args, **kw):
        calls.append(1)
        if len(calls) == 2:  # the first chunk is written, the second is under way
            raise KeyboardInterrupt
        return real(*args, **kw)

    monkeypatch.setattr(chunks, "write_chunks", interrupted)
    assert main(["monitor", "import", str(log)]) == 130
    err = capsys.readouterr().err
    assert "Import interrupted (Ctrl+C): nothing was saved." in err and "Traceback" not in err
    monkeypatch.setattr(chunks, "write_chunks", real)
    db = open_store()
    assert list_sessions(db) == []
    assert db.conn.execute("select count(*) from recording_chunks").fetchone()[0] == 0
    db.close()
    assert main(["monitor", "import", str(log)]) == 0  # the store is usable as before


def test_import_of_a_log_whose_name_is_not_utf8(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GPUDESK_DATA_DIR", str(tmp_path / "data"))
    log = tmp_path / os.fsdecode(b"run-\xff.txt")
    _log(log, rounds=5)
    assert main(["monitor", "import", str(log)]) == 0
    db = open_store()
    (session,) = list_sessions(db)
    db.close()
    assert session.name == "run-\\xff.txt"
    assert main(["monitor", "analyze", str(session.id)]) == 0
    assert "run-\\xff.txt" in capsys.readouterr().out
