"""The Monitor tab's controller: it owns the source, the history, the recording and the background jobs.

It is a thin QObject (the sampler worker talks through Qt signals) that holds no widget: the tab and its views
subscribe to its signals and call its methods. State: the running :class:`SamplerWorker`, the devices, the
:class:`HistoryBuffer` in view, the finished history loaded from a file or a recording, the source kind, the
time basis, and the recording in progress (:class:`RecordingControl`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from types import ModuleType
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Signal

from gpudesk.telemetry.core.process_use import process_use
from gpudesk.nvml.nvml_session import NvmlSession, NvmlStatus, host_name
from gpudesk.nvml.pcie import describe_link
from gpudesk.telemetry.core import timebase
from gpudesk.errors import GpudeskError
from gpudesk.telemetry.sources.host_source import WithHostCpu
from gpudesk.telemetry.core.model import DeviceInfo
from gpudesk.telemetry.sources.nvml_source import NvmlSource
from gpudesk.telemetry.core.ring_buffer import HistoryBuffer
from gpudesk.telemetry.rules.thresholds import Thresholds, load_thresholds
from gpudesk.ui.context import AppContext
from gpudesk.ui.monitor.fleet_control import FleetControl
from gpudesk.ui.monitor.sampler_worker import SamplerWorker, start_sampler
from gpudesk.ui.monitor.sources import GPM_HISTORY_METRICS, Loaded, history_metrics
from gpudesk.ui.workers import Task, failure_text, run_task, stop_worker
from gpudesk.telemetry.core.source import SourceKind


@dataclass(frozen=True)
class LinkView:
    """How a GPU's PCIe link is drawn: its rate in bytes/s (None = unknown), a label, and whether it is assumed."""

    bytes_per_s: float | None
    text: str
    assumed: bool


def link_view(device: DeviceInfo) -> LinkView:
    """The PCIe link of ``device`` for the plots and the GPU table."""
    source = device.pcie_link_source
    assumed = bool(source) and source != "nvml"
    text = describe_link(device.pcie_gen_max, device.pcie_width_max_lanes, source)
    if assumed:
        text = QCoreApplication.translate("Monitor", "assumed {t}").format(t=text)
    return LinkView(device.pcie_link_bytes_per_s, text, assumed)


@dataclass(frozen=True)
class HistoryView:
    """A history ready to draw: the buffer, its devices (one column each), a title and how its times read."""

    buffer: HistoryBuffer
    devices: list[DeviceInfo]
    title: str
    basis: str

    @property
    def labels(self) -> dict[int, str]:
        return {col: f"GPU {d.index}" for col, d in enumerate(self.devices)}

    @property
    def links(self) -> dict[int, LinkView]:
        return {col: link_view(d) for col, d in enumerate(self.devices)}


class RecordingControl(QObject):
    """The live recording: asks the worker to start or stop and follows its answers.

    Signals: changed(object): the session id being recorded, or None; failed(): a start or stop failed (the
    message was shown).
    """

    changed = Signal(object)
    """The recording state changed: the id of the recording now running, or None when none runs."""
    failed = Signal()
    """Starting, writing or stopping a recording failed (the reason was already notified)."""

    def __init__(self, notify: Callable[[str, str], None]):
        super().__init__()
        self._notify = notify
        self.session_id: int | None = None
        self.worker: SamplerWorker | None = None

    def attach(self, worker: SamplerWorker | None) -> None:
        """Follow ``worker``'s recording signals (None: no source runs, nothing is being recorded)."""
        self.worker = worker
        self.session_id = None
        self.changed.emit(None)
        if worker is not None:
            worker.recordingStarted.connect(self._started)
            worker.recordingStopped.connect(self._stopped)
            worker.recordingFailed.connect(self._failed)

    def request(self, on: bool, notes: str) -> bool:
        """Start (with ``notes``) or stop recording; False when no live source runs (nothing is asked)."""
        if self.worker is None:
            self._notify(QCoreApplication.translate(
                "MonitorTab", "Start live monitoring or a dmon stream first; an imported log is stored "
                "with 'Save as recording'."), "warning")
            self.changed.emit(None)
            return False
        if on:
            self.worker.request_start_recording(notes)
        else:
            self.worker.request_stop_recording()
        return True

    def _started(self, session_id: int) -> None:
        self.session_id = session_id
        self.changed.emit(session_id)
        self._notify(QCoreApplication.translate("MonitorTab", "Recording #{n} started.").format(n=session_id), "info")

    def _stopped(self, session_id: int) -> None:
        self.session_id = None
        self.changed.emit(None)
        self._notify(QCoreApplication.translate("MonitorTab", "Recording #{n} saved.").format(n=session_id), "info")

    def _failed(self, message: str) -> None:
        if self.worker is not None and self.worker.session_id is None:
            # The recording was abandoned (disk full, store error) or never started: the Record button must not
            # stay on "Stop recording" (the worker cleared its session before it reported the failure).
            self.session_id = None
        self.failed.emit()
        self._notify(message, "error")


