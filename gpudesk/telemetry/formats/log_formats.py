"""One reader for every GPU log format gpudesk opens: detect the format from the text, then parse it into the
one :class:`~gpudesk.telemetry.core.model.History` shape, saying which format was read.

Formats (detected from the first lines, never from the file name):

* ``nvidia-smi dmon`` (``# gpu pwr ...`` header; ``-o DT`` time columns optional) - :mod:`gpudesk.telemetry.formats.dmon`.
* ``dcgmi dmon`` (``#Entity`` header, ``GPU n`` / ``GPU-I n`` / ``GPU-CI n`` rows) -
  :mod:`gpudesk.telemetry.formats.dcgmi_dmon`; MIG instances become their own rows (frame index = position).
* ``nvidia-smi --query-gpu=... --format=csv`` (header of query names with ``[unit]``; values with or without
  units, ``[N/A]`` / ``[Not Supported]`` as N/A) - :mod:`gpudesk.telemetry.formats.smi_query_csv`.
* gpudesk's own CSV export of a recording (``time_s,time_utc,gpu_index,...``) - :mod:`gpudesk.telemetry.recording.export`.
* Huawei Ascend ``npu-smi info`` tables (one or more snapshots, e.g. ``watch npu-smi info``) -
  :mod:`gpudesk.telemetry.formats.npu_smi`.
* AMD ``rocm-smi`` concise tables and ``rocm-smi ... --csv`` - :mod:`gpudesk.telemetry.formats.rocm_smi`.
* AMD ``amd-smi monitor`` tables (with ``-w`` time stamps or without) - :mod:`gpudesk.telemetry.formats.amd_smi_monitor`.
* Huawei Ascend ``npu-smi info watch`` scrolling tables - :mod:`gpudesk.telemetry.formats.npu_smi_watch`.
* Intel Gaudi ``hl-smi -Q ... -f csv`` - :mod:`gpudesk.telemetry.formats.hl_smi_csv`.

Used by ``gpudesk monitor analyze|import`` and the window's "Open log".
"""

from __future__ import annotations

import csv
import io
import math
import os
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

import numpy as np

from gpudesk.errors import GpudeskError
from gpudesk.telemetry.formats.amd_smi_monitor import looks_like_amd_smi_monitor, parse_amd_smi_monitor
from gpudesk.file_limits import InputFileError, display_path, open_input, read_input
from gpudesk.i18n import _
from gpudesk.telemetry.formats.dmon import DmonError, check_interval, decode_log_bytes, parse_dmon, read_dmon_file
from gpudesk.telemetry.core.model import DeviceInfo, History, TelemetryError
from gpudesk.telemetry.formats.hl_smi_csv import looks_like_hl_smi_csv, parse_hl_smi_csv
from gpudesk.telemetry.formats.npu_smi import looks_like_npu_smi, parse_npu_smi_info
from gpudesk.telemetry.formats.npu_smi_watch import looks_like_npu_smi_watch, parse_npu_smi_watch
from gpudesk.telemetry.formats.rocm_smi import looks_like_rocm_smi_csv, looks_like_rocm_smi_table, parse_rocm_smi_csv, \
    parse_rocm_smi_table
from gpudesk.telemetry.formats.smi_query_csv import parse_smi_query_csv

MAX_LOG_BYTES = 256 * 1024 * 1024
HEAD_BYTES = 65536
EXPORT_HEAD = ("time_s", "time_utc", "gpu_index", "gpu_uuid", "gpu_name")


