"""How to look inside a chosen process: the agent, ``sys.remote_exec`` or gdb, or only non-invasive evidence.

For the selected PID the available methods are checked in the background
(``gpudesk.oom.attach.available_methods``); each radio button is enabled or disabled, with the plain reason
why a method cannot be used beside it. Before anything is injected the user is asked, with exactly what
will run; gdb gets an extra warning (it stops the process briefly and can crash it). "Gather evidence"
(NVML, psutil) never touches the target.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QGridLayout,
    QHBoxLayout,
    QMessageBox,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from gpudesk.oom.attach import MethodStatus
from gpudesk.ui.oom.plain import plain_label
from gpudesk.ui.workers import run_task
from gpudesk.ui.error_text import error_text

METHOD_ORDER = ("agent", "remote_exec", "gdb")
AGENT_LINE = "import gpudesk.oom.agent; gpudesk.oom.agent.install()"


@dataclass(frozen=True)
class ProbeRequest:
    """What the user chose: probe ``pid`` with ``method``; reset the peak afterwards; allow another user."""

    pid: int
    method: str
    reset_peak: bool
    allow_other_user: bool


def _available_methods(pid: int, allow_other_user: bool) -> list:
    """``gpudesk.oom.attach.available_methods(pid)`` (worker thread; reads /proc, looks for gdb)."""
    from gpudesk.oom.attach import available_methods

    return available_methods(pid, allow_other_user=allow_other_user)


def method_names() -> dict[str, str]:
    return {
        "agent": QCoreApplication.translate("OomMethod", "Agent already in the process (no injection)"),
        "remote_exec": QCoreApplication.translate("OomMethod", "sys.remote_exec (Python 3.14 or newer)"),
        "gdb": QCoreApplication.translate("OomMethod", "gdb injection (older CPython, Linux)"),
    }


def probe_source() -> str:
    """The source of the probe that runs inside the target (``gpudesk.oom.probe_script``), shown before it runs.

    Raises:
        OSError: the source is not shipped (a frozen build without .py files).
    """
    import inspect

    from gpudesk.oom import probe_script

    return inspect.getsource(probe_script)


def confirm_with_dialog(parent: QWidget, title: str, text: str, warning: bool, details: str = "") -> bool:
    """Ask yes/no in a modal box (the default asker); "No" is the default button; ``details`` is expandable."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Warning if warning else QMessageBox.Icon.Question)
    box.setWindowTitle(title)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText(text)
    if details:
        box.setDetailedText(details)
    box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
    box.setDefaultButton(QMessageBox.StandardButton.No)
    return box.exec() == QMessageBox.StandardButton.Yes


