"""Parse ``nvidia-smi dmon`` text into samples: whole files here (:func:`parse_dmon`, :func:`read_dmon_file`),
live lines in :mod:`gpudesk.telemetry.dmon_lines` (``DmonLineParser``, re-exported here), the format itself
(column tokens, units, header layouts) in :mod:`gpudesk.telemetry.dmon_format`.

Format facts (monitor.md section 3, from the dmon help text and public samples): a names header
(``# gpu pwr ...`` or ``#Date Time gpu ...``) and a units header (``# Idx W ...``); the columns follow the order
of the ``-s`` groups (p u c v m e t), so they are mapped from the header, never by position; headers repeat;
blank lines occur; ``-`` means the metric is not supported or could not be read; failures are printed as text
("Not supported on the device(s)", "Failed to initialize NVML: ...").

Units: pwr W, temperatures C, utilizations %, clocks MHz (-> Hz), fb/bar1/ccpm "MB" (nvidia-smi's memory
figures are MiB: x 1024^2), rxpci/txpci "MB/s" as printed (decimal: x 10^6; see dmon_format).
Date/time columns are the node's local time as printed; they are stored as if UTC (the log has no time zone).

Speed: a file is split into runs of data lines under one header; each run is read in blocks with numpy's C
parser (``np.loadtxt``); a block that contains a truncated or foreign line falls back to a line-by-line parse
that skips and counts the bad lines. About 2 million lines parse in a few seconds.
"""

from __future__ import annotations

import codecs

import math
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gpudesk.telemetry.dmon_format import (
    COLUMN_MAP, DCGM_COLUMN_MAP, MIB, NA_REASON, UNSUPPORTED_MARKERS, DmonError, DmonLayout, _dates_to_epoch,
    parse_data_line, parse_header,
)
from gpudesk.telemetry.dmon_lines import DmonLineParser
from gpudesk.telemetry.model import SeriesFrame, column_dtype, concat_frames

__all__ = [
    "COLUMN_MAP", "DCGM_COLUMN_MAP", "MIB", "NA_REASON", "UNSUPPORTED_MARKERS", "DmonError", "DmonLayout", "DmonLog",
    "DmonLineParser", "parse_data_line", "parse_dmon", "parse_header", "read_dmon_file",
]

_BLOCK = 100_000
_CHUNK_CHARS = 8_000_000  # fast-path chunk: bounds the parser's transient memory


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

    frame: SeriesFrame
    columns: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unsupported: bool = False
    errors: list[str] = field(default_factory=list)
    has_time: bool = False

    @property
    def empty(self) -> bool:
        return len(self.frame) == 0