class LogFormat(Enum):
    """The formats :func:`detect_format` tells apart (values are stable ids for JSON output)."""

    DMON = "nvidia-smi dmon"
    DCGMI_DMON = "dcgmi dmon"
    SMI_QUERY_CSV = "nvidia-smi --query-gpu csv"
    GPUDESK_CSV = "gpudesk recording csv"
    NPU_SMI_INFO = "npu-smi info"
    ROCM_SMI = "rocm-smi"
    ROCM_SMI_CSV = "rocm-smi --csv"
    AMD_SMI_MONITOR = "amd-smi monitor"
    NPU_SMI_WATCH = "npu-smi info watch"
    HL_SMI_CSV = "hl-smi -Q csv"

    def label(self) -> str:
        """The format's name for people (translated where it is not a command line)."""
        if self is LogFormat.GPUDESK_CSV:
            return _("gpudesk recording CSV export")
        if self is LogFormat.SMI_QUERY_CSV:
            return _("nvidia-smi --query-gpu CSV")
        return str(self.value)


class LogFormatError(TelemetryError):
    """The text is none of the formats gpudesk reads, or it could not be read."""


@dataclass
class LogRead:
    """A log read by :func:`read_log_text` / :func:`read_log_file`.

    Attributes:
        format: which format was detected.
        frame: the samples (``frame.gpus`` = GPU index, or the position of a MIG instance for dcgmi logs).
        devices: what the log says about each row's GPU (names of MIG instances, UUIDs of CSV exports).
        notes: the parser's notes (skipped lines, assumptions), the detected format first.
        errors: error lines the tool printed into the log (dmon "Not supported").
        unsupported: the tool said it cannot run on that GPU.
    """

    format: LogFormat
    frame: History
    devices: list[DeviceInfo] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    unsupported: bool = False
    has_time: bool = False

    @property
    def empty(self) -> bool:
        return len(self.frame) == 0

    def format_note(self) -> str:
        return _("Read as {format} output.").format(format=self.format.label())


def _first_lines(text: str, n: int = 40) -> list[str]:
    out: list[str] = []
    for line in text.splitlines():
        s = line.strip()
        if s:
            out.append(s)
            if len(out) >= n:
                break
    return out


def detect_format(text: str) -> LogFormat:
    """The format of a log from its first lines; dmon when nothing else matches (its parser then says what it
    could not read)."""
    if looks_like_npu_smi(text):
        return LogFormat.NPU_SMI_INFO
    if looks_like_rocm_smi_table(text):
        return LogFormat.ROCM_SMI
    if looks_like_rocm_smi_csv(text):
        return LogFormat.ROCM_SMI_CSV
    if looks_like_npu_smi_watch(text):
        return LogFormat.NPU_SMI_WATCH
    if looks_like_amd_smi_monitor(text):
        return LogFormat.AMD_SMI_MONITOR
    if looks_like_hl_smi_csv(text):  # before the nvidia-smi query CSV: same shape, *.aip fields
        return LogFormat.HL_SMI_CSV
    lines = _first_lines(text)
    for s in lines:
        head = s.replace("# Entity", "#Entity", 1)
        if head.startswith("#Entity"):
            return LogFormat.DCGMI_DMON
        if head.startswith("#") and not head.startswith("# source"):
            break
    for s in lines:
        if s.startswith("#"):
            continue
        cells = [c.strip().strip('"').lower() for c in s.split(",")]
        if tuple(cells[:len(EXPORT_HEAD)]) == EXPORT_HEAD:
            return LogFormat.GPUDESK_CSV
        if len(cells) >= 2 and any("." in c.split(" [")[0] or c in ("index", "uuid", "name", "timestamp")
                                   for c in cells) and all(c and " " not in c.split(" [")[0] for c in cells):
            return LogFormat.SMI_QUERY_CSV
        break
    return LogFormat.DMON


