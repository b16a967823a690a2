"""Quick mode: the common case in four answers (model, method, sequence length, micro-batch) with the live
memory chart; "Continue in the full wizard" carries the answers over to the five questions."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QFormLayout, QHBoxLayout, QLabel, QPushButton, QSplitter, QVBoxLayout, QWidget

from gpudesk.ui.plan.fields import FieldEditor, set_path
from gpudesk.ui.plan.live_preview import LivePreview
from gpudesk.ui.plan.live_form import LivePreviewForm
from gpudesk.ui.plan.problem_text import describe_error, field_captions
from gpudesk.ui.plan.questions import build_pages

QUICK_KEYS = ("model.model", "model.params", "model.mode", "model.seq_len_tokens", "model.micro_batch_size")
DEBOUNCE_MS = 120


class QuickMode(LivePreviewForm, QWidget):
    """Signals: fullRequested(dict): open the full wizard with these answers (a partial profile)."""

    fullRequested = Signal(dict)
    """The "Continue in the full wizard" button was pressed: these answers as a partial profile dict."""

    def __init__(self, ctx: Any, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctx = ctx
        pages = build_pages(ctx.catalog)
        specs = {spec.key: spec for page in pages for spec in page.fields}
        self.captions = field_captions(pages)  # every page's captions: a problem may name a field asked later
        self.editors: dict[str, FieldEditor] = {}
        title = QLabel(self.tr("Quick check: does it fit?"), self)
        title.setStyleSheet("font-size: 15pt; font-weight: bold;")
        intro = QLabel(self.tr("Four answers for the common case. The chart shows memory per GPU against the chosen "
                               "card's safe line as you type. For a full plan (time, cost, servers), continue in the wizard."), self)
        intro.setWordWrap(True)
        form = QFormLayout()
        for key in QUICK_KEYS:
            editor = FieldEditor(specs[key], self)
            label = QLabel(specs[key].caption() + ":", self)
            label.setBuddy(editor.widget)
            form.addRow(label, editor.widget)
            editor.changed.connect(self._edited)
            self.editors[key] = editor
        if ctx.catalog is not None:
            self.editors["model.model"].set_value("llama-2-7b")
        self.problem = QLabel(self)
        self.problem.setTextFormat(Qt.TextFormat.PlainText)
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color: #7a0c0c; font-weight: bold;")
        self.full_button = QPushButton(self.tr("Continue in the &full wizard >"), self)
        self.full_button.setToolTip(self.tr("Open the five questions with these answers filled in"))
        self.full_button.clicked.connect(lambda: self.fullRequested.emit(self.profile()[0]))
        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.addWidget(title)
        left_layout.addWidget(intro)
        left_layout.addLayout(form)
        left_layout.addWidget(self.problem)
        left_layout.addStretch(1)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.full_button)
        left_layout.addLayout(row)
        self.preview = LivePreview(ctx.catalog, self, describe=self.describe_error)
        splitter = QSplitter(self)
        splitter.addWidget(left)
        splitter.addWidget(self.preview)
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 3)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self.update_preview)
        self.update_preview()

    def profile(self) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        data: dict[str, Any] = {}
        problems = []
        for key, editor in self.editors.items():
            value, problem = editor.value()
            if problem:
                problems.append((key, problem))
                continue
            set_path(data, key, value)
        if data.get("model", {}).get("mode") == "inference":
            data.setdefault("workload", {})["training_share"] = 0.0
        return data, problems

    def describe_error(self, exc: Exception) -> str:
        """The planner's message with each field's caption (the wizard's, for a field quick mode does not ask)
        instead of its internal key (``model.model``)."""
        return describe_error(exc, self.captions)

    def set_field_text(self, key: str, text: str) -> None:
        self.editors[key].type_text(text)

