"""``gpudesk monitor``: list GPUs, record NVML samples, import and analyze dmon logs and recordings."""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
import time
from pathlib import Path

from gpudesk.cli import CliError
from gpudesk.cli.columns import ljust_display
from gpudesk.cli.alerts import add_alert_parsers
from gpudesk.cli.json_text import dumps_json
from gpudesk.cli.fleet import add_fleet_parser
from gpudesk.cli.processes import add_process_parsers
from gpudesk.cli.serve import add_serve_parser
from gpudesk import i18n
from gpudesk.errors import GpudeskError
from gpudesk.telemetry.rules.evidence_names import rule_name, severity_name
from gpudesk.telemetry.rules.thresholds import Thresholds, load_thresholds
from gpudesk.i18n import _, ngettext
from gpudesk.units import format_duration


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("monitor", help=_("GPU monitoring: devices, record, import, analyze"),
                              description=_("Live GPU telemetry through NVML, nvidia-smi dmon logs, recordings."))
    sub = p.add_subparsers(dest="monitor_command", metavar="SUBCOMMAND")
    p.set_defaults(func=lambda args: _help(p))

    d = sub.add_parser("devices", help=_("list the GPUs NVML sees (exits 1 when NVML is unavailable, saying why)"))
    d.add_argument("--json", action="store_true", help=_("machine-readable output"))
    d.set_defaults(func=cmd_devices)

    r = sub.add_parser("record", help=_("record NVML or AMD SMI samples into the user store (Ctrl+C stops)"))
    r.add_argument("--interval", type=float, default=1.0, metavar="S", help=_("seconds between samples (default 1)"))
    r.add_argument("--duration", type=str, default=None, metavar="D",
                   help=_("stop after D (seconds, or with a unit: 90s, 30m, 72h); default: until Ctrl+C"))
    r.add_argument("--notes", default="", help=_("notes stored with the session"))
    r.add_argument("--name", default=None, help=_("session name"))
    r.add_argument("--source", choices=("auto", "nvml", "amdsmi"), default="auto",
                   help=_("live source: nvml (NVIDIA), amdsmi (AMD, needs the amdsmi library), or auto (NVML, else "
                          "AMD SMI; default)"))
    r.set_defaults(func=cmd_record)

    st = sub.add_parser("stream", help=_("record a live dmon stream from a command (e.g. over ssh) into the store"))
    st.add_argument("command", help=_("command printing dmon output, e.g. \"ssh node nvidia-smi dmon -s umt -o DT\""))
    st.add_argument("--gpu-model", default=None, metavar="NAME", help=_("catalog GPU model (PCIe link assumption)"))
    st.add_argument("--duration", type=str, default=None, metavar="D", help=_("stop after D (90s, 30m, 72h)"))
    st.add_argument("--name", default=None, help=_("session name"))
    st.add_argument("--notes", default="", help=_("notes stored with the session"))
    st.set_defaults(func=cmd_stream)

    i = sub.add_parser("import", help=_("import a GPU log (dmon, dcgmi dmon, nvidia-smi CSV, npu-smi info, rocm-smi) as a recording session"))
    i.add_argument("file", type=Path, help=_("a saved 'nvidia-smi dmon', 'dcgmi dmon', 'nvidia-smi --query-gpu "
                                           "--format=csv', 'npu-smi info' or 'rocm-smi' (table or --csv) output, or a "
                                           "recording's CSV export (format detected)"))
    i.add_argument("--gpu-model", default=None, metavar="NAME",
                   help=_("catalog GPU model the log came from (gives the PCIe link and memory capacity)"))
    i.add_argument("--interval", type=float, default=1.0, metavar="S",
                   help=_("seconds between dmon samples (its -d delay), used to place the rows of a log without a "
                        "time column (-o T / -o DT); default 1"))
    i.add_argument("--name", default=None, help=_("session name (default: the file name)"))
    i.add_argument("--notes", default="", help=_("notes stored with the session"))
    i.add_argument("--json", action="store_true", help=_("print the session id, rows, GPUs and notes as JSON"))
    i.set_defaults(func=cmd_import)

    a = sub.add_parser("analyze", help=_("statistics and bottleneck findings for a GPU log or a recording"))
    a.add_argument("target", nargs="?",
                   help=_("a log file (dmon, dcgmi dmon, nvidia-smi --query-gpu CSV, npu-smi info, rocm-smi or a "
                          "recording's CSV export; the format is detected), '-' to read it from standard input, or a recording id (see --list)"))
    a.add_argument("--gpu-model", default=None, metavar="NAME",
                   help=_("catalog GPU model the log came from (gives the PCIe link and memory capacity)"))
    a.add_argument("--interval", type=float, default=1.0, metavar="S",
                   help=_("seconds between dmon samples (its -d delay), used to place the rows of a log without a "
                        "time column (-o T / -o DT); default 1"))
    a.add_argument("--from", dest="t0", type=float, default=None, metavar="T", help=_("span start (epoch s)"))
    a.add_argument("--to", dest="t1", type=float, default=None, metavar="T", help=_("span end (epoch s)"))
    a.add_argument("--list", action="store_true", help=_("list recordings instead"))
    a.add_argument("--json", action="store_true",
                   help=_("print statistics and findings as JSON (keys carry their units)"))
    a.add_argument("--thresholds", type=Path, default=None, metavar="FILE",
                   help=_("rule thresholds JSON (default: the user's, see 'gpudesk monitor thresholds')"))
    a.set_defaults(func=cmd_analyze)

    rp = sub.add_parser("report", help=_("burn-in report: a recording or dmon log, its findings and a saved plan"))
    rp.add_argument("target", help=_("a dmon log file or a recording id (see 'gpudesk monitor analyze --list')"))
    rp.add_argument("--out", type=Path, required=True, metavar="F",
                    help=_("file to write; the format follows its ending: .md, .html or .json"))
    rp.add_argument("--plan", type=int, default=None, metavar="ID",
                    help=_("id of a plan saved in the Plan tab (the store's saved plans)"))
    rp.add_argument("--plan-file", type=Path, default=None, metavar="F",
                    help=_("a plan exported as JSON ('gpudesk plan --profile FILE.toml --format json --output F') "
                         "instead of a saved plan"))
    rp.add_argument("--candidate", type=int, default=1, metavar="N",
                    help=_("which of the plan's configurations was bought (1 = the top one, the default)"))
    rp.add_argument("--gpu-model", default=None, metavar="NAME",
                    help=_("catalog GPU model a dmon log came from (PCIe link and memory capacity)"))
    rp.add_argument("--interval", type=float, default=1.0, metavar="S",
                    help=_("seconds between dmon samples for logs without a time column; default 1"))
    rp.add_argument("--title", default=None, help=_("report title"))
    rp.add_argument("--thresholds", type=Path, default=None, metavar="FILE",
                    help=_("rule thresholds JSON (default: the user's)"))
    rp.set_defaults(func=cmd_report)

    th = sub.add_parser("thresholds", help=_("show or change the findings' rule thresholds (kept with a version)"))
    th.add_argument("--set", dest="assignments", action="append", default=[], metavar="NAME=VALUE",
                    help=_("change one threshold (repeatable), e.g. --set min_span_s=20"))
    th.add_argument("--reset", action="store_true", help=_("back to the defaults (deletes the file)"))
    th.add_argument("--file", type=Path, default=None, metavar="FILE", help=_("thresholds file (default: the user's)"))
    th.add_argument("--json", action="store_true", help=_("print all values as JSON"))
    th.set_defaults(func=cmd_thresholds)

    e = sub.add_parser("export", help=_("export a recording (or a span) as CSV"))
    e.add_argument("session", type=int, help=_("recording id (see 'gpudesk monitor analyze --list')"))
    e.add_argument("output", type=Path, help=_("CSV file to write"))
    e.add_argument("--from", dest="t0", type=float, default=None, metavar="T", help=_("span start (epoch s)"))
    e.add_argument("--to", dest="t1", type=float, default=None, metavar="T", help=_("span end (epoch s)"))
    e.set_defaults(func=cmd_export)

    add_fleet_parser(sub)
    add_serve_parser(sub)
    add_process_parsers(sub)
    add_alert_parsers(sub)


