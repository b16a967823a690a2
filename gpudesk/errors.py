"""The root of every error gpudesk raises on purpose.

Each layer derives its own few types from :class:`GpudeskError` and converts foreign errors (``sqlite3``,
``OSError``, HTTP, parse errors) into them at its boundary, so that the UI and the CLI can show any of them the
same way: what was wrong, which field or input, and what the user can do about it.
"""

from __future__ import annotations

from gpudesk.i18n import _


class GpudeskError(Exception):
    """An error the user can act on.

    ``message`` says what was wrong (a whole sentence, already translated where the caller can);
    ``field`` names the input, file, setting or server it concerns; ``detail`` carries the underlying reason
    (the foreign error's text, say); ``remedy`` says what to do about it. ``reason`` is the message without the
    field's name where a subclass puts that name in front (``SizingError``, ``PlanInputError``: ``"field: reason"``),
    for a caller that names the field its own way (a form label, a CLI flag); elsewhere it is the message. Callers
    read these attributes and never take the text apart.
    """

    def __init__(
        self,
        message: str,
        *,
        field: str | None = None,
        detail: str | None = None,
        remedy: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.detail = detail
        self.remedy = remedy
        self.reason = message

    def user_text(self) -> str:
        """The message with its detail and remedy, as one plain-text paragraph for a message bar or a CLI."""
        detail = self.detail if self.detail and self.detail not in self.message else None
        # One template per combination, so a language can place the parts and its own punctuation.
        if detail and self.remedy:
            return _("{message} ({detail}) {remedy}").format(message=self.message, detail=detail, remedy=self.remedy)
        if detail:
            return _("{message} ({detail})").format(message=self.message, detail=detail)
        if self.remedy:
            return _("{message} {remedy}").format(message=self.message, remedy=self.remedy)
        return self.message
