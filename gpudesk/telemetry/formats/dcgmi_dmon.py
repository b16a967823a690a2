"""``dcgmi dmon`` text (files, pasted text, or a live stream line by line) -> fleet samples.

The layout (DCGM's ``dcgmi dmon``, https://docs.nvidia.com/datacenter/dcgm/latest/reference/command-line-reference/dcgmi/dcgmi-dmon.html)::

    #Entity   GPUTL  SMACT  FBUSD
    ID                      MiB      <- optional unit row
    GPU 0     61     0.367  500
    GPU-I 21  N/A    1.294  N/A      <- MIG GPU instance (``-i i:0``), compute instances are ``GPU-CI <id>``

Columns are the field tags of ``dcgm_fields.cpp`` (mapped in :mod:`gpudesk.telemetry.core.dcgm_fields`); PROF values
are fractions (0.367 = 36.7 %), ``N/A`` is a value that could not be read. The text carries no time stamps: rows
are grouped into ticks (a tick ends when an entity repeats) spaced ``delay_s`` apart (``dcgmi dmon -d``,
1000 ms by default). Unknown tags are kept as ``dcgmi_<tag>`` in their raw unit.
"""

from __future__ import annotations

import codecs
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
import os
from pathlib import Path


from gpudesk.file_limits import InputFileError, display_path, open_input, read_bounded

from gpudesk.i18n import _
from gpudesk.telemetry.core import dcgm_fields as df
from gpudesk.telemetry.fleet.fleet import FleetHistory, GpuKey, KeyIndex
from gpudesk.telemetry.fleet.fleet_http import FleetError
from gpudesk.telemetry.core.model import Sample, SampleBatch, History
from gpudesk.telemetry.core.plausibility import check_values

MAX_LINE_CHARS = 8192
MAX_TEXT_BYTES = 256 * 1024 * 1024
MAX_ROW_NOTES = 20  # rows left out are all counted; the first few are quoted
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
ENTITY_KINDS = ("GPU", "GPU-I", "GPU-CI")
NA_TOKENS = frozenset({"N/A", "NA", "-"})


class DcgmiParseError(FleetError):
    """The text is not ``dcgmi dmon`` output."""


@dataclass
class DcgmiDmonParser:
    """Incremental parser: ``feed(line)`` returns the batch a finished tick closes (or None)."""

    host: str = ""
    t0: float = 0.0
    delay_s: float = 1.0
    index: KeyIndex = field(default_factory=KeyIndex)
    notes: list[str] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    tick: int = 0
    lines_skipped: int = 0
    rows_rejected: int = 0
    clock: Callable[[], float] | None = None  # live streams: a tick's time is when its first row arrived
    _current: dict[int, Sample] = field(default_factory=dict)
    _tick_t: float | None = None
    _over_one: set[str] = field(default_factory=set)

    def _key(self, kind: str, entity_id: int) -> GpuKey:
        if kind == "GPU":
            return GpuKey(self.host, entity_id)
        profile = "compute instance" if kind == "GPU-CI" else None
        return GpuKey(self.host, None, mig_instance=entity_id, mig_profile=profile)

    def _close_tick(self) -> SampleBatch | None:
        if not self._current:
            return None
        t = self._tick_time()
        batch = SampleBatch(t, [self._current[p] for p in sorted(self._current)], source="dcgmi dmon")
        self._current = {}
        self._tick_t = None
        self.tick += 1
        return batch

    def _tick_time(self) -> float:
        if self._tick_t is None:
            self._tick_t = self.clock() if self.clock is not None else self.t0 + self.tick * self.delay_s
        return self._tick_t

    def _skip(self, note: str) -> None:
        """Leave a row out, with a note (the first :data:`MAX_ROW_NOTES` are kept; all are counted)."""
        self.rows_rejected += 1
        if self.rows_rejected <= MAX_ROW_NOTES:
            self.notes.append(note)

    def feed(self, line: str) -> SampleBatch | None:
        if len(line) > MAX_LINE_CHARS:  # never a dcgmi row (a stream's runaway output, a binary file): counted
            self.lines_skipped += 1
            return None
        text = line.strip()
        if not text:
            return None
        control = _CONTROL.search(text)
        if control:  # a NUL or other control byte: a value may be missing or split, the columns are unsure
            self._skip(_("A row holding a control character ({char}) was left out rather than guess which value "
                         "belongs to which column: {row}").format(char=repr(control.group())[1:-1],
                                                                   row=repr(text[:60])))
            return None
        tokens = text.split()
        if tokens[0] == "#Entity":
            self.columns = tokens[1:]
            return None
        if tokens[0] == "ID" or text.startswith("#"):
            return None
        if tokens[0] not in ENTITY_KINDS or len(tokens) < 2:
            self.lines_skipped += 1
            return None
        if not (tokens[1].isascii() and tokens[1].isdigit()):
            self._skip(_("A {kind} row with the entity id {id} (not a number written with the digits 0-9) was left "
                         "out.").format(kind=tokens[0], id=repr(tokens[1][:20])))
            return None
        if not self.columns:
            raise DcgmiParseError(_("A dcgmi dmon row came before its #Entity header line."), field="text",
                                  remedy=_("Paste the output from its first line (#Entity ...)."))
        if len(tokens) - 2 > len(self.columns):
            self._skip(_("A {entity} row has {got} values for {want} columns; it was left out rather than guess "
                         "which value belongs to which column.").format(
                entity=f"{tokens[0]} {tokens[1]}", got=len(tokens) - 2, want=len(self.columns)))
            return None
        key = self._key(tokens[0], int(tokens[1]))
        pos = self.index.position(key)
        closed = self._close_tick() if pos in self._current else None
        t = self._tick_time()
        sample = Sample(t, pos, key.uuid if tokens[0] == "GPU" else None, {})
        for tag, raw in zip(self.columns, tokens[2:]):
            fm = df.BY_DMON_TAG.get(tag)
            metric = fm.metric if fm else f"dcgmi_{tag.lower()}"
            scale = fm.scale if fm else 1.0
            if raw in NA_TOKENS:
                sample.values[metric] = None
                sample.reasons[metric] = "dcgmi N/A"
                continue
            try:
                v = float(raw)
            except ValueError:
                sample.values[metric] = None
                sample.reasons[metric] = f"dcgmi {raw[:20]!r}"
                continue
            why = df.blank_reason(v, int32_gauge=fm is not None and df.is_int32_gauge(fm))
            if why is None and math.isinf(v):
                why = "infinite"
            if why is None and v < 0 and (fm is None or df.metric_unit(fm.metric) != "C"):
                why = _("dcgmi reported {value:g}, a negative reading (only a temperature can be below zero); not shown").format(value=v)
            if why is not None:
                sample.values[metric] = None
                sample.reasons[metric] = why
            else:
                sample.values[metric] = v * scale
                if scale == 100.0 and v > 1.0 and tag not in self._over_one:
                    # a ratio above 1 is a DCGM fault (https://github.com/NVIDIA/DCGM/issues/152); kept as read
                    self._over_one.add(tag)
                    self.notes.append(_("dcgmi reported {tag} = {value:g}, a ratio above 1.0; kept as read.").format(
                        tag=tag, value=v))
        if len(tokens) - 2 < len(self.columns):
            self.notes.append(_("A {entity} row has {got} of {want} values.").format(
                entity=f"{tokens[0]} {tokens[1]}", got=len(tokens) - 2, want=len(self.columns)))
        check_values(sample.values, sample.reasons)  # beyond any GPU (50 kW, 300 C): N/A with the reason
        self._current[pos] = sample
        return closed

    def finish(self) -> SampleBatch | None:
        return self._close_tick()


