"""A non-blocking message strip at the top of the window (errors never open modal boxes by themselves).

It starts hidden and sets up its label with the first message: Python's first use of ``Qt`` builds every enum
of the Qt namespace (~20-30 ms, measured), which the window's first paint does not need (issue 15).
"""

from __future__ import annotations

from PySide6 import QtCore
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget

_STYLES = {
    "info": "background:#e8f1fb;color:#0b3d6b;",
    "warning": "background:#fff4d6;color:#5c4300;",
    "error": "background:#fde7e7;color:#7a0c0c;",
}


class MessageBar(QWidget):
    """Shows one message at a time; info messages hide themselves after a few seconds."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._label = QLabel(self)
        self._label.setWordWrap(True)
        self._plain = False  # the label shows plain, selectable text from the first message on
        close = QToolButton(self)
        close.setText("×")
        close.setToolTip(self.tr("Dismiss"))
        close.clicked.connect(self.hide)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 4, 4)
        layout.addWidget(self._label, 1)
        layout.addWidget(close)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.hide)
        self.setAutoFillBackground(True)
        self.hide()

    def text(self) -> str:
        return self._label.text()

    def show_message(self, text: str, level: str = "info") -> None:
        if not self._plain:
            self._plain = True
            self._label.setTextFormat(QtCore.Qt.TextFormat.PlainText)
            self._label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self._label.setText(text)
        self.setStyleSheet(_STYLES.get(level, _STYLES["info"]))
        self.show()
        if level == "info":
            self._timer.start(6000)
        else:
            self._timer.stop()
