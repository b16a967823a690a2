"""Parse ``nvidia-smi dmon`` text (files and live lines) into samples.

Format facts (monitor.md section 3, from the dmon help text and public samples): a names header
(``# gpu pwr ...`` or ``#Date Time gpu ...``) and a units header (``# Idx W ...``); the columns follow the order
of the ``-s`` groups (p u c v m e t), so they are mapped from the header, never by position; headers repeat;
blank lines occur; ``-`` means the metric is not supported or could not be read; failures are printed as text
("Not supported on the device(s)", "Failed to initialize NVML: ...").

Units: pwr W, temperatures C, utilizations %, clocks MHz (-> Hz), fb/bar1/ccpm "MB" (nvidia-smi's memory
figures are MiB: x 1024^2), rxpci/txpci "MB/s" (NVML's KB/s throughput counter scaled to MiB/s: x 1024^2).
Date/time columns are the node's local time as printed; they are stored as if UTC (the log has no time zone).

Speed: a file is split into runs of data lines under one header; each run is read in blocks with numpy's C
parser (``np.loadtxt``); a block that contains a truncated or foreign line falls back to a line-by-line parse
that skips and counts the bad lines. About 2 million lines parse in a few seconds.
"""

from __future__ import annotations

import calendar
import math
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gpudesk.telemetry import model as m
from gpudesk.telemetry.model import Sample, SampleBatch, SeriesFrame, TelemetryError, concat_frames

MIB = 1024.0 * 1024.0

# dmon token -> (metric, scale to the metric's unit)
COLUMN_MAP: dict[str, tuple[str, float]] = {
    "pwr": (m.POWER, 1.0),
    "temp": (m.GPU_TEMP, 1.0),
    "gtemp": (m.GPU_TEMP, 1.0),
    "mtemp": (m.MEM_TEMP, 1.0),
    "sm": (m.GPU_UTIL, 1.0),
    "mem": (m.MEM_UTIL, 1.0),
    "enc": (m.ENC_UTIL, 1.0),
    "dec": (m.DEC_UTIL, 1.0),
    "jpg": (m.JPG_UTIL, 1.0),
    "ofa": (m.OFA_UTIL, 1.0),
    "mclk": (m.MEM_CLOCK, 1e6),
    "pclk": (m.SM_CLOCK, 1e6),
    "pviol": (m.POWER_VIOLATION, 1.0),
    "tviol": (m.THERMAL_VIOLATION, 1.0),
    "fb": (m.MEM_USED, MIB),
    "bar1": (m.BAR1_USED, MIB),
    "ccpm": (m.CCPM_USED, MIB),
    "sbecc": (m.ECC_SBE, 1.0),
    "dbecc": (m.ECC_DBE, 1.0),
    "pci": (m.PCIE_REPLAY, 1.0),
    "rxpci": (m.PCIE_RX, MIB),
    "txpci": (m.PCIE_TX, MIB),
}
# dcgmi dmon -e 1009,1010 (DCGM fields, bytes/s): "# Entity PCITX PCIRX" / "GPU 0 4712070210 5237742827"
DCGM_COLUMN_MAP: dict[str, tuple[str, float]] = {"PCITX": (m.PCIE_TX, 1.0), "PCIRX": (m.PCIE_RX, 1.0)}

UNSUPPORTED_MARKERS = ("not supported on the device", "failed to process command line", "failed to initialize nvml")
NA_REASON = "dmon printed '-' (not supported on this GPU, or it could not be read)"
_BLOCK = 100_000


class DmonError(TelemetryError):
    """The text is not dmon output (or nothing in it could be read)."""


@dataclass
class DmonLayout:
    """Column layout from one names header: index of date, time and gpu columns, and metric columns."""

    names: list[str]
    date_col: int | None
    time_col: int | None
    gpu_col: int
    metric_cols: list[tuple[int, str, float]]  # (column, metric, scale)
    unknown: list[str]
    dcgm: bool = False

    @property
    def ncols(self) -> int:
        return len(self.names)


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


