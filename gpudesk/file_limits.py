"""Open and read an input file the user named, bounded by size, before any parser sees it.

Every file the CLI or the window reads on the user's behalf (HF config.json, TOML profiles, dmon and dcgmi logs,
OOM logs, snapshots, thresholds, plan files) goes through :func:`open_input` / :func:`read_input`, so none of them
can be held or exhausted by what the path points at:

* it is opened with ``O_NONBLOCK``, so a FIFO (named pipe) with no writer does not block the open (POSIX
  ``open(2)``: "O_NONBLOCK ... an open() for reading-only shall return without delay" for a FIFO);
* what was opened (``fstat`` of the descriptor, not of the name: no race with a rename) must be a regular file;
  a folder, a FIFO, a socket, a character device (``/dev/zero``, ``/dev/urandom``, a terminal) or a block device
  is refused by name;
* its size must be within the reader's limit, and the read itself stops one byte past the limit (a file that
  grows while read is refused too), so memory is bounded by the limit whatever the file does.

Messages state the limit, in the units the user thinks in (``format_limit``).
"""

from __future__ import annotations

import fcntl
import os
import stat
from typing import Any, BinaryIO

from gpudesk.errors import GpudeskError, os_error_reason
from gpudesk.i18n import _
from gpudesk.units import format_limit


class InputFileError(GpudeskError):
    """A named input file cannot be read as one: not a regular file, larger than the reader's limit, or
    unreadable. ``field`` is the path."""


def _kind(mode: int) -> str | None:
    """What a non-regular file is, in words (None for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return _("a folder")
    if stat.S_ISFIFO(mode):
        return _("a named pipe (FIFO), which can be endless")
    if stat.S_ISCHR(mode):
        return _("a character device (such as /dev/zero or a terminal), which can be endless")
    if stat.S_ISBLK(mode):
        return _("a block device")
    if stat.S_ISSOCK(mode):
        return _("a socket")
    return _("not a regular file")


def display_path(path: str | os.PathLike[str]) -> str:
    """The path as text that can always be printed: bytes that are not valid in the file system's encoding
    (a name that is not UTF-8 decodes to lone surrogates) are shown as ``\\xNN``."""
    text = os.fspath(path)
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def open_input(path: str | os.PathLike[str], limit_bytes: int, what: str, *, check_size: bool = True) -> BinaryIO:
    """The opened regular file ``path`` (binary, positioned at 0) after checking its kind and size.

    ``what`` names the file's role in the message, lower case ("the profile", "the dcgmi log"). The caller must still
    read at most ``limit_bytes`` (:func:`read_input` does); the file is only checked when opened.
    ``check_size=False``: a larger file is accepted, for a caller that reads only its head or tail (at most
    ``limit_bytes``) and words the size advice itself.

    Raises:
        InputFileError: not a regular file, larger than ``limit_bytes``, or cannot be opened (with the reason).
    """
    shown = display_path(path)
    try:
        fd = os.open(os.fspath(path), os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise InputFileError(_("Cannot read {what} {path}: {reason}.").format(
            what=what, path=shown, reason=os_error_reason(exc)), field=shown) from exc
    try:
        info = os.fstat(fd)
        kind = _kind(info.st_mode)
        if kind is not None:
            raise InputFileError(_("{path} ({what}) is {kind}, not a regular file; give a saved file of at "
                                   "most {limit}.").format(what=what, path=shown, kind=kind,
                                                       limit=format_limit(limit_bytes)), field=shown)
        if check_size and info.st_size > limit_bytes:
            raise InputFileError(_("{path} ({what}) is {size} bytes; the limit is {limit}.").format(
                what=what, path=shown, size=info.st_size, limit=format_limit(limit_bytes)), field=shown)
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
        fcntl.fcntl(fd, fcntl.F_SETFL, flags & ~os.O_NONBLOCK)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bounded(handle: BinaryIO, limit_bytes: int, what: str, path: str | os.PathLike[str]) -> bytes:
    """Read the rest of ``handle``, refusing more than ``limit_bytes`` (one byte past the limit is read to know).

    Raises:
        InputFileError: more than ``limit_bytes`` (the file grew, or is not what its size said).
    """
    data = handle.read(limit_bytes + 1)
    if len(data) > limit_bytes:
        shown = display_path(path)
        raise InputFileError(_("{path} ({what}) grew past the limit of {limit} while it was read.").format(
            what=what, path=shown, limit=format_limit(limit_bytes)), field=shown)
    return data


def read_input(path: str | os.PathLike[str], limit_bytes: int, what: str) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit_bytes`` (see :func:`open_input`).

    Raises:
        InputFileError: not a regular file, too large, or unreadable; the message names the limit.
    """
    with open_input(path, limit_bytes, what) as handle:
        try:
            return read_bounded(handle, limit_bytes, what, path)
        except OSError as exc:
            shown = display_path(path)
            raise InputFileError(_("Cannot read {what} {path}: {reason}.").format(
                what=what, path=shown, reason=os_error_reason(exc)), field=shown) from exc


def read_stream(stream: Any, limit_bytes: int, what: str) -> bytes:
    """At most ``limit_bytes`` of standard input (its binary ``buffer`` when it has one, else the text stream,
    encoded as UTF-8): an endless or larger stream is refused once one byte past the limit has arrived, so memory
    stays bounded by the limit.

    Raises:
        InputFileError: more than ``limit_bytes`` arrived; the message names the limit.
    """
    binary = getattr(stream, "buffer", None)
    if binary is not None:
        chunk = binary.read(limit_bytes + 1)
        data = chunk if isinstance(chunk, bytes) else bytes(chunk)  # no copy of what is already bytes
    else:
        data = str(stream.read(limit_bytes + 1)).encode("utf-8", "surrogateescape")
    if len(data) > limit_bytes:
        raise InputFileError(_("{what} on standard input is larger than {limit}; save it to a file and give the "
                               "file instead.").format(what=what, limit=format_limit(limit_bytes)))
    return data


def read_input_text(path: str | os.PathLike[str], limit_bytes: int, what: str) -> str:
    """:func:`read_input` decoded as UTF-8 (undecodable bytes replaced)."""
    return read_input(path, limit_bytes, what).decode("utf-8", errors="replace")


__all__ = ["InputFileError", "display_path", "open_input", "read_bounded", "read_input",
           "read_input_text"]
