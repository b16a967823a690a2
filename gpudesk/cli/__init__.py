"""Headless command-line front end: ``gpudesk <command> ...``.

Each command group lives in its own module in this package and exposes ``add_parser(subparsers)``; the
parser it adds sets ``func(args) -> int`` (the exit status). Output goes to stdout, errors to stderr with
a non-zero status. JSON output keys carry their units in their names.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from gpudesk import __version__

# Command-group modules inside gpudesk.cli, in the order they appear in --help.
COMMAND_MODULES: list[str] = ["catalog", "monitor", "plan", "oom", "store"]


class CliError(Exception):
    """A user-facing error: printed to stderr, exit status 2 unless ``status`` says otherwise."""

    def __init__(self, message: str, status: int = 2):
        super().__init__(message)
        self.status = status


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gpudesk",
        description="Choose, monitor and debug GPUs for ML work. Without a command, opens the window.",
    )
    parser.add_argument("--version", action="version", version=f"gpudesk {__version__}")
    parser.add_argument(
        "--self-test", action="store_true", help="check this installation (catalog, plan, OOM text, dmon "
        "sample, main window offscreen), print one line per check, exit 0 when all pass"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        module = importlib.import_module(f"gpudesk.cli.{name}")
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run a headless command; returns the process exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.self_test:
        from gpudesk.selftest import run_selftest

        return run_selftest()
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    try:
        return int(func(args) or 0)
    except CliError as exc:
        print(f"gpudesk: {exc}", file=sys.stderr)
        return exc.status
    except BrokenPipeError:
        return 0
