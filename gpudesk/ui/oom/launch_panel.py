"""Launch a command with the probe preinstalled (the UI side of ``gpudesk oom run -- CMD``).

The command line is split like a POSIX shell would (``shlex``), without running a shell. The panel only
collects the command, working folder and sampling interval, and shows the job's output as plain text;
the tab starts and stops the job through :class:`gpudesk.ui.oom.launch_runner.LaunchRunner`.
"""

from __future__ import annotations

import shlex

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gpudesk.ui.oom.plain import plain_label
from gpudesk.ui.error_text import error_text

MAX_OUTPUT_LINES = 5000


def split_command(text: str) -> list[str]:
    """``'python train.py --lr "1e-3"'`` -> argv. Raises ValueError with the reason (e.g. an open quote)."""
    argv = shlex.split(text)
    if not argv:
        raise ValueError("The command is empty.")
    return argv


class LaunchPanel(QWidget):
    """Command, working folder and interval; Launch / Stop; the job's output.

    Signals:
        launchRequested(list, str, float): argv, working folder ("" = current), sampling interval (s).
        stopRequested(): end the running job.
    """

    launchRequested = Signal(list, str, float)
    """Launch was pressed: argv, working folder ("" = current), sampling interval (s)."""
    stopRequested = Signal()
    """Stop was pressed: end the running job. No arguments."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        form = QFormLayout()
        self.command = QLineEdit(self)
        self.command.setPlaceholderText(self.tr("python train.py --batch-size 32"))
        self.command.setToolTip(
            self.tr("The command to start, as in a shell (no shell features such as pipes or variables)")
        )
        self.command.returnPressed.connect(self._launch)
        form.addRow(self.tr("Comman&d:"), self.command)
        folder_row = QHBoxLayout()
        self.folder = QLineEdit(self)
        self.folder.setPlaceholderText(self.tr("current folder"))
        browse = QPushButton(self.tr("Browse…"), self)
        browse.clicked.connect(self._browse)
        folder_row.addWidget(self.folder, 1)
        folder_row.addWidget(browse)
        folder_label = QLabel(self.tr("Wor&king folder:"), self)
        folder_label.setBuddy(self.folder)
        form.addRow(folder_label, folder_row)
        self.interval = QDoubleSpinBox(self)
        self.interval.setRange(0.05, 60.0)
        self.interval.setDecimals(2)
        self.interval.setSingleStep(0.25)
        self.interval.setValue(0.5)
        self.interval.setSuffix(self.tr(" s"))
        self.interval.setToolTip(self.tr("How often the probe samples allocated and reserved memory"))
        form.addRow(self.tr("Sample e&very:"), self.interval)
        layout.addLayout(form)
        buttons = QHBoxLayout()
        self.launch_button = QPushButton(self.tr("Launch and &watch"), self)
        self.launch_button.setToolTip(self.tr("Start the command with the memory probe preinstalled"))
        self.launch_button.clicked.connect(self._launch)
        self.stop_button = QPushButton(self.tr("St&op"), self)
        self.stop_button.setToolTip(self.tr("End the job; what was sampled so far is kept"))
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.stopRequested.emit)
        buttons.addWidget(self.launch_button)
        buttons.addWidget(self.stop_button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        self.error = plain_label("", self, wrap=True)
        self.error.setStyleSheet("color:#7a0c0c;")
        layout.addWidget(self.error)
        layout.addWidget(plain_label(self.tr("Output of the job:"), self))
        self.output = QPlainTextEdit(self)
        self.output.setReadOnly(True)
        self.output.setMaximumBlockCount(MAX_OUTPUT_LINES)
        self.output.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.output.setPlaceholderText(self.tr("The job's standard output and errors appear here."))
        layout.addWidget(self.output, 1)

    def set_running(self, running: bool) -> None:
        self.launch_button.setEnabled(not running)
        self.stop_button.setEnabled(running)
        self.command.setReadOnly(running)

    def append_output(self, line: str) -> None:
        self.output.appendPlainText(line.rstrip("\n"))

    def _launch(self) -> None:
        try:
            argv = split_command(self.command.text())
        except ValueError as exc:
            self.error.setText(self.tr("Cannot read the command: %1").replace("%1", error_text(exc)))
            return
        self.error.setText("")
        self.output.clear()
        self.launchRequested.emit(argv, self.folder.text().strip(), float(self.interval.value()))

    def _browse(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Working folder for the command"))
        if folder:
            self.folder.setText(folder)
