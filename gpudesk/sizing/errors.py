"""Errors raised by the sizing formulas. Each message names the input that was wrong and what to do."""

from __future__ import annotations

from gpudesk.errors import GpudeskError


class SizingError(GpudeskError, ValueError):
    """An input to a sizing formula is missing, non-finite, zero/negative where it must be positive, or absurd.

    ``field`` names the offending input (e.g. ``"seq_len_tokens"``) so a form can highlight it; ``reason`` is the
    sentence about it without the field (``"must be positive, got 0"``), which a caller that names the input its own
    way (a CLI flag, a form label) shows after its own name. ``message`` and ``str()`` read ``"field: reason"``.
    ``detail`` holds the reason too, so :meth:`user_text` does not repeat it. Read these attributes; never split
    the text.
    """

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}", field=field, detail=message)
        self.reason = message


class ShapeError(SizingError):
    """A model shape could not be built (unknown catalog model, bad parameter count, inconsistent shape)."""


class ConfigFileError(ShapeError):
    """A local Hugging Face ``config.json`` is missing, unreadable, not JSON, or lacks the needed keys."""