def _help(p: argparse.ArgumentParser) -> int:
    p.print_help()
    return 2


def parse_duration(text: str | None, flag: str = "--duration") -> float | None:
    """"90", "90s", "30m", "72h", "1d" -> seconds. Raises CliError naming ``flag`` on anything else."""
    if text is None:
        return None
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    t = text.strip().lower()
    scale = 1
    if t and t[-1] in units:
        scale = units[t[-1]]
        t = t[:-1]
    try:
        value = float(t) * scale
    except ValueError:
        raise CliError(_('{flag} {text!r} is not a duration; use seconds or 90s, 30m, 72h, 1d.').format(flag=flag, text=text)) from None
    if not value > 0 or value == float("inf"):
        raise CliError(_('{flag} must be a positive duration, got {text!r}.').format(flag=flag, text=text))
    return value


@contextlib.contextmanager
def _stop_on_signals(stop: dict):
    """While recording: Ctrl+C (SIGINT), SIGTERM (kill, systemd, timeout) and SIGHUP (the SSH session closed)
    end the loop cleanly instead of killing the process, so the last batch is committed, the session is marked
    ended and a stream's command is stopped. The previous handlers are restored afterwards."""
    old = {}
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        sig = getattr(signal, name, None)
        if sig is not None:
            old[sig] = signal.signal(sig, lambda signum, frame: stop.update(now=True, signal=signum))
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


