"""The monitor tab's one-shot jobs and view interactions: import a dmon log, start a dmon stream or the demo,
open or replay a recording, span statistics, bottleneck rules, save an import as a recording, export CSV, and
the span/zoom/sub-tab reactions that tie the plots to the statistics and findings.

Each job runs on the thread pool through the controller (:meth:`MonitorController.run`); results come back on
the GUI thread; errors become non-blocking messages. The functions take the tab's views through the
:class:`MonitorViews` protocol, so this module does not import the tab (no import cycle).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QDialog, QTabWidget, QWidget

from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.formats.dmon_import import link_assumption_text
from gpudesk.telemetry.sources.dmon_stream import DmonStreamSource
from gpudesk.telemetry.recording.export import export_csv as write_csv
from gpudesk.telemetry.recording.recorder import Recorder
from gpudesk.telemetry.sources.replay import ReplaySource
from gpudesk.telemetry.recording.burnin_sources import report_from_store
from gpudesk.telemetry.rules.findings_summary import summarize
from gpudesk.telemetry.rules.heatmap import Heatmap, heatmap
from gpudesk.telemetry.core.model import TelemetryError
from gpudesk.telemetry.rules import run_rules
from gpudesk.telemetry.core.stats import span_stats
from gpudesk.store import open_store
from gpudesk.ui.context import AppContext
from gpudesk.ui.monitor.burnin_window import BurnInDialog, BurnInWindow
from gpudesk.ui.monitor.controller import MonitorController
from gpudesk.ui.monitor.findings_view import FindingsView
from gpudesk.ui.monitor.gpu_table import GpuTableModel
from gpudesk.ui.monitor.fleet_connection_dialog import FleetConnectionDialog
from gpudesk.ui.monitor.heatmap_view import HeatmapView
from gpudesk.ui.monitor.import_dialog import ImportChoice, ImportDialog
from gpudesk.ui.monitor.plots import MonitorPlots
from gpudesk.ui.monitor.recordings_view import RecordingsView
from gpudesk.ui.monitor.sources import AssumedLinkSource, Loaded, demo_path, load_demo, load_dmon_file, load_recording
from gpudesk.ui.monitor.stats_panel import StatsPanel
from gpudesk.ui.monitor.thresholds_editor import ThresholdsDialog
from gpudesk.ui.monitor.toolbar import MonitorToolbar
from gpudesk.ui.export_folder import ask_save_path
from gpudesk.ui.error_text import error_text
from gpudesk.telemetry.core.source import SourceKind


class MonitorViews(Protocol):
    """What the jobs need from the tab: its controller and the views they fill."""

    ctx: AppContext
    ctl: MonitorController
    toolbar: MonitorToolbar
    plots: MonitorPlots
    stats: StatsPanel
    findings: FindingsView
    gpu_model: GpuTableModel
    heatmap: HeatmapView
    recordings: RecordingsView
    subtabs: QTabWidget


def import_dmon(tab: MonitorViews, choice: ImportChoice | None = None) -> None:
    """Ask for a dmon log or command (unless ``choice`` is given), then load or start it."""
    if choice is None:
        dialog = ImportDialog(tab.ctx.catalog, tab if isinstance(tab, QWidget) else None)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        choice = dialog.choice()
    if choice.mode == "file":
        restore = _busy_status(tab, QCoreApplication.translate("Monitor", "Reading {p}…").format(p=choice.path))
        tab.ctl.run(load_dmon_file, choice.path, choice.gpu, choice.pcie_gen, choice.pcie_width, choice.interval_s,
                    on_result=tab.ctl.show_loaded, what=QCoreApplication.translate("Monitor", "Importing the dmon log"),
                    on_failed=restore)
    else:
        start_stream(tab, choice)


def _busy_status(tab: MonitorViews, text: str) -> Callable[[], None]:
    """Show ``text`` ("Reading…") in the source line; the function returned puts back what it said before (a
    failed opening must not leave "Reading…" behind)."""
    label = tab.toolbar.source_label
    before = label.text()
    label.setText(text)
    return lambda: label.setText(before)


def connect_fleet(tab: MonitorViews) -> None:
    """Ask for the fleet's Prometheus (the last connection filled in), then watch it."""
    dialog = FleetConnectionDialog(tab.ctl.fleet.saved_settings(), tab if isinstance(tab, QWidget) else None)
    if dialog.exec() != QDialog.DialogCode.Accepted:
        return
    settings = dialog.settings()
    if not settings.url:
        tab.ctx.notify(QCoreApplication.translate("Monitor", "Give the Prometheus server's URL to watch a fleet."),
                       "warning")
        return
    tab.ctl.start_fleet(settings)