def _dcgmi(text: str, interval_s: float) -> LogRead:
    from gpudesk.telemetry.formats.dcgmi_dmon import parse_dcgmi_dmon

    # "# Entity" with a space and an "Id" unit row are how newer dcgmi releases print the header
    norm = "\n".join("" if line.strip().upper() == "ID" else line.replace("# Entity", "#Entity", 1)
                     for line in text.splitlines())
    history = parse_dcgmi_dmon(norm, delay_s=interval_s)
    devices = []
    for pos, key in enumerate(history.keys):
        if key.mig_instance is None:
            name = _("GPU {index} (dcgmi)").format(index=key.gpu_index)
        elif key.mig_profile == "compute instance":
            name = _("MIG compute instance {id} (dcgmi GPU-CI)").format(id=key.mig_instance)
        else:
            name = _("MIG GPU instance {id} (dcgmi GPU-I)").format(id=key.mig_instance)
        devices.append(DeviceInfo(pos, uuid=key.uuid, name=name,
                                  reasons={"pcie_gen_max": _("dcgmi logs carry no PCIe link")}))
    return LogRead(LogFormat.DCGMI_DMON, history.frame, devices, list(history.notes))


def _export_csv(text: str) -> LogRead:
    reader = csv.reader(io.StringIO(text))
    header: list[str] | None = None
    t: list[float] = []
    gpu: list[int] = []
    cols: dict[str, list[float]] = {}
    names: dict[int, tuple[str | None, str | None]] = {}
    bad = 0
    for row in reader:
        if not row or row[0].startswith("#"):
            continue
        if header is None:
            header = [c.strip() for c in row]
            cols = {name: [] for name in header[len(EXPORT_HEAD):]}
            continue
        try:
            ts, g = float(row[0]), int(row[2])
        except (ValueError, IndexError):
            bad += 1
            continue
        if not math.isfinite(ts):
            bad += 1
            continue
        t.append(ts)
        gpu.append(g)
        names.setdefault(g, ((row[3] if len(row) > 3 else "") or None, (row[4] if len(row) > 4 else "") or None))
        for i, name in enumerate(header[len(EXPORT_HEAD):], start=len(EXPORT_HEAD)):
            cell = row[i].strip() if i < len(row) else ""
            try:
                v = float(cell) if cell else math.nan
            except ValueError:
                v = math.nan
            cols[name].append(v if math.isfinite(v) else math.nan)
    notes = []
    if bad:
        notes.append(_("{n} rows without a time and GPU index were skipped.").format(n=bad))
    frame = History.from_rows(np.array(t), np.array(gpu), {k: np.array(v) for k, v in cols.items()}, notes=notes)
    devices = [DeviceInfo(g, uuid=u.lstrip("'") if u else None, name=n.lstrip("'") if n else None)
               for g, (u, n) in sorted(names.items())]
    return LogRead(LogFormat.GPUDESK_CSV, frame, devices, notes)


def read_log_text(text: str, *, interval_s: float = 1.0) -> LogRead:
    """Detect the format of ``text`` and parse it.

    Raises:
        LogFormatError: the text is of a detected format but cannot be parsed (e.g. a dcgmi row before its
            header), or dmon text with nothing readable is returned as an empty :class:`LogRead` instead.
    """
    try:
        check_interval(interval_s)  # every format places rows without a time column this far apart
    except DmonError as exc:
        raise LogFormatError(exc.user_text(), field="interval") from exc
    fmt = detect_format(text)
    try:
        if fmt is LogFormat.DCGMI_DMON:
            read = _dcgmi(text, interval_s)
        elif fmt is LogFormat.GPUDESK_CSV:
            read = _export_csv(text)
            read.has_time = True
        elif fmt is LogFormat.NPU_SMI_INFO:
            npu = parse_npu_smi_info(text, interval_s=interval_s)
            read = LogRead(fmt, npu.frame, npu.devices, list(npu.notes))
        elif fmt is LogFormat.ROCM_SMI:
            read = LogRead(fmt, *parse_rocm_smi_table(text, interval_s=interval_s))
        elif fmt is LogFormat.ROCM_SMI_CSV:
            read = LogRead(fmt, *parse_rocm_smi_csv(text, interval_s=interval_s))
        elif fmt is LogFormat.NPU_SMI_WATCH:
            read = LogRead(fmt, *parse_npu_smi_watch(text, interval_s=interval_s))
        elif fmt is LogFormat.AMD_SMI_MONITOR:
            frame, devices, notes, stamped = parse_amd_smi_monitor(text, interval_s=interval_s)
            read = LogRead(fmt, frame, devices, notes, has_time=stamped)
        elif fmt is LogFormat.HL_SMI_CSV:
            frame, devices, notes, stamped = parse_hl_smi_csv(text, interval_s=interval_s)
            read = LogRead(fmt, frame, devices, notes, has_time=stamped)
        elif fmt is LogFormat.SMI_QUERY_CSV:
            frame, devices, notes = parse_smi_query_csv(text, interval_s=interval_s)
            read = LogRead(fmt, frame, devices, notes, has_time=bool(len(frame)) and float(frame.times[0]) > 1e8)
        else:
            log = parse_dmon(text, interval_s=interval_s)
            read = LogRead(fmt, log.frame, [], list(log.notes), list(log.errors), log.unsupported, log.has_time)
    except LogFormatError:
        raise
    except GpudeskError as exc:  # DmonError, DcgmiParseError (a FleetError), TelemetryError
        raise LogFormatError(_("The text looks like {format} output but could not be read: {error}").format(
            format=fmt.label(), error=exc.user_text()), field="text") from exc
    read.notes.insert(0, read.format_note())
    read.frame.notes[:0] = [read.format_note()]
    return read


