"""``gpudesk monitor serve``: a Prometheus /metrics endpoint of this machine's GPUs (DCGM exporter names)."""

from __future__ import annotations

import argparse
import os
import signal
import threading
from pathlib import Path
from typing import Any

from gpudesk.cli import CliError
from gpudesk.i18n import _

TOKEN_ENV = "GPUDESK_SERVE_TOKEN"
DEFAULT_PORT = 9401  # dcgm-exporter's 9400 plus one: both can run on one machine


def add_serve_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    s = sub.add_parser(
        "serve", help=_("serve this machine's GPUs as a Prometheus /metrics page (DCGM exporter names)"),
        description=_("A Prometheus /metrics endpoint with the DCGM exporter's metric names and labels, per-process "
                      "GPU memory too. Listens on 127.0.0.1 unless --listen says otherwise."))
    s.add_argument("--listen", default=f"127.0.0.1:{DEFAULT_PORT}", metavar="HOST:PORT",
                   help=_("address to listen on (default 127.0.0.1:{port}; 0.0.0.0:PORT opens it to the network)")
                   .format(port=DEFAULT_PORT))
    s.add_argument("--token-file", type=Path, default=None, metavar="FILE",
                   help=_("require 'Authorization: Bearer <token>' with the token in FILE (or set {env}); never "
                          "give the token itself on the command line").format(env=TOKEN_ENV))
    s.add_argument("--interval", type=float, default=1.0, metavar="S",
                   help=_("read the GPUs at most once per S seconds, when a scrape arrives (default 1)"))
    s.add_argument("--duration", type=str, default=None, metavar="D",
                   help=_("stop after D (90s, 30m, 72h); default: until Ctrl+C"))
    s.add_argument("--no-processes", action="store_true", help=_("leave out the per-process metrics"))
    s.set_defaults(func=cmd_serve)


def read_token(path: Path | None) -> str | None:
    """The bearer token from ``path`` or the environment (first line, stripped), or None when neither is set."""
    if path is None:
        return os.environ.get(TOKEN_ENV) or None
    try:
        text = path.read_text(encoding="utf-8").strip().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(_("{path}: the token file could not be read ({reason}).").format(
            path=path, reason=getattr(exc, "strerror", None) or exc)) from exc
    token = text[0].strip() if text else ""
    if not token:
        raise CliError(_("{path}: the token file is empty.").format(path=path))
    return token


def cmd_serve(args: argparse.Namespace) -> int:
    from gpudesk.cli.monitor import parse_duration
    from gpudesk.nvml.nvml_session import NvmlUnavailableError, host_name
    from gpudesk.telemetry.sources.metrics_server import GpuCollector, MetricsServer, ServeError, parse_listen
    from gpudesk.telemetry.sources.nvml_source import NvmlSource
    from gpudesk.telemetry.core.process_use import process_use

    if not args.interval > 0:
        raise CliError(_("--interval must be more than 0 seconds."))
    duration = parse_duration(args.duration)
    token = read_token(args.token_file)
    try:
        host, port = parse_listen(args.listen, DEFAULT_PORT)
        source = NvmlSource(interval_s=args.interval)
    except ServeError as exc:
        raise CliError.from_error(exc) from exc
    except NvmlUnavailableError as exc:
        raise CliError.from_error(exc, status=1) from exc
    lock = threading.Lock()

    def read() -> Any:
        with lock:
            return source.read()

    def processes() -> list[Any]:
        with lock:
            return process_use(source.session).processes

    collector = GpuCollector(read, source.devices, host_name(),
                             processes=None if args.no_processes else processes, min_interval_s=args.interval)
    try:
        server = MetricsServer(collector, host, port, token).start()
    except ServeError as exc:
        source.close()
        raise CliError.from_error(exc, status=1) from exc
    if token:
        print(_("Serving {n} GPU(s) at {url} (bearer token required); Ctrl+C stops.").format(
            n=len(source.devices()), url=server.url), flush=True)
    else:
        print(_("Serving {n} GPU(s) at {url}; Ctrl+C stops.").format(n=len(source.devices()), url=server.url),
              flush=True)
    if host not in ("127.0.0.1", "::1", "localhost") and not token:
        print(_("note: listening on {host} without a token: anyone who can reach this port reads the GPU metrics "
                "and process names.").format(host=host), flush=True)
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_a: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)} \
        if threading.current_thread() is threading.main_thread() else {}
    try:
        stop.wait(duration)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        server.stop()
        with lock:
            source.close()
    print(_("Stopped after {n} scrape(s).").format(n=server.scrapes))
    return 0
