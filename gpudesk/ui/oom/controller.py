"""The OOM doctor tab's controller: the running diagnosis job (text, probe, evidence) and its outcome.

It owns the job generation (a cancelled job's late result is ignored) and runs each job on the thread pool
(:func:`gpudesk.ui.workers.run_task`; :func:`gpudesk.ui.workers.tracker` counts the work still running, a
cancelled probe included until it times out). No widgets:
the tab's views subscribe to its signals.

Signals:
    started(str, bool): a job began (status text, whether it can be cancelled). progress(str): its progress.
    diagnosed(object, str): the :class:`gpudesk.oom.Diagnosis` and where it came from.
    failed(object): the job's exception. probeEnded(): a probe or evidence job of the current generation ended.
    cancelled(): the user stopped waiting.
    snapshotRequested(str): a memory snapshot file to open (chosen, dropped, or kept by a launched job).
    textFileRequested(str): a dropped file to read as text and diagnose.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Signal

from gpudesk.oom import Diagnosis, diagnose, diagnose_text
from gpudesk.oom.attach import probe_process
from gpudesk.oom.evidence import gather_evidence
from gpudesk.oom.user_context import UserContext
from gpudesk.ui.oom.method_choice import ProbeRequest
from gpudesk.ui.workers import run_task

PROBE_TIMEOUT_S = 10.0
EVIDENCE_DURATION_S = 2.0
# Endings of the memory snapshots the OOM doctor opens: the pickle of torch.cuda.memory._dump_snapshot() and the
# _snapshot() dict saved as JSON, either gzipped (gpudesk.oom.snapshot.reader reads both).
SNAPSHOT_SUFFIXES = (".pickle", ".pkl", ".json", ".pickle.gz", ".pkl.gz", ".json.gz")


def is_snapshot_file(path: str) -> bool:
    """Whether ``path`` names a memory snapshot (by its ending) rather than a log to read as text."""
    return Path(path).name.lower().endswith(SNAPSHOT_SUFFIXES)


class OomController(QObject):
    """Runs text, probe and evidence diagnoses; ``nvml()`` gives the pynvml-like module to use (None = real)."""

    started = Signal(str, bool)
    """A diagnosis job began: its status text and whether the user can cancel it."""
    progress = Signal(str)
    """The running job reported progress: a status sentence."""
    diagnosed = Signal(object, str)
    """The current job produced a Diagnosis: the Diagnosis and where its input came from."""
    failed = Signal(object)
    """The current job failed: the exception."""
    probeEnded = Signal()
    """A probe or evidence job of the current generation ended, either way. No arguments."""
    cancelled = Signal()
    """The user stopped waiting for the running job. No arguments."""
    snapshotRequested = Signal(str)
    """A memory snapshot to open (chosen, dropped or kept by a launched job): its path."""
    textFileRequested = Signal(str)
    """A dropped file to read as text and diagnose: its path."""
    _relay = Signal(int, str)
    """A worker thread's progress, delivered queued on the GUI thread: job generation, message."""

    def __init__(self, nvml: Callable[[], ModuleType | None]):
        super().__init__()
        self._nvml = nvml
        self._job = 0  # generation of the running job; a cancelled one is ignored
        self._relay.connect(self._on_progress)

    def _begin(self, text: str, cancellable: bool) -> tuple[int, Callable[[str, float | None], None]]:
        self._job += 1
        job, signal = self._job, self._relay

        def relay(message: str, fraction: float | None = None) -> None:  # called on the worker thread
            signal.emit(job, str(message))

        self.started.emit(text, cancellable)
        return job, relay

    def _run(self, job: int, work: Callable[[], Diagnosis], source: str, *, probe: bool) -> None:
        def done(diagnosis: Diagnosis) -> None:
            if job == self._job:
                self.diagnosed.emit(diagnosis, source)

        def failed(exc: BaseException) -> None:
            if job == self._job:
                self.failed.emit(exc)

        def finished() -> None:
            if probe and job == self._job:  # a cancelled probe that ends late must not re-enable a newer one
                self.probeEnded.emit()

        run_task(work, on_result=done, on_error=failed, on_finished=finished)

    def diagnose_text(self, text: str | bytes, source: str = "", context: UserContext | None = None) -> None:
        """Diagnose pasted or loaded text in the background, with what the user gave beside it (``context``: the
        operating system, other processes' memory; the same core call as ``gpudesk oom diagnose``)."""
        job, _relay = self._begin(QCoreApplication.translate("OomTab", "Diagnosing %1 …").replace("%1", source or QCoreApplication.translate("OomTab", "the text")), False)
        self._run(job, lambda: diagnose_text(text, context=context), source or QCoreApplication.translate("OomTab", "pasted text"), probe=False)

    def probe(self, request: ProbeRequest) -> None:
        """Run the probe in the chosen process (after the user confirmed), then diagnose what it read."""
        job, relay = self._begin(
            QCoreApplication.translate("OomTab", "Probing process %1 with %2 (up to %3 s) …").replace("%1", str(request.pid))
            .replace("%2", request.method).replace("%3", f"{PROBE_TIMEOUT_S:.0f}"), True)
        nvml = self._nvml()

        def work() -> Diagnosis:
            return diagnose(probe_process(request.pid, request.method, reset_peak=request.reset_peak,
                                          timeout_s=PROBE_TIMEOUT_S, progress=relay,
                                          allow_other_user=request.allow_other_user, nvml=nvml))

        source = QCoreApplication.translate("OomTab", "process %1 (%2)").replace("%1", str(request.pid)).replace("%2", request.method)
        self._run(job, work, source, probe=True)

    def gather_evidence(self, pid: int) -> None:
        """Non-invasive evidence for ``pid`` (NVML, psutil over a short window), then diagnose it."""
        job, relay = self._begin(
            QCoreApplication.translate("OomTab", "Gathering evidence about process %1 for %2 s …").replace("%1", str(pid))
            .replace("%2", f"{EVIDENCE_DURATION_S:.0f}"), True)
        nvml = self._nvml()

        def work() -> Diagnosis:
            return diagnose(gather_evidence(pid, duration_s=EVIDENCE_DURATION_S, progress=relay, nvml=nvml))

        self._run(job, work, QCoreApplication.translate("OomTab", "process %1 (evidence)").replace("%1", str(pid)), probe=True)

    def cancel(self) -> None:
        """Stop waiting for the running job (the target is not touched)."""
        self._job += 1
        self.cancelled.emit()

    def open_file(self, path: str) -> None:
        """A file was dropped or chosen: a memory snapshot opens in the snapshot view, anything else is read as
        text and diagnosed."""
        if is_snapshot_file(path):
            self.snapshotRequested.emit(path)
        else:
            self.textFileRequested.emit(path)

    def launch_ended(self, result: Any) -> None:
        """A launched job ended; the snapshot it kept at its last OOM (``record_history``) is opened."""
        paths = getattr(result, "snapshot_paths", None) or []
        if paths:
            self.snapshotRequested.emit(str(paths[-1]))

    def forget(self) -> None:
        """Ignore every pending result (the window is closing)."""
        self._job += 1

    def _on_progress(self, job: int, message: str) -> None:
        if job == self._job:
            self.progress.emit(message)


def history_label(diagnosis: Any, source: str) -> str:
    """Where a diagnosis came from, for the history; pasted text gets its first line (shortened)."""
    text = diagnosis.report.text
    if source != QCoreApplication.translate("OomTab", "pasted text") or not isinstance(text, str):
        return source
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if len(first) > 90:
        first = first[:89] + "…"
    return f"{source}: {first}" if first else source
