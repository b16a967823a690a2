"""The vectorised dmon tokenizer: token spans, numbers equal to float(), odd forms left to the line parser."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gpudesk.telemetry.formats.dmon_tokens import (
    padded_block,
    parse_clock_times,
    parse_numbers,
    tokenize,
)


def _block(text: str) -> np.ndarray:
    return padded_block(np.frombuffer(text.encode(), dtype=np.uint8))


def _tokens(text: str) -> list[list[str]]:
    block = _block(text)
    tk = tokenize(block)
    out = []
    for i in range(tk.lines):
        first, count = int(tk.first_token[i]), int(tk.token_count[i])
        out.append([block[s:e].tobytes().decode() for s, e in zip(tk.token_start[first:first + count],
                                                                   tk.token_end[first:first + count])])
    return out


def test_lines_and_tokens_like_str_split():
    text = "# gpu sm\n    0  12\r\n\n\t1 -\n  2   7"
    assert _tokens(text) == [line.split() for line in text.split("\n")]


def _numbers(tokens: list[str]) -> tuple[np.ndarray, np.ndarray]:
    text = " ".join(tokens)
    block = _block(text)
    tk = tokenize(block)
    return parse_numbers(block, tk.token_start, tk.token_end)


def test_numbers_dash_and_na():
    values, parsed = _numbers(["0", "7", "81920", "20240101", "-", "N/A", "37.29", "-5", "+3", "123456789012"])
    assert parsed.all()
    assert np.array_equal(values, [0, 7, 81920, 20240101, np.nan, np.nan, 37.29, -5, 3, 123456789012],
                          equal_nan=True)


def test_forms_for_the_line_parser_are_not_parsed():
    _values, parsed = _numbers(["1e5", "inf", "nan", "1.2.3", "12a", "1234567890123456", "--", "."])
    assert not parsed.any()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.integers(-10**15 + 1, 10**15 - 1).map(str),
                          st.floats(-1e6, 1e6, allow_nan=False).map(lambda x: f"{x:.4f}"),
                          st.text(alphabet="0123456789.-+eN/A:x", min_size=1, max_size=12)), min_size=1, max_size=40))
def test_parsed_numbers_equal_float_bit_for_bit(tokens):
    values, parsed = _numbers(tokens)
    for token, value, ok in zip(tokens, values.tolist(), parsed.tolist()):
        if not ok:
            continue
        if token in ("-", "N/A"):
            assert np.isnan(value)
        else:
            assert value == float(token), token


def test_clock_times():
    block = _block("00:00:00 23:59:60 12:34:56 1:02:03 12-34-56")
    tk = tokenize(block)
    secs, parsed = parse_clock_times(block, tk.token_start, tk.token_end)
    assert parsed.tolist() == [True, True, True, False, False]
    assert secs[:3].tolist() == [0, 86400, 45296]
