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

PAD = 8  # bytes of spaces before a block: every token ends at least 8 bytes in, so its last 8 bytes are one word
_SEPARATOR_MAX = 0x20
_NEWLINE = 0x0A
_MAX_DIGITS = 15  # below 2**53: the mantissa is an exact double
_DIGIT_0 = 0x30
_COLON = 0x3A
_DOT = 0x2E
MINUS = 0x2D
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


def split_lines(block: U8) -> tuple[I64, I64]:
    """(line_start, line_end) byte offsets of the lines of ``block`` (laid out by :func:`padded_block`; an end
    excludes the newline)."""
    size = int(block.shape[0])
    newlines = np.flatnonzero(block == _NEWLINE)
    starts = np.empty(newlines.shape[0] + 1, dtype=np.int64)
    starts[0] = PAD
    starts[1:] = newlines + 1
    ends = np.empty_like(starts)
    ends[:-1] = newlines
    ends[-1] = size
    if starts[-1] >= size:  # the block ends with a newline: no last, empty line
        starts, ends = starts[:-1], ends[:-1]
    return starts, ends


def blank_lines(block: U8, starts: I64, ends: I64) -> B:
    """Lines holding no token (nothing but spaces and controls). Only lines that begin and end with whitespace
    are looked into."""
    n = int(starts.shape[0])
    empty = ends <= starts
    first = block[np.minimum(starts, block.shape[0] - 1)]
    last = block[np.maximum(ends - 1, 0)]
    maybe = np.flatnonzero(empty | ((first <= _SEPARATOR_MAX) & (last <= _SEPARATOR_MAX)))
    blank = np.zeros(n, dtype=bool)
    for i in maybe.tolist():
        blank[i] = not bool(np.any(block[starts[i]:ends[i]] > _SEPARATOR_MAX))
    return blank


def tokenize(block: U8) -> BlockTokens:
    """Split ``block`` (laid out by :func:`padded_block`) into lines and whitespace-separated tokens (all
    vectorised; memory about 3 bytes per byte of the block for the moment it runs)."""
    size = int(block.shape[0])
    starts, ends = split_lines(block)
    word = block > _SEPARATOR_MAX  # the PAD spaces make word[0] False: every token has a start edge
    token_start = np.flatnonzero(word[1:] > word[:-1])
    token_start += 1
    token_end = np.flatnonzero(word[:-1] > word[1:])
    token_end += 1
    if word[-1]:  # the block ends inside a token (no final newline)
        token_end = np.append(token_end, size)
    del word
    # tokens between the starts of two lines belong to the first one (a search per line, not per token)
    first_token = np.searchsorted(token_start, starts).astype(np.int64)
    count = np.diff(first_token, append=np.int64(token_start.shape[0]))
    first = np.zeros(starts.shape[0], dtype=np.uint8)
    nonempty = ends > starts
    first[nonempty] = block[starts[nonempty]]
    return BlockTokens(starts, ends, first, count, first_token, token_start, token_end)


def _parse_general(block: U8, start: I64, end: I64) -> tuple[F64, B]:
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
    signed = (chars[:, 0] == MINUS) | (chars[:, 0] == _PLUS)
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
    negative = parsed & (chars[:, 0] == MINUS)
    values[negative] = -values[negative]
    dash = (length == 1) & (chars[:, 0] == MINUS)
    na = (length == 3) & (chars[:, 0] == ord("N")) & (chars[:, min(1, width - 1)] == ord("/")) & (
        chars[:, min(2, width - 1)] == ord("A"))
    blank = dash | na
    values[blank] = np.nan
    return values, parsed | blank


_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)
ZEROS = np.uint64(0x3030303030303030)  # "00000000"
_HIGH_NIBBLES = np.uint64(0xF0F0F0F0F0F0F0F0)
_SIXES = np.uint64(0x0606060606060606)


def padded_block(data: U8) -> U8:
    """``data`` after PAD spaces (the layout :func:`tokenize` and the number readers expect)."""
    out = np.empty(data.shape[0] + PAD, dtype=np.uint8)
    out[:PAD] = 0x20
    out[PAD:] = data
    return out


class Workspace:
    """Grow-only scratch arrays reused from block to block. A parse then allocates its block-sized temporaries
    once, not once per block: memory the allocator gave back to the system costs a page fault per 4 KiB each
    time it is taken again (on a 2-million-line log that was a third of the parse's CPU time)."""

    def __init__(self) -> None:
        self._arrays: dict[str, np.ndarray] = {}

    def get(self, name: str, n: int, dtype: npt.DTypeLike) -> np.ndarray:
        """``n`` elements of the scratch array ``name`` (contents undefined; valid until the next ``get`` of
        the same name)."""
        dt = np.dtype(dtype)
        arr = self._arrays.get(name)
        if arr is None or arr.dtype != dt or arr.shape[0] < n:
            size = max(n, int(1.25 * arr.shape[0]) if arr is not None and arr.dtype == dt else 0)
            arr = self._arrays[name] = np.empty(size, dtype=dt)
        return arr[:n]


def _last_words(block: U8, end: I64, ws: Workspace) -> npt.NDArray[np.uint64]:
    """The 8 bytes before each ``end`` as a little-endian uint64 (first byte lowest), read through a
    byte-strided view of the block (no index matrix)."""
    words = np.ndarray(shape=(block.shape[0] - 7,), dtype="<u8", buffer=block, strides=(1,))
    index = np.subtract(end, 8, out=ws.get("index", end.shape[0], np.int64))
    # indices are in range by construction; mode="clip" writes straight into ``out`` ("raise" buffers it)
    return np.take(words, index, out=ws.get("word", end.shape[0], np.uint64), mode="clip")


