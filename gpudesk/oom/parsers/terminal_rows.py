"""A paste copied from a terminal whose rows came back padded with spaces instead of line breaks.

A terminal (or a multiplexer pane, or a web console) wraps a long line at a fixed width W and, when the rows are
copied as a block, fills each row up to the window's width with spaces: the line "Tried to allocate 50.00 MiB" cut at
column W reads "Tried to allocat<200 spaces>e 50.00 MiB", and its phrases are lost to every parser
(noonghunna/club-3090#41: rows of 80 characters padded to about 300). The rows are told apart from a table's or a log's
alignment by their lengths: every row but the last of a line is exactly W characters long, or W - 1 when the
character at the cut was a space and the copy folded it into the padding. Joining the rows back (with that one space
where a row is one short) restores the line the program printed.

:func:`unwrap` gives the restored text, or None when the text has no such rows: fewer than two padded cuts, rows
shorter than :data:`MIN_ROW_CHARS`, or lengths that are not one width.
"""

from __future__ import annotations

import re
from collections import Counter

# A row's padding: a run of spaces this long inside a line (column alignment in a table or a log uses fewer), and the
# line break plus the few spaces of indentation a copy may put after it.
_PADDING = re.compile(r" {16,}(?:\n {0,4})?")
# Rows narrower than this are not a terminal's width.
MIN_ROW_CHARS = 40
# At least this many padded cuts: one long run of spaces alone is alignment, not rows.
MIN_CUTS = 2


def unwrap(text: str) -> str | None:
    """The text with its padded terminal rows joined back into lines, or None (module docstring)."""
    cuts = list(_PADDING.finditer(text))
    if len(cuts) < MIN_CUTS:
        return None
    starts = [0] + [m.end() for m in cuts]
    rows = [text[starts[i]:cuts[i].start()] for i in range(len(cuts))]
    # The first row may begin mid-line (after an earlier line break): measure it from that break.
    rows[0] = rows[0].rsplit("\n", 1)[-1]
    width, seen = Counter(len(row) for row in rows).most_common(1)[0]
    if width < MIN_ROW_CHARS or seen < 2 or any(len(row) not in (width, width - 1) for row in rows):
        return None
    out = [text[:cuts[0].start()]]
    for i, cut in enumerate(cuts):
        last = i + 1 == len(cuts)
        following = text[cut.end():] if last else text[cut.end():cuts[i + 1].start()]
        # A following row one short lost its first character, a space, to the padding (the last row is measured
        # by nothing after it: it keeps what it has).
        out.append(" " if not last and len(following) == width - 1 else "")
        out.append(following)
    return "".join(out)
