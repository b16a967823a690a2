"""``gpudesk monitor fleet``: GPUs of many nodes through Prometheus (DCGM exporter), exporter scrapes, or a
``dcgmi dmon`` log; prints every GPU read and the findings, each naming host, GPU index, UUID and job."""

from __future__ import annotations

import argparse
import getpass
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

from gpudesk.cli import CliError
from gpudesk.cli.json_text import dumps_json
from gpudesk.i18n import _
from gpudesk.units import format_gib

SECRET_ENV = "GPUDESK_FLEET_SECRET"


def add_fleet_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    f = sub.add_parser(
        "fleet", help=_("GPUs across nodes: Prometheus + DCGM exporter, exporter /metrics, or a dcgmi dmon log"),
        description=_("Read a fleet's GPUs and print each GPU and the bottleneck findings. Network use: only the "
                    "URLs given here."))
    src = f.add_mutually_exclusive_group(required=True)
    src.add_argument("--prometheus", metavar="URL", help=_("Prometheus server scraping the DCGM exporter"))
    src.add_argument("--scrape", metavar="URL", action="append", help=_("exporter /metrics URL (repeatable)"))
    src.add_argument("--dcgmi", metavar="FILE", help=_("saved 'dcgmi dmon' output ('-' reads standard input)"))
    src.add_argument("--dcgmi-command", metavar="CMD",
                     help=_("live dcgmi dmon from a command, e.g. \"ssh node dcgmi dmon -e 203,1001\"; read for --window"))
    f.add_argument("--window", default="1h", metavar="D",
                   help=_("history window for --prometheus (90s, 30m, 24h, 7d; default 1h); for --scrape, scrape "
                        "repeatedly over this window (default: once)"))
    f.add_argument("--step", type=float, default=None, metavar="S", help=_("range step in seconds (default: fits "
                   "the window, at most 720 points)"))
    f.add_argument("--interval", type=float, default=None, metavar="S",
                   help=_("scrape interval of the data (s): Prometheus' (default 15), the --scrape repeat "
                        "(default 5), or dcgmi's -d delay (default 1)"))
    f.add_argument("--selector", default="", metavar="LABELS", help=_("extra label matchers, e.g. cluster=\"a\""))
    f.add_argument("--metric-name", action="append", default=[], metavar="METRIC=NAME",
                   help=_("a renamed deployment's metric, e.g. gpu_util_pct=my_gpu_util (repeatable)"))
    f.add_argument("--group", choices=("job", "host"), default="job", help=_("judge imbalance within a job or a host"))
    f.add_argument("--host", default="", help=_("host name for a dcgmi log"))
    f.add_argument("--auth", choices=("none", "basic", "bearer"), default="none", help=_("credentials kind"))
    f.add_argument("--user", default="", help=_("user name for --auth basic"))
    f.add_argument("--save-secret", action="store_true",
                   help=_("ask for the password / token and keep it in the system keyring for this URL"))
    f.add_argument("--ca-file", default=None, metavar="PEM", help=_("CA certificate for https (default: system store)"))
    f.add_argument("--timeout", type=float, default=10.0, metavar="S",
                   help=_("time limit of each HTTP request, from connecting to the last byte (default 10 s)"))
    f.add_argument("--max-series", type=int, default=None, metavar="N",
                   help=_("refuse an answer or exporter page with more series than this (default 250000)"))
    f.add_argument("--max-body-mib", type=float, default=None, metavar="MIB",
                   help=_("refuse an HTTP answer larger than this once decompressed (default 128 MiB)"))
    f.add_argument("--record", default=None, metavar="NAME",
                   help=_("also save the window as a recording (export, replay and reports work on it)"))
    f.add_argument("--json", action="store_true", help=_("machine-readable output (keys carry units)"))
    f.set_defaults(func=cmd_fleet)


def _duration(text: str) -> float:
    from gpudesk.cli.monitor import parse_duration  # the monitor CLI's duration syntax

    value = parse_duration(text, "--window")
    return 0.0 if value is None else value