def parse_dcgmi_dmon(text: str, *, host: str = "", t0: float = 0.0, delay_s: float = 1.0) -> FleetHistory:
    """Parse a whole ``dcgmi dmon`` text into a :class:`FleetHistory` (``frame.gpus`` = positions in ``keys``)."""
    if len(text) > MAX_TEXT_BYTES:
        raise DcgmiParseError(_("The dcgmi dmon text is larger than 256 MiB."), field="text")
    parser = DcgmiDmonParser(host=host, t0=t0, delay_s=delay_s)
    batches: list[SampleBatch] = []
    for line in text.splitlines():
        closed = parser.feed(line)
        if closed is not None:
            batches.append(closed)
    last = parser.finish()
    if last is not None:
        batches.append(last)
    if not batches:
        raise DcgmiParseError(_("No dcgmi dmon rows (#Entity header, then GPU / GPU-I rows) were found."),
                              field="text", remedy=_("Paste the output of dcgmi dmon -e <field ids>."))
    notes = list(parser.notes)
    if parser.rows_rejected > MAX_ROW_NOTES:
        notes.append(_("{n} rows were left out in all (the first {shown} are quoted above).").format(
            n=parser.rows_rejected, shown=MAX_ROW_NOTES))
    if parser.lines_skipped:
        notes.append(_("{n} lines that are not GPU, GPU-I or GPU-CI rows were skipped.").format(
            n=parser.lines_skipped))
    frame = History.from_batches(batches, notes)
    return FleetHistory(parser.index.keys, frame, delay_s, notes)


def decode_dcgmi_bytes(data: bytes) -> str:
    """Text of a saved dcgmi dmon log: UTF-8, or UTF-16 / UTF-8 with a byte-order mark (PowerShell 5's ``>``
    writes UTF-16 LE with a BOM), as dmon logs are read; undecodable bytes are replaced. A NUL byte in a UTF-8
    log is kept: the row holding it is left out with a note (:meth:`DcgmiDmonParser.feed`)."""
    for bom, codec in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
                       (codecs.BOM_UTF16_BE, "utf-16-be")):
        if data.startswith(bom):
            return data[len(bom):].decode(codec, errors="replace")
    return data.decode("utf-8", errors="replace")


def read_dcgmi_dmon(path: str | Path, *, host: str = "", delay_s: float = 1.0) -> FleetHistory:
    """Parse a dcgmi dmon log file; the first tick is placed at the file's modification time minus its length."""
    p = Path(path)
    try:
        with open_input(p, MAX_TEXT_BYTES, _("the dcgmi dmon log")) as fh:
            raw = read_bounded(fh, MAX_TEXT_BYTES, _("the dcgmi dmon log"), p)
            mtime = os.fstat(fh.fileno()).st_mtime
    except InputFileError as exc:
        raise DcgmiParseError(exc.message, field="path") from exc
    except OSError as exc:
        raise DcgmiParseError(_("{path} could not be read.").format(path=display_path(p)), field="path",
                              detail=str(exc)) from exc
    text = decode_dcgmi_bytes(raw)
    history = parse_dcgmi_dmon(text, host=host, t0=0.0, delay_s=delay_s)
    f = history.frame
    n_ticks = len(f)
    shift = mtime - (n_ticks - 1) * delay_s
    history.frame = f.replace(times=f.times + shift)
    return history