def start_stream(tab: MonitorViews, choice: ImportChoice) -> None:
    """Watch ``choice.command``'s dmon output live, with the assumed PCIe link."""
    command, interval = choice.command, choice.interval_s
    if not command:
        return

    def factory() -> AssumedLinkSource:
        return AssumedLinkSource(DmonStreamSource(command, interval_s=interval), choice.gpu, choice.pcie_gen,
                                 choice.pcie_width)

    tab.ctl.start_worker(factory, kind=SourceKind.DMON_STREAM, title=QCoreApplication.translate("Monitor", "Live dmon stream: {c}").format(c=command))


def play_demo(tab: MonitorViews) -> None:
    """Open the bundled demo capture whole, like an imported log: plots, heat map, statistics and findings at
    once (it is a single sampling round, so replaying it in time would show nothing more)."""
    if demo_path() is None:
        tab.ctx.notify(QCoreApplication.translate("Monitor", "No demo recording is bundled with this installation."), "warning")
        return
    restore = _busy_status(tab, QCoreApplication.translate("Monitor", "Opening the demo…"))
    tab.ctl.run(load_demo, on_result=tab.ctl.show_loaded, what=QCoreApplication.translate("Monitor", "Opening the demo"),
                on_failed=restore)


def replay_recording(tab: MonitorViews, session_id: int, speed: float) -> None:
    """Replay a saved recording ``speed`` times faster than real time (1 = as recorded)."""
    restore = _busy_status(tab, QCoreApplication.translate("Monitor", "Opening recording #{n}…").format(n=session_id))
    tab.ctl.run(load_recording, session_id, on_result=lambda loaded: start_replay(tab, loaded, speed),
                what=QCoreApplication.translate("Monitor", "Opening the recording"), on_failed=restore)


def start_replay(tab: MonitorViews, loaded: Loaded, speed: float) -> None:
    """Feed the loaded history (views of its buffer) through a ReplaySource on the sampler thread, showing the
    whole run so far."""
    frame, devices = loaded.buffer.history(), loaded.devices
    title = QCoreApplication.translate("Monitor", "Replay at {s:g}x: {t}").format(s=speed, t=loaded.title)
    tab.ctl.start_worker(lambda: ReplaySource(frame, devices=devices, speed=speed), kind=SourceKind.REPLAY, title=title,
                         basis=loaded.basis)
    tab.toolbar.show_whole_run()
    tab.plots.set_window(None)


def open_recording(tab: MonitorViews, session_id: int) -> None:
    restore = _busy_status(tab, QCoreApplication.translate("Monitor", "Opening recording #{n}…").format(n=session_id))
    tab.ctl.run(load_recording, session_id, on_result=tab.ctl.show_loaded,
                what=QCoreApplication.translate("Monitor", "Opening the recording"), on_failed=restore)


def _clamp(ctl: MonitorController, t0: float, t1: float) -> tuple[float, float]:
    """The part of [t0, t1] that holds samples (the view is padded beyond the first and last ones)."""
    span = ctl.buffer.span() if ctl.buffer is not None else None
    if span is None or t1 < span[0] or t0 > span[1]:
        return t0, t1
    return max(t0, span[0]), min(t1, span[1])


def selected_span(tab: MonitorViews) -> tuple[float, float] | None:
    """The statistics span when shown, else the visible range."""
    if tab.plots.region.isVisible():
        t0, t1 = tab.plots.region.getRegion()
        return float(t0), float(t1)
    return tab.plots.visible_range()


