"""Live memory preview: the per-GPU breakdown of the answers so far, against a chosen card's safe line.

Fed a requirement profile dictionary (what the wizard or quick mode holds) on every edit; the caller
debounces. One update = build the Requirement's model section, resolve the model shape (cached per model
answer, so a config.json is read once), one ``estimate_memory`` call and one chart redraw. Errors in the
answers are shown in the caption, naming the field; they never raise out of :meth:`update_from_profile`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel, QVBoxLayout, QWidget

from gpudesk.planner import PlanInputError, ProfileError, memory_workload, requirement_from_dict, resolve_model
from gpudesk.planner.document import PlanOption
from gpudesk.planner.memory_parts import memory_part_labels
from gpudesk.planner.workload import gpu_count_step, recompute_layers_problem
from gpudesk.sizing import Fit, MemoryEstimate, MemoryWorkload, SizingError, estimate_memory
from gpudesk.sizing.capacity import gpu_fit
from gpudesk.ui.plan.memory_chart import MemoryBarSpec, MemoryBreakdownChart

DEFAULT_CARD = "h100-sxm5"
PREVIEW_COUNTS = (1, 2, 4, 8, 16, 32, 64)


def part_names() -> dict[str, str]:
    """Translated names of the memory components: the core's wording (gpudesk.planner.memory_parts), so the legend
    names each part as the sheet and the CLI do."""
    return memory_part_labels()


class LivePreview(QWidget):
    """Card and GPU-count pickers over a :class:`MemoryBreakdownChart`.

    Signals:
        updated(float): emitted after each update with its duration in seconds.
    """

    updated = Signal(float)
    """The preview was redrawn: how long the update took (s)."""

    def __init__(self, catalog: Any, parent: QWidget | None = None, describe: Callable[[Exception], str] = str):
        super().__init__(parent)
        self.catalog = catalog
        self.describe = describe  # turns a PlanInputError into text naming the field by its label
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
        self.last_estimate: MemoryEstimate | None = None
        self.last_fit: Fit | None = None
        self.shown_option: PlanOption | None = None

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

    def show_option(self, candidate: PlanOption, changes: list[str], number: int = 1) -> None:
        """Draw a planned option's own memory (the plan's breakdown, computed with the settings the search chose)
        instead of the answers' estimate, so this chart, the results table, the header and the sheet show one
        number for the same option. Picking another card or count, or editing an answer, goes back to live."""
        breakdown = candidate.per_gpu_memory_breakdown_bytes
        if not breakdown:
            return
        self.set_card(candidate.gpu_id, candidate.count or 1)
        usable, safe = candidate.usable_memory_bytes, candidate.safe_line_bytes
        parts = [(k, float(v)) for k, v in breakdown.items()]
        label = f"{candidate.count} × {candidate.name}"
        caption = self.chart.default_caption([MemoryBarSpec(label, parts, usable, safe)])
        caption += "\n" + self.tr("Plan option #{0}, with the settings the search chose{1}.").format(
            number, ": " + "; ".join(changes) if changes else "")
        self.message.setText("")
        self.shown_option = candidate
        self.chart.set_bars([MemoryBarSpec(self.tr("per GPU"), parts, usable, safe)], caption)

    def fit_count_to(self, profile: dict[str, Any]) -> int | None:
        """Set the GPU count to the smallest preview count (up to ``operations.max_gpus``) at which the job fits
        under the current card's safe line with the most frugal allowed setting; keep the count when nothing
        fits or the profile cannot be read. Returns the count chosen, or None. Does not redraw (the caller
        does), so a loaded example does not open on "1 GPU, far over the safe line" when the plan needs 8."""
        gpu = self._gpu()
        if gpu is None:
            return None
        try:
            req = requirement_from_dict(profile)
            spec = self._spec(req)
            limit = req.operations.max_gpus or PREVIEW_COUNTS[-1]
            step = gpu_count_step(req)  # tensor parallel (x expert parallel): the layout's GPU group
            for count in (n for n in PREVIEW_COUNTS if n <= limit and n % step == 0):
                sharding, recompute = self.options(req, spec, count)[-1]
                estimate = estimate_memory(spec, memory_workload(req, gpus=count, sharding=sharding, recompute=recompute))
                if gpu_fit(estimate.device_need_bytes, gpu,
                       req.operations.safe_free_fraction).under_safe_line:
                    blocked = self.count.blockSignals(True)
                    try:
                        self.count.setCurrentIndex(self.count.findData(count))
                    finally:
                        self.count.blockSignals(blocked)
                    return count
        except (PlanInputError, ProfileError, SizingError):
            return None  # update_from_profile shows the problem
        return None

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

    def options(self, req: Any, spec: Any, gpus: int) -> list[tuple[str | None, str | None]]:
        """(sharding, recompute) settings to try, cheapest in time first: the answered ones, or for ``auto``
        the planner's candidates (gpudesk.planner.train_eval) ordered by recompute cost, then sharding."""
        m = req.model
        if m.mode == "inference":
            return [(None, None)]
        if m.sharding != "auto" or gpus == 1 or m.mode in ("lora", "qlora"):
            shardings = [m.sharding if m.sharding != "auto" else "ddp"]
        else:
            shardings = ["ddp", "zero1", "zero2", "zero3"]
        transformer = spec.is_transformer and m.activation_bytes_per_sample is None
        recomputes = (["none", "selective", "full"] if transformer else ["none"]) if m.recompute == "auto" else [m.recompute]
        return [(sh, rc) for rc in recomputes for sh in shardings]

    def update_from_profile(self, profile: dict[str, Any]) -> float:
        """Recompute and redraw from a profile dictionary; returns the seconds it took.

        ``auto`` sharding / recomputation: the first setting (least recomputation, then least sharding) whose
        estimate is under the card's safe line is shown, or the most frugal one when none is; the caption says
        which. The planner times every setting and may pick a faster one.
        """
        started = time.perf_counter()
        self._profile = profile
        self.shown_option = None
        gpus = int(self.count.currentData() or 1)
        gpu = self._gpu()
        try:
            req = requirement_from_dict(profile)
            spec = self._spec(req)
            gpus = self._allowed_count(req, gpus)
            layers = recompute_layers_problem(req, spec)  # the plan refuses it too (profile_problems)
            if layers is not None:
                raise layers
            chosen: tuple[MemoryEstimate, Fit | None, MemoryWorkload] | None = None
            for sharding, recompute in self.options(req, spec, gpus):
                workload = memory_workload(req, gpus=gpus, sharding=sharding, recompute=recompute)
                estimate = estimate_memory(spec, workload)
                fitted = gpu_fit(estimate.device_need_bytes, gpu, req.operations.safe_free_fraction) if gpu else None
                chosen = (estimate, fitted, workload)
                if fitted is None or fitted.under_safe_line:
                    break
        except (PlanInputError, ProfileError, SizingError) as exc:
            self.message.setText(self.tr("Memory preview paused: {0}").format(self.describe(exc)))
            self.last_estimate = None
            self.chart.set_bars([], " ")  # nothing of the previous case stays on the chart (a new plan starts blank)
            elapsed = time.perf_counter() - started
            self.updated.emit(elapsed)
            return elapsed
        assert chosen is not None, "options() offers at least one (sharding, recompute) setting"
        estimate, fitted, workload = chosen
        self.message.setText("")
        self.last_estimate, self.last_fit = estimate, fitted
        usable = fitted.usable_bytes if fitted else None
        safe = fitted.safe_line_bytes if fitted else None
        label = str(gpus) + " × " + (self.card.currentText() or self.tr("card"))
        caption = self.chart.default_caption([MemoryBarSpec(label, list(estimate.breakdown.items()), usable, safe)])
        if req.model.mode != "inference":
            caption += "\n" + self.tr("Sharding {0}, recomputation {1}{2}.").format(
                workload.sharding, workload.recompute,
                self.tr(" (chosen for 'auto')") if "auto" in (req.model.sharding, req.model.recompute) else "")
        if estimate.experts is not None:  # the expert split, as the CLI and the sheet name it (MemoryEstimate.experts)
            caption += "\n" + estimate.experts.headline()
        if fitted is not None and not fitted.under_safe_line:
            caption += "\n" + self.fitting_hint(req, spec, gpu, gpus)
        if spec.shape_is_guess:
            caption += "\n" + self.tr("The model shape is inferred from the parameter count (a guess).")
        self.chart.set_bars([MemoryBarSpec(self.tr("per GPU"), list(estimate.breakdown.items()), usable, safe)], caption)
        elapsed = time.perf_counter() - started
        self.updated.emit(elapsed)
        return elapsed

    def _allowed_count(self, req: Any, gpus: int) -> int:
        """``gpus``, or where the layout cannot run on it (expert parallel 8 on 1 GPU) the smallest count of at least
        ``gpus`` that it can, shown in the count box too (a multiple of :func:`gpu_count_step`; qa51 D8)."""
        step = gpu_count_step(req)
        if gpus % step == 0:
            return gpus
        count = next((n for n in PREVIEW_COUNTS if n >= gpus and n % step == 0), -(-gpus // step) * step)
        position = self.count.findData(count)
        blocked = self.count.blockSignals(True)
        try:
            if position < 0:
                self.count.addItem(str(count), count)
                position = self.count.count() - 1
            self.count.setCurrentIndex(position)
        finally:
            self.count.blockSignals(blocked)
        return count

    def fitting_hint(self, req: Any, spec: Any, gpu: Any, gpus: int) -> str:
        """Where the job would fit: the smallest larger GPU count of this card whose estimate, with the most
        frugal of the allowed settings (the answered ones, or ZeRO-3 and full recomputation for 'auto'), is
        under the safe line. One estimate per count keeps the hint cheap enough for every keystroke."""
        step = gpu_count_step(req)
        for count in (n for n in PREVIEW_COUNTS if n > gpus and n % step == 0):
            sharding, recompute = self.options(req, spec, count)[-1]
            estimate = estimate_memory(spec, memory_workload(req, gpus=count, sharding=sharding, recompute=recompute))
            if gpu_fit(estimate.device_need_bytes, gpu, req.operations.safe_free_fraction).under_safe_line:
                if req.model.mode == "inference":
                    return self.tr("Fits under the safe line on {0} of these cards.").format(count)
                return self.tr("Fits under the safe line on {0} of these cards (with {1}, recomputation {2}).").format(
                    count, sharding, recompute)
        if req.model.mode in ("lora", "qlora", "inference"):
            return self.tr("Does not fit this card at any count here; pick a larger card or a smaller format.")
        return self.tr("Does not fit up to {0} of these cards; try LoRA/QLoRA, offload or a larger card.").format(PREVIEW_COUNTS[-1])

    def _gpu(self) -> Any:
        gpu_id = self.card.currentData()
        if self.catalog is None or gpu_id is None:
            return None
        from gpudesk.planner.packages import device_of

        return device_of(self.catalog.gpu(gpu_id))  # a two-die package fits per die (MI250X, Ascend 910C)
