"""DmonStreamSource.end_problem: why a stream that ended by itself deserves a warning (issue 14: a stream whose
command dies or prints garbage must say so in the window, as the CLI does)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from gpudesk.telemetry.sources.dmon_stream import DmonStreamSource

SAMPLE_A = Path(__file__).resolve().parents[1] / "fixtures" / "monitor_ui" / "sample_a_pucvmet.txt"


def drain(source: DmonStreamSource, timeout_s: float = 20.0) -> int:
    deadline = time.monotonic() + timeout_s
    batches = 0
    while not source.finished and time.monotonic() < deadline:
        batches += len(source.poll())
        time.sleep(0.02)
    return batches + len(source.poll())


def python(script: str) -> list[str]:
    return [sys.executable, "-c", script]


def test_a_complete_stream_that_exits_0_is_no_problem():
    source = DmonStreamSource(python(f"print(open({str(SAMPLE_A)!r}).read())"))
    assert drain(source) >= 1
    assert source.end_problem() is None
    source.close()


def test_a_command_that_dies_gives_its_status_and_last_words():
    source = DmonStreamSource(python(
        f"import sys\nprint(open({str(SAMPLE_A)!r}).read())\nsys.stdout.flush()\n"
        "print('Failed to initialize NVML: Driver/library version mismatch')\nsys.exit(9)"))
    assert drain(source) >= 1
    text = source.end_problem()
    assert text is not None and "exit status 9" in text and "version mismatch" in text
    source.close()


def test_garbage_is_no_dmon_samples_with_what_was_skipped():
    source = DmonStreamSource(python("print('x' * 10000)\nprint('0 nan inf -1')"))
    assert drain(source) == 0
    text = source.end_problem()
    assert text is not None and "no dmon samples" in text and "skipped" in text
    source.close()


def test_a_stream_closed_by_the_user_is_no_problem():
    source = DmonStreamSource(python("import time\nprint('# gpu    sm')\ntime.sleep(30)"))
    source.close(grace_s=2.0)
    assert source.end_problem() is None
