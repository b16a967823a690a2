"""Fixed-width reading of ``nvidia-smi dmon`` data lines: a run of lines of one length is a byte matrix.

dmon right-aligns every field in a column of fixed width (``printf("%5d")``-style, see the sample logs in
tests/fixtures/monitor), so consecutive data lines of one length, one after another in the block, are a
(lines, length + 1) matrix of bytes whose columns hold the same field on every line. Such a run is read column by
column through strided views (no gather per token): each field's last 8 bytes become one little-endian word, its
leading spaces become "0"s, and 8 digits are read at once (:func:`gpudesk.telemetry.dmon_tokens.eight_digits`).

A run is read this way only when every line has the header's token count and every token ends at the byte where
the first line's does (so each field holds exactly one token); a field that is not a whole number of up to 8 digits,
``-`` or (for the time column) ``HH:MM:SS`` makes the whole run go back to the token reader. The result is the
same numbers :func:`gpudesk.telemetry.dmon_tokens.parse_numbers` gives.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gpudesk.telemetry.dmon_format import DmonLayout
from gpudesk.telemetry.dmon_tokens import (
    MINUS,
    ZEROS,
    BlockTokens,
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


def fixed_width_values(lay: DmonLayout, block: np.ndarray, tk: BlockTokens, lines: np.ndarray,
                       ws: Workspace) -> tuple[_F64, _B]:
    """(values (len(lines), ncols) with the time column as seconds of the day, read) for the data ``lines`` of
    ``block``: ``read`` is True for the lines of fixed-width runs read here; the others are left for the token
    reader."""
    n = int(lines.shape[0])
    ncols = lay.ncols
    values = np.empty((n, ncols))
    read = np.zeros(n, dtype=bool)
    if n < MIN_RUN_LINES or lay.dcgm:
        return values, read
    starts = tk.line_start[lines]
    length = tk.line_end[lines] - starts
    breaks = np.ones(n, dtype=bool)
    breaks[1:] = ((starts[1:] - starts[:-1]) != length[:-1] + 1) | (length[1:] != length[:-1])
    firsts = np.flatnonzero(breaks)
    lasts = np.append(firsts[1:], n)
    for first, last in zip(firsts.tolist(), lasts.tolist()):
        stride = int(length[first]) + 1
        # the block's last line may lack its newline: keep every row of the matrix inside the block
        while last > first and int(starts[last - 1]) + stride > block.shape[0]:
            last -= 1
        if last - first < MIN_RUN_LINES:
            continue
        if _read_run(lay, block, tk, int(lines[first]), int(starts[first]), stride, last - first,
                     values[first:last], ws):
            read[first:last] = True
    return values, read


def _read_run(lay: DmonLayout, block: np.ndarray, tk: BlockTokens, first_line: int, offset: int, stride: int,
              rows: int, out: np.ndarray, ws: Workspace) -> bool:
    """Read ``rows`` lines of ``stride`` bytes from ``offset`` into ``out``; False (``out`` undefined) when they
    are not one fixed-width table of the layout's columns."""
    ncols = lay.ncols
    if not bool(np.all(tk.token_count[first_line:first_line + rows] == ncols)):
        return False
    ft = int(tk.first_token[first_line])
    ends = (tk.token_end[ft:ft + ncols] - offset).astype(np.int64)
    width = stride - 1
    matrix = np.ndarray((rows, stride), dtype=np.uint8, buffer=block, offset=offset, strides=(stride, 1))
    # every token ends where the first line's does: with the header's token count, each field is one token
    if not bool(np.all(matrix[:, ends - 1] > 0x20)):
        return False
    inner = ends[ends < width]
    if inner.size and not bool(np.all(matrix[:, inner] <= 0x20)):
        return False
    region = np.diff(ends, prepend=0)  # bytes from the previous token's end to this one's: spaces, then the token
    long = np.flatnonzero(region > 8)
    if long.size and not bool(np.all(matrix[:, ends[long] - 9] <= 0x20)):
        return False  # a token of more than 8 bytes
    # the last 8 bytes of every field as one little-endian word: one strided gather for the whole table
    words = np.ndarray((rows, width + 1), dtype="<u8", buffer=block, offset=offset - 8, strides=(stride, 1))
    numbers = [j for j in range(ncols) if j != lay.time_col]
    word = words[:, ends[numbers]]
    if lay.time_col is not None:
        if region[lay.time_col] < 8:
            return False
        seconds, ok = clock_seconds(words[:, ends[lay.time_col]], ws)
        if not bool(ok.all()):
            return False
        out[:, lay.time_col] = seconds
    width_kept = np.minimum(region[numbers], 8)
    keep = keep_masks(8)[width_kept]
    dash = (word >> np.uint64(56)) == np.uint64(MINUS)
    dash &= (((word >> np.uint64(48)) & np.uint64(0xFF)) <= np.uint64(0x20)) | (width_kept == 1)
    word &= keep
    word |= ZEROS & ~keep
    word += _space_bytes(word) * np.uint64(0x10)  # leading spaces (0x20) become "0" (0x30)
    flat = word.reshape(-1)
    number, ok = eight_digits(flat, ws)
    if not bool((ok | dash.reshape(-1)).all()):
        return False
    values = number.reshape(rows, len(numbers)).astype(np.float64)
    values[dash] = np.nan
    out[:, numbers] = values
    return True

def _space_bytes(word: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """0x01 in each byte of ``word`` that is a space, 0x00 elsewhere (exact per-byte zero test of ``word ^
    0x20..20``: S. E. Anderson, "Bit Twiddling Hacks", "Determine if a word has a zero byte",
    https://graphics.stanford.edu/~seander/bithacks.html#ZeroInWord)."""
    x = word ^ _SPACES
    y = ((x & _LOW7) + _LOW7) | x
    return (~y & _HIGH) >> np.uint64(7)
