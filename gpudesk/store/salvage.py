"""Copy every readable row of a damaged gpudesk database into a new file (the source is only read).

A garbled page in the middle of the file breaks the queries that touch it ("database disk image is malformed"),
not the whole file. Rows are read in rowid ranges; a range that fails is read again row by row, so only the
rows on damaged pages are lost. Tables are created from the schema the source records (``sqlite_master``), the
migration history included, so the copy opens as an ordinary store of the same version; indexes are rebuilt
after the copy. Recording chunks whose checksum fails (:mod:`gpudesk.store.chunk_health`; SQLite's own checks
cannot see a flipped byte inside a blob) are left out of the copy and counted. ``PRAGMA quick_check`` then vouches
for the result. The copy is created with the source file's permissions (a 0600 store gives a 0600 copy).
"""

from __future__ import annotations

import os
import sqlite3
import stat
from dataclasses import dataclass, field
from pathlib import Path

from gpudesk.i18n import _
from gpudesk.store.chunk_health import TIME_BASE, DamagedChunk, find_damaged_chunks
from gpudesk.store.errors import StoreCorruptError, StoreUnwritableError

CHUNK_ROWS = 1000


@dataclass
class SalvageResult:
    """What was copied: table -> rows copied and rows lost (unreadable), and the quick_check verdict."""

    source: Path
    target: Path
    copied: dict[str, int] = field(default_factory=dict)
    lost: dict[str, int] = field(default_factory=dict)
    unreadable_tables: list[str] = field(default_factory=list)
    damaged_chunks: list[DamagedChunk] = field(default_factory=list)
    check: str = ""

    @property
    def rows_copied(self) -> int:
        return sum(self.copied.values())

    @property
    def rows_lost(self) -> int:
        return sum(self.lost.values())


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def salvage_database(source: Path, target: Path) -> SalvageResult:
    """Copy the readable rows of ``source`` into the new file ``target``.

    Raises:
        StoreCorruptError: even the schema of ``source`` cannot be read (nothing to copy).
        StoreUnwritableError: ``target`` exists already or cannot be written.
    """
    if target.exists():
        raise StoreUnwritableError(_("{target} exists already; choose a new file name for the recovered copy.").format(
            target=target), field=str(target))
    try:
        src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise StoreCorruptError(_("Cannot open {source}.").format(source=source), field=str(source),
                                detail=str(exc)) from exc
    try:
        try:
            schema = src.execute("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL").fetchall()
        except sqlite3.DatabaseError as exc:
            raise StoreCorruptError(_("The table list of {source} is itself damaged; no rows can be recovered from "
                                      "it.").format(source=source), field=str(source), detail=str(exc)) from exc
        try:
            _create_like(source, target)
            dst = sqlite3.connect(str(target))
        except OSError as exc:
            raise StoreUnwritableError(_("Cannot create {target}: {reason}.").format(
                target=target, reason=exc.strerror or exc), field=str(target), detail=str(exc)) from exc
        except sqlite3.Error as exc:
            raise StoreUnwritableError(_("Cannot create {target}.").format(target=target), field=str(target),
                                       detail=str(exc)) from exc
        try:
            result = SalvageResult(source, target)
            tables = [(n, sql) for kind, n, sql in schema if kind == "table" and not n.startswith("sqlite_")]
            for name, sql in tables:
                dst.execute(sql)
                _copy_table(src, dst, name, result)
            for kind, _name, sql in schema:
                if kind in ("index", "trigger", "view"):
                    try:
                        dst.execute(sql)
                    except sqlite3.Error:  # an index over rows that were lost cannot be unique any more
                        continue
            _drop_damaged_chunks(dst, result)
            dst.commit()
            result.check = str(dst.execute("PRAGMA quick_check").fetchone()[0])
            return result
        except sqlite3.Error as exc:
            raise StoreUnwritableError(_("Cannot write {target}.").format(target=target), field=str(target),
                                       detail=str(exc)) from exc
        finally:
            dst.close()
    finally:
        src.close()


