#!/usr/bin/env python3
"""Build gpudesk's bundled catalog (``gpudesk/catalog/catalog.db``) from the CSV sources in ``db/``.

Usage: ``python db/build_catalog.py [--out PATH]`` (``make catalog`` runs it).

The build is deterministic: the same CSV files give a byte-identical database. There is no timestamp in
it; ``meta.build_date`` is the latest ``date_checked`` of the sources, and ``meta.sources_sha256`` is a
digest of the CSV bytes. Header fields that SQLite writes from the library version are normalised so that
two machines with different SQLite builds produce the same file from the same page contents.

Every CSV column must exist in ``schema.sql`` and every NOT NULL column must be filled; a bad cell stops
the build with the file, line and column named (nothing is written then).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import sqlite3
import sys
import tempfile
from pathlib import Path

from sqlite_utils import Database

DB_DIR = Path(__file__).resolve().parent
DEFAULT_OUT = DB_DIR.parent / "gpudesk" / "catalog" / "catalog.db"
SCHEMA_VERSION = 1

# CSV file -> table, in load order (links before servers: servers reference link ids).
TABLES: list[tuple[str, str]] = [
    ("gpus.csv", "gpus"),
    ("links.csv", "links"),
    ("servers.csv", "servers"),
    ("models.csv", "models"),
    ("precision.csv", "precision_support"),
    ("cuda_arch.csv", "cuda_arch_support"),
    ("scenarios.csv", "scenarios"),
    ("sources.csv", "sources"),
    ("prices.csv", "prices"),
    ("stacks.csv", "software_stacks"),
    ("gpu_markets.csv", "gpu_markets"),
    ("gpu_packages.csv", "gpu_packages"),
    ("gpu_memory_ecc.csv", "gpu_memory_ecc"),
    ("gpu_sms.csv", "gpu_streaming_multiprocessors"),
]

# Columns computed here rather than read from the CSV.
COMPUTED = {"gpus": {"memory_bytes"}}

GIB = 2**30


class BuildError(Exception):
    """A source file is missing, malformed or inconsistent; the message names the file, line and column."""


def _convert(value: str, decl_type: str, where: str) -> object:
    text = value.strip()
    if text == "":
        return None
    kind = decl_type.upper()
    try:
        if kind.startswith("INT"):
            return int(text)
        if kind.startswith("REAL"):
            return float(text)
    except ValueError as exc:
        raise BuildError(f"{where}: {text!r} is not a number ({decl_type}).") from exc
    return text


def _columns(conn: sqlite3.Connection, table: str) -> dict[str, tuple[str, bool]]:
    """Column name -> (declared type, not null) for ``table``."""
    rows = conn.execute(f"PRAGMA table_info({table})").fetchall()
    return {r[1]: (r[2], bool(r[3]) or bool(r[5])) for r in rows}


def read_rows(src_dir: Path, filename: str, table: str, conn: sqlite3.Connection) -> list[dict]:
    """Read one CSV into typed row dicts checked against the table's schema.

    Raises:
        BuildError: missing file, unknown column, empty required cell, non-numeric number, duplicate key.
    """
    path = src_dir / filename
    if not path.exists():
        raise BuildError(f"{path} is missing; every catalog source listed in build_catalog.TABLES is required.")
    columns = _columns(conn, table)
    computed = COMPUTED.get(table, set())
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        header = reader.fieldnames or []
        unknown = [c for c in header if c not in columns]
        if unknown:
            raise BuildError(f"{path}: columns {unknown} are not in db/schema.sql table {table}.")
        missing = [c for c, (_, required) in columns.items() if required and c not in header and c not in computed]
        if missing:
            raise BuildError(f"{path}: required columns {missing} are missing.")
        rows = []
        for line, raw in enumerate(reader, start=2):
            if None in raw:
                raise BuildError(f"{path}:{line}: more cells than header columns.")
            row = {}
            for name in header:
                where = f"{path}:{line} column {name}"
                value = _convert(raw[name] or "", columns[name][0], where)
                if value is None and columns[name][1]:
                    raise BuildError(f"{where}: a value is required.")
                row[name] = value
            rows.append(row)
    if table == "gpus":
        for row in rows:
            row["memory_bytes"] = int(round(row["memory_gb"] * GIB))
    return rows


def _digest(src_dir: Path) -> str:
    sha = hashlib.sha256()
    for filename, _ in TABLES:
        sha.update(filename.encode())
        sha.update((src_dir / filename).read_bytes())
    sha.update((src_dir / "schema.sql").read_bytes())
    return sha.hexdigest()


def _normalise_header(path: Path) -> None:
    """Fix the header fields that depend on the SQLite library rather than the content.

    Offsets (https://www.sqlite.org/fileformat.html): 24 file change counter, 92 version-valid-for
    (must equal the change counter), 96 SQLITE_VERSION_NUMBER of the last writer.
    """
    with path.open("r+b") as handle:
        handle.seek(24)
        handle.write((1).to_bytes(4, "big"))
        handle.seek(92)
        handle.write((1).to_bytes(4, "big"))
        handle.write((3_000_000).to_bytes(4, "big"))


def build(out: Path = DEFAULT_OUT, src_dir: Path = DB_DIR) -> Path:
    """Build the catalog into ``out`` (replaced atomically); returns ``out``.

    Raises:
        BuildError: a source is missing or invalid (``out`` is left as it was).
    """
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=".catalog-", suffix=".db", dir=out.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    tmp.unlink()
    try:
        conn = sqlite3.connect(str(tmp), isolation_level=None)
        conn.execute("PRAGMA page_size = 4096")
        conn.executescript((src_dir / "schema.sql").read_text(encoding="utf-8"))
        db = Database(conn)
        counts = {}
        data_date = ""
        for filename, table in TABLES:
            rows = read_rows(src_dir, filename, table, conn)
            try:
                conn.execute("BEGIN")
                db[table].insert_all(rows)
                conn.execute("COMMIT")
            except sqlite3.IntegrityError as exc:
                conn.execute("ROLLBACK")
                raise BuildError(f"{src_dir / filename}: {exc} (duplicate id or a value outside the allowed set).") from exc
            counts[table] = len(rows)
            data_date = max([data_date] + [r["date_checked"] for r in rows])
        _check_references(conn)
        conn.execute("INSERT INTO gpus_fts(gpus_fts) VALUES ('rebuild')")
        meta = {
            "schema_version": str(SCHEMA_VERSION),
            "build_date": data_date,
            "sources_sha256": _digest(src_dir),
            "counts": json.dumps(counts, sort_keys=True),
            "units": "GB and GB/s decimal; memory_bytes physical (binary); dense TFLOPS/TOPS; watts",
            # The page layout may change between SQLite releases; the test compares bytes only when equal.
            "sqlite_version": sqlite3.sqlite_version,
        }
        db["meta"].insert_all([{"key": k, "value": v} for k, v in sorted(meta.items())])
        conn.execute("VACUUM")
        conn.close()
        _normalise_header(tmp)
        os.replace(tmp, out)
    finally:
        if tmp.exists():
            tmp.unlink()
    return out


def _check_references(conn: sqlite3.Connection) -> None:
    links = {r[0] for r in conn.execute("SELECT id FROM links")}
    gpus = {r[0] for r in conn.execute("SELECT id FROM gpus")}
    servers = {r[0] for r in conn.execute("SELECT id FROM servers")}
    for pid, item_kind, item_id, kind, unit in conn.execute("SELECT id, item_kind, item_id, kind, unit FROM prices"):
        known = gpus if item_kind == "gpu" else servers
        if item_id not in known:
            raise BuildError(f"prices.csv row {pid}: {item_kind} id {item_id!r} is not in {item_kind}s.csv.")
        if kind.startswith("cloud-") != (unit == "per-gpu-hour"):
            raise BuildError(f"prices.csv row {pid}: a cloud rate is per-gpu-hour and a purchase price is not (kind {kind}, unit {unit}).")
    for (gpu_id,) in conn.execute("SELECT gpu_id FROM gpu_markets"):
        if gpu_id not in gpus:
            raise BuildError(f"gpu_markets.csv: gpu id {gpu_id!r} is not in gpus.csv.")
    for gpu_id, devices in conn.execute("SELECT gpu_id, devices FROM gpu_packages"):
        if gpu_id not in gpus:
            raise BuildError(f"gpu_packages.csv: gpu id {gpu_id!r} is not in gpus.csv.")
        memory_gb = conn.execute("SELECT memory_gb FROM gpus WHERE id = ?", (gpu_id,)).fetchone()[0]
        if memory_gb % devices:
            raise BuildError(f"gpu_packages.csv: {gpu_id}'s {memory_gb:g} GB does not split into {devices} devices.")
    for gpu_id, memory_type in conn.execute(
            "SELECT e.gpu_id, g.memory_type FROM gpu_memory_ecc e LEFT JOIN gpus g ON g.id = e.gpu_id"):
        if memory_type is None:
            raise BuildError(f"gpu_memory_ecc.csv: gpu id {gpu_id!r} is not in gpus.csv.")
        if not memory_type.upper().startswith("GDDR"):
            raise BuildError(f"gpu_memory_ecc.csv: {gpu_id} has {memory_type} memory; only GDDR cards lose memory to ECC.")
    models = {r[0] for r in conn.execute("SELECT id FROM models")}
    for mid, base, fmt in conn.execute("SELECT id, base_model, checkpoint_weight_format FROM models "
                                       "WHERE base_model IS NOT NULL"):
        if base not in models or base == mid:
            raise BuildError(f"models.csv row {mid}: base_model {base!r} is not another row of models.csv.")
        if not fmt:
            raise BuildError(f"models.csv row {mid}: a base_model link is for a quantized checkpoint; "
                             "give its checkpoint_weight_format.")
    for (gpu_id,) in conn.execute("SELECT gpu_id FROM gpu_streaming_multiprocessors"):
        if gpu_id not in gpus:
            raise BuildError(f"gpu_sms.csv: gpu id {gpu_id!r} is not in gpus.csv.")
    for sid, inter, host, gpu_ids in conn.execute("SELECT id, interconnect, host_link, gpu_ids FROM servers"):
        for link in (inter, host):
            if link not in links:
                raise BuildError(f"servers.csv row {sid}: link id {link!r} is not in links.csv.")
        for gid in filter(None, (gpu_ids or "").split(";")):
            if gid not in gpus:
                raise BuildError(f"servers.csv row {sid}: GPU id {gid!r} is not in gpus.csv.")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output file (default {DEFAULT_OUT})")
    parser.add_argument("--src", type=Path, default=DB_DIR, help="folder with schema.sql and the CSV sources")
    args = parser.parse_args(argv)
    try:
        path = build(args.out, args.src)
    except BuildError as exc:
        print(f"build_catalog: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {path} ({path.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