class _Run:
    """Data lines under one layout."""

    def __init__(self, layout: DmonLayout):
        self.layout = layout
        self.lines: list[str] = []


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
        DmonError: pmon output, text with neither a dmon header nor a dmon error message, or an interval that
            is not a positive number of seconds.
    """
    if not (isinstance(interval_s, (int, float)) and math.isfinite(interval_s) and interval_s > 0):
        raise DmonError(f"The dmon interval must be a positive number of seconds (dmon -d), got {interval_s!r}.")
    if isinstance(source, str):
        source = source.removeprefix("\ufeff")  # a byte-order mark left by an editor
        fast = _parse_clean(source, interval_s, start_time)
        if fast is not None:
            return fast
    lines = source.splitlines() if isinstance(source, str) else [ln.rstrip("\r\n") for ln in source]
    runs: list[_Run] = []
    current: _Run | None = None
    notes: list[str] = []
    errors: list[str] = []
    other = 0
    before_header = 0
    for line in lines:
        c = line[:1]
        if c == "#":
            layout = parse_header(line)
            if layout is not None:
                if current is None or layout.names != current.layout.names:
                    current = _Run(layout)
                    runs.append(current)
            continue
        if not line or line.isspace():
            continue
        if current is not None and (c == " " or c.isdigit() or (current.layout.dcgm and c == "G")):
            current.lines.append(line)
            continue
        stripped = line.strip()
        if stripped == "Id":
            continue  # units line of dcgmi dmon
        if any(k in stripped.lower() for k in UNSUPPORTED_MARKERS):
            errors.append(stripped)
        elif current is None:
            before_header += 1
        else:
            other += 1
    unsupported = any(k in e.lower() for e in errors for k in UNSUPPORTED_MARKERS[:2])
    if not runs:
        if errors:
            return DmonLog(SeriesFrame(np.empty(0), np.empty(0), {}), [], notes, unsupported, errors)
        raise DmonError("No 'nvidia-smi dmon' header ('# gpu ...' or '#Date Time gpu ...') found: this does not look "
                        "like dmon output. Record with 'nvidia-smi dmon -s umt -o DT > log.txt'.")
    frames: list[SeriesFrame] = []
    bad = 0
    has_time = False
    unknown: list[str] = []
    for run in runs:
        frame, run_bad = _parse_run(run, interval_s, start_time)
        bad += run_bad
        has_time = has_time or run.layout.time_col is not None
        unknown.extend(u for u in run.layout.unknown if u not in unknown)
        if len(frame):
            frames.append(frame)
    if not has_time and frames:
        # consecutive runs of a log without time stamps continue one another
        offset = 0.0
        shifted = []
        for f in frames:
            shifted.append(SeriesFrame(f.t + offset, f.gpu, f.metrics, f.reasons, sort=False))
            offset = float(shifted[-1].t[-1]) + interval_s - (start_time or 0.0)
        frames = shifted
    frame = concat_frames(frames) if frames else SeriesFrame(np.empty(0), np.empty(0), {})
    if bad:
        notes.append(f"Skipped {bad} truncated or malformed data line(s).")
    if other:
        notes.append(f"Ignored {other} line(s) of other output mixed into the log.")
    if before_header:
        notes.append(f"Ignored {before_header} line(s) before the first dmon header.")
    if unknown:
        notes.append(f"Kept unknown column(s) {', '.join(unknown)} as dmon_<name> metrics (no unit known).")
    notes.extend(_time_notes(has_time, interval_s))
    frame.notes = notes
    return DmonLog(frame, list(runs[-1].layout.names), notes, unsupported, errors, has_time)


def _header_lines(text: str) -> set[str]:
    """Distinct lines starting with '#' (found with str.find: a few hundred headers in 200 MB cost nothing)."""
    out: set[str] = set()
    pos = 0 if text.startswith("#") else text.find("\n#")
    while pos != -1:
        start = pos if text[pos] == "#" else pos + 1
        end = text.find("\n", start)
        out.add(text[start:] if end == -1 else text[start:end])
        if end == -1:
            break
        pos = text.find("\n#", end)
    return out


def _parse_clean(text: str, interval_s: float, start_time: float | None) -> DmonLog | None:
    """Fast path for a clean log (one header layout): one pass of numpy's C parser. Foreign or truncated lines
    make the parser fail, and then the line-by-line path takes over.

    Returns None when the text needs the line-by-line path (several layouts, other output, bad lines).
    """
    layouts: dict[tuple[str, ...], DmonLayout] = {}
    for h in _header_lines(text):
        lay = parse_header(h)
        if lay is not None:
            layouts.setdefault(tuple(lay.names), lay)
    if len(layouts) != 1:
        return None
    (lay,) = layouts.values()
    if lay.dcgm:
        return None
    width = lay.ncols + (2 if lay.time_col is not None else 0)
    parts: list[np.ndarray] = []
    pos = 0
    while pos < len(text):
        end = text.find("\n", pos + _CHUNK_CHARS)
        end = len(text) if end == -1 else end + 1
        body = text[pos:end].replace("-", "nan")
        if lay.time_col is not None:
            body = body.replace(":", " ")
        pos = end
        try:
            arr = _loadtxt(body.splitlines())
        except ValueError:
            return None
        if arr.shape[0] and arr.shape[1] != width:
            return None
        if arr.shape[0]:
            parts.append(arr)
    if not parts:
        return None
    arr = np.concatenate(parts) if len(parts) > 1 else parts[0]
    del parts
    frame = _frame_from_array(arr, lay, interval_s, start_time)
    notes = _time_notes(lay.time_col is not None, interval_s)
    if lay.unknown:
        notes.insert(0, f"Kept unknown column(s) {', '.join(lay.unknown)} as dmon_<name> metrics (no unit known).")
    frame.notes = notes
    return DmonLog(frame, list(lay.names), notes, False, [], lay.time_col is not None)


def _loadtxt(lines: list[str]) -> np.ndarray:
    """numpy's C parser over lines ('#' lines skipped); a chunk holding only headers gives an empty array."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="loadtxt: input contained no data", category=UserWarning)
        return np.loadtxt(lines, dtype=np.float64, ndmin=2, comments="#")


def _time_notes(has_time: bool, interval_s: float) -> list[str]:
    if not has_time:
        return [f"The log has no time column (-o T/-o DT): rows are placed {interval_s:g} s apart."]
    return ["Times are the node's local time as printed by dmon (no time zone in the log)."]


