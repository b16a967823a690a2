"""Recording sessions in the user store (migration set "gpudesk-recordings").

Tables:
    recording_sessions  one row per session: name, host, driver/NVML versions, source, interval, notes, the
                        GPU-model assumption for dmon imports, start/end (epoch s), format version.
    recording_gpus      one row per GPU of a session: index, UUID, name, PCI bus id, memory total, PCIe max
                        generation/width and where that link came from ("nvml" or "catalog:<id>").
    recording_chunks,   the samples, as compressed columnar chunks per GPU (time base) and metric (values):
    recording_chunk_values  see :mod:`gpudesk.store.chunks`. Written by migration m003 from the row tables of
                        m001 (recording_samples wide rows, recording_extra narrow rows), which it empties
                        after checking that every value was carried over; they stay (empty) for old readers.
    recording_reasons   (session_id, gpu_index, metric) -> why values were N/A (first reason seen).
    recording_metrics   (session_id, metric): the metrics a session holds (read without a scan).

Crash safety: the store is in WAL mode and the recorder commits its open chunk every 1-2 s, so a killed process
loses at most the uncommitted part of that chunk; a session without ``ended_at`` is shown as interrupted and is fully readable.
Functions take a sqlite-utils ``Database`` opened in the calling thread (``gpudesk.store.open_store``).
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from gpudesk.store.sqlite_lib import Database, Migrations

from gpudesk.i18n import _
from gpudesk.progress import Progress
from gpudesk.store import chunks
from gpudesk.store.chunk_health import DamagedChunk, checksum
from gpudesk.store.errors import StoreError, converts_sqlite_errors
from gpudesk.store.migrations import register

FORMAT_VERSION = 1
_READ_CHUNK = 50_000

# Metric columns of recording_samples (names as in gpudesk.telemetry.core.model; units in the names). Adding a
# metric later means a new migration that adds its column; unknown metrics go to recording_extra meanwhile.
SAMPLE_COLUMNS: tuple[str, ...] = (
    "gpu_util_pct", "mem_util_pct", "enc_util_pct", "dec_util_pct", "jpg_util_pct", "ofa_util_pct",
    "mem_used_bytes", "mem_free_bytes", "mem_total_bytes", "mem_reserved_bytes", "bar1_used_bytes",
    "ccpm_used_bytes", "pcie_rx_bytes_per_s", "pcie_tx_bytes_per_s", "pcie_gen_current", "pcie_gen_max",
    "pcie_width_current_lanes", "pcie_width_max_lanes", "power_w", "power_limit_w", "gpu_temp_c", "mem_temp_c",
    "sm_clock_hz", "mem_clock_hz", "clock_event_reasons", "power_violation_pct", "thermal_violation",
    "ecc_sbe_volatile_count", "ecc_dbe_volatile_count", "pcie_replay_count", "retired_pages_sbe_count",
    "retired_pages_dbe_count", "retired_pages_pending", "nvlink_rx_bytes_per_s", "nvlink_tx_bytes_per_s",
)
_COLSET = frozenset(SAMPLE_COLUMNS)

migrations = register(Migrations("gpudesk-recordings"))


@migrations()
def m001_recordings(db: Database) -> None:
    """Sessions, their GPUs, wide samples, extra narrow samples and N/A reasons."""
    db.table("recording_sessions").create(
        {
            "id": int, "name": str, "created_at": str, "started_at": float, "ended_at": float, "host": str,
            "driver_version": str, "nvml_version": str, "source": str, "interval_s": float, "notes": str,
            "gpu_model": str, "link_assumption": str, "format_version": int,
        },
        pk="id",
        not_null={"name", "created_at", "source", "format_version"},
    )
    db.table("recording_gpus").create(
        {
            "session_id": int, "gpu_index": int, "uuid": str, "name": str, "pci_bus_id": str,
            "memory_total_bytes": int, "pcie_gen_max": int, "pcie_width_max_lanes": int,
            "pcie_link_source": str, "power_limit_w": float, "mig_mode": str, "lost_reason": str,
        },
        pk=("session_id", "gpu_index"),
        foreign_keys=[("session_id", "recording_sessions", "id")],
    )
    columns = {"session_id": int, "t": float, "gpu_index": int}
    columns.update({c: float for c in SAMPLE_COLUMNS})
    db.table("recording_samples").create(columns)
    db.table("recording_samples").create_index(["session_id", "t"], index_name="idx_recording_samples_session_t")
    db.table("recording_extra").create({"session_id": int, "t": float, "gpu_index": int, "metric": str, "value": float})
    db.table("recording_extra").create_index(["session_id", "t"], index_name="idx_recording_extra_session_t")
    db.table("recording_reasons").create(
        {"session_id": int, "gpu_index": int, "metric": str, "reason": str},
        pk=("session_id", "gpu_index", "metric"),
    )


@migrations()
def m002_recording_metrics(db: Database) -> None:
    """Which metrics each session holds, so a span read need not scan the whole session to find them."""
    db.table("recording_metrics").create({"session_id": int, "metric": str}, pk=("session_id", "metric"))


@migrations()
def m003_columnar_chunks(db: Database) -> None:
    """Samples as compressed columnar chunks; the rows of recording_samples / recording_extra are converted
    session by session (values checked equal, NaN for NULL) and then deleted. Nothing is lost: a session whose
    conversion does not read back equal stops the migration, which is rolled back."""
    db.table("recording_chunks").create(
        {"session_id": int, "gpu_index": int, "seq": int, "t_first": float, "t_last": float, "n": int,
         "t_blob": bytes},
        pk=("session_id", "gpu_index", "seq"),
    )
    db.table("recording_chunks").create_index(["session_id", "t_first"], index_name="idx_recording_chunks_session_t")
    db.table("recording_chunk_values").create(
        {"session_id": int, "gpu_index": int, "seq": int, "metric": str, "dtype": str, "v_blob": bytes},
        pk=("session_id", "gpu_index", "seq", "metric"),
    )
    sessions = [int(r[0]) for r in db.conn.execute("select id from recording_sessions order by id")]
    for sid in sessions:
        _convert_rows(db, sid)
    db.conn.execute("delete from recording_samples")
    db.conn.execute("delete from recording_extra")


def _convert_rows(db: Database, session_id: int) -> None:
    """One session's wide and narrow rows -> chunks (all in float64, so nothing is rounded)."""
    conn = db.conn
    counts = conn.execute(
        f"select count(*), {', '.join(f'count({c})' for c in SAMPLE_COLUMNS)} from recording_samples "
        "where session_id = ?", (session_id,)).fetchone()
    n = int(counts[0])
    present = [c for c, k in zip(SAMPLE_COLUMNS, counts[1:]) if k]
    t = np.empty(n)
    gpu = np.empty(n, dtype=np.int32)
    cols = {c: np.empty(n) for c in present}
    cur = conn.execute(f"select {', '.join(['t', 'gpu_index', *present])} from recording_samples "
                       "where session_id = ? order by t, rowid", (session_id,))
    filled = 0
    while True:
        rows = cur.fetchmany(_READ_CHUNK)
        if not rows:
            break
        block = np.array(rows, dtype=np.float64).reshape(len(rows), 2 + len(present))
        t[filled:filled + len(rows)] = block[:, 0]
        gpu[filled:filled + len(rows)] = block[:, 1]
        for j, c in enumerate(present):
            cols[c][filled:filled + len(rows)] = block[:, 2 + j]
        filled += len(rows)
    extra = conn.execute("select t, gpu_index, metric, value from recording_extra where session_id = ?",
                         (session_id,)).fetchall()
    if extra:
        index = {(tt, gg): i for i, (tt, gg) in enumerate(zip(t.tolist(), gpu.tolist()))}
        for tt, gg, metric, value in extra:
            i = index.get((tt, gg))
            if i is None or value is None:
                continue
            col = cols.get(metric)
            if col is None:
                col = cols[metric] = np.full(n, np.nan)
            col[i] = value
    chunks.write_chunks(db, session_id, chunks.split_columns(0, gpu, t, cols))
    conn.executemany("insert or ignore into recording_metrics (session_id, metric) values (?, ?)",
                     [(session_id, c) for c in cols])
    back_t, back_gpu, back = chunks.read_chunks(db, session_id, -math.inf, math.inf, None, None,
                                                lambda _m: np.dtype(np.float64))
    same = np.array_equal(back_t, t) and np.array_equal(back_gpu, gpu) and all(
        np.array_equal(back[c], v, equal_nan=True) for c, v in cols.items())
    if not same:
        raise StoreError(_("Recording {session_id} did not read back equal after conversion to chunks; the "
                           "database was left as it was. Report this with the file.").format(session_id=session_id))


