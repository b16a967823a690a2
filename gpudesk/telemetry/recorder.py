"""Record sample batches into the user store, and read recordings back as frames.

The recorder runs in the caller's thread with its own database connection (the UI runs it inside its sampler
ThreadWorker; the CLI in its main loop). Batches are buffered and committed every ``flush_interval_s`` (1 s by
default) in one transaction, so a killed process loses at most the last second or two; the store is in WAL mode,
and a session that was never stopped stays readable (shown as interrupted).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

from sqlite_utils import Database

from gpudesk.store import StoreError, open_store
from gpudesk.store import recordings as rec
from gpudesk.store.db import database_file, translate_error
from gpudesk.telemetry.model import (
    DeviceInfo,
    SampleBatch,
    SeriesFrame,
    TelemetryError,
    column_dtype,
)


class RecorderError(TelemetryError):
    """The recorder was used out of order (write before start, ...)."""


class RecordingFailed(RecorderError, StoreError):
    """The database could not be opened or written while recording (disk full, damaged page, newer version,
    locked). Both a TelemetryError (the sampler's and the CLI's recording paths catch those) and a StoreError;
    ``store_error`` is the store's own error (StoreFullError, StoreCorruptError, StoreNewerVersionError...),
    whose message names the file and says what to do."""

    def __init__(self, store_error: StoreError):
        super().__init__(str(store_error))
        self.store_error = store_error


def device_rows(devices: Iterable[DeviceInfo]) -> list[dict]:
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
        self._rows: dict[tuple[str, ...], list[tuple]] = {}
        self._reasons: dict[tuple[int, str], str] = {}
        self._last_flush = clock()
        self._last_t: float | None = None
        self.rows_written = 0
        # set when a write failed (disk full, damaged database): the error was raised once, the recording has
        # stopped, and later batches are dropped instead of raising again on every tick
        self.failed: RecordingFailed | None = None

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """Convert sqlite3/OS errors of a write into the store's error (file named, what to do) and stop."""
        try:
            yield
        except (sqlite3.Error, OSError) as exc:
            err = RecordingFailed(translate_error(exc, database_file(self.db)))
            self.failed = err
            self.session_id = None
            self._rows = {}
            self._reasons = {}
            try:
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
            raise RecorderError("A recording is already running; stop it before starting another.")
        self.failed = None
        with self._writing():
            self.session_id = rec.create_session(
                self.db, name=name, source=source, interval_s=interval_s, host=host, driver_version=driver_version,
                nvml_version=nvml_version, notes=notes, gpu_model=gpu_model, link_assumption=link_assumption,
                started_at=time.time(), gpus=device_rows(devices),
            )
        self.rows_written = 0
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
            raise RecorderError("Start a recording before writing samples.")
        for s in batch.samples:
            names = tuple(s.values)
            self._rows.setdefault(names, []).append((s.t, s.gpu_index, *s.values.values()))
            for metric, why in s.reasons.items():
                key = (s.gpu_index, metric)
                if key not in self._reasons:
                    self._reasons[key] = why
            self._last_t = s.t
        if self._clock() - self._last_flush >= self.flush_interval_s:
            self.flush()

    def write_frame(self, frame: SeriesFrame, progress: Callable[[int, int], None] | None = None) -> int:
        """Write a whole frame (dmon import) in committed chunks; returns rows written."""
        if self.session_id is None:
            raise RecorderError("Start a recording before writing samples.")
        with self._writing():
            n = rec.insert_arrays(self.db, self.session_id, frame.t, frame.gpu, frame.metrics, progress=progress)
            rec.set_reasons(self.db, self.session_id, frame.reasons)
        self.rows_written += n
        if len(frame):
            self._last_t = float(frame.t[-1])
        return n

    def flush(self) -> None:
        """Commit what is buffered (one transaction)."""
        if self.session_id is None:
            return
        with self._writing():
            if self._rows:
                written = 0
                with self.db.conn:
                    for names, rows in self._rows.items():
                        rec.insert_rows(self.db, self.session_id, list(names), rows, commit=False)
                        written += len(rows)
                self.rows_written += written  # counted once the transaction committed
                self._rows = {}
            if self._reasons:
                rec.set_reasons(self.db, self.session_id, self._reasons)
                self._reasons = {}
        self._last_flush = self._clock()

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
               gpus: list[int] | None = None, metrics: list[str] | None = None) -> SeriesFrame:
    """A recording (or a span of it; optionally only some GPUs or metrics) as a :class:`SeriesFrame` with its
    N/A reasons.

    Raises:
        StoreError: no such session.
    """
    try:
        t, gpu, cols = rec.read_arrays(db, session_id, t0, t1, gpus, metrics, dtypes=column_dtype)
        reasons = rec.session_reasons(db, session_id)
    except sqlite3.DatabaseError as exc:  # a damaged page under this recording: say which file, how to recover
        raise translate_error(exc, database_file(db)) from exc
    return SeriesFrame(t, gpu, cols, reasons, sort=False)


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
