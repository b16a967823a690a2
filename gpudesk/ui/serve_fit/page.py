""""Will it fit?": one model in one inference engine on one kind of GPU, before launch.

:class:`ServeFitPage` takes the same inputs as ``gpudesk estimate serve`` (engine, engine version, catalog model,
catalog GPU, GPU count, its ECC state, weight format, engine settings as the engine spells them) and calls the same core function,
:func:`gpudesk.sizing.engines.fit.engine_fit`. It shows the verdict, the memory per GPU term by term, the KV cache
capacity (tokens, blocks, concurrency at the context, longest context), the smallest changes that make it fit and
the command line, with a button that copies it. :func:`open_serve_fit_dialog` shows the page in a dialog; the Plan
tab's bar and the Catalog's GPU details open it (the latter with that GPU chosen), and a serving option of the Plan
results opens it filled from that option (:func:`gpudesk.planner.serve_launch.launch_inputs`) and checked.
"""

from __future__ import annotations

import re
import shlex

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpudesk.errors import GpudeskError
from gpudesk.planner.serve_launch import LaunchInputs
from gpudesk.sizing.engines.common import ENGINES, Change, EngineFit
from gpudesk.sizing.engines.fit import TP_SETTING
from gpudesk.sizing.engines.terms import engine_title, memory_rows

from gpudesk.units import GIB
from gpudesk.ui.error_text import error_text
ENGINE_LABELS = {"vllm": "vLLM", "sglang": "SGLang", "trtllm": "TensorRT-LLM", "llamacpp": "llama.cpp",
                 "ollama": "Ollama"}
WEIGHT_FORMATS = ("checkpoint", "bf16", "fp8", "int8", "int4-g128", "q8_0", "q6_k", "q5_k_m", "q4_k_m", "iq4_xs")
# Settings a new user most often types, per engine (shown as the hint text of the settings field).
SETTING_EXAMPLES = {
    "vllm": "gpu_memory_utilization=0.9 max_model_len=8192",
    "sglang": "mem_fraction_static=0.88 context_length=8192",
    "trtllm": "free_gpu_memory_fraction=0.9 max_seq_len=8192",
    "llamacpp": "n_gpu_layers=99 n_ctx=8192 cache_type_k=q8_0",
    "ollama": "num_ctx=8192 num_parallel=1",
}


def sentence_start(reason: str) -> str:
    """``reason`` as the start of a sentence: its first word capitalised where it is a plain lower-case word
    ("the", "weights"), left as it is where it is a name or a setting ("vLLM", "gpu_memory_utilization", "--dtype")."""
    if re.match(r"[a-z]+(?=[ ,;:.'])", reason):
        return reason[:1].upper() + reason[1:]
    return reason


