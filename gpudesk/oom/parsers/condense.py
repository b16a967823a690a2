"""A long log read without the middle of its repeated lines (issue 28: a 1 MiB log diagnosed in seconds).

The doctor's parsers and rules scan the text with a few hundred bounded patterns, each linear in the text's length;
on a 1 MiB training log that is about 30 ms a pattern and some 10 s in all. Such a log is mostly one or a few line
shapes printed over and over (a step's loss, a progress bar, a throughput line), which say nothing a rule reads
beyond their first and last occurrences: the out-of-memory message, its traceback and the lines around it are
unique, or repeated far fewer times.

:func:`repeated_lines` keeps every line whose shape (the line with its digit runs and hexadecimal numbers masked)
occurs at most ``2 × KEEP_EACH_END`` times, and of a more frequent shape its first and last ``KEEP_EACH_END``
occurrences, in their order; a shape that names an allocation failure is kept whole. What the rules read from a
repeated shape survives: the first and last counters of a progress log (the last two consecutive steps included),
every out-of-memory message of a series (the live memory at each failure), and at least ``2 × KEEP_EACH_END`` of any
repeated line. Texts under
:data:`CONDENSE_MIN_CHARS` are read whole (every pasted message is far shorter), and the report keeps the whole input
(``MemoryReport.text``): only what the patterns scan is shorter.
"""

from __future__ import annotations

import re
from collections import Counter

from gpudesk.oom.parsers.generic import OOM_WORDS

# Below this many characters the text is read whole: a pasted error, a traceback, a few thousand log lines.
CONDENSE_MIN_CHARS = 200_000
# Occurrences kept at each end of a repeated line shape.
KEEP_EACH_END = 3
_VARIABLE = re.compile(r"0[xX][0-9a-fA-F]+|\d+")


def _failure_shape(shape: str) -> bool:
    """A line shape that names an allocation failure (:data:`gpudesk.oom.parsers.generic.OOM_WORDS`): every one of
    its lines is kept, so that a series of failures (the live memory at each, read by gpudesk.oom.rules.leak) is read
    whole, its falls as well as its rises."""
    low = shape.lower()
    return any(word in low for word in OOM_WORDS)


def repeated_lines(text: str) -> str:
    """``text`` without the middle occurrences of its frequent line shapes (module docstring); ``text`` itself when it
    is shorter than :data:`CONDENSE_MIN_CHARS` or nothing repeats often enough to drop. Lines that name an allocation
    failure are all kept (``_failure_shape``)."""
    if len(text) < CONDENSE_MIN_CHARS:
        return text
    cached = _last
    if cached is not None and cached[0] is text:
        return cached[1]
    lines = text.split("\n")
    shapes = _VARIABLE.sub("#", text).split("\n")  # (the masks never touch a line break: one shape per line)
    counts = Counter(shapes)
    frequent = {shape for shape, n in counts.items() if n > 2 * KEEP_EACH_END and not _failure_shape(shape)}
    if not frequent:
        return _remember(text, text)
    seen: Counter[str] = Counter()
    kept = []
    for line, shape in zip(lines, shapes):
        if shape not in frequent:
            kept.append(line)
            continue
        index = seen[shape]
        seen[shape] += 1
        if index < KEEP_EACH_END or index >= counts[shape] - KEEP_EACH_END:
            kept.append(line)
    return _remember(text, "\n".join(kept))


# The last long text condensed and its result: parse_text and diagnose read the same text one after the other.
_last: tuple[str, str] | None = None


def _remember(text: str, read: str) -> str:
    global _last
    _last = (text, read)
    return read
