"""dmon parsing on the real public samples (tests/fixtures/monitor, from monitor.md section 3) and on
variations built from them (repeated headers, blank lines, truncated lines, other output, -o DT)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.formats.dmon import DmonError, DmonLineParser, parse_dmon, read_dmon_file

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "monitor"
MIB = 1024 * 1024


def text(name: str) -> str:
    return (FIX / name).read_text(encoding="utf-8")


def test_sample_a_all_groups_mapped_from_header():
    log = read_dmon_file(FIX / "sample_a_pucvmet.txt")
    f = log.frame
    assert len(f) == 1 and f.gpus == [0, 1, 2, 3]  # one round of four GPUs
    t, util = f.series(3, m.GPU_UTIL)
    assert util.tolist() == [18.0]
    assert f.series(0, m.POWER)[1].tolist() == [111.0]
    assert f.series(0, m.MEM_CLOCK)[1].tolist() == [4513e6]
    assert f.series(0, m.SM_CLOCK)[1].tolist() == [1683e6]
    assert f.series(3, m.PCIE_RX)[1].tolist() == [62e6]  # rxpci "MB/s" as printed: 62 MB/s, decimal
    assert f.series(3, m.PCIE_TX)[1].tolist() == [5e6]
    assert f.series(2, m.MEM_USED)[1].tolist() == [11653 * MIB]
    assert f.series(0, m.THERMAL_VIOLATION)[1].tolist() == [0.0]
    # '-' is N/A with a reason, never 0
    assert math.isnan(f.series(0, m.ECC_SBE)[1][0])
    assert "'-'" in f.reason(0, m.ECC_SBE)
    assert not log.has_time and any("no time column" in n for n in log.notes)


def test_sample_b_rows_without_time_are_one_interval_apart():
    log = parse_dmon(text("sample_b_u.txt"), interval_s=2.0, start_time=100.0)
    assert log.frame.times.tolist() == [100.0, 102.0]
    assert log.frame.gpus == [0]
    assert set(log.frame.metric_names()) == {m.GPU_UTIL, m.MEM_UTIL, m.ENC_UTIL, m.DEC_UTIL}


def test_sample_c():
    log = parse_dmon(text("sample_c_puc.txt"))
    assert log.frame.series(0, m.MEM_CLOCK)[1].tolist() == [3505e6]
    assert log.frame.series(0, m.MEM_UTIL)[1].tolist() == [1.0]


def test_sample_f_unsupported_is_typed_not_empty_series():
    log = parse_dmon(text("sample_f_unsupported.txt"))
    assert log.unsupported
    assert log.errors == ["Not supported on the device(s)", "Failed to process command line"]
    assert log.empty


def test_sample_g_pmon_is_rejected_clearly():
    with pytest.raises(DmonError, match="pmon"):
        parse_dmon(text("sample_g_pmon.txt"))


def test_sample_h_dcgmi_bytes_per_second():
    log = parse_dmon(text("sample_h_dcgmi.txt"))
    assert log.frame.series(0, m.PCIE_TX)[1].tolist() == [4712070210.0]
    assert log.frame.series(1, m.PCIE_RX)[1].tolist() == [637272.0]


def test_not_dmon_at_all():
    with pytest.raises(DmonError, match="does not look like dmon"):
        parse_dmon("hello\nworld\n")


def _dt_log() -> str:
    """Sample A's values recorded with -o DT -s pucvmet over 3 s, header repeated, a blank line."""
    rows = text("sample_a_pucvmet.txt").splitlines()
    names = "#Date       Time        " + rows[0][1:].strip()
    units = "#YYYYMMDD   HH:MM:SS    " + rows[1][1:].strip()
    out = [names, units]
    for s in range(3):
        for r in rows[2:]:
            out.append(f"20161111 23:59:{58 + s:02d}" if s < 2 else "20161112 00:00:00")
            out[-1] += " " + r
        if s == 1:
            out += ["", names, units]
    return "\n".join(out) + "\n"


def test_date_time_columns_and_repeated_headers():
    log = parse_dmon(_dt_log())
    f = log.frame
    assert log.has_time and len(f) == 3 and len(f.gpus) == 4
    base = 1478908798.0  # 2016-11-11 23:59:58 UTC
    assert f.times.tolist() == [base, base + 1, base + 2]
    assert f.series(1, m.SM_CLOCK)[1].tolist() == [1733e6] * 3


def test_truncated_lines_other_output_and_blank_lines_are_skipped_with_notes():
    lines = _dt_log().splitlines()
    lines.insert(5, "Warning: persistence mode is disabled on device 00000000:01:00.0")
    lines.insert(8, "")
    lines.append("20161112 00:00:01    0   111    83    25     7")  # truncated (killed mid-write)
    log = parse_dmon("\n".join(lines))
    assert len(log.frame) == 3 and len(log.frame.gpus) == 4
    assert any("1 truncated or malformed" in n for n in log.notes)
    assert any("other output" in n for n in log.notes)


