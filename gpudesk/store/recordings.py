"""Recording sessions in the user store (migration set "gpudesk-recordings").

Tables:
    recording_sessions  one row per session: name, host, driver/NVML versions, source, interval, notes, the
                        GPU-model assumption for dmon imports, start/end (epoch s), format version.
    recording_gpus      one row per GPU of a session: index, UUID, name, PCI bus id, memory total, PCIe max
                        generation/width and where that link came from ("nvml" or "catalog:<id>").
    recording_samples   wide: (session_id, t, gpu_index) plus one REAL column per known metric (NULL = N/A).
                        Wide rows keep batched inserts fast (one row per GPU per tick instead of one per
                        metric) and a span read is one indexed range scan on (session_id, t).
    recording_extra     narrow (session_id, t, gpu_index, metric, value) for metrics without a column, e.g.
                        unknown dmon columns.
    recording_reasons   (session_id, gpu_index, metric) -> why values were N/A (first reason seen).
    recording_metrics   (session_id, metric): the metrics a session holds (read without a scan).

Crash safety: the store is in WAL mode and the recorder commits every 1-2 s, so a killed process loses at most
the uncommitted batch; a session without ``ended_at`` is shown as interrupted and is fully readable.
Functions take a sqlite-utils ``Database`` opened in the calling thread (``gpudesk.store.open_store``).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
from sqlite_utils import Database, Migrations

from gpudesk.i18n import _
from gpudesk.progress import Progress
from gpudesk.store.errors import StoreError, converts_sqlite_errors
from gpudesk.store.migrations import register

FORMAT_VERSION = 1
_READ_CHUNK = 50_000

# Metric columns of recording_samples (names as in gpudesk.telemetry.model; units in the names). Adding a
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
    db["recording_sessions"].create(
        {
            "id": int, "name": str, "created_at": str, "started_at": float, "ended_at": float, "host": str,
            "driver_version": str, "nvml_version": str, "source": str, "interval_s": float, "notes": str,
            "gpu_model": str, "link_assumption": str, "format_version": int,
        },
        pk="id",
        not_null={"name", "created_at", "source", "format_version"},
    )
    db["recording_gpus"].create(
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
    db["recording_samples"].create(columns)
    db["recording_samples"].create_index(["session_id", "t"], index_name="idx_recording_samples_session_t")
    db["recording_extra"].create({"session_id": int, "t": float, "gpu_index": int, "metric": str, "value": float})
    db["recording_extra"].create_index(["session_id", "t"], index_name="idx_recording_extra_session_t")
    db["recording_reasons"].create(
        {"session_id": int, "gpu_index": int, "metric": str, "reason": str},
        pk=("session_id", "gpu_index", "metric"),
    )


@migrations()
def m002_recording_metrics(db: Database) -> None:
    """Which metrics each session holds, so a span read need not scan the whole session to find them."""
    db["recording_metrics"].create({"session_id": int, "metric": str}, pk=("session_id", "metric"))


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
    gpus: list[dict] | None = None,
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
        sid = db["recording_sessions"].insert(row).last_pk
        for g in gpus or []:
            db["recording_gpus"].insert({**g, "session_id": sid})
    return int(sid)


@converts_sqlite_errors
def insert_rows(db: Database, session_id: int, columns: list[str], rows: list[tuple], *, commit: bool = True,
                present: list[str] | None = None) -> None:
    """Insert sample rows: each row is (t, gpu_index, *values in ``columns`` order); None = N/A.

    Columns without a place in recording_samples go to recording_extra (narrow). ``present`` (the columns that
    have at least one value) is computed when not given.
    """
    wide = [c for c in columns if c in _COLSET]
    extra = [(i, c) for i, c in enumerate(columns) if c not in _COLSET]
    conn = db.conn
    if present is None:
        present = [c for i, c in enumerate(columns) if any(r[2 + i] is not None for r in rows)]
    if present:
        conn.executemany("insert or ignore into recording_metrics (session_id, metric) values (?, ?)",
                         [(session_id, c) for c in present])
    pos = [columns.index(c) for c in wide]
    sql = (f"insert into recording_samples (session_id, t, gpu_index{''.join(', ' + c for c in wide)}) "
           f"values (?, ?, ?{', ?' * len(wide)})")
    if len(pos) == len(columns):
        conn.executemany(sql, [(session_id, *r) for r in rows])
    else:
        conn.executemany(sql, [(session_id, r[0], r[1], *[r[2 + p] for p in pos]) for r in rows])
    if extra:
        conn.executemany(
            "insert into recording_extra (session_id, t, gpu_index, metric, value) values (?, ?, ?, ?, ?)",
            [(session_id, r[0], r[1], c, r[2 + i]) for r in rows for i, c in extra if r[2 + i] is not None],
        )
    if commit:
        conn.commit()


@converts_sqlite_errors
def insert_arrays(db: Database, session_id: int, t: np.ndarray, gpu: np.ndarray, metrics: dict[str, np.ndarray],
                  *, chunk: int = 50_000, progress: Progress | None = None) -> int:
    """Bulk insert columnar data (NaN -> NULL), committing every ``chunk`` rows; returns rows written."""
    names = list(metrics)
    n = int(t.shape[0])
    for s in range(0, n, chunk):
        e = min(n, s + chunk)
        cols = [t[s:e].tolist(), gpu[s:e].tolist()]
        present = []
        for name in names:
            v = metrics[name][s:e]
            missing = np.isnan(v)
            if missing.all():
                cols.append([None] * (e - s))
                continue
            present.append(name)
            obj = v.astype(object)
            obj[missing] = None
            cols.append(obj.tolist())
        insert_rows(db, session_id, names, list(zip(*cols)), commit=True, present=present)
        if progress is not None:
            progress(_("Saved {done} of {total} samples.").format(done=e, total=n), e / n if n else 1.0)
    return n


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


def _require(db: Database, session_id: int) -> dict:
    rows = list(db["recording_sessions"].rows_where("id = ?", [session_id]))
    if not rows:
        raise StoreError(f"No recording with id {session_id}. List them with 'gpudesk monitor analyze --list'.")
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


def _to_session(db: Database, row: dict) -> RecordingSession:
    sid = row["id"]
    n, first, last = db.conn.execute(
        "select count(*), min(t), max(t) from recording_samples where session_id = ?", (sid,)
    ).fetchone()
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
        raise StoreError("A recording name cannot be empty.")
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
        for table in ("recording_samples", "recording_extra", "recording_reasons", "recording_metrics",
                      "recording_gpus"):
            db.conn.execute(f"delete from {table} where session_id = ?", (session_id,))
        db.conn.execute("delete from recording_sessions where id = ?", (session_id,))


@converts_sqlite_errors
def session_gpus(db: Database, session_id: int) -> list[dict]:
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
) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """Samples of a session in ``t0 <= t <= t1`` as (t float64, gpu int32, {metric: array, NaN = N/A}), sorted
    by t.

    Only metric columns with at least one value in the session are returned (and, when ``metrics`` is given,
    only those: a 72-hour, 8-GPU NVML recording holds about 30 metrics, 16.6 MB each as float64, 8.3 MB as
    float32); extra (narrow) metrics are merged in by (t, gpu). ``dtypes`` gives each metric's column dtype (a
    mapping or a function of the name; float64 otherwise): columns are allocated in that dtype and filled chunk
    by chunk, so the peak is the result plus one chunk.
    """
    _require(db, session_id)
    lo = -1e300 if t0 is None else float(t0)
    hi = 1e300 if t1 is None else float(t1)
    known = {r[0] for r in db.conn.execute("select metric from recording_metrics where session_id = ?", (session_id,))}
    if known:
        present = [c for c in SAMPLE_COLUMNS if c in known]
    else:  # written before recording_metrics existed: find the columns with values (one scan)
        counts = db.conn.execute(
            f"select {', '.join(f'count({c})' for c in SAMPLE_COLUMNS)} from recording_samples where session_id = ?",
            (session_id,),
        ).fetchone()
        present = [c for c, n in zip(SAMPLE_COLUMNS, counts) if n]
    if metrics is not None:
        wanted = set(metrics)
        present = [c for c in present if c in wanted]
    where = "session_id = ? and t >= ? and t <= ?"
    params: list = [session_id, lo, hi]
    if gpus is not None:
        where += f" and gpu_index in ({', '.join('?' * len(gpus))})"
        params.extend(int(g) for g in gpus)
    sel = ", ".join(["t", "gpu_index", *present])
    n = db.conn.execute(f"select count(*) from recording_samples where {where}", params).fetchone()[0]
    def dtype_of(name: str) -> np.dtype:
        if dtypes is None:
            return np.dtype(np.float64)
        return np.dtype(dtypes(name) if callable(dtypes) else dtypes.get(name, np.float64))

    # filled chunk by chunk: never the whole span as Python tuples (2 million wide rows would take gigabytes)
    t = np.empty(n, dtype=np.float64)
    gpu = np.empty(n, dtype=np.int32)
    cols = {c: np.empty(n, dtype=dtype_of(c)) for c in present}
    targets = [t, gpu, *cols.values()]
    # the (session_id, t) index yields rows in time order (ties in insertion order): no sort step in SQLite
    cur = db.conn.execute(f"select {sel} from recording_samples where {where} order by t", params)
    filled = 0
    while filled < n:
        chunk = cur.fetchmany(_READ_CHUNK)[: n - filled]  # rows a running recorder adds meanwhile are left out
        if not chunk:
            break
        block = np.array(chunk, dtype=np.float64).reshape(len(chunk), 2 + len(present))
        for j, target in enumerate(targets):
            target[filled:filled + len(chunk)] = block[:, j]
        filled += len(chunk)
    if filled < n:
        t, gpu = t[:filled], gpu[:filled]
        cols = {c: v[:filled] for c, v in cols.items()}
    extra = db.conn.execute(
        f"select t, gpu_index, metric, value from recording_extra where {where}", params).fetchall()
    if metrics is not None:
        extra = [row for row in extra if row[2] in wanted]
    if extra and len(t):
        index = {(tt, gg): i for i, (tt, gg) in enumerate(zip(t.tolist(), gpu.tolist()))}
        for tt, gg, metric, value in extra:
            col = cols.get(metric)
            if col is None:
                col = cols[metric] = np.full(len(t), np.nan, dtype=dtype_of(metric))
            i = index.get((tt, gg))
            if i is not None and value is not None:
                col[i] = value
    return t, gpu, cols
