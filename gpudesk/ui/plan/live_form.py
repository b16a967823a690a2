"""What Quick mode and the wizard share: an edited answer is checked, and the live chart is refreshed (debounced).

A class using :class:`LivePreviewForm` provides ``editors`` (key -> field editor), ``problem`` (a QLabel),
``_timer`` (the debounce QTimer, connected to :meth:`update_preview`), ``preview`` (the live chart) and
``profile()`` (the answers as a profile dict and the list of problems).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QLabel

from gpudesk.ui.plan.fields import FieldEditor
from gpudesk.ui.plan.live_preview import LivePreview
from gpudesk.ui.plan.questions import keep_one_model_source


class LivePreviewForm:
    """Mixin for the Plan forms with a live memory preview."""

    # provided by the class using the mixin (declared here for the type checker only)
    editors: dict[str, FieldEditor]
    problem: QLabel
    _timer: QTimer
    preview: LivePreview
    profile: Callable[[], tuple[dict[str, Any], list[tuple[str, str]]]]

    def _edited(self, key: str) -> None:
        editor = self.editors[key]
        value, problem = editor.value()
        keep_one_model_source(self.editors, key, value)
        editor.set_problem(problem)
        self.problem.setText(problem or "")
        self._timer.start()

    def update_preview(self) -> float:
        """Recompute the live chart now (the debounce timer calls this); returns seconds taken."""
        data, _problems = self.profile()
        return self.preview.update_from_profile(data)

    def stop_timers(self) -> None:
        """Stop the debounce timer (on window close)."""
        self._timer.stop()
