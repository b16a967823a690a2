"""Parse ``nvidia-smi dmon`` text into samples: whole files here (:func:`parse_dmon`, :func:`read_dmon_file`),
live lines in :mod:`gpudesk.telemetry.formats.dmon_lines` (``DmonLineParser``, re-exported here), the format itself
(column tokens, units, header layouts) in :mod:`gpudesk.telemetry.formats.dmon_format`.

Format facts (monitor.md section 3, from the dmon help text and public samples): a names header
(``# gpu pwr ...`` or ``#Date Time gpu ...``) and a units header (``# Idx W ...``); the columns follow the order
of the ``-s`` groups (p u c v m e t), so they are mapped from the header, never by position; headers repeat;
blank lines occur; ``-`` means the metric is not supported or could not be read; failures are printed as text
("Not supported on the device(s)", "Failed to initialize NVML: ...").

Units: pwr W, temperatures C, utilizations %, clocks MHz (-> Hz), fb/bar1/ccpm "MB" (nvidia-smi's memory
figures are MiB: x 1024^2), rxpci/txpci "MB/s" as printed (decimal: x 10^6; see dmon_format).
Date/time columns are the node's local time as printed; they are stored as if UTC (the log has no time zone).

Speed and memory: a file is read in blocks of bytes (never decoded as a whole, never held twice); each block is
split into lines and tokens and its numbers read by the vectorised tokenizer of
:mod:`gpudesk.telemetry.formats.dmon_tokens`. Headers, foreign output and lines the tokenizer cannot read (other token
counts, unusual number forms) go through the line parser, so a bad line is skipped and counted, never fatal.
Numbers are checked at this boundary: a GPU index that is not a small whole number, a date that is not a calendar
date or a time of day out of range stops the parse with a :class:`DmonError` naming the line and the field.
"""

from __future__ import annotations

import codecs
import io
import math
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, cast

import numpy as np

from gpudesk.file_limits import InputFileError, display_path, open_input, read_bounded
from gpudesk.i18n import _
from gpudesk.telemetry.formats.dmon_format import (
    COLUMN_MAP,
    DCGM_COLUMN_MAP,
    MAX_GPU_INDEX,
    NA_REASON,
    UNSUPPORTED_MARKERS,
    DmonError,
    DmonLayout,
    _dates_to_epoch,
    parse_data_line,
    parse_header,
)
from gpudesk.telemetry.formats.dmon_fixed import fixed_width_values
from gpudesk.telemetry.formats.dmon_lines import DmonLineParser
from gpudesk.telemetry.formats.dmon_tokens import (
    PAD,
    BlockTokens,
    blank_lines,
    Workspace,
    padded_block,
    parse_clock_times,
    parse_numbers,
    split_lines,
    tokenize,
)
from gpudesk.telemetry.core.model import History, column_dtype, concat_histories
from gpudesk.telemetry.core.plausibility import mask_impossible
from gpudesk.units import MIB, format_limit

__all__ = [
    "COLUMN_MAP",
    "DCGM_COLUMN_MAP",
    "MIB",
    "NA_REASON",
    "UNSUPPORTED_MARKERS",
    "DmonError",
    "DmonLayout",
    "DmonLineParser",
    "DmonLog",
    "parse_data_line",
    "parse_dmon",
    "parse_header",
    "read_dmon_file",
]

BLOCK_BYTES = 2 * 1024 * 1024  # bytes tokenized at a time: bounds the tokenizer's transient memory (~12x)
_HASH = ord("#")
_SPACE = ord(" ")
_TIME_COLUMN = "__seconds_of_day"
_DATE_COLUMN = "__date_epoch"
_GPU_COLUMN = "__gpu"


@dataclass
class DmonLog:
    """Result of parsing dmon text.

    Attributes:
        frame: the samples (NaN = '-'); empty when nothing could be read.
        columns: dmon column names of the (last) header, in order.
        notes: what was skipped or assumed (counts of bad lines, unknown columns, time assumptions).
        unsupported: True when dmon said it cannot run on this GPU/driver ("Not supported on the device(s)").
        errors: error lines dmon printed.
        has_time: whether the log carries its own time stamps (-o T or -o DT).
    """

    frame: History
    columns: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unsupported: bool = False
    errors: list[str] = field(default_factory=list)
    has_time: bool = False

    @property
    def empty(self) -> bool:
        return len(self.frame) == 0


