"""Import a ``nvidia-smi dmon`` log, or watch a live dmon stream from a command the user types.

A dmon log carries no PCIe link facts, so the dialog asks which GPU model produced it: picking a model
from the catalog fills in its PCIe generation and width (datasheet host interface), which the user may
correct (a x16 card in a x8 slot). That link is an assumption and is shown next to every PCIe share
computed from it. Choosing "unknown" keeps PCIe in MB/s without a share.

The model box can be typed into: the text is matched like ``gpudesk monitor import --gpu-model`` (catalog id or
words of the name, e.g. "a100 80gb sxm"); the completer only proposes, it never rewrites what was typed. Text that
matches no model, or several, keeps the dialog open with the catalog's message (its "Did you mean ...?").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QCompleter,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from gpudesk.nvml.pcie import describe_link
from gpudesk.ui.error_text import error_text

DEFAULT_COMMAND = "nvidia-smi dmon -s umt -o DT"


@dataclass(frozen=True)
class ImportChoice:
    """What the user chose.

    mode: "file" or "stream". path: the log (mode "file"). command: the command line (mode "stream").
    gpu: the catalog GPU picked, or None. pcie_gen / pcie_width: the assumed link,
    or None when unknown. interval_s: dmon's sampling delay (-d), used when the log has no time column.
    """

    mode: str
    path: str | None
    command: str | None
    gpu: Any  # the catalog GPU (frozen dataclass) or None
    pcie_gen: int | None
    pcie_width: int | None
    interval_s: float


class ImportDialog(QDialog):
    """Modal dialog; ``choice()`` returns the :class:`ImportChoice` after ``exec()`` was accepted."""

    def __init__(self, catalog, parent: QWidget | None = None, *, stream: bool = False, path: str | None = None):
        super().__init__(parent)
        self.setWindowTitle(self.tr("Import nvidia-smi dmon data"))
        self.catalog = catalog
        self.file_radio = QRadioButton(self.tr("A dmon &log file"), self)
        self.stream_radio = QRadioButton(self.tr("A live dmon &stream from a command"), self)
        group = QButtonGroup(self)
        group.addButton(self.file_radio)
        group.addButton(self.stream_radio)
        (self.stream_radio if stream else self.file_radio).setChecked(True)
        self.path_edit = QLineEdit(path or "", self)
        self.path_edit.setPlaceholderText(self.tr("Path of a file written by: nvidia-smi dmon -s umt -o DT > run.log"))
        browse = QPushButton(self.tr("&Browse…"), self)
        browse.clicked.connect(self._browse)
        path_row = QHBoxLayout()
        path_row.addWidget(self.path_edit, 1)
        path_row.addWidget(browse)
        self.command_edit = QLineEdit(DEFAULT_COMMAND, self)
        self.command_edit.setToolTip(self.tr(
            "Runs this command and reads its output as it arrives, for example "
            "'ssh lab-node nvidia-smi dmon -s umt -o DT'. Include '-s t' for PCIe and '-o DT' for time stamps."))
        self.model_combo = QComboBox(self)
        self.model_combo.setEditable(True)
        self.model_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.model_combo.setToolTip(self.tr("The GPU model that produced the log; its PCIe link is assumed for "
                                            "the PCIe share. Type to search."))
        self.model_combo.addItem(self.tr("Unknown model (no PCIe share)"), None)
        self._gpus = {}
        if catalog is not None:
            for gpu in catalog.gpus():
                self._gpus[gpu.id] = gpu
                self.model_combo.addItem(f"{gpu.name} ({gpu.host_interface})", gpu.id)
        completer = self.model_combo.completer()
        if completer is not None:  # an editable combo box has one
            completer.setFilterMode(Qt.MatchFlag.MatchContains)
            completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
            # a popup of candidates: inline completion appended the rest of a "contains" match to the typed text
            # ("a100 80gb sxm" became "a100 80gb sxm0GB SXM4 (PCIe Gen4 x16)")
            completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.model_combo.currentIndexChanged.connect(self._model_changed)
        line_edit = self.model_combo.lineEdit()
        if line_edit is not None:  # an editable combo box has one
            line_edit.editingFinished.connect(self._typed_model)
        self.gen_spin = QSpinBox(self)
        self.gen_spin.setRange(0, 6)
        self.gen_spin.setSpecialValueText(self.tr("unknown"))
        self.gen_spin.setPrefix(self.tr("Gen"))
        self.width_spin = QSpinBox(self)
        self.width_spin.setRange(0, 32)
        self.width_spin.setSpecialValueText(self.tr("unknown"))
        self.width_spin.setPrefix("x")
        self.width_spin.setValue(16)
        self.gen_spin.valueChanged.connect(self._update_link)
        self.width_spin.valueChanged.connect(self._update_link)
        link_row = QHBoxLayout()
        link_row.addWidget(self.gen_spin)
        link_row.addWidget(self.width_spin)
        link_row.addStretch(1)
        self.link_label = QLabel(self)
        self.link_label.setTextFormat(Qt.TextFormat.PlainText)
        self.link_label.setWordWrap(True)
        self.interval_spin = QDoubleSpinBox(self)
        self.interval_spin.setRange(0.1, 3600.0)
        self.interval_spin.setValue(1.0)
        self.interval_spin.setSuffix(" s")
        self.interval_spin.setToolTip(self.tr("dmon's -d delay; used to place rows in time when the log has no "
                                              "Date/Time columns (-o DT)."))
        if catalog is None:
            note = QLabel(self.tr("The GPU catalog could not be opened; enter the PCIe link by hand."), self)
            note.setWordWrap(True)
        form = QFormLayout()
        form.addRow(self.file_radio)
        form.addRow(self.tr("Log file:"), path_row)
        form.addRow(self.stream_radio)
        form.addRow(self.tr("Command:"), self.command_edit)
        form.addRow(self.tr("GPU &model:"), self.model_combo)
        if catalog is None:
            form.addRow(note)
        form.addRow(self.tr("PCIe link (assumed):"), link_row)
        form.addRow("", self.link_label)
        form.addRow(self.tr("Sampling &interval:"), self.interval_spin)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel,
                                        self)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.error = QLabel(self)
        self.error.setStyleSheet("color:#b00020;")
        self.error.setTextFormat(Qt.TextFormat.PlainText)
        self.error.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)
        self.file_radio.toggled.connect(self._mode_changed)
        self._mode_changed()
        self._update_link()
        self.resize(640, self.sizeHint().height())

    def select_model(self, query: str) -> bool:
        """Pick the catalog GPU matching ``query`` (catalog id or name words); False when none or several match."""
        if self.catalog is None:
            return False
        from gpudesk.catalog import CatalogError

        try:
            gpu = self.catalog.find_gpu(query)
        except CatalogError:
            return False
        self.model_combo.setCurrentIndex(self.model_combo.findData(gpu.id))
        return True

    def _typed_model(self) -> None:
        """Resolve the model box's text when the user typed it (Enter or focus out); the error line says why a
        text matched nothing."""
        if self._resolve_typed() is not False:
            self.error.clear()

    def _resolve_typed(self):
        """The catalog GPU for the typed text: a GPU, None for "unknown model", or False (with the reason shown
        in the error line) when the text matches no model or several."""
        text = self.model_combo.currentText().strip()
        index = self.model_combo.currentIndex()
        if index >= 0 and text == self.model_combo.itemText(index).strip():
            return self._gpus.get(self.model_combo.currentData())
        if not text:
            self.model_combo.setCurrentIndex(0)
            return None
        if self.catalog is None:
            self.error.setText(self.tr("The GPU catalog could not be opened, so {t} cannot be looked up; pick "
                                       "\"Unknown model\" and enter the PCIe link by hand.").format(t=repr(text)))
            return False
        from gpudesk.catalog import CatalogError

        try:
            gpu = self.catalog.find_gpu(text)
        except CatalogError as exc:
            message = error_text(exc)
            cut = message.find(" Run `gpudesk catalog")  # the CLI hint; here the list is one click away
            if cut > 0:
                message = message[:cut] + " " + self.tr("Open the list to pick one.")
            self.error.setText(self.tr("GPU model: {e}").format(e=message))
            return False
        self.model_combo.setCurrentIndex(self.model_combo.findData(gpu.id))
        return gpu

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Open a dmon log"), self.path_edit.text(),
                                              self.tr("Text logs (*.log *.txt *.dmon);;All files (*)"))
        if path:
            self.path_edit.setText(path)
            self.file_radio.setChecked(True)

    def _mode_changed(self) -> None:
        file_mode = self.file_radio.isChecked()
        self.path_edit.setEnabled(file_mode)
        self.command_edit.setEnabled(not file_mode)

    def _model_changed(self) -> None:
        gpu = self._gpus.get(self.model_combo.currentData())
        if gpu is not None:
            self.gen_spin.setValue(int(gpu.pcie_gen or 0))
            self.width_spin.setValue(int(gpu.pcie_lanes or 0))
        self._update_link()

    def _update_link(self) -> None:
        gen, width = self.gen_spin.value() or None, self.width_spin.value() or None
        model = self.model_combo.currentData()
        source = f"catalog:{model}" if model else QCoreApplication.translate("Monitor", "entered by hand")
        self.link_label.setText(describe_link(gen, width, source))

    def accept(self) -> None:
        if self._resolve_typed() is False:
            return  # typed text that is no catalog model: say so rather than import as "unknown model"
        if self.file_radio.isChecked() and not self.path_edit.text().strip():
            self.error.setText(self.tr("Choose the dmon log file to import."))
            return
        if self.stream_radio.isChecked() and not self.command_edit.text().strip():
            self.error.setText(self.tr("Type the command that prints dmon output."))
            return
        super().accept()

    def choice(self) -> ImportChoice:
        return ImportChoice(
            mode="file" if self.file_radio.isChecked() else "stream",
            path=self.path_edit.text().strip() or None,
            command=self.command_edit.text().strip() or None,
            gpu=self._gpus.get(self.model_combo.currentData()),
            pcie_gen=self.gen_spin.value() or None,
            pcie_width=self.width_spin.value() or None,
            interval_s=float(self.interval_spin.value()),
        )
