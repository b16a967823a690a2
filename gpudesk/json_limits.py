"""Bounds on untrusted JSON text, checked before ``json.loads`` sees it.

CPython's JSON decoder recurses once per nested list or object, so ``[[[[...]]]]`` a few thousand levels deep
raises RecursionError instead of a clean error; this check counts bracket depth in one linear pass first.
"""

from __future__ import annotations

import json

from gpudesk.i18n import N_, marked

# The reasons CPython's JSON decoder gives (Lib/json/decoder.py, Lib/json/scanner.py, Modules/_json.c; 3.13 adds the
# trailing-comma ones): fixed English phrases, marked here so that they can be translated.
_JSON_REASONS = frozenset({
    N_("Expecting value"),
    N_("Expecting property name enclosed in double quotes"),
    N_("Expecting ':' delimiter"),
    N_("Expecting ',' delimiter"),
    N_("Unterminated string starting at"),
    N_("Invalid control character at"),
    N_("Invalid \\escape"),
    N_("Invalid \\uXXXX escape"),
    N_("Extra data"),
    N_("Illegal trailing comma before end of object"),
    N_("Illegal trailing comma before end of array"),
})


def json_error_reason(exc: json.JSONDecodeError) -> str:
    """Why ``json.loads`` refused the text, in the user's language (the decoder's own phrase when unknown)."""
    return marked(exc.msg) if exc.msg in _JSON_REASONS else exc.msg


def json_depth_ok(data: str | bytes, max_nesting: int) -> bool:
    """True when JSON brackets outside strings nest at most ``max_nesting`` deep (one linear pass)."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    if text.count("[") + text.count("{") <= max_nesting:  # C-speed shortcut for ordinary documents
        return True
    depth = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > max_nesting:
                return False
        elif ch in "]}":
            depth -= 1
    return True
