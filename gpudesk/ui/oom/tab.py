"""The OOM doctor tab: target picker on the left; diagnosis, live memory and history on the right.

Flow (DESIGN.md, "OOM doctor"): pick a target (a running GPU process, a command to launch, or pasted /
dropped text) -> collect in the background (text diagnosis, probe inside the process, non-invasive
evidence — :class:`OomController` — or a launched job with its memory samples — :class:`LaunchRunner`) ->
``gpudesk.oom.Diagnosis`` -> ranked causes, bars, curve. Every new diagnosis is saved to the user store's
history. A probe can be cancelled (the target is left running), a launch stopped. Errors are shown with
``ctx.notify`` and never lose the input.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QProgressBar, QPushButton, QSplitter, QTabWidget, QVBoxLayout, QWidget

from gpudesk.oom import OomError, OomInputError, ProbeTimeout
from gpudesk.ui.context import AppContext
from gpudesk.ui.oom.controller import EVIDENCE_DURATION_S, PROBE_TIMEOUT_S, OomController, history_label
from gpudesk.ui.oom.drop_target import DropTarget
from gpudesk.ui.oom.history_view import HistoryView
from gpudesk.ui.oom.launch_runner import LaunchRunner
from gpudesk.ui.oom.live_curve import LiveMemoryCurve
from gpudesk.ui.oom.plain import plain_label
from gpudesk.ui.oom.results_view import ResultsView
from gpudesk.ui.oom.snapshot_view import SnapshotView
from gpudesk.ui.oom.target_picker import TargetPicker
from gpudesk.ui.error_text import error_text

__all__ = ["EVIDENCE_DURATION_S", "PROBE_TIMEOUT_S", "OomTab"]


class OomTab(QWidget):
    """Find out why a job ran out of GPU memory. Takes ``(ctx, parent)`` like every tab; ``ctl`` runs the jobs."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctx = ctx
        self.setWindowTitle(self.tr("OOM doctor"))
        self.setAcceptDrops(True)
        self.picker = TargetPicker(self)
        self.ctl = OomController(lambda: self.picker.nvml)
        self.results = ResultsView(self)
        self.curve = LiveMemoryCurve(self)
        self.history = HistoryView(ctx, self)
        self.snapshot = SnapshotView(self)
        self.pages = QTabWidget(self)
        self.pages.addTab(self.results, self.tr("Dia&gnosis"))
        self.pages.addTab(self.curve, self.tr("Live &memory"))
        self.pages.addTab(self.snapshot, self.tr("Memory s&napshot"))
        self.pages.addTab(self.history, self.tr("Histor&y"))
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(self.picker)
        splitter.addWidget(self.pages)
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 3)
        splitter.setSizes([520, 760])
        splitter.setChildrenCollapsible(False)
        self.busy = QProgressBar(self)
        self.busy.setRange(0, 0)
        self.busy.setMaximumWidth(160)
        self.busy.hide()
        self.status = plain_label("", self, wrap=True)
        self.cancel_button = QPushButton(self.tr("Cancel"), self)
        self.cancel_button.setToolTip(self.tr("Stop waiting for the running job; a probed process keeps running"))
        self.cancel_button.hide()
        status_row = QHBoxLayout()
        status_row.addWidget(self.busy)
        status_row.addWidget(self.status, 1)
        status_row.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter, 1)
        layout.addLayout(status_row)
        self.runner = LaunchRunner(self)
        self.drops = DropTarget(self)
        self.installEventFilter(self.drops)
        self._connect()

    def _connect(self) -> None:
        picker, ctl, runner = self.picker, self.ctl, self.runner
        picker.textSubmitted.connect(ctl.diagnose_text)
        picker.textFailed.connect(lambda message: self.ctx.notify(message, "error"))
        picker.probeRequested.connect(self.probe)
        picker.evidenceRequested.connect(ctl.gather_evidence)
        picker.evidenceRequested.connect(lambda _pid: picker.set_probe_busy(True))
        picker.cancelRequested.connect(ctl.cancel)
        picker.failed.connect(lambda message: self.ctx.notify(message, "warning"))
        picker.launchRequested.connect(self.launch)
        picker.stopRequested.connect(runner.stop)
        self.cancel_button.clicked.connect(ctl.cancel)
        ctl.started.connect(self._job_started)
        ctl.progress.connect(self.status.setText)
        ctl.diagnosed.connect(self._diagnosed)
        ctl.failed.connect(self._failed)
        ctl.probeEnded.connect(lambda: picker.set_probe_busy(False))
        ctl.cancelled.connect(self._cancelled)
        runner.started.connect(self._launch_started)
        runner.sample.connect(self.curve.add_launch_sample)
        runner.output.connect(picker.append_output)
        runner.progress.connect(self.status.setText)
        runner.finished.connect(self._launch_finished)
        runner.failed.connect(self._launch_failed)
        self.history.reopenRequested.connect(self._reopen)
        self.drops.fileDropped.connect(ctl.open_file)
        ctl.textFileRequested.connect(picker.diagnose_file)
        picker.snapshotRequested.connect(ctl.open_file)
        runner.finished.connect(ctl.launch_ended)
        ctl.snapshotRequested.connect(self.snapshot.open_file)
        ctl.snapshotRequested.connect(lambda _path: self.pages.setCurrentWidget(self.snapshot))
        self.drops.textDropped.connect(picker.diagnose_pasted)

    # Kept as tab methods: tests and the CLI-like callers start jobs on the tab.
    def probe(self, request: Any) -> None:
        """Run the probe in the chosen process (after the user confirmed), then diagnose what it read."""
        self.ctl.probe(request)
        self.picker.set_probe_busy(True)

    def launch(self, argv: list[str], cwd: str, interval_s: float) -> None:
        """Start ``argv`` with the probe preinstalled; samples go to the live curve."""
        if not self.runner.start(argv, interval_s=interval_s, cwd=cwd or None):
            self.ctx.notify(self.tr("A job is already running; stop it first."), "warning")

    def _launch_started(self, argv: list[str]) -> None:
        self.curve.clear()
        self.curve.set_status(self.tr("Running: %1").replace("%1", " ".join(argv)))
        self.picker.set_launch_running(True)
        self.pages.setCurrentWidget(self.curve)
        self.busy.show()
        self.status.setText(self.tr("Job running …"))

    def _launch_finished(self, result: Any) -> None:
        self.picker.set_launch_running(False)
        self.busy.hide()
        report = result.report
        for event in result.oom_events:
            # OOM observer events carry the wall-clock time ("t", seconds since the epoch) of the OOM.
            if isinstance(event.get("t"), (int, float)) and self.runner.start_epoch is not None:
                self.curve.mark(float(event["t"]) - self.runner.start_epoch, self.tr("OOM"))
        if report is not None:
            self.curve.set_host_rss(report.host_rss_samples)
        if self.curve.point_count() == 0:
            self.curve.set_empty_text(self.tr("No allocator samples from this job (see the line above)."))
        summary = self.tr("Job ended with exit status %1.").replace("%1", str(result.returncode))
        if report is not None and report.status:
            summary += " " + report.status
        self.curve.set_status(summary)
        self.status.setText(summary)
        if result.diagnosis is not None:
            self._present(result.diagnosis, self.tr("launched job"), switch=bool(result.diagnosis.causes))

    def _launch_failed(self, exc: BaseException) -> None:
        self.picker.set_launch_running(False)
        self.busy.hide()
        detail = error_text(exc) if isinstance(exc, OomError) else f"{type(exc).__name__}: {exc}"
        message = self.tr("Cannot launch: %1").replace("%1", detail)
        self.curve.set_status(message)
        self.status.setText(message)
        self.ctx.notify(message, "error")

    def _job_started(self, text: str, cancellable: bool) -> None:
        self.status.setText(text)
        self.results.show_busy(text)
        self.busy.show()
        self.cancel_button.setVisible(cancellable)

    def _finish(self, text: str = "") -> None:
        self.busy.setVisible(self.runner.running)
        self.cancel_button.hide()
        self.status.setText(text)

    def _cancelled(self) -> None:
        self._finish(self.tr("Cancelled; the process was left running."))
        self.results.restore_header()
        self.picker.set_probe_busy(False)

    def _diagnosed(self, diagnosis: Any, source: str) -> None:
        self._finish(self.tr("Diagnosed in %1 ms.").replace("%1", f"{diagnosis.elapsed_s * 1000:.1f}")
                     if diagnosis.elapsed_s is not None else "")
        self._present(diagnosis, source)

    def _present(self, diagnosis: Any, source: str, *, switch: bool = True) -> None:
        self.results.show_diagnosis(diagnosis, source)
        if switch:
            self.pages.setCurrentWidget(self.results)
        self.history.save(diagnosis, history_label(diagnosis, source))

    def _reopen(self, diagnosis: Any, source: str) -> None:
        self.results.show_diagnosis(diagnosis, source)
        self.pages.setCurrentWidget(self.results)
        report = diagnosis.report
        if (report.samples or report.host_rss_samples) and not self.runner.running:
            # A saved launch keeps its samples: draw its curve again.
            self.curve.clear()
            for sample in report.samples:
                self.curve.add_launch_sample(sample)
            self.curve.set_host_rss(report.host_rss_samples)
            self.curve.set_status(self.tr("Saved job: %1").replace("%1", source))

    def _failed(self, exc: BaseException) -> None:
        # The core's errors carry sentences meant for the user; anything else is a defect: name its type.
        message = error_text(exc) if isinstance(exc, OomError) else f"{type(exc).__name__}: {exc}"
        self._finish(message)
        if isinstance(exc, OomInputError):
            self.results.show_unparseable(message)
            self.pages.setCurrentWidget(self.results)
            return
        self.results.restore_header()
        self.ctx.notify(message, "warning" if isinstance(exc, ProbeTimeout) else "error")

    def shutdown(self) -> None:
        """Called when the window closes: end a launched job and ignore pending results."""
        self.ctl.forget()
        self.runner.stop()
