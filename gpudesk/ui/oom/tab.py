"""The OOM doctor tab: target picker on the left; diagnosis, live memory and history on the right.

Flow (DESIGN.md, "OOM doctor"): pick a target (a running GPU process, a command to launch, or pasted /
dropped text) -> collect in the background (text diagnosis, probe inside the process, non-invasive
evidence, or a launched job with its memory samples) -> ``gpudesk.oom.Diagnosis`` -> ranked causes, bars,
curve. Every new diagnosis is saved to the user store's history. Slow work runs through
:mod:`gpudesk.ui.workers`; a probe can be cancelled (the target is left running), a launch stopped.
Errors are shown with ``ctx.notify`` and never lose the input.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from gpudesk.ui.context import AppContext
from gpudesk.ui.oom.history_view import HistoryView
from gpudesk.ui.oom.launch_runner import LaunchRunner
from gpudesk.ui.oom.live_curve import LiveMemoryCurve
from gpudesk.ui.oom.method_choice import ProbeRequest
from gpudesk.ui.oom.plain import plain_label
from gpudesk.ui.oom.results_view import ResultsView
from gpudesk.ui.oom.target_picker import TargetPicker
from gpudesk.ui.oom.text_input import local_files
from gpudesk.ui.workers import run_task

PROBE_TIMEOUT_S = 10.0
EVIDENCE_DURATION_S = 2.0


def _diagnose_text(text: str | bytes):
    from gpudesk.oom import diagnose_text

    return diagnose_text(text)


class OomTab(QWidget):
    """Find out why a job ran out of GPU memory. Takes ``(ctx, parent)`` like every tab."""

    # (job generation, message) from a worker thread's progress callback; delivered queued on the GUI thread.
    _progress = Signal(int, str)

    def __init__(self, ctx: AppContext, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctx = ctx
        self.setWindowTitle(self.tr("OOM doctor"))
        self.setAcceptDrops(True)
        self._job = 0  # generation of the running text/probe/evidence job; a cancelled one is ignored
        self._pending = 0  # text/probe/evidence tasks started and not finished (cancelled ones included)
        self.picker = TargetPicker(self)
        self.results = ResultsView(self)
        self.curve = LiveMemoryCurve(self)
        self.history = HistoryView(ctx, self)
        self.pages = QTabWidget(self)
        self.pages.addTab(self.results, self.tr("Dia&gnosis"))
        self.pages.addTab(self.curve, self.tr("Live &memory"))
        self.pages.addTab(self.history, self.tr("&History"))
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
        self.cancel_button.clicked.connect(self.cancel)
        status_row = QHBoxLayout()
        status_row.addWidget(self.busy)
        status_row.addWidget(self.status, 1)
        status_row.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter, 1)
        layout.addLayout(status_row)
        self.runner = LaunchRunner(self)
        self._progress.connect(self._on_progress)
        self._connect()

    def _connect(self) -> None:
        text = self.picker.text_input
        text.submitted.connect(self.diagnose_text)
        text.failed.connect(lambda message: self.ctx.notify(message, "error"))
        self.picker.methods.probe_requested.connect(self.probe)
        self.picker.methods.evidence_requested.connect(self.gather_evidence)
        self.picker.methods.cancel_requested.connect(self.cancel)
        self.picker.failed.connect(lambda message: self.ctx.notify(message, "warning"))
        launch = self.picker.launch_panel
        launch.launch_requested.connect(self.launch)
        launch.stop_requested.connect(self.runner.stop)
        self.runner.started.connect(self._launch_started)
        self.runner.sample.connect(self._launch_sample)
        self.runner.output.connect(launch.append_output)
        self.runner.progress.connect(self.status.setText)
        self.runner.finished.connect(self._launch_finished)
        self.runner.failed.connect(self._launch_failed)
        self.history.reopen_requested.connect(self._reopen)

    # --- text -------------------------------------------------------------------------------------------
    def diagnose_text(self, text: str | bytes, source: str = "") -> None:
        """Diagnose pasted or loaded text in the background; the result is shown and saved to history."""
        self._start(self.tr("Diagnosing %1 …").replace("%1", source or self.tr("the text")), cancellable=False)
        job = self._job
        run_task(
            _diagnose_text,
            text,
            on_result=lambda diagnosis: self._show(job, diagnosis, source or self.tr("pasted text")),
            on_error=lambda exc: self._failed(job, exc),
            on_finished=self._task_done,
        )

    # --- process ------------------------------------------------------------------------------------------
    def probe(self, request: ProbeRequest) -> None:
        """Run the probe in the chosen process (after the user confirmed), then diagnose what it read."""
        self._start(
            self.tr("Probing process %1 with %2 (up to %3 s) …")
            .replace("%1", str(request.pid))
            .replace("%2", request.method)
            .replace("%3", f"{PROBE_TIMEOUT_S:.0f}"),
            cancellable=True,
        )
        self.picker.methods.set_busy(True)
        job = self._job
        relay = self._progress_relay(job)
        nvml = self.picker.nvml

        def work():
            from gpudesk.oom import diagnose
            from gpudesk.oom.attach import probe_process

            report = probe_process(
                request.pid,
                request.method,
                reset_peak=request.reset_peak,
                timeout_s=PROBE_TIMEOUT_S,
                progress=relay,
                allow_other_user=request.allow_other_user,
                nvml=nvml,
            )
            return diagnose(report)

        source = self.tr("process %1 (%2)").replace("%1", str(request.pid)).replace("%2", request.method)
        run_task(
            work,
            on_result=lambda diagnosis: self._show(job, diagnosis, source),
            on_error=lambda exc: self._failed(job, exc),
            on_finished=lambda: self._probe_done(job),
        )

    def gather_evidence(self, pid: int) -> None:
        """Non-invasive evidence for ``pid`` (NVML, psutil over a short window), then diagnose it."""
        self._start(
            self.tr("Gathering evidence about process %1 for %2 s …")
            .replace("%1", str(pid))
            .replace("%2", f"{EVIDENCE_DURATION_S:.0f}"),
            cancellable=True,
        )
        self.picker.methods.set_busy(True)
        job = self._job
        relay = self._progress_relay(job)
        nvml = self.picker.nvml

        def work():
            from gpudesk.oom import diagnose
            from gpudesk.oom.evidence import gather_evidence

            return diagnose(gather_evidence(pid, duration_s=EVIDENCE_DURATION_S, progress=relay, nvml=nvml))

        run_task(
            work,
            on_result=lambda diagnosis: self._show(job, diagnosis, self.tr("process %1 (evidence)").replace("%1", str(pid))),
            on_error=lambda exc: self._failed(job, exc),
            on_finished=lambda: self._probe_done(job),
        )

    # --- launch -------------------------------------------------------------------------------------------
    def launch(self, argv: list, cwd: str, interval_s: float) -> None:
        """Start ``argv`` with the probe preinstalled; samples go to the live curve."""
        if not self.runner.start(argv, interval_s=interval_s, cwd=cwd or None):
            self.ctx.notify(self.tr("A job is already running; stop it first."), "warning")

    def _launch_started(self, argv: list) -> None:
        self.curve.clear()
        self.curve.set_status(self.tr("Running: %1").replace("%1", " ".join(argv)))
        self.picker.launch_panel.set_running(True)
        self.pages.setCurrentWidget(self.curve)
        self.busy.show()
        self.status.setText(self.tr("Job running …"))

    def _launch_sample(self, sample) -> None:
        if sample.device_index is not None:
            self.curve.add_sample(sample.t_s, sample.device_index, sample.allocated_bytes, sample.reserved_bytes)

    def _launch_finished(self, result) -> None:
        self.picker.launch_panel.set_running(False)
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
        self.picker.launch_panel.set_running(False)
        self.busy.hide()
        from gpudesk.oom import OomError

        detail = str(exc) if isinstance(exc, OomError) else f"{type(exc).__name__}: {exc}"
        message = self.tr("Cannot launch: %1").replace("%1", detail)
        self.curve.set_status(message)
        self.status.setText(message)
        self.ctx.notify(message, "error")

    # --- common -------------------------------------------------------------------------------------------
    def cancel(self) -> None:
        """Stop waiting for the running text/probe/evidence job (the target is not touched)."""
        self._job += 1
        self._finish(self.tr("Cancelled; the process was left running."))
        self.results.restore_header()
        self.picker.methods.set_busy(False)

    def shutdown(self) -> None:
        """Called when the window closes: end a launched job and ignore pending results."""
        self._job += 1
        self.runner.stop()

    def pending_jobs(self) -> int:
        """Text, probe and evidence tasks still running (a cancelled one runs on until its time-out)."""
        return self._pending

    def _task_done(self) -> None:
        self._pending -= 1

    def _probe_done(self, job: int) -> None:
        self._pending -= 1
        if job == self._job:  # a cancelled probe that ends late must not re-enable a newer one's buttons
            self.picker.methods.set_busy(False)

    def _progress_relay(self, job: int):
        # Called on the worker thread: only hand the text to the GUI thread through a queued signal.
        signal = self._progress

        def relay(message: str, fraction: float | None = None) -> None:
            signal.emit(job, str(message))

        return relay

    def _on_progress(self, job: int, message: str) -> None:
        if job == self._job:
            self.status.setText(message)

    def _start(self, text: str, *, cancellable: bool) -> None:
        self._job += 1
        self._pending += 1
        self.status.setText(text)
        self.results.show_busy(text)
        self.busy.show()
        self.cancel_button.setVisible(cancellable)

    def _finish(self, text: str = "") -> None:
        self.busy.setVisible(self.runner.running)
        self.cancel_button.hide()
        self.status.setText(text)

    def _show(self, job: int, diagnosis, source: str) -> None:
        if job != self._job:
            return
        self._finish(
            self.tr("Diagnosed in %1 ms.").replace("%1", f"{diagnosis.elapsed_s * 1000:.1f}")
            if diagnosis.elapsed_s is not None
            else ""
        )
        self._present(diagnosis, source)

    def _present(self, diagnosis, source: str, *, switch: bool = True) -> None:
        self.results.show_diagnosis(diagnosis, source)
        if switch:
            self.pages.setCurrentWidget(self.results)
        self.history.save(diagnosis, self._history_label(diagnosis, source))

    def _history_label(self, diagnosis, source: str) -> str:
        """Where a diagnosis came from, for the history; pasted text gets its first line (shortened)."""
        text = diagnosis.report.text
        if source != self.tr("pasted text") or not isinstance(text, str):
            return source
        first = next((line.strip() for line in text.splitlines() if line.strip()), "")
        if len(first) > 90:
            first = first[:89] + "…"
        return f"{source}: {first}" if first else source

    def _reopen(self, diagnosis, source: str) -> None:
        self.results.show_diagnosis(diagnosis, source)
        self.pages.setCurrentWidget(self.results)
        report = diagnosis.report
        if (report.samples or report.host_rss_samples) and not self.runner.running:
            # A saved launch keeps its samples: draw its curve again.
            self.curve.clear()
            for sample in report.samples:
                if sample.device_index is not None:
                    self.curve.add_sample(sample.t_s, sample.device_index, sample.allocated_bytes, sample.reserved_bytes)
            self.curve.set_host_rss(report.host_rss_samples)
            self.curve.set_status(self.tr("Saved job: %1").replace("%1", source))

    def _failed(self, job: int, exc: BaseException) -> None:
        if job != self._job:
            return
        from gpudesk.oom import OomError, OomInputError, ProbeTimeout

        # The core's errors carry sentences meant for the user; anything else is a defect: name its type.
        message = str(exc) if isinstance(exc, OomError) else f"{type(exc).__name__}: {exc}"
        self._finish(message)
        if isinstance(exc, OomInputError):
            self.results.show_unparseable(message)
            self.pages.setCurrentWidget(self.results)
            return
        level = "warning" if isinstance(exc, ProbeTimeout) else "error"
        self.results.restore_header()
        self.ctx.notify(message, level)

    # --- drag and drop onto the whole tab -------------------------------------------------------------------
    def dragEnterEvent(self, event) -> None:  # noqa: N802 - Qt override
        if local_files(event.mimeData()) or event.mimeData().hasText():
            event.acceptProposedAction()

    def dragMoveEvent(self, event) -> None:  # noqa: N802 - Qt override
        if local_files(event.mimeData()) or event.mimeData().hasText():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:  # noqa: N802 - Qt override
        files = local_files(event.mimeData())
        self.picker.show_text_page()
        if files:
            event.acceptProposedAction()
            self.picker.text_input.load_file(files[0])
        elif event.mimeData().hasText():
            event.acceptProposedAction()
            self.picker.text_input.set_text(event.mimeData().text())
            self.picker.text_input.submit()
