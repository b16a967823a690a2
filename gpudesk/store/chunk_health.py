"""Checksums of recording chunks, and the record of a chunk that failed them.

Every blob of :mod:`gpudesk.store.chunks` is stored with the CRC-32 of its stored (compressed) bytes (zlib's
``crc32``, the ISO 3309 / ITU-T V.42 polynomial; migration ``m004_chunk_checksums`` adds the columns and fills them
for chunks written before). SQLite's own ``integrity_check`` looks at pages and indexes, never at the bytes of a
blob, so a flipped byte inside a chunk passes it; the checksum (and, for chunks from before the checksums, the
zlib stream's own Adler-32 and the expected length) is what finds it.

A damaged chunk costs only its own span: the readers leave it out and say which GPU, metric and time span it held
(:class:`DamagedChunk`); ``gpudesk store check`` lists them and ``gpudesk store recover`` leaves them out of the
copy and counts them.
"""

from __future__ import annotations

import datetime as _dt
import sqlite3
import zlib
from dataclasses import dataclass

import numpy as np

from gpudesk.i18n import _

TIME_BASE = ""  # DamagedChunk.metric of a chunk whose time stamps are damaged (all its metrics are then lost)


def checksum(blob: bytes) -> int:
    """CRC-32 of a stored blob (an unsigned 32-bit value, as SQLite stores it)."""
    return zlib.crc32(blob) & 0xFFFFFFFF


@dataclass(frozen=True)
class DamagedChunk:
    """A chunk that failed its checksum or could not be decoded: which session, GPU, metric and time span.

    ``metric`` is :data:`TIME_BASE` when the chunk's time stamps are damaged: then every metric of that GPU in the
    span is lost. ``t_first``/``t_last`` come from the chunk's own row (stored apart from its blobs)."""

    session_id: int
    gpu_index: int
    seq: int
    metric: str
    t_first: float
    t_last: float
    samples: int
    reason: str

    def describe(self) -> str:
        """One sentence for the user: what was lost and why."""
        span = _("{start} to {end} UTC").format(start=_utc(self.t_first), end=_utc(self.t_last))
        if self.metric == TIME_BASE:
            return _("Recording {session_id}, GPU {gpu}: the time stamps of {samples} samples from {span} are damaged "
                     "({reason}); all metrics of that span were left out.").format(
                session_id=self.session_id, gpu=self.gpu_index, samples=self.samples, span=span, reason=self.reason)
        return _("Recording {session_id}, GPU {gpu}, {metric}: {samples} values from {span} are damaged ({reason}) "
                 "and were left out (shown as N/A).").format(
            session_id=self.session_id, gpu=self.gpu_index, metric=self.metric, samples=self.samples, span=span,
            reason=self.reason)


def _utc(t: float) -> str:
    try:
        return _dt.datetime.fromtimestamp(t, _dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    except (OverflowError, OSError, ValueError):
        return f"{t:g} s"


def checksum_fault(blob: object, stored_crc: object) -> str | None:
    """Why a stored blob fails before decoding (None when it passes): not bytes, or a checksum mismatch.
    ``stored_crc`` None = written before the checksums (then only decoding can tell)."""
    if not isinstance(blob, bytes):
        return _("not a byte string")
    if stored_crc is not None and checksum(blob) != stored_crc:
        return _("checksum mismatch")
    return None


def blob_fault(blob: object, stored_crc: object, dtype: str, n: int) -> str | None:
    """Why a stored blob cannot be trusted (None when it is sound): wrong type, checksum mismatch, not a zlib
    stream, or the wrong length once decompressed. ``stored_crc`` None = written before the checksums."""
    fault = checksum_fault(blob, stored_crc)
    if fault is not None:
        return fault
    assert isinstance(blob, bytes), "checksum_fault refuses anything else"
    try:
        itemsize = np.dtype(dtype).itemsize
    except TypeError:
        return _("unknown value type {dtype}").format(dtype=dtype)
    try:
        raw = zlib.decompressobj()
        out = raw.decompress(blob, n * itemsize + 1)
        if raw.unconsumed_tail or not raw.eof:
            return _("holds more or less data than its {n} samples").format(n=n)
    except zlib.error:
        return _("not a readable compressed block")
    if len(out) != n * itemsize:
        return _("holds more or less data than its {n} samples").format(n=n)
    return None


def _has_column(conn: sqlite3.Connection, table: str, column: str) -> bool:
    return any(r[1] == column for r in conn.execute(f"PRAGMA table_info({table})"))


def find_damaged_chunks(conn: sqlite3.Connection) -> list[DamagedChunk]:
    """Every damaged chunk of every recording (reads and checks each blob once; the database is only read).

    Works on stores from before the checksums too (then the zlib stream and the length are checked)."""
    if not _has_column(conn, "recording_chunks", "t_blob"):
        return []
    crc = _has_column(conn, "recording_chunks", "t_crc")
    t_crc = "t_crc" if crc else "null"
    v_crc = "v.v_crc" if crc else "null"
    found: list[DamagedChunk] = []
    spans: dict[tuple[int, int, int], tuple[float, float, int]] = {}
    for sid, g, seq, t0, t1, n, blob, stored in conn.execute(
            f"select session_id, gpu_index, seq, t_first, t_last, n, t_blob, {t_crc} from recording_chunks "
            "order by session_id, gpu_index, seq"):
        spans[(sid, g, seq)] = (t0, t1, n)
        fault = blob_fault(blob, stored, "<f8", int(n))
        if fault:
            found.append(DamagedChunk(sid, g, seq, TIME_BASE, t0, t1, int(n), fault))
    for sid, g, seq, metric, dtype, blob, stored in conn.execute(
            f"select v.session_id, v.gpu_index, v.seq, v.metric, v.dtype, v.v_blob, {v_crc} "
            "from recording_chunk_values v order by v.session_id, v.gpu_index, v.seq, v.metric"):
        span = spans.get((sid, g, seq))
        if span is None:
            continue
        fault = blob_fault(blob, stored, str(dtype), int(span[2]))
        if fault:
            found.append(DamagedChunk(sid, g, seq, str(metric), span[0], span[1], int(span[2]), fault))
    return found
