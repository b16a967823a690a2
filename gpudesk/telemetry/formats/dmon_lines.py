"""Incremental parser for a live ``nvidia-smi dmon`` stream (one line at a time), e.g. from
:class:`gpudesk.telemetry.sources.dmon_stream.DmonStreamSource`.

Every line costs bounded work: lines longer than :data:`MAX_LINE_CHARS` are skipped unread, a data row is
split once and each token is checked at the boundary (GPU index a whole number 0-:data:`MAX_GPU_INDEX`, time
``HH:MM:SS``, date ``YYYYMMDD``, values a number or ``-``). A row that fails a check is skipped and counted by
reason (:attr:`DmonLineParser.skipped`, :meth:`DmonLineParser.skipped_summary`), never raised. A per-process
(``nvidia-smi pmon``) header in the stream is reported in :attr:`DmonLineParser.errors` and its rows are
skipped until a dmon header arrives. Impossible values (utilization above 100 %, negative bytes) become None
with the reason (:mod:`gpudesk.telemetry.core.plausibility`).
"""

from __future__ import annotations

import calendar
import datetime
import math
import time
from collections import deque
from collections.abc import Callable

from gpudesk.i18n import _
from gpudesk.telemetry.formats.dmon_format import (
    MAX_GPU_INDEX,
    NA_REASON,
    UNSUPPORTED_MARKERS,
    DmonError,
    DmonLayout,
    parse_header,
)
from gpudesk.telemetry.core.model import Sample, SampleBatch
from gpudesk.telemetry.core.plausibility import check_values

MAX_LINE_CHARS = 4096  # a dmon row with every column is under 300 characters
NA_TOKENS = ("-", "N/A")  # nvidia-smi dmon prints '-', dcgmi dmon 'N/A' for a blank field
DCGM_NA_REASON = "dcgmi printed N/A (a blank DCGM field: not supported, or not watched yet)"
MAX_TOKEN_CHARS = 32  # "-1.7976931348623157e+308" is 24 characters

# why a row was skipped -> the phrase used in skipped_summary()
__all__ = ["MAX_GPU_INDEX", "MAX_LINE_CHARS", "DmonLineParser"]

SKIP_REASONS: dict[str, str] = {
    "too_long": "longer than 4096 characters",
    "columns": "with a column count that does not match the header",
    "gpu_index": f"with a GPU index that is not a whole number from 0 to {MAX_GPU_INDEX}",
    "time": "with a time that is not HH:MM:SS",
    "date": "with a date that is not a calendar date YYYYMMDD",
    "value": "with a value that is neither a number nor '-'",
    "pmon": "of 'nvidia-smi pmon' (per-process) output",
}


def _parse_index(token: str) -> int | None:
    if not token.isascii() or not token.isdigit() or len(token) > 4:
        return None
    value = int(token)
    return value if value <= MAX_GPU_INDEX else None


def _parse_time_s(token: str) -> float | None:
    """Seconds after midnight of ``HH:MM:SS``, or None."""
    parts = token.split(":")
    if len(parts) != 3 or not all(p.isascii() and p.isdigit() and 1 <= len(p) <= 2 for p in parts):
        return None
    h, mi, s = (int(p) for p in parts)
    if h > 23 or mi > 59 or s > 60:  # 60: a leap second
        return None
    return float(h * 3600 + mi * 60 + s)


def _parse_date_epoch(token: str) -> float | None:
    """Midnight UTC of ``YYYYMMDD`` in seconds since the epoch, or None for anything else."""
    if len(token) != 8 or not token.isascii() or not token.isdigit():
        return None
    try:
        day = datetime.date(int(token[:4]), int(token[4:6]), int(token[6:]))
    except ValueError:
        return None
    return float(calendar.timegm(day.timetuple()))


def _parse_value(token: str) -> float | None:
    """A metric token as a float (NaN for '-'), or None when it is not a number."""
    if token in NA_TOKENS:
        return math.nan
    if len(token) > MAX_TOKEN_CHARS:
        return None
    try:
        return float(token)
    except ValueError:
        return None