def _check_numbers(args: argparse.Namespace) -> None:
    """Refuse impossible numbers before any network or file access."""
    for flag, value in (("--timeout", args.timeout), ("--step", args.step), ("--interval", args.interval)):
        if value is not None and not (math.isfinite(value) and value > 0):
            raise CliError(_('{flag} must be a positive number of seconds, got {value:g}.').format(flag=flag, value=value))
    if args.max_series is not None and args.max_series <= 0:
        raise CliError(_('{flag} must be a positive whole number, got {value}.').format(flag="--max-series",
                                                                                     value=args.max_series))
    if args.max_body_mib is not None and not (math.isfinite(args.max_body_mib) and args.max_body_mib > 0):
        raise CliError(_('{flag} must be a positive number of MiB, got {value:g}.').format(flag="--max-body-mib",
                                                                                        value=args.max_body_mib))
    _duration(args.window)


def _na(text: str, reason: str | None) -> str:
    """``util N/A`` with the reason the source gave, when it gave one other than "not exported"."""
    if not reason or reason == "not exported":
        return text
    return _("{value} ({reason})").format(value=text, reason=reason)


def _limits(args: argparse.Namespace) -> dict[str, int]:
    """The size limits given on the command line, as keyword arguments of the fleet sources."""
    out = {}
    if args.max_series is not None:
        out["max_series"] = int(args.max_series)
    if args.max_body_mib is not None:
        out["max_body_bytes"] = max(1, int(args.max_body_mib * 2**20))
    return out


def _num(v: float) -> float | None:
    return None if v is None or not math.isfinite(v) else round(float(v), 3)


def _auth(args: argparse.Namespace, url: str) -> Any:
    # Imported here, not at module level: ``gpudesk --help`` must not load the telemetry stack (start-up speed).
    from gpudesk.telemetry.fleet.fleet_http import Auth
    from gpudesk.telemetry.fleet.fleet_secrets import load_secret, store_secret

    if args.auth == "none":
        return Auth()
    if args.save_secret:
        store_secret(url, getpass.getpass(_("Password or token (kept in the system keyring):") + " "))
    secret = os.environ.get(SECRET_ENV) or load_secret(url)
    if not secret:
        raise CliError(_('No secret stored for {url}: run once with --save-secret (or set {env}).').format(url=url, env=SECRET_ENV))
    return Auth(args.auth, args.user, secret)