class _Run:
    """Columns of the data lines under one header layout, filled block by block in their storage dtype.

    Columns are allocated once for the rows the rest of the input is expected to hold (from the bytes per line
    seen so far) and grown by half when that was short, so a 2-million-line log is not gathered in parts and
    joined (a second copy of every column)."""

    def __init__(self, layout: DmonLayout):
        self.layout = layout
        self.columns: dict[str, np.ndarray] = {}
        self.rows = 0

    def _store(self, columns: dict[str, tuple[np.ndarray, float, np.dtype]], expected_rows: int) -> None:
        """Append ``columns`` (name -> (values, scale, storage dtype)): values times scale, written straight into
        the run's column (no temporary per block)."""
        n = next(iter(columns.values()))[0].shape[0]
        end = self.rows + n
        for name, (arr, scale, dtype) in columns.items():
            target = self.columns.get(name)
            if target is None or target.shape[0] < end:
                size = max(end, expected_rows, int(1.5 * target.shape[0]) if target is not None else 0)
                grown = np.empty(size, dtype=dtype)
                if target is not None:
                    grown[:self.rows] = target[:self.rows]
                target = self.columns[name] = grown
            if scale != 1.0:
                np.multiply(arr, scale, out=target[self.rows:end], casting="unsafe")
            else:
                target[self.rows:end] = arr
        self.rows = end

    def finish(self) -> None:
        """Give back the room reserved beyond the rows read (a copy only when it is more than a quarter)."""
        for name, arr in self.columns.items():
            if arr.shape[0] > 1.25 * self.rows:
                self.columns[name] = arr[:self.rows].copy()

    def add(self, values: np.ndarray, line_numbers: np.ndarray, expected_rows: int = 0) -> int:
        """Check and keep parsed rows (columns in header order, the time column as seconds of the day);
        returns the rows dropped because their GPU index was '-'.

        Raises:
            DmonError: a GPU index, date or time of day that cannot be one, naming the first such line.
        """
        lay = self.layout
        gpu = values[:, lay.gpu_col]
        blank = np.isnan(gpu)
        dropped = int(blank.sum())
        if dropped:
            values, line_numbers, gpu = values[~blank], line_numbers[~blank], gpu[~blank]
        if not values.shape[0]:
            return dropped
        wrong = ~((gpu >= 0) & (gpu <= MAX_GPU_INDEX) & (gpu == np.floor(gpu)))
        if wrong.any():
            i = int(np.argmax(wrong))
            raise DmonError(_("Line {line}: the GPU index {value} is not a GPU index (a whole number from 0 to "
                              "{max}); the file is damaged or is not dmon output.").format(
                line=int(line_numbers[i]), value=_number_text(gpu[i]), max=MAX_GPU_INDEX), field="gpu")
        columns: dict[str, tuple[np.ndarray, float, np.dtype]] = {_GPU_COLUMN: (gpu, 1.0, np.dtype(np.int32))}
        if lay.time_col is not None:
            secs = values[:, lay.time_col]
            wrong = ~((secs >= 0) & (secs <= 86400))
            if wrong.any():
                i = int(np.argmax(wrong))
                raise DmonError(_("Line {line}: the time of day is out of range (HH:MM:SS from 00:00:00 to "
                                  "23:59:60); the file is damaged.").format(line=int(line_numbers[i])), field="time")
            if lay.date_col is not None:
                day = _dates_to_epoch(values[:, lay.date_col])
                wrong = np.isnan(day)
                if wrong.any():
                    i = int(np.argmax(wrong))
                    raise DmonError(_("Line {line}: the date {value} is not a calendar date (YYYYMMDD); the file "
                                      "is damaged.").format(line=int(line_numbers[i]),
                                                            value=_number_text(values[i, lay.date_col])),
                                    field="date")
                columns[_DATE_COLUMN] = (day + secs, 1.0, np.dtype(np.float64))
            else:
                columns[_TIME_COLUMN] = (secs, 1.0, np.dtype(np.float64))
        for col, metric, scale in lay.metric_cols:
            columns[metric] = (values[:, col], scale, column_dtype(metric))
        self._store(columns, expected_rows)
        return dropped

    def column(self, name: str) -> np.ndarray:
        """One column of the whole run (released from the run)."""
        arr = self.columns.pop(name, None)
        return np.empty(0) if arr is None else arr[:self.rows]


