"""Columnar sample chunks of a recording: per GPU, a run of samples' time stamps, and per metric its values, each a
numpy array stored as one compressed blob.

Tables (migration ``m003_columnar_chunks`` of the "gpudesk-recordings" set):
    recording_chunks        (session_id, gpu_index, seq) -> t_first, t_last, n, t_blob: the time base (float64 s)
    recording_chunk_values  (session_id, gpu_index, seq, metric) -> dtype ("<f4" / "<f8"), v_blob: the values,
                            NaN = could not be read

Encoding of a blob: the array's bytes regrouped by byte position ("byte shuffle": all first bytes, then all second
bytes, ...; slowly changing numbers then give long runs of equal bytes) and compressed with zlib (RFC 1950) at
level 1. Lossless: ``decode(encode(a))`` gives ``a`` bit for bit, NaN included. Each blob is stored with its
CRC-32 (``t_crc`` / ``v_crc``, migration ``m004_chunk_checksums``; :mod:`gpudesk.store.chunk_health`): a reader
leaves a damaged chunk out and reports it instead of failing the whole recording.

A chunk holds at most :data:`CHUNK_SAMPLES` samples of one GPU. The live recorder rewrites its open chunk at each
commit (every 1-2 s) until it is full, so a killed recorder loses only what it had not committed.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from gpudesk.store.sqlite_lib import Database

from gpudesk.i18n import _
from gpudesk.store.chunk_health import TIME_BASE, DamagedChunk, checksum, checksum_fault
from gpudesk.store.errors import StoreCorruptError, converts_sqlite_errors

CHUNK_SAMPLES = 3600  # per GPU: one hour at 1 Hz; 72 h x 8 GPUs = 576 chunks
_LEVEL = 1  # zlib: the fastest level; the byte shuffle does most of the work

Array = npt.NDArray[np.generic]


def encode(values: Array) -> bytes:
    """Byte-shuffled, zlib-compressed bytes of a 1-D array."""
    raw = np.ascontiguousarray(values)
    shuffled = raw.view(np.uint8).reshape(raw.shape[0], raw.itemsize).T.tobytes()
    return zlib.compress(shuffled, _LEVEL)


def decode(blob: bytes, dtype: str | np.dtype, n: int) -> Array:
    """The array :func:`encode` stored (``n`` values of ``dtype``)."""
    dt = np.dtype(dtype)
    raw = np.frombuffer(zlib.decompress(blob), dtype=np.uint8)
    if raw.shape[0] != n * dt.itemsize:
        raise ValueError(f"chunk holds {raw.shape[0]} bytes, expected {n} x {dt.itemsize}")
    return raw.reshape(dt.itemsize, n).T.copy().view(dt).reshape(n)


def has_checksums(db: Database) -> bool:
    """Whether the chunk tables have their checksum columns (migration m004 applied)."""
    return any(r[1] == "t_crc" for r in db.conn.execute("PRAGMA table_info(recording_chunks)"))


def _decode_checked(blob: object, stored_crc: object, dtype: str, n: int) -> tuple[Array | None, str | None]:
    """(values, None) for a sound blob, (None, why) for a damaged one: the checksum first (cheap), then one
    decode, whose own failures (zlib's Adler-32, the length) also count as damage."""
    fault = checksum_fault(blob, stored_crc)
    if fault is not None:
        return None, fault
    assert isinstance(blob, bytes), "checksum_fault refuses anything else"
    try:
        return decode(blob, dtype, n), None
    except zlib.error:
        return None, _("not a readable compressed block")
    except (ValueError, TypeError):
        return None, _("holds more or less data than its {n} samples").format(n=n)


@dataclass
class Chunk:
    """Samples of one GPU: time stamps (float64 s) and metric columns of the same length (NaN = N/A)."""

    gpu_index: int
    seq: int
    t: npt.NDArray[np.float64]
    values: dict[str, Array]


@converts_sqlite_errors
def write_chunks(db: Database, session_id: int, chunks: Iterable[Chunk]) -> int:
    """Insert (or replace, for the recorder's open chunk) chunks with their checksums; returns the samples
    written. No commit. (Migration m003 writes before the checksum columns exist: then without them.)"""
    conn = db.conn
    checksums = has_checksums(db)
    times: list[tuple[object, ...]] = []
    values: list[tuple[object, ...]] = []
    count = 0
    for c in chunks:
        n = int(c.t.shape[0])
        if not n:
            continue
        count += n
        t_blob = encode(c.t)
        times.append((session_id, c.gpu_index, c.seq, float(c.t[0]), float(c.t[-1]), n, t_blob,
                      *((checksum(t_blob),) if checksums else ())))
        for metric, v in c.values.items():
            v_blob = encode(v)
            values.append((session_id, c.gpu_index, c.seq, metric, v.dtype.str, v_blob,
                           *((checksum(v_blob),) if checksums else ())))
    t_crc, v_crc, mark = (", t_crc", ", v_crc", ", ?") if checksums else ("", "", "")
    conn.executemany("insert or replace into recording_chunks (session_id, gpu_index, seq, t_first, t_last, n, "
                     f"t_blob{t_crc}) values (?, ?, ?, ?, ?, ?, ?{mark})", times)
    conn.executemany("insert or replace into recording_chunk_values (session_id, gpu_index, seq, metric, dtype, "
                     f"v_blob{v_crc}) values (?, ?, ?, ?, ?, ?{mark})", values)
    return count


@converts_sqlite_errors
def next_seq(db: Database, session_id: int) -> int:
    """The first free chunk number of a session (chunk numbers are shared by its GPUs)."""
    row = db.conn.execute("select max(seq) from recording_chunks where session_id = ?", (session_id,)).fetchone()
    return 0 if row is None or row[0] is None else int(row[0]) + 1


def split_columns(session_seq: int, gpu: npt.NDArray[np.int32], t: npt.NDArray[np.float64],
                  metrics: Mapping[str, Array], size: int = CHUNK_SAMPLES) -> Iterator[Chunk]:
    """Columnar rows (any GPU order) cut into chunks of at most ``size`` samples per GPU, numbered from
    ``session_seq``; rows keep their order within a GPU."""
    order = np.argsort(gpu, kind="stable")
    sorted_gpu = gpu[order]
    gpus, starts = np.unique(sorted_gpu, return_index=True)
    ends = [*starts[1:].tolist(), int(order.shape[0])]
    seq = session_seq
    for g, s, e in zip(gpus.tolist(), starts.tolist(), ends):
        rows = order[s:e]
        for a in range(0, rows.shape[0], size):
            part = rows[a:a + size]
            yield Chunk(int(g), seq, t[part], {k: v[part] for k, v in metrics.items()})
            seq += 1


@converts_sqlite_errors
def session_totals(db: Database, session_id: int) -> tuple[int, float | None, float | None]:
    """(samples, first t, last t) of a session's chunks."""
    row = db.conn.execute("select coalesce(sum(n), 0), min(t_first), max(t_last) from recording_chunks "
                          "where session_id = ?", (session_id,)).fetchone()
    return int(row[0]), row[1], row[2]


@converts_sqlite_errors
def read_chunks(
    db: Database,
    session_id: int,
    t0: float,
    t1: float,
    gpus: Sequence[int] | None,
    metrics: Sequence[str] | None,
    dtype_of: Callable[[str], np.dtype],
    damaged: list[DamagedChunk] | None = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int32], dict[str, Array]]:
    """Samples with ``t0 <= t <= t1`` as (t, gpu, {metric: column}), sorted by t (ties in GPU order).

    ``dtype_of(metric)`` gives each column's dtype. Only chunks overlapping the span are read and decoded.

    A damaged chunk (checksum mismatch, unreadable compressed block, wrong length) is left out and appended to
    ``damaged``: a damaged time base drops that chunk's samples, a damaged value column leaves that metric N/A
    over the chunk's span. With ``damaged`` None a damaged chunk raises :class:`StoreCorruptError` instead
    (migration m003 uses that to refuse a conversion that does not read back). A store opened without its
    migrations (from before m004) is read without checksums."""
    where = "session_id = ? and t_last >= ? and t_first <= ?"
    params: list[object] = [session_id, t0, t1]
    if gpus is not None:
        where += f" and gpu_index in ({', '.join('?' * len(gpus))})"
        params.extend(int(g) for g in gpus)
    t_crc, v_crc = ("t_crc", "v.v_crc") if has_checksums(db) else ("null", "null")
    all_rows = db.conn.execute(
        f"select gpu_index, seq, n, t_blob, {t_crc}, t_first, t_last from recording_chunks where {where} "
        "order by gpu_index, seq", params).fetchall()
    chunk_rows = []
    t_parts = []
    for r in all_rows:
        t, fault = _decode_checked(r[3], r[4], "<f8", int(r[2]))
        if t is not None:
            chunk_rows.append(r)
            t_parts.append(t.view(np.float64))
        else:
            _damaged(damaged, DamagedChunk(session_id, int(r[0]), int(r[1]), TIME_BASE, r[5], r[6], int(r[2]),
                                           fault or ""))
    key_of = {(int(r[0]), int(r[1])): i for i, r in enumerate(chunk_rows)}
    sizes = np.array([int(r[2]) for r in chunk_rows], dtype=np.int64)
    offsets = np.concatenate(([0], np.cumsum(sizes))) if sizes.size else np.zeros(1, dtype=np.int64)
    total = int(offsets[-1])
    t_all: npt.NDArray[np.float64] = np.concatenate(t_parts).astype(np.float64, copy=False) if t_parts else \
        np.empty(0, dtype=np.float64)
    del t_parts
    gpu_all = np.repeat(np.array([int(r[0]) for r in chunk_rows], dtype=np.int32), sizes)
    columns: dict[str, Array] = {}
    wanted = set(metrics) if metrics is not None else None
    cursor = db.conn.execute(
        f"select v.gpu_index, v.seq, v.metric, v.dtype, v.v_blob, {v_crc} from recording_chunk_values v "
        "join recording_chunks c using (session_id, gpu_index, seq) where "
        + " and ".join(f"c.{part}" for part in where.split(" and ")), params)
    for gpu_index, seq, metric, dtype, blob, stored_crc in cursor:
        if wanted is not None and metric not in wanted:
            continue
        i = key_of.get((int(gpu_index), int(seq)))
        if i is None:
            continue
        n = int(sizes[i])
        values, fault = _decode_checked(blob, stored_crc, str(dtype), n)
        if values is None:
            row = chunk_rows[i]
            _damaged(damaged, DamagedChunk(session_id, int(gpu_index), int(seq), str(metric), row[5], row[6], n,
                                           fault or ""))
            continue
        col = columns.get(metric)
        if col is None:
            col = columns[metric] = np.full(total, np.nan, dtype=dtype_of(metric))
        col[offsets[i]:offsets[i + 1]] = values
    keep = (t_all >= t0) & (t_all <= t1)
    if not keep.all():
        t_all, gpu_all = t_all[keep], gpu_all[keep]
        columns = {k: v[keep] for k, v in columns.items()}
    if t_all.size > 1 and np.any(np.diff(t_all) < 0):
        order = np.argsort(t_all, kind="stable")
        t_all, gpu_all = t_all[order], gpu_all[order]
        for k in list(columns):
            columns[k] = columns[k][order]
    return t_all, gpu_all, columns


def _damaged(into: list[DamagedChunk] | None, chunk: DamagedChunk) -> None:
    """Note a damaged chunk, or raise when the caller keeps no list (it wants all or nothing)."""
    if into is None:
        raise StoreCorruptError(
            _("A chunk of recording {session_id} is damaged and cannot be read.").format(session_id=chunk.session_id),
            detail=chunk.describe(), remedy=_("Export what you can and move the database file aside."),
        )
    into.append(chunk)
