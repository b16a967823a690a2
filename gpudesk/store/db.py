"""Open the user's SQLite database: WAL mode, migrations applied, newer versions refused.

One file in the platformdirs user data folder (``GPUDESK_DATA_DIR`` overrides). A ``Database`` is bound to
the thread that opened it (sqlite3's ``check_same_thread``): a worker thread opens its own with
:func:`open_store` and closes it in the same thread.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from gpudesk.store.sqlite_lib import Database

from gpudesk import paths
from gpudesk.i18n import _
from gpudesk.store.errors import (
    StoreError,
    StoreNewerVersionError,
    StoreUnwritableError,
    translate_sqlite_error,
)
from gpudesk.store.migrations import MIGRATION_SETS, known_migrations

MIGRATIONS_TABLE = "_sqlite_migrations"


def _import_feature_sets() -> None:
    """Import the modules that register their migration sets, so every set is known before opening."""
    import importlib

    for module in ("gpudesk.store.plans", "gpudesk.store.recordings", "gpudesk.store.diagnoses",
                   "gpudesk.store.alerts"):
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise


def open_store(path: Path | str | None = None, *, migrate: bool = True) -> Database:
    """Open (creating if needed) the user database and bring its schema up to date.

    Args:
        path: database file; defaults to :func:`gpudesk.paths.store_path`.
        migrate: apply pending migrations (the GUI and CLI do; read-only tools may not).

    Returns:
        A sqlite-utils ``Database`` in WAL mode, usable from the calling thread only.

    Raises:
        StoreUnwritableError: the folder or file cannot be created or written.
        StoreCorruptError: the file is not a SQLite database (it is left as it is).
        StoreNewerVersionError: it holds migrations this version does not know (it is left as it is).
        StoreLockedError: another process keeps it locked.
    """
    _import_feature_sets()
    try:
        target = Path(path) if path is not None else paths.store_path()
        if not target.parent.is_dir():
            target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.chmod(target.parent, 0o700)
        if not target.exists():  # created 0600 here: SQLite would follow the umask (0666 under umask 000), and
            os.close(os.open(target, os.O_WRONLY | os.O_CREAT, 0o600))  # its -wal/-shm files copy this mode
    except paths.DataDirError as exc:  # the folder itself: the same words, as the store's own error type
        raise StoreUnwritableError(exc.user_text(), field=exc.field, detail=exc.detail) from exc
    except OSError as exc:
        raise StoreUnwritableError(
            _("Cannot create the data folder {path}: {reason}. Set GPUDESK_DATA_DIR to a writable folder.").format(
                path=exc.filename or "", reason=exc.strerror or exc),
            field=str(exc.filename or ""), detail=str(exc),
        ) from exc
    try:
        conn = sqlite3.connect(str(target), timeout=5.0)
        db = Database(conn)
        _check_readable(db, target)
        _check_not_newer(db, target)
        if db.journal_mode != "wal":
            db.enable_wal()
        if migrate:
            _apply_migrations(db)
        return db
    except sqlite3.Error as exc:
        raise _translate(exc, target) from exc


def _apply_migrations(db: Database, attempts: int = 50, pause_s: float = 0.1) -> None:
    """Apply pending migrations. Two processes opening a new database at once (a recorder and a reader) both
    read the schema, then write it: SQLite answers the second writer "database is locked" at once, without
    waiting (a read transaction cannot wait for a writer that may wait for it). The loser rolls back and tries
    again; the migrations the winner applied are then no longer pending."""
    for attempt in range(attempts):
        try:
            for migrations in MIGRATION_SETS:
                migrations.apply(db)
            return
        except sqlite3.OperationalError as exc:
            code = getattr(exc, "sqlite_errorcode", None)
            primary = code & 0xFF if isinstance(code, int) else None  # by result code, never by message text
            if primary not in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or attempt == attempts - 1:
                raise
            if db.conn.in_transaction:
                db.conn.rollback()
            time.sleep(pause_s)


def _check_readable(db: Database, target: Path) -> None:
    try:
        db.execute("select count(*) from sqlite_master").fetchone()
    except sqlite3.Error as exc:
        raise _translate(exc, target) from exc


def _check_not_newer(db: Database, target: Path) -> None:
    if not db[MIGRATIONS_TABLE].exists():
        return
    applied = {(r["migration_set"], r["name"]) for r in db[MIGRATIONS_TABLE].rows}
    unknown = sorted(applied - known_migrations())
    if unknown:
        names = ", ".join(f"{s}/{n}" for s, n in unknown[:5])
        raise StoreNewerVersionError(
            _("{path} was written by a newer gpudesk (it has schema changes {names} that this version does not "
              "know). It was not changed. Upgrade gpudesk, or set GPUDESK_DATA_DIR to another folder.").format(
                path=target, names=names)
        )


def database_file(db: Database) -> Path | None:
    """The file behind ``db`` (None for an in-memory database or when even that cannot be read)."""
    try:
        row = db.execute("PRAGMA database_list").fetchone()
    except sqlite3.Error:
        return None
    return Path(row[2]) if row and row[2] else None


def _translate(exc: sqlite3.Error, target: Path) -> StoreError:
    return translate_sqlite_error(exc, target)