@migrations()
def m004_chunk_checksums(db: Database) -> None:
    """The CRC-32 of every chunk blob (:mod:`gpudesk.store.chunk_health`), computed here for the chunks written
    before; a reader then leaves one damaged chunk out instead of losing the recording."""
    db.conn.execute("alter table recording_chunks add column t_crc integer")
    db.conn.execute("alter table recording_chunk_values add column v_crc integer")
    db.conn.create_function("gpudesk_crc32", 1, _crc_or_null, deterministic=True)
    db.conn.execute("update recording_chunks set t_crc = gpudesk_crc32(t_blob)")
    db.conn.execute("update recording_chunk_values set v_crc = gpudesk_crc32(v_blob)")


def _crc_or_null(blob: object) -> int | None:
    return checksum(blob) if isinstance(blob, bytes) else None


@dataclass
class RecordingSession:
    """A recording as listed: ``interrupted`` when it has no end time (the recorder was killed or is running)."""

    id: int
    name: str
    created_at: str
    started_at: float | None
    ended_at: float | None
    host: str | None
    driver_version: str | None
    nvml_version: str | None
    source: str
    interval_s: float | None
    notes: str
    gpu_model: str | None
    link_assumption: str | None
    gpu_count: int = 0
    sample_rows: int = 0
    first_t: float | None = None
    last_t: float | None = None

    @property
    def interrupted(self) -> bool:
        return self.ended_at is None

    @property
    def duration_s(self) -> float:
        if self.first_t is None or self.last_t is None:
            return 0.0
        return self.last_t - self.first_t