def _number_text(value: float) -> str:
    return str(int(value)) if np.isfinite(value) and value == np.floor(value) else repr(float(value))


class _Parser:
    """State carried from block to block: the runs, the current one, counts for the notes."""

    def __init__(self, total_bytes: int = 0) -> None:
        self.total_bytes = total_bytes  # of the whole input, when known: sizes the run's columns up front
        self.consumed_bytes = 0
        self.block_bytes = 1
        self.runs: list[_Run] = []
        self.errors: list[str] = []
        self.bad = 0
        self.other = 0
        self.before_header = 0
        self.line_base = 0
        self.workspace = Workspace()

    @property
    def current(self) -> _Run | None:
        return self.runs[-1] if self.runs else None

    def expected_rows(self, rows_in_block: int) -> int:
        """Rows the rest of the input may hold, at this block's bytes per row (0 when the size is unknown)."""
        if not self.total_bytes:
            return 0
        remaining = max(self.total_bytes - self.consumed_bytes, self.block_bytes)
        return int(rows_in_block * remaining / self.block_bytes * 1.02) + 64

    def feed(self, block: np.ndarray) -> None:
        self.block_bytes = max(1, int(block.shape[0]) - PAD)
        tk = _Lines(block)
        first = tk.first_byte
        blank = blank_lines(block, tk.line_start, tk.line_end)
        candidate = ((first == _SPACE) | ((first >= ord("0")) & (first <= ord("9")))) & ~blank
        special = np.flatnonzero((first == _HASH) | (~candidate & ~blank))
        event_lines = [-1]
        event_runs = [len(self.runs) - 1]
        extra: list[int] = []
        for i in special.tolist():
            text = _line_text(block, tk, i)
            if text[:1] == "#":
                layout = parse_header(text)
                current = self.current
                if layout is not None and (current is None or layout.names != current.layout.names):
                    if current is not None:
                        current.finish()
                    self.runs.append(_Run(layout))
                    event_lines.append(i)
                    event_runs.append(len(self.runs) - 1)
                continue
            current = self.current
            if current is not None and current.layout.dcgm and text[:1] == "G":
                extra.append(i)
                continue
            stripped = text.strip()
            if stripped == "Id":
                continue  # units line of dcgmi dmon
            if any(k in stripped.lower() for k in UNSUPPORTED_MARKERS):
                self.errors.append(stripped)
            elif current is None:
                self.before_header += 1
            else:
                self.other += 1
        run_of_line = np.asarray(event_runs)[
            np.searchsorted(np.asarray(event_lines), np.arange(tk.lines), side="right") - 1]
        data_mask = candidate & (run_of_line >= 0)
        self.before_header += int((candidate & (run_of_line < 0)).sum())
        if extra:
            data_mask[np.asarray(extra)] = True
        data = np.flatnonzero(data_mask)
        runs = run_of_line[data]
        if data.size:
            bounds = np.flatnonzero(np.diff(runs)) + 1
            for lines in np.split(data, bounds):
                self._add_lines(self.runs[int(run_of_line[lines[0]])], block, tk, lines)
        self.line_base += tk.lines
        self.consumed_bytes += self.block_bytes

    def _add_lines(self, run: _Run, block: np.ndarray, tk: _Lines, lines: np.ndarray) -> None:
        lay = run.layout
        n = int(lines.shape[0])
        values, read = fixed_width_values(lay, block, tk.line_start[lines], tk.line_end[lines], self.workspace)
        if bool(read.all()):
            ok = read
        else:
            rest = np.flatnonzero(~read)
            rest_values, rest_ok = self._token_values(lay, block, tk.tokens(), lines[rest])
            if rest.shape[0] == n:
                values, ok = rest_values, rest_ok
            else:
                values[rest] = rest_values
                ok = read.copy()
                ok[rest] = rest_ok
        self._keep(run, block, tk, lines, values, ok)

    def _token_values(self, lay: DmonLayout, block: np.ndarray, tk: BlockTokens, lines: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
        """(values, parsed) of data ``lines`` read token by token (the time column as seconds of the day)."""
        ncols = lay.ncols
        n = int(lines.shape[0])
        values = np.full((n, ncols), np.nan) if lay.dcgm else np.empty((0, 0))
        ok = np.zeros(n, dtype=bool)
        if not lay.dcgm:
            full = np.flatnonzero(tk.token_count[lines] == ncols)
            ws = self.workspace
            rows = full.shape[0]
            first_tokens = tk.first_token[lines[full]]
            number_cols = np.asarray([j for j in range(ncols) if j != lay.time_col])
            k = number_cols.shape[0]
            tokens = np.add(first_tokens[:, None], number_cols, out=ws.get("tokens", rows * k, np.int64).reshape(rows, k))
            flat = tokens.reshape(rows * k)
            starts = np.take(tk.token_start, flat, out=ws.get("starts", rows * k, np.int64), mode="clip")
            ends = np.take(tk.token_end, flat, out=ws.get("ends", rows * k, np.int64), mode="clip")
            nums, parsed = parse_numbers(block, starts, ends, ws)
            row_ok: np.ndarray = np.asarray(parsed.reshape(rows, k).all(axis=1))
            filled = ws.get("filled", rows * ncols, np.float64).reshape(rows, ncols)
            filled[:, number_cols] = nums.reshape(rows, k)
            if lay.time_col is not None:
                time_tokens = first_tokens + lay.time_col
                secs, time_ok = parse_clock_times(block, tk.token_start[time_tokens], tk.token_end[time_tokens], ws)
                filled[:, lay.time_col] = secs
                row_ok &= time_ok
            if full.shape[0] == n:  # every line has the header's token count (the usual case): no copy
                values = filled
                ok = row_ok
            else:
                values = np.full((n, ncols), np.nan)
                values[full] = filled
                ok[full] = row_ok
        return values, ok

    def _keep(self, run: _Run, block: np.ndarray, tk: _Lines, lines: np.ndarray, values: np.ndarray,
              ok: np.ndarray) -> None:
        """Give the run its parsed lines; a line the vectorised readers could not parse is read on its own."""
        lay = run.layout
        n = int(lines.shape[0])
        if ok.all():
            self.bad += run.add(values, self.line_base + lines + 1, self.expected_rows(n))
            return
        keep = ok.copy()
        for i in np.flatnonzero(~ok).tolist():
            row = parse_data_line(_line_text(block, tk, int(lines[i])), lay)
            if row is None:
                self.bad += 1
                continue
            if lay.time_col is not None:
                tc = lay.time_col
                row[tc:tc + 3] = [row[tc] * 3600 + row[tc + 1] * 60 + row[tc + 2]]
            values[i] = row
            keep[i] = True
        if not keep.all():
            values, lines = values[keep], lines[keep]
        self.bad += run.add(values, self.line_base + lines + 1, self.expected_rows(n))


class _Lines:
    """The lines of a block, and its tokens when a reader asks for them (a fixed-width table needs none)."""

    def __init__(self, block: np.ndarray) -> None:
        self.block = block
        self.line_start, self.line_end = split_lines(block)
        first = np.zeros(self.line_start.shape[0], dtype=np.uint8)
        nonempty = self.line_end > self.line_start
        first[nonempty] = block[self.line_start[nonempty]]
        self.first_byte = first
        self._tokens: BlockTokens | None = None

    @property
    def lines(self) -> int:
        return int(self.line_start.shape[0])

    def tokens(self) -> BlockTokens:
        if self._tokens is None:
            self._tokens = tokenize(self.block)
        return self._tokens


def _line_text(block: np.ndarray, tk: _Lines | BlockTokens, i: int) -> str:
    return block[tk.line_start[i]:tk.line_end[i]].tobytes().decode("utf-8", errors="replace").rstrip("\r")


def _byte_blocks(data: bytes | bytearray) -> Iterator[np.ndarray]:
    """Views of ``data`` of about BLOCK_BYTES each, cut after a newline (no copy)."""
    whole = np.frombuffer(data, dtype=np.uint8)
    pos = 0
    size = len(data)
    while pos < size:
        end = data.find(b"\n", pos + BLOCK_BYTES)
        end = size if end == -1 else end + 1
        yield padded_block(whole[pos:end])
        pos = end


# A dmon log of 72 h x 8 GPUs at 1 Hz is about 200 MB; 2 GiB is ten times that. It is read in blocks, so
# memory follows the columns parsed, not the file; a "line" of 16 MiB is not dmon output.
MAX_FILE_BYTES = 2 * 2**30
MAX_UNBROKEN_BYTES = 16 * 2**20


def _file_blocks(fh: BinaryIO, head: bytes) -> Iterator[np.ndarray]:
    """Blocks of a file read BLOCK_BYTES at a time (``head``: bytes already read), cut after a newline, laid out
    as :func:`padded_block` does. The file is read into one buffer reused from block to block (a fresh 2 MiB
    buffer per block costs a page fault per 4 KiB): each block is a view, valid until the next one is asked for."""
    store = bytearray(PAD + max(2 * BLOCK_BYTES, len(head) + BLOCK_BYTES))
    store[:PAD] = b" " * PAD
    fill = len(head)  # bytes after the padding not yet handed out
    store[PAD:PAD + fill] = head
    total = len(head)
    while True:
        if PAD + fill + BLOCK_BYTES > len(store):
            if fill > MAX_UNBROKEN_BYTES:
                raise DmonError(_("The dmon log holds {size} bytes without a line break (the limit is {limit}); it "
                                  "is not the text output of 'nvidia-smi dmon'.").format(
                    size=fill, limit=format_limit(MAX_UNBROKEN_BYTES)))
            grown = bytearray(PAD + fill + BLOCK_BYTES)  # a new buffer: the last block handed out may still be seen
            grown[:PAD + fill] = store[:PAD + fill]
            store = grown
        with memoryview(store) as view:
            got = cast(io.BufferedIOBase, fh).readinto(view[PAD + fill:PAD + fill + BLOCK_BYTES]) or 0
        if not got:
            if fill:
                yield np.frombuffer(store, dtype=np.uint8, count=PAD + fill).copy()
            return
        total += got
        if total > MAX_FILE_BYTES:  # the file grew past its limit while read
            raise DmonError(_("The dmon log grew past the limit of {limit} while it was read.").format(
                limit=format_limit(MAX_FILE_BYTES)))
        fill += got
        cut = store.rfind(b"\n", PAD, PAD + fill)
        if cut == -1 and fill > MAX_UNBROKEN_BYTES:
            raise DmonError(_("The dmon log holds {size} bytes without a line break (the limit is {limit}); it is "
                              "not the text output of 'nvidia-smi dmon'.").format(
                size=fill, limit=format_limit(MAX_UNBROKEN_BYTES)))
        if cut == -1 or fill < BLOCK_BYTES // 2:
            continue
        buffer = np.frombuffer(store, dtype=np.uint8)
        yield buffer[:cut + 1]
        rest = PAD + fill - (cut + 1)
        buffer[PAD:PAD + rest] = buffer[cut + 1:PAD + fill].copy()
        del buffer
        fill = rest


def parse_dmon(
    source: str | Iterable[str],
    *,
    interval_s: float = 1.0,
    start_time: float | None = None,
) -> DmonLog:
    """Parse dmon text into a :class:`DmonLog`.

    Args:
        source: the whole text, or an iterable of lines.
        interval_s: the ``-d`` delay, used to place rows in time when the log has no time column.
        start_time: epoch seconds of the first row for logs without a date (default 0 = 1970-01-01, so
            time-only logs keep their time of day).

    Raises:
        DmonError: pmon output, text with neither a dmon header nor a dmon error message, an interval that
            is not a positive number of seconds, or a GPU index, date or time that cannot be one (naming the line).
    """
    check_interval(interval_s)
    if isinstance(source, str):
        text = source.removeprefix("\ufeff")  # a byte-order mark left by an editor
    else:
        text = "\n".join(ln.rstrip("\r\n") for ln in source)
    data = text.encode("utf-8", errors="replace")
    return _parse_blocks(_byte_blocks(data), interval_s, start_time, len(data))


#: The longest sampling interval taken (one day): rows placed further apart are a unit slip (ms for s).
MAX_INTERVAL_S = 86400.0


def check_interval(interval_s: float) -> None:
    """Refuse a sampling interval that is not finite, not positive or over :data:`MAX_INTERVAL_S` (DmonError)."""
    if not (isinstance(interval_s, (int, float)) and math.isfinite(interval_s) and 0 < interval_s <= MAX_INTERVAL_S):
        raise DmonError(_("The dmon interval must be more than 0 and at most {most:g} seconds (dmon -d), got "
                          "{value!r}.").format(most=MAX_INTERVAL_S, value=interval_s))


def _parse_blocks(blocks: Iterable[np.ndarray], interval_s: float, start_time: float | None,
                  total_bytes: int = 0) -> DmonLog:
    parser = _Parser(total_bytes)
    for block in blocks:
        parser.feed(block)
    runs = parser.runs
    if runs:
        runs[-1].finish()
    errors = parser.errors
    notes: list[str] = []
    unsupported = any(k in e.lower() for e in errors for k in UNSUPPORTED_MARKERS[:2])
    if not runs:
        if errors:
            return DmonLog(History.empty(), [], notes, unsupported, errors)
        raise DmonError(_("No 'nvidia-smi dmon' header ('# gpu ...' or '#Date Time gpu ...') found: this does not look "
                          "like dmon output."),
                        remedy=_("Record with 'nvidia-smi dmon -s umt -o DT > log.txt'."))
    frames: list[History] = []
    masked_counts: dict[str, int] = {}
    has_time = False
    unknown: list[str] = []
    for run in runs:
        has_time = has_time or run.layout.time_col is not None
        unknown.extend(u for u in run.layout.unknown if u not in unknown)
        if run.rows:
            frames.append(_run_frame(run, interval_s, start_time, masked_counts))
    if not has_time and frames:
        # consecutive runs of a log without time stamps continue one another
        offset = 0.0
        shifted = []
        for f in frames:
            shifted.append(f.replace(times=f.times + offset))
            offset = float(shifted[-1].times[-1]) + interval_s - (start_time or 0.0)
        frames = shifted
    if len(frames) == 1:
        frame = frames[0]
    else:
        frame = concat_histories(frames) if frames else History.empty()
    del frames
    if parser.bad:
        notes.append(_("Skipped {count} truncated or malformed data line(s).").format(count=parser.bad))
    if parser.other:
        notes.append(_("Ignored {count} line(s) of other output mixed into the log.").format(count=parser.other))
    if parser.before_header:
        notes.append(_("Ignored {count} line(s) before the first dmon header.").format(count=parser.before_header))
    if unknown:
        notes.append(_("Kept unknown column(s) {columns} as dmon_<name> metrics (no unit known).").format(
            columns=", ".join(unknown)))
    for metric, count in masked_counts.items():
        notes.append(_("{count} {metric} value(s) outside what a GPU can report (utilization above 100 %, negative "
                       "bytes, infinities) are shown as N/A.").format(count=count, metric=metric))
    notes.extend(_time_notes(has_time, interval_s))
    frame.notes = notes
    return DmonLog(frame, list(runs[-1].layout.names), notes, unsupported, errors, has_time)


def _time_notes(has_time: bool, interval_s: float) -> list[str]:
    if not has_time:
        return [_("The log has no time column (-o T/-o DT): rows are placed {interval_s:g} s apart.").format(
            interval_s=interval_s)]
    return [_("Times are the node's local time as printed by dmon (no time zone in the log).")]


def _run_frame(run: _Run, interval_s: float, start_time: float | None,
               masked_counts: dict[str, int]) -> History:
    """The frame of one run; impossible values are masked (:func:`mask_impossible`), counted in ``masked_counts``
    (metric -> values)."""
    lay = run.layout
    gpu = run.column(_GPU_COLUMN)
    n = int(gpu.shape[0])
    if lay.time_col is not None and lay.date_col is not None:
        t = run.column(_DATE_COLUMN)
    elif lay.time_col is not None:
        secs = run.column(_TIME_COLUMN)
        base = 0.0 if start_time is None else math.floor(start_time / 86400.0) * 86400.0
        wraps = np.concatenate(([0.0], np.cumsum(np.diff(secs) < -43200.0) * 86400.0)) if n else np.empty(0)
        t = base + secs + wraps
    else:
        new_round = np.ones(n, dtype=bool)
        if n > 1:
            new_round[1:] = gpu[1:] <= gpu[:-1]
        rounds = np.cumsum(new_round) - 1
        t = (start_time or 0.0) + rounds * float(interval_s)
    metrics: dict[str, np.ndarray] = {}
    reasons: dict[tuple[int, str], str] = {}
    for _col, metric, _scale in lay.metric_cols:
        raw = run.column(metric)
        # impossible values (utilization above 100 %, negative bytes, infinities) are N/A with the reason
        v, n_masked, why = mask_impossible(metric, raw)
        metrics[metric] = v
        missing = np.isnan(v)
        if missing.any():
            for g in np.flatnonzero(np.bincount(gpu[missing])).tolist():
                reasons[(int(g), metric)] = NA_REASON
        if n_masked and why is not None:
            masked_counts[metric] = masked_counts.get(metric, 0) + n_masked
            for g in np.flatnonzero(np.bincount(gpu[missing & ~np.isnan(raw)])).tolist():
                reasons[(int(g), metric)] = why
    return History.from_rows(t, gpu, metrics, reasons)


def read_dmon_file(path: str | Path, *, interval_s: float = 1.0, start_time: float | None = None) -> DmonLog:
    """Parse a dmon log file (UTF-8, or UTF-16 / UTF-8 with a byte-order mark; undecodable bytes replaced),
    reading it in blocks: the whole text is never held in memory.

    Raises:
        DmonError: unreadable file, or not dmon output.
    """
    check_interval(interval_s)
    p = Path(path)
    try:
        with open_input(p, MAX_FILE_BYTES, _("the dmon log")) as fh:
            head = fh.read(65536)
            if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):  # rare (PowerShell 5)
                rest = read_bounded(fh, MAX_FILE_BYTES - len(head), _("the dmon log"), p)
                data = decode_log_bytes(head + rest, p.name).encode("utf-8")
                total = len(data)
                blocks: Iterable[np.ndarray] = _byte_blocks(data)
            else:
                decode_log_bytes(head, p.name)  # empty or binary: a clear error
                total = os.fstat(fh.fileno()).st_size
                blocks = _file_blocks(fh, head.removeprefix(codecs.BOM_UTF8))
            try:
                return _parse_blocks(blocks, interval_s, start_time, total)
            except DmonError as exc:
                raise DmonError(_("{name}: {problem}").format(name=p.name, problem=exc.message), field=exc.field,
                                detail=exc.detail, remedy=exc.remedy) from exc
    except InputFileError as exc:
        raise DmonError(exc.message, field=exc.field) from exc
    except OSError as exc:
        raise DmonError(_("Cannot read {path}: {reason}.").format(path=display_path(p), reason=exc.strerror or exc),
                        field=str(p)) from exc


def decode_log_bytes(data: bytes, name: str = "the file") -> str:
    """Text of a saved log: UTF-8, or UTF-16 / UTF-8 with a byte-order mark (PowerShell 5's ``>`` writes UTF-16
    LE with a BOM; Notepad may add a UTF-8 BOM). Undecodable bytes are replaced.

    Raises:
        DmonError: the file is empty, or binary (NUL bytes in text that is not UTF-16).
    """
    if not data:
        raise DmonError(_("{name} is empty (0 bytes): no dmon output was saved.").format(name=name), field=name,
                        remedy=_("Check the command that wrote it."))
    for bom, codec in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
                       (codecs.BOM_UTF16_BE, "utf-16-be")):
        if data.startswith(bom):
            return data[len(bom):].decode(codec, errors="replace")
    if b"\x00" in data[:65536]:
        raise DmonError(_("{name} is a binary file (it holds NUL bytes), not the text output of 'nvidia-smi dmon'.")
                        .format(name=name), field=name,
                        remedy=_("Pick the saved log, e.g. from 'nvidia-smi dmon -s umt -o DT > log.txt'."))
    return data.decode("utf-8", errors="replace")
