"""Bounded line reading from a real child process (shared by the dmon and dcgmi dmon stream sources)."""

import queue
import subprocess
import sys
import time

from gpudesk.telemetry.line_stream import BoundedLineReader


def _drain(reader: BoundedLineReader, timeout_s: float = 10.0) -> list[str]:
    lines: list[str] = []
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            line = reader.get_nowait()
        except queue.Empty:
            time.sleep(0.01)
            continue
        if line is None:
            return lines
        lines.append(line)
    raise AssertionError(f"no end of stream; got {lines!r}")


def _start(code: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, text=True, encoding="utf-8", errors="replace", bufsize=1)


def test_an_over_long_line_becomes_one_marker_and_the_next_line_survives():
    reader = BoundedLineReader(_start("print('a' * 50000); print('GPU 0 42')"), thread_name="t", max_line_chars=100)
    lines = _drain(reader)
    reader.close(2.0)
    assert lines == ["x" * 103, "GPU 0 42\n"]


def test_close_stops_a_command_that_never_ends():
    reader = BoundedLineReader(_start("import time\nprint('up', flush=True)\ntime.sleep(60)"), thread_name="t",
                               max_line_chars=100)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            assert reader.get_nowait() == "up\n"
            break
        except queue.Empty:
            time.sleep(0.01)
    reader.close(2.0)
    assert reader.closed and reader.proc.poll() is not None
