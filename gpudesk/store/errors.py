"""Errors raised by the user store, and the one place that turns ``sqlite3`` errors into them.

Every public function of ``gpudesk.store`` raises only these types (:func:`converts_sqlite_errors`), decided by
SQLite's result code (https://www.sqlite.org/rescode.html), never by the text of the message.
"""

from __future__ import annotations

import errno
import functools
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import ParamSpec, TypeVar

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
    """The disk (or the file system's quota) is full: nothing more can be written (SQLITE_FULL)."""


class DiagnosisStoreError(StoreError):
    """A diagnosis saved in the user store cannot be read back (written by a newer gpudesk, or damaged)."""


def _full_error(where: str, field: str | None, detail: str) -> StoreFullError:
    return StoreFullError(
        _("{where} cannot grow: the disk (or the quota) is full; nothing more could be saved.").format(where=where),
        field=field, detail=detail,
        remedy=_("Free some space on that disk (or set GPUDESK_DATA_DIR to a folder on another disk); what was "
                 "saved before stays readable."),
    )


_LOCKED_CODES = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})
_UNWRITABLE_CODES = frozenset({sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM,
                               sqlite3.SQLITE_IOERR})
_CORRUPT_CODES = frozenset({sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT})


def translate_sqlite_error(exc: sqlite3.Error, target: Path | str | None = None) -> StoreError:
    """The store error for ``exc``, chosen by its primary SQLite result code (extended codes masked to 8 bits)."""
    where = str(target) if target is not None else _("The gpudesk database")
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    if primary in _LOCKED_CODES:
        return StoreLockedError(
            _("{where} is locked by another process (another gpudesk window or a recorder). Close it and try again."
              ).format(where=where),
            field=str(target) if target is not None else None, detail=str(exc),
        )
    if primary == sqlite3.SQLITE_FULL:
        return _full_error(where, str(target) if target is not None else None, str(exc))
    if primary in _UNWRITABLE_CODES:
        return StoreUnwritableError(
            _("Cannot write {where}: {reason}. Check its permissions or set GPUDESK_DATA_DIR.").format(
                where=where, reason=exc),
            field=str(target) if target is not None else None, detail=str(exc),
        )
    if primary in _CORRUPT_CODES:
        return StoreCorruptError(
            _("{where} is not a readable gpudesk database ({reason}). It was left untouched. Run 'gpudesk store "
              "recover' to copy every readable row into a new database file, then move the damaged one aside; or "
              "set GPUDESK_DATA_DIR to another folder to start afresh.").format(where=where, reason=exc),
            field=str(target) if target is not None else None, detail=str(exc),
        )
    return StoreError(_("{where}: {reason}").format(where=where, reason=exc), field=str(target) if target is not None else None, detail=str(exc))


# errno values of a full disk or an exhausted quota (OSError raised by a write outside SQLite)
_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})


def translate_os_error(exc: OSError, target: Path | str | None = None) -> StoreUnwritableError:
    """The store error for an ``OSError`` met writing ``target``, chosen by its errno: ENOSPC/EDQUOT is
    :class:`StoreFullError`, anything else :class:`StoreUnwritableError`."""
    where = str(target) if target is not None else _("The gpudesk database")
    field = str(target) if target is not None else None
    reason = exc.strerror or str(exc)
    if exc.errno in _FULL_ERRNOS:
        return _full_error(where, field, reason)
    return StoreUnwritableError(
        _("Cannot write {where}: {reason}. Check its permissions or set GPUDESK_DATA_DIR.").format(
            where=where, reason=reason),
        field=field, detail=str(exc),
    )


def store_error_for(exc: BaseException, target: Path | str | None) -> StoreError:
    """The store error naming ``target`` for a failure met reading or writing it: a ``sqlite3.Error`` (by result
    code), an ``OSError`` (by errno), or a :class:`StoreError` raised by a store function that did not know the
    file (translated again from its ``sqlite3`` cause, so the message names the file)."""
    if isinstance(exc, sqlite3.Error):
        return translate_sqlite_error(exc, target)
    if isinstance(exc, OSError):
        return translate_os_error(exc, target)
    if isinstance(exc, StoreError):
        cause = exc.__cause__
        if target is not None and exc.field is None and isinstance(cause, sqlite3.Error):
            return translate_sqlite_error(cause, target)
        return exc
    raise TypeError(f"not a store failure: {exc!r}")


P = ParamSpec("P")
R = TypeVar("R")


def converts_sqlite_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Let ``func`` raise store errors only: any ``sqlite3.Error`` becomes the matching :class:`StoreError`."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except sqlite3.Error as exc:
            raise translate_sqlite_error(exc) from exc

    return wrapper