@converts_sqlite_errors
def create_session(
    db: Database,
    *,
    name: str | None = None,
    source: str,
    interval_s: float | None = None,
    host: str | None = None,
    driver_version: str | None = None,
    nvml_version: str | None = None,
    notes: str = "",
    gpu_model: str | None = None,
    link_assumption: str | None = None,
    started_at: float | None = None,
    gpus: list[dict[str, Any]] | None = None,
) -> int:
    """Insert a session and its GPUs (dicts with recording_gpus' columns); returns the new session id."""
    now = _dt.datetime.now(_dt.timezone.utc)
    row = {
        "name": name or f"{source} {now.strftime('%Y-%m-%d %H:%M')}",
        "created_at": now.isoformat(timespec="seconds"),
        "started_at": started_at, "ended_at": None, "host": host, "driver_version": driver_version,
        "nvml_version": nvml_version, "source": source, "interval_s": interval_s, "notes": notes or "",
        "gpu_model": gpu_model, "link_assumption": link_assumption, "format_version": FORMAT_VERSION,
    }
    with db.conn:
        sid = db.table("recording_sessions").insert(row).last_pk
        for g in gpus or []:
            db.table("recording_gpus").insert({**g, "session_id": sid})
    assert sid is not None, "sqlite assigns a rowid on every insert"
    return int(sid)


