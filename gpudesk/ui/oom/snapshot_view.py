"""The snapshot viewer of the OOM doctor: open a memory snapshot in the background (progress, cancel), then
show what it says (explanation and ranked causes), the timeline, the segment map and the top allocations.

Self-contained: give it a path (:meth:`SnapshotView.open_file`) or an analysis (:meth:`set_analysis`); the tab
wires the "Open snapshot" entry points (``gpudesk oom run`` results, the history) to :meth:`open_file`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import shiboken6
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from gpudesk.oom.snapshot import SnapshotAnalysis, SnapshotCancelled, load_and_analyse
from gpudesk.oom.snapshot.account import diagnose_snapshot
from gpudesk.oom.snapshot.errors import SnapshotError
from gpudesk.ui.oom.snapshot_segments import SegmentMap
from gpudesk.ui.oom.snapshot_tables import SnapshotTables
from gpudesk.ui.oom.snapshot_timeline import SnapshotTimeline
from gpudesk.units import format_bytes
from gpudesk.ui.workers import run_task
from gpudesk.ui.error_text import error_text

PROGRESS_STEPS = 1000


class SnapshotView(QWidget):
    """Open and explain one snapshot. Signals: ``loaded(analysis)``, ``failed(message)``."""

    loaded = Signal(object)
    """A snapshot was read and explained: its analysis."""
    failed = Signal(str)
    """A snapshot could not be read: the sentence saying why."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.analysis: SnapshotAnalysis | None = None
        self._cancel: threading.Event | None = None
        self._generation = 0  # the open in progress; results of an earlier, replaced open are dropped
        self._loading = False
        layout = QVBoxLayout(self)
        bar = QHBoxLayout()
        self.open_button = QPushButton(self.tr("Op&en snapshot…"), self)
        self.open_button.setToolTip(self.tr("A .pickle from torch.cuda.memory._dump_snapshot() or the "
                                            "_snapshot() dict saved as JSON"))
        self.open_button.clicked.connect(self._choose_file)
        bar.addWidget(self.open_button)
        self.device_label = QLabel(self.tr("GP&U:"), self)
        self.device_combo = QComboBox(self)
        self.device_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.device_label.setBuddy(self.device_combo)
        self.device_combo.currentIndexChanged.connect(self._show_device)
        bar.addWidget(self.device_label)
        bar.addWidget(self.device_combo)
        self.progress = QProgressBar(self)
        self.progress.setRange(0, PROGRESS_STEPS)
        self.progress.setTextVisible(True)
        self.progress.setVisible(False)
        bar.addWidget(self.progress, 1)
        self.cancel_button = QPushButton(self.tr("Cancel &reading"), self)
        self.cancel_button.setVisible(False)
        self.cancel_button.clicked.connect(self.cancel)
        bar.addWidget(self.cancel_button)
        bar.addStretch(0)
        layout.addLayout(bar)
        self.status = QLabel(self.tr("Open a memory snapshot to see what it shows."), self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        split = QSplitter(Qt.Orientation.Vertical, self)
        self.explanation = QPlainTextEdit(split)
        self.explanation.setReadOnly(True)
        self.explanation.setPlaceholderText(self.tr("The explanation and the ranked causes appear here."))
        self.tabs = QTabWidget(split)
        self.timeline = SnapshotTimeline()
        self.segments = SegmentMap()
        self.tables = SnapshotTables()
        self.tabs.addTab(self.timeline, self.tr("T&imeline"))
        self.tabs.addTab(self.segments, self.tr("&Segments"))
        self.tabs.addTab(self.tables, self.tr("Top &allocations"))
        split.addWidget(self.explanation)
        split.addWidget(self.tabs)
        split.setStretchFactor(1, 3)
        layout.addWidget(split, 1)

    # -- loading -----------------------------------------------------------------------------------------
    def _choose_file(self) -> None:
        path, _filter = QFileDialog.getOpenFileName(
            self, self.tr("Open memory snapshot"), "",
            self.tr("Memory snapshots (*.pickle *.pkl *.json *.gz);;All files (*)"))
        if path:
            self.open_file(path)

    def open_file(self, path: str | Path) -> None:
        """Read and analyse ``path`` in the background; the window stays responsive and can cancel."""
        self.cancel()
        self._generation += 1
        gen = self._generation
        self._loading = True
        self._cancel = threading.Event()
        self.progress.setValue(0)
        self.progress.setFormat(self.tr("Opening %p%"))
        self.progress.setVisible(True)
        self.cancel_button.setVisible(True)
        self.open_button.setEnabled(False)
        self.status.setText(self.tr("Opening {0} …").format(Path(path).name))
        cancel = self._cancel

        def work(progress: Callable[[str, float | None], None]) -> SnapshotAnalysis:
            # the core reports (done, total, text); the workers' progress signal carries (message, fraction)
            def report(done: int, total: int, text: str) -> None:
                progress(text, min(done, total) / total if total > 0 else None)

            return load_and_analyse(str(path), progress=report, cancel=cancel)

        def on_progress(message: str, fraction: float | None) -> None:
            if self._current(gen):
                self._progress(message, fraction)

        run_task(work,
                 on_result=lambda analysis: self._loaded(analysis) if self._current(gen) else None,
                 on_error=lambda exc: self._failed(exc) if self._current(gen) else None,
                 on_progress=on_progress,
                 on_finished=lambda: self._finished() if self._current(gen) else None)

    def _current(self, generation: int) -> bool:
        """Whether a background result still concerns this view: the same open, and the view not deleted."""
        return shiboken6.isValid(self) and generation == self._generation

    def cancel(self) -> None:
        """Stop the reading in progress (it ends at its next read, within milliseconds)."""
        if self._cancel is not None:
            self._cancel.set()

    def is_loading(self) -> bool:
        return self._loading

    def _progress(self, text: str, fraction: float | None) -> None:
        if fraction is not None:
            self.progress.setValue(int(PROGRESS_STEPS * fraction))
        self.progress.setFormat(text + " %p%")

    def _finished(self) -> None:
        self._loading = False
        self.progress.setVisible(False)
        self.cancel_button.setVisible(False)
        self.open_button.setEnabled(True)
        self._cancel = None

    def _failed(self, exc: BaseException) -> None:
        if isinstance(exc, SnapshotCancelled):
            text = self.tr("Opening the snapshot was cancelled.")
        elif isinstance(exc, SnapshotError):
            text = exc.user_text()
        else:
            text = self.tr("The snapshot could not be opened: {0}").format(error_text(exc)[:300])
        self.status.setText(text)
        if not isinstance(exc, SnapshotCancelled):
            self._clear_analysis()  # the error is about this file: the previous file's analysis must not stay below
        self.failed.emit(text)

    def _clear_analysis(self) -> None:
        self.analysis = None
        self.device_combo.clear()
        self.explanation.clear()
        self.tabs.setVisible(False)

    def _loaded(self, analysis: SnapshotAnalysis) -> None:
        self.set_analysis(analysis)
        self.loaded.emit(analysis)

    # -- showing -----------------------------------------------------------------------------------------
    def set_analysis(self, analysis: SnapshotAnalysis) -> None:
        self.analysis = analysis
        self.tabs.setVisible(True)
        snap = analysis.snapshot
        if snap.file_size_bytes:
            self.status.setText(self.tr("{0}: {1}, layout {2}, {3} trace events on all GPUs.").format(
                snap.source_name, format_bytes(snap.file_size_bytes), snap.format_version, f"{snap.event_count:,}"))
        else:
            self.status.setText(self.tr("{0}: layout {1}, {2} trace events on all GPUs.").format(
                snap.source_name, snap.format_version, f"{snap.event_count:,}"))
        self.device_combo.blockSignals(True)
        self.device_combo.clear()
        for dev in analysis.devices:
            self.device_combo.addItem(self.tr("GPU {0}").format(dev.device) + (self.tr(" (OOM)") if dev.oom else ""),
                                      dev.device)
        first = analysis.device()
        if first is not None:
            self.device_combo.setCurrentIndex(analysis.devices.index(first))
        self.device_combo.blockSignals(False)
        self._show_device()

    def _show_device(self, *_args: object) -> None:
        if self.analysis is None:
            return
        index = self.device_combo.currentData()
        dev = self.analysis.device(index if isinstance(index, int) else None)
        if dev is None:
            self.explanation.setPlainText(self.tr("This snapshot holds no segments and no trace events."))
            return
        diagnosis = diagnose_snapshot(self.analysis, dev.device)
        lines = list(dev.explanation)
        if diagnosis.causes:
            lines.append("")
            lines.append(self.tr("Causes, most likely first:"))
            for n, cause in enumerate(diagnosis.causes, 1):
                lines.append(f"{n}. {cause.title} ({cause.confidence:.0%})")
                if cause.explanation:
                    lines.append("   " + cause.explanation)
                lines.append("   " + self.tr("Fix: {0}").format(cause.fix))
        self.explanation.setPlainText("\n".join(lines))
        self.timeline.set_analysis(dev)
        self.segments.set_analysis(dev)
        self.tables.set_analysis(self.analysis, dev)