def test_column_order_follows_header_and_unknown_columns_are_kept():
    log = parse_dmon("# gpu  txpci  sm  foo\n# Idx  MB/s  %  x\n    0  10  50  7\n    1  -  60  8\n")
    assert log.frame.series(0, m.PCIE_TX)[1].tolist() == [10e6]
    assert math.isnan(log.frame.series(1, m.PCIE_TX)[1][0])
    assert log.frame.series(1, m.GPU_UTIL)[1].tolist() == [60.0]
    assert log.frame.series(1, "dmon_foo")[1].tolist() == [8.0]
    assert any("unknown column" in n for n in log.notes)


def test_newer_tokens_gtemp_mtemp_jpg_ofa():
    log = parse_dmon("# gpu pwr gtemp mtemp sm mem enc dec jpg ofa\n# Idx W C C % % % % % %\n"
                     "    0  70  45  50  90  30  0  0  -  -\n")
    f = log.frame
    assert f.series(0, m.GPU_TEMP)[1].tolist() == [45.0]
    assert f.series(0, m.MEM_TEMP)[1].tolist() == [50.0]
    assert math.isnan(f.series(0, m.JPG_UTIL)[1][0])


def test_time_only_wraps_past_midnight():
    log = parse_dmon("#Time gpu sm\n#HH:MM:SS Idx %\n23:59:59 0 10\n00:00:00 0 20\n")
    assert log.frame.times.tolist() == [86399.0, 86400.0]


def test_header_change_midway_starts_new_layout():
    txt = text("sample_c_puc.txt") + text("sample_b_u.txt")
    log = parse_dmon(txt)
    assert len(log.frame) == 3
    assert log.frame.times.tolist() == [0.0, 1.0, 2.0]
    assert math.isnan(log.frame.columns[m.POWER][1, 0])


def test_line_parser_emits_one_batch_per_round():
    clock = iter([10.0, 10.0, 10.0, 10.0, 11.0, 11.0, 11.0, 11.0]).__next__
    p = DmonLineParser(clock)
    batches = []
    for line in text("sample_a_pucvmet.txt").splitlines() * 2:
        batches.extend(p.feed(line))
    batches.extend(p.flush())
    assert len(batches) == 2
    assert [s.gpu_index for s in batches[0]] == [0, 1, 2, 3]
    s = batches[0].samples[2]
    assert s.values[m.POWER] == 112.0 and s.values[m.ECC_SBE] is None and "'-'" in s.reasons[m.ECC_SBE]
    assert batches[1].t == 11.0


def test_line_parser_with_dt_and_error_text():
    p = DmonLineParser()
    out = []
    for line in _dt_log().splitlines():
        out.extend(p.feed(line))
    out.extend(p.flush())
    assert [len(b) for b in out] == [4, 4, 4]
    assert out[0].t == 1478908798.0
    p2 = DmonLineParser()
    for line in text("sample_f_unsupported.txt").splitlines():
        p2.feed(line)
    assert p2.unsupported


def test_unreadable_file():
    with pytest.raises(DmonError, match="Cannot read"):
        read_dmon_file(FIX / "does-not-exist.txt")


def test_blocks_of_any_size_match_the_whole_text(monkeypatch, tmp_path):
    from gpudesk.telemetry.formats import dmon

    txt = _dt_log() * 3
    whole = parse_dmon(txt)
    monkeypatch.setattr(dmon, "BLOCK_BYTES", 100)
    chunked = parse_dmon(txt)
    lines = parse_dmon(txt.splitlines())
    path = tmp_path / "log.txt"
    path.write_text(txt, encoding="utf-8")
    from_file = read_dmon_file(path)
    assert len(whole.frame) > 0
    for f in (chunked.frame, lines.frame, from_file.frame):
        assert np.array_equal(f.times, whole.frame.times) and f.gpus == whole.frame.gpus
        for name, col in whole.frame.columns.items():
            assert np.array_equal(f.columns[name], col, equal_nan=True), name


def test_header_only_log_is_empty_not_an_error():
    log = parse_dmon("\n".join(text("sample_b_u.txt").splitlines()[:2]) + "\n")
    assert log.empty and not log.unsupported and log.columns[:2] == ["gpu", "sm"]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-8-sig"])
def test_windows_encodings_of_a_saved_log(tmp_path, encoding):
    """PowerShell 5 'nvidia-smi dmon > log.txt' writes UTF-16 LE with a BOM; Notepad and Out-File may add a
    UTF-8 BOM. The real Sample A saved that way must parse like the original."""
    p = tmp_path / "dmon.txt"
    body = text("sample_a_pucvmet.txt").replace("\n", "\r\n")
    data = body.encode(encoding)
    if encoding in ("utf-16-le", "utf-16-be"):  # BOM written explicitly, as PowerShell does
        data = ("\ufeff" + body).encode(encoding)
    p.write_bytes(data)
    log = read_dmon_file(p)
    assert log.frame.gpus == [0, 1, 2, 3] and log.frame.series(3, m.GPU_UTIL)[1].tolist() == [18.0]
    assert parse_dmon("\ufeff" + text("sample_b_u.txt")).frame.series(0, m.GPU_UTIL)[1].tolist() == [0.0, 0.0]