def cmd_fleet(args: argparse.Namespace) -> int:
    # Imported here for start-up speed of the other commands.
    from gpudesk.errors import GpudeskError
    from gpudesk.telemetry.core import model as m
    from gpudesk.telemetry.fleet.fleet import fleet_findings
    from gpudesk.telemetry.fleet.fleet_processes import rollup_by_user
    from gpudesk.telemetry.rules.evidence_names import rule_name, severity_name

    _check_numbers(args)
    try:
        if args.prometheus:
            history, source = _from_prometheus(args), args.prometheus
        elif args.scrape:
            history, source = _from_scrape(args), ", ".join(args.scrape)
        elif args.dcgmi_command:
            history, source = _from_dcgmi_command(args), args.dcgmi_command
        else:
            history, source = _from_dcgmi(args), args.dcgmi
        findings = fleet_findings(history, by=args.group, include_not_judged=True) if len(history.frame) else []
        session = None
        if args.record is not None:  # the store is imported only when asked (start-up speed)
            from gpudesk.store import StoreError
            from gpudesk.telemetry.fleet.fleet_record import record_history
            from gpudesk.telemetry.core.model import TelemetryError

            try:
                session, _rows = record_history(history, source=f"fleet {source}"[:200], name=args.record)
            except (StoreError, TelemetryError) as exc:
                raise CliError(_('The window could not be saved as a recording: {exc}').format(exc=exc), status=1) from exc
    except CliError:
        raise  # already says what to do, with its own exit status (2: a bad argument or a missing file)
    except GpudeskError as exc:
        raise CliError.from_error(exc, status=1) from exc
    util_metric = m.GPU_UTIL
    # one pass per metric over the whole fleet (per GPU it would be quadratic: 2,000 GPUs took 28 s)
    columns = {f"{metric}_mean": history.values(metric)
               for metric in (m.GPU_UTIL, "gr_engine_active_pct", "sm_active_pct", m.POWER, m.GPU_TEMP)}
    columns[f"{m.MEM_USED}_max"] = history.values(m.MEM_USED, "max")
    reasons: dict[int, dict[str, str]] = {}
    for (pos, metric), why in history.frame.reasons.items():
        reasons.setdefault(pos, {})[metric] = why
    rows = []
    for pos, key in enumerate(history.keys):
        row = key.to_dict()
        for name, column in columns.items():
            row[name] = _num(column[pos])
        row["reasons"] = reasons.get(pos, {})  # why a value is N/A (not exported, NaN, infinite, DCGM blank ...)
        rows.append(row)
    users = rollup_by_user(history.processes) if history.processes else []
    if args.json:
        print(dumps_json({"source": source, "step_s": history.step_s, "recording_id": session, "gpus": rows,
                          "processes": [vars(p) for p in history.processes], "users": [vars(u) for u in users],
                          "findings": [f.to_dict() for f in findings if f.finding.judged],
                          "not_judged": [f.to_dict() for f in findings if not f.finding.judged],
                          "notes": history.notes}))
        return 0
    print(_("{n} GPU(s) from {source} (step {step_s:g} s)").format(n=len(rows), source=source, step_s=history.step_s))
    for row in rows:
        busy = next(((k, row[f"{k}_mean"]) for k in (util_metric, "sm_active_pct", "gr_engine_active_pct")
                     if row[f"{k}_mean"] is not None), None)
        why = row["reasons"]
        mem = row[f"{m.MEM_USED}_max"]
        parts = [_("{host} GPU {index}").format(host=row["host"],
                                                index=row["gpu_index"] if row["gpu_index"] is not None else "?")]
        if row["mig_instance"] is not None:
            parts.append(_("MIG {instance} ({profile})").format(instance=row["mig_instance"],
                                                                profile=row["mig_profile"] or "?"))
        parts.append(row["uuid"] or _("no UUID"))
        parts.append(busy_text(*busy) if busy is not None else _na(_("util N/A"), why.get(util_metric)))
        parts.append(_("mem {memory}").format(memory=format_gib(mem, digits=1)) if mem is not None else _na(_("mem N/A"), why.get(m.MEM_USED)))
        power = row[f"{m.POWER}_mean"]
        parts.append(_("power {power_w:.0f} W").format(power_w=power) if power is not None else _na(_("power N/A"), why.get(m.POWER)))
        if row["job"]:
            parts.append(_("job {job}").format(job=row["job"]))
        print("  " + " | ".join(parts))
    if users:
        print(_("Per user (from the per-process series):"))
        for u in users:
            print("  " + _("{user}: {processes} process(es) on {gpus} GPU(s), {memory} ({hosts})").format(
                user=u.user, processes=u.processes, gpus=u.gpus, memory=format_gib(u.used_memory_bytes, digits=1),
                hosts=", ".join(u.hosts)))
    judged = [f for f in findings if f.finding.judged]
    warnings = [f for f in judged if f.finding.severity in ("warning", "critical")]
    skipped = [f for f in findings if not f.finding.judged]
    print(_("{warnings} warning(s); {quiet} check(s) found nothing; {skipped} not judged").format(
        warnings=len(warnings), quiet=len(judged) - len(warnings), skipped=len(skipped)))
    if not len(history.frame):
        print("  " + _("not judged: no samples were read, so no rule ran."))
    for f in judged:
        who = (_("{gpu} ({uuid})").format(gpu=f.key.label, uuid=f.key.uuid or _("no UUID")) if f.key
               else _("group {group}").format(group=f.group))
        line = (_("[{severity}] {rule}: {who} job {job}: {summary}") if f.key and f.key.job_name
                else _("[{severity}] {rule}: {who}: {summary}"))
        print("  " + line.format(severity=severity_name(f.finding.severity), rule=rule_name(f.finding.rule), who=who,
                                 job=f.key.job_name if f.key else "", summary=f.finding.summary))
    for f in skipped:
        who = f.key.label if f.key else _("group {group}").format(group=f.group)
        print("  " + _("[not judged] {rule}: {who}: {summary}").format(rule=rule_name(f.finding.rule), who=who,
                                                                     summary=f.finding.summary))
    for note in history.notes:
        print("  " + _("note: {note}").format(note=note))
    if session is not None:
        print(_('Saved as recording {session}.').format(session=session))
    return 0