def _copy_table(src: sqlite3.Connection, dst: sqlite3.Connection, name: str, result: SalvageResult) -> None:
    q = _quote(name)
    try:
        ncols = len(src.execute(f"SELECT * FROM {q} LIMIT 0").description)
        top = src.execute(f"SELECT max(rowid) FROM {q}").fetchone()[0]
    except sqlite3.DatabaseError:
        top = None
        ncols = 0
    if not ncols:
        result.unreadable_tables.append(name)
        return
    cols = [d[0] for d in src.execute(f"SELECT * FROM {q} LIMIT 0").description]
    insert = (f"INSERT INTO {q} (rowid, {', '.join(_quote(c) for c in cols)}) "
              f"VALUES ({', '.join('?' * (len(cols) + 1))})")
    select = f"SELECT rowid, * FROM {q} WHERE rowid >= ? AND rowid < ? ORDER BY rowid"
    copied = lost = 0
    if top is None:  # max(rowid) itself unreadable: walk ranges until a long run of empty ones
        top = _probe_top(src, q)
    start = _first_rowid(src, q)
    while start is not None and start <= top:
        end = start + CHUNK_ROWS
        try:
            rows = src.execute(select, (start, end)).fetchall()
        except sqlite3.DatabaseError:
            rows = []
            for rowid in range(start, end):
                try:
                    rows.extend(src.execute(select, (rowid, rowid + 1)).fetchall())
                except sqlite3.DatabaseError:
                    lost += 1
        dst.executemany(insert, rows)
        copied += len(rows)
        start = end
    result.copied[name] = copied
    # rowids that failed one by one are counted; gaps in rowids are not (deleted rows leave gaps too)
    result.lost[name] = lost


def _first_rowid(src: sqlite3.Connection, q: str) -> int | None:
    try:
        row = src.execute(f"SELECT min(rowid) FROM {q}").fetchone()
    except sqlite3.DatabaseError:
        return 1
    return None if row is None or row[0] is None else int(row[0])


def _probe_top(src: sqlite3.Connection, q: str) -> int:
    """The highest rowid reachable by range reads when max(rowid) itself fails (stops after 1000 empty ranges)."""
    top, start, empty = 0, 1, 0
    while empty < 1000:
        try:
            row = src.execute(f"SELECT max(rowid) FROM {q} WHERE rowid >= ? AND rowid < ?",
                              (start, start + CHUNK_ROWS)).fetchone()
            if row and row[0] is not None:
                top, empty = int(row[0]), 0
            else:
                empty += 1
        except sqlite3.DatabaseError:
            top, empty = start + CHUNK_ROWS, 0
        start += CHUNK_ROWS
    return top


def _create_like(source: Path, target: Path) -> None:
    """Create the empty ``target`` with the permission bits of ``source`` (SQLite would follow the umask, and
    its journal files copy the database file's mode)."""
    mode = stat.S_IMODE(os.stat(source).st_mode) & 0o666
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        os.fchmod(fd, mode)  # O_CREAT's mode passes through the umask
    finally:
        os.close(fd)


def _drop_damaged_chunks(dst: sqlite3.Connection, result: SalvageResult) -> None:
    """Delete the copied chunks that fail their checks (a damaged time base takes its value blobs with it) and
    count them as lost rows."""
    try:
        damaged = find_damaged_chunks(dst)
    except sqlite3.Error:  # no chunk tables in this store
        return
    for d in damaged:
        key = (d.session_id, d.gpu_index, d.seq)
        if d.metric == TIME_BASE:
            gone = dst.execute("delete from recording_chunk_values where session_id = ? and gpu_index = ? and seq = ?",
                               key).rowcount
            dst.execute("delete from recording_chunks where session_id = ? and gpu_index = ? and seq = ?", key)
            _move_to_lost(result, "recording_chunks", 1)
            _move_to_lost(result, "recording_chunk_values", gone)
        else:
            dst.execute("delete from recording_chunk_values where session_id = ? and gpu_index = ? and seq = ? "
                        "and metric = ?", (*key, d.metric))
            _move_to_lost(result, "recording_chunk_values", 1)
    result.damaged_chunks = damaged


def _move_to_lost(result: SalvageResult, table: str, rows: int) -> None:
    result.copied[table] = result.copied.get(table, 0) - rows
    result.lost[table] = result.lost.get(table, 0) + rows
