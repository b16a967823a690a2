"""The notice above a reopened saved plan's results: its figures recomputed with this gpudesk differ from the saved
ones (gpudesk.planner.recheck), with the choice to show the recomputed plan or keep the saved one. Non-modal: the
results stay usable below it; both buttons have mnemonics and take the keyboard focus in turn.

Signals: useRecomputedRequested(): "Show recomputed plan" was pressed; keepSavedRequested(): "Keep saved plan".
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from gpudesk.planner.recheck import PlanRecheck


class RecheckNotice(QFrame):
    """A framed line of text with two buttons; hidden until :meth:`show_recheck` is given a recheck that differs."""

    useRecomputedRequested = Signal()
    """Show the recomputed plan (it becomes the current, unsaved plan). No arguments."""
    keepSavedRequested = Signal()
    """Keep showing the saved figures. No arguments."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("recheckNotice")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet("#recheckNotice { background: palette(alternate-base); border: 1px solid #d9a400; "
                           "border-radius: 3px; }")
        self.label = QLabel(self)
        self.label.setTextFormat(Qt.TextFormat.PlainText)  # the option's name comes from the catalog
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.use_button = QPushButton(self.tr("S&how recomputed plan"), self)
        self.use_button.setToolTip(self.tr("Show the plan recomputed with this gpudesk; it is not saved until you "
                                           "press Save changes"))
        self.use_button.clicked.connect(self.useRecomputedRequested)
        self.keep_button = QPushButton(self.tr("&Keep saved plan"), self)
        self.keep_button.setToolTip(self.tr("Keep showing the figures as they were saved"))
        self.keep_button.clicked.connect(self.keepSavedRequested)
        buttons = QVBoxLayout()
        buttons.addWidget(self.use_button)
        buttons.addWidget(self.keep_button)
        buttons.addStretch(1)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.addWidget(self.label, 1)
        layout.addLayout(buttons)
        QWidget.setTabOrder(self.use_button, self.keep_button)
        self.hide()

    def show_recheck(self, result: PlanRecheck, saved_at: str) -> None:
        """Show the differences of ``result`` (the notice stays hidden when nothing differs)."""
        if not result.differs:
            self.hide()
            return
        self.label.setText(self.tr("Saved {0}. Recomputed with this gpudesk: {1}.").format(saved_at, result.summary()))
        self.show()
