"""Errors raised by the user store (all :class:`gpudesk.errors.GpudeskError`), and the conversion of sqlite3's
errors into them at the store's boundary. Each message says what is wrong and what to do."""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar, cast

from gpudesk.errors import GpudeskError
from gpudesk.i18n import _


class StoreError(GpudeskError):
    """Base class for user-database problems."""


class StoreNewerVersionError(StoreError):
    """The database was written by a newer gpudesk; it is left untouched."""


class StoreCorruptError(StoreError):
    """The file is not a readable SQLite database."""


class StoreLockedError(StoreError):
    """Another process holds a write lock for longer than the busy timeout."""


class StoreUnwritableError(StoreError):
    """The data folder or the database file cannot be written."""


class StoreFullError(StoreUnwritableError):
    """The disk (or the file system's quota) is full: nothing more can be written."""


def from_sqlite(exc: sqlite3.Error, what: str = "the gpudesk database") -> StoreError:
    """The store's own error for a sqlite3 error met while working on ``what``; the sqlite text is the detail."""
    text = str(exc).lower()
    remedy_folder = _("Set GPUDESK_DATA_DIR to another folder if this one cannot be fixed.")
    if "full" in text:
        return StoreFullError(_("The disk holding {what} is full; nothing more could be saved.").format(what=what), field=what,
                              detail=str(exc), remedy=_("Free some disk space; what was saved before stays readable."))
    if "locked" in text or "busy" in text:
        return StoreLockedError(_("{what} is locked by another process (another gpudesk window or a recorder).").format(what=what),
                                field=what, detail=str(exc), remedy=_("Close it and try again."))
    if "readonly" in text or "read-only" in text or "unable to open" in text or "disk i/o" in text:
        return StoreUnwritableError(_("Cannot write {what}.").format(what=what), field=what, detail=str(exc),
                                    remedy=_("Check its permissions.") + " " + remedy_folder)
    return StoreCorruptError(_("{what} cannot be read or written as expected; it may be damaged.").format(what=what), field=what,
                             detail=str(exc), remedy=_("Export what you can and move the file aside.") + " " + remedy_folder)


F = TypeVar("F", bound=Callable[..., Any])


def converts_sqlite_errors(func: F) -> F:
    """Decorator: sqlite3 errors raised by ``func`` come out as :class:`StoreError` subclasses."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except sqlite3.Error as exc:
            raise from_sqlite(exc) from exc

    return cast(F, wrapper)
