"""Settings page for the findings' rule thresholds: one field per threshold, grouped as the rules are, with the
unit beside each; Save writes only the changed values with the file's version, Defaults restores them.

Self-contained: it reads and writes through ``gpudesk.telemetry.rules.thresholds`` (a JSON file beside the user
store, or the path given); ``saved(Thresholds)`` tells the owner to re-run the rules.
"""

from __future__ import annotations

from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from gpudesk.errors import GpudeskError
from gpudesk.telemetry.rules.threshold_labels import THRESHOLD_LABELS
from gpudesk.telemetry.rules.thresholds import (
    Thresholds,
    load_thresholds,
    save_thresholds,
)

MAX_VALUE = 1e6
# shown in display units (DESIGN.md: GiB binary, GB/s decimal), stored in the core's bytes and bytes/s
DISPLAY = {"bytes": (float(2**30), "GiB"), "bytes/s": (1e9, "GB/s")}


class ThresholdsEditor(QWidget):
    saved = Signal(object)
    """The thresholds were saved to the file: the saved Thresholds."""

    def __init__(self, path: Path | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.path = path
        self.fields: dict[str, QDoubleSpinBox | QSpinBox] = {}
        self.scales: dict[str, float] = {}
        content = QWidget()
        column = QVBoxLayout(content)
        groups: dict[str, QFormLayout] = {}
        types = {f.name: f.type for f in fields(Thresholds)}
        for name, (label, unit, group) in THRESHOLD_LABELS.items():
            form = groups.get(group)
            if form is None:
                box = QGroupBox(group)
                form = groups[group] = QFormLayout(box)
                column.addWidget(box)
            editor: QDoubleSpinBox | QSpinBox
            if types[name] in ("int", int):
                editor = QSpinBox()
                editor.setRange(0, 1_000_000)
            else:
                editor = QDoubleSpinBox()
                editor.setRange(0.0, MAX_VALUE)
                editor.setStepType(QAbstractSpinBox.StepType.AdaptiveDecimalStepType)
            scale, shown = DISPLAY.get(unit, (1.0, unit))
            self.scales[name] = scale
            if isinstance(editor, QDoubleSpinBox):
                editor.setDecimals(3 if not unit or scale != 1.0 else 1)
            if shown:
                editor.setSuffix(f" {shown}")
            editor.setAccessibleName(label)
            editor.setObjectName(name)
            form.addRow(label, editor)
            self.fields[name] = editor
        column.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(content)
        self.status = QLabel()
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # error texts carry file names from outside
        self.save_button = QPushButton(self.tr("&Save"))
        self.defaults_button = QPushButton(self.tr("&Defaults"))
        # Enter in a field saves (Save is the default button); Defaults is never pressed by Enter, which in a
        # dialog would otherwise wipe every edit (QPushButton is auto-default there).
        self.save_button.setDefault(True)
        self.defaults_button.setAutoDefault(False)
        self.save_button.clicked.connect(self.save)
        self.defaults_button.clicked.connect(lambda: self.show_values(Thresholds()))
        buttons = QHBoxLayout()
        buttons.addWidget(self.status, 1)
        buttons.addWidget(self.defaults_button)
        buttons.addWidget(self.save_button)
        layout = QVBoxLayout(self)
        layout.addWidget(scroll, 1)
        layout.addLayout(buttons)
        try:
            self.show_values(load_thresholds(self.path))
        except GpudeskError as exc:
            self.show_values(Thresholds())
            self.status.setText(exc.user_text())

    def show_values(self, th: Thresholds) -> None:
        for name, editor in self.fields.items():
            value = getattr(th, name) / self.scales[name]
            if isinstance(editor, QSpinBox):
                editor.setValue(int(value))
            else:
                editor.setValue(value)

    def values(self) -> Thresholds:
        values: dict[str, Any] = {}
        for name, editor in self.fields.items():
            scale = self.scales[name]
            values[name] = editor.value() if scale == 1.0 else float(round(editor.value() * scale))
        return replace(Thresholds(), **values)

    def save(self) -> None:
        th = self.values()
        try:
            where = save_thresholds(th, self.path)
        except GpudeskError as exc:
            self.status.setText(exc.user_text())
            return
        changed = len(th.changed())
        self.status.setText(self.tr("Saved {n} changed threshold(s) to {file}.").format(n=changed, file=where.name))
        self.saved.emit(th)


class ThresholdsDialog(QDialog):
    """The editor in a window of its own (Monitor tab, Findings: "Rule thresholds…"); Close leaves it."""

    def __init__(self, parent: QWidget | None = None, path: Path | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Rule thresholds"))
        self.editor = ThresholdsEditor(path, self)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        close.rejected.connect(self.reject)
        for button in close.buttons():
            if isinstance(button, QPushButton):
                button.setAutoDefault(False)  # Enter saves (the editor's default button); it does not close
        layout = QVBoxLayout(self)
        layout.addWidget(self.editor, 1)
        layout.addWidget(close)
        self.resize(640, 720)
