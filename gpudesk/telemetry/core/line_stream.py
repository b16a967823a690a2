"""Bounded line reading from a running command (the dmon and dcgmi dmon stream sources).

A small daemon thread reads the command's merged stdout into a queue of at most ``max_queued_lines`` lines
(a command that floods output is slowed down, not buffered without bound); a line longer than
``max_line_chars`` (or output without any newline) is read in pieces and passed on as one over-long marker line
that the parsers skip and count, so memory stays bounded whatever the command prints.
"""

from __future__ import annotations

import queue
import subprocess
import threading
from collections.abc import Iterator

# Lines queued between two polls.
MAX_QUEUED_LINES = 100_000


def start_merged(argv: list[str]) -> subprocess.Popen[str]:
    """Start ``argv`` (no shell) with stdout and stderr merged into one line-buffered UTF-8 text pipe.

    Raises:
        OSError: the program cannot be started (not found, not executable); the caller words the error.
    """
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            text=True, encoding="utf-8", errors="replace", bufsize=1)


class BoundedLineReader:
    """Reads ``proc.stdout`` on a reader thread; :meth:`available` hands out the lines arrived so far."""

    def __init__(self, proc: subprocess.Popen[str], *, thread_name: str, max_line_chars: int,
                 max_queued_lines: int = MAX_QUEUED_LINES) -> None:
        self.proc = proc
        self.max_line_chars = max_line_chars
        self.closed = False
        self.ended = False  # the end-of-stream mark was taken by available()
        self._lines: queue.Queue[str | None] = queue.Queue(max_queued_lines)
        self._reader = threading.Thread(target=self._read, name=thread_name, daemon=True)
        self._reader.start()

    def available(self) -> Iterator[str]:
        """The lines arrived so far, without waiting; at the end-of-stream mark it sets :attr:`ended` and stops.
        Lines not taken (the caller stopped, or raised) stay queued for the next call."""
        while not self.ended:
            try:
                line = self._lines.get_nowait()
            except queue.Empty:
                return
            if line is None:
                self.ended = True
                return
            yield line

    def _put(self, item: str | None) -> bool:
        """Queue one line, waiting while the queue is full; False once the reader is closed."""
        while True:
            try:
                self._lines.put(item, timeout=0.2)
                return True
            except queue.Full:
                if self.closed:
                    return False

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        limit = self.max_line_chars
        try:
            while True:
                line = out.readline(limit + 1)
                if not line:
                    break
                if len(line) > limit and not line.endswith("\n"):
                    while True:  # drop the rest of this line
                        rest = out.readline(limit + 1)
                        if not rest or rest.endswith("\n"):
                            break
                    line = "x" * (limit + 3)
                if not self._put(line):
                    return
        except (OSError, ValueError):  # the pipe was closed under us by close(): end of stream
            pass
        finally:
            self._put(None)

    def close(self, grace_s: float = 2.0) -> None:
        """Terminate the command (SIGTERM, then SIGKILL after ``grace_s``); lines it printed before stay queued."""
        self.closed = True
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(grace_s)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(grace_s)
        self._reader.join(grace_s)  # the process is gone: the reader sees end of file and queues the rest
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self._reader.join(grace_s)
