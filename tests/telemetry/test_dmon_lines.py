"""The live dmon line parser on the faulty inputs of issue 14: bad GPU index, pmon in a live stream, garbage,
impossible values. Each is skipped and counted, or turned into None with a reason, never raised."""

from __future__ import annotations

import math
from pathlib import Path

from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.formats.dmon_lines import MAX_LINE_CHARS, DmonLineParser

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "monitor"
HEADER = "#Date       Time        gpu    pwr  gtemp  mtemp     sm    mem    enc    dec   mclk   pclk"
UNITS = "#YYYYMMDD   HH:MM:SS    Idx      W      C      C      %      %      %      %    MHz    MHz"


def _feed(parser: DmonLineParser, lines: list[str]) -> list:
    out = []
    for line in lines:
        out.extend(parser.feed(line))
    out.extend(parser.flush())
    return out


def test_gpu_index_dash_nan_negative_and_huge_are_skipped_and_counted():
    p = DmonLineParser()
    rows = [
        " 20240301   10:00:00      -     70     40      -     50     10      0      0   1593   1410",
        " 20240301   10:00:00    nan     70     40      -     50     10      0      0   1593   1410",
        " 20240301   10:00:00     -1     70     40      -     50     10      0      0   1593   1410",
        " 20240301   10:00:00 2000000000 70     40      -     50     10      0      0   1593   1410",
        " 20240301   10:00:00      0     70     40      -     50     10      0      0   1593   1410",
    ]
    batches = _feed(p, [HEADER, UNITS, *rows])
    assert [s.gpu_index for b in batches for s in b] == [0]
    assert p.bad_lines == 4 and p.skipped == {"gpu_index": 4}
    assert "4 line(s) of the stream were skipped: 4 with a GPU index" in (p.skipped_summary() or "")


def test_bad_time_date_and_values_are_skipped():
    p = DmonLineParser()
    rows = [
        " 20240301   99:00:00      0     70     40      -     50     10      0      0   1593   1410",
        " 20240231   10:00:00      0     70     40      -     50     10      0      0   1593   1410",
        "      inf   10:00:00      0     70     40      -     50     10      0      0   1593   1410",
        " 20240301   10:00:01      0     70     40      -    abc     10      0      0   1593   1410",
        " 20240301   10:00:02      0     70",
    ]
    assert _feed(p, [HEADER, UNITS, *rows]) == []
    assert p.skipped == {"time": 1, "date": 2, "value": 1, "columns": 1}


def test_impossible_utilization_becomes_none_with_reason():
    p = DmonLineParser()
    batches = _feed(p, [HEADER, UNITS,
                        " 20240301   10:00:00      0     70     40      -    250     10      0      0   1593   1410"])
    s = batches[0].samples[0]
    assert s.values[m.GPU_UTIL] is None and "outside 0-100 %" in s.reasons[m.GPU_UTIL]
    assert s.values[m.MEM_UTIL] == 10.0 and p.impossible_values == 1


def test_pmon_header_in_a_live_stream_is_an_error_not_a_traceback():
    p = DmonLineParser()
    lines = (FIX / "sample_g_pmon.txt").read_text().splitlines()
    assert _feed(p, lines) == []
    assert p.foreign_format and any("pmon" in e for e in p.errors)
    assert p.skipped.get("pmon", 0) == sum(1 for ln in lines if ln.strip() and not ln.startswith("#"))
    # a dmon header afterwards is read again
    out = _feed(p, (FIX / "sample_b_u.txt").read_text().splitlines())
    assert out and not p.foreign_format


def test_over_long_line_is_skipped_unread():
    p = DmonLineParser()
    _feed(p, ["# gpu sm mem", "0 " + "9" * (MAX_LINE_CHARS * 3)])
    assert p.skipped == {"too_long": 1}


def test_nan_and_inf_values_are_none():
    p = DmonLineParser(clock=lambda: 100.0)
    out = _feed(p, ["# gpu pwr sm", "0 nan inf"])
    s = out[0].samples[0]
    assert s.values[m.POWER] is None and s.values[m.GPU_UTIL] is None
    assert "finite" in s.reasons[m.POWER]
    assert all(v is None or math.isfinite(v) for v in s.values.values())


def test_stream_that_prints_garbage_then_dies_gives_counts_not_a_traceback():
    import shlex
    import sys
    import time

    from gpudesk.telemetry.sources.dmon_stream import DmonStreamSource

    code = ("import sys; print('# gpu sm mem'); print('0 10 20'); print('    - 10 20'); "
            "sys.stdout.write('x' * 20000); print(); sys.stdout.buffer.write(bytes(range(256)) + b'\\n'); "
            "print('1 30 40', flush=True); sys.exit(3)")
    src = DmonStreamSource(f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}")
    got = []
    deadline = time.monotonic() + 20
    while not src.finished and time.monotonic() < deadline:
        got.extend(src.poll())
        time.sleep(0.02)
    got.extend(src.poll())
    src.close()
    assert [s.gpu_index for b in got for s in b] == [0, 1]
    assert src.returncode == 3
    assert src.parser.skipped == {"gpu_index": 1, "too_long": 1}
    assert src.problem() is None


def test_dcgmi_na_is_none_with_reason():
    p = DmonLineParser(clock=lambda: 100.0)
    out = _feed(p, ["# Entity  PCITX  PCIRX", "GPU 0  N/A  5237742827"])
    s = out[0].samples[0]
    assert s.values[m.PCIE_TX] is None and "dcgmi printed N/A" in s.reasons[m.PCIE_TX]
    assert s.values[m.PCIE_RX] == 5237742827.0 and p.bad_lines == 0