class DmonLineParser:
    """Incremental parser for a live dmon stream: feed lines, get :class:`SampleBatch` es.

    A batch is emitted when a round of GPUs is complete (the GPU index wraps, or the time stamp changes). Rows
    without a time column are stamped with the arrival time (``clock``).
    """

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.layout: DmonLayout | None = None
        self.clock = clock
        self.notes: list[str] = []
        self.errors: list[str] = []
        self.bad_lines = 0
        self.other_lines = 0
        self.impossible_values = 0
        self.skipped: dict[str, int] = {}
        # the last lines that were neither dmon rows nor headers (e.g. "ssh: Could not resolve hostname ..."):
        # shown when a stream yields no samples or ends with an error status
        self.other_output: deque[str] = deque(maxlen=5)
        self._pmon = False
        self._pending: list[Sample] = []
        self._pending_key: float | None = None
        self._last_gpu: int | None = None

    @property
    def unsupported(self) -> bool:
        return any(k in e.lower() for e in self.errors for k in UNSUPPORTED_MARKERS[:2])

    @property
    def foreign_format(self) -> bool:
        """True while the stream prints ``nvidia-smi pmon`` output instead of dmon (since its last header)."""
        return self._pmon

    def _skip(self, why: str) -> list[SampleBatch]:
        self.bad_lines += 1
        self.skipped[why] = self.skipped.get(why, 0) + 1
        return []

    def skipped_summary(self) -> str | None:
        """One sentence saying how many lines were skipped and why, or None when none were."""
        if not self.bad_lines:
            return None
        details = ", ".join(f"{n} {SKIP_REASONS.get(k, k)}" for k, n in sorted(self.skipped.items(), key=lambda kv: -kv[1]))
        return _("{count} line(s) of the stream were skipped: {details}.").format(count=self.bad_lines, details=details)

    def feed(self, line: str) -> list[SampleBatch]:
        """Consume one line; returns the batches it completed (usually none or one). Never raises on content."""
        if len(line) > MAX_LINE_CHARS + 2:
            return self._skip("too_long")
        line = line.rstrip("\r\n")
        if line.startswith("#"):
            return self._header(line)
        if not line.strip():
            return []
        if self._pmon:
            return self._skip("pmon")
        lay = self.layout
        if lay is None or not (line[:1] in " 0123456789" or (lay.dcgm and line.startswith("GPU"))):
            stripped = line.strip()
            if any(k in stripped.lower() for k in UNSUPPORTED_MARKERS):
                if len(self.errors) < 20:
                    self.errors.append(stripped[:300])
            else:
                self.other_lines += 1
                self.other_output.append(stripped[:300])
            return []
        return self._row(line.split(), lay)

    def _header(self, line: str) -> list[SampleBatch]:
        try:
            layout = parse_header(line)
        except DmonError as exc:
            out = self.flush()
            if not self._pmon:
                self.errors.append(str(exc))
            self._pmon = True
            self.layout = None
            return out
        if layout is None:
            return []
        self._pmon = False
        if self.layout is not None and layout.names != self.layout.names:
            out = self.flush()
            self.layout = layout
            return out
        self.layout = layout
        return []

    def _row(self, tokens: list[str], lay: DmonLayout) -> list[SampleBatch]:
        if len(tokens) != lay.ncols or (lay.dcgm and tokens[0] != "GPU"):
            return self._skip("columns")
        gpu = _parse_index(tokens[lay.gpu_col])
        if gpu is None:
            return self._skip("gpu_index")
        key: float | None = None
        if lay.time_col is not None:
            secs = _parse_time_s(tokens[lay.time_col])
            if secs is None:
                return self._skip("time")
            if lay.date_col is not None:
                day = _parse_date_epoch(tokens[lay.date_col])
                if day is None:
                    return self._skip("date")
            else:
                day = math.floor(self.clock() / 86400.0) * 86400.0
            key = day + secs
        values: dict[str, float | None] = {}
        reasons: dict[str, str] = {}
        for col, metric, scale in lay.metric_cols:
            v = _parse_value(tokens[col])
            if v is None:
                return self._skip("value")
            if math.isnan(v) and tokens[col] in NA_TOKENS:
                values[metric] = None
                reasons[metric] = NA_REASON if tokens[col] == "-" else DCGM_NA_REASON
            else:  # "nan" / "inf" printed as numbers: check_values turns them into None with the reason
                values[metric] = v * scale
        self.impossible_values += check_values(values, reasons)
        t = key if key is not None else self.clock()
        return self._add(gpu, t, key, values, reasons)

    def _add(self, gpu: int, t: float, key: float | None, values: dict[str, float | None],
             reasons: dict[str, str]) -> list[SampleBatch]:
        out: list[SampleBatch] = []
        new_round = (key is not None and self._pending_key is not None and key != self._pending_key) or (
            self._last_gpu is not None and gpu <= self._last_gpu
        )
        if new_round and self._pending:
            out = self.flush()
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
