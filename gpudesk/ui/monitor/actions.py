"""The monitor tab's one-shot jobs, each run on the thread pool with ``run_task``: import a dmon log, start
a dmon stream or the demo replay, open a recording, span statistics, bottleneck rules, save an import as a
recording, export CSV. Results come back to the tab on the GUI thread; errors become non-blocking messages.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QDialog, QFileDialog

from gpudesk.ui.monitor.frames import snapshot, snapshot_to_frame
from gpudesk.ui.monitor.import_dialog import ImportChoice, ImportDialog
from gpudesk.ui.monitor.sources import AssumedLinkSource, demo_path, load_demo, load_dmon_file, load_recording
from gpudesk.ui.workers import run_task

if TYPE_CHECKING:
    from gpudesk.ui.monitor.tab import MonitorTab


def _run(tab: MonitorTab, fn, *args, on_result, what: str, **kwargs) -> None:
    """run_task with the tab's error reporting; keeps a reference until the task finishes."""

    def failed(exc: BaseException) -> None:
        tab.ctx.notify(QCoreApplication.translate("Monitor", "{what} failed: {e}").format(what=what, e=exc), "error")

    task = run_task(fn, *args, on_result=on_result, on_error=failed, **kwargs)
    tab._tasks.append(task)
    task.signals.finished.connect(lambda: tab._tasks.remove(task) if task in tab._tasks else None)


def import_dmon(tab: MonitorTab, choice: ImportChoice | None = None) -> None:
    """Ask for a dmon log or command (unless ``choice`` is given), then load or start it."""
    if choice is None:
        dialog = ImportDialog(tab.ctx.catalog, tab)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        choice = dialog.choice()
    if choice.mode == "file":
        tab.source_label.setText(QCoreApplication.translate("Monitor", "Reading {p}…").format(p=choice.path))
        _run(tab, load_dmon_file, choice.path, choice.gpu, choice.pcie_gen, choice.pcie_width, choice.interval_s,
             on_result=tab.show_loaded, what=QCoreApplication.translate("Monitor", "Importing the dmon log"))
    else:
        start_stream(tab, choice)


def start_stream(tab: MonitorTab, choice: ImportChoice) -> None:
    """Watch ``choice.command``'s dmon output live, with the assumed PCIe link."""
    from gpudesk.telemetry.dmon_stream import DmonStreamSource

    command, interval = choice.command, choice.interval_s

    def factory():
        return AssumedLinkSource(DmonStreamSource(command, interval_s=interval), choice.gpu, choice.pcie_gen,
                                 choice.pcie_width)

    title = QCoreApplication.translate("Monitor", "Live dmon stream: {c}").format(c=command)
    tab.start_worker(factory, kind="dmon-stream", title=title)


def play_demo(tab: MonitorTab) -> None:
    """Open the bundled demo capture whole, like an imported log: plots, heat map, statistics and findings at
    once (it is a single sampling round, so replaying it in time would show nothing more)."""
    if demo_path() is None:
        tab.ctx.notify(QCoreApplication.translate("Monitor", "No demo recording is bundled with this installation."),
                       "warning")
        return
    tab.source_label.setText(QCoreApplication.translate("Monitor", "Opening the demo…"))
    _run(tab, load_demo, on_result=tab.show_loaded, what=QCoreApplication.translate("Monitor", "Opening the demo"))


def replay_recording(tab: MonitorTab, session_id: int, speed: float) -> None:
    """Replay a saved recording ``speed`` times faster than real time (1 = as recorded)."""
    tab.source_label.setText(QCoreApplication.translate("Monitor", "Opening recording #{n}…").format(n=session_id))
    _run(tab, load_recording, session_id, on_result=lambda loaded: start_replay(tab, loaded, speed),
         what=QCoreApplication.translate("Monitor", "Opening the recording"))


def start_replay(tab: MonitorTab, loaded, speed: float) -> None:
    """Feed ``loaded.frame`` through a ReplaySource on the sampler thread, showing the whole run so far."""
    from gpudesk.telemetry.replay import ReplaySource

    frame, devices = loaded.frame, loaded.devices
    title = QCoreApplication.translate("Monitor", "Replay at {s:g}x: {t}").format(s=speed, t=loaded.title)
    tab.start_worker(lambda: ReplaySource(frame, devices=devices, speed=speed), kind="replay", title=title,
                     basis=loaded.basis)
    tab.window_combo.setCurrentIndex(tab.window_combo.count() - 1)  # whole run
    tab.plots.set_window(None)


def open_recording(tab: MonitorTab, session_id: int) -> None:
    tab.source_label.setText(QCoreApplication.translate("Monitor", "Opening recording #{n}…").format(n=session_id))
    _run(tab, load_recording, session_id, on_result=tab.show_loaded,
         what=QCoreApplication.translate("Monitor", "Opening the recording"))


