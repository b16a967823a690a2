"""Live memory preview: the per-GPU breakdown of the answers so far, against a chosen card's safe line.

Fed a requirement profile dictionary (what the wizard or quick mode holds) on every edit; the caller
debounces. One update = build the Requirement's model section, resolve the model shape (cached per model
answer, so a config.json is read once), one ``estimate_memory`` call and one chart redraw. Errors in the
answers are shown in the caption, naming the field; they never raise out of :meth:`update_from_profile`.
"""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel, QSpinBox, QVBoxLayout, QWidget

from gpudesk.planner import PlanInputError, ProfileError, memory_workload, requirement_from_dict, resolve_model
from gpudesk.sizing import SizingError, estimate_memory, fit
from gpudesk.ui.plan.memory_chart import MemoryBarSpec, MemoryBreakdownChart
from gpudesk.ui.plan.units import format_gib

DEFAULT_CARD = "h100-sxm5"
PREVIEW_COUNTS = (1, 2, 4, 8, 16, 32, 64)


def part_names() -> dict[str, str]:
    """Translated names of the memory components (gpudesk.sizing.estimate.COMPONENT_ORDER)."""
    from PySide6.QtCore import QCoreApplication

    def t(text: str) -> str:
        return QCoreApplication.translate("PlanMemoryParts", text)

    return {
        "weights": t("Weights"),
        "master_weights": t("FP32 master weights"),
        "gradients": t("Gradients"),
        "optimizer_states": t("Optimizer states"),
        "lora_adapters": t("LoRA adapters"),
        "activations": t("Activations"),
        "logits": t("Logits and loss"),
        "kv_cache": t("KV cache"),
        "prefill_workspace": t("Prefill workspace"),
        "gathered_layers": t("Gathered layers (ZeRO-3)"),
        "cuda_context": t("CUDA context"),
        "framework_overhead": t("NCCL / runtime"),
        "fragmentation": t("Fragmentation headroom"),
    }


class LivePreview(QWidget):
    """Card and GPU-count pickers over a :class:`MemoryBreakdownChart`.

    Signals:
        updated(float): emitted after each update with its duration in seconds.
    """

    updated = Signal(float)

    def __init__(self, catalog: Any, parent: QWidget | None = None):
        super().__init__(parent)
        self.catalog = catalog
        self._spec_cache: dict[tuple, Any] = {}
        self._profile: dict[str, Any] | None = None
        self.card = QComboBox(self)
        self.card.setToolTip(self.tr("The card whose usable memory and safe line the bars are drawn against"))
        if catalog is not None:
            for gpu in catalog.gpus():
                self.card.addItem(gpu.name, gpu.id)
            index = self.card.findData(DEFAULT_CARD)
            self.card.setCurrentIndex(max(index, 0))
        self.count = QComboBox(self)
        for n in PREVIEW_COUNTS:
            self.count.addItem(str(n), n)
        self.count.setToolTip(self.tr("GPUs the job is spread over (sharding as answered; ZeRO-3 when 'auto' and more than one GPU)"))
        self.card.currentIndexChanged.connect(lambda _i: self.refresh())
        self.count.currentIndexChanged.connect(lambda _i: self.refresh())
        form = QFormLayout()
        form.addRow(self.tr("Card:"), self.card)
        form.addRow(self.tr("GPUs:"), self.count)
        title = QLabel(self.tr("Memory per GPU (live)"), self)
        title.setStyleSheet("font-weight: bold;")
        self.chart = MemoryBreakdownChart(self, part_names())
        self.chart.setMinimumHeight(260)
        self.message = QLabel(self)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #7a0c0c;")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(title)
        layout.addLayout(form)
        layout.addWidget(self.chart, 1)
        layout.addWidget(self.message)
        self.last_estimate = None
        self.last_fit = None

    def set_card(self, gpu_id: str, count: int | None = None) -> None:
        """Select a card (and GPU count) without waiting for the user, e.g. the plan's top candidate."""
        index = self.card.findData(gpu_id)
        if index >= 0:
            self.card.setCurrentIndex(index)
        if count is not None:
            position = self.count.findData(count)
            if position < 0:
                self.count.addItem(str(count), count)
                position = self.count.count() - 1
            self.count.setCurrentIndex(position)

    def refresh(self) -> None:
        if self._profile is not None:
            self.update_from_profile(self._profile)

    def _spec(self, req: Any) -> Any:
        m = req.model
        key = (m.model, m.params, m.config_path)
        spec = self._spec_cache.get(key)
        if spec is None:
            spec = resolve_model(m, self.catalog)
            if len(self._spec_cache) > 64:
                self._spec_cache.clear()
            self._spec_cache[key] = spec
        return spec

    def update_from_profile(self, profile: dict[str, Any]) -> float:
        """Recompute and redraw from a profile dictionary; returns the seconds it took."""
        started = time.perf_counter()
        self._profile = profile
        gpus = int(self.count.currentData() or 1)
        try:
            req = requirement_from_dict(profile)
            spec = self._spec(req)
            sharding = None
            if req.model.sharding == "auto":
                sharding = "zero3" if gpus > 1 else "ddp"
            estimate = estimate_memory(spec, memory_workload(req, gpus=gpus, sharding=sharding))
        except (PlanInputError, ProfileError, SizingError) as exc:
            self.message.setText(self.tr("Memory preview paused: {0}").format(str(exc)))
            self.last_estimate = None
            elapsed = time.perf_counter() - started
            self.updated.emit(elapsed)
            return elapsed
        self.message.setText("")
        self.last_estimate = estimate
        label = str(gpus) + " × " + (self.card.currentText() or self.tr("card"))
        usable = safe = None
        gpu = self._gpu()
        if gpu is not None:
            try:
                self.last_fit = fit(estimate.total_bytes, gpu.memory_bytes, gpu.memory_type, req.operations.safe_free_fraction)
                usable, safe = self.last_fit.usable_bytes, self.last_fit.safe_line_bytes
            except SizingError as exc:
                self.message.setText(str(exc))
        caption = self.chart.default_caption([MemoryBarSpec(label, list(estimate.breakdown.items()), usable, safe)])
        if spec.shape_is_guess:
            caption += "\n" + self.tr("The model shape is inferred from the parameter count (a guess).")
        self.chart.set_bars([MemoryBarSpec(self.tr("per GPU"), list(estimate.breakdown.items()), usable, safe)], caption)
        elapsed = time.perf_counter() - started
        self.updated.emit(elapsed)
        return elapsed

    def _gpu(self) -> Any:
        gpu_id = self.card.currentData()
        if self.catalog is None or gpu_id is None:
            return None
        return self.catalog.gpu(gpu_id)

    def total_text(self) -> str:
        return format_gib(self.last_estimate.total_bytes) if self.last_estimate else ""
