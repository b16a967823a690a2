"""Declarative wizard fields: one :class:`FieldSpec` per answer, one editor widget per spec.

A spec names where its value lives in the requirement profile (a dotted key such as ``"model.params"``),
its display unit and the factor from the display unit to the stored unit (e.g. "TB" x 1e12 -> bytes,
"days" x 86400 -> seconds), its default and its valid range. Editors parse what the user types and report
problems as text that names the field ("Dataset size (TB): must be a number, got 'abc'").
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Qt, Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit, QWidget

from gpudesk.errors import GpudeskError

KINDS = ("int", "float", "text", "list", "choice", "bool")  # FieldSpec.kind values


@dataclass(frozen=True)
class FieldSpec:
    """One wizard answer.

    Attributes:
        key: dotted path in the profile dictionary ("data.total_bytes").
        label: translated label without the unit.
        kind: "int", "float", "text", "list" (comma-separated text <-> list of strings), "choice" or "bool".
        unit: display unit shown after the label ("TB", "days", "USD/kWh"), or "".
        scale: stored value = typed value x scale (1e12 for TB -> bytes). Numbers only.
        default: stored-unit default (None: optional field left empty).
        minimum, maximum: allowed range in display units (inclusive), or None.
        exclusive_minimum: the minimum itself is not allowed (sizes that must be > 0).
        choices: (stored value, translated text) pairs for "choice".
        tooltip: translated help, including where the default comes from.
        optional: empty is allowed (stored as None / left out).
    """

    key: str
    label: str
    kind: str = "float"
    unit: str = ""
    scale: float = 1.0
    default: Any = None
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False
    choices: tuple[tuple[Any, str], ...] = ()
    tooltip: str = ""
    optional: bool = False
    text_parser: Callable[[str], Any] | None = None

    # ``text_parser``: for text that is not a plain number (e.g. "13B" or "350M" for a parameter count); it
    # returns the stored value or raises ValueError with a message (a GpudeskError's ``reason``, the sentence
    # without its field, is shown after the field's caption).

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"FieldSpec {self.key}: kind {self.kind!r} is not one of {', '.join(KINDS)}")

    def caption(self) -> str:
        """The label with its unit: ``Dataset size (TB)``."""
        return f"{self.label} ({self.unit})" if self.unit else self.label


def format_number(value: float, kind: str) -> str:
    """Show a display-unit number without noise (``13``, ``0.75``, ``0.124439808``); 12 significant digits,
    so that typing back what is shown gives back the stored value."""
    if kind == "int" and float(value).is_integer():
        return f"{int(value):,}" if abs(value) >= 100_000 else str(int(value))  # 20,000,000 (commas are accepted back)
    return f"{value:.12g}"


_NUMBER_WITH_COMMAS = re.compile(r"^[+-]?[\d,]+(\.\d*)?$")  # digits and commas, e.g. "1,5" or "20,000,000"
_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(,\d{3})+(\.\d*)?$")


translate = QCoreApplication.translate  # called with literal texts only, so lupdate sees them


def parse_number(spec: FieldSpec, text: str) -> tuple[Any, str | None]:
    """Parse a typed number in display units -> (stored value or None, problem text naming the field)."""
    shown = text.strip()
    if "," in shown and _NUMBER_WITH_COMMAS.match(shown) and not _THOUSANDS.match(shown):
        return None, translate("PlanFields", "{0}: a comma only groups thousands (20,000,000); write decimals with a point, got \u201c{1}\u201d").format(
            spec.caption(), shown)
    stripped = shown.replace(",", "").replace("_", "")
    if not stripped:
        if spec.optional:
            return None, None
        return None, translate("PlanFields", "{0}: a value is required").format(spec.caption())
    try:
        number = float(stripped)
    except ValueError:
        if spec.text_parser is not None:
            try:
                return spec.text_parser(shown), None
            except ValueError as exc:
                return None, f"{spec.caption()}: {exc.reason if isinstance(exc, GpudeskError) else exc}"
        return None, translate("PlanFields", "{0}: must be a number, got \u201c{1}\u201d").format(spec.caption(), shown)
    if not math.isfinite(number):
        return None, translate("PlanFields", "{0}: must be a finite number, got \u201c{1}\u201d").format(spec.caption(), shown)
    if spec.kind == "int" and spec.scale == 1 and number != int(number):
        return None, translate("PlanFields", "{0}: must be a whole number, got {1}").format(spec.caption(), shown)
    if spec.minimum is not None:
        low = format_number(spec.minimum, spec.kind)
        if spec.exclusive_minimum and number <= spec.minimum:
            return None, translate("PlanFields", "{0}: must be more than {1}, got {2}").format(spec.caption(), low, shown)
        if not spec.exclusive_minimum and number < spec.minimum:
            return None, translate("PlanFields", "{0}: must be at least {1}, got {2}").format(spec.caption(), low, shown)
    if spec.maximum is not None and number > spec.maximum:
        high = format_number(spec.maximum, spec.kind)
        return None, translate("PlanFields", "{0}: must be at most {1}, got {2}").format(spec.caption(), high, shown)
    return to_stored(number, spec), None


def to_display(stored: float, spec: FieldSpec) -> float:
    """Stored value -> display-unit number (0.7 -> 70 %, 604800 s -> 7 days)."""
    if 0 < spec.scale < 1:
        return stored * round(1 / spec.scale)
    return stored / spec.scale


def to_stored(number: float, spec: FieldSpec) -> Any:
    """Display-unit number -> stored value. Fractional scales divide by their inverse (70 % -> 0.7 exactly)."""
    if 0 < spec.scale < 1:
        stored = number / round(1 / spec.scale)
    else:
        stored = number * spec.scale
    if spec.kind == "int":
        return int(round(stored))
    if float(stored).is_integer() and abs(stored) < 2**53:
        return float(stored)
    return stored


class FieldEditor(QObject):
    """Owns the widget for one :class:`FieldSpec`; emits ``changed`` on every edit (each keystroke)."""

    changed = Signal(str)
    """The user edited the field: the spec key of the field."""

    def __init__(self, spec: FieldSpec, parent: QWidget):
        super().__init__(parent)
        self.spec = spec
        self.widget: QWidget
        if spec.kind == "choice":
            combo = QComboBox(parent)
            for value, text in spec.choices:
                combo.addItem(text, value)
            longest = max((len(text) for _value, text in spec.choices), default=8)
            if longest > 28:  # long catalog names: keep the form narrow, show the full text in the popup
                combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
                combo.setMinimumContentsLength(28)
            combo.currentIndexChanged.connect(lambda _i: self.changed.emit(spec.key))
            self.widget = combo
        elif spec.kind == "bool":
            box = QCheckBox(parent)
            box.toggled.connect(lambda _b: self.changed.emit(spec.key))
            self.widget = box
        else:
            edit = QLineEdit(parent)
            edit.setClearButtonEnabled(spec.optional)
            if spec.kind in ("int", "float"):
                edit.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                edit.setFixedWidth(160)
            else:  # a path or a list: room for about 40 characters whether empty or filled
                edit.setMinimumWidth(edit.fontMetrics().horizontalAdvance("x" * 40))
            edit.textEdited.connect(lambda _t: self.changed.emit(spec.key))
            self.widget = edit
        self.problem: str | None = ""  # "" = unknown, forces the first set_problem(None) to apply
        self.widget.setObjectName(f"field:{spec.key}")
        self.widget.setToolTip(spec.tooltip)
        self.widget.setAccessibleName(spec.caption())
        self.set_value(spec.default)

    # -- values -------------------------------------------------------------------------------------------
    def set_value(self, value: Any) -> None:
        """Show a stored-unit value (None clears an optional field)."""
        spec = self.spec
        was_blocked = self.widget.blockSignals(True)
        try:
            if spec.kind == "choice":
                combo: QComboBox = self.widget  # type: ignore[assignment]
                index = combo.findData(value)
                if index < 0 and value is not None:
                    combo.addItem(str(value), value)
                    index = combo.count() - 1
                combo.setCurrentIndex(max(index, 0))
            elif spec.kind == "bool":
                self.widget.setChecked(bool(value))  # type: ignore[attr-defined]
            elif spec.kind == "text":
                self.widget.setText("" if value is None else str(value))  # type: ignore[attr-defined]
            elif spec.kind == "list":
                self.widget.setText(", ".join(value or []))  # type: ignore[attr-defined]
            elif isinstance(value, str):  # e.g. params = "13B" in a profile: shown as written, parsed on use
                self.widget.setText(value)  # type: ignore[attr-defined]
            else:
                text = "" if value is None else format_number(to_display(float(value), spec), spec.kind if spec.scale == 1 else "float")
                self.widget.setText(text)  # type: ignore[attr-defined]
            self.set_problem(None)
        finally:
            self.widget.blockSignals(was_blocked)

    def value(self) -> tuple[Any, str | None]:
        """(stored-unit value, problem text or None)."""
        spec = self.spec
        if spec.kind == "choice":
            return self.widget.currentData(), None  # type: ignore[attr-defined]
        if spec.kind == "bool":
            return self.widget.isChecked(), None  # type: ignore[attr-defined]
        text = self.widget.text()  # type: ignore[attr-defined]
        if spec.kind == "list":
            items = [part.strip() for part in text.split(",") if part.strip()]
            if not items and not spec.optional:
                return None, translate("PlanFields", "{0}: a value is required").format(spec.caption())
            return (items or None), None
        if spec.kind == "text":
            text = text.strip()
            if not text and not spec.optional:
                return None, translate("PlanFields", "{0}: a value is required").format(spec.caption())
            return (text or None), None
        return parse_number(spec, text)

    def type_text(self, text: str) -> None:
        """Replace the text as if typed (tests and quick mode); emits ``changed``."""
        self.widget.setText(text)  # type: ignore[attr-defined]
        self.changed.emit(self.spec.key)

    def set_problem(self, message: str | None) -> None:
        """Mark the widget (red frame and tooltip) while its value is unusable (restyled only on a change)."""
        if message == self.problem:
            return
        self.problem = message
        if message:
            self.widget.setStyleSheet("border: 1px solid #c62828;")
            self.widget.setToolTip(message + ("\n\n" + self.spec.tooltip if self.spec.tooltip else ""))
        else:
            self.widget.setStyleSheet("")
            self.widget.setToolTip(self.spec.tooltip)


def get_path(data: dict[str, Any], key: str) -> Any:
    """``get_path({"a": {"b": 1}}, "a.b") == 1``; None when a part is missing."""
    node: Any = data
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def set_path(data: dict[str, Any], key: str, value: Any) -> None:
    """Set ``data["a"]["b"] = value`` for key "a.b", creating tables on the way; None removes the key."""
    parts = key.split(".")
    node = data
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    if value is None:
        node.pop(parts[-1], None)
    else:
        node[parts[-1]] = value


@dataclass
class PageSpec:
    """One wizard page: the question it answers and its fields (cross-field rules are the planner's
    ``Requirement.validate``, whose errors the wizard shows on the named field)."""

    key: str
    title: str
    question: str
    fields: list[FieldSpec] = field(default_factory=list)