def read_log_file(path: str | Path, *, interval_s: float = 1.0) -> LogRead:
    """Detect the format of a log file and parse it (dmon logs are read in blocks; others up to 256 MiB).

    Raises:
        LogFormatError: the file cannot be read, is empty, binary, too large, or cannot be parsed.
    """
    p = Path(path)
    try:  # folders, FIFOs and devices are refused by kind before a byte is read (file_limits)
        with open_input(p, MAX_LOG_BYTES, _("the log"), check_size=False) as fh:
            head = fh.read(HEAD_BYTES)
            size = os.fstat(fh.fileno()).st_size
    except InputFileError as exc:
        raise LogFormatError(exc.user_text(), field="path") from exc
    except OSError as exc:
        raise LogFormatError(_("{path} could not be read.").format(path=display_path(p)), field="path",
                             detail=exc.strerror or str(exc)) from exc
    try:
        head_text = decode_log_bytes(head, p.name)
    except DmonError as exc:
        raise LogFormatError(exc.user_text(), field="path") from exc
    fmt = detect_format(head_text)
    if fmt is LogFormat.DMON:
        try:
            log = read_dmon_file(p, interval_s=interval_s)
        except DmonError as exc:
            raise LogFormatError(exc.user_text(), field="path") from exc
        read = LogRead(fmt, log.frame, [], list(log.notes), list(log.errors), log.unsupported, log.has_time)
        read.notes.insert(0, read.format_note())
        read.frame.notes[:0] = [read.format_note()]
        return read
    if size > MAX_LOG_BYTES:
        raise LogFormatError(_("{path} is larger than 256 MiB.").format(path=p), field="path")
    try:
        text = decode_log_bytes(read_input(p, MAX_LOG_BYTES, _("the log")), p.name)
    except InputFileError as exc:
        raise LogFormatError(exc.user_text(), field="path") from exc
    except OSError as exc:
        raise LogFormatError(_("{path} could not be read.").format(path=p), field="path",
                             detail=exc.strerror or str(exc)) from exc
    except DmonError as exc:
        raise LogFormatError(exc.user_text(), field="path") from exc
    read = read_log_text(text, interval_s=interval_s)
    if fmt is LogFormat.DCGMI_DMON and len(read.frame):
        # dcgmi prints no time stamps: the last tick is placed at the file's modification time
        f = read.frame
        try:
            mtime = p.stat().st_mtime
        except OSError:
            mtime = float(f.times[-1])
        shift = mtime - float(f.times[-1])
        read.frame = f.replace(times=f.times + shift)
    return read