def _open_session():
    from gpudesk.nvml.nvml_session import NvmlSession, NvmlUnavailableError

    try:
        return NvmlSession().open()
    except NvmlUnavailableError as exc:
        raise CliError(_('NVML unavailable ({state}): {message}').format(state=exc.status.state, message=exc.status.message), status=1) from exc


def cmd_devices(args: argparse.Namespace) -> int:
    from gpudesk.nvml.nvml_session import probe_nvml
    from gpudesk.nvml.pcie import describe_link

    status = probe_nvml()
    if not status.available:
        if args.json:
            print(dumps_json({"available": False, "state": status.state, "message": status.message,
                              "error": status.error}, indent=2))
            return 1
        raise CliError(_('NVML unavailable ({state}): {message}').format(state=status.state, message=status.message), status=1)
    session = _open_session()
    try:
        devices = session.devices()
        if args.json:
            print(dumps_json({"available": True, "driver_version": session.status.driver_version,
                              "nvml_version": session.status.nvml_version,
                              "gpus": [d.to_dict() for d in devices]}, indent=2))
            return 0
        print(session.status.message)
        for d in devices:
            mem = f"{d.memory_total_bytes / 2**30:.0f} GiB" if d.memory_total_bytes else _("memory N/A")
            lost = "  " + _("LOST: {reason}").format(reason=d.lost_reason) if d.lost_reason else ""
            print("  " + _("GPU {index}: {name}  {uuid}  {memory}  PCIe {link}  MIG {mig}").format(
                index=d.index, name=d.name or "N/A", uuid=d.uuid or _("UUID N/A"), memory=mem,
                link=describe_link(d.pcie_gen_max, d.pcie_width_max_lanes, None), mig=d.mig_mode or "N/A") + lost)
        return 0
    finally:
        session.close()


def cmd_record(args: argparse.Namespace) -> int:
    from gpudesk.store import StoreError
    from gpudesk.nvml.nvml_session import host_name
    from gpudesk.telemetry.sources.live_source import NoLiveSourceError, open_live_source
    from gpudesk.telemetry.recording.recorder import Recorder

    if args.interval <= 0:
        raise CliError(_("--interval must be positive, got {interval}.").format(interval=args.interval))
    duration = parse_duration(args.duration)
    try:
        live = open_live_source(getattr(args, "source", "auto"), interval_s=args.interval)
    except NoLiveSourceError as exc:
        raise CliError.from_error(exc, status=1) from exc
    source = live.source
    try:
        recorder = Recorder(flush_interval_s=max(1.0, args.interval))
    except StoreError as exc:
        live.close()
        raise CliError.from_error(exc) from exc
    stop = {"now": False}
    sid = None
    try:
        with _stop_on_signals(stop):
            sid = recorder.start(source.devices(), source=live.kind, interval_s=args.interval, notes=args.notes,
                                 name=args.name, host=host_name(), driver_version=live.driver_version,
                                 nvml_version=live.library_version)
            print((_("Recording session {sid} from {source} every {interval:g} s for {duration:g} s; Ctrl+C stops.")
                   if duration else _("Recording session {sid} from {source} every {interval:g} s; Ctrl+C stops.")
                   ).format(sid=sid, source=source.describe(), interval=args.interval, duration=duration or 0),
                  file=sys.stderr)
            start = time.monotonic()
            next_tick = start
            try:
                while not stop["now"]:
                    for batch in source.poll():
                        recorder.write(batch)
                    if duration is not None and time.monotonic() - start >= duration:
                        break
                    next_tick += args.interval
                    if next_tick <= time.monotonic():
                        next_tick = time.monotonic()
                    while not stop["now"] and (delay := next_tick - time.monotonic()) > 0:
                        time.sleep(min(delay, 0.2))  # short naps: a stop signal is acted on at once
            finally:
                recorder.stop()  # commits the last batch and marks the session ended
    except StoreError as exc:  # disk full or a damaged database while recording: what was committed stays
        raise CliError(_("{problem} Session {sid} keeps the {rows} GPU samples committed before.").format(
            problem=exc.user_text(), sid=sid, rows=recorder.rows_written) if sid is not None else exc.user_text()) from exc
    finally:
        rows = recorder.rows_written
        try:
            recorder.close()
        except StoreError:
            pass  # already reported above; the connection is closed either way
        live.close()
    print(_("Session {sid}: {rows} GPU samples written.").format(sid=sid, rows=rows))
    return 0


