"""The Monitor tab's two tool rows: source buttons and label; time window, pause, recording notes and
buttons, exports. The tab connects the signals; this module only lays the controls out."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from gpudesk.ui.monitor.plots import WINDOWS_S
from gpudesk.ui.monitor.sources import demo_description


class MonitorToolbar(QWidget):
    """Controls above the monitor views; :data:`PARTS` names the attributes the tab uses."""

    PARTS = ("source_label", "live_button", "import_button", "demo_button", "window_combo", "pause_button",
             "notes_edit", "record_button", "save_button", "png_button", "csv_button")

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.source_label = QLabel(self.tr("No source."), self)
        self.source_label.setTextFormat(Qt.TextFormat.PlainText)
        self.source_label.setWordWrap(True)
        self.live_button = QPushButton(self.tr("&Live (NVML)"), self)
        self.live_button.setToolTip(self.tr("Monitor the GPUs of this machine through NVML, every second."))
        self.import_button = QPushButton(self.tr("&Import dmon…"), self)
        self.import_button.setToolTip(self.tr("Import an nvidia-smi dmon log, or watch a live dmon stream."))
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
