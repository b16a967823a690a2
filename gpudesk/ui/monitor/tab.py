"""The Monitor tab: live NVML plots, dmon import and streams, recordings, heat map, span statistics,
bottleneck findings and the process table; a no-GPU panel when NVML cannot be used.

Data flow: a :class:`SamplerWorker` (own thread) polls the source and records; batches arrive by queued
signal and go into the :class:`HistoryBuffer` (numpy); a 4 Hz refresh timer redraws what is visible. Files
and recordings are parsed and converted on the thread pool (``run_task``) and shown whole. Statistics, rules
and exports run on the thread pool over a copy of the selected span.
"""

from __future__ import annotations

from types import ModuleType

from PySide6.QtCore import QCoreApplication, Qt, QTimer
from PySide6.QtWidgets import (
    QFileDialog,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from gpudesk.telemetry import model as m
from gpudesk.telemetry.model import DeviceInfo
from gpudesk.telemetry.pcie import describe_link
from gpudesk.ui.context import AppContext
from gpudesk.ui.monitor import actions
from gpudesk.telemetry import timebase
from gpudesk.ui.monitor.display import set_time_basis
from gpudesk.ui.monitor.findings_view import FindingsView
from gpudesk.ui.monitor.gpu_table import GpuTable
from gpudesk.ui.monitor.heatmap_view import HeatmapView
from gpudesk.ui.monitor.no_gpu_panel import NoGpuPanel
from gpudesk.ui.monitor.frames import widen
from gpudesk.ui.monitor.plots import LinkInfo, MonitorPlots
from gpudesk.ui.monitor.process_table import ProcessTable
from gpudesk.ui.monitor.readout import Readout
from gpudesk.ui.monitor.toolbar import MonitorToolbar
from gpudesk.ui.monitor.recordings_view import RecordingsView
from gpudesk.ui.monitor.ring_buffer import HistoryBuffer
from gpudesk.ui.monitor.sampler_worker import SamplerWorker, start_sampler
from gpudesk.ui.monitor.sources import HISTORY_METRICS, Loaded, demo_description
from gpudesk.ui.monitor.stats_panel import StatsPanel
from gpudesk.ui.workers import stop_worker

PAGE_NO_GPU, PAGE_VIEW = 0, 1
REFRESH_MS = 250


class MonitorTab(QWidget):
    """The tab. ``nvml`` injects a pynvml-like module (tests); ``autostart`` opens NVML at once."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None, *, nvml: ModuleType | None = None,
                 autostart: bool = True):
        super().__init__(parent)
        self.setWindowTitle(self.tr("Monitor"))
        self.ctx = ctx
        self.nvml = nvml
        self.worker: SamplerWorker | None = None
        self.devices: list[DeviceInfo] = []
        self.buffer: HistoryBuffer | None = None
        self.loaded: Loaded | None = None
        self.source_kind = ""
        self.recording_id: int | None = None
        self.nvml_status = None
        self._col: dict[int, int] = {}
        self._basis_hint: str | None = None
        self.time_basis = timebase.LOCAL
        self._reported_lost: set[int] = set()
        self._dirty = False
        self._tasks: list = []
        self._build()
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setInterval(REFRESH_MS)
        self._refresh_timer.timeout.connect(self._refresh_view)
        self._refresh_timer.start()
        if autostart:
            self.start_live()

    # ================================================================= layout
    def _build(self) -> None:
        self.toolbar = MonitorToolbar(self)
        for name in MonitorToolbar.PARTS:
            setattr(self, name, getattr(self.toolbar, name))
        self.no_gpu = NoGpuPanel(self)
        self.no_gpu.set_demo(demo_description())
        self.table = GpuTable(self)
        self.plots = MonitorPlots(self)
        self.readout = Readout(self)
        plots_page = QWidget(self)
        pl = QVBoxLayout(plots_page)
        pl.setContentsMargins(0, 0, 0, 0)
        pl.addWidget(self.plots, 1)
        pl.addWidget(self.readout)
        self.heatmap = HeatmapView(self)
        self.stats = StatsPanel(self)
        self.findings = FindingsView(self)
        self.processes = ProcessTable(self)
        self.recordings = RecordingsView(self.ctx, self)
        self.subtabs = QTabWidget(self)
        self.subtabs.addTab(plots_page, self.tr("Plots"))
        self.subtabs.addTab(self.heatmap, self.tr("Heat map"))
        self.subtabs.addTab(self.stats, self.tr("Statistics"))
        self.subtabs.addTab(self.findings, self.tr("Findings"))
        self.subtabs.addTab(self.processes, self.tr("Processes"))
        self.subtabs.addTab(self.recordings, self.tr("Recordings"))
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.table)
        split.addWidget(self.subtabs)
        split.setSizes([150, 650])
        self.split = split
        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.no_gpu)
        self.stack.addWidget(split)
        self.stack.setCurrentIndex(PAGE_VIEW)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.toolbar)
        layout.addWidget(self.stack, 1)

        self.live_button.clicked.connect(self.start_live)
        self.import_button.clicked.connect(lambda: actions.import_dmon(self))
        self.demo_button.clicked.connect(lambda: actions.play_demo(self))
        self.no_gpu.importRequested.connect(lambda: actions.import_dmon(self))
        self.no_gpu.openRecordingRequested.connect(self.show_recordings)
        self.no_gpu.demoRequested.connect(lambda: actions.play_demo(self))
        self.no_gpu.retryRequested.connect(self.start_live)
        self.window_combo.currentIndexChanged.connect(self._window_changed)
        self.pause_button.toggled.connect(lambda paused: self.plots.set_follow(not paused))
        self.plots.followChanged.connect(self._follow_changed)
        self.plots.crosshairMoved.connect(self._show_readout)
        self.plots.spanChanged.connect(lambda t0, t1: actions.compute_stats(self, t0, t1))
        self.stats.spanRequested.connect(self._span_requested)
        self.findings.analyzeRequested.connect(lambda: actions.analyze(self))
        self.findings.spanSelected.connect(self._zoom_to)
        self.table.model().checkedChanged.connect(self._checked_changed)
        self.record_button.toggled.connect(self._record_toggled)
        self.save_button.clicked.connect(lambda: actions.save_as_recording(self))
        self.png_button.clicked.connect(self._export_png)
        self.csv_button.clicked.connect(lambda: actions.export_csv(self))
        self.recordings.openRequested.connect(lambda sid: actions.open_recording(self, sid))
        self.recordings.replayRequested.connect(lambda sid, speed: actions.replay_recording(self, sid, speed))
        self.subtabs.currentChanged.connect(self._subtab_changed)
        self._update_buttons()

    # ================================================================= sources
    def stop_source(self) -> None:
        """Stop the running worker (and its recording) and forget the current history."""
        if self.worker is not None:
            worker, self.worker = self.worker, None
            stop_worker(worker)
        self.recording_id = None
        self.record_button.blockSignals(True)
        self.record_button.setChecked(False)
        self.record_button.blockSignals(False)
        self.loaded = None

    def start_live(self) -> None:
        """Open NVML on a worker thread and monitor every GPU at 1 Hz."""
        from gpudesk.telemetry.nvml_processes import list_gpu_processes
        from gpudesk.telemetry.nvml_session import host_name
        from gpudesk.telemetry.nvml_source import NvmlSource

        nvml = self.nvml

        def meta(source) -> dict:
            st = source.session.status
            return {"host": host_name(), "driver_version": st.driver_version if st else None,
                    "nvml_version": st.nvml_version if st else None}

        self.start_worker(
            lambda: NvmlSource(nvml=nvml, interval_s=1.0),
            list_processes=lambda source: list_gpu_processes(source.session),
            session_meta=meta, kind="nvml",
        )

    def start_worker(self, factory, *, list_processes=None, session_meta=None, kind: str, title: str = "",
                     basis: str | None = None) -> None:
        """Run ``factory()``'s source on a new :class:`SamplerWorker`; ``basis`` says how its times read (a
        ``gpudesk.telemetry.timebase`` basis, e.g. for the replay of an undated dmon log), None = from the kind."""
        self.stop_source()
        self.source_kind = kind
        self._basis_hint = basis
        self.source_label.setText(title or self.tr("Opening the source…"))
        worker = SamplerWorker(factory, list_processes=list_processes, session_meta=session_meta)
        self._title = title
        worker.started.connect(self._source_started)
        worker.devicesChanged.connect(self._devices_changed)
        worker.batches.connect(self._on_batches)
        worker.processes.connect(self.processes.set_listing)
        worker.unavailable.connect(self._nvml_unavailable)
        worker.sourceFailed.connect(self._source_failed)
        worker.sourceFinished.connect(self._source_finished)
        worker.recordingStarted.connect(self._recording_started)
        worker.recordingStopped.connect(self._recording_stopped)
        worker.recordingFailed.connect(self._recording_failed)
        self.worker = worker
        start_sampler(worker, name=f"gpudesk-monitor-{kind}")

    def _source_failed(self, text: str) -> None:
        if self.sender() is self.worker:
            self.ctx.notify(text, "error")

    def _source_started(self, devices: list[DeviceInfo]) -> None:
        if self.sender() is not self.worker:
            return
        title = self._title
        if self.source_kind == "nvml" and self.worker.source is not None:
            status = self.worker.source.session.status
            self.nvml_status = status
            title = self.tr("Live NVML: {s}").format(s=status.message if status else "")
        self.show_history(HistoryBuffer(max(1, len(devices)), HISTORY_METRICS), devices, title,
                          basis=self._basis_hint)
        if self.source_kind != "nvml":
            self.processes.clear(self.tr("This source carries no process list (only live NVML does)."))

    def show_history(self, buffer: HistoryBuffer, devices: list[DeviceInfo], title: str,
                     basis: str | None = None) -> None:
        """Show ``buffer`` (one column per device) in every view; ``basis`` (``gpudesk.telemetry.timebase``) says
        how its times read, None = decided from the source kind and the stamps themselves."""
        self.buffer = buffer
        self.devices = list(devices) or [DeviceInfo(index=0)]
        self._reported_lost = {d.index for d in self.devices if d.lost_reason}
        self._col = {d.index: col for col, d in enumerate(self.devices)}
        links = {col: self._link(d) for col, d in enumerate(self.devices)}
        labels = {col: f"GPU {d.index}" for col, d in enumerate(self.devices)}
        # dmon data (files, streams with -o DT, the demo, recordings imported from dmon: no GPU UUIDs) carry the
        # node's local time as printed; show it as printed.
        printed = self.source_kind.startswith("dmon") or self.source_kind == "demo" or (
            self.source_kind in ("replay", "recording") and all(d.uuid is None for d in self.devices))
        span = buffer.span()
        if basis is None:
            basis = timebase.time_basis(*(span or (None, None)), as_printed=printed)
        self.time_basis = basis
        set_time_basis(basis)
        self.plots.set_time_basis(basis)
        self.plots.set_source(buffer, labels, {c: LinkInfo(li[0], li[1], li[2]) for c, li in links.items()})
        self.table.model().set_devices(self.devices, {c: (li[0], li[1]) for c, li in links.items()})
        self.table.model().set_latest(buffer.latest, buffer.reasons)
        self.heatmap.set_source(buffer, labels)
        rows = min(len(self.devices), 8)  # the GPU list shows up to 8 rows at once, then scrolls
        table_h = self.table.horizontalHeader().height() + rows * self.table.verticalHeader().defaultSectionSize() + 6
        total = sum(self.split.sizes()) or 800
        self.split.setSizes([table_h, max(300, total - table_h)])
        self.source_label.setText(title)
        self.stack.setCurrentIndex(PAGE_VIEW)
        self._update_buttons()

    @staticmethod
    def _link(device: DeviceInfo) -> tuple[float | None, str, bool]:
        source = device.pcie_link_source
        assumed = bool(source) and source != "nvml"
        text = describe_link(device.pcie_gen_max, device.pcie_width_max_lanes, source)
        if assumed:
            text = QCoreApplication.translate("Monitor", "assumed {t}").format(t=text)
        return device.pcie_link_bytes_per_s, text, assumed

    def _devices_changed(self, devices: list[DeviceInfo]) -> None:
        if self.sender() is not self.worker:
            return
        if self.buffer is not None and {d.index for d in devices} - set(self._col):
            self._grow(devices)
            return
        self.devices = list(devices)
        self.table.model().update_devices(self.devices)
        for d in devices:
            if d.lost_reason and d.index not in self._reported_lost:
                self._reported_lost.add(d.index)
                self.ctx.notify(self.tr("GPU {i} stopped answering: {r}. The other GPUs are still monitored.")
                                .format(i=d.index, r=d.lost_reason), "warning")

    def _grow(self, devices: list[DeviceInfo]) -> None:
        """A stream revealed more GPUs: keep the history so far in a wider buffer."""
        columns = [self._col.get(d.index) for d in devices]
        self.show_history(widen(self.buffer, columns), devices, self.source_label.text())

    def _on_batches(self, batches: list) -> None:
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
        self._dirty = True

    def _refresh_view(self) -> None:
        if not self._dirty or self.buffer is None:
            return
        self._dirty = False
        self.table.model().set_latest(self.buffer.latest, self.buffer.reasons)
        current = self.subtabs.currentWidget()
        if self.plots.follow and self.plots.isVisible():
            self.plots.refresh()
        elif current is self.heatmap and self.heatmap.isVisible():
            self.heatmap.refresh()

    def _source_finished(self) -> None:
        self.ctx.notify(self.tr("The source has ended: {s}").format(s=self.source_label.text()), "info")
        self._dirty = True
        self.heatmap.refresh()

    def _nvml_unavailable(self, status) -> None:
        self.nvml_status = status
        self.no_gpu.set_status(status)
        self.stack.setCurrentIndex(PAGE_NO_GPU)
        self.source_label.setText(self.tr("Live monitoring is not available here (details below)."))
        if self.worker is not None:
            worker, self.worker = self.worker, None
            stop_worker(worker)
        self._update_buttons()

    def show_loaded(self, loaded: Loaded) -> None:
        """Show a finished history (dmon file, recording) whole, then compute its statistics and findings."""
        self.stop_source()
        self.loaded = loaded
        self.source_kind = loaded.kind
        title = loaded.title
        if loaded.notes:
            title += " — " + " ".join(loaded.notes[:3])
        self.show_history(loaded.buffer, loaded.devices, title, basis=loaded.basis)
        self.processes.clear(self.tr("A file or a recording carries no process list."))
        self.window_combo.setCurrentIndex(self.window_combo.count() - 1)
        self.plots.set_window(None)
        span = loaded.buffer.span()
        if span is not None:
            actions.compute_stats(self, *span)
            actions.analyze(self)
        pending = self.recordings.pending_png
        if pending is not None and pending[0] == loaded.session_id:
            self.recordings.pending_png = None
            self.subtabs.setCurrentIndex(0)
            self.plots.refresh()
            if not self.plots.export_png(pending[1]):
                self.ctx.notify(self.tr("Could not write {p}.").format(p=pending[1]), "error")

    def show_recordings(self) -> None:
        self.stack.setCurrentIndex(PAGE_VIEW)
        self.subtabs.setCurrentWidget(self.recordings)
        self.recordings.reload()

    # ================================================================= interaction
    def _window_changed(self) -> None:
        self.pause_button.setChecked(False)
        self.plots.set_window(self.window_combo.currentData())

    def _follow_changed(self, follow: bool) -> None:
        self.pause_button.blockSignals(True)
        self.pause_button.setChecked(not follow)
        self.pause_button.blockSignals(False)

    def _checked_changed(self, rows: list[int]) -> None:
        self.plots.set_visible_gpus(rows)

    def _span_requested(self, visible: bool) -> None:
        self.plots.show_region(visible)
        if not visible:
            rng = self.plots.visible_range()
            if rng:
                actions.compute_stats(self, *rng)

    def _zoom_to(self, t0: float, t1: float) -> None:
        self.subtabs.setCurrentIndex(0)
        self.plots.set_follow(False)
        pad = max(1.0, (t1 - t0) * 0.1)
        self.plots.plots[m.GPU_UTIL].setXRange(t0 - pad, t1 + pad, padding=0)

    def _subtab_changed(self, _index: int) -> None:
        current = self.subtabs.currentWidget()
        if current is self.heatmap:
            self.heatmap.refresh()
        elif current is self.stats and not self.stats.stats and self.buffer is not None:
            rng = self.selected_span()
            if rng:
                actions.compute_stats(self, *rng)
        elif current is self.recordings:
            self.recordings.reload()

    def selected_span(self) -> tuple[float, float] | None:
        """The statistics span when shown, else the visible range."""
        if self.plots.region.isVisible():
            t0, t1 = self.plots.region.getRegion()
            return float(t0), float(t1)
        return self.plots.visible_range()

    def _show_readout(self, t: float) -> None:
        names = {col: f"GPU {d.index}" for col, d in enumerate(self.devices)}
        self.readout.show_at(self.buffer, t, self.plots.visible_gpus, names, self.plots.links)

    # ================================================================= recording and export
    def _record_toggled(self, on: bool) -> None:
        if self.worker is None:
            self.record_button.setChecked(False)
            self.ctx.notify(self.tr("Start live monitoring or a dmon stream first; an imported log is stored "
                                    "with 'Save as recording'."), "warning")
            return
        if on:
            self.record_button.setEnabled(False)
            self.worker.request_start_recording(self.notes_edit.text())
        else:
            self.worker.request_stop_recording()

    def _recording_started(self, session_id: int) -> None:
        self.recording_id = session_id
        self.record_button.setEnabled(True)
        self.record_button.setText(self.tr("■ Stop recording #{n}").format(n=session_id))
        self.ctx.notify(self.tr("Recording #{n} started.").format(n=session_id), "info")

    def _recording_stopped(self, session_id: int) -> None:
        self.recording_id = None
        self.record_button.setText(self.tr("● &Record"))
        self.ctx.notify(self.tr("Recording #{n} saved.").format(n=session_id), "info")
        self.recordings.reload()

    def _recording_failed(self, message: str) -> None:
        self.record_button.blockSignals(True)
        self.record_button.setChecked(self.recording_id is not None)
        self.record_button.blockSignals(False)
        self.record_button.setEnabled(True)
        self.ctx.notify(message, "error")

    def _export_png(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Export plots as PNG"), "gpudesk-monitor.png",
                                              self.tr("PNG images (*.png)"))
        if path:
            target = self.heatmap if self.subtabs.currentWidget() is self.heatmap else self.plots
            if not target.grab().save(path, "PNG"):
                self.ctx.notify(self.tr("Could not write {p}.").format(p=path), "error")

    def _update_buttons(self) -> None:
        has_data = self.buffer is not None
        self.record_button.setEnabled(self.worker is not None)
        self.save_button.setVisible(self.source_kind == "dmon-file")
        self.png_button.setEnabled(has_data)
        self.csv_button.setEnabled(has_data)

    def shutdown(self) -> None:
        """Stop sampling and recording (called when the window closes)."""
        self._refresh_timer.stop()
        self.stop_source()
        for task in list(self._tasks):
            self._tasks.remove(task)
