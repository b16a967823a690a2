"""The Monitor tab: live NVML plots, dmon import and streams, recordings, heat map, span statistics,
bottleneck findings and the process table; a no-GPU panel when NVML cannot be used.

Data flow: the :class:`MonitorController` runs a :class:`SamplerWorker` (own thread) that polls the source and
records; batches go into the controller's :class:`HistoryBuffer` (numpy); this view redraws what is visible on a
4 Hz timer. Files and recordings are parsed on the thread pool and shown whole; statistics, rules and exports
(:mod:`gpudesk.ui.monitor.actions`) run on the thread pool over a copy of the selected span.
"""

from __future__ import annotations

from types import ModuleType
from typing import cast

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QSplitter, QStackedWidget, QTabWidget, QVBoxLayout, QWidget

from gpudesk.nvml.nvml_session import NvmlStatus
from gpudesk.telemetry.core.ring_buffer import HistoryBuffer
from gpudesk.ui.context import AppContext
from gpudesk.ui.monitor import actions
from gpudesk.ui.monitor.controller import HistoryView, MonitorController
from gpudesk.ui.monitor.display import set_time_basis
from gpudesk.ui.monitor.findings_view import FindingsView
from gpudesk.ui.monitor.fleet_view import FleetView
from gpudesk.ui.monitor.gpu_table import GpuTable, GpuTableModel
from gpudesk.ui.monitor.heatmap_view import HeatmapView
from gpudesk.ui.monitor.no_gpu_panel import NoGpuPanel
from gpudesk.ui.monitor.gpm_plots import GpmPlots
from gpudesk.ui.monitor.plots import LinkInfo, MonitorPlots
from gpudesk.ui.monitor.process_table import ProcessTable
from gpudesk.ui.monitor.readout import Readout
from gpudesk.ui.monitor.recordings_view import RecordingsView
from gpudesk.ui.monitor.sources import HISTORY_METRICS, Loaded, demo_description
from gpudesk.ui.monitor.stats_panel import StatsPanel
from gpudesk.ui.monitor.toolbar import MonitorToolbar
from gpudesk.ui.export_folder import ask_save_path
from gpudesk.telemetry.core.source import SourceKind

PAGE_NO_GPU, PAGE_VIEW = 0, 1
REFRESH_MS = 250


