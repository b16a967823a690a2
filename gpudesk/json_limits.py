"""Bounds on untrusted JSON text, checked before ``json.loads`` sees it.

CPython's JSON decoder recurses once per nested list or object, so ``[[[[...]]]]`` a few thousand levels deep
raises RecursionError instead of a clean error; this check counts bracket depth in one linear pass first.
"""

from __future__ import annotations


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
