"""Incremental parser for a live ``nvidia-smi dmon`` stream (one line at a time), e.g. from
:class:`gpudesk.telemetry.dmon_stream.DmonStreamSource`.
"""

from __future__ import annotations

import math
import time
from collections import deque

import numpy as np

from gpudesk.telemetry.dmon_format import (
    MAX_GPU_INDEX,
    NA_REASON,
    UNSUPPORTED_MARKERS,
    DmonError,
    DmonLayout,
    _dates_to_epoch,
    parse_data_line,
    parse_header,
)
from gpudesk.telemetry.model import Sample, SampleBatch


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
        # the last lines that were neither dmon rows nor headers (e.g. "ssh: Could not resolve hostname ..."):
        # shown when a stream yields no samples or ends with an error status
        self.other_output: deque[str] = deque(maxlen=5)
        self._pending: list[Sample] = []
        self._pending_key: float | None = None
        self._last_gpu: int | None = None

    @property
    def unsupported(self) -> bool:
        return any(k in e.lower() for e in self.errors for k in UNSUPPORTED_MARKERS[:2])

    def feed(self, line: str) -> list[SampleBatch]:
        """Consume one line; returns the batches it completed (usually none or one). A pmon header (per-process
        output) is counted as other output, not raised: a live stream goes on."""
        line = line.rstrip("\r\n")
        if line.startswith("#"):
            try:
                layout = parse_header(line)
            except DmonError as exc:
                self.other_lines += 1
                self.other_output.append(str(exc)[:300])
                return []
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
                self.other_output.append(stripped[:300])
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

        gpu_value = row[pos(lay.gpu_col)]
        if not (math.isfinite(gpu_value) and 0 <= gpu_value <= MAX_GPU_INDEX and gpu_value == int(gpu_value)):
            self.bad_lines += 1  # '-', nan, -1, 2e9: not a GPU index; the stream goes on
            return []
        gpu = int(gpu_value)
        if lay.time_col is not None:
            tc = lay.time_col
            secs = row[tc] * 3600 + row[tc + 1] * 60 + row[tc + 2]
            if not 0 <= secs <= 86400:
                self.bad_lines += 1
                return []
            if lay.date_col is not None:
                day = float(_dates_to_epoch(np.array([row[pos(lay.date_col)]]))[0])
                if math.isnan(day):  # inf, nan or not a calendar date
                    self.bad_lines += 1
                    return []
                t = day + secs
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
