"""The five-question wizard: one page per question, Back/Next, validation that names the field, and the live
memory preview beside the pages (debounced; each update is one estimate and one redraw).

The wizard holds a requirement *profile dictionary* (the TOML shape of gpudesk.planner.requirement): the
fields edit their ``section.name`` keys; keys no field edits (price overrides, notes) are kept from the
profile that was loaded. :meth:`PlanWizard.requirement` turns it into a validated Requirement.
"""

from __future__ import annotations

import copy
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from gpudesk.planner import PlanInputError, ProfileError, Requirement, requirement_from_dict
from gpudesk.sizing import SizingError
from gpudesk.ui.plan.fields import FieldEditor, PageSpec, get_path, set_path
from gpudesk.ui.plan.live_preview import LivePreview
from gpudesk.ui.plan.live_form import LivePreviewForm
from gpudesk.ui.plan.problem_text import describe_error, field_captions, field_key
from gpudesk.ui.plan.questions import build_pages

DEBOUNCE_MS = 120


class WizardPage(QScrollArea):
    """One question: a title, the question, a form of fields and a line for the page's problems."""

    def __init__(self, spec: PageSpec, parent: QWidget | None = None):
        super().__init__(parent)
        self.spec = spec
        self.setWidgetResizable(True)
        body = QWidget(self)
        layout = QVBoxLayout(body)
        title = QLabel(spec.title, body)
        title.setStyleSheet("font-size: 15pt; font-weight: bold;")
        question = QLabel(spec.question, body)
        question.setWordWrap(True)
        layout.addWidget(title)
        layout.addWidget(question)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        # Every label above its field: with WrapLongRows only the rows with long labels wrapped, and the others put
        # their field (a text box at its small size hint) at the far right of the longest unwrapped label.
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapAllRows)
        self.editors: dict[str, FieldEditor] = {}
        section = None
        for field_spec in spec.fields:
            if field_spec.key.startswith("tco.") and section != "tco":
                heading = QLabel(self.tr("Cost assumptions (TCO); every default names its source in its tooltip"), body)
                heading.setStyleSheet("font-weight: bold; margin-top: 8px;")
                form.addRow(heading)
            section = field_spec.key.split(".", 1)[0]
            editor = FieldEditor(field_spec, body)
            label = QLabel(field_spec.caption() + ":", body)
            label.setBuddy(editor.widget)
            label.setToolTip(field_spec.tooltip)
            form.addRow(label, editor.widget)
            self.editors[field_spec.key] = editor
        layout.addLayout(form)
        layout.addStretch(1)
        self.setWidget(body)


