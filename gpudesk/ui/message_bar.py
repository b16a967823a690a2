"""A non-blocking message strip over the bottom of the window (errors never open modal boxes by themselves).

The strip floats over its parent (the main window's central widget) instead of taking a row of its layout, so
showing or dismissing a message never moves the tabs: a background refresh that fails and a notice that hides
itself leave everything else where the user was looking.

It starts hidden and sets up its label with the first message: Python's first use of ``Qt`` builds every enum
of the Qt namespace (~20-30 ms, measured), which the window's first paint does not need (issue 15).
"""

from __future__ import annotations

from PySide6 import QtCore
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget

_STYLES = {
    "info": "MessageBar{background:#e8f1fb;border-top:1px solid #9bbbe0;} QLabel{color:#0b3d6b;}",
    "warning": "MessageBar{background:#fff4d6;border-top:1px solid #d9b24c;} QLabel{color:#5c4300;}",
    "error": "MessageBar{background:#fde7e7;border-top:1px solid #d98080;} QLabel{color:#7a0c0c;}",
}


class MessageBar(QWidget):
    """Shows one message at a time over the bottom edge of ``parent``; info messages hide themselves after a
    few seconds, warnings and errors stay until dismissed (× or Escape)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("MessageBar")
        self._label = QLabel(self)
        self._label.setWordWrap(True)
        self._set_up = False  # plain, selectable text and a styled background from the first message on
        close = QToolButton(self)
        close.setText("×")
        close.setToolTip(self.tr("Dismiss"))
        close.setAccessibleName(self.tr("Dismiss"))
        close.clicked.connect(self.hide)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 4, 4)
        layout.addWidget(self._label, 1)
        layout.addWidget(close)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.hide)
        if parent is not None:
            parent.installEventFilter(self)
        self.hide()

    def text(self) -> str:
        return self._label.text()

    def show_message(self, text: str, level: str = "info") -> None:
        if not self._set_up:
            self._set_up = True
            self.setAttribute(QtCore.Qt.WidgetAttribute.WA_StyledBackground, True)
            self._label.setTextFormat(QtCore.Qt.TextFormat.PlainText)
            self._label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self._label.setText(text)
        self.setStyleSheet(_STYLES.get(level, _STYLES["info"]))
        self.show()
        self._place()
        self.raise_()
        if level == "info":
            self._timer.start(6000)
        else:
            self._timer.stop()

    def retract(self, text: str) -> None:
        """Hide the strip if it still shows ``text``: a message whose cause is gone (the input that caused an error
        was changed, or a later run succeeded) does not stay; a newer message is left alone."""
        if self.isVisible() and self._label.text() == text:
            self._timer.stop()
            self.hide()

    def keyPressEvent(self, event) -> None:  # noqa: N802 - Qt override
        if event.key() == QtCore.Qt.Key.Key_Escape:
            self.hide()
            return
        super().keyPressEvent(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if watched is self.parentWidget() and event.type() == QEvent.Type.Resize and self.isVisible():
            self._place()
        return super().eventFilter(watched, event)

    def _place(self) -> None:
        """Span the parent's width at its bottom edge, as tall as the wrapped text needs."""
        parent = self.parentWidget()
        if parent is None:
            return
        width = parent.width()
        layout = self.layout()
        height = layout.heightForWidth(width) if layout is not None and layout.hasHeightForWidth() else -1
        height = max(height, self.minimumSizeHint().height())
        self.setGeometry(0, parent.height() - height, width, height)