def test_empty_and_binary_files_say_so_and_name_the_file(tmp_path):
    empty = tmp_path / "empty.log"
    empty.write_bytes(b"")
    with pytest.raises(DmonError, match=r"empty\.log is empty"):
        read_dmon_file(empty)
    blob = tmp_path / "core.bin"
    blob.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4)
    with pytest.raises(DmonError, match=r"core\.bin is a binary file"):
        read_dmon_file(blob)
    other = tmp_path / "notes.txt"
    other.write_text("hello\nworld\n")
    with pytest.raises(DmonError, match=r"^notes\.txt: No 'nvidia-smi dmon' header"):
        read_dmon_file(other)


DT_HEADER = "#Date       Time        gpu     sm    mem\n#YYYYMMDD   HH:MM:SS    Idx      %      %\n"


@pytest.mark.parametrize(("row", "field", "words"), [
    ("20240101 00:00:01     -1     10     20", "gpu", "-1"),
    ("20240101 00:00:01 2000000000 10     20", "gpu", "2000000000"),
    ("20240101 00:00:01    1.5     10     20", "gpu", "1.5"),
    ("1e999    00:00:01      0     10     20", "date", "inf"),
    ("2024.5   00:00:01      0     10     20", "date", "2024.5"),
    ("20241341 00:00:01      0     10     20", "date", "20241341"),
    ("20240101 99:00:01      0     10     20", "time", "out of range"),
])
def test_impossible_numbers_name_the_line_and_field(row, field, words):
    """Issue 14: GPU index -1 used to end in np.bincount's traceback, 2,000,000,000 in a 14.9 GiB allocation,
    inf dates in NaN times."""
    text = DT_HEADER + "20240101 00:00:00      0     10     20\n" + row + "\n"
    with pytest.raises(DmonError, match=rf"Line 4: .*{words}") as info:
        parse_dmon(text)
    assert info.value.field == field


def test_rows_starting_with_inf_or_nan_are_other_output_not_times():
    log = parse_dmon(DT_HEADER + "20240101 00:00:00      0     10     20\ninf 00:00:01 0 1 2\nnan 00:00:01 0 1 2\n")
    assert len(log.frame) == 1 and np.isfinite(log.frame.times).all()
    assert any("Ignored 2 line(s) of other output" in n for n in log.notes)


def test_dash_gpu_index_skips_the_line_with_a_note():
    log = parse_dmon(DT_HEADER + "20240101 00:00:00      0     10     20\n20240101 00:00:00      -     10     20\n")
    assert len(log.frame) == 1 and any("Skipped 1" in n for n in log.notes)


def test_distinct_dates_are_linear():
    """100k rows with distinct dates took 18 s (one pass per distinct date); now one vectorised pass: 10x the
    rows must cost far less than 100x the time."""
    import time

    def log(n):
        days = np.datetime64("1990-01-01") + np.arange(n)
        dates = np.char.replace(days.astype(str), "-", "")
        return DT_HEADER + "".join(f"{d} 00:00:00      0     10     20\n" for d in dates.tolist())

    small, big = log(10_000), log(100_000)
    t0 = time.process_time()
    parse_dmon(small)
    t1 = time.process_time()
    f = parse_dmon(big).frame
    t2 = time.process_time()
    assert len(f) == 100_000 and np.all(np.diff(f.times) == 86400.0)
    assert (t2 - t1) < 30 * max(t1 - t0, 0.01)


def test_live_parser_skips_impossible_rows_and_pmon_headers():
    p = DmonLineParser(clock=lambda: 0.0)
    lines = [DT_HEADER.splitlines()[0], "20240101 00:00:00      -     10     20",
             "20240101 00:00:00    nan     10     20", "20240101 00:00:00     -1     10     20",
             "1e999    00:00:00      0     10     20", "# gpu pid type sm mem command",
             "    0   1234     C    10    20  python",  # a pmon row: skipped until a dmon header comes back
             DT_HEADER.splitlines()[0],
             "20240101 00:00:00      0     10     20", "20240101 00:00:01      0     11     20"]
    batches = [b for line in lines for b in p.feed(line)] + p.flush()
    assert p.bad_lines == 5 and p.skipped == {"gpu_index": 3, "date": 1, "pmon": 1}
    assert len(p.errors) == 1 and not p.foreign_format  # the pmon header is reported once; dmon resumed
    assert [s.values["gpu_util_pct"] for b in batches for s in b.samples] == [10.0, 11.0]
