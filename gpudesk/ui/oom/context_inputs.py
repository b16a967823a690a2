"""What the user can tell the OOM doctor beside the pasted text: the operating system the job ran on and the GPU
memory other processes held (nvidia-smi's process list, which a pasted message lacks).

The same inputs as ``gpudesk oom diagnose --os … --other-processes-gib …``; both become a
:class:`gpudesk.oom.user_context.UserContext` for :func:`gpudesk.oom.diagnose_text` (the one core call). The
operating system defaults to "detect from the text" (:func:`gpudesk.oom.user_context.detect_host_os`); the memory
box's lowest value, 0, means "not given".
"""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QFormLayout, QLabel, QWidget

from gpudesk.oom.user_context import HOST_OSES, MAX_DEVICE_BYTES, UserContext
from gpudesk.units import GIB


class ContextInputs(QWidget):
    """A platform combo ("Detect from the text", Linux, Windows, WSL2, macOS) and a GiB box for the memory other
    processes held; :meth:`context` gives the :class:`UserContext` (None when nothing is given)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        # One row each: side by side the two labels and fields are about 700 px wide in English, which forced the
        # OOM tab past a 784-px window and squeezed the diagnosis pane into a sideways scroll.
        layout = QFormLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        self.os_combo = QComboBox(self)
        names = {"linux": self.tr("Linux"), "windows": self.tr("Windows (native)"), "wsl": self.tr("WSL2 on Windows"),
                 "macos": self.tr("macOS")}
        self.os_combo.addItem(self.tr("Detect from the text"), None)
        for host_os in HOST_OSES:
            self.os_combo.addItem(names[host_os], host_os)
        self.os_combo.setToolTip(self.tr(
            "The operating system the job ran on. A bare \"CUDA error: out of memory\" has different causes on "
            "WSL2 (pinned host memory) and native Windows (the page file) than on Linux; by default it is read "
            "from the text's paths and words."))
        os_label = QLabel(self.tr("The &job's operating system:"), self)
        os_label.setBuddy(self.os_combo)
        self.others_spin = QDoubleSpinBox(self)
        self.others_spin.setDecimals(1)
        self.others_spin.setSingleStep(0.5)
        self.others_spin.setRange(0.0, MAX_DEVICE_BYTES / GIB)
        self.others_spin.setSuffix(" GiB")
        self.others_spin.setSpecialValueText(self.tr("not given"))
        self.others_spin.setMaximumWidth(self.others_spin.fontMetrics().horizontalAdvance("0" * 10) + 60)
        self.others_spin.setToolTip(self.tr(
            "GPU memory other processes held when the error happened, in GiB (the sum of the other rows of "
            "nvidia-smi's process list). A pasted message rarely shows it; 0 = not given. It is shown as given "
            "by you in the memory account."))
        others_label = QLabel(self.tr("Memory held &by other processes (GiB):"), self)
        others_label.setBuddy(self.others_spin)
        layout.addRow(os_label, self.os_combo)
        layout.addRow(others_label, self.others_spin)
        self.setTabOrder(self.os_combo, self.others_spin)

    def context(self) -> UserContext | None:
        """What the user set, or None when both inputs are at their default."""
        host_os = self.os_combo.currentData()
        others_gib = self.others_spin.value()
        others = int(others_gib * GIB) if others_gib > 0 else None
        if host_os is None and others is None:
            return None
        return UserContext(host_os=host_os, other_processes_bytes=others)

    def set_context(self, host_os: str | None, other_processes_gib: float | None) -> None:
        """Set both inputs (None = detect from the text / not given)."""
        index = self.os_combo.findData(host_os) if host_os is not None else 0
        self.os_combo.setCurrentIndex(max(0, index))
        self.others_spin.setValue(other_processes_gib or 0.0)
