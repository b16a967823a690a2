"""The fixed-width reader of dmon tables gives exactly what the token reader gives, and hands back the tables it
cannot read whole (a decimal, a negative number, a shifted column, N/A, a truncated line)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gpudesk.telemetry.formats import dmon
from gpudesk.telemetry.formats.dmon import parse_dmon, read_dmon_file
from gpudesk.telemetry.formats.dmon_import import demo_path
from gpudesk.telemetry.core.stats import _columns_stats, summarize

HEADER = ("#Date       Time        gpu     sm    mem     fb  rxpci\n"
          "#YYYYMMDD   HH:MM:SS    Idx      %      %     MB   MB/s\n")


def _table(rows: int, odd: dict[int, str] | None = None) -> str:
    lines = []
    for i in range(rows):
        cells = [f"{(i * 7) % 101:6d}", f"{(i * 3) % 101:6d}", f"{1000 + i:6d}", "     -" if i % 5 else f"{i:6d}"]
        second = i // 2  # two GPUs per round
        line = f"20240101 00:{second // 60 % 60:02d}:{second % 60:02d} {i % 2:6d} " + " ".join(cells)
        lines.append(odd.get(i, line) if odd else line)
    return HEADER + "\n".join(lines) + "\n"


def _token_only(monkeypatch: pytest.MonkeyPatch, text: str) -> dmon.DmonLog:
    def nothing(lay, block, tk, lines, ws):  # type: ignore[no-untyped-def]
        return np.empty((len(lines), lay.ncols)), np.zeros(len(lines), dtype=bool)

    monkeypatch.setattr(dmon, "fixed_width_values", nothing)
    return parse_dmon(text)


def _same(a: dmon.DmonLog, b: dmon.DmonLog) -> bool:
    return (np.array_equal(a.frame.times, b.frame.times) and a.frame.gpus == b.frame.gpus and a.notes == b.notes
            and set(a.frame.columns) == set(b.frame.columns)
            and all(np.array_equal(a.frame.columns[k], b.frame.columns[k], equal_nan=True) for k in a.frame.columns))


@pytest.mark.parametrize("odd", [
    {},
    {70: "20240101 00:00:35      0   12.5      3   1070      -"},  # a decimal: back to the token reader
    {80: "20240101 00:00:40      0     -4      3   1080      -"},  # a negative number
    {90: "20240101 00:00:45      0     N/A     3   1090      -"},  # N/A, and a line one byte longer
    {100: "20240101 00:00:50      0    44      3    1100      -"},  # same length, a column shifted by one
    {110: "20240101 00:00:55      0      9      3   1110"},  # a truncated line
])
def test_fixed_width_tables_read_like_the_token_reader(monkeypatch, odd):
    text = _table(300, odd)
    fast = parse_dmon(text)
    with monkeypatch.context() as patch:
        slow = _token_only(patch, text)
    assert len(fast.frame) == 150 and _same(fast, slow)


def test_the_demo_and_the_sample_logs_read_the_same_both_ways(monkeypatch):
    fixtures = Path(__file__).resolve().parents[1] / "fixtures" / "monitor"
    for path in [demo_path(), *sorted(p for p in fixtures.glob("sample_*.txt") if "pmon" not in p.name)]:
        fast = read_dmon_file(path)
        with monkeypatch.context() as patch:
            slow = _token_only(patch, path.read_text(encoding="utf-8"))
        assert _same(fast, slow), path.name


def test_counted_statistics_equal_numpy_percentiles():
    rng = np.random.default_rng(7)
    for x in (rng.integers(0, 101, (999, 3)).astype(np.float32), rng.integers(-50, 4000, (500, 2)).astype(np.float64),
              np.full((10, 2), 37.3, dtype=np.float32), (rng.random((300, 2)) * 100).astype(np.float32),
              rng.integers(0, 25000, (5000, 2)).astype(np.float64) * 1e6 + 7,  # rates on a 1 MB/s grid
              rng.integers(1000, 80000, (300, 2)).astype(np.float64) * 2**20):  # bytes in whole MiB, sparse
        assert _columns_stats(x) == [summarize(x[:, j]) for j in range(x.shape[1])]
