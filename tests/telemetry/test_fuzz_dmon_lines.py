"""Fuzzing the live dmon line parser (issue 14): any line, any order, never an exception; every sample it
emits has a GPU index 0-MAX_GPU_INDEX (1023), a finite time, and values that are None or finite and within their range."""

from __future__ import annotations

import math
from pathlib import Path

from helpers.fuzz_profile import fuzz
from hypothesis import given
from hypothesis import strategies as st

from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.formats.dmon_lines import MAX_GPU_INDEX, DmonLineParser

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "monitor"
REAL_LINES = [ln for f in ("sample_a_pucvmet.txt", "sample_b_u.txt", "sample_g_pmon.txt", "sample_h_dcgmi.txt",
                           "sample_f_unsupported.txt") for ln in (FIX / f).read_text().splitlines()]
TOKENS = ["-", "nan", "NaN", "inf", "-inf", "-1", "0", "1", "7", "100", "250", "2000000000", "1e400", "9" * 309,
          "99:99:99", "10:00:00", "23:59:60", "20240301", "20240230", "99999999", "GPU", "#", "pid", "gpu", "Date",
          "Time", "sm", "mem", "fb", "pwr", "rxpci", "Entity", "PCITX", "\x00", "１２"]
token = st.one_of(st.sampled_from(TOKENS), st.text(max_size=12), st.integers(-10**12, 10**12).map(str),
                  st.floats(allow_nan=True, allow_infinity=True).map(repr))
crafted = st.lists(token, max_size=14).map(" ".join)
header = st.lists(st.sampled_from(TOKENS), max_size=12).map(lambda ts: "# " + " ".join(ts))
line = st.one_of(st.sampled_from(REAL_LINES), crafted, header, st.text(max_size=200))
PCT = {k for k, info in m.METRICS.items() if info.unit == "%"}


def _check(batches) -> None:
    for b in batches:
        for s in b:
            assert 0 <= s.gpu_index <= MAX_GPU_INDEX
            assert math.isfinite(s.t)
            for k, v in s.values.items():
                if v is None:
                    assert s.reasons.get(k)
                    continue
                assert math.isfinite(v), (k, v)
                if k in PCT:
                    assert 0 <= v <= 100


@fuzz
@given(st.lists(line, max_size=40))
def test_fuzz_live_lines_never_raise_and_stay_in_bounds(lines):
    p = DmonLineParser(clock=lambda: 1_700_000_000.0)
    for ln in lines:
        _check(p.feed(ln))
    _check(p.flush())
    assert p.bad_lines == sum(p.skipped.values())


@fuzz
@given(st.lists(st.sampled_from(REAL_LINES[:12]), max_size=30), st.lists(crafted, max_size=10), st.randoms())
def test_fuzz_real_stream_with_garbage_mixed_in(real, garbage, rnd):
    lines = real + garbage
    rnd.shuffle(lines)
    p = DmonLineParser(clock=lambda: 1_700_000_000.0)
    for ln in lines:
        _check(p.feed(ln))
    _check(p.flush())