class MonitorTab(QWidget):
    """The tab's views over a :class:`MonitorController` (``ctl``). ``nvml`` injects a pynvml-like module
    (tests); ``autostart`` opens NVML at once."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None, *, nvml: ModuleType | None = None,
                 autostart: bool = True):
        super().__init__(parent)
        self.setWindowTitle(self.tr("Monitor"))
        self.ctx = ctx
        self.ctl = MonitorController(ctx, nvml)
        self._dirty = False
        self._build()
        self._connect()
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setInterval(REFRESH_MS)
        self._refresh_timer.timeout.connect(self._refresh_view)
        self._refresh_timer.start()
        if autostart:
            self.ctl.start_live()

    def _build(self) -> None:
        self.toolbar = MonitorToolbar(self)
        self.no_gpu = NoGpuPanel(self)
        self.no_gpu.set_demo(demo_description())
        self.table = GpuTable(self)
        self.gpu_model = cast(GpuTableModel, self.table.model())
        self.plots = MonitorPlots(self)
        self.readout = Readout(self)
        plots_page = QWidget(self)
        pl = QVBoxLayout(plots_page)
        pl.setContentsMargins(0, 0, 0, 0)
        pl.addWidget(self.plots, 1)
        self.gpm_plots = GpmPlots(self)
        pl.addWidget(self.gpm_plots)
        self.plots.rangeDrawn.connect(lambda t0, t1, points: self.gpm_plots.refresh(
            self.plots.buffer, self.plots.visible_gpus, t0, t1, points))
        pl.addWidget(self.readout)
        self.heatmap = HeatmapView(self)
        self.stats = StatsPanel(self)
        self.findings = FindingsView(self)
        self.processes = ProcessTable(self)
        self.recordings = RecordingsView(self.ctx, self)
        self.fleet = FleetView(self)
        self.subtabs = QTabWidget(self)
        self.subtabs.addTab(plots_page, self.tr("Plots"))
        self.subtabs.addTab(self.heatmap, self.tr("Heat map"))
        self.subtabs.addTab(self.stats, self.tr("Statistics"))
        self.subtabs.addTab(self.findings, self.tr("Findings"))
        self.subtabs.addTab(self.processes, self.tr("Processes"))
        self.subtabs.addTab(self.recordings, self.tr("Recordings"))
        self.subtabs.addTab(self.fleet, self.tr("Fleet"))
        self.split = QSplitter(Qt.Orientation.Vertical, self)
        self.split.addWidget(self.table)
        self.split.addWidget(self.subtabs)
        self.split.setSizes([150, 650])
        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.no_gpu)
        self.stack.addWidget(self.split)
        self.stack.setCurrentIndex(PAGE_VIEW)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.toolbar)
        layout.addWidget(self.stack, 1)

    def _connect(self) -> None:
        ctl, bar = self.ctl, self.toolbar
        ctl.historyChanged.connect(self._show_history)
        ctl.loadedShown.connect(self._loaded_shown)
        ctl.devicesUpdated.connect(self.gpu_model.update_devices)
        ctl.batchesArrived.connect(self._mark_dirty)
        ctl.sourceFinished.connect(self._source_finished)
        ctl.titleChanged.connect(bar.source_label.setText)
        ctl.processesListed.connect(self.processes.set_listing)
        ctl.nvmlUnavailable.connect(self._nvml_unavailable)
        ctl.sourceChanged.connect(self._update_buttons)
        ctl.recording.changed.connect(bar.show_recording)
        ctl.recording.failed.connect(lambda: bar.show_recording(ctl.recording_id))
        bar.live_button.clicked.connect(ctl.start_live)
        bar.import_button.clicked.connect(lambda: actions.import_dmon(self))
        bar.demo_button.clicked.connect(lambda: actions.play_demo(self))
        bar.fleet_button.clicked.connect(lambda: actions.connect_fleet(self))
        ctl.viewsCleared.connect(self._clear_views)
        ctl.fleet.started.connect(self.fleet.show_connecting)
        ctl.fleet.started.connect(lambda _title: self.subtabs.setCurrentWidget(self.fleet))
        ctl.fleet.failed.connect(self.fleet.show_failure)
        ctl.fleet.updated.connect(self.fleet.set_history)
        self.fleet.gpuActivated.connect(ctl.open_fleet_gpu)
        self.fleet.gpuActivated.connect(lambda _pos: self.subtabs.setCurrentIndex(0))
        bar.windowChanged.connect(self.plots.set_window)
        bar.pause_button.toggled.connect(lambda paused: self.plots.set_follow(not paused))
        bar.recordToggled.connect(lambda on: ctl.recording.request(on, bar.notes_edit.text()))
        bar.save_button.clicked.connect(lambda: actions.save_as_recording(self))
        bar.png_button.clicked.connect(self._export_png)
        bar.csv_button.clicked.connect(lambda: actions.export_csv(self))
        self.no_gpu.importRequested.connect(lambda: actions.import_dmon(self))
        self.no_gpu.openRecordingRequested.connect(self.show_recordings)
        self.no_gpu.demoRequested.connect(lambda: actions.play_demo(self))
        self.no_gpu.retryRequested.connect(ctl.start_live)
        self.plots.followChanged.connect(bar.show_following)
        self.plots.crosshairMoved.connect(self._show_readout)
        self.plots.spanChanged.connect(lambda t0, t1: actions.compute_stats(self, t0, t1))
        self.stats.spanRequested.connect(lambda visible: actions.span_requested(self, visible))
        self.findings.analyzeRequested.connect(lambda: actions.analyze(self))
        self.findings.spanSelected.connect(lambda t0, t1: actions.zoom_to(self, t0, t1))
        self.findings.thresholdsRequested.connect(lambda: actions.edit_thresholds(self))
        self.findings.burninRequested.connect(lambda: actions.burnin_report(self))
        self.gpu_model.checkedChanged.connect(self.plots.set_visible_gpus)
        self.recordings.openRequested.connect(lambda sid: actions.open_recording(self, sid))
        self.recordings.replayRequested.connect(lambda sid, speed: actions.replay_recording(self, sid, speed))
        self.subtabs.currentChanged.connect(lambda _i: actions.subtab_changed(self))
        self._update_buttons()

    def _show_history(self, history: HistoryView) -> None:
        """Show ``history`` in every view."""
        buffer, devices = history.buffer, history.devices
        links = history.links
        set_time_basis(history.basis)
        self.plots.set_time_basis(history.basis)
        self.gpm_plots.set_time_basis(history.basis)
        self.plots.set_source(buffer, history.labels,
                              {c: LinkInfo(li.bytes_per_s, li.text, li.assumed) for c, li in links.items()})
        self.gpu_model.set_devices(devices, {c: (li.bytes_per_s, li.text) for c, li in links.items()})
        self.gpu_model.set_latest(buffer.latest, buffer.reasons)
        self.heatmap.set_source(buffer, history.labels)
        rows = min(len(devices), 8)  # the GPU list shows up to 8 rows at once, then scrolls
        table_h = self.table.horizontalHeader().height() + rows * self.table.verticalHeader().defaultSectionSize() + 6
        total = sum(self.split.sizes()) or 800
        self.split.setSizes([table_h, max(300, total - table_h)])
        self.toolbar.source_label.setText(history.title)
        self.stack.setCurrentIndex(PAGE_VIEW)
        if self.ctl.source_kind not in (SourceKind.NVML, SourceKind.NONE) and self.ctl.loaded is None:
            self.processes.clear(self.tr("This source carries no process list (only live NVML does)."))
        self._update_buttons()

    def _clear_views(self, reason: str) -> None:
        """No history in view (a fleet connection started): empty plots, GPU list and heat map; ``reason``."""
        empty = HistoryBuffer(1, HISTORY_METRICS)
        self.plots.set_source(empty, {}, {})
        self.gpu_model.set_devices([], {})
        self.heatmap.set_source(empty, {})
        self.stats.clear(reason)
        self.findings.clear(reason)
        self.processes.clear(reason)
        self._update_buttons()

    def _mark_dirty(self) -> None:
        self._dirty = True

    def _refresh_view(self) -> None:
        buffer = self.ctl.buffer
        if not self._dirty or buffer is None:
            return
        if self.window().isMinimized():  # nothing is seen: drawn by the first refresh after the window is back
            return
        self._dirty = False
        self.gpu_model.set_latest(buffer.latest, buffer.reasons)
        if self.plots.follow and self.plots.isVisible():
            self.plots.refresh()
        elif self.subtabs.currentWidget() is self.heatmap and self.heatmap.isVisible():
            self.heatmap.refresh()

    def _source_finished(self) -> None:
        self._dirty = True
        self.heatmap.refresh()

    def _nvml_unavailable(self, status: NvmlStatus) -> None:
        self.no_gpu.set_status(status)
        self.stack.setCurrentIndex(PAGE_NO_GPU)
        self.toolbar.source_label.setText(self.tr("Live monitoring is not available here (details below)."))

    def _loaded_shown(self, loaded: Loaded) -> None:
        """A finished history is in view: whole window, statistics and findings, and a PNG asked for it."""
        self.processes.clear(self.tr("A file or a recording carries no process list."))
        self.toolbar.show_whole_run()
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

    def _show_readout(self, t: float) -> None:
        names = {col: f"GPU {d.index}" for col, d in enumerate(self.ctl.devices)}
        self.readout.show_at(self.ctl.buffer, t, self.plots.visible_gpus, names, self.plots.links)

    def _export_png(self) -> None:
        path = ask_save_path(self, self.tr("Export plots as PNG"), "gpudesk-monitor.png", self.tr("PNG images (*.png)"))
        if path:
            target = self.heatmap if self.subtabs.currentWidget() is self.heatmap else self.plots
            if not target.grab().save(path, "PNG"):
                self.ctx.notify(self.tr("Could not write {p}.").format(p=path), "error")

    def _update_buttons(self) -> None:
        self.toolbar.update_buttons(live=self.ctl.worker is not None, has_data=self.ctl.buffer is not None,
                                    kind=self.ctl.source_kind)

    def shutdown(self) -> None:
        """Stop sampling and recording (called when the window closes)."""
        self._refresh_timer.stop()
        self.ctl.stop_source()

