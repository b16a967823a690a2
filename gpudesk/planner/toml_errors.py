"""The reason a TOML profile does not parse, in the user's language.

Python's ``tomllib`` (Lib/tomllib/_parser.py, CPython 3.11-3.13) raises ``TOMLDecodeError`` with an English text of
the form ``"<message> (at line L, column C)"`` or ``"<message> (at end of document)"``; its messages are a fixed set
(``suffixed_err`` calls of the parser). :func:`toml_error_reason` splits off the position, translates the message
when it is one of that set (keeping its quoted part, e.g. the offending character) and the position; a message this
table does not know is shown as tomllib wrote it, so no detail is lost.
"""

from __future__ import annotations

import re

from gpudesk.i18n import N_, _, marked

_POSITION = re.compile(r"^(?P<message>.*) \(at (?:line (?P<line>\d+), column (?P<column>\d+)|(?P<end>end of document))\)$",
                       re.DOTALL)
# tomllib's fixed messages (no variable part).
_FIXED = {text: text for text in (
    N_("Cannot overwrite a value"),
    N_("Escaped character is not a Unicode scalar value"),
    N_("Expected '=' after a key in a key/value pair"),
    N_("Expected ']' at the end of a table declaration"),
    N_("Expected ']]' at the end of an array declaration"),
    N_("Invalid date or datetime"),
    N_("Invalid hex value"),
    N_("Invalid initial character for a key part"),
    N_("Invalid statement"),
    N_("Invalid value"),
    N_("Unclosed array"),
    N_("Unclosed inline table"),
    N_("Unescaped '\\' in a string"),
    N_("Unterminated string"),
)}
# tomllib's messages with one variable part (a key, a character, an expected token): prefix -> translatable form.
_WITH_PART = (
    ("Cannot declare ", N_("Cannot declare {part} twice"), " twice"),
    ("Cannot mutate immutable namespace ", N_("Cannot mutate immutable namespace {part}"), ""),
    ("Cannot redefine namespace ", N_("Cannot redefine namespace {part}"), ""),
    ("Duplicate inline table key ", N_("Duplicate inline table key {part}"), ""),
    ("Expected ", N_("Expected {part}"), ""),
    ("Found invalid character ", N_("Found invalid character {part}"), ""),
    ("Illegal character ", N_("Illegal character {part}"), ""),
)


def _message(text: str) -> str:
    if text in _FIXED:
        return marked(_FIXED[text])
    for prefix, form, suffix in _WITH_PART:
        if text.startswith(prefix) and text.endswith(suffix) and len(text) > len(prefix) + len(suffix):
            part = text[len(prefix):len(text) - len(suffix)] if suffix else text[len(prefix):]
            return marked(form).format(part=part)
    return text


def toml_error_reason(exc: Exception) -> str:
    """The parse error ``exc`` (a ``tomllib.TOMLDecodeError``) as a translated reason with its line and column."""
    text = str(exc)
    found = _POSITION.match(text)
    if not found:
        return _message(text)
    message = _message(found.group("message"))
    if found.group("end"):
        return _("{message} (at the end of the file)").format(message=message)
    return _("{message} (line {line}, column {column})").format(
        message=message, line=int(found.group("line")), column=int(found.group("column")))
