"""``gpudesk monitor alerts watch|history``: the alert rules run live on this machine's GPUs, and their history."""

from __future__ import annotations

import argparse
import signal
import threading
import time

from gpudesk.cli.json_text import dumps_json
from gpudesk.cli import CliError
from gpudesk.i18n import _
from gpudesk.telemetry.rules.evidence_names import severity_name

MAX_HISTORY_LIMIT = 1_000_000  # far more alerts than a store keeps; sqlite3 cannot bind an int past 2**63


def add_alert_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    a = sub.add_parser("alerts", help=_("alerts: job finished, idle while allocated, memory running out, "
                                        "throttling, Xid/ECC"))
    asub = a.add_subparsers(dest="alerts_command", metavar="SUBCOMMAND")
    a.set_defaults(func=lambda args: _help(a))
    w = asub.add_parser("watch", help=_("watch the GPUs and raise alerts (printed, kept in the store, optionally "
                                        "sent to a command or a webhook)"))
    w.add_argument("--command", default=None, metavar="CMD",
                   help=_("run CMD for each alert (no shell; the alert is in GPUDESK_ALERT_* variables)"))
    w.add_argument("--webhook", default=None, metavar="URL",
                   help=_("POST each alert as JSON to URL (the only network use)"))
    w.add_argument("--interval", type=float, default=1.0, metavar="S", help=_("seconds between samples (default 1)"))
    w.add_argument("--duration", default=None, metavar="D", help=_("stop after D (90s, 30m, 72h)"))
    w.add_argument("--idle-minutes", type=float, default=10.0, metavar="N",
                   help=_("idle-while-allocated alert after N minutes (default 10)"))
    w.add_argument("--memory-horizon-minutes", type=float, default=30.0, metavar="N",
                   help=_("memory alert when it would run out within N minutes at the current rate (default 30)"))
    w.set_defaults(func=cmd_watch)
    h = asub.add_parser("history", help=_("alerts raised so far, most recent first"))
    h.add_argument("--limit", type=int, default=50, metavar="N", help=_("at most N alerts (default 50)"))
    h.add_argument("--json", action="store_true", help=_("machine-readable output"))
    h.set_defaults(func=cmd_history)


def _help(p: argparse.ArgumentParser) -> int:
    p.print_help()
    return 0


def cmd_watch(args: argparse.Namespace) -> int:
    from gpudesk.cli.monitor import parse_duration
    from gpudesk.nvml.events import EventWatcher
    from gpudesk.nvml.nvml_session import NvmlUnavailableError, host_name
    from gpudesk.store import StoreError, open_store
    from gpudesk.telemetry.rules.alert_delivery import Delivery
    from gpudesk.telemetry.sources.alert_monitor import AlertMonitor
    from gpudesk.telemetry.rules.alerts import AlertEngine, AlertThresholds
    from gpudesk.telemetry.rules.live_rules import LiveRules
    from gpudesk.telemetry.sources.nvml_source import NvmlSource
    from gpudesk.telemetry.rules.thresholds import ThresholdsError, load_thresholds

    if not args.interval > 0 or not args.idle_minutes > 0 or not args.memory_horizon_minutes > 0:
        raise CliError(_("--interval, --idle-minutes and --memory-horizon-minutes must be more than 0."))
    duration = parse_duration(args.duration)
    delivery = Delivery(args.command, args.webhook, host=host_name())
    try:
        delivery.check()
    except ValueError as exc:
        raise CliError.from_error(exc) from exc
    try:
        source = NvmlSource(interval_s=args.interval)
    except NvmlUnavailableError as exc:
        raise CliError.from_error(exc, status=1) from exc
    try:
        db = open_store()
    except StoreError as exc:
        source.close()
        raise CliError.from_error(exc, status=1) from exc
    try:
        rule_th = load_thresholds()  # the findings' thresholds: the live rules and the alert kinds share them
    except ThresholdsError as exc:
        source.close()
        db.close()
        raise CliError.from_error(exc) from exc
    th = AlertThresholds.from_rules(rule_th, idle_s=args.idle_minutes * 60,
                                    memory_horizon_s=args.memory_horizon_minutes * 60)

    def show(alert, delivered, errors) -> None:
        # The kind stays its id (the alerts' environment and scripts use it); the line is the language's own.
        print(_("[{severity}] {kind}: {message}").format(severity=severity_name(alert.severity),
                                                          kind=alert.kind.value, message=alert.message), flush=True)
        for error in errors:
            print("  " + _("delivery failed: {error}").format(error=error), flush=True)

    watcher = EventWatcher(source.session).open()
    monitor = AlertMonitor(source, AlertEngine(th), db=db, delivery=delivery, watcher=watcher,
                           interval_s=args.interval, on_alert=show,
                           rules=LiveRules(rule_th, devices=list(source.devices())))
    print(_("Watching {n} GPU(s); Ctrl+C stops.").format(n=len(source.devices())), flush=True)
    for note in monitor.notes:
        print(_("note: {note}").format(note=note), flush=True)
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_a: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)} \
        if threading.current_thread() is threading.main_thread() else {}
    end = None if duration is None else time.monotonic() + duration
    try:
        while not stop.is_set() and (end is None or time.monotonic() < end):
            monitor.tick()
            if watcher.watching == [] and not stop.is_set():
                stop.wait(args.interval)  # no event wait to pace the loop
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        monitor.close()
        source.close()
        db.close()
    print(_("Stopped; {n} alert(s) raised.").format(n=len(monitor.history)))
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    from gpudesk.store import StoreError, open_store
    from gpudesk.store.alerts import list_alerts

    if not 1 <= args.limit <= MAX_HISTORY_LIMIT:
        raise CliError(_("--limit must be between 1 and {most:,} alerts, not {value}.").format(
            most=MAX_HISTORY_LIMIT, value=args.limit))
    try:
        db = open_store()
        rows = list_alerts(db, args.limit)
    except StoreError as exc:
        raise CliError.from_error(exc, status=1) from exc
    if args.json:
        print(dumps_json([r.__dict__ for r in rows], indent=2))
        return 0
    if not rows:
        print(_("No alerts yet: 'gpudesk monitor alerts watch' raises them."))
    for r in rows:
        where = _("GPU {gpu}").format(gpu=r.gpu_index) if r.gpu_index is not None else _("machine")
        print(_("{time}  [{severity}] {kind} ({where}): {message}").format(
            time=r.created_at, severity=severity_name(r.severity), kind=r.kind, where=where, message=r.message))
        if r.delivery_error:
            print("  " + _("delivery failed: {error}").format(error=r.delivery_error))
    return 0