def compute_stats(tab: MonitorViews, t0: float, t1: float) -> None:
    """Median, p5, p95 per GPU and metric over [t0, t1] into the statistics panel."""
    buffer = tab.ctl.buffer
    if buffer is None:
        return
    t0, t1 = _clamp(tab.ctl, t0, t1)
    snap = buffer.history(t0, t1).copy()  # the buffer keeps changing while the worker reads
    devices = list(tab.ctl.devices)
    names = {d.index: f"GPU {d.index}" for d in devices}
    links = {d.index: d.pcie_link_bytes_per_s for d in devices}
    tab.stats.set_busy(t0, t1)

    def work() -> Any:
        return span_stats(snap, t0, t1)

    def done(stats: Any) -> None:
        tab.stats.set_stats(stats, t0, t1, names, links)

    tab.ctl.run_quiet(work, on_result=done, on_error=lambda exc: tab.stats.show_error(error_text(exc)))


def analyze(tab: MonitorViews) -> None:
    """Run the bottleneck rules over the selected span (or visible range) into the findings view, with the
    user's rule thresholds; the findings' summary and a utilization heat map of the span come with them.

    A loaded file, recording or the demo is analysed from its buffer, which holds every metric the source recorded
    (as ``gpudesk monitor analyze`` does) and does not change; a live or replayed history from a copy of the
    buffer's span (samples keep arriving)."""
    span = selected_span(tab)
    buffer = tab.ctl.buffer
    if buffer is None or span is None:
        return
    span = _clamp(tab.ctl, *span)
    loaded = tab.ctl.loaded
    snap = None if loaded is not None else buffer.history(*span).copy()
    devices = list(tab.ctl.devices)
    thresholds = tab.ctl.rule_thresholds()
    tab.findings.set_busy()

    def work() -> Any:
        if loaded is not None:
            frame = loaded.buffer.history(*span)
        else:
            assert snap is not None  # taken above whenever nothing was loaded
            frame = snap
        findings = run_rules(frame, devices, thresholds=thresholds)
        try:
            heat: Heatmap | None = heatmap(frame)
        except TelemetryError:  # no samples in the span: the timeline shows the spans alone
            heat = None
        return findings, summarize(findings), heat

    def done(result: Any) -> None:
        findings, summary, heat = result
        tab.findings.set_findings(findings, tab.stats.span_text(*span), summary, span, heat)
        tab.gpu_model.set_findings(findings)

    tab.ctl.run_quiet(work, on_result=done, on_error=lambda exc: tab.findings.show_error(error_text(exc)))


def edit_thresholds(tab: MonitorViews) -> None:
    """Open the rule thresholds editor; saving re-runs the rules over the span in view."""
    dialog = ThresholdsDialog(tab if isinstance(tab, QWidget) else None)
    dialog.editor.saved.connect(tab.ctl.set_rule_thresholds)
    dialog.editor.saved.connect(lambda _th: analyze(tab))
    dialog.open()


def burnin_report(tab: MonitorViews) -> None:
    """The burn-in report of the recording in view, against a saved plan the user picks (or none)."""
    loaded = tab.ctl.loaded
    if loaded is None or loaded.session_id is None:
        tab.ctx.notify(QCoreApplication.translate(
            "Monitor", "Open a saved recording first (Recordings sub-tab): a burn-in report reads a recording "
            "from your database. An imported dmon log can be stored with 'Save as recording'."), "warning")
        return
    parent = tab if isinstance(tab, QWidget) else None
    choice = BurnInDialog(tab.ctx.store, loaded.session_id, loaded.title, parent)
    if choice.exec() != QDialog.DialogCode.Accepted:
        return
    session_id, plan_id, thresholds = loaded.session_id, choice.plan_id(), tab.ctl.rule_thresholds()
    tab.toolbar.source_label.setText(QCoreApplication.translate("Monitor", "Making the burn-in report…"))
    name = loaded.title

    def work() -> Any:
        db = open_store()  # this thread's own connection
        try:
            return report_from_store(db, session_id, plan_id, thresholds=thresholds)
        finally:
            db.close()

    def done(report: Any) -> None:
        tab.toolbar.source_label.setText(tab.ctl.title)
        window = BurnInWindow(report, parent, name=name)
        window.view.zoomRequested.connect(lambda t0, t1: zoom_to(tab, t0, t1))
        window.view.exportFailed.connect(lambda message: tab.ctx.notify(message, "error"))
        window.show()

    tab.ctl.run(work, on_result=done, what=QCoreApplication.translate("Monitor", "The burn-in report"),
                on_failed=lambda: tab.toolbar.source_label.setText(tab.ctl.title))