def _no_samples_text(exit_status: int | None, status: int | None, said: str | None) -> str:
    """Why a recording command gave no samples: its exit status when it ended by itself (``exit_status``), its last
    output, else a hint to check that it runs ``nvidia-smi dmon`` (not when it failed with a ``status``)."""
    if exit_status and said:
        return _("The command printed no dmon samples and ended with exit status {status}. Its last output: "
                 "{output}").format(status=exit_status, output=said)
    if exit_status:
        return _("The command printed no dmon samples and ended with exit status {status}.").format(status=exit_status)
    if said:
        return _("The command printed no dmon samples. Its last output: {output}").format(output=said)
    if status:
        return _("The command printed no dmon samples.")
    return _("The command printed no dmon samples. Check that it runs 'nvidia-smi dmon'.")


def cmd_stream(args: argparse.Namespace) -> int:
    from gpudesk.store import StoreError
    from gpudesk.telemetry.formats.dmon_import import devices_for_model, link_assumption_text, resolve_gpu_model
    from gpudesk.telemetry.sources.dmon_stream import DmonStreamSource
    from gpudesk.telemetry.core.model import TelemetryError
    from gpudesk.telemetry.recording.recorder import Recorder

    duration = parse_duration(args.duration)
    try:
        gpu = resolve_gpu_model(args.gpu_model) if args.gpu_model else None
        source = DmonStreamSource(args.command)
    except TelemetryError as exc:
        raise CliError.from_error(exc) from exc
    try:
        recorder = Recorder()
    except StoreError as exc:
        source.close()
        raise CliError.from_error(exc) from exc
    stop = {"now": False}
    sid = None
    ended_itself = False
    start = time.monotonic()

    def record(batches) -> None:
        nonlocal sid
        for batch in batches:
            if sid is None:
                devices = devices_for_model([s.gpu_index for s in batch], gpu)
                sid = recorder.start(devices, source="dmon-stream", interval_s=source.interval_s,
                                     notes=args.notes, name=args.name, gpu_model=gpu.id if gpu else None,
                                     link_assumption=link_assumption_text(gpu))
            recorder.write(batch)

    print(_("Streaming from: {source}; Ctrl+C stops.").format(source=source.describe()), file=sys.stderr)
    try:
        with _stop_on_signals(stop):
            while not stop["now"] and not source.finished:
                record(source.poll())
                if duration is not None and time.monotonic() - start >= duration:
                    break
                time.sleep(0.1)
            ended_itself = source.finished  # end of output, not Ctrl+C or --duration
            source.close()
            record(source.poll())  # what the command printed before it stopped
    except StoreError as exc:  # disk full or a damaged database while recording: what was committed stays
        raise CliError(_("{problem} Session {sid} keeps the {rows} GPU samples committed before.").format(
            problem=exc.user_text(), sid=sid, rows=recorder.rows_written) if sid is not None else exc.user_text()) from exc
    finally:
        source.close()
        try:
            recorder.close()
        except StoreError:
            pass  # reported above; the connection is closed either way
    status = source.returncode
    said = source.last_output()
    skipped = source.parser.skipped_summary()
    if skipped:
        print(_("note: {note}").format(note=skipped), file=sys.stderr)
    if source.parser.unsupported:
        raise CliError(_("dmon could not run there: {problems}").format(problems=" / ".join(source.parser.errors)))
    if source.parser.foreign_format and sid is None:
        raise CliError(source.problem() or _("The command printed no dmon samples."))
    if sid is None:
        raise CliError(_no_samples_text(status if ended_itself else None, status, said))
    if ended_itself and status:
        print((_("note: the command ended with exit status {status}: {output}") if said
               else _("note: the command ended with exit status {status}.")).format(status=status, output=said),
              file=sys.stderr)
    print(_("Session {sid}: {rows} GPU samples written.").format(sid=sid, rows=recorder.rows_written))
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from gpudesk.store import StoreError
    from gpudesk.telemetry.formats.dmon_import import import_dmon_log
    from gpudesk.telemetry.core.model import TelemetryError

    if not args.file.exists():
        raise CliError(_("{path}: no such file.").format(path=args.file))
    try:
        result = import_dmon_log(args.file, gpu_model=args.gpu_model, name=args.name, notes=args.notes,
                                 interval_s=args.interval)
    except (TelemetryError, StoreError) as exc:
        raise CliError.from_error(exc) from exc
    except KeyboardInterrupt:  # the partial session was deleted by import_dmon_log: the store is as it was
        print(_("Import interrupted (Ctrl+C): nothing was saved."), file=sys.stderr)
        return 130
    if args.json:
        print(dumps_json({"session_id": result.session_id, "format": result.log.format.value, "rows": result.rows,
                          "gpus": result.log.frame.gpus, "notes": result.log.notes}, indent=2))
    else:
        print(_("Imported {rows} GPU samples ({gpus} GPU(s)) from {format} output as session {id}.").format(
            rows=result.rows, gpus=len(result.log.frame.gpus), format=result.log.format.label(),
            id=result.session_id))
        for note in result.log.notes:
            print("  " + _("note: {note}").format(note=note))
        if not args.gpu_model:
            print("  note: no --gpu-model given: PCIe shares and the memory safe line cannot be judged.")
    return 0