class MethodChoice(QWidget):
    """Method radio buttons with reasons, options, and Probe / Gather evidence / Cancel buttons.

    Signals:
        probeRequested(ProbeRequest): confirmed by the user.
        evidenceRequested(int): non-invasive evidence for the PID.
        cancelRequested(): stop waiting for the running probe.

    ``confirm(title, text, warning, details) -> bool`` asks the user (``details``: the probe's source);
    tests replace it.
    """

    probeRequested = Signal(object)
    """The user confirmed a probe: the ProbeRequest (PID, method, options)."""
    evidenceRequested = Signal(int)
    """Gather evidence was pressed: the PID to collect non-invasive evidence for."""
    cancelRequested = Signal()
    """Cancel was pressed: stop waiting for the running probe. No arguments."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.pid: int | None = None
        self.description = ""
        self.statuses: dict[str, MethodStatus] = {}
        self._generation = 0
        self.confirm: Callable[[str, str, bool, str], bool] = lambda title, text, warning, details: (
            confirm_with_dialog(self, title, text, warning, details)
        )
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.target_label = plain_label(self.tr("Select a process above to look inside it."), self, wrap=True)
        layout.addWidget(self.target_label)
        grid = QGridLayout()
        self.group = QButtonGroup(self)
        self.radios: dict[str, QRadioButton] = {}
        self.reasons = {}
        for row, name in enumerate(METHOD_ORDER):
            radio = QRadioButton(method_names()[name], self)
            radio.setEnabled(False)
            self.group.addButton(radio)
            radio.toggled.connect(self._update_buttons)
            self.radios[name] = radio
            reason = plain_label("", self, wrap=True, selectable=True)
            reason.setStyleSheet("color:#555;")
            self.reasons[name] = reason
            reason.setContentsMargins(24, 0, 0, 4)
            grid.addWidget(radio, 2 * row, 0)
            grid.addWidget(reason, 2 * row + 1, 0)
        grid.setVerticalSpacing(2)
        layout.addLayout(grid)
        agent_row = QHBoxLayout()
        self.agent_hint = plain_label(
            self.tr("Agent without injection: add this line to the script, then probe again:\n%1").replace(
                "%1", AGENT_LINE
            ),
            self,
            wrap=True,
            selectable=True,
        )
        copy_agent = QPushButton(self.tr("Copy line"), self)
        copy_agent.setToolTip(self.tr("Copy the agent line to the clipboard"))
        copy_agent.clicked.connect(lambda: QGuiApplication.clipboard().setText(AGENT_LINE))
        agent_row.addWidget(self.agent_hint, 1)
        agent_row.addWidget(copy_agent)
        layout.addLayout(agent_row)
        self.reset_peak = QCheckBox(self.tr("Reset the peak (max_memory_allocated) after reading it"), self)
        self.reset_peak.setToolTip(
            self.tr("Calls torch.cuda.reset_peak_memory_stats on the devices read; changes the process's own metrics")
        )
        self.allow_other_user = QCheckBox(self.tr("Allow a process of another user (needs privileges)"), self)
        self.allow_other_user.toggled.connect(lambda _on: self.set_target(self.pid, self.description))
        layout.addWidget(self.reset_peak)
        layout.addWidget(self.allow_other_user)
        buttons = QHBoxLayout()
        self.probe_button = QPushButton(self.tr("Pro&be process"), self)
        self.probe_button.setToolTip(self.tr("Read the PyTorch allocator's figures inside the process"))
        self.probe_button.clicked.connect(self._probe)
        self.evidence_button = QPushButton(self.tr("Gather e&vidence only"), self)
        self.evidence_button.setToolTip(
            self.tr("NVML memory per process, other processes, host memory and workers; nothing is injected")
        )
        self.evidence_button.clicked.connect(lambda: self.pid is not None and self.evidenceRequested.emit(self.pid))
        self.cancel_button = QPushButton(self.tr("Cancel"), self)
        self.cancel_button.setToolTip(self.tr("Stop waiting; the target keeps running unharmed"))
        self.cancel_button.clicked.connect(self.cancelRequested.emit)
        self.cancel_button.setEnabled(False)
        buttons.addWidget(self.probe_button)
        buttons.addWidget(self.evidence_button)
        buttons.addWidget(self.cancel_button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        layout.addStretch(1)
        self._update_buttons()

    def set_target(self, pid: int | None, description: str = "") -> None:
        """Check the methods for ``pid`` in the background (None clears the choice)."""
        self._generation += 1
        self.pid = pid
        self.description = description
        self.statuses = {}
        for name in METHOD_ORDER:
            self.radios[name].setEnabled(False)
            self.reasons[name].setText("")
        if pid is None:
            self.target_label.setText(self.tr("Select a process above to look inside it."))
            self._update_buttons()
            return
        self.target_label.setText(
            self.tr("Process %1 %2: checking which methods can be used …").replace("%1", str(pid)).replace(
                "%2", description
            )
        )
        generation = self._generation
        run_task(
            _available_methods,
            pid,
            self.allow_other_user.isChecked(),
            on_result=lambda statuses: self._statuses_ready(generation, statuses),
            on_error=lambda exc: self._statuses_failed(generation, exc),
        )
        self._update_buttons()

    def set_busy(self, busy: bool) -> None:
        """While a probe runs: only Cancel is enabled."""
        self.cancel_button.setEnabled(busy)
        self.setProperty("busy", busy)
        self._update_buttons()

    def chosen_method(self) -> str | None:
        for name, radio in self.radios.items():
            if radio.isChecked() and radio.isEnabled():
                return name
        return None

    def _statuses_ready(self, generation: int, statuses: list[MethodStatus]) -> None:
        if generation != self._generation:
            return
        self.statuses = {status.name: status for status in statuses}
        first_usable = None
        for name in METHOD_ORDER:
            status = self.statuses.get(name)
            radio = self.radios[name]
            if status is None:
                radio.setEnabled(False)
                self.reasons[name].setText(self.tr("not offered for this process"))
                continue
            radio.setEnabled(bool(status.usable))
            text = status.reason or (self.tr("can be used") if status.usable else "")
            if status.usable and status.warning:
                text = f"{text}\n{status.warning}" if text else status.warning
            self.reasons[name].setText(text)
            if status.usable and first_usable is None:
                first_usable = name
        if first_usable is not None:
            self.radios[first_usable].setChecked(True)
        self.target_label.setText(
            self.tr("Process %1 %2").replace("%1", str(self.pid)).replace("%2", self.description)
            if first_usable
            else self.tr("Process %1 %2: no way to look inside it here (see the reasons); evidence can still be gathered.")
            .replace("%1", str(self.pid))
            .replace("%2", self.description)
        )
        self._update_buttons()

    def _statuses_failed(self, generation: int, exc: BaseException) -> None:
        if generation != self._generation:
            return
        self.target_label.setText(
            self.tr("Process %1: cannot check the methods: %2").replace("%1", str(self.pid)).replace("%2", error_text(exc))
        )
        self._update_buttons()

    def _update_buttons(self) -> None:
        busy = bool(self.property("busy"))
        self.probe_button.setEnabled(not busy and self.pid is not None and self.chosen_method() is not None)
        self.evidence_button.setEnabled(not busy and self.pid is not None)

    def _probe(self) -> None:
        method = self.chosen_method()
        if self.pid is None or method is None:
            return
        status = self.statuses.get(method)
        if getattr(status, "invasive", True):
            text = self.tr(
                "gpudesk will run its probe inside process %1 %2 with %3.\n\n"
                "The probe reads torch.cuda memory figures for the devices the process already uses; it does not "
                "import torch, does not initialise CUDA and writes its answer to a folder only you can read.%4\n\n"
                "Run it?"
            )
            text = (
                text.replace("%1", str(self.pid))
                .replace("%2", self.description)
                .replace("%3", method_names()[method])
                .replace("%4", self.tr("\nIt also resets the peak counter.") if self.reset_peak.isChecked() else "")
            )
            warning = method == "gdb"
            if warning:
                text += "\n\n" + (
                    getattr(status, "warning", None)
                    or self.tr("gdb stops the process while it injects the probe; a process in a delicate state can crash.")
                )
            try:
                details = self.tr("The probe that will run (gpudesk/oom/probe_script.py):\n\n") + probe_source()
            except OSError as exc:
                details = self.tr("The probe's source is not available in this build: %1").replace("%1", error_text(exc))
            if not self.confirm(self.tr("Inject the probe?"), text, warning, details):
                return
        self.probeRequested.emit(
            ProbeRequest(self.pid, method, self.reset_peak.isChecked(), self.allow_other_user.isChecked())
        )
