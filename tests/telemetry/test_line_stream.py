"""Bounded line reading from a real child process (shared by the dmon and dcgmi dmon stream sources)."""

import sys
import time

import pytest

from gpudesk.telemetry.core.line_stream import BoundedLineReader, start_merged


def _read_all(reader: BoundedLineReader, timeout_s: float = 10.0) -> list[str]:
    lines: list[str] = []
    deadline = time.monotonic() + timeout_s
    while not reader.ended:
        assert time.monotonic() < deadline, f"no end of stream; got {lines!r}"
        lines.extend(reader.available())
        time.sleep(0.01)
    return lines


def test_an_over_long_line_becomes_one_marker_and_the_next_line_survives():
    reader = BoundedLineReader(start_merged([sys.executable, "-c", "print('a' * 50000); print('GPU 0 42')"]),
                               thread_name="t", max_line_chars=100)
    lines = _read_all(reader)
    reader.close(2.0)
    assert lines == ["x" * 103, "GPU 0 42\n"]


def test_lines_not_taken_stay_queued_when_the_caller_stops():
    reader = BoundedLineReader(start_merged([sys.executable, "-c", "print('a'); print('b'); print('c')"]),
                               thread_name="t", max_line_chars=100)
    reader.proc.wait(10)
    time.sleep(0.2)
    for line in reader.available():
        assert line == "a\n"
        break  # a parser that raised on its first line
    assert _read_all(reader) == ["b\n", "c\n"]
    reader.close(2.0)


def test_close_stops_a_command_that_never_ends():
    reader = BoundedLineReader(start_merged([sys.executable, "-c", "import time\nprint('up', flush=True)\n"
                                             "time.sleep(60)"]), thread_name="t", max_line_chars=100)
    deadline = time.monotonic() + 10
    got: list[str] = []
    while not got and time.monotonic() < deadline:
        got.extend(reader.available())
        time.sleep(0.01)
    assert got == ["up\n"]
    reader.close(2.0)
    assert reader.closed and reader.proc.poll() is not None


def test_a_missing_program_is_an_oserror_for_the_caller_to_word():
    with pytest.raises(OSError):
        start_merged(["/nonexistent/dcgmi", "dmon"])
