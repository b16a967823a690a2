"""Record sample batches into the user store, and read recordings back as frames.

The recorder runs in the caller's thread with its own database connection (the UI runs it inside its sampler
ThreadWorker; the CLI in its main loop). Samples go into an open columnar chunk per GPU
(:mod:`gpudesk.store.chunks`), rewritten and committed every ``flush_interval_s`` (1 s by default) in one
transaction until it holds :data:`LIVE_CHUNK_SAMPLES`; so a killed process loses at most what it gathered since
the last commit (1-2 s). The store is in WAL mode, and a session that was never stopped stays readable (shown as
interrupted).

A failed write (disk full, damaged page) is raised once as :class:`RecordingFailed`, naming the file: the
transaction is rolled back, so every chunk committed before stays readable as it was, the recording stops, and
later batches are dropped instead of raising again on every tick.
"""

from __future__ import annotations

import math
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from gpudesk.store.sqlite_lib import Database

from gpudesk.i18n import _
from gpudesk.progress import Progress
from gpudesk.store import StoreError, chunks, open_store
from gpudesk.store import recordings as rec
from gpudesk.store.chunk_health import DamagedChunk
from gpudesk.store.db import database_file
from gpudesk.store.errors import store_error_for
from gpudesk.telemetry.core.model import (
    DeviceInfo,
    SampleBatch,
    History,
    TelemetryError,
    column_dtype,
)