class PlanWizard(LivePreviewForm, QWidget):
    """The wizard view.

    Signals:
        planRequested(object, dict): a validated Requirement and the profile dictionary it came from.
        quickRequested(): the user wants the quick mode back.
    """

    planRequested = Signal(object, dict)
    """Plan was pressed with valid answers: the Requirement and the profile dictionary it came from."""
    quickRequested = Signal()
    """The quick-mode button was pressed. No arguments."""

    def __init__(self, ctx: Any, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctx = ctx
        self._base: dict[str, Any] = {}
        self.editors: dict[str, FieldEditor] = {}
        self.page_of: dict[str, int] = {}
        self.pages: list[WizardPage] = []
        self.name_edit = QLineEdit(self)
        self.name_edit.setPlaceholderText(self.tr("Plan name"))
        self.name_edit.setText(self.tr("Untitled plan"))
        self.name_edit.setToolTip(self.tr("Name under which the plan is saved"))
        self.notes_edit = QLineEdit(self)
        self.notes_edit.setPlaceholderText(self.tr("Notes (optional): context, sources, who asked"))
        self.notes_edit.setToolTip(self.tr("Free text kept with the requirement and printed on the sheet"))
        self.steps = QListWidget(self)
        self.steps.setMaximumWidth(175)
        self.stack = QStackedWidget(self)
        page_specs = build_pages(ctx.catalog)
        self.captions = field_captions(page_specs)  # key -> the caption its row shows, for the problems line
        for index, spec in enumerate(page_specs):
            page = WizardPage(spec, self.stack)
            self.pages.append(page)
            self.stack.addWidget(page)
            self.steps.addItem(spec.title)
            for key, editor in page.editors.items():
                self.editors[key] = editor
                self.page_of[key] = index
                editor.changed.connect(self._edited)
        self.steps.currentRowChanged.connect(self._go)
        self.problem = QLabel(self)
        self.problem.setTextFormat(Qt.TextFormat.PlainText)
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color: #7a0c0c; font-weight: bold;")
        self.back_button = QPushButton(self.tr("< &Back"), self)
        self.next_button = QPushButton(self.tr("&Next >"), self)
        self.plan_button = QPushButton(self.tr("&Plan"), self)
        self.plan_button.setToolTip(self.tr("Check every answer and rank the configurations (runs in the background). "
                                            "Enter in a field goes to the next page; Ctrl+Enter plans from any page."))
        self.quick_button = QPushButton(self.tr("&Quick mode"), self)
        self.quick_button.setToolTip(self.tr("Back to the four-field quick mode"))
        self.back_button.clicked.connect(lambda: self.go_to(self.stack.currentIndex() - 1))
        self.next_button.clicked.connect(self.next_page)
        self.plan_button.clicked.connect(self.request_plan)
        self.quick_button.clicked.connect(self.quickRequested)
        self.plan_button.setDefault(True)
        self.preview = LivePreview(ctx.catalog, self, describe=self.describe_error)
        self.preview.setMaximumWidth(480)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self.update_preview)

        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        name_row = QHBoxLayout()
        name_label = QLabel(self.tr("Plan na&me:"), left)
        name_label.setBuddy(self.name_edit)
        name_row.addWidget(name_label)
        name_row.addWidget(self.name_edit, 1)
        notes_label = QLabel(self.tr("No&tes:"), left)
        notes_label.setBuddy(self.notes_edit)
        name_row.addWidget(notes_label)
        name_row.addWidget(self.notes_edit, 2)
        left_layout.addLayout(name_row)
        middle = QHBoxLayout()
        middle.addWidget(self.steps)
        middle.addWidget(self.stack, 1)
        left_layout.addLayout(middle, 1)
        left_layout.addWidget(self.problem)
        buttons = QHBoxLayout()
        buttons.addWidget(self.quick_button)
        buttons.addStretch(1)
        for button in (self.back_button, self.next_button, self.plan_button):
            buttons.addWidget(button)
        left_layout.addLayout(buttons)
        splitter = QSplitter(self)
        splitter.addWidget(left)
        splitter.addWidget(self.preview)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setSizes([800, 480])
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)
        self.go_to(0)
        self.update_preview()

    # -- navigation ---------------------------------------------------------------------------------------
    def keyPressEvent(self, event) -> None:  # noqa: N802 - Qt override
        """Enter (from a field: line edits and closed combo boxes pass it up) goes to the next page, or plans on
        the last page; Ctrl+Enter plans from any page. A page with a bad answer stays and names it."""
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if event.modifiers() & Qt.KeyboardModifier.ControlModifier or self.stack.currentIndex() == len(self.pages) - 1:
                self.request_plan()
            else:
                self.next_page()
            event.accept()
            return
        super().keyPressEvent(event)

    def go_to(self, index: int) -> None:
        index = max(0, min(index, len(self.pages) - 1))
        self.stack.setCurrentIndex(index)
        if self.steps.currentRow() != index:
            self.steps.setCurrentRow(index)
        self.back_button.setEnabled(index > 0)
        self.next_button.setEnabled(index < len(self.pages) - 1)

    def _go(self, index: int) -> None:
        if index >= 0 and index != self.stack.currentIndex():
            self.go_to(index)

    def current_index(self) -> int:
        return self.stack.currentIndex()

    def next_page(self) -> bool:
        """Go on when the current page's fields parse; otherwise show the first problem. Returns success."""
        problems = self.page_problems(self.stack.currentIndex())
        if problems:
            self.show_problem(problems[0][0], problems[0][1])
            return False
        self.show_problem(None, "")
        self.go_to(self.stack.currentIndex() + 1)
        return True

    # -- values -------------------------------------------------------------------------------------------
    def page_problems(self, index: int) -> list[tuple[str, str]]:
        """(key, message) for each field of page ``index`` whose text cannot be used."""
        out = []
        for key, editor in self.pages[index].editors.items():
            _value, problem = editor.value()
            editor.set_problem(problem)
            if problem:
                out.append((key, problem))
        return out

    def profile(self) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        """(profile dictionary, [(key, problem)]) from the loaded base profile and every field."""
        data = copy.deepcopy(self._base)
        data["name"] = self.name_edit.text().strip() or self.tr("Untitled plan")
        notes = self.notes_edit.text().strip()
        if notes:
            data["notes"] = notes
        else:
            data.pop("notes", None)
        problems = []
        for key, editor in self.editors.items():
            value, problem = editor.value()
            if problem:
                problems.append((key, problem))
                continue
            set_path(data, key, value)
        return data, problems

    def load_profile(self, data: dict[str, Any]) -> None:
        """Show a profile dictionary (fields not in it go back to the Requirement defaults)."""
        self._base = copy.deepcopy(data)
        self.name_edit.setText(str(data.get("name") or self.tr("Untitled plan")))
        self.notes_edit.setText(str(data.get("notes") or ""))
        self.name_edit.setCursorPosition(0)
        self.notes_edit.setCursorPosition(0)
        for key, editor in self.editors.items():
            value = get_path(data, key)
            editor.set_value(value if value is not None else editor.spec.default)
        self.show_problem(None, "")
        self.go_to(0)
        self.preview.fit_count_to(self.profile()[0])
        self.update_preview()

    def set_field_text(self, key: str, text: str) -> None:
        """Type ``text`` into a field as a user would (tests, quick mode hand-over)."""
        self.editors[key].type_text(text)

    def requirement(self) -> tuple[Requirement | None, dict[str, Any]]:
        """Validate everything; on a problem go to the page of the named field and show it there."""
        data, problems = self.profile()
        if problems:
            # Every unusable field keeps its red frame; the message names them all, the first gets the focus.
            for problem_key, problem in problems:
                self.editors[problem_key].set_problem(problem)
            key, message = problems[0]
            if len(problems) > 1:
                others = "; ".join(p for _k, p in problems[1:])
                message += "\n" + self.tr("%n more field(s) to fix: ", "", len(problems) - 1) + others
            self.show_problem(key, message)
            return None, data
        try:
            req = requirement_from_dict(data).validate()
        except (PlanInputError, ProfileError, SizingError) as exc:
            self.show_problem(self.field_key(exc), self.describe_error(exc))
            # Every field a problem names keeps a red frame, as for fields that do not parse; the first gets focus.
            for problem in getattr(exc, "problems", [])[1:]:
                if (other := self.field_key(problem)) is not None:
                    self.editors[other].set_problem(describe_error(problem, self.captions))
            return None, data
        self.show_problem(None, "")
        return req, data

    def describe_error(self, exc: Exception) -> str:
        """The planner's message with each field's caption in front of it (``Samples (million): ...``); several
        problems are numbered, each with its own field's caption."""
        return describe_error(exc, self.captions)

    def field_key(self, exc: Exception) -> str | None:
        """The wizard field an error names (the first problem's, when there are several)."""
        return field_key(exc, self.captions)

    def show_problem(self, key: str | None, message: str) -> None:
        self.problem.setText(message)
        for editor_key, editor in self.editors.items():
            if editor_key == key:
                editor.set_problem(message)
            elif key is not None:
                editor.set_problem(editor.value()[1])  # a field that still cannot be read stays marked
        if key in self.page_of:
            self.go_to(self.page_of[key])
            self.editors[key].widget.setFocus()

    def request_plan(self) -> None:
        req, data = self.requirement()
        if req is not None:
            self.planRequested.emit(req, data)