@converts_sqlite_errors
def insert_rows(db: Database, session_id: int, columns: list[str], rows: list[tuple[Any, ...]], *,
                commit: bool = True, present: list[str] | None = None) -> None:
    """Insert sample rows: each row is (t, gpu_index, *values in ``columns`` order); None = N/A. Stored as new
    chunks (use :func:`insert_arrays` for columnar data). ``present`` (the columns that have at least one value)
    is computed when not given."""
    if not rows:
        return
    data = np.array([[math.nan if v is None else v for v in r] for r in rows], dtype=np.float64)
    metrics = {c: data[:, 2 + i] for i, c in enumerate(columns)}
    insert_arrays(db, session_id, data[:, 0].copy(), data[:, 1].astype(np.int32), metrics, commit=commit,
                  present=present)


@converts_sqlite_errors
def insert_arrays(db: Database, session_id: int, t: np.ndarray, gpu: np.ndarray, metrics: dict[str, np.ndarray],
                  *, chunk: int = chunks.CHUNK_SAMPLES, progress: Progress | None = None,
                  commit: bool = True, present: list[str] | None = None) -> int:
    """Store columnar data (NaN = N/A) as chunks of at most ``chunk`` samples per GPU; returns rows written.
    Each array keeps its dtype (float32 columns stay float32)."""
    n = int(t.shape[0])
    if not n:
        return 0
    if present is None:
        present = [c for c, v in metrics.items() if not np.all(np.isnan(v))]
    conn = db.conn
    conn.executemany("insert or ignore into recording_metrics (session_id, metric) values (?, ?)",
                     [(session_id, c) for c in present])
    kept = {c: metrics[c] for c in present}
    written = 0
    parts = chunks.split_columns(chunks.next_seq(db, session_id), np.asarray(gpu, dtype=np.int32),
                                 np.asarray(t, dtype=np.float64), kept, chunk)
    for part in parts:
        written += chunks.write_chunks(db, session_id, [part])
        if progress is not None:
            progress(_("Saved {done} of {total} samples.").format(done=written, total=n), written / n)
    if commit:
        conn.commit()
    return n


@converts_sqlite_errors
def write_live_chunks(db: Database, session_id: int, parts: list[chunks.Chunk], present: list[str]) -> int:
    """Write (or rewrite, for a recorder's open chunks) ``parts`` and note the metrics that have values, in one
    committed transaction; returns the samples written."""
    with db.conn:
        db.conn.executemany("insert or ignore into recording_metrics (session_id, metric) values (?, ?)",
                            [(session_id, name) for name in present])
        return chunks.write_chunks(db, session_id, parts)


@converts_sqlite_errors
def set_reasons(db: Database, session_id: int, reasons: dict[tuple[int, str], str]) -> None:
    """Keep why values were N/A (existing reasons are kept: the first one seen wins)."""
    if not reasons:
        return
    db.conn.executemany(
        "insert or ignore into recording_reasons (session_id, gpu_index, metric, reason) values (?, ?, ?, ?)",
        [(session_id, int(g), m, r) for (g, m), r in reasons.items()],
    )
    db.conn.commit()


@converts_sqlite_errors
def finish_session(db: Database, session_id: int, ended_at: float) -> None:
    with db.conn:
        db.conn.execute("update recording_sessions set ended_at = ? where id = ?", (ended_at, session_id))


def _require(db: Database, session_id: int) -> dict[str, Any]:
    rows = list(db["recording_sessions"].rows_where("id = ?", [session_id]))
    if not rows:
        raise StoreError(_("No recording with id {id}.").format(id=session_id), field="session_id",
                         remedy=_("List them with 'gpudesk monitor analyze --list'."))
    return rows[0]


@converts_sqlite_errors
def get_session(db: Database, session_id: int) -> RecordingSession:
    """One session with its row count and time range.

    Raises:
        StoreError: no such session.
    """
    row = _require(db, session_id)
    return _to_session(db, row)


@converts_sqlite_errors
def list_sessions(db: Database) -> list[RecordingSession]:
    """All sessions, newest first."""
    return [_to_session(db, r) for r in db["recording_sessions"].rows_where(order_by="id desc")]


