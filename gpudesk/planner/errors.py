"""Errors raised by the planner. Each names the requirement field (``section.field``) that is wrong."""

from __future__ import annotations

from gpudesk.errors import GpudeskError
from gpudesk.i18n import _, ngettext


class PlannerError(GpudeskError):
    """Base class for planning problems."""


class PlanInputError(PlannerError, ValueError):
    """A requirement value is missing, out of range or contradicts another; ``field`` is ``"section.name"``.

    ``reason`` is the sentence without the field, for a caller that names the field its own way (a form label, a
    CLI flag); ``message`` and ``str()`` read ``"section.name: reason"``; ``detail`` holds the reason too. Read these
    attributes; never split the text.
    """

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}", field=field, detail=message)
        self.reason = message


class PlanInputErrors(PlanInputError):
    """Several problems in one requirement, reported at once; ``problems`` lists them most fundamental first
    (model, mode, then sizes) and ``field`` is the first one's."""

    def __init__(self, problems: list[PlanInputError]):
        self.problems = list(problems)
        first = self.problems[0]
        # Each problem loses its own closing stop (ASCII or the translation's full-width one); the list separator and
        # the closing stop belong to the sentence, so they are translated with it.
        items = [_("({index}) {problem}").format(index=i, problem=str(p).rstrip(".。"))
                 for i, p in enumerate(self.problems, 1)]
        # Translators: the separator between the numbered problems of one sentence ("(1) ...; (2) ...").
        listed = _("; ").join(items)
        text = ngettext("{n} problem: {listed}.", "{n} problems: {listed}.", len(self.problems)).format(
            n=len(self.problems), listed=listed)
        super().__init__(first.field or "profile", text)
        self.message = text
        self.args = (self.message,)


class ProfileError(PlanInputError):
    """A TOML profile cannot be read, is not valid TOML, or holds unknown sections/keys or wrong types."""
