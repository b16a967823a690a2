"""Shown instead of live plots when NVML cannot be used: says exactly why (bindings missing, no driver
library, driver not loaded, driver/library version mismatch, no permission, no GPU) and offers what still
works here: import a ``nvidia-smi dmon`` log, open a recording, or open the demo recording (with one sentence on
what the demo is and where it comes from)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget


def headline(state: str) -> str:
    """A short title for an NVML availability state (``NvmlStatus.state``)."""
    return {
        "module-missing": QCoreApplication.translate("Monitor", "The NVML Python bindings are not installed"),
        "library-not-found": QCoreApplication.translate("Monitor", "No NVIDIA driver found on this machine"),
        "driver-not-loaded": QCoreApplication.translate("Monitor", "The NVIDIA driver is not loaded"),
        "version-mismatch": QCoreApplication.translate("Monitor", "NVIDIA driver/library version mismatch"),
        "no-permission": QCoreApplication.translate("Monitor", "No permission to use NVML"),
        "no-devices": QCoreApplication.translate("Monitor", "No NVIDIA GPU found"),
    }.get(state, QCoreApplication.translate("Monitor", "Live GPU monitoring is not available"))


class NoGpuPanel(QWidget):
    """The explanation and the three alternatives (plus Retry)."""

    importRequested = Signal()
    """Import a dmon log was clicked; no arguments."""
    openRecordingRequested = Signal()
    """Open a recording was clicked; no arguments."""
    demoRequested = Signal()
    """Open the demo recording was clicked; no arguments."""
    retryRequested = Signal()
    """Retry NVML was clicked; no arguments."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.title = QLabel(self)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.4)
        font.setBold(True)
        self.title.setFont(font)
        self.message = QLabel(self)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.detail = QLabel(self)
        self.detail.setTextFormat(Qt.TextFormat.PlainText)
        self.detail.setWordWrap(True)
        self.detail.setStyleSheet("color:#555555;")
        offer = QLabel(self.tr("The rest of gpudesk works without a GPU. From here you can still:"), self)
        offer.setWordWrap(True)
        self.import_button = QPushButton(self.tr("&Import a dmon log…"), self)
        self.import_button.setToolTip(self.tr(
            "Open a text log of 'nvidia-smi dmon' (for example 'nvidia-smi dmon -s umt -o DT > run.log' on the "
            "GPU server), or watch a live dmon stream from a command such as 'ssh node nvidia-smi dmon -s umt'."))
        self.open_button = QPushButton(self.tr("&Open a recording…"), self)
        self.open_button.setToolTip(self.tr("Pick one of your saved recordings."))
        self.demo_button = QPushButton(self.tr("Open the &demo recording"), self)
        self.retry_button = QPushButton(self.tr("&Retry NVML"), self)
        self.retry_button.setToolTip(self.tr("Try to open NVML again (after loading the driver or rebooting)."))
        self.demo_note = QLabel(self)
        self.demo_note.setTextFormat(Qt.TextFormat.PlainText)
        self.demo_note.setWordWrap(True)
        self.demo_note.setStyleSheet("color:#555555;")
        self.import_button.clicked.connect(self.importRequested)
        self.open_button.clicked.connect(self.openRecordingRequested)
        self.demo_button.clicked.connect(self.demoRequested)
        self.retry_button.clicked.connect(self.retryRequested)
        buttons = QHBoxLayout()
        for button in (self.import_button, self.open_button, self.demo_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.retry_button)
        box = QVBoxLayout()
        box.addWidget(self.title)
        box.addWidget(self.message)
        box.addWidget(self.detail)
        box.addSpacing(16)
        box.addWidget(offer)
        box.addLayout(buttons)
        box.addWidget(self.demo_note)
        box.addStretch(1)
        outer = QHBoxLayout(self)
        outer.setContentsMargins(40, 40, 40, 40)
        inner = QWidget(self)
        inner.setLayout(box)
        inner.setMaximumWidth(900)
        outer.addWidget(inner, 1)

    def set_status(self, status) -> None:
        """Show an ``NvmlStatus``: its title from the state, its message word for word, the error name."""
        self.title.setText(headline(status.state))
        self.message.setText(status.message)
        bits = []
        if status.error:
            bits.append(self.tr("NVML error: {e}").format(e=status.error))
        if status.driver_version:
            bits.append(self.tr("driver {v}").format(v=status.driver_version))
        if status.nvml_version:
            bits.append(self.tr("NVML {v}").format(v=status.nvml_version))
        self.detail.setText(", ".join(bits))
        self.detail.setVisible(bool(bits))

    def set_demo(self, description: str | None) -> None:
        """Enable the demo button when a demo recording is bundled; ``description`` says where it came from."""
        self.demo_button.setEnabled(description is not None)
        self.demo_note.setText(description or self.tr("No demo recording is bundled with this installation."))
