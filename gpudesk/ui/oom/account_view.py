"""The memory account of each GPU in a diagnosis: what the text was recognised as (engine, platform), a
stacked bar of the account's terms against the total, and a table of every term with its value, whether it
was measured, given by the user, derived or unknown, and what it holds; inconsistencies are listed as flags, never drawn.

The account itself is computed in core (:func:`gpudesk.oom.account.accounts_of`); this widget only shows it.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPalette, QPen
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QLabel,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from gpudesk.oom.account import MemoryAccount, accounts_of
from gpudesk.oom.labels import PYTORCH_FRAMEWORKS, outside_allocator_words, runtime_name
from gpudesk.ui.oom.plain import plain_label, plain_tooltip
from gpudesk.units import format_bytes, format_percent

TERM_COLORS = {
    "allocated": "#1f5fa8",
    "cached": "#7fb0e6",
    "non_pytorch": "#e08a1e",
    "outside_allocator": "#c0632b",
    "other_processes": "#b0413e",
    "unattributed": "#9a9a9a",
    "free": "#cfe3c0",
}

PLATFORM_NAMES = {"cuda": "NVIDIA CUDA", "rocm": "AMD ROCm (HIP)", "mps": "Apple MPS", "xpu": "Intel XPU",
                  "tpu": "Google TPU"}


class AccountBar(QWidget):
    """One stacked bar: the known, non-negative terms of an account, scaled to its total."""

    def __init__(self, account: MemoryAccount, names: dict[str, str], parent: QWidget | None = None):
        super().__init__(parent)
        self.account = account
        self.segments = [(t.name, t.value_bytes) for t in account.terms
                         if t.value_bytes is not None and t.value_bytes > 0 and t.name in TERM_COLORS]
        self.setMinimumHeight(26)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        total = account.total_bytes
        tip = [f"{names.get(n, n)}: {format_bytes(v)}" + (f" ({format_percent(v / total, digits=1)})" if total else "")
               for n, v in self.segments]
        self.setToolTip(plain_tooltip("\n".join(tip)))
        self.setAccessibleName(self.tr("Memory account bar"))
        self.setAccessibleDescription("; ".join(tip))

    def sizeHint(self) -> QSize:
        return QSize(420, 26)

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        rect = QRectF(self.rect()).adjusted(0.5, 3.5, -0.5, -3.5)
        total = self.account.total_bytes or sum(v for _, v in self.segments) or 1
        x = rect.left()
        for name, value in self.segments:
            width = rect.width() * min(1.0, value / total)
            painter.fillRect(QRectF(x, rect.top(), width, rect.height()), QColor(TERM_COLORS[name]))
            x += width
            if x >= rect.right():
                break
        painter.setPen(QPen(self.palette().color(QPalette.ColorRole.Mid)))
        painter.drawRect(rect)
        painter.end()


class AccountView(QWidget):
    """"Recognised: vLLM on AMD ROCm (HIP)", then per GPU the total, a stacked bar and the term table."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.layout_ = QVBoxLayout(self)
        self.layout_.setContentsMargins(0, 0, 0, 0)
        self.recognised = plain_label("", self, wrap=True, selectable=True)
        self.layout_.addWidget(self.recognised)
        self.boxes: list[QWidget] = []
        self.accounts: list[MemoryAccount] = []
        self.report = None
        self.hide()

    def term_names(self, framework: str | None = "pytorch") -> dict[str, str]:
        """The terms' names; the memory outside the allocator is named for ``framework`` (the report's): PyTorch's
        words for PyTorch, the runtime's own label where core has one (CUDA.jl's pool), the framework's otherwise."""
        outside = (self.tr("This process outside PyTorch") if framework in PYTORCH_FRAMEWORKS
                   else outside_allocator_words(framework))
        return {
            "allocated": self.tr("Allocated (live tensors)"),
            "cached": self.tr("Cached by the allocator"),
            "non_pytorch": outside,
            "outside_allocator": self.tr("Outside this process's allocator"),
            "other_processes": self.tr("Other processes"),
            "unattributed": self.tr("Unattributed"),
            "free": self.tr("Free"),
        }

    def status_names(self) -> dict[str, str]:
        return {"measured": self.tr("measured"), "given": self.tr("given by you"), "derived": self.tr("derived"),
                "unknown": self.tr("unknown")}

    def clear(self) -> None:
        for box in self.boxes:
            self.layout_.removeWidget(box)
            box.hide()
            box.setParent(None)
            box.deleteLater()
        self.boxes = []
        self.accounts = []
        self.recognised.setText("")
        self.hide()

    def set_diagnosis(self, diagnosis) -> None:
        """Show the accounts of ``diagnosis.report`` (a ``gpudesk.oom.Diagnosis``)."""
        self.clear()
        report = diagnosis.report
        self.report = report
        parts = []
        if report.engine:
            parts.append(self.tr("engine %1").replace("%1", runtime_name(report.engine)))
        elif report.runtime and report.runtime != "pytorch":  # as the CLI's line; PyTorch is the header's already
            parts.append(self.tr("runtime %1").replace("%1", runtime_name(report.runtime)))
        if report.platform:
            parts.append(self.tr("platform %1").replace("%1", PLATFORM_NAMES.get(report.platform, report.platform)))
        if report.host_os:
            os_name = {"linux": "Linux", "windows": "Windows", "wsl": "WSL2", "macos": "macOS"}.get(report.host_os,
                                                                                               report.host_os)
            parts.append((self.tr("OS %1 (given by you)") if report.host_os_given else self.tr("OS %1 (from the text)"))
                         .replace("%1", os_name))
        self.recognised.setText(self.tr("Recognised: %1").replace("%1", ", ".join(parts)) if parts else "")
        self.recognised.setVisible(bool(parts))
        self.accounts = [a for a in accounts_of(report)
                         if a.total_bytes is not None or any(t.value_bytes is not None for t in a.terms)]
        for account in self.accounts:
            box = self._account_box(account)
            self.layout_.addWidget(box)
            self.boxes.append(box)
        self.setVisible(bool(parts) or bool(self.accounts))

    def _account_box(self, account: MemoryAccount) -> QWidget:
        framework = self.report.framework if self.report is not None else "pytorch"
        names, statuses = self.term_names(framework), self.status_names()
        box = QFrame(self)
        box.setFrameShape(QFrame.Shape.StyledPanel)
        lay = QVBoxLayout(box)
        where = (self.tr("GPU %1").replace("%1", str(account.gpu_index)) if account.gpu_index is not None
                 else self.tr("GPU"))
        limit = self.tr("MPS high-watermark limit") if account.limit_name != "total capacity" else self.tr("total capacity")
        title = plain_label(self.tr("Memory account of %1: %2 %3 (%4)").replace("%1", where).replace("%2", limit)
                            .replace("%3", format_bytes(account.total_bytes))
                            .replace("%4", statuses.get(account.total_status, account.total_status)), box,
                            wrap=True, selectable=True)
        font = title.font()
        font.setBold(True)
        title.setFont(font)
        lay.addWidget(title)
        lay.addWidget(AccountBar(account, names, box))
        # One wrapping line per term (swatch, "name: size (share), how known — what it holds"), so the
        # account fits a narrow results pane without clipping.
        grid = QGridLayout()
        grid.setHorizontalSpacing(6)
        total = account.total_bytes
        self.term_labels: dict[str, QLabel] = {}
        for row, term in enumerate(account.terms):
            swatch = QLabel(box)
            swatch.setFixedSize(12, 12)
            swatch.setStyleSheet(f"background:{TERM_COLORS.get(term.name, '#ffffff')}; border:1px solid #666;")
            share = (" (" + format_percent(term.value_bytes / total, digits=1) + ")"
                     if total and term.value_bytes is not None else "")
            text = (self.tr("%1: %2%3, %4 — %5").replace("%1", names.get(term.name, term.name))
                    .replace("%2", format_bytes(term.value_bytes)).replace("%3", share)
                    .replace("%4", statuses.get(term.status, term.status)).replace("%5", term.note))
            label = plain_label(text, box, wrap=True, selectable=True)
            self.term_labels[term.name] = label
            grid.addWidget(swatch, row, 0, Qt.AlignmentFlag.AlignTop)
            grid.addWidget(label, row, 1)
        grid.setColumnStretch(1, 1)
        lay.addLayout(grid)
        for flag in account.flags:
            warn = plain_label("⚠ " + flag, box, wrap=True, selectable=True)
            warn.setStyleSheet("color:#7a4b00;")
            lay.addWidget(warn)
        return box