def eight_digits(word: npt.NDArray[np.uint64], ws: Workspace) -> tuple[npt.NDArray[np.uint64], B]:
    """Value of 8 ASCII digits packed in a little-endian word, and whether all 8 bytes are digits (SWAR: three
    multiply-add steps combine digit pairs, quads, then the two halves; D. Lemire, "Fast conversion of
    8-digit strings", https://lemire.me/blog/2022/01/21/swar-explained-parsing-eight-digits/).

    ``word`` is overwritten with the value; every temporary comes from ``ws``."""
    n = word.shape[0]
    scratch = np.bitwise_and(word, _HIGH_NIBBLES, out=ws.get("scratch", n, np.uint64))
    ok = np.equal(scratch, ZEROS, out=ws.get("ok", n, bool))
    np.add(word, _SIXES, out=scratch)
    scratch &= _HIGH_NIBBLES
    ok &= np.equal(scratch, ZEROS, out=ws.get("test", n, bool))
    x = word
    x -= ZEROS
    for shift, factor, mask in ((8, 10, 0x00FF00FF00FF00FF), (16, 100, 0x0000FFFF0000FFFF),
                                (32, 10000, 0xFFFFFFFF)):
        np.right_shift(x, np.uint64(shift), out=scratch)
        x *= np.uint64(factor)
        x += scratch
        x &= np.uint64(mask)
    return x, ok


def keep_masks(longest: int) -> npt.NDArray[np.uint64]:
    """Per token length: the mask keeping a token's bytes of its last word."""
    keep = np.full(max(longest, 8) + 1, _ONES, dtype=np.uint64)
    for n in range(1, 9):
        keep[n] = _ONES << np.uint64(8 * (8 - n)) if n < 8 else _ONES
    keep[0] = np.uint64(0)
    return keep


def parse_numbers(block: U8, start: I64, end: I64, ws: Workspace | None = None) -> tuple[F64, B]:
    """Numbers of the tokens ``block[start:end]`` (``block`` laid out by :func:`padded_block`): (values,
    parsed). NaN for ``-`` and ``N/A``; ``parsed`` is False where the token is not a plain decimal number of at
    most 15 digits (read those with ``float()``). With a workspace, both results live in it: use them before the
    next call.

    Whole numbers of up to 8 digits (nearly every dmon field) are read 8 bytes at a time; the others by digit
    position (:func:`_parse_general`)."""
    n = int(start.shape[0])
    if n == 0:
        return np.empty(0), np.ones(0, dtype=bool)
    ws = Workspace() if ws is None else ws
    length = np.subtract(end, start, out=ws.get("length", n, np.int64))
    longest = int(length.max())
    word = _last_words(block, end, ws)
    keep = np.take(keep_masks(longest), length, out=ws.get("keep", n, np.uint64), mode="clip")
    # the bytes before the token read as leading zeros: (word & keep) | ("0"s & ~keep), as xor-and-xor in place
    word ^= ZEROS
    word &= keep
    word ^= ZEROS
    # '-' (dmon's "could not be read", whole columns of it for jpg/ofa on older GPUs): NaN without the slow path
    dash = np.equal(length, 1, out=ws.get("dash", n, bool))
    np.right_shift(word, np.uint64(56), out=keep)
    dash &= np.equal(keep, np.uint64(MINUS), out=ws.get("test", n, bool))
    value, parsed = eight_digits(word, ws)
    if longest > 8:
        parsed &= np.less_equal(length, 8, out=ws.get("test", n, bool))
    values = ws.get("values", n, np.float64)
    np.copyto(values, value)
    values[dash] = np.nan
    parsed |= dash
    rest = np.flatnonzero(~parsed)
    if rest.size:
        v, p = _parse_general(block, start[rest], end[rest])
        values[rest] = v
        parsed[rest] = p
    return values, parsed


def parse_clock_times(block: U8, start: I64, end: I64, ws: Workspace | None = None) -> tuple[F64, B]:
    """Seconds of the day of ``HH:MM:SS`` tokens (``block`` laid out by :func:`padded_block`): (seconds,
    parsed); other shapes are not parsed."""
    n = int(start.shape[0])
    if n == 0:
        return np.empty(0), np.ones(0, dtype=bool)
    ws = Workspace() if ws is None else ws
    word = _last_words(block, end, ws)
    seconds, ok = clock_seconds(word, ws)
    return seconds, ok & ((end - start) == 8)


def clock_seconds(word: npt.NDArray[np.uint64], ws: Workspace) -> tuple[F64, B]:
    """Seconds of the day of ``HH:MM:SS`` packed in little-endian words (``word`` is overwritten), and whether
    each word has that shape."""
    colons = np.uint64(0x0000_3A00_003A_0000)  # ':' at bytes 2 and 5
    colon_mask = np.uint64(0x0000_FF00_00FF_0000)
    shaped = (word & colon_mask) == colons
    word &= ~colon_mask
    word |= ZEROS & colon_mask  # "HH0MM0SS"
    value, digits = eight_digits(word, ws)
    v = value.astype(np.int64)
    seconds = (v // 1_000_000) * 3600 + (v // 1000 % 1000) * 60 + v % 1000
    return seconds.astype(np.float64), shaped & digits
