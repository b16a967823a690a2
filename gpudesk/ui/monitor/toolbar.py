"""The Monitor tab's two tool rows: source buttons and label; time window, pause, recording notes and
buttons, exports. It lays the controls out, keeps the window/pause and record buttons consistent, and emits
``windowChanged`` and ``recordToggled``; the tab connects the rest to its controller."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from gpudesk.ui.monitor.plots import WINDOWS_S
from gpudesk.ui.monitor.sources import demo_description
from gpudesk.telemetry.core.source import SourceKind


class MonitorToolbar(QWidget):
    """Controls above the monitor views.

    Signals: windowChanged(object): the time window in seconds (None = the whole run); recordToggled(bool): the
    user pressed Record (True) or Stop (False).
    """

    windowChanged = Signal(object)
    """The time window was chosen: its length in seconds, or None for the whole run."""
    recordToggled = Signal(bool)
    """Record was toggled: True to start recording, False to stop."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.source_label = QLabel(self.tr("No source."), self)
        self.source_label.setTextFormat(Qt.TextFormat.PlainText)
        self.source_label.setWordWrap(True)
        self.live_button = QPushButton(self.tr("&Live (NVML)"), self)
        self.live_button.setToolTip(self.tr("Monitor the GPUs of this machine through NVML, every second."))
        self.import_button = QPushButton(self.tr("&Import dmon…"), self)
        self.import_button.setToolTip(self.tr("Import an nvidia-smi dmon log, or watch a live dmon stream."))
        self.fleet_button = QPushButton(self.tr("Fleet (Pr&ometheus)…"), self)
        self.fleet_button.setToolTip(self.tr("Watch the GPUs of many nodes through a Prometheus server that scrapes "
                                             "NVIDIA's DCGM exporter (refreshed every 15 s)."))
        self.demo_button = QPushButton(self.tr("&Demo"), self)
        self.demo_button.setToolTip(demo_description() or self.tr("No demo recording is bundled."))
        self.demo_button.setEnabled(demo_description() is not None)
        self.window_combo = QComboBox(self)
        for label, seconds in WINDOWS_S:
            self.window_combo.addItem(QCoreApplication.translate("MonitorTab", label), seconds)
        self.window_combo.setCurrentIndex(1)
        self.window_combo.setToolTip(self.tr("Time window shown while following the newest samples"))
        self.pause_button = QPushButton(self.tr("&Pause"), self)
        self.pause_button.setCheckable(True)
        self.pause_button.setToolTip(self.tr("Stop following the newest samples (recording goes on). Panning or "
                                             "zooming a plot pauses too; press again to follow."))
        self.notes_edit = QLineEdit(self)
        self.notes_edit.setPlaceholderText(self.tr("Recording notes (model, batch size, data loader…)"))
        self.record_button = QPushButton(self.tr("● &Record"), self)
        self.record_button.setCheckable(True)
        self.record_button.setToolTip(self.tr("Record the live samples into your gpudesk database."))
        self.save_button = QPushButton(self.tr("&Save as recording"), self)
        self.save_button.setToolTip(self.tr("Store the imported dmon log as a recording in your database."))
        self.png_button = QPushButton(self.tr("Export &PNG…"), self)
        self.csv_button = QPushButton(self.tr("Export &CSV…"), self)
        self.csv_button.setToolTip(self.tr("Export the selected span (or everything when no span is shown)."))
        row1 = QHBoxLayout()
        row1.addWidget(self.live_button)
        row1.addWidget(self.import_button)
        row1.addWidget(self.fleet_button)
        row1.addWidget(self.demo_button)
        row1.addWidget(self.source_label, 1)
        row2 = QHBoxLayout()
        window_label = QLabel(self.tr("&Window:"), self)
        window_label.setBuddy(self.window_combo)
        row2.addWidget(window_label)
        row2.addWidget(self.window_combo)
        row2.addWidget(self.pause_button)
        row2.addSpacing(16)
        row2.addWidget(self.notes_edit, 1)
        row2.addWidget(self.record_button)
        row2.addWidget(self.save_button)
        row2.addWidget(self.png_button)
        row2.addWidget(self.csv_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row1)
        layout.addLayout(row2)
        self.window_combo.currentIndexChanged.connect(self._window_changed)
        self.record_button.toggled.connect(self._record_toggled)

    def _window_changed(self) -> None:
        self.pause_button.setChecked(False)
        self.windowChanged.emit(self.window_combo.currentData())

    def _record_toggled(self, on: bool) -> None:
        if on:
            self.record_button.setEnabled(False)  # until the worker answers
        self.recordToggled.emit(on)

    def show_whole_run(self) -> None:
        """Select the last window choice, the whole run."""
        self.window_combo.setCurrentIndex(self.window_combo.count() - 1)

    def show_following(self, follow: bool) -> None:
        """The plots follow the newest samples (or were paused by panning): the Pause button says so."""
        self.pause_button.blockSignals(True)
        self.pause_button.setChecked(not follow)
        self.pause_button.blockSignals(False)

    def show_recording(self, session_id: int | None) -> None:
        """The Record button for recording ``session_id`` (None: not recording)."""
        self.record_button.blockSignals(True)
        self.record_button.setChecked(session_id is not None)
        self.record_button.blockSignals(False)
        self.record_button.setEnabled(True)
        if session_id is None:
            self.record_button.setText(QCoreApplication.translate("MonitorTab", "● &Record"))
        else:
            self.record_button.setText(QCoreApplication.translate("MonitorTab", "■ Stop recording #{n}").format(n=session_id))

    def update_buttons(self, *, live: bool, has_data: bool, kind: SourceKind) -> None:
        """Enable what the current source allows: recording a live source, saving an imported file, exports."""
        self.record_button.setEnabled(live)
        self.save_button.setVisible(kind == SourceKind.DMON_FILE)
        self.png_button.setEnabled(has_data)
        self.csv_button.setEnabled(has_data)
