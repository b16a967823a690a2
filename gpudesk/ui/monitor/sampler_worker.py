"""The monitor's background worker: owns one sample source and the recorder, on its own thread.

Everything slow happens here, never on the GUI thread: opening NVML (or starting a dmon command), each
poll, the process listing, and every recording write. The QTimer and the recorder's database connection
are created inside the worker thread (in :meth:`SamplerWorker.begin` and the recording slots; the pattern of
``gpudesk.ui.workers.ThreadWorker``, started by :func:`start_sampler`). Results reach the tab through queued signals; requests from the tab
(start/stop recording, change the interval) are signals too, so they run in this thread.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QThread, QTimer, Signal, Slot

from gpudesk.ui.workers import ThreadWorker, failure_text, start_worker
from gpudesk.telemetry.core.source import SourceKind


def start_sampler(worker: SamplerWorker, name: str = "gpudesk-monitor") -> QThread:
    """Start ``worker`` on its own QThread (``gpudesk.ui.workers.start_worker``; ``setup`` runs
    :meth:`SamplerWorker.begin` in that thread); stop it with ``gpudesk.ui.workers.stop_worker``."""
    return start_worker(worker, name)


POLL_MS_STREAM = 200  # dmon streams and replays: pick up what arrived this often


class SamplerWorker(ThreadWorker):
    """Polls ``source_factory()``'s source on a timer and forwards batches; records them on request.

    Args:
        source_factory: called once in the worker thread; returns a ``SampleSource`` (may raise
            ``NvmlUnavailableError`` -> :attr:`unavailable`; any other exception -> :attr:`sourceFailed`).
        list_processes: optional ``fn(source) -> ProcessListing`` called every ``process_interval_s``.
        recorder_factory: ``fn() -> Recorder``; defaults to ``gpudesk.telemetry.recording.recorder.Recorder()`` (which
            opens its own connection to the user store in this thread).
        session_meta: ``fn(source) -> dict`` of extra keyword arguments for ``Recorder.start`` (host,
            driver_version, nvml_version), called in the worker thread when a recording starts.

    Signals:
        started(object): the source's ``devices()`` once it opened; ``devicesChanged(object)`` later when a
            GPU is lost. batches(object): list of ``SampleBatch``. processes(object): a ``ProcessListing``.
        unavailable(object): the ``NvmlStatus`` when NVML cannot be used. sourceFailed(str): any other
        failure, with its message. sourceFinished(): a file or replay ended / the stream exited.
        recordingStarted(int), recordingStopped(int), recordingFailed(str).
    """

    started = Signal(object)
    """The source opened: its list of DeviceInfo."""
    devicesChanged = Signal(object)
    """A GPU was lost or a stream revealed another GPU: the new list of DeviceInfo."""
    batches = Signal(object)
    """New samples were polled: the list of SampleBatch."""
    processes = Signal(object)
    """The GPU processes were listed: a ProcessListing."""
    unavailable = Signal(object)
    """NVML cannot be used on this machine: its NvmlStatus."""
    sourceFailed = Signal(str)
    """Opening or polling the source failed: the message."""
    sourceFinished = Signal()
    """The file or replay ended, or the stream exited; no arguments."""
    recordingStarted = Signal(int)
    """A recording started: its session id."""
    recordingStopped = Signal(int)
    """A recording was stopped and saved: its session id."""
    recordingFailed = Signal(str)
    """A recording could not start, or was abandoned: the message."""

    _startRecording = Signal(str)
    """Private: relays a start request to the worker thread; the recording's notes."""
    _stopRecording = Signal()
    """Private: relays a stop request to the worker thread; no arguments."""

    def __init__(self, source_factory: Callable[[], Any], *, list_processes: Callable[[Any], Any] | None = None,
                 process_interval_s: float = 2.0, recorder_factory: Callable[[], Any] | None = None,
                 session_meta: Callable[[Any], dict] | None = None):
        super().__init__()
        self._factory = source_factory
        self._list_processes = list_processes
        self._process_interval_s = process_interval_s
        self._recorder_factory = recorder_factory
        self._meta = session_meta
        self.source: Any = None
        self.recorder: Any = None
        self.session_id: int | None = None
        self._timer: QTimer | None = None
        self._last_processes = 0.0
        self._lost: tuple = ()
        self._startRecording.connect(self._start_recording)
        self._stopRecording.connect(self._stop_recording)

    # ----------------------------------------------------------------- called from the GUI thread
    def request_start_recording(self, notes: str) -> None:
        """Ask the worker to start recording (answered by recordingStarted or recordingFailed)."""
        self._startRecording.emit(notes)

    def request_stop_recording(self) -> None:
        """Ask the worker to stop recording (answered by recordingStopped)."""
        self._stopRecording.emit()

    # ----------------------------------------------------------------- worker thread
    @Slot()
    def setup(self) -> None:
        self.begin()

    def begin(self) -> None:
        """Open the source and start the timer; runs in the worker thread (see :func:`start_sampler`)."""
        from gpudesk.nvml.nvml_session import NvmlUnavailableError

        try:
            self.source = self._factory()
        except NvmlUnavailableError as exc:
            self.unavailable.emit(exc.status)
            return
        except Exception as exc:  # noqa: BLE001 - every failure is reported through a signal
            self.sourceFailed.emit(failure_text(exc))
            return
        devices = self.source.devices()
        self._lost = tuple((d.index, d.lost_reason) for d in devices)
        self.started.emit(devices)
        self._timer = QTimer()
        interval = float(getattr(self.source, "interval_s", 1.0))
        if self.source.kind == SourceKind.NVML:
            self._timer.setInterval(max(50, int(interval * 1000)))
        else:
            self._timer.setInterval(POLL_MS_STREAM)
        self._timer.timeout.connect(self._tick)
        self._timer.start()
        self._tick()

    @Slot()
    def _tick(self) -> None:
        if self.source is None:
            return
        try:
            batches = self.source.poll()
        except Exception as exc:  # noqa: BLE001 - every failure is reported through a signal
            if self._timer is not None:  # the timer that called this tick
                self._timer.stop()
            self.sourceFailed.emit(failure_text(exc))
            return
        devices = self.source.devices()
        state = tuple((d.index, d.lost_reason) for d in devices)
        if state != self._lost:  # a GPU was lost, or a stream revealed another GPU
            self._lost = state
            self.devicesChanged.emit(devices)
        if batches:
            if self.recorder is not None:
                try:
                    for batch in batches:
                        self.recorder.write(batch)
                except Exception as exc:  # noqa: BLE001 - every failure is reported through a signal
                    self._abandon_recording(failure_text(exc))
            self.batches.emit(batches)
        if self._list_processes is not None and time.monotonic() - self._last_processes >= self._process_interval_s:
            self._last_processes = time.monotonic()
            try:
                self.processes.emit(self._list_processes(self.source))
            except Exception as exc:  # noqa: BLE001 - every failure is reported through a signal
                self.sourceFailed.emit(failure_text(exc))
        if self.source.finished:
            if self._timer is not None:  # the timer that called this tick
                self._timer.stop()
            self.sourceFinished.emit()

    @Slot(str)
    def _start_recording(self, notes: str) -> None:
        if self.source is None:
            self.recordingFailed.emit(self.tr("Nothing to record: no source is running."))
            return
        if self.recorder is not None:
            self.recordingFailed.emit(self.tr("A recording is already running."))
            return
        try:
            if self._recorder_factory is not None:
                recorder = self._recorder_factory()
            else:
                from gpudesk.telemetry.recording.recorder import Recorder

                recorder = Recorder()
            meta = self._meta(self.source) if self._meta is not None else {}
            self.session_id = int(recorder.start(
                self.source.devices(), source=self.source.describe(),
                interval_s=float(getattr(self.source, "interval_s", 1.0)), notes=notes, **meta,
            ))
        except Exception as exc:  # noqa: BLE001 - every failure is reported through a signal
            self.recordingFailed.emit(failure_text(exc))
            return
        self.recorder = recorder
        self.recordingStarted.emit(self.session_id)

    @Slot()
    def _stop_recording(self) -> None:
        if self.recorder is None:
            return
        sid = self.session_id or 0
        try:
            self.recorder.stop()
        except Exception as exc:  # noqa: BLE001 - every failure is reported through a signal
            self.recordingFailed.emit(failure_text(exc))
        self.recorder = None
        self.session_id = None
        self.recordingStopped.emit(sid)

    def _abandon_recording(self, message: str) -> None:
        self.recorder = None
        self.session_id = None
        self.recordingFailed.emit(self.tr("Recording stopped: {m}").format(m=message))

    @Slot()
    def teardown(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._stop_recording()
        if self.source is not None:
            try:
                self.source.close()
            except Exception as exc:  # noqa: BLE001 - every failure is reported through a signal
                self.sourceFailed.emit(failure_text(exc))
            self.source = None
