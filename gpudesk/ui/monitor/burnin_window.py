"""The burn-in report from the Monitor tab: a dialog that picks the saved plan to judge the recording against
(or none), and a window that shows the finished report (:class:`BurnInReportView`)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLabel, QVBoxLayout, QWidget

from gpudesk.errors import GpudeskError
from gpudesk.store.plans import SavedPlan, list_plans
from gpudesk.telemetry.recording.burnin import BurnInReport
from gpudesk.ui.monitor.burnin_view import BurnInReportView


class BurnInDialog(QDialog):
    """Which recording (shown) and which saved plan (chosen; "none" judges the recording alone)."""

    def __init__(self, store: Any, session_id: int, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Burn-in report"))
        recording = QLabel(self.tr("Recording #{n}: {t}").format(n=session_id, t=title), self)
        recording.setTextFormat(Qt.TextFormat.PlainText)
        recording.setWordWrap(True)
        self.plans = QComboBox(self)
        self.plans.addItem(self.tr("No plan (judge the recording alone)"), None)
        try:
            saved = list_plans(store) if store is not None else []
        except GpudeskError:
            saved = []  # an unreadable plans table leaves the report without a plan, not without a report
        for plan in saved:
            why = self._unusable(plan)
            label = self.tr("Plan #{n}: {name}").format(n=plan.id, name=plan.name)
            if why:
                label = self.tr("{plan} (cannot be compared: {why})").format(plan=label, why=why)
            self.plans.addItem(label, plan.id)
            if why:  # shown, so the user sees it was not forgotten, but not offered
                item = self.plans.model().item(self.plans.count() - 1)  # type: ignore[attr-defined]
                item.setEnabled(False)
                item.setToolTip(why)
        self.plans.setToolTip(self.tr("The saved plan whose expectations (memory, throughput, power) the "
                                      "measurements are compared with"))
        form = QFormLayout()
        form.addRow(self.tr("Recording:"), recording)
        plan_label = QLabel(self.tr("Saved &plan:"), self)
        plan_label.setBuddy(self.plans)
        form.addRow(plan_label, self.plans)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel,
                                   self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(buttons)

    def _unusable(self, plan: SavedPlan) -> str:
        """Why ``plan`` cannot judge a recording ("" when it can): unreadable, or no configuration fitted."""
        if plan.problem:
            return self.tr("its stored plan cannot be read")
        candidates = plan.plan.get("candidates")
        if not isinstance(candidates, list) or not candidates:
            return self.tr("no configuration fitted when it was made")
        return ""

    def plan_id(self) -> int | None:
        """The chosen saved plan's id, or None."""
        value = self.plans.currentData()
        return int(value) if value is not None else None


class BurnInWindow(QDialog):
    """A non-modal window with one burn-in report (export buttons inside)."""

    def __init__(self, report: BurnInReport, parent: QWidget | None = None, *, name: str = "") -> None:
        super().__init__(parent)
        # named after the recording ("Burn-in report: llama-70b run 3"), not after the report's own heading
        self.setWindowTitle(self.tr("Burn-in report: {t}").format(t=name or report.source))
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.view = BurnInReportView(self)
        self.view.set_report(report)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.view)
        self.resize(1100, 800)