def parse_header(line: str) -> DmonLayout | None:
    """Layout from a names header line (``# gpu sm mem`` / ``#Date Time gpu ...`` / ``# Entity PCITX``).

    Returns None for a units line (``# Idx ...``, ``#YYYYMMDD ...``, ``Id``) or a comment that is not a header.

    Raises:
        DmonError: the header is ``nvidia-smi pmon`` (per-process) output, not dmon.
    """
    tokens = line.lstrip("#").split()
    if not tokens:
        return None
    lower = [t.lower() for t in tokens]
    if lower[0] == "entity":
        cols = [(i, *DCGM_COLUMN_MAP[t]) for i, t in enumerate(tokens) if t in DCGM_COLUMN_MAP]
        unknown = [t for t in tokens[1:] if t not in DCGM_COLUMN_MAP]
        # data rows are "GPU <n> v1 v2": one more token than the header
        return DmonLayout(["entity", "gpu", *tokens[1:]], None, None, 1, [(i + 1, mt, sc) for i, mt, sc in cols],
                          unknown, dcgm=True)
    if "gpu" not in lower:
        return None
    if "pid" in lower:
        raise DmonError("This is 'nvidia-smi pmon' (per-process) output, not 'nvidia-smi dmon'. Record with "
                        "'nvidia-smi dmon -s umt -o DT' instead.")
    date_col = lower.index("date") if "date" in lower else None
    time_col = lower.index("time") if "time" in lower else None
    gpu_col = lower.index("gpu")
    metric_cols: list[tuple[int, str, float]] = []
    unknown: list[str] = []
    seen: set[str] = set()
    for i, tok in enumerate(lower):
        if i in (date_col, time_col, gpu_col):
            continue
        hit = COLUMN_MAP.get(tok)
        if hit is None:
            unknown.append(tokens[i])
            metric_cols.append((i, f"dmon_{tok}", 1.0))
        elif hit[0] not in seen:
            seen.add(hit[0])
            metric_cols.append((i, hit[0], hit[1]))
    return DmonLayout(tokens, date_col, time_col, gpu_col, metric_cols, unknown)


def _is_units_line(line: str) -> bool:
    tokens = line.lstrip("#").split()
    return bool(tokens) and tokens[0] in ("Idx", "YYYYMMDD", "HH:MM:SS", "Id")


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
        DmonError: pmon output, or text with neither a dmon header nor a dmon error message.
    """
    if isinstance(source, str):
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


_HEADER_RE = re.compile(r"^#[^\n]*", re.M)
_FOREIGN_RE = re.compile(r"^[ \t]*[^\s#\d][^\n]*", re.M)


def _parse_clean(text: str, interval_s: float, start_time: float | None) -> DmonLog | None:
    """Fast path for a clean log (one header layout, no foreign lines): one pass of numpy's C parser.

    Returns None when the text needs the line-by-line path (several layouts, other output, bad lines).
    """
    layouts = []
    for h in set(_HEADER_RE.findall(text)):
        lay = parse_header(h)
        if lay is not None:
            layouts.append(lay)
    if len(layouts) != 1 or layouts[0].dcgm or _FOREIGN_RE.search(text):
        return None
    lay = layouts[0]
    body = text.replace("-", "nan")
    if lay.time_col is not None:
        body = body.replace(":", " ")
    try:
        arr = np.loadtxt(body.splitlines(), dtype=np.float64, ndmin=2, comments="#")
    except ValueError:
        return None
    width = lay.ncols + (2 if lay.time_col is not None else 0)
    if arr.shape[0] == 0 or arr.shape[1] != width:
        return None
    frame = _frame_from_array(arr, lay, interval_s, start_time)
    notes = _time_notes(lay.time_col is not None, interval_s)
    if lay.unknown:
        notes.insert(0, f"Kept unknown column(s) {', '.join(lay.unknown)} as dmon_<name> metrics (no unit known).")
    frame.notes = notes
    return DmonLog(frame, list(lay.names), notes, False, [], lay.time_col is not None)


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
        if scale != 1.0:
            v = v * scale
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
            arr = np.loadtxt(text.splitlines(), dtype=np.float64, ndmin=2)
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


def parse_data_line(line: str, lay: DmonLayout) -> list[float] | None:
    """One data line -> numbers (time split into h, m, s; '-' -> NaN); None when truncated or foreign."""
    tokens = line.split()
    if lay.dcgm:
        if len(tokens) != lay.ncols or tokens[0] != "GPU":
            return None
        tokens = ["0", *tokens[1:]]
    elif len(tokens) != lay.ncols:
        return None
    out: list[float] = []
    try:
        for i, tok in enumerate(tokens):
            if i == lay.time_col:
                h, mi, s = tok.split(":")
                out.extend((float(h), float(mi), float(s)))
            elif tok == "-":
                out.append(math.nan)
            else:
                out.append(float(tok))
    except ValueError:
        return None
    return out


def _dates_to_epoch(dates: np.ndarray) -> np.ndarray:
    out = np.empty_like(dates)
    for d in np.unique(dates).tolist():
        if math.isnan(d):
            out[dates != dates] = math.nan
            continue
        di = int(d)
        try:
            epoch = calendar.timegm((di // 10000, (di // 100) % 100, di % 100, 0, 0, 0, 0, 0, 0))
        except (ValueError, OverflowError):
            epoch = math.nan
        out[dates == d] = epoch
    return out


def read_dmon_file(path: str | Path, *, interval_s: float = 1.0, start_time: float | None = None) -> DmonLog:
    """Parse a dmon log file (UTF-8; undecodable bytes replaced).

    Raises:
        DmonError: unreadable file, or not dmon output.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise DmonError(f"Cannot read {p}: {exc.strerror or exc}.") from exc
    return parse_dmon(text, interval_s=interval_s, start_time=start_time)