def cmd_analyze(args: argparse.Namespace) -> int:
    from gpudesk.store import StoreError, open_store
    from gpudesk.store.recordings import get_session, list_sessions
    from gpudesk.telemetry.rules.analysis import analyze
    from gpudesk.telemetry.formats.dmon_import import (
        frame_and_devices_from_file, frame_and_devices_from_text, resolve_gpu_model,
    )
    from gpudesk.telemetry.core.model import TelemetryError
    from gpudesk.telemetry.recording.recorder import load_frame, session_devices

    log = None
    try:
        if args.list or not args.target:
            db = open_store()
            sessions = list_sessions(db)
            if args.json:
                print(dumps_json([{"id": s.id, "name": s.name, "source": s.source, "gpus": s.gpu_count,
                                   "rows": s.sample_rows, "duration_s": s.duration_s,
                                   "interrupted": s.interrupted} for s in sessions], indent=2))
            else:
                for s in sessions:
                    about = (_("{source}, {gpus} GPU(s), {duration}, interrupted") if s.interrupted
                             else _("{source}, {gpus} GPU(s), {duration}")).format(
                        source=s.source, gpus=s.gpu_count, duration=format_duration(s.duration_s))
                    print(_("{id:5d}  {name}  ({about})").format(id=s.id, name=s.name, about=about))
                if not sessions:
                    print(_("No recordings yet: 'gpudesk monitor record' or 'gpudesk monitor import FILE'."))
            return 0
        path = Path(args.target)
        if args.target == "-":
            if sys.stdin is None or sys.stdin.isatty():
                raise CliError(_("'-' reads a dmon log from standard input; pipe one in, e.g. "
                               "'nvidia-smi dmon -s pucvmet -o DT -c 60 | gpudesk monitor analyze -'."))
            gpu = resolve_gpu_model(args.gpu_model) if args.gpu_model else None
            from gpudesk.file_limits import read_stream
            from gpudesk.telemetry.formats.dmon import decode_log_bytes

            raw = read_stream(sys.stdin, _MAX_STDIN_BYTES, _("The dmon log"))
            frame, devices, log = frame_and_devices_from_text(decode_log_bytes(raw, _("standard input")), gpu,
                                                              args.interval)
            title = _("standard input ({format})").format(format=log.format.label())
        elif path.exists():
            gpu = resolve_gpu_model(args.gpu_model) if args.gpu_model else None
            frame, devices, log = frame_and_devices_from_file(path, gpu, args.interval)
            title = _("{path} ({format})").format(path=path, format=log.format.label())
        elif args.target.isdigit():
            db = open_store()
            sess = get_session(db, int(args.target))
            frame = load_frame(db, sess.id)
            devices = session_devices(db, sess.id)
            title = _("session {id} ({name})").format(id=sess.id, name=sess.name)
            if sess.link_assumption:
                text = sess.link_assumption
                frame.notes.append(text if text.startswith("PCIe link") else _('PCIe link {text}').format(text=text))
        else:
            raise CliError(_("{target}: neither a file nor a recording id (see 'gpudesk monitor analyze --list').").format(target=args.target))
        if args.t0 is not None and args.t1 is not None and args.t0 > args.t1:
            raise CliError(_('--from {t0:g} is after --to {t1:g}.').format(t0=args.t0, t1=args.t1))
        result = analyze(frame, devices, t0=args.t0, t1=args.t1, thresholds=_thresholds(args.thresholds))
        if result.span is None:
            span = frame.span
            shown = {flag: f"{flag} {value:.0f}" if value == int(value) else f"{flag} {value:.3f}"
                     for flag, value in (("--from", args.t0), ("--to", args.t1)) if value is not None}
            if args.t0 is not None and args.t1 is not None:
                where = _("between {start} and {end}").format(start=shown["--from"], end=shown["--to"])
            elif args.t0 is not None:
                where = _("after {bounds}").format(bounds=shown["--from"])
            else:
                where = _("before {bounds}").format(bounds=shown["--to"])
            raise CliError(_("{title}: no samples {where}; the data spans {first:.0f} to {last:.0f} (epoch s).").format(
                title=title, where=where, first=span[0], last=span[1]) if span else
                _("{title}: no samples {where}.").format(title=title, where=where))
    except (TelemetryError, StoreError, GpudeskError) as exc:
        raise CliError.from_error(exc) from exc
    if args.json:
        out = result.to_json()
        if log is not None:
            out["format"] = log.format.value
        print(dumps_json(out, indent=2))
        return 0
    _print_analysis(title, result)
    return 0


