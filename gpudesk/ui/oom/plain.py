"""Plain-text helpers: outside text (process names, command lines, file contents) is never rich text.

Qt guesses whether a tooltip is rich text (``Qt::mightBeRichText``); :func:`plain_tooltip` (the one in
:mod:`gpudesk.ui.tooltips`, re-exported here) escapes the text and wraps it so that it is always shown literally.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from gpudesk.ui.tooltips import plain_tooltip

__all__ = ["plain_label", "plain_tooltip"]


def plain_label(text: str, parent: QWidget | None = None, *, wrap: bool = False, selectable: bool = False) -> QLabel:
    """A QLabel fixed to plain text (``Qt.PlainText``), optionally wrapping and selectable by mouse/keyboard."""
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(text)
    label.setWordWrap(wrap)
    if selectable:
        label.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
    return label
