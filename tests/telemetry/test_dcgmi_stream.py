"""DcgmiStreamSource over a real child process that prints a real dcgmi dmon output (DCGM issue 244, URL in the
fixture's first line), with a runaway line in between: both ticks arrive (8 GPUs, then the 2 with values), the runaway line is skipped and counted."""

import shlex
import sys
import time
from pathlib import Path

from gpudesk.telemetry.formats.dcgmi_dmon import MAX_LINE_CHARS
from gpudesk.telemetry.sources.dcgmi_stream import DcgmiStreamSource

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "fleet" / "dcgmi_dmon_8gpu_na_issue244.txt"


def test_stream_of_a_real_output_with_a_runaway_line(tmp_path):
    lines = FIXTURE.read_text(encoding="utf-8").splitlines(keepends=True)
    text = "".join(lines[:3]) + "z" * (MAX_LINE_CHARS * 4) + "\n" + "".join(lines[3:])
    (tmp_path / "out.txt").write_text(text, encoding="utf-8")
    code = f"import sys; sys.stdout.write(open({str(tmp_path / 'out.txt')!r}).read())"
    src = DcgmiStreamSource(f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}", host="n", clock=lambda: 50.0)
    batches = []
    deadline = time.monotonic() + 20
    while not src.finished and time.monotonic() < deadline:
        batches.extend(src.poll())
        time.sleep(0.01)
    src.close()
    assert src.finished
    assert [len(b.samples) for b in batches] == [8, 2]  # as the file parser reads it: 10 samples
    assert [k.gpu_index for k in src.keys] == list(range(8))
    assert src.parser.lines_skipped == 1