# dmon text piped in is held whole (a saved file is read in blocks instead): 256 MiB is about 90 h of 8 GPUs.
_MAX_STDIN_BYTES = 256 * 2**20


def _thresholds(path: Path | None) -> Thresholds:
    return load_thresholds(path)


def _load_target(args: argparse.Namespace) -> tuple:
    """(frame, devices, title) of a dmon log file or a recording id."""
    from gpudesk.store import open_store
    from gpudesk.store.recordings import get_session
    from gpudesk.telemetry.formats.dmon_import import frame_and_devices_from_file, resolve_gpu_model
    from gpudesk.telemetry.recording.recorder import load_frame, session_devices

    path = Path(args.target)
    if path.exists():
        gpu = resolve_gpu_model(args.gpu_model) if args.gpu_model else None
        frame, devices, _log = frame_and_devices_from_file(path, gpu, args.interval)
        return frame, devices, path.name
    if args.target.isdigit():
        db = open_store()
        sess = get_session(db, int(args.target))
        return (load_frame(db, sess.id), session_devices(db, sess.id),
                _("recording {id} ({name})").format(id=sess.id, name=sess.name))
    raise CliError(_("{target}: neither a file nor a recording id (see 'gpudesk monitor analyze --list').").format(target=args.target))


# A plan exported as JSON is a few kB to a few hundred kB (its candidates and their memory accounts).
_MAX_PLAN_BYTES = 20_000_000


def _load_plan(args: argparse.Namespace) -> tuple[dict | None, str | None]:
    """The plan dictionary and its name, from --plan ID or --plan-file F (or nothing)."""
    from gpudesk.store import open_store
    from gpudesk.store.plans import get_plan

    if args.plan is not None and args.plan_file is not None:
        raise CliError(_("Give --plan or --plan-file, not both."))
    if args.plan is not None:
        saved = get_plan(open_store(), args.plan)
        if saved.problem:
            raise CliError(_('Saved plan {plan} cannot be read ({problem}); re-plan it in the Plan tab.').format(plan=args.plan, problem=saved.problem))
        return saved.plan, saved.name
    if args.plan_file is not None:
        fix = _("Give the JSON a plan command wrote, e.g. 'gpudesk plan ... --json > plan.json'.")
        from gpudesk.file_limits import InputFileError, read_input

        try:
            raw = read_input(args.plan_file, _MAX_PLAN_BYTES, _("the plan"))
        except InputFileError as exc:
            raise CliError(_("{problem} {fix}").format(problem=exc.user_text(), fix=fix)) from exc
        try:
            plan = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise CliError(_('{plan_file}: not a JSON plan (it is not UTF-8 text: byte {start} cannot be read). {fix}').format(plan_file=args.plan_file, start=exc.start, fix=fix)) from exc
        except json.JSONDecodeError as exc:
            raise CliError(_('{plan_file}: not a JSON plan ({msg} at line {lineno}). {fix}').format(plan_file=args.plan_file, msg=exc.msg, lineno=exc.lineno, fix=fix)) from exc
        except RecursionError as exc:
            raise CliError(_('{plan_file}: not a JSON plan (nested too deeply). {fix}').format(plan_file=args.plan_file, fix=fix)) from exc
        if not isinstance(plan, dict):
            raise CliError(_("{plan_file}: a plan is a JSON object with 'candidates'.").format(plan_file=args.plan_file))
        return plan, str(plan.get("name") or args.plan_file.name)
    return None, None


