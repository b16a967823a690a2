"""The root of every error gpudesk raises on purpose.

Each layer derives its own few types from :class:`GpudeskError` and converts foreign errors (``sqlite3``,
``OSError``, HTTP, parse errors) into them at its boundary, so that the UI and the CLI can show any of them the
same way: what was wrong, which field or input, and what the user can do about it.
"""

from __future__ import annotations

import errno

from gpudesk.i18n import N_, _, marked

# The reasons a user meets when naming a file, in words that can be translated; the C library's strerror is in
# the system's language (English on most installs), not the one gpudesk shows (errno(3), POSIX.1-2008).
_OS_REASONS: dict[int, str] = {
    errno.ENOENT: N_("the file or folder does not exist"),
    errno.EACCES: N_("permission denied"),
    errno.EPERM: N_("the operation is not permitted"),
    errno.EISDIR: N_("it is a folder"),
    errno.ENOTDIR: N_("a part of the path is not a folder"),
    errno.ENAMETOOLONG: N_("the name is too long"),
    errno.ELOOP: N_("too many levels of symbolic links"),
    errno.EROFS: N_("the file system is read-only"),
    errno.ENOSPC: N_("no space is left on the device"),
    errno.EDQUOT: N_("the disk quota is exceeded"),
    errno.EIO: N_("an input/output error on the device"),
    errno.EEXIST: N_("it already exists"),
    errno.EBUSY: N_("the device or resource is busy"),
    errno.EMFILE: N_("too many files are open"),
}


def os_error_reason(exc: OSError) -> str:
    """Why ``exc`` happened, in the user's language for the common ``errno`` values, else the system's text."""
    known = _OS_REASONS.get(exc.errno) if exc.errno is not None else None
    if known is not None:
        return marked(known)
    return exc.strerror or str(exc)


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
