"""The one way the window turns an exception into text for the user: what was wrong and what to do about it.

A gpudesk error (:class:`gpudesk.errors.GpudeskError`) carries its message, the field it concerns, the underlying
detail and the remedy as attributes; :func:`error_text` shows them all (``user_text()``), so the remedy is never
dropped the way ``str(exc)`` drops it. A system error (``OSError``) reads as its reason and the file it names; any
other exception as its text, or its type when it has none. ``tests/ui/test_error_text.py`` fails when a view goes
back to ``str(exc)``.
"""

from __future__ import annotations

from gpudesk.errors import GpudeskError


def error_text(exc: BaseException) -> str:
    """Plain text for a message bar, a status line or a dialog: message, detail and remedy."""
    if isinstance(exc, GpudeskError):
        return exc.user_text()
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror
    text = str(exc)
    return text or type(exc).__name__