def _parse_run(run: _Run, interval_s: float, start_time: float | None) -> tuple[SeriesFrame, int]:
    lay = run.layout
    parts: list[np.ndarray] = []
    bad = 0
    for s in range(0, len(run.lines), _BLOCK):
        block = run.lines[s : s + _BLOCK]
        arr, nbad = _parse_block(block, lay)
        bad += nbad
        if arr.shape[0]:
            parts.append(arr)
    width = lay.ncols + (2 if lay.time_col is not None else 0)
    data = np.concatenate(parts) if parts else np.empty((0, width))
    return _frame_from_array(data, lay, interval_s, start_time), bad


def _frame_from_array(data: np.ndarray, lay: DmonLayout, interval_s: float, start_time: float | None) -> SeriesFrame:
    # column positions shift by 2 after the time column (HH:MM:SS became three numbers)
    def pos(col: int) -> int:
        return col + 2 if lay.time_col is not None and col > lay.time_col else col

    gpu = data[:, pos(lay.gpu_col)]
    keep = ~np.isnan(gpu)
    if not keep.all():
        data, gpu = data[keep], gpu[keep]
    gpu = gpu.astype(np.int32)
    n = data.shape[0]
    if lay.time_col is not None:
        tc = lay.time_col
        secs = data[:, tc] * 3600 + data[:, tc + 1] * 60 + data[:, tc + 2]
        if lay.date_col is not None:
            t = _dates_to_epoch(data[:, pos(lay.date_col)]) + secs
        else:
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
    for col, metric, scale in lay.metric_cols:
        v = data[:, pos(col)]
        # own copy in the column's storage dtype (float32 for %, W, C): the parsed block can be freed
        v = np.multiply(v, scale, dtype=np.float64).astype(column_dtype(metric)) if scale != 1.0 else \
            v.astype(column_dtype(metric))
        metrics[metric] = v
        missing = np.isnan(v)
        if missing.any():
            for g in np.flatnonzero(np.bincount(gpu[missing])).tolist():
                reasons[(int(g), metric)] = NA_REASON
    return SeriesFrame(t, gpu, metrics, reasons)


def _parse_block(block: list[str], lay: DmonLayout) -> tuple[np.ndarray, int]:
    """Fast path through numpy's C parser; a block with a bad line is parsed line by line."""
    width = lay.ncols + (2 if lay.time_col is not None else 0)
    if not lay.dcgm:
        text = "\n".join(block).replace("-", "nan")
        if lay.time_col is not None:
            text = text.replace(":", " ")
        try:
            arr = _loadtxt(text.splitlines())
        except ValueError:
            arr = None
        if arr is not None and arr.shape[1] == width:
            return arr, 0
    rows: list[list[float]] = []
    bad = 0
    for line in block:
        row = parse_data_line(line, lay)
        if row is None:
            bad += 1
        else:
            rows.append(row)
    return (np.array(rows, dtype=np.float64).reshape(len(rows), width), bad)


def read_dmon_file(path: str | Path, *, interval_s: float = 1.0, start_time: float | None = None) -> DmonLog:
    """Parse a dmon log file (UTF-8; undecodable bytes replaced).

    Raises:
        DmonError: unreadable file, or not dmon output.
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise DmonError(f"Cannot read {p}: {exc.strerror or exc}.") from exc
    text = decode_log_bytes(data, p.name)
    del data  # a 72-hour log is ~200 MB: do not hold the bytes and the text while parsing
    try:
        return parse_dmon(text, interval_s=interval_s, start_time=start_time)
    except DmonError as exc:
        raise DmonError(f"{p.name}: {exc}") from exc


def decode_log_bytes(data: bytes, name: str = "the file") -> str:
    """Text of a saved log: UTF-8, or UTF-16 / UTF-8 with a byte-order mark (PowerShell 5's ``>`` writes UTF-16
    LE with a BOM; Notepad may add a UTF-8 BOM). Undecodable bytes are replaced.

    Raises:
        DmonError: the file is empty, or binary (NUL bytes in text that is not UTF-16).
    """
    if not data:
        raise DmonError(f"{name} is empty (0 bytes): no dmon output was saved. Check the command that wrote it.")
    for bom, codec in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
                       (codecs.BOM_UTF16_BE, "utf-16-be")):
        if data.startswith(bom):
            return data[len(bom):].decode(codec, errors="replace")
    if b"\x00" in data[:65536]:
        raise DmonError(f"{name} is a binary file (it holds NUL bytes), not the text output of 'nvidia-smi dmon'. "
                        "Pick the saved log, e.g. from 'nvidia-smi dmon -s umt -o DT > log.txt'.")
    return data.decode("utf-8", errors="replace")
