"""CSV export of a recording or a span of it.

One row per (time, GPU); one column per metric (unit in the column name); empty cell = N/A. Text cells (GPU
names, UUIDs) are made formula-safe: a cell starting with = + - @ or a tab/carriage return is prefixed with a
single quote (OWASP "CSV injection" guidance), so spreadsheets show it as text. ``time_utc`` is empty for the
stamps of a dmon log without dates (``time_s`` then counts from its first row, or is a time of day).
"""

from __future__ import annotations

import csv
import datetime as _dt
import io
import math
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from gpudesk.i18n import _
from gpudesk.csv_cells import formula_safe
from gpudesk.telemetry.core.model import DeviceInfo, History, TelemetryError, widen
from gpudesk.telemetry.core.timebase import undated

def safe_cell(text: object) -> str:
    """Text for a CSV cell that a spreadsheet will not evaluate as a formula (:mod:`gpudesk.csv_cells`)."""
    return formula_safe("" if text is None else str(text))


def export_csv(
    frame: History,
    out: str | Path | IO[str],
    *,
    devices: Iterable[DeviceInfo] | None = None,
    t0: float | None = None,
    t1: float | None = None,
    metrics: list[str] | None = None,
) -> int:
    """Write ``frame`` (optionally a span and a metric subset) as CSV; returns the number of data rows.

    Raises:
        TelemetryError: the file cannot be written.
    """
    sub = frame.select(t0, t1) if (t0 is not None or t1 is not None) else frame
    names = metrics if metrics is not None else list(sub.columns)
    devs = {d.index: d for d in (devices or [])}
    header = ["time_s", "time_utc", "gpu_index", "gpu_uuid", "gpu_name", *names]
    if isinstance(out, (str, Path)):
        try:
            with open(out, "w", newline="", encoding="utf-8") as fh:
                return _write(fh, sub, names, devs, header)
        except OSError as exc:
            raise TelemetryError(_("Cannot write {path}: {error}.").format(path=out, error=exc.strerror or exc)) from exc
    return _write(out, sub, names, devs, header)


def _write(fh: IO[str], sub: History, names: list[str], devs: dict[int, DeviceInfo], header: list[str]) -> int:
    w = csv.writer(fh)
    w.writerow(header)
    t, gpu, columns = sub.rows()  # one CSV row per (time, GPU) with a reading
    cols = [widen(columns[n]).tolist() if n in columns else [math.nan] * len(t) for n in names]
    ts = t.tolist()
    gs = gpu.tolist()
    text_cache: dict[int, tuple[str, str]] = {}
    for i, (t, g) in enumerate(zip(ts, gs)):
        if g not in text_cache:
            d = devs.get(g)
            text_cache[g] = (safe_cell(d.uuid if d else ""), safe_cell(d.name if d else ""))
        uuid, name = text_cache[g]
        # a dmon log without dates has no calendar time: time_s alone (seconds from its first row or time of
        # day), never a made-up 1970 stamp
        stamp = "" if undated(t) else _dt.datetime.fromtimestamp(t, _dt.timezone.utc).isoformat(timespec="seconds")
        row = [repr(t), stamp, g, uuid, name]
        for c in cols:
            v = c[i]
            row.append("" if v != v else (int(v) if v.is_integer() and abs(v) < 2**53 else v))
        w.writerow(row)
    return len(ts)


def export_csv_text(frame: History, **kwargs: Any) -> str:
    buf = io.StringIO()
    export_csv(frame, buf, **kwargs)
    return buf.getvalue()
