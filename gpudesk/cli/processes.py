"""``gpudesk monitor processes`` (who uses the GPUs, with SM and memory-bandwidth shares) and ``monitor stop PID``."""

from __future__ import annotations

import argparse
import sys

from gpudesk.cli.json_text import dumps_json
from gpudesk.cli import CliError
from gpudesk.i18n import _


def add_process_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("processes", help=_("GPU processes: memory, SM and memory-bandwidth share, user, command, "
                                           "container"))
    p.add_argument("--json", action="store_true", help=_("machine-readable output"))
    p.set_defaults(func=cmd_processes)
    s = sub.add_parser("stop", help=_("terminate (or kill) one of your own GPU processes after a confirmation"))
    s.add_argument("pid", type=int, help=_("process id (see 'gpudesk monitor processes')"))
    s.add_argument("--kill", action="store_true", help=_("SIGKILL instead of SIGTERM (no chance to clean up)"))
    s.add_argument("--yes", action="store_true", help=_("do not ask for confirmation"))
    s.set_defaults(func=cmd_stop)


def _pct(value: float | None) -> str:
    return "N/A" if value is None else f"{value:.0f} %"


def cmd_processes(args: argparse.Namespace) -> int:
    from gpudesk.nvml.nvml_session import NvmlSession, NvmlUnavailableError
    from gpudesk.telemetry.core.process_use import process_use
    from gpudesk.units import format_bytes

    try:
        with NvmlSession() as session:
            listing = process_use(session)
    except NvmlUnavailableError as exc:
        raise CliError.from_error(exc, status=1) from exc
    if args.json:
        print(dumps_json({"processes": [p.to_dict() for p in listing.processes],
                          "device_sm_util_pct": {str(k): v for k, v in listing.device_sm_util_pct.items()},
                          "device_mem_util_pct": {str(k): v for k, v in listing.device_mem_util_pct.items()},
                          "notes": listing.notes, "errors": {str(k): v for k, v in listing.errors.items()}},
                         indent=2))
        return 0
    if not listing.processes:
        print(_("No GPU processes."))
    for p in listing.processes:
        mem = format_bytes(p.used_memory_bytes)
        print(_("GPU {gpu}  PID {pid}  {user}  mem {mem}  SM {sm}  mem bw {bw}  {container}{command}").format(
            gpu=p.gpu_index, pid=p.pid, user=p.user or "?", mem=mem, sm=_pct(p.sm_util_pct),
            bw=_pct(p.mem_util_pct), container=f"[{p.container}] " if p.container else "",
            command=(p.cmdline or p.name or "?")[:120]))
    for note in listing.notes:
        print(_("note: {note}").format(note=note))
    return 0


def cmd_stop(args: argparse.Namespace) -> int:
    from gpudesk.telemetry.core.process_control import ProcessControlError, check_stoppable, stop_process

    try:
        proc = check_stoppable(args.pid)
        command = " ".join(proc.cmdline())[:200] or proc.name()
    except ProcessControlError as exc:
        raise CliError.from_error(exc, status=1) from exc
    except Exception as exc:  # psutil errors between the check and the read: the process changed under us
        raise CliError(_("Process {pid} could not be read: {reason}.").format(pid=args.pid, reason=exc),
                       status=1) from exc
    if not args.yes:
        if sys.stdin is None or not sys.stdin.isatty():
            raise CliError(_("Confirm with --yes to stop process {pid} without a terminal.").format(pid=args.pid))
        question = (_("Kill process {pid} ({command})? [y/N] ") if args.kill
                    else _("Terminate process {pid} ({command})? [y/N] "))
        answer = input(question.format(pid=args.pid, command=command))
        if answer.strip().lower() not in ("y", "yes"):
            print(_("Not stopped."))
            return 1
    try:
        result = stop_process(args.pid, force=args.kill)
    except ProcessControlError as exc:
        raise CliError.from_error(exc, status=1) from exc
    if result.exited:
        print(_("Process {pid} ended ({signal}).").format(pid=result.pid, signal=result.signal_name))
        return 0
    print(_("Sent {signal} to process {pid}; it is still running (use --kill to force it).").format(
        signal=result.signal_name, pid=result.pid))
    return 1
