"""Vectorised tokenizer for ``nvidia-smi dmon`` text: a block of bytes -> line kinds, token spans, numbers.

Works on a ``numpy.uint8`` view of the bytes (no decoded copy of the text): bytes <= 0x20 (space, tab, CR, LF
and the other ASCII controls) separate tokens, ``\\n`` ends a line. Numbers are read with integer arithmetic: a
token of at most 15 digits, one optional decimal point and an optional sign is ``mantissa / 10**decimals``, the
correctly rounded double that ``float()`` gives for the same text (both operands are exact doubles and IEEE 754
division rounds once). Other tokens (exponents, 16+ digits, ``1:2:3``) are reported as not parsed so the caller
can read that line with the line parser. ``-`` and ``N/A`` are NaN (dmon's "could not be read").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

U8 = npt.NDArray[np.uint8]
I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
B = npt.NDArray[np.bool_]

_SEPARATOR_MAX = 0x20
_NEWLINE = 0x0A
_MAX_DIGITS = 15  # below 2**53: the mantissa is an exact double
_DIGIT_0 = 0x30
_COLON = 0x3A
_DOT = 0x2E
_MINUS = 0x2D
_PLUS = 0x2B


@dataclass
class BlockTokens:
    """Lines and tokens of one block of bytes.

    Attributes:
        line_start, line_end: byte offsets of each line (end excludes the newline).
        first_byte: first byte of each line (0 for an empty line).
        token_count: tokens on each line.
        first_token: index into ``token_start`` of each line's first token.
        token_start, token_end: byte offsets of every token, in order.
    """

    line_start: I64
    line_end: I64
    first_byte: U8
    token_count: I64
    first_token: I64
    token_start: I64
    token_end: I64

    @property
    def lines(self) -> int:
        return int(self.line_start.shape[0])


def tokenize(block: U8) -> BlockTokens:
    """Split ``block`` into lines and whitespace-separated tokens (all vectorised; memory about 3 bytes per byte
    of the block for the moment it runs)."""
    size = int(block.shape[0])
    newlines = np.flatnonzero(block == _NEWLINE)
    starts = np.empty(newlines.shape[0] + 1, dtype=np.int64)
    starts[0] = 0
    starts[1:] = newlines + 1
    ends = np.empty_like(starts)
    ends[:-1] = newlines
    ends[-1] = size
    if starts[-1] >= size:  # the block ends with a newline: no last, empty line
        starts, ends = starts[:-1], ends[:-1]
    word = (block > _SEPARATOR_MAX).view(np.int8)
    edges = np.diff(word, prepend=np.int8(0), append=np.int8(0))
    del word
    token_start = np.flatnonzero(edges == 1)
    token_end = np.flatnonzero(edges == -1)
    del edges
    token_line = np.searchsorted(newlines, token_start)
    count = np.bincount(token_line, minlength=starts.shape[0]).astype(np.int64)[: starts.shape[0]]
    first_token = np.zeros(starts.shape[0], dtype=np.int64)
    if starts.shape[0] > 1:
        np.cumsum(count[:-1], out=first_token[1:])
    first = np.zeros(starts.shape[0], dtype=np.uint8)
    nonempty = ends > starts
    first[nonempty] = block[starts[nonempty]]
    return BlockTokens(starts, ends, first, count, first_token, token_start, token_end)


def parse_numbers(block: U8, start: I64, end: I64) -> tuple[F64, B]:
    """Numbers of the tokens ``block[start:end]``: (values, parsed). NaN for ``-`` and ``N/A``; ``parsed`` is
    False where the token is not a plain decimal number of at most 15 digits (read those with ``float()``)."""
    n = int(start.shape[0])
    values = np.full(n, np.nan)
    if n == 0:
        return values, np.ones(0, dtype=bool)
    length = end - start
    width = int(min(int(length.max()), _MAX_DIGITS + 2))
    pos = np.arange(width)
    index = np.minimum(start[:, None] + pos, block.shape[0] - 1)
    chars = block[index]
    del index
    inside = pos < length[:, None]
    digit = (chars - np.uint8(_DIGIT_0)).astype(np.int64)
    is_digit = (digit <= 9) & (digit >= 0) & inside
    is_dot = (chars == _DOT) & inside
    signed = (chars[:, 0] == _MINUS) | (chars[:, 0] == _PLUS)
    other = inside & ~is_digit & ~is_dot
    other[:, 0] &= ~signed
    ndigits = is_digit.sum(axis=1)
    parsed = ~other.any(axis=1) & (is_dot.sum(axis=1) <= 1) & (ndigits >= 1) & (ndigits <= _MAX_DIGITS)
    parsed &= length <= width
    mantissa = np.zeros(n, dtype=np.int64)
    decimals = np.zeros(n, dtype=np.int64)
    after_dot = np.zeros(n, dtype=bool)
    for k in range(width):
        d = is_digit[:, k]
        np.copyto(mantissa, mantissa * 10 + digit[:, k], where=d)
        decimals += d & after_dot
        after_dot |= is_dot[:, k]
    values[parsed] = mantissa[parsed] / np.power(10.0, decimals[parsed])
    negative = parsed & (chars[:, 0] == _MINUS)
    values[negative] = -values[negative]
    dash = (length == 1) & (chars[:, 0] == _MINUS)
    na = (length == 3) & (chars[:, 0] == ord("N")) & (chars[:, min(1, width - 1)] == ord("/")) & (
        chars[:, min(2, width - 1)] == ord("A"))
    blank = dash | na
    values[blank] = np.nan
    return values, parsed | blank


def parse_clock_times(block: U8, start: I64, end: I64) -> tuple[F64, B]:
    """Seconds of the day of ``HH:MM:SS`` tokens: (seconds, parsed); other shapes are not parsed."""
    n = int(start.shape[0])
    if n == 0:
        return np.empty(0), np.ones(0, dtype=bool)
    index = np.minimum(start[:, None] + np.arange(8), block.shape[0] - 1)
    chars = block[index].astype(np.int64)
    digit = chars - _DIGIT_0
    digit_cols = [0, 1, 3, 4, 6, 7]
    parsed = ((end - start) == 8) & (chars[:, 2] == _COLON) & (chars[:, 5] == _COLON)
    parsed &= ((digit[:, digit_cols] >= 0) & (digit[:, digit_cols] <= 9)).all(axis=1)
    hours = digit[:, 0] * 10 + digit[:, 1]
    minutes = digit[:, 3] * 10 + digit[:, 4]
    seconds = digit[:, 6] * 10 + digit[:, 7]
    return (hours * 3600 + minutes * 60 + seconds).astype(np.float64), parsed
