"""Typed answer to "what binds?" (gpudesk.planner.binding): plain data the sheets, the JSON and the UI show."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True)
class PlanChange:
    """The smallest change to one control that gives an answer: ``field`` (requirement key), ``label`` (the control
    as the Plan wizard names it), ``current`` and ``value`` (in the field's units: GPUs, seconds, samples, tokens),
    ``text`` (one sentence)."""

    field: str
    label: str
    current: float | None
    value: float
    text: str


@dataclass(frozen=True)
class BindingConstraint:
    """The constraint that rules every option out: ``field`` / ``label`` of its control, ``text`` (one sentence),
    and ``changes``: the smallest change of each control that would give an answer, most direct first."""

    field: str
    label: str
    text: str
    changes: list[PlanChange] = dataclasses.field(default_factory=list)

    def sentence(self) -> str:
        """The binding constraint and its changes as one paragraph (plan warning)."""
        return " ".join([self.text] + [c.text for c in self.changes])
