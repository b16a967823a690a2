"""The row of filter widgets above the GPU table. Emits ``changed`` whenever a filter is edited."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QSpinBox, QVBoxLayout, QWidget

from gpudesk.catalog import GPU

MEMORY_LIMIT_GB = 1024


class FilterBar(QWidget):
    """Text search, vendor, architecture, form factor, memory range (GiB) and FP8 filters."""

    changed = Signal()
    """A vendor, architecture, form-factor, FP8 or memory (GiB) filter was edited. No arguments."""
    textChanged = Signal(str)
    """The search text was edited: the new text."""

    def __init__(self, gpus: list[GPU], parent: QWidget | None = None):
        super().__init__(parent)
        self.search = QLineEdit(self)
        self.search.setPlaceholderText(self.tr("Search name, architecture, notes…"))
        self.search.setClearButtonEnabled(True)
        self.search.setMinimumWidth(90)
        self.search.setToolTip(self.tr("Full-text search; every word must match the start of a word (Ctrl+F)"))
        self.vendor = self._combo(self.tr("All vendors"), sorted({g.vendor for g in gpus}))
        self.architecture = self._combo(self.tr("All architectures"), sorted({g.architecture for g in gpus}))
        self.form_factor = self._combo(self.tr("All form factors"), sorted({g.form_factor for g in gpus}))
        self.fp8 = _narrow_combo(self)
        self.fp8.addItem(self.tr("FP8: any"), None)
        self.fp8.addItem(self.tr("FP8: yes"), True)
        self.fp8.addItem(self.tr("FP8: no"), False)
        self.fp8.setToolTip(self.tr("Hardware FP8 tensor/matrix cores (Ada, Hopper, Blackwell, CDNA 3)"))
        self.memory_min = QSpinBox(self)
        self.memory_max = QSpinBox(self)
        for box, value in ((self.memory_min, 0), (self.memory_max, MEMORY_LIMIT_GB)):
            box.setRange(0, MEMORY_LIMIT_GB)
            box.setSuffix(" GiB")  # the datasheet's GB of GPU memory are binary (gpudesk.catalog.fields)
            box.setValue(value)
            box.setToolTip(self.tr("GPU memory range in GiB (the datasheet's GB of GPU memory are GiB)"))
        search_label = QLabel(self.tr("&Search:"), self)
        search_label.setBuddy(self.search)
        memory_label = QLabel(self.tr("&Memory:"), self)
        memory_label.setBuddy(self.memory_min)
        top = QHBoxLayout()
        top.addWidget(search_label)
        top.addWidget(self.search, 1)
        top.addWidget(memory_label)
        top.addWidget(self.memory_min)
        top.addWidget(QLabel("–", self))
        top.addWidget(self.memory_max)
        bottom = QHBoxLayout()
        for widget in (self.vendor, self.architecture, self.form_factor, self.fp8):
            bottom.addWidget(widget, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addLayout(bottom)
        self.search.textChanged.connect(self.textChanged)
        for combo in (self.vendor, self.architecture, self.form_factor, self.fp8):
            combo.currentIndexChanged.connect(self.changed)
        # The range cannot be inverted: each end bounds the other, so the view is never emptied by a typo.
        self.memory_min.valueChanged.connect(self.memory_max.setMinimum)
        self.memory_max.valueChanged.connect(self.memory_min.setMaximum)
        self.memory_min.valueChanged.connect(self.changed)
        self.memory_max.valueChanged.connect(self.changed)

    def _combo(self, all_text: str, values: list[str]) -> QComboBox:
        combo = _narrow_combo(self)
        combo.addItem(all_text, None)
        for value in values:
            combo.addItem(value, value)
        return combo

    def values(self) -> dict:
        """The non-text filters as keyword arguments for ``GpuFilterProxy.set_filters``."""
        low, high = self.memory_min.value(), self.memory_max.value()
        return {
            "vendor": self.vendor.currentData(),
            "architecture": self.architecture.currentData(),
            "form_factor": self.form_factor.currentData(),
            "memory_min_gb": float(low) if low > 0 else None,
            "memory_max_gb": float(high) if high < MEMORY_LIMIT_GB else None,
            "fp8": self.fp8.currentData(),
        }

    def reset(self) -> None:
        self.search.clear()
        for combo in (self.vendor, self.architecture, self.form_factor, self.fp8):
            combo.setCurrentIndex(0)
        self.memory_min.setValue(0)
        self.memory_max.setValue(MEMORY_LIMIT_GB)


def _narrow_combo(parent: QWidget) -> QComboBox:
    """A combo box that may shrink below its longest entry, so the window fits small screens."""
    combo = QComboBox(parent)
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(8)
    return combo