def _clamp(tab: MonitorTab, t0: float, t1: float) -> tuple[float, float]:
    """The part of [t0, t1] that holds samples (the view is padded beyond the first and last ones)."""
    span = tab.buffer.span() if tab.buffer is not None else None
    if span is None or t1 < span[0] or t0 > span[1]:
        return t0, t1
    return max(t0, span[0]), min(t1, span[1])


def compute_stats(tab: MonitorTab, t0: float, t1: float) -> None:
    """Median, p5, p95 per GPU and metric over [t0, t1] into the statistics panel."""
    if tab.buffer is None:
        return
    from gpudesk.telemetry.stats import span_stats

    t0, t1 = _clamp(tab, t0, t1)
    snap = snapshot(tab.buffer, t0, t1)
    devices = list(tab.devices)
    names = {d.index: f"GPU {d.index}" for d in devices}
    links = {d.index: d.pcie_link_bytes_per_s for d in devices}
    tab.stats.set_busy(t0, t1)

    def work():
        return span_stats(snapshot_to_frame(snap, devices), t0, t1)

    def done(stats) -> None:
        tab.stats.set_stats(stats, t0, t1, names, links)

    def failed(exc: BaseException) -> None:
        tab.stats.show_error(str(exc))

    task = run_task(work, on_result=done, on_error=failed)
    tab._tasks.append(task)


def analyze(tab: MonitorTab) -> None:
    """Run the bottleneck rules over the selected span (or visible range) into the findings view.

    A loaded file, recording or the demo is analysed from its whole frame (every metric the source recorded, as
    ``gpudesk monitor analyze`` does); a live or replayed history from a copy of the buffer's span."""
    span = tab.selected_span()
    if tab.buffer is None or span is None:
        return
    from gpudesk.telemetry.rules import run_rules

    span = _clamp(tab, *span)
    loaded = tab.loaded
    snap = None if loaded is not None else snapshot(tab.buffer, *span)
    devices = list(tab.devices)
    tab.findings.set_busy()

    def work():
        frame = loaded.frame.select(*span) if loaded is not None else snapshot_to_frame(snap, devices)
        return run_rules(frame, devices)

    def done(findings) -> None:
        tab.findings.set_findings(findings, tab.stats._span_text(*span))

    def failed(exc: BaseException) -> None:
        tab.findings.show_error(str(exc))

    task = run_task(work, on_result=done, on_error=failed)
    tab._tasks.append(task)


def save_as_recording(tab: MonitorTab) -> None:
    """Store the imported dmon log as a recording (session with its devices and samples)."""
    loaded = tab.loaded
    if loaded is None:
        return
    notes = tab.notes_edit.text()

    def work() -> int:
        from gpudesk.telemetry.dmon_import import link_assumption_text
        from gpudesk.telemetry.recorder import Recorder

        recorder = Recorder()
        try:
            recorder.start(loaded.devices, source=loaded.title, interval_s=None, notes="\n".join(
                filter(None, [notes, *loaded.notes])), name=loaded.title, gpu_model=loaded.gpu.id if loaded.gpu else None,
                link_assumption=link_assumption_text(loaded.gpu))
            recorder.write_frame(loaded.frame)
            return int(recorder.stop())
        finally:
            recorder.close()

    def done(session_id: int) -> None:
        tab.ctx.notify(QCoreApplication.translate("Monitor", "Saved as recording #{n}.").format(n=session_id), "info")
        tab.recordings.reload()

    _run(tab, work, on_result=done, what=QCoreApplication.translate("Monitor", "Saving the recording"))


def export_csv(tab: MonitorTab, path: str | None = None) -> None:
    """Export the selected span (or everything) as CSV (formula-safe cells)."""
    if tab.buffer is None:
        return
    if path is None:
        path, _ = QFileDialog.getSaveFileName(tab, QCoreApplication.translate("Monitor", "Export samples as CSV"),
                                              "gpudesk-monitor.csv",
                                              QCoreApplication.translate("Monitor", "CSV files (*.csv)"))
        if not path:
            return
    span = tab.selected_span() if tab.plots.region.isVisible() else None
    snap = snapshot(tab.buffer, *(span or (None, None)))
    devices = list(tab.devices)

    def work() -> str:
        from gpudesk.telemetry.export import export_csv as write_csv

        with open(path, "w", encoding="utf-8", newline="") as out:
            write_csv(snapshot_to_frame(snap, devices), out, devices=devices)
        return path

    _run(tab, work,
         on_result=lambda p: tab.ctx.notify(
             QCoreApplication.translate("Monitor", "Exported {p}.").format(p=Path(p).name), "info"),
         what=QCoreApplication.translate("Monitor", "Exporting CSV"))
