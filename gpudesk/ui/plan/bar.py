"""The Plan tab's top row: the mode buttons, the bundled examples, open/save profile, the planning indicator.

Signals: viewRequested(int): a mode button was pressed (QUICK, WIZARD, RESULTS, PLANS);
profileChosen(str): an example or a profile file to load; saveProfileRequested(): "Save profile…" was pressed.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QButtonGroup, QComboBox, QFileDialog, QHBoxLayout, QProgressBar, QPushButton, QWidget

from gpudesk import paths
from gpudesk.planner import PlannerError
from gpudesk.planner.profile import profile_file_text
from gpudesk.ui.plan.controller import read_profile_text
from gpudesk.ui.plan.pages import PLANS


def example_profiles() -> list[Path]:
    """The bundled example profiles (resources/examples/*.toml), sorted by name."""
    folder = paths.examples_dir()
    return sorted(folder.glob("*.toml")) if folder.is_dir() else []


def example_title(path: Path) -> str:
    """The ``name`` inside an example profile, or its file name when the file cannot be read."""
    try:
        name = read_profile_text(profile_file_text(path), "toml").get("name")
    except (OSError, PlannerError):
        name = None
    return str(name) if isinstance(name, str) and name.strip() else path.stem.replace("-", " ")


class PlanBar(QWidget):
    """The row above the Plan tab's pages."""

    viewRequested = Signal(int)
    """A mode button was pressed: the view id (QUICK, WIZARD, RESULTS or PLANS)."""
    profileChosen = Signal(str)
    """A bundled example or a profile file was chosen: its path."""
    saveProfileRequested = Signal()
    """The "Save profile…" button was pressed. No arguments."""
    newRequested = Signal()
    """The "New plan" button was pressed: start a blank plan. No arguments."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.mode_buttons = QButtonGroup(self)
        bar = QHBoxLayout(self)
        bar.setContentsMargins(0, 0, 0, 0)
        for index, (text, tip) in enumerate(
            [
                (QCoreApplication.translate("PlanTab", "Quick mode"), QCoreApplication.translate("PlanTab", "Model, method, sequence length and batch: does it fit?")),
                (QCoreApplication.translate("PlanTab", "Wizard"), QCoreApplication.translate("PlanTab", "The five questions, one page each")),
                (QCoreApplication.translate("PlanTab", "Results"), QCoreApplication.translate("PlanTab", "The ranked configurations of the last plan")),
                (QCoreApplication.translate("PlanTab", "Saved plans"), QCoreApplication.translate("PlanTab", "Reopen, duplicate, edit, compare, delete, export")),
            ]
        ):
            button = QPushButton(text, self)
            button.setCheckable(True)
            button.setToolTip(tip)
            self.mode_buttons.addButton(button, index)
            bar.addWidget(button)
        self.mode_buttons.idClicked.connect(self.viewRequested.emit)
        bar.addStretch(1)
        self.new_button = QPushButton(QCoreApplication.translate("PlanTab", "Ne&w plan"), self)
        self.new_button.setToolTip(QCoreApplication.translate("PlanTab", "Start a blank plan: every answer back to its stated default, nothing kept from an example"))
        self.new_button.clicked.connect(self.newRequested.emit)
        bar.addWidget(self.new_button)
        self.examples = QComboBox(self)
        self.examples.setToolTip(QCoreApplication.translate("PlanTab", "Load a bundled example requirement into the wizard"))
        self.examples.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.examples.setMinimumContentsLength(28)
        self.examples.addItem(QCoreApplication.translate("PlanTab", "Start from example…"), None)
        for path in example_profiles():
            self.examples.addItem(example_title(path), str(path))
            self.examples.setItemData(self.examples.count() - 1, path.name, Qt.ItemDataRole.ToolTipRole)
        self.examples.activated.connect(self._example_chosen)
        bar.addWidget(self.examples)
        self.open_button = QPushButton(QCoreApplication.translate("PlanTab", "Open profi&le…"), self)
        self.open_button.setToolTip(QCoreApplication.translate("PlanTab", "Load a requirement profile (TOML, as used by gpudesk plan --profile) into the wizard"))
        self.open_button.clicked.connect(self._choose_profile)
        self.save_profile_button = QPushButton(QCoreApplication.translate("PlanTab", "Sa&ve profile…"), self)
        self.save_profile_button.setToolTip(QCoreApplication.translate("PlanTab", "Write the wizard's answers as a TOML profile (for gpudesk plan --profile)"))
        self.save_profile_button.clicked.connect(self.saveProfileRequested.emit)
        bar.addWidget(self.open_button)
        bar.addWidget(self.save_profile_button)
        self.serve_fit_button = QPushButton(QCoreApplication.translate("PlanTab", "W&ill it fit?…"), self)
        self.serve_fit_button.setToolTip(QCoreApplication.translate(
            "PlanTab", "Will a model start in vLLM, SGLang, TensorRT-LLM, llama.cpp or Ollama on a GPU, and with "
            "which flags"))
        self.serve_fit_button.clicked.connect(self._open_serve_fit)
        bar.addWidget(self.serve_fit_button)
        self.busy = QProgressBar(self)
        self.busy.setRange(0, 0)
        self.busy.setMaximumWidth(140)
        self.busy.setFormat(QCoreApplication.translate("PlanTab", "Planning…"))
        self.busy.setTextVisible(True)
        self.busy.hide()
        bar.addWidget(self.busy)

    def _example_chosen(self, index: int) -> None:
        path = self.examples.itemData(index)
        self.examples.setCurrentIndex(0)
        if path:
            self.profileChosen.emit(str(path))

    def _choose_profile(self) -> None:
        path, _selected = QFileDialog.getOpenFileName(self, QCoreApplication.translate("PlanTab", "Open requirement profile"),
                                                      str(paths.examples_dir()), QCoreApplication.translate("PlanTab", "TOML profiles (*.toml)"))
        if path:
            self.profileChosen.emit(path)

    def show_mode(self, index: int) -> None:
        """Check the mode button of page ``index`` (comparison counts as saved plans)."""
        button = self.mode_buttons.button(min(index, PLANS))
        if button is not None:
            button.setChecked(True)

    def _open_serve_fit(self) -> None:
        from gpudesk.ui.serve_fit import open_serve_fit_dialog

        self.serve_fit_dialog = open_serve_fit_dialog(self.window())

