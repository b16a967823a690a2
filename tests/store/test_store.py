import sqlite3

import pytest

from gpudesk.store import (
    StoreCorruptError,
    StoreNewerVersionError,
    StoreUnwritableError,
    open_store,
)
from gpudesk.store.prices import clear_price, price_overrides, set_price
from gpudesk.store.errors import StoreError


def test_creates_store_in_data_dir_in_wal_mode(_isolated_data_dir):
    db = open_store()
    assert (_isolated_data_dir / "gpudesk.db").exists()
    assert db.journal_mode == "wal"
    assert "price_overrides" in db.table_names()
    applied = {r["name"] for r in db["_sqlite_migrations"].rows}
    assert {"m001_price_overrides", "m002_settings"} <= applied


def test_reopen_is_idempotent_and_keeps_data(tmp_path):
    path = tmp_path / "s.db"
    db = open_store(path)
    set_price(db, "h100-sxm5", 27500, "quote from vendor")
    db.close()
    db2 = open_store(path)
    assert price_overrides(db2)["h100-sxm5"]["price_usd"] == 27500
    clear_price(db2, "h100-sxm5")
    assert price_overrides(db2) == {}


@pytest.mark.parametrize("bad", [0, -5, float("nan"), float("inf"), "12"])
def test_price_must_be_positive_number(tmp_path, bad):
    db = open_store(tmp_path / "s.db")
    with pytest.raises(StoreError, match="positive number"):
        set_price(db, "t4", bad)


def test_newer_database_is_refused_and_not_touched(tmp_path):
    path = tmp_path / "s.db"
    db = open_store(path)
    db["_sqlite_migrations"].insert({"migration_set": "gpudesk-core", "name": "m999_future", "applied_at": "2030"})
    db.close()
    before = path.read_bytes()
    with pytest.raises(StoreNewerVersionError, match="newer gpudesk"):
        open_store(path)
    assert path.read_bytes() == before


def test_corrupt_database_is_refused_and_left_in_place(tmp_path):
    path = tmp_path / "s.db"
    garbage = b"this is not sqlite at all\x00" * 200
    path.write_bytes(garbage)
    with pytest.raises(StoreCorruptError, match="not a readable gpudesk database"):
        open_store(path)
    assert path.read_bytes() == garbage


def test_unwritable_data_folder(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("GPUDESK_DATA_DIR", str(blocker / "sub"))
    with pytest.raises(StoreUnwritableError, match="GPUDESK_DATA_DIR"):
        open_store()


def test_second_connection_sees_writes(tmp_path):
    path = tmp_path / "s.db"
    a = open_store(path)
    b = open_store(path)
    set_price(a, "l4", 2500)
    assert price_overrides(b)["l4"]["price_usd"] == 2500
    conn = sqlite3.connect(path)
    assert conn.execute("pragma journal_mode").fetchone()[0] == "wal"