def span_requested(tab: MonitorViews, visible: bool) -> None:
    """The statistics panel asked for the span selector (or to drop it: then the visible range counts)."""
    tab.plots.show_region(visible)
    if not visible:
        rng = tab.plots.visible_range()
        if rng:
            compute_stats(tab, *rng)


def zoom_to(tab: MonitorViews, t0: float, t1: float) -> None:
    """Show [t0, t1] (a finding's span) in the plots, padded by a tenth, and stop following."""
    tab.subtabs.setCurrentIndex(0)
    tab.plots.set_follow(False)
    pad = max(1.0, (t1 - t0) * 0.1)
    tab.plots.plots[m.GPU_UTIL].setXRange(t0 - pad, t1 + pad, padding=0)


def subtab_changed(tab: MonitorViews) -> None:
    """Bring the newly shown sub-tab up to date (heat map, statistics of the span, recordings list)."""
    current = tab.subtabs.currentWidget()
    if current is tab.heatmap:
        tab.heatmap.refresh()
    elif current is tab.stats and not tab.stats.stats and tab.ctl.buffer is not None:
        rng = selected_span(tab)
        if rng:
            compute_stats(tab, *rng)
    elif current is tab.recordings:
        tab.recordings.reload()


def save_as_recording(tab: MonitorViews) -> None:
    """Store the imported dmon log as a recording (session with its devices and samples)."""
    loaded = tab.ctl.loaded
    if loaded is None:
        return
    notes = tab.toolbar.notes_edit.text()

    def work() -> int:
        recorder = Recorder()
        try:
            recorder.start(loaded.devices, source=loaded.title, interval_s=None, notes="\n".join(
                filter(None, [notes, *loaded.notes])), name=loaded.title, gpu_model=loaded.gpu.id if loaded.gpu else None,
                link_assumption=link_assumption_text(loaded.gpu))
            recorder.write_frame(loaded.buffer.history())
            session_id = recorder.stop()
            assert session_id is not None  # a started recorder returns its session
            return int(session_id)
        finally:
            recorder.close()

    def done(session_id: int) -> None:
        tab.ctl.recording_saved(loaded, session_id)
        tab.ctx.notify(QCoreApplication.translate("Monitor", "Saved as recording #{n}.").format(n=session_id), "info")
        tab.recordings.reload()

    tab.ctl.run(work, on_result=done, what=QCoreApplication.translate("Monitor", "Saving the recording"))


def export_csv(tab: MonitorViews, path: str | None = None) -> None:
    """Export the selected span (or everything) as CSV (formula-safe cells)."""
    buffer = tab.ctl.buffer
    if buffer is None:
        return
    if path is None:
        path = ask_save_path(tab if isinstance(tab, QWidget) else None,
                             QCoreApplication.translate("Monitor", "Export samples as CSV"), "gpudesk-monitor.csv",
                             QCoreApplication.translate("Monitor", "CSV files (*.csv)"))
        if not path:
            return
    span = selected_span(tab) if tab.plots.region.isVisible() else None
    snap = buffer.history(*(span or (None, None))).copy()
    devices = list(tab.ctl.devices)
    target = path

    def work() -> str:
        with open(target, "w", encoding="utf-8", newline="") as out:
            write_csv(snap, out, devices=devices)
        return target

    tab.ctl.run(work, on_result=lambda p: tab.ctx.notify(QCoreApplication.translate("Monitor", "Exported {p}.").format(p=Path(p).name), "info"),
                what=QCoreApplication.translate("Monitor", "Exporting CSV"))
