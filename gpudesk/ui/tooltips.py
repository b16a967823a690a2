"""Tooltips that show outside text literally.

Qt renders a tooltip as rich text when it looks like HTML (``Qt::mightBeRichText``), so a process command line,
a GPU name or a recording name such as ``<img src=...>`` or ``<a href=...>`` would be interpreted. Every tooltip
that carries text from outside (NVML, /proc, the user's database, a dmon stream) goes through
:func:`plain_tooltip`: escaped, wrapped in one paragraph that keeps line breaks, so it can never be markup.
"""

from __future__ import annotations

import html


def plain_tooltip(text: str | None) -> str:
    """A tooltip string that shows ``text`` literally (markup in it is escaped); "" for no text."""
    if not text:
        return ""
    return "<p style='white-space:pre-wrap'>" + html.escape(text) + "</p>"