def busy_text(metric: str, value: float) -> str:
    """The busy column of the fleet grid: NVML utilization as a percentage; DCGM's SM-active and graphics-engine
    ratios as ratios (stored x 100), so a faulty SMACT of 1.294 reads "SM active 1.294", never "util 129.4 %"."""
    if metric == "sm_active_pct":
        return _("SM active {ratio:.3f}").format(ratio=value / 100.0)
    if metric == "gr_engine_active_pct":
        return _("GR active {ratio:.3f}").format(ratio=value / 100.0)
    return _("util {util:.1f} %").format(util=value)


def _from_prometheus(args: argparse.Namespace) -> Any:
    from gpudesk.telemetry.fleet.prometheus_source import (
        DEFAULT_SCRAPE_INTERVAL_S,
        PrometheusSource,
    )

    src = PrometheusSource(args.prometheus, auth=_auth(args, args.prometheus), timeout_s=args.timeout,
                           ca_file=args.ca_file, selector=args.selector, metric_names=_renames(args.metric_name),
                           scrape_interval_s=args.interval or DEFAULT_SCRAPE_INTERVAL_S, **_limits(args))
    src.discover()
    return src.history(_duration(args.window), step_s=args.step)


def _from_scrape(args: argparse.Namespace) -> Any:
    from gpudesk.telemetry.fleet.exporter_scrape import scrape
    from gpudesk.telemetry.fleet.fleet import FleetHistory, KeyIndex
    from gpudesk.telemetry.core.model import SampleBatch, History

    window = _duration(args.window) if args.window != "1h" else 0.0
    interval = args.interval or 5.0
    index = KeyIndex()
    batches: list[SampleBatch] = []
    end = time.monotonic() + window
    while True:
        snap = scrape(args.scrape, auth=_auth(args, args.scrape[0]), timeout_s=args.timeout, ca_file=args.ca_file,
                      **_limits(args))
        for s in snap.batch.samples:  # positions of this scrape -> positions over all scrapes
            s.gpu_index = index.position(snap.keys[s.gpu_index])
        batches.append(snap.batch)
        if time.monotonic() + interval > end:
            break
        time.sleep(interval)
    notes = [] if len(batches) > 1 else [(_("One scrape: findings that need a sustained window are not judged; "
                                          "give --window to scrape repeatedly."))]
    return FleetHistory(index.keys, History.from_batches(batches), interval, notes, snap.processes)


def _from_dcgmi(args: argparse.Namespace) -> Any:
    from gpudesk.telemetry.formats.dcgmi_dmon import parse_dcgmi_dmon, read_dcgmi_dmon

    delay = args.interval or 1.0
    if args.dcgmi == "-":
        from gpudesk.file_limits import read_stream
        from gpudesk.telemetry.formats.dcgmi_dmon import MAX_TEXT_BYTES, decode_dcgmi_bytes

        text = decode_dcgmi_bytes(read_stream(sys.stdin, MAX_TEXT_BYTES, _("The dcgmi dmon log")))
        return parse_dcgmi_dmon(text, host=args.host, t0=time.time(), delay_s=delay)
    path = Path(args.dcgmi)
    if not path.exists():
        raise CliError(_('{path}: no such file.').format(path=path))
    return read_dcgmi_dmon(path, host=args.host, delay_s=delay)


def _from_dcgmi_command(args: argparse.Namespace) -> Any:
    from gpudesk.telemetry.sources.dcgmi_stream import DcgmiStreamSource
    from gpudesk.telemetry.fleet.fleet import FleetHistory
    from gpudesk.telemetry.core.model import History

    window = _duration(args.window)
    stream = DcgmiStreamSource(args.dcgmi_command, host=args.host)
    batches = []
    end = time.monotonic() + window
    try:
        while time.monotonic() < end and not stream.finished:
            batches.extend(stream.poll())
            time.sleep(0.05)
    finally:
        stream.close()
        batches.extend(stream.poll())
    notes = list(stream.parser.notes)
    if not batches:
        raise CliError(_('No dcgmi dmon rows came from the command within {window:g} s.').format(window=window), status=1)
    return FleetHistory(stream.keys, History.from_batches(batches, notes), args.interval or 1.0, notes)


def _renames(pairs: list[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        metric, sep, name = pair.partition("=")
        if not sep or not metric.strip() or not name.strip():
            raise CliError(_('--metric-name {pair!r}: write METRIC=NAME, e.g. gpu_util_pct=my_gpu_util.').format(pair=pair))
        out[metric.strip()] = name.strip()
    return out