class MonitorController(QObject):
    """State and actions of the Monitor tab. ``nvml`` injects a pynvml-like module (tests).

    Signals:
        historyChanged(HistoryView): a new history is in view (live source started, file or recording loaded).
        loadedShown(Loaded): a finished history was shown whole (after historyChanged).
        devicesUpdated(list): the devices changed without new columns (a GPU was lost).
        batchesArrived(): new samples are in the buffer. titleChanged(str): the source's description.
        processesListed(object): a ProcessListing. nvmlUnavailable(NvmlStatus): NVML cannot be used here.
        sourceFinished(): a file, stream or replay ended. sourceChanged(): a worker started or stopped.
        viewsCleared(str): no history is in view any more (a fleet connection started); the text says why.
    """

    historyChanged = Signal(object)
    """A new history is in view (live source started, file or recording loaded): its HistoryView."""
    loadedShown = Signal(object)
    """A finished history was shown whole, after historyChanged: its Loaded."""
    devicesUpdated = Signal(object)
    """The devices changed without new columns (a GPU was lost): the list of DeviceInfo."""
    batchesArrived = Signal()
    """New samples were appended to the buffer; no arguments."""
    titleChanged = Signal(str)
    """The source's description changed: the new title text."""
    processesListed = Signal(object)
    """The GPU processes were listed again: a ProcessListing."""
    nvmlUnavailable = Signal(object)
    """NVML cannot be used on this machine: its NvmlStatus."""
    sourceFinished = Signal()
    """The file, stream or replay in view ended; no arguments."""
    sourceChanged = Signal()
    """A source worker started or stopped (or a fleet or finished history replaced it); no arguments."""
    viewsCleared = Signal(str)
    """No history is in view any more (a fleet connection started): the text saying why."""

    def __init__(self, ctx: AppContext, nvml: ModuleType | None = None):
        super().__init__()
        self.ctx = ctx
        self.nvml = nvml
        self.worker: SamplerWorker | None = None
        self.devices: list[DeviceInfo] = []
        self.buffer: HistoryBuffer | None = None
        self.loaded: Loaded | None = None
        self.source_kind = SourceKind.NONE
        self.title = ""
        self.nvml_status: NvmlStatus | None = None
        self.time_basis = timebase.LOCAL
        self.recording = RecordingControl(lambda text, level: self.ctx.notify(text, level))
        self.fleet = FleetControl(lambda text, level: self.ctx.notify(text, level))
        self.fleet.started.connect(self._fleet_started)
        self._col: dict[int, int] = {}
        self._basis_hint: str | None = None
        self._reported_lost: set[int] = set()
        self._thresholds: Thresholds | None = None

    def rule_thresholds(self) -> Thresholds:
        """The user's rule thresholds (read once; an unreadable file is reported and the defaults used)."""
        if self._thresholds is None:
            try:
                self._thresholds = load_thresholds()
            except GpudeskError as exc:
                self.ctx.notify(exc.user_text(), "warning")
                self._thresholds = Thresholds()
        return self._thresholds

    def set_rule_thresholds(self, thresholds: Thresholds) -> None:
        """The user saved new thresholds: the next analysis uses them."""
        self._thresholds = thresholds

    @property
    def recording_id(self) -> int | None:
        """The session being recorded, or None."""
        return self.recording.session_id

    # ----------------------------------------------------------------- sources
    def stop_source(self) -> None:
        """Stop the running worker (and its recording) or the fleet refresh, and forget the loaded history."""
        self.fleet.stop()
        if self.worker is not None:
            worker, self.worker = self.worker, None
            stop_worker(worker)
        self.recording.attach(None)
        self.loaded = None
        self.sourceChanged.emit()

    def start_live(self) -> None:
        """Open NVML on a worker thread and monitor every GPU at 1 Hz, with this host's CPU load on each sample
        (the starvation rules tell a saturated CPU by it)."""
        nvml = self.nvml

        def session(source: WithHostCpu) -> NvmlSession:
            inner = source.inner
            assert isinstance(inner, NvmlSource)  # start_live wraps only an NvmlSource
            return inner.session

        def meta(source: WithHostCpu) -> dict[str, Any]:
            st = session(source).status
            return {"host": host_name(), "driver_version": st.driver_version if st else None,
                    "nvml_version": st.nvml_version if st else None}

        def processes(source: WithHostCpu) -> Any:
            # memory, SM and memory-bandwidth shares, user, command, container (gpudesk.telemetry.core.process_use)
            return process_use(session(source))

        self.start_worker(lambda: WithHostCpu(NvmlSource(nvml=nvml, interval_s=1.0)), list_processes=processes,
                          session_meta=meta, kind=SourceKind.NVML)

    def start_worker(self, factory: Callable[[], Any], *, list_processes: Callable[[Any], Any] | None = None,
                     session_meta: Callable[[Any], dict[str, Any]] | None = None, kind: SourceKind, title: str = "",
                     basis: str | None = None) -> None:
        """Run ``factory()``'s source on a new :class:`SamplerWorker`; ``basis`` says how its times read (a
        ``gpudesk.telemetry.core.timebase`` basis, e.g. for the replay of an undated dmon log), None = from the kind."""
        self.stop_source()
        self.source_kind = SourceKind(kind)
        self._basis_hint = basis
        self.title = title
        self.titleChanged.emit(title or QCoreApplication.translate("MonitorTab", "Opening the source…"))
        worker = SamplerWorker(factory, list_processes=list_processes, session_meta=session_meta)
        worker.started.connect(self._source_started)
        worker.devicesChanged.connect(self._devices_changed)
        worker.batches.connect(self._on_batches)
        worker.processes.connect(self.processesListed.emit)
        worker.unavailable.connect(self._nvml_unavailable)
        worker.sourceFailed.connect(self._source_failed)
        worker.sourceFinished.connect(self._source_finished)
        worker.failed.connect(lambda exc: self._source_failed(failure_text(exc)))
        self.worker = worker
        self.recording.attach(worker)
        start_sampler(worker, name=f"gpudesk-monitor-{kind}")
        self.sourceChanged.emit()

    def _source_started(self, devices: list[DeviceInfo]) -> None:
        if self.sender() is not self.worker or self.worker is None:
            return
        title = self.title
        source = self.worker.source
        gpm: tuple[str, ...] = ()
        if self.source_kind == SourceKind.NVML and isinstance(source, WithHostCpu) and isinstance(source.inner, NvmlSource):
            status = source.inner.session.status
            self.nvml_status = status
            title = QCoreApplication.translate("MonitorTab", "Live NVML: {s}").format(s=status.message if status else "")
            gpm = GPM_HISTORY_METRICS if source.inner.gpm_gpus else ()
        self.show_history(HistoryBuffer(max(1, len(devices)), history_metrics(gpm),
                                        gpus=[d.index for d in devices] or None), devices, title,
                          basis=self._basis_hint)

    def show_history(self, buffer: HistoryBuffer, devices: list[DeviceInfo], title: str,
                     basis: str | None = None) -> None:
        """Put ``buffer`` (one column per device) in view; ``basis`` (``gpudesk.telemetry.core.timebase``) says how its
        times read, None = decided from the source kind and the stamps themselves."""
        self.buffer = buffer
        self.devices = list(devices) or [DeviceInfo(index=0)]
        self._reported_lost = {d.index for d in self.devices if d.lost_reason}
        self._col = {d.index: col for col, d in enumerate(self.devices)}
        # dmon data (files, streams with -o DT, the demo, recordings imported from dmon: no GPU UUIDs) carry the
        # node's local time as printed; show it as printed.
        printed = self.source_kind.from_log_text or (
            self.source_kind in (SourceKind.REPLAY, SourceKind.RECORDING) and all(d.uuid is None for d in self.devices))
        span = buffer.span()
        if basis is None:
            basis = timebase.time_basis(*(span or (None, None)), as_printed=printed)
        self.time_basis = basis
        self.title = title
        self.historyChanged.emit(HistoryView(buffer, self.devices, title, basis))

    def _devices_changed(self, devices: list[DeviceInfo]) -> None:
        if self.sender() is not self.worker:
            return
        if self.buffer is not None and {d.index for d in devices} - set(self._col):
            # A stream revealed more GPUs: keep the history so far in a wider buffer.
            self.show_history(self.buffer.widened([self._col.get(d.index) for d in devices],
                                                  [d.index for d in devices]), devices, self.title)
            return
        self.devices = list(devices)
        self.devicesUpdated.emit(self.devices)
        for d in devices:
            if d.lost_reason and d.index not in self._reported_lost:
                self._reported_lost.add(d.index)
                self.ctx.notify(QCoreApplication.translate(
                    "MonitorTab", "GPU {i} stopped answering: {r}. The other GPUs are still monitored.")
                    .format(i=d.index, r=d.lost_reason), "warning")

    def _on_batches(self, batches: list[Any]) -> None:
        if self.buffer is None or self.sender() is not self.worker:
            return
        col = self._col
        for batch in batches:
            rows = {}
            reasons = {}
            for sample in batch.samples:
                c = col.get(sample.gpu_index)
                if c is None:
                    continue
                rows[c] = sample.values
                for metric, why in sample.reasons.items():
                    reasons[(c, metric)] = why
            self.buffer.append(batch.t, rows, reasons)
        self.batchesArrived.emit()

    def _source_failed(self, text: str) -> None:
        if self.sender() is self.worker:
            self.ctx.notify(text, "error")

    def _source_finished(self) -> None:
        # A stream whose command died or printed no dmon says why (exit status, last words), as a warning.
        end_problem = getattr(self.worker.source if self.worker is not None else None, "end_problem", None)
        problem = end_problem() if callable(end_problem) else None
        if problem:
            self.ctx.notify(QCoreApplication.translate("MonitorTab", "The source has ended: {s}. {why}").format(
                s=self.title, why=problem), "warning")
        else:
            self.ctx.notify(QCoreApplication.translate("MonitorTab", "The source has ended: {s}").format(
                s=self.title), "info")
        self.sourceFinished.emit()

    def _nvml_unavailable(self, status: NvmlStatus) -> None:
        self.nvml_status = status
        if self.worker is not None:
            worker, self.worker = self.worker, None
            stop_worker(worker)
        self.recording.attach(None)
        self.nvmlUnavailable.emit(status)
        self.sourceChanged.emit()

    def show_loaded(self, loaded: Loaded) -> None:
        """Show a finished history (dmon file, recording, demo) whole."""
        self.stop_source()
        self.loaded = loaded
        self.source_kind = SourceKind(loaded.kind)
        title = loaded.title
        if loaded.notes:
            title += " — " + " ".join(loaded.notes[:3])
        self.show_history(loaded.buffer, loaded.devices, title, basis=loaded.basis)
        self.loadedShown.emit(loaded)
        self.sourceChanged.emit()

    def recording_saved(self, loaded: Loaded, session_id: int) -> None:
        """``loaded`` was stored as recording ``session_id``: when it is still in view it now is that recording
        (a burn-in report or a replay reads it from the database)."""
        if self.loaded is loaded:
            self.loaded = replace(loaded, session_id=session_id)

    def start_fleet(self, settings: Any) -> bool:
        """Watch a fleet through Prometheus (``ConnectionSettings``): the grid refreshes in the background."""
        self.stop_source()
        return self.fleet.start(settings)

    def _fleet_started(self, title: str) -> None:
        self.source_kind = SourceKind.FLEET
        self.title = title
        # The previous source's samples must not read as the fleet's: the views empty until a GPU is opened.
        self.buffer, self.devices, self.loaded, self._col = None, [], None, {}
        self.viewsCleared.emit(QCoreApplication.translate(
            "MonitorTab", "Watching a fleet: open a GPU in the Fleet tab to see its plots, statistics and findings."))
        self.titleChanged.emit(title)
        self.sourceChanged.emit()

    def open_fleet_gpu(self, position: int) -> None:
        """Show the plots, statistics and findings of the fleet GPU at ``position`` (the fleet keeps refreshing)."""
        loaded = self.fleet.gpu_history(position)
        if loaded is None:
            return
        self.loaded = loaded
        self.show_history(loaded.buffer, loaded.devices, loaded.title, basis=timebase.LOCAL)
        self.loadedShown.emit(loaded)

    def run(self, fn: Callable[..., Any], *args: Any, on_result: Callable[[Any], None], what: str,
            on_failed: Callable[[], None] | None = None) -> Task:
        """``run_task`` whose failure is shown as "<what> failed: <reason>"; ``on_failed`` then ends the
        caller's busy state (a status line saying "Making…")."""

        def failed(exc: BaseException) -> None:
            if on_failed is not None:
                on_failed()
            self.ctx.notify(QCoreApplication.translate("Monitor", "{what} failed: {e}").format(
                what=what, e=failure_text(exc)), "error")

        return run_task(fn, *args, on_result=on_result, on_error=failed)

    def run_quiet(self, fn: Callable[..., Any], *, on_result: Callable[[Any], None],
                  on_error: Callable[[BaseException], None]) -> Task:
        """``run_task`` for a job whose view shows its own failure (statistics, findings)."""
        return run_task(fn, on_result=on_result, on_error=on_error)