class ServeFitPage(QWidget):
    """The inputs, the breakdown, the capacity and the command line of one engine launch."""

    def __init__(self, parent: QWidget | None = None, gpu_id: str | None = None):
        super().__init__(parent)
        from gpudesk.catalog import open_catalog

        catalog = open_catalog()
        self._models = {m.id: m for m in catalog.models() if m.kind == "decoder"}
        self._gpus = {g.id: g for g in catalog.gpus()}
        self.result: EngineFit | None = None

        self.engine = QComboBox(self)
        for key in ENGINES:
            self.engine.addItem(ENGINE_LABELS.get(key, key), key)
        self.version = QLineEdit(self)
        self.version.setPlaceholderText(self.tr("latest (e.g. 0.6.4, v0, v1, b4600)"))
        self.model = QComboBox(self)
        for mid, m in sorted(self._models.items(), key=lambda kv: kv[1].name.lower()):
            self.model.addItem(m.name, mid)
        self.gpu = QComboBox(self)
        for gid, g in sorted(self._gpus.items(), key=lambda kv: kv[1].name.lower()):
            self.gpu.addItem(g.name, gid)
        self.gpus = QSpinBox(self)
        self.gpus.setRange(1, 64)
        self.gpus.setToolTip(self.tr("GPUs of this kind; the tensor-parallel degree for vLLM, SGLang and "
                                     "TensorRT-LLM, the layer split for llama.cpp and Ollama"))
        self.ecc = QComboBox(self)
        self.ecc.addItem(self.tr("As the card ships"), None)
        self.ecc.addItem(self.tr("On"), True)
        self.ecc.addItem(self.tr("Off"), False)
        self.ecc.setToolTip(self.tr("ECC on a GDDR card keeps its check bits in the same memory: the driver then "
                                    "reports 1/16 less. Data-center cards (T4, A10, L4, L40S) ship with it on, "
                                    "GeForce and RTX workstation cards with it off; HBM cards lose nothing."))
        self.weight_format = QComboBox(self)
        self.weight_format.setEditable(True)
        self.weight_format.addItems(list(WEIGHT_FORMATS))
        self.weight_format.setToolTip(self.tr("checkpoint (as published), bf16, fp8, int4-g128, or a GGUF type "
                                              "such as q4_k_m"))
        self.settings = QLineEdit(self)
        self.settings.setToolTip(self.tr("Engine settings as the engine spells them, NAME=VALUE separated by "
                                         "spaces"))
        self.check_button = QPushButton(self.tr("&Check"), self)
        self.check_button.setDefault(True)

        form = QFormLayout()
        for text, widget in ((self.tr("&Engine:"), self.engine), (self.tr("Engine &version:"), self.version),
                             (self.tr("&Model:"), self.model), (self.tr("&GPU:"), self.gpu),
                             (self.tr("GPU &count:"), self.gpus), (self.tr("ECC o&n GDDR memory:"), self.ecc),
                             (self.tr("&Weight format:"), self.weight_format),
                             (self.tr("Engine &settings:"), self.settings)):
            label = QLabel(text, self)
            label.setBuddy(widget)
            form.addRow(label, widget)

        self.verdict = QLabel(self.tr("Choose a model, a GPU and an engine, then press Check."), self)
        self.verdict.setTextFormat(Qt.TextFormat.PlainText)
        self.verdict.setWordWrap(True)
        font = self.verdict.font()
        font.setBold(True)
        self.verdict.setFont(font)
        self.table = QTableWidget(0, 2, self)
        self.table.setHorizontalHeaderLabels([self.tr("Per GPU"), self.tr("GiB")])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setAccessibleName(self.tr("Memory per GPU"))
        self.capacity = QLabel("", self)
        self.capacity.setTextFormat(Qt.TextFormat.PlainText)
        self.capacity.setWordWrap(True)
        self.changes = QLabel("", self)
        self.changes.setTextFormat(Qt.TextFormat.PlainText)
        self.changes.setWordWrap(True)
        self.command = QLineEdit(self)
        self.command.setReadOnly(True)
        self.command.setAccessibleName(self.tr("Command line"))
        self.copy_button = QPushButton(self.tr("Co&py"), self)
        self.copy_button.setToolTip(self.tr("Copy the command line to the clipboard"))
        self.copy_button.setEnabled(False)
        command_row = QHBoxLayout()
        command_label = QLabel(self.tr("Comman&d:"), self)
        command_label.setBuddy(self.command)
        command_row.addWidget(command_label)
        command_row.addWidget(self.command, 1)
        command_row.addWidget(self.copy_button)

        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.check_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.verdict)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.capacity)
        layout.addWidget(self.changes)
        layout.addLayout(command_row)

        self.engine.currentIndexChanged.connect(self._engine_changed)
        self.check_button.clicked.connect(self.check)
        self.settings.returnPressed.connect(self.check)
        self.copy_button.clicked.connect(self.copy_command)
        self._engine_changed()
        if gpu_id:
            self.set_gpu(gpu_id)

    def set_gpu(self, gpu_id: str) -> None:
        """Choose the catalog GPU ``gpu_id`` (unknown ids are ignored)."""
        index = self.gpu.findData(gpu_id)
        if index >= 0:
            self.gpu.setCurrentIndex(index)

    def set_model(self, model_id: str) -> None:
        index = self.model.findData(model_id)
        if index >= 0:
            self.model.setCurrentIndex(index)

    def set_engine(self, engine: str) -> None:
        index = self.engine.findData(engine)
        if index >= 0:
            self.engine.setCurrentIndex(index)

    def prefill(self, inputs: LaunchInputs) -> None:
        """Fill the inputs from a plan's serving option, check the launch, and say what was not carried over."""
        self.set_engine(inputs.engine)
        if inputs.model_id:
            self.set_model(inputs.model_id)
        self.set_gpu(inputs.gpu_id)
        self.gpus.setValue(inputs.gpus)
        self.weight_format.setCurrentText(inputs.weight_format)
        self.settings.setText(" ".join(inputs.engine_args))
        self.check()
        missing = [note for note in inputs.notes]
        if inputs.model_id and self.model.findData(inputs.model_id) < 0:
            missing.append(self.tr("The plan's model is not a decoder in the catalog; choose the model here."))
        if missing:
            self.verdict.setText(self.verdict.text() + "\n" + "\n".join(missing))

    def _engine_changed(self) -> None:
        self.settings.setPlaceholderText(SETTING_EXAMPLES.get(str(self.engine.currentData()), ""))

    def check(self) -> None:
        """Size the launch with :func:`engine_fit` and show it; a bad input is said in the verdict line."""
        from gpudesk.sizing.engines.device import catalog_device
        from gpudesk.sizing.engines.fit import engine_fit
        from gpudesk.sizing.shapes import spec_from_catalog

        engine = str(self.engine.currentData())
        try:
            args = shlex.split(self.settings.text())
        except ValueError as exc:
            self._show_error(self.tr("The engine settings cannot be read: %1").replace("%1", error_text(exc)))
            return
        gpus = self.gpus.value()
        try:
            spec = spec_from_catalog(self._models[str(self.model.currentData())])
            device = catalog_device(self._gpus[str(self.gpu.currentData())], self.ecc.currentData())
            result = engine_fit(engine, spec, device, args, version=self.version.text().strip() or None,
                                weight_format=self.weight_format.currentText().strip() or "checkpoint", gpus=gpus,
                                tensor_parallel=gpus if engine in TP_SETTING else None)
        except GpudeskError as exc:
            field = str(getattr(exc, "field", "") or "")
            if field and field == TP_SETTING.get(engine) and not self._typed(field):
                # the degree came from the GPU count field, not from a setting the user typed: name that field
                reason = getattr(exc, "reason", None) or error_text(exc)
                self._show_error(self.tr("GPU count: %1").replace("%1", reason))
            else:
                self._show_error(error_text(exc))
            return
        self.show_result(result)

    def _typed(self, setting: str) -> bool:
        """True when the engine settings field sets ``setting`` (NAME=VALUE, or the engine's --flag spelling)."""
        try:
            args = shlex.split(self.settings.text())
        except ValueError:
            return False
        names = {a.split("=", 1)[0].strip().lstrip("-").replace("-", "_") for a in args}
        return setting in names

    def _change_text(self, change: Change) -> str:
        """A smallest change as the window offers it: the GPU count field where the change is only the engine's
        tensor-parallel degree and the user did not type that setting (the command line keeps the engine's flag)."""
        engine = str(self.engine.currentData())
        setting = TP_SETTING.get(engine)
        if setting and set(change.settings) == {setting} and not self._typed(setting):
            return self.tr("more GPUs (GPU count %1)").replace("%1", str(change.settings[setting]))
        if change.weight_format:  # the same launch from the window's own field, not the CLI's flag
            return self.tr("%1 (for the weights, Weight format %2 does the same)").replace("%2", change.weight_format).replace("%1", change.text)
        return change.text

    def _show_error(self, message: str) -> None:
        self.result = None
        self.verdict.setText(self.tr("Cannot size this launch: %1").replace("%1", message))
        self.table.setRowCount(0)
        self.capacity.setText("")
        self.changes.setText("")
        self.command.clear()
        self.copy_button.setEnabled(False)

    def show_result(self, r: EngineFit) -> None:
        """Fill the page from ``r``."""
        self.result = r
        head = (self.tr("Fits: %1 on %2 x %3 (%4 GiB each).") if r.fits
                else self.tr("Does not fit: %1 on %2 x %3 (%4 GiB each)."))
        text = (head.replace("%1", engine_title(r)).replace("%2", str(r.gpus)).replace("%3", r.gpu_name)
                .replace("%4", f"{r.gpu_total_bytes / GIB:.2f}"))
        if not r.fits and r.reason:
            text += " " + sentence_start(r.reason)
        self.verdict.setText(text)
        rows = memory_rows(r)
        if r.host_bytes:
            rows.append((self.tr("Host (CPU) memory"), r.host_bytes))
        self.table.setRowCount(len(rows))
        for i, (label, value) in enumerate(rows):
            self.table.setItem(i, 0, QTableWidgetItem(label))
            item = QTableWidgetItem(f"{value / GIB:.2f}")
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.table.setItem(i, 1, item)
        lines = [self.tr("KV cache: %1 tokens in %2 blocks of %3.").replace("%1", f"{r.kv_cache_tokens:,}")
                 .replace("%2", f"{r.kv_cache_blocks:,}").replace("%3", str(r.block_tokens)),
                 self.tr("Maximum concurrency for %1 tokens per request: %2x.").replace("%1", f"{r.context_tokens:,}")
                 .replace("%2", f"{r.max_concurrency:.2f}"),
                 self.tr("Longest context at %1 concurrent requests: %2 tokens.").replace("%1", str(r.concurrency))
                 .replace("%2", f"{r.max_context_tokens:,}")]
        if "layers_offload" in r.extra:
            lines.append(self.tr("Layers offloaded to the GPU: %1 of %2.").replace("%1", str(r.extra["layers_offload"]))
                         .replace("%2", str(r.extra["layers_model"])))
        self.capacity.setText("\n".join(lines))
        if r.changes:
            self.changes.setText(self.tr("Smallest changes that make it fit:") + "\n" +
                                 "\n".join(f"• {self._change_text(c)}: {c.command}" for c in r.changes))
        else:
            self.changes.setText("")
        self.command.setText(r.command)
        self.command.setCursorPosition(0)
        self.copy_button.setEnabled(True)

    def copy_command(self) -> None:
        QGuiApplication.clipboard().setText(self.command.text())


def open_serve_fit_dialog(parent: QWidget | None = None, gpu_id: str | None = None,
                          inputs: LaunchInputs | None = None) -> QDialog:
    """Show a :class:`ServeFitPage` in a non-modal dialog (``gpu_id`` chosen when given, or every input filled from
    a plan's serving option and checked); returns the dialog."""
    dialog = QDialog(parent)
    dialog.setWindowTitle(QCoreApplication.translate("ServeFitPage", "Will it fit?"))
    page = ServeFitPage(dialog, gpu_id)
    if inputs is not None:
        page.prefill(inputs)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, dialog)
    buttons.rejected.connect(dialog.reject)
    layout = QVBoxLayout(dialog)
    layout.addWidget(page, 1)
    layout.addWidget(buttons)
    dialog.page = page  # type: ignore[attr-defined]
    dialog.resize(720, 640)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.show()
    return dialog