def cmd_report(args: argparse.Namespace) -> int:
    from gpudesk.store import StoreError
    from gpudesk.telemetry.recording.burnin import build_report
    from gpudesk.telemetry.recording.burnin_render import format_for, write_report
    from gpudesk.telemetry.core.model import TelemetryError

    try:
        fmt = format_for(args.out)
        if not Path(args.target).exists() and args.target.isdigit() and args.plan_file is None:
            from gpudesk.store import open_store
            from gpudesk.telemetry.recording.burnin_sources import report_from_store

            report = report_from_store(open_store(), int(args.target), args.plan, candidate_index=args.candidate - 1,
                                       thresholds=_thresholds(args.thresholds), title=args.title)
            title = report.source
        else:
            frame, devices, title = _load_target(args)
            plan, plan_name = _load_plan(args)
            report = build_report(frame, devices, source=title, title=args.title, plan=plan, plan_name=plan_name,
                                  candidate_index=args.candidate - 1, thresholds=_thresholds(args.thresholds))
        write_report(report, args.out, fmt)
    except (TelemetryError, StoreError, GpudeskError) as exc:
        raise CliError.from_error(exc) from exc
    print(_("{out}: burn-in report of {title} ({span}, {gpus} GPU(s), {warnings} warning(s)).").format(
        out=args.out, title=title, span=format_duration(report.duration_s), gpus=len(report.gpus),
        warnings=len(report.judged_findings)))
    print(report.analysis.summary)
    for note in report.analysis.notes:
        print(_("note: {note}").format(note=note), file=sys.stderr)
    return 0


