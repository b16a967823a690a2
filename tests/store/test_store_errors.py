"""gpudesk.store.errors: sqlite3 errors become store errors by SQLite result code, in every public function."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest
from sqlite_utils import Database

from gpudesk.errors import GpudeskError
from gpudesk.store import open_store
from gpudesk.store.errors import (
    StoreCorruptError,
    StoreError,
    StoreFullError,
    StoreLockedError,
    StoreUnwritableError,
    translate_sqlite_error,
)
from gpudesk.store.prices import price_overrides, set_price
from gpudesk.store.recordings import create_session, insert_arrays, list_sessions


def test_every_store_error_is_a_gpudesk_error():
    assert issubclass(StoreError, GpudeskError)


def test_a_write_while_another_connection_holds_the_lock_is_store_locked(tmp_path):
    path = tmp_path / "gpudesk.db"
    holder = open_store(path)
    waiter = Database(sqlite3.connect(str(path), timeout=0.05))
    holder.conn.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StoreLockedError) as caught:
            set_price(waiter, "a100-80gb-sxm", 15000.0)
    finally:
        holder.conn.rollback()
    assert isinstance(caught.value.__cause__, sqlite3.OperationalError)
    assert caught.value.__cause__.sqlite_errorcode & 0xFF == sqlite3.SQLITE_BUSY


def test_a_write_through_a_read_only_connection_is_store_unwritable(tmp_path):
    path = tmp_path / "gpudesk.db"
    open_store(path).conn.close()
    read_only = Database(sqlite3.connect(f"file:{path}?mode=ro", uri=True))
    with pytest.raises(StoreUnwritableError, match="GPUDESK_DATA_DIR"):
        set_price(read_only, "a100-80gb-sxm", 15000.0)
    assert price_overrides(read_only) == {}  # reading still works


def test_reading_a_file_that_is_not_a_database_is_store_corrupt(tmp_path):
    path = tmp_path / "notes.db"
    path.write_bytes(b"these are my notes, not a database" * 100)
    damaged = Database(sqlite3.connect(str(path)))
    with pytest.raises(StoreCorruptError):
        list_sessions(damaged)


def test_translation_uses_the_result_code_not_the_message():
    # A message that mentions "locked" but carries SQLITE_CORRUPT is corrupt, not locked.
    exc = sqlite3.DatabaseError("row locked by the application layer")
    exc.sqlite_errorcode = sqlite3.SQLITE_CORRUPT
    assert isinstance(translate_sqlite_error(exc), StoreCorruptError)
    plain = sqlite3.ProgrammingError("Cannot operate on a closed database.")
    assert type(translate_sqlite_error(plain)) is StoreError


def test_a_full_disk_is_store_full_by_its_result_code():
    # SQLITE_FULL (13), as sqlite3 raises it when a write needs a page the disk or quota cannot give.
    full = sqlite3.OperationalError("database or disk is full")
    full.sqlite_errorcode = sqlite3.SQLITE_FULL
    error = translate_sqlite_error(full, "/data/gpudesk.db")
    assert isinstance(error, StoreFullError) and isinstance(error, StoreUnwritableError)
    assert error.remedy and "/data/gpudesk.db" in error.message
    # The same text without the code is not classified by its words.
    assert type(translate_sqlite_error(sqlite3.OperationalError("database or disk is full"))) is StoreError


def test_a_write_past_the_page_limit_is_store_full(tmp_path):
    db = open_store(tmp_path / "gpudesk.db")
    sid = create_session(db, source="test")
    pages = db.conn.execute("pragma page_count").fetchone()[0]
    db.conn.execute(f"pragma max_page_count = {pages}")  # the file may not grow: SQLITE_FULL on the next page
    noise = np.random.default_rng(0).random(20_000)  # incompressible: needs many new pages
    with pytest.raises(StoreFullError) as caught:
        insert_arrays(db, sid, 1.7e9 + np.arange(20_000.0), np.zeros(20_000, dtype=np.int32), {"power_w": noise})
    assert caught.value.__cause__.sqlite_errorcode & 0xFF == sqlite3.SQLITE_FULL


def test_an_os_level_full_disk_is_store_full_by_its_errno():
    import errno

    from gpudesk.store.errors import store_error_for, translate_os_error

    full = translate_os_error(OSError(errno.ENOSPC, "No space left on device"), "/data/gpudesk.db")
    assert isinstance(full, StoreFullError) and "/data/gpudesk.db" in full.message and full.remedy
    denied = translate_os_error(OSError(errno.EACCES, "Permission denied"), "/data/gpudesk.db")
    assert type(denied) is StoreUnwritableError
    # a store error raised without the file (converts_sqlite_errors) is named again from its sqlite3 cause
    cause = sqlite3.OperationalError("database or disk is full")
    cause.sqlite_errorcode = sqlite3.SQLITE_FULL
    unnamed = translate_sqlite_error(cause)
    unnamed.__cause__ = cause
    named = store_error_for(unnamed, "/data/gpudesk.db")
    assert isinstance(named, StoreFullError) and "/data/gpudesk.db" in named.message
