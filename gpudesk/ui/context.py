"""What every tab receives: the catalog, the user store and how to show a message. Passed explicitly."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


def _ignore_notice(text: str, level: str = "info") -> None:
    """The default ``notify``: a context without a window shows no notices."""


def _ignore_retract(text: str) -> None:
    """The default ``retract``: nothing is shown, so nothing is withdrawn."""


@dataclass
class AppContext:
    """Shared services, created once by the main window (GUI thread).

    Attributes:
        catalog: the opened ``gpudesk.catalog.Catalog``, or None when it could not be opened.
        store: the user ``sqlite_utils.Database`` (GUI-thread connection), or None when unavailable.
        problems: messages about what could not be opened, shown once at start-up.
        notify: ``notify(text, level)`` shows a non-blocking message; level is "info", "warning" or "error".
        retract: ``retract(text)`` withdraws a message that ``notify`` showed, if it is still the one shown (its
            cause is gone).
    """

    catalog: Any = None
    store: Any = None
    problems: list[str] = field(default_factory=list)
    notify: Callable[[str, str], None] = _ignore_notice
    retract: Callable[[str], None] = _ignore_retract