def cmd_thresholds(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from gpudesk.telemetry.rules.thresholds import (
        default_thresholds_path, save_thresholds, thresholds_from_dict,
    )

    target = args.file or default_thresholds_path()
    try:
        if args.reset:
            try:
                target.unlink()
            except FileNotFoundError:
                pass
            except OSError as exc:
                raise CliError(_("{target}: cannot delete ({error}).").format(target=target,
                                                                              error=exc.strerror or exc)) from exc
        current = load_thresholds(target)
        if args.assignments:
            changes: dict[str, float] = {}
            for item in args.assignments:
                name, sep, value = item.partition("=")
                if not sep:
                    raise CliError(_('--set {item}: write NAME=VALUE, e.g. --set min_span_s=20.').format(item=item))
                try:
                    changes[name.strip()] = float(value)
                except ValueError as exc:
                    raise CliError(_('--set {item}: {value!r} is not a number.').format(item=item, value=value)) from exc
            merged = thresholds_from_dict({**current.changed(), **changes})
            current = replace(merged)
            save_thresholds(current, target)
    except GpudeskError as exc:
        raise CliError.from_error(exc) from exc
    if args.json:
        print(dumps_json(current.to_dict(), indent=2))
        return 0
    changed = current.changed()
    print(_("Rule thresholds ({path}):").format(path=target) if target.exists()
          else _("Rule thresholds ({path}, defaults: no file yet):").format(path=target))
    for name, value in current.to_dict().items():
        mark = "  " + _("(changed)") if name in changed else ""
        print(f"  {name} = {value}{mark}")
    return 0


# display units: (divisor, label); GB/s and MB/s decimal as datasheets (and dmon's rxpci/txpci "MB/s"), GiB binary
# as allocators (DESIGN.md); the larger unit when the row's largest figure reaches it, else the smaller (2 MiB of
# BAR1 is not "0.00 GiB", 41 MB/s of PCIe is not "0.04 GB/s")
_DISPLAY = {"bytes": ((2**30, "GiB"), (2**20, "MiB")), "bytes/s": ((1e9, "GB/s"), (1e6, "MB/s")),
            "Hz": ((1e6, "MHz"),)}
# decimals per display unit: counters are whole numbers, %, W and C are printed by dmon/NVML as integers
_DECIMALS = {"count": 0, "%": 1, "W": 1, "C": 1, "MHz": 0, "MB/s": 1}


def _scale(unit: str, largest: float) -> tuple[float, str]:
    choices = _DISPLAY.get(unit, ((1.0, unit),))
    for div, label in choices:
        if abs(largest) >= div:
            return div, label
    return choices[-1]


def _fmt(value: float, scale: tuple[float, str]) -> str:
    div, label = scale
    decimals = _DECIMALS.get(label, 2)
    shown = "" if label == "count" else f" {label}"  # the row's label already says what is counted
    return f"{value / div:10.{decimals}f}{shown}"


def _stat_line(label: str, unit: str, s) -> str:
    """One metric's row: median, p5, p95 (or the one value of a single sample); a bool as a share of samples."""
    # Padded by display width (gpudesk.cli.columns): a translated label's CJK characters take two cells each.
    return "  " + _("{label} {value}").format(label=ljust_display(label, 32), value=_stat_value(unit, s))


def _stat_value(unit: str, s) -> str:
    if unit == "bool":
        if s.n == 1:
            return _("yes (1 sample)") if s.median else _("no (1 sample)")
        share = float(s.mean or 0.0)
        yes = round(share * s.n)
        if yes == 0:
            return _("no (0 of {n} samples)").format(n=s.n)
        if yes == s.n:
            return _("yes ({n} of {n} samples)").format(n=s.n)
        shown = f"{100.0 * share:.0f}" if 1.0 <= 100.0 * share <= 99.0 else f"{100.0 * share:.2g}"
        return _("yes in {yes} of {n} samples ({share} %)").format(yes=yes, n=s.n, share=shown)
    scale = _scale(unit, max(abs(s.p5), abs(s.p95)))
    if s.n == 1:
        number, _space, shown = _fmt(s.median, scale).strip().partition(" ")
        if "." in number:  # one reading: as printed, 111 W not 111.0 W, 2 MiB not 2.00 MiB
            number = number.rstrip("0").rstrip(".")
        return _("{value} (1 sample)").format(value=f"{number} {shown}" if shown else number)
    return ngettext("median {median}  p5 {p5}  p95 {p95}  ({n} sample)",
                    "median {median}  p5 {p5}  p95 {p95}  ({n} samples)", s.n).format(
        median=_fmt(s.median, scale), p5=_fmt(s.p5, scale), p95=_fmt(s.p95, scale), n=s.n)


def _print_analysis(title: str, result) -> None:
    from gpudesk.nvml.pcie import describe_link
    from gpudesk.telemetry.core.dcgm_fields import metric_label, metric_unit

    span = result.span
    shown_span = format_duration(span[1] - span[0]) if span else _("no samples")
    print(ngettext("{title}: {span}, {rounds} sampling round, {gpus} GPU(s)",
                   "{title}: {span}, {rounds} sampling rounds, {gpus} GPU(s)", result.rounds).format(
        title=title, span=shown_span, rounds=result.rounds, gpus=len(result.stats)))
    for g, per in sorted(result.stats.items()):
        dev = result.devices.get(g)
        link = (describe_link(dev.pcie_gen_max, dev.pcie_width_max_lanes, dev.pcie_link_source) if dev
                else _("PCIe link unknown"))
        print(_("GPU {index} ({model}; {link}):").format(index=g, model=dev.name if dev and dev.name else
                                                         _("model unknown"), link=link))
        for name, s in per.items():
            if s.n == 0:
                continue
            unit = metric_unit(name)
            label = i18n._(metric_label(name))  # marked N_ where defined (telemetry.core.model, dcgm_fields)
            print(_stat_line(label, unit, s))
    if result.summary:
        print(_("Summary: {summary}").format(summary=result.summary))
    print(_("Findings:"))
    for f in result.findings:
        where = _("all GPUs") if f.gpu is None else _("GPU {index}").format(index=f.gpu)
        print("  " + _("[{severity}] {rule} ({where}): {summary}").format(
            severity=severity_name(f.severity), rule=rule_name(f.rule), where=where, summary=f.summary))
        if f.advice:
            print("      " + _("advice: {advice}").format(advice=f.advice))
    for note in result.notes:
        print(_("note: {note}").format(note=note))


def cmd_export(args: argparse.Namespace) -> int:
    from gpudesk.store import StoreError, open_store
    from gpudesk.telemetry.recording.export import export_csv
    from gpudesk.telemetry.core.model import TelemetryError
    from gpudesk.telemetry.recording.recorder import load_frame, session_devices

    try:
        db = open_store()
        frame = load_frame(db, args.session, args.t0, args.t1)
        n = export_csv(frame, args.output, devices=session_devices(db, args.session))
    except (TelemetryError, StoreError) as exc:
        raise CliError.from_error(exc) from exc
    print(_('Wrote {n} rows to {output}.').format(n=n, output=args.output))
    for note in frame.notes:
        print(_("note: {note}").format(note=note), file=sys.stderr)
    return 0