def storable_text(text: str) -> str:
    """``text`` as valid UTF-8 text: lone surrogates (a non-UTF-8 file name decoded by os.fsdecode) become
    backslash escapes."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


class RecorderError(TelemetryError):
    """The recorder was used out of order (write before start, ...)."""


class RecordingFailed(TelemetryError, StoreError):
    """The database could not be opened or written while recording (disk full, damaged page, newer version,
    locked). Both a TelemetryError (the sampler's and the CLI's recording paths catch those) and a StoreError;
    ``store_error`` is the store's own error (StoreFullError, StoreCorruptError, StoreNewerVersionError...),
    whose message names the file and says what to do (its remedy is part of this error's message)."""

    def __init__(self, store_error: StoreError):
        super().__init__(store_error.user_text(), field=store_error.field, detail=store_error.detail)
        self.store_error = store_error


# Samples per GPU in a live chunk (20 min at 1 Hz): each commit rewrites the open chunk, so this bounds the work
# per commit; a 72-hour recording is 216 chunks per GPU.
LIVE_CHUNK_SAMPLES = 1200


class _OpenChunk:
    """Samples of one GPU not yet sealed in a full chunk."""

    def __init__(self, gpu_index: int, seq: int):
        self.gpu_index = gpu_index
        self.seq = seq
        self.t: list[float] = []
        self.values: dict[str, list[float]] = {}

    def add(self, t: float, values: dict[str, float | None]) -> None:
        n = len(self.t)
        self.t.append(t)
        for name, v in values.items():
            col = self.values.get(name)
            if col is None:
                col = self.values[name] = [math.nan] * n
            col.append(math.nan if v is None else float(v))
        for col in self.values.values():
            if len(col) <= n:
                col.append(math.nan)

    def chunk(self) -> chunks.Chunk:
        return chunks.Chunk(self.gpu_index, self.seq, np.array(self.t, dtype=np.float64),
                            {k: np.array(v, dtype=column_dtype(k)) for k, v in self.values.items()})

    def present(self) -> list[str]:
        return [k for k, v in self.values.items() if any(not math.isnan(x) for x in v)]


def device_rows(devices: Iterable[DeviceInfo]) -> list[dict[str, Any]]:
    return [
        {
            "gpu_index": d.index, "uuid": d.uuid, "name": d.name, "pci_bus_id": d.pci_bus_id,
            "memory_total_bytes": d.memory_total_bytes, "pcie_gen_max": d.pcie_gen_max,
            "pcie_width_max_lanes": d.pcie_width_max_lanes, "pcie_link_source": d.pcie_link_source,
            "power_limit_w": d.power_limit_w, "mig_mode": d.mig_mode, "lost_reason": d.lost_reason,
        }
        for d in devices
    ]


class Recorder:
    """Buffered, crash-safe writer of one recording session at a time.

    Args:
        db: a Database opened in this thread; None opens the user store here (closed by :meth:`close`).
        flush_interval_s: commit period in seconds.
        clock: monotonic time source (tests).
    """

    def __init__(self, db: Database | None = None, *, flush_interval_s: float = 1.0,
                 clock: Callable[[], float] = time.monotonic):
        self._own = db is None
        try:
            self.db = db if db is not None else open_store()
        except StoreError as exc:  # newer-version, damaged, locked or unwritable database: say so, once
            raise RecordingFailed(exc) from exc
        self.flush_interval_s = float(flush_interval_s)
        self._clock = clock
        self.session_id: int | None = None
        self._open: dict[int, _OpenChunk] = {}
        self._dirty: set[int] = set()
        self._next_seq = 0
        self._pending_rows = 0
        self._reasons: dict[tuple[int, str], str] = {}
        self._last_flush = clock()
        self._last_t: float | None = None
        self.rows_written = 0
        # set when a write failed (disk full, damaged database): the error was raised once, the recording has
        # stopped, and later batches are dropped instead of raising again on every tick
        self.failed: RecordingFailed | None = None

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """Turn a failed write (a store error, or a foreign sqlite3/OS error) into :class:`RecordingFailed`
        naming the file, roll back, and stop the recording."""
        try:
            yield
        except (StoreError, sqlite3.Error, OSError) as exc:
            if isinstance(exc, RecordingFailed):
                raise
            err = RecordingFailed(store_error_for(exc, database_file(self.db)))
            self.failed = err
            self.session_id = None
            self._open, self._dirty, self._pending_rows, self._reasons = {}, set(), 0, {}
            try:
                if self.db.conn.in_transaction:
                    self.db.conn.rollback()
            except sqlite3.Error:
                pass  # the connection is as broken as the write: nothing more to undo
            raise err from exc

    def start(
        self,
        devices: Iterable[DeviceInfo],
        *,
        source: str,
        interval_s: float | None = None,
        notes: str = "",
        name: str | None = None,
        host: str | None = None,
        driver_version: str | None = None,
        nvml_version: str | None = None,
        gpu_model: str | None = None,
        link_assumption: str | None = None,
    ) -> int:
        """Create the session (host, versions, GPU names and UUIDs, interval, notes); returns its id."""
        if self.session_id is not None:
            raise RecorderError(_("A recording is already running; stop it before starting another."))
        self.failed = None
        # a file name that is not UTF-8 arrives with lone surrogates (os.fsdecode), which SQLite cannot store:
        # kept as backslash escapes (dmon-\udcff.log) instead of ending the import in UnicodeEncodeError
        name, source, notes = (None if name is None else storable_text(name)), storable_text(source), \
            storable_text(notes)
        with self._writing():
            self.session_id = rec.create_session(
                self.db, name=name, source=source, interval_s=interval_s, host=host, driver_version=driver_version,
                nvml_version=nvml_version, notes=notes, gpu_model=gpu_model, link_assumption=link_assumption,
                started_at=time.time(), gpus=device_rows(devices),
            )
        self.rows_written = 0
        self._open, self._dirty, self._next_seq, self._pending_rows = {}, set(), 0, 0
        self._last_flush = self._clock()
        return self.session_id

    def write(self, batch: SampleBatch) -> None:
        """Buffer one batch; commits when the flush interval has passed.

        Raises:
            RecordingFailed: the commit failed (its ``store_error`` is a StoreFullError when the disk is full);
                the recording stops, and batches written after that are dropped (see ``failed``).
        """
        if self.failed is not None:
            return
        if self.session_id is None:
            raise RecorderError(_("Start a recording before writing samples."))
        for s in batch.samples:
            open_chunk = self._open.get(s.gpu_index)
            if open_chunk is None:
                open_chunk = self._open[s.gpu_index] = _OpenChunk(s.gpu_index, self._next_seq)
                self._next_seq += 1
            open_chunk.add(s.t, s.values)
            self._dirty.add(s.gpu_index)
            self._pending_rows += 1
            for metric, why in s.reasons.items():
                key = (s.gpu_index, metric)
                if key not in self._reasons:
                    self._reasons[key] = why
            self._last_t = s.t
        if self._clock() - self._last_flush >= self.flush_interval_s:
            self.flush()

    def write_frame(self, frame: History, progress: Progress | None = None) -> int:
        """Write a whole frame (dmon import) in committed chunks; returns rows written."""
        if self.session_id is None:
            raise RecorderError(_("Start a recording before writing samples."))
        self.flush()
        with self._writing():
            t, gpu, columns = frame.rows()  # the store keeps one row per (time, GPU)
            n = rec.insert_arrays(self.db, self.session_id, t, gpu, columns, progress=progress)
            self._next_seq = chunks.next_seq(self.db, self.session_id)
            self._open = {}
            rec.set_reasons(self.db, self.session_id, frame.reasons)
        self.rows_written += n
        if len(frame):
            self._last_t = float(frame.times[-1])
        return n

    def flush(self) -> None:
        """Commit what is buffered (one transaction)."""
        if self.session_id is None:
            return
        with self._writing():
            if self._dirty:
                sid = self.session_id
                dirty = [self._open[g] for g in sorted(self._dirty)]
                present = {name for c in dirty for name in c.present()}
                # one transaction: on failure the chunks keep their last committed version
                rec.write_live_chunks(self.db, sid, [c.chunk() for c in dirty], sorted(present))
                self.rows_written += self._pending_rows  # counted once the transaction committed
                self._pending_rows = 0
                self._dirty = set()
                for c in dirty:
                    if len(c.t) >= LIVE_CHUNK_SAMPLES:
                        del self._open[c.gpu_index]  # sealed: the next sample of this GPU opens a new chunk
            if self._reasons:
                rec.set_reasons(self.db, self.session_id, self._reasons)
                self._reasons = {}
        self._last_flush = self._clock()

    def discard(self) -> None:
        """Roll back what is not committed and delete the session being written (an import the user interrupted
        with Ctrl+C): the store then holds no half import. Safe to call when nothing is being written."""
        sid = self.session_id
        if sid is None:
            return
        self.session_id = None
        self._open, self._dirty, self._reasons, self._pending_rows = {}, set(), {}, 0
        if self.db.conn.in_transaction:
            self.db.conn.rollback()
        rec.delete_session(self.db, sid)

    def stop(self) -> int | None:
        """Flush, mark the session ended; returns its id."""
        sid = self.session_id
        if sid is None:
            return None
        self.flush()
        with self._writing():
            rec.finish_session(self.db, sid, self._last_t if self._last_t is not None else time.time())
        self.session_id = None
        return sid

    def close(self) -> None:
        """Stop any running session and close the connection if this recorder opened it (always closed, even
        when the last commit fails: that error is raised after closing)."""
        try:
            self.stop()
        finally:
            if self._own:
                self.db.close()


def load_frame(db: Database, session_id: int, t0: float | None = None, t1: float | None = None,
               gpus: list[int] | None = None, metrics: list[str] | None = None) -> History:
    """A recording (or a span of it; optionally only some GPUs or metrics) as a :class:`History` with its
    N/A reasons. A damaged chunk is left out: its span is N/A (the reason says so) and a note names the GPU,
    metric and time span it held; ``gpudesk store check`` lists such chunks.

    Raises:
        StoreError: no such session.
    """
    damaged: list[DamagedChunk] = []
    try:
        t, gpu, cols = rec.read_arrays(db, session_id, t0, t1, gpus, metrics, dtypes=column_dtype, damaged=damaged)
        reasons = rec.session_reasons(db, session_id)
    except StoreError as exc:  # a damaged page under this recording: the message names the file, how to recover
        named = store_error_for(exc, database_file(db))
        if named is exc:  # not a database fault (no such session...): as it was
            raise
        raise named from exc
    for d in damaged:
        reasons.setdefault((d.gpu_index, d.metric), d.describe())
    notes = [d.describe() for d in damaged]
    if damaged:
        notes.append(_("Run 'gpudesk store check' to list every damaged chunk, and 'gpudesk store recover' to "
                       "copy the rest into a new file."))
    return History.from_rows(t, gpu, cols, reasons, notes=notes)


def session_devices(db: Database, session_id: int) -> list[DeviceInfo]:
    """DeviceInfo per GPU of a recording (including the PCIe link assumption for dmon imports)."""
    out = []
    for r in rec.session_gpus(db, session_id):
        out.append(DeviceInfo(
            index=r["gpu_index"], uuid=r["uuid"], name=r["name"], pci_bus_id=r["pci_bus_id"],
            memory_total_bytes=r["memory_total_bytes"], pcie_gen_max=r["pcie_gen_max"],
            pcie_width_max_lanes=r["pcie_width_max_lanes"], pcie_link_source=r["pcie_link_source"],
            power_limit_w=r["power_limit_w"], mig_mode=r["mig_mode"], lost_reason=r["lost_reason"],
        ))
    return out
