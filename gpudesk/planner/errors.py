"""Errors raised by the planner. Each names the requirement field (``section.field``) that is wrong."""

from __future__ import annotations

from gpudesk.errors import GpudeskError


class PlannerError(GpudeskError):
    """Base class for planning problems."""


class PlanInputError(PlannerError, ValueError):
    """A requirement value is missing, out of range or contradicts another; ``field`` is ``"section.name"``."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}", field=field, detail=message)


class ProfileError(PlanInputError):
    """A TOML profile cannot be read, is not valid TOML, or holds unknown sections/keys or wrong types."""
