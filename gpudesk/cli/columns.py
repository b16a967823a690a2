"""Padding for terminal columns by display width: a CJK character takes two cells, so ``str.ljust`` (which counts
characters) leaves Chinese labels' numbers out of line. Widths from Unicode's East Asian Width property
(UAX #11, https://www.unicode.org/reports/tr11/): Wide and Fullwidth characters are two cells, combining marks none.
"""

from __future__ import annotations

import unicodedata


def display_width(text: str) -> int:
    """Terminal cells ``text`` takes: 2 per Wide/Fullwidth character, 0 per combining mark, else 1."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in ("W", "F") else 1
               for c in text)


def ljust_display(text: str, width: int) -> str:
    """``text`` padded with spaces to ``width`` terminal cells (unchanged when it is already as wide)."""
    return text + " " * max(0, width - display_width(text))