class DmonLineParser:
    """Incremental parser for a live dmon stream: feed lines, get :class:`SampleBatch` es.

    A batch is emitted when a round of GPUs is complete (the GPU index wraps, or the time stamp changes). Rows
    without a time column are stamped with the arrival time (``clock``).
    """

    def __init__(self, clock=time.time):
        self.layout: DmonLayout | None = None
        self.clock = clock
        self.notes: list[str] = []
        self.errors: list[str] = []
        self.bad_lines = 0
        self.other_lines = 0
        self._pending: list[Sample] = []
        self._pending_key: float | None = None
        self._last_gpu: int | None = None

    @property
    def unsupported(self) -> bool:
        return any(k in e.lower() for e in self.errors for k in UNSUPPORTED_MARKERS[:2])

    def feed(self, line: str) -> list[SampleBatch]:
        """Consume one line; returns the batches it completed (usually none or one)."""
        line = line.rstrip("\r\n")
        if line.startswith("#"):
            layout = parse_header(line)
            if layout is not None:
                if self.layout is not None and layout.names != self.layout.names:
                    out = self.flush()
                    self.layout = layout
                    return out
                self.layout = layout
            return []
        if not line.strip():
            return []
        if self.layout is None or not (line[:1] in " 0123456789" or (self.layout.dcgm and line.startswith("GPU"))):
            stripped = line.strip()
            if any(k in stripped.lower() for k in UNSUPPORTED_MARKERS):
                self.errors.append(stripped)
            else:
                self.other_lines += 1
            return []
        row = parse_data_line(line, self.layout)
        if row is None:
            self.bad_lines += 1
            return []
        return self._add(row)

    def _add(self, row: list[float]) -> list[SampleBatch]:
        lay = self.layout
        assert lay is not None

        def pos(col: int) -> int:
            return col + 2 if lay.time_col is not None and col > lay.time_col else col

        gpu = int(row[pos(lay.gpu_col)])
        if lay.time_col is not None:
            tc = lay.time_col
            secs = row[tc] * 3600 + row[tc + 1] * 60 + row[tc + 2]
            if lay.date_col is not None:
                t = float(_dates_to_epoch(np.array([row[pos(lay.date_col)]]))[0]) + secs
            else:
                now = self.clock()
                t = math.floor(now / 86400.0) * 86400.0 + secs
            key = t
        else:
            t = self.clock()
            key = None
        out: list[SampleBatch] = []
        new_round = (key is not None and self._pending_key is not None and key != self._pending_key) or (
            self._last_gpu is not None and gpu <= self._last_gpu
        )
        if new_round and self._pending:
            out = self.flush()
        values: dict[str, float | None] = {}
        reasons: dict[str, str] = {}
        for col, metric, scale in lay.metric_cols:
            v = row[pos(col)]
            if math.isnan(v):
                values[metric] = None
                reasons[metric] = NA_REASON
            else:
                values[metric] = v * scale
        self._pending.append(Sample(t if not self._pending or key is not None else self._pending[0].t, gpu, None,
                                    values, reasons))
        self._pending_key = key
        self._last_gpu = gpu
        return out

    def flush(self) -> list[SampleBatch]:
        """Emit the round in progress (call at end of stream)."""
        if not self._pending:
            return []
        batch = SampleBatch(self._pending[0].t, self._pending, "dmon")
        self._pending = []
        self._last_gpu = None
        return [batch]
