"""Text for the terminal: the one place the CLI's output is made safe to show.

Text from outside (exporter labels, server error bodies, snapshot frame names, profile names, a stream's lines,
file names) can carry terminal control: ESC sequences that clear the screen, move the cursor, set the window title
or write the clipboard (OSC 52, https://invisible-island.net/xterm/ctlseqs/ctlseqs.html#h3-Operating-System-Commands),
backspace and carriage return that overwrite what was printed, NUL, C1 controls (U+0080-U+009F, where U+009B is a
CSI on many terminals), and bidirectional overrides that reorder what is shown (CVE-2021-42574). :func:`terminal_text`
shows each of them escaped instead (``\\x1b``, ``\\r``, ``\\u009b``); newline and tab are kept.

:func:`terminal_streams` wraps ``sys.stdout`` and ``sys.stderr`` for the length of one CLI command, so every
``print`` of every command goes through it, and a character the terminal's encoding cannot show (a Chinese message
on a Latin-1 terminal, a file name that is not UTF-8) is written as a backslash escape instead of ending in a
traceback.

C0 controls are shown as ``\\xNN``; DEL, C1, bidi controls and lone surrogates as ``\\uNNNN``, which inside a
JSON string (where ``json.dumps`` leaves them raw) is the same character's valid JSON escape, so ``--json``
output stays valid JSON after it passes through here.
"""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Iterator
from typing import Any, TextIO

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _escape(mo: re.Match[str]) -> str:
    code = ord(mo.group())
    return f"\\x{code:02x}" if code < 0x20 else f"\\u{code:04x}"


def terminal_text(text: str) -> str:
    """``text`` with every control, bidi-override and lone-surrogate character shown escaped (newline and tab
    kept)."""
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(_escape, text)


class TerminalStream:
    """A text stream that writes :func:`terminal_text` of everything to ``raw``, with characters its encoding
    cannot hold written as backslash escapes."""

    def __init__(self, raw: TextIO) -> None:
        self.raw = raw

    def write(self, text: str) -> int:
        safe = terminal_text(text)
        try:
            self.raw.write(safe)
        except UnicodeEncodeError:
            encoding = getattr(self.raw, "encoding", None) or "ascii"
            self.raw.write(safe.encode(encoding, "backslashreplace").decode(encoding))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self.raw.flush()

    def __getattr__(self, name: str) -> Any:  # fileno, isatty, encoding, buffer ...: the raw stream's
        return getattr(self.raw, name)


@contextlib.contextmanager
def terminal_streams() -> Iterator[None]:
    """``sys.stdout`` and ``sys.stderr`` through :class:`TerminalStream` inside the block (not twice)."""
    saved = sys.stdout, sys.stderr
    if not isinstance(sys.stdout, TerminalStream) and sys.stdout is not None:
        sys.stdout = TerminalStream(sys.stdout)  # type: ignore[assignment]
    if not isinstance(sys.stderr, TerminalStream) and sys.stderr is not None:
        sys.stderr = TerminalStream(sys.stderr)  # type: ignore[assignment]
    try:
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                if stream is not None:
                    stream.flush()
        sys.stdout, sys.stderr = saved
