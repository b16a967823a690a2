"""Fixed-width reading of ``nvidia-smi dmon`` data lines: a run of lines of one length is a byte matrix.

dmon right-aligns every field in a column of fixed width (``printf("%5d")``-style, see the sample logs in
tests/fixtures/monitor), so consecutive data lines of one length, one after another in the block, are a
(lines, length + 1) matrix of bytes whose columns hold the same field on every line. Such a run is read column by
column through strided views (no gather per token): each field's last 8 bytes become one little-endian word, its
leading spaces become "0"s, and 8 digits are read at once (:func:`gpudesk.telemetry.formats.dmon_tokens.eight_digits`).

A run is read this way only when every line has the header's token count and every token ends at the byte where
the first line's does (so each field holds exactly one token); a field that is not a whole number of up to 8 digits,
``-`` or (for the time column) ``HH:MM:SS`` makes the whole run go back to the token reader. The result is the
same numbers :func:`gpudesk.telemetry.formats.dmon_tokens.parse_numbers` gives.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gpudesk.telemetry.formats.dmon_format import DmonLayout
from gpudesk.telemetry.formats.dmon_tokens import (
    MINUS,
    ZEROS,
    Workspace,
    clock_seconds,
    eight_digits,
    keep_masks,
)

MIN_RUN_LINES = 64  # shorter runs are not worth the checks
_SPACES = np.uint64(0x2020202020202020)
_LOW7 = np.uint64(0x7F7F7F7F7F7F7F7F)
_HIGH = np.uint64(0x8080808080808080)
_F64 = npt.NDArray[np.float64]
_B = npt.NDArray[np.bool_]


def fixed_width_values(lay: DmonLayout, block: np.ndarray, line_start: np.ndarray, line_end: np.ndarray,
                       ws: Workspace) -> tuple[_F64, _B]:
    """(values (lines, ncols) with the time column as seconds of the day, read) for data lines given by their
    byte spans in ``block``: ``read`` is True for the lines of fixed-width tables read here; the others are left
    for the token reader."""
    n = int(line_start.shape[0])
    ncols = lay.ncols
    values = ws.get("fixed_values", n * ncols, np.float64).reshape(n, ncols)  # valid until the next block
    read = np.zeros(n, dtype=bool)
    if n < MIN_RUN_LINES or lay.dcgm:
        return values, read
    length = line_end - line_start
    breaks = np.ones(n, dtype=bool)
    breaks[1:] = ((line_start[1:] - line_start[:-1]) != length[:-1] + 1) | (length[1:] != length[:-1])
    firsts = np.flatnonzero(breaks)
    lasts = np.append(firsts[1:], n)
    for first, last in zip(firsts.tolist(), lasts.tolist()):
        stride = int(length[first]) + 1
        # the block's last line may lack its newline: keep every row of the matrix inside the block
        while last > first and int(line_start[last - 1]) + stride > block.shape[0]:
            last -= 1
        if last - first < MIN_RUN_LINES:
            continue
        if _read_run(lay, block, int(line_start[first]), stride, last - first, values[first:last], ws):
            read[first:last] = True
    return values, read


def _token_ends(line: np.ndarray) -> np.ndarray:
    """Byte offsets just past each whitespace-separated token of one line."""
    word = line > 0x20
    ends = np.flatnonzero(word[:-1] & ~word[1:]) + 1
    return np.append(ends, line.shape[0]) if line.size and word[-1] else ends


def _read_run(lay: DmonLayout, block: np.ndarray, offset: int, stride: int, rows: int, out: np.ndarray,
              ws: Workspace) -> bool:
    """Read ``rows`` lines of ``stride`` bytes from ``offset`` into ``out``; False (``out`` undefined) when they
    are not one fixed-width table of the layout's columns (each field: spaces, then one token ending where the
    first line's does)."""
    ncols = lay.ncols
    width = stride - 1
    matrix = np.ndarray((rows, stride), dtype=np.uint8, buffer=block, offset=offset, strides=(stride, 1))
    ends = _token_ends(matrix[0, :width])
    if ends.shape[0] != ncols:
        return False
    region = np.diff(ends, prepend=0)  # from the previous token's end (a separator) to this token's end
    kept = np.minimum(region, 8)
    # bytes of a region before its last 8, and after the last token, must be spaces
    filler = [np.arange(int(e) - int(r), int(e) - 8) for e, r in zip(ends, region) if r > 8]
    if width > int(ends[-1]):
        filler.append(np.arange(int(ends[-1]), width))
    if filler and not bool(np.all(matrix[:, np.concatenate(filler)] <= 0x20)):
        return False
    # the last 8 bytes of every field as one little-endian word, a strided copy per column (a gather through a
    # byte-strided view is ten times slower). The (rows, columns) words live in the workspace and are worked on in
    # place: a table's temporaries are larger than the allocator keeps, and fresh ones would cost a page fault per
    # 4 KiB each time.
    size = rows * ncols
    word = ws.get("fixed_word", size, np.uint64).reshape(rows, ncols)
    for j, end in enumerate(ends.tolist()):
        word[:, j] = np.ndarray((rows,), dtype="<u8", buffer=block, offset=offset + end - 8, strides=(stride,))
    spaces = ws.get("fixed_spaces", size, np.uint64).reshape(rows, ncols)
    work = ws.get("fixed_work", size, np.uint64).reshape(rows, ncols)
    np.right_shift(word, np.uint64(56), out=work)  # each field's last byte
    if not bool(np.all(work > np.uint64(0x20))):
        return False  # a field that does not end with its token
    dash = work == np.uint64(MINUS)
    keep = keep_masks(8)[kept]
    word &= keep
    word |= ZEROS & ~keep
    _space_bytes(word, spaces, work)
    # the spaces of a field come first: shifted to its first kept byte they read 0x01, 0x0101, 0x010101, ...
    np.right_shift(spaces, np.uint64(8) * (np.uint64(8) - kept.astype(np.uint64)), out=work)
    dash &= work == _ONES_BELOW[kept - 1]
    test = ws.get("fixed_test", size, np.uint64).reshape(rows, ncols)
    separated = (region > 8) | (np.arange(ncols) == 0)
    np.bitwise_and(work, np.uint64(1), out=test)
    if not bool(np.all((test != 0) | separated)):
        return False  # a token runs into the one before it
    work *= np.uint64(0xFF)
    np.add(work, np.uint64(1), out=test)
    test &= work
    if not bool(np.all(test == 0)):
        return False  # a space after a digit: two tokens in one field
    if lay.time_col is not None:
        j = lay.time_col
        if int(region[j]) < 8 + (j > 0):
            return False
        seconds, ok = clock_seconds(word[:, j].copy(), ws)
        if not bool(ok.all()):
            return False
        out[:, j] = seconds
    spaces *= np.uint64(0x10)
    word += spaces  # leading spaces (0x20) become "0" (0x30)
    number, ok = eight_digits(word.reshape(-1), ws)
    numbers = [j for j in range(ncols) if j != lay.time_col]
    fine = ok.reshape(rows, ncols) | dash
    if not bool(fine[:, numbers].all()):
        return False
    time_of_day = None if lay.time_col is None else out[:, lay.time_col].copy()
    out[...] = number.reshape(rows, ncols)
    out[dash] = np.nan
    if time_of_day is not None:
        out[:, lay.time_col] = time_of_day
    return True


# 0x01 in each of the lowest k bytes (k = 0..8): the space flags of a field of k spaces
_ONES_BELOW = np.array([sum(1 << (8 * i) for i in range(k)) for k in range(9)], dtype=np.uint64)


def _space_bytes(word: npt.NDArray[np.uint64], out: npt.NDArray[np.uint64], work: npt.NDArray[np.uint64]) -> None:
    """0x01 into each byte of ``out`` where ``word`` has a space, 0x00 elsewhere (exact per-byte zero test of
    ``word ^ 0x20..20``: S. E. Anderson, "Bit Twiddling Hacks", "Determine if a word has a zero byte",
    https://graphics.stanford.edu/~seander/bithacks.html#ZeroInWord); ``work`` is scratch of the same shape."""
    np.bitwise_xor(word, _SPACES, out=out)
    np.bitwise_and(out, _LOW7, out=work)
    work += _LOW7
    work |= out
    np.invert(work, out=work)
    work &= _HIGH
    np.right_shift(work, np.uint64(7), out=out)
