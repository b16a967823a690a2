"""``gpudesk store``: check the user database and recover what is readable from a damaged one."""

from __future__ import annotations

import argparse
import datetime
import sqlite3
from pathlib import Path

from gpudesk import paths
from gpudesk.cli import CliError
from gpudesk.i18n import _
from gpudesk.store import StoreError
from gpudesk.store.chunk_health import find_damaged_chunks
from gpudesk.store.salvage import salvage_database


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser("store", help="check or recover the user database (plans, recordings, diagnoses)",
                              description="The user database: integrity check, and recovery of the readable rows "
                                          "of a damaged file into a new one.")
    sub = p.add_subparsers(dest="store_command", metavar="ACTION")
    c = sub.add_parser("check", help="run SQLite's integrity check on the database and say where it is")
    c.add_argument("--db", type=Path, default=None, help="database file (default: the user database)")
    c.set_defaults(func=cmd_check)
    r = sub.add_parser("recover", help="copy every readable row of a damaged database into a new file")
    r.add_argument("--db", type=Path, default=None, help="damaged database (default: the user database)")
    r.add_argument("--to", type=Path, default=None,
                   help="new file for the copy (default: gpudesk-recovered-<date>.db beside the database)")
    r.set_defaults(func=cmd_recover)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _source(arg: Path | None) -> Path:
    path = arg if arg is not None else paths.store_path()
    if not path.is_file():
        raise CliError(_("{path}: no such database file.").format(path=path))
    return path


def cmd_check(args: argparse.Namespace) -> int:
    path = _source(args.db)
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            rows = [r[0] for r in conn.execute("PRAGMA integrity_check(20)").fetchall()]
            damaged = find_damaged_chunks(conn) if rows == ["ok"] else []
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise CliError(_("{path} cannot be checked ({reason}). Run 'gpudesk store recover' to copy what is "
                         "readable into a new file.").format(path=path, reason=exc), status=1) from exc
    if rows == ["ok"] and not damaged:
        print(_("{path}: ok").format(path=path))
        return 0
    print(_("{path} is damaged:").format(path=path))
    if rows != ["ok"]:
        for line in rows:
            print(f"  {line}")
    if damaged:
        print(_("  {count} recording chunks fail their checksum or cannot be decoded:").format(count=len(damaged)))
    for chunk in damaged:
        print(f"  {chunk.describe()}")
    print(_("Run 'gpudesk store recover' to copy every readable row into a new file, then move the damaged one "
            "aside."))
    return 1


def cmd_recover(args: argparse.Namespace) -> int:
    src = _source(args.db)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    dest = args.to if args.to is not None else src.with_name(f"gpudesk-recovered-{stamp}.db")
    try:
        result = salvage_database(src, dest)
    except StoreError as exc:
        raise CliError.from_error(exc) from exc
    print(_("Copied {copied} rows from {src} into {dest} ({lost} unreadable rows left behind; integrity of the "
            "copy: {check}).").format(copied=result.rows_copied, src=src, dest=dest, lost=result.rows_lost,
                                      check=result.check))
    for table in sorted(result.copied):
        lost = result.lost.get(table, 0)
        if lost:
            print(_("  {table}: {rows} rows, {lost} unreadable").format(table=table, rows=result.copied[table],
                                                                       lost=lost))
        else:
            print(_("  {table}: {rows} rows").format(table=table, rows=result.copied[table]))
    for table in result.unreadable_tables:
        print(_("  {table}: unreadable, nothing copied").format(table=table))
    if result.damaged_chunks:
        print(_("{count} damaged recording chunks were left out of the copy:").format(count=len(result.damaged_chunks)))
    for chunk in result.damaged_chunks:
        print(f"  {chunk.describe()}")
    print(_("To use the copy: close gpudesk, move {name} aside, and rename {copy} to {name}.").format(
        name=src.name, copy=dest.name))
    return 0
