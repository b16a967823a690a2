"""How accurate is the OOM doctor? Its first cause checked against real messages labelled from their threads.

:class:`OomAccuracyView` shows, per case set, how often the first cause is the recorded one (strict: "not a
memory problem" counts only when the doctor says so), how many not-capacity cases it called with the deciding
check, and one row per family and per case (with its public thread). :class:`OomAccuracyLink` is the "How
accurate is this?" button of the OOM tab; it opens the view in a dialog. The data comes from
:func:`gpudesk.oom.accuracy.load_accuracy`, run off the GUI thread (the same figures as ``gpudesk oom accuracy``).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from gpudesk.oom.accuracy import CASE_FILES, OomAccuracy, load_accuracy
from gpudesk.ui.workers import run_task
from gpudesk.ui.error_text import error_text


def _table(parent: QWidget, headers: list[str], name: str) -> QTableWidget:
    table = QTableWidget(0, len(headers), parent)
    table.setHorizontalHeaderLabels(headers)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
    table.verticalHeader().setVisible(False)
    table.setWordWrap(False)
    table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    table.horizontalHeader().setStretchLastSection(True)
    table.setAccessibleName(name)
    return table


class OomAccuracyView(QWidget):
    """Summary, per-family table and per-case table; call :meth:`set_accuracy` with an :class:`OomAccuracy`."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.headline = QLabel(self.tr("Checking the doctor against real messages…"), self)
        self.headline.setTextFormat(Qt.TextFormat.PlainText)
        self.headline.setWordWrap(True)
        font = self.headline.font()
        font.setBold(True)
        self.headline.setFont(font)
        self.details = QLabel("", self)
        self.details.setTextFormat(Qt.TextFormat.PlainText)
        self.details.setWordWrap(True)
        self.tabs = QTabWidget(self)
        self.families = _table(self, [self.tr("Case set"), self.tr("Family"), self.tr("Right"), self.tr("Cases"),
                                      self.tr("Share")], self.tr("First-cause accuracy by family"))
        self.cases = _table(self, [self.tr("Case set"), self.tr("Family"), self.tr("Recorded cause"),
                                   self.tr("Doctor's first cause"), self.tr("Source")],
                            self.tr("Every case and the doctor's first cause"))
        # The family name takes the spare width; the counts stay beside it instead of at the far right.
        self.families.horizontalHeader().setStretchLastSection(False)
        self.families.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.tabs.addTab(self.families, self.tr("By family"))
        self.tabs.addTab(self.cases, self.tr("Every case"))
        layout = QVBoxLayout(self)
        layout.addWidget(self.headline)
        layout.addWidget(self.details)
        layout.addWidget(self.tabs, 1)

    def show_error(self, message: str) -> None:
        """Say why the check could not run (outside text shown as plain text)."""
        self.headline.setText(self.tr("The accuracy check could not run: %1").replace("%1", message))

    def set_accuracy(self, accuracy: OomAccuracy) -> None:
        self.headline.setText(
            self.tr("The first cause is the one the public thread established in %1 of %2 real messages (%3 %).")
            .replace("%1", str(accuracy.right)).replace("%2", str(accuracy.total))
            .replace("%3", f"{100 * accuracy.share:.0f}"))
        lines = []
        for case_set, _file in CASE_FILES:
            sub = accuracy.subset(case_set)
            if sub.total:
                lines.append(self.tr("Set '%1': %2 of %3 right.").replace("%1", case_set)
                             .replace("%2", str(sub.right)).replace("%3", str(sub.total)))
        nc_right, nc_total = accuracy.not_capacity()
        if nc_total:
            lines.append(self.tr("Not a memory-capacity problem: said so, with the check that tells it apart, in %1 "
                                 "of %2 such messages.").replace("%1", str(nc_right)).replace("%2", str(nc_total)))
        lines.append(self.tr("Counted strictly: a case is right only when the first cause is the recorded one; "
                             "families with fewer than 5 cases are shown in grey."))
        self.details.setText(" ".join(lines))
        self._fill(accuracy)

    def _fill(self, accuracy: OomAccuracy) -> None:
        grey = QColor(Qt.GlobalColor.gray)
        families = accuracy.families()
        self.families.setRowCount(len(families))
        for row, score in enumerate(families):
            values = [score.case_set, score.family, str(score.right), str(score.total), f"{100 * score.share:.0f} %"]
            for col, value in enumerate(values):
                item = QTableWidgetItem(value)
                if col >= 2:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if not score.judged:
                    item.setForeground(grey)
                self.families.setItem(row, col, item)
        outcomes = accuracy.outcomes
        self.cases.setRowCount(len(outcomes))
        red = QColor("#a12a2a")
        for row, outcome in enumerate(outcomes):
            case = outcome.case
            values = [case.case_set, case.family, case.expected_cause, outcome.top_cause, case.url]
            for col, value in enumerate(values):
                item = QTableWidgetItem(value)
                item.setToolTip(case.url)
                if col == 3 and not outcome.right:
                    item.setForeground(red)
                self.cases.setItem(row, col, item)


class OomAccuracyDialog(QDialog):
    """The accuracy view in a dialog; evaluates the case sets in the background when opened."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(self.tr("How accurate is the OOM doctor?"))
        self.view = OomAccuracyView(self)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.view)
        layout.addWidget(buttons)
        self.resize(1000, 560)

    def load(self) -> None:
        run_task(load_accuracy, on_result=self.view.set_accuracy,
                 on_error=lambda exc: self.view.show_error(error_text(exc)))


class OomAccuracyLink(QPushButton):
    """A flat "How accurate is this?" button for the OOM results; opens :class:`OomAccuracyDialog`."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setText(self.tr("How accurate is this?"))
        self.setFlat(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip(self.tr("The doctor's first cause checked against real messages, per framework and platform"))
        self.dialog: OomAccuracyDialog | None = None
        self.clicked.connect(self.open_dialog)

    def open_dialog(self) -> None:
        self.dialog = OomAccuracyDialog(self.window())
        self.dialog.load()
        self.dialog.show()