def _to_session(db: Database, row: dict[str, Any]) -> RecordingSession:
    sid = row["id"]
    n, first, last = chunks.session_totals(db, sid)
    gpus = db.conn.execute("select count(*) from recording_gpus where session_id = ?", (sid,)).fetchone()[0]
    return RecordingSession(
        id=sid, name=row["name"], created_at=row["created_at"], started_at=row["started_at"],
        ended_at=row["ended_at"], host=row["host"], driver_version=row["driver_version"],
        nvml_version=row["nvml_version"], source=row["source"], interval_s=row["interval_s"],
        notes=row["notes"] or "", gpu_model=row["gpu_model"], link_assumption=row["link_assumption"],
        gpu_count=gpus, sample_rows=n, first_t=first, last_t=last,
    )


@converts_sqlite_errors
def rename_session(db: Database, session_id: int, name: str) -> None:
    """Raises StoreError for an empty name or an unknown session."""
    if not name or not name.strip():
        raise StoreError(_("A recording name cannot be empty."), field="name")
    _require(db, session_id)
    with db.conn:
        db.conn.execute("update recording_sessions set name = ? where id = ?", (name.strip(), session_id))


@converts_sqlite_errors
def set_notes(db: Database, session_id: int, notes: str) -> None:
    _require(db, session_id)
    with db.conn:
        db.conn.execute("update recording_sessions set notes = ? where id = ?", (notes or "", session_id))


@converts_sqlite_errors
def delete_session(db: Database, session_id: int) -> None:
    """Delete a session and all its samples (the user asked for it)."""
    _require(db, session_id)
    with db.conn:
        for table in ("recording_chunk_values", "recording_chunks", "recording_samples", "recording_extra",
                      "recording_reasons", "recording_metrics", "recording_gpus"):
            db.conn.execute(f"delete from {table} where session_id = ?", (session_id,))
        db.conn.execute("delete from recording_sessions where id = ?", (session_id,))


@converts_sqlite_errors
def session_gpus(db: Database, session_id: int) -> list[dict[str, Any]]:
    return list(db["recording_gpus"].rows_where("session_id = ?", [session_id], order_by="gpu_index"))


@converts_sqlite_errors
def session_reasons(db: Database, session_id: int) -> dict[tuple[int, str], str]:
    return {(r["gpu_index"], r["metric"]): r["reason"]
            for r in db["recording_reasons"].rows_where("session_id = ?", [session_id])}


@converts_sqlite_errors
def read_arrays(
    db: Database,
    session_id: int,
    t0: float | None = None,
    t1: float | None = None,
    gpus: list[int] | None = None,
    metrics: list[str] | None = None,
    dtypes: Mapping[str, np.dtype] | Callable[[str], np.dtype] | None = None,
    damaged: list[DamagedChunk] | None = None,
) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """Samples of a session in ``t0 <= t <= t1`` as (t float64, gpu int32, {metric: array, NaN = N/A}), sorted
    by t (ties in GPU order).

    Only metrics with at least one value in the session are returned (and, when ``metrics`` is given, only
    those). ``dtypes`` gives each metric's column dtype (a mapping or a function of the name; float64
    otherwise). Only the chunks that overlap the span are decompressed, straight into the result columns.
    A damaged chunk is left out and appended to ``damaged`` (raised as StoreCorruptError when it is None).
    """
    _require(db, session_id)
    lo = -math.inf if t0 is None else float(t0)
    hi = math.inf if t1 is None else float(t1)
    known = [r[0] for r in db.conn.execute("select metric from recording_metrics where session_id = ?",
                                           (session_id,))]
    wanted: list[str] | None = known if metrics is None else [c for c in known if c in set(metrics)]
    if not known:  # the metrics index was lost: read every stored metric, keep those with values
        wanted = None if metrics is None else list(metrics)

    def dtype_of(name: str) -> np.dtype:
        if dtypes is None:
            return np.dtype(np.float64)
        return np.dtype(dtypes(name) if callable(dtypes) else dtypes.get(name, np.float64))

    t, gpu, cols = chunks.read_chunks(db, session_id, lo, hi, gpus, wanted, dtype_of, damaged)
    if not known:
        cols = {k: v for k, v in cols.items() if not np.all(np.isnan(v))}
    return t, gpu, cols
