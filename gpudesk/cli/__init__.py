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

from gpudesk import __version__, i18n
from gpudesk.cli import argparse_text
from gpudesk.cli.terminal_text import terminal_streams
from gpudesk.errors import GpudeskError
from gpudesk.i18n import _

# Command-group modules inside gpudesk.cli, in the order they appear in --help.
COMMAND_MODULES: list[str] = ["catalog", "monitor", "plan", "plans", "oom", "store"]
# Command -> the module that adds it: a command line naming one imports only that module (start-up time); help
# and unknown commands import them all.
COMMAND_OWNERS: dict[str, str] = {"catalog": "catalog", "monitor": "monitor", "plan": "plan", "estimate": "plan",
                                  "plans": "plans", "oom": "oom", "store": "store"}


class CliError(GpudeskError):
    """A user-facing error: printed to stderr, exit status 2 unless ``status`` says otherwise."""

    def __init__(self, message: str, status: int = 2):
        super().__init__(message)
        self.status = status

    @classmethod
    def from_error(cls, exc: BaseException, status: int = 2) -> CliError:
        """The CLI's error for a caught exception: a gpudesk error's ``user_text()`` (message, detail and remedy),
        else the exception's own text."""
        return cls(exc.user_text() if isinstance(exc, GpudeskError) else str(exc), status=status)


# Options before the command that take a value (skipped when looking for the command's name).
_VALUE_OPTIONS = frozenset({"--lang"})


def language_option(argv: Sequence[str]) -> str | None:
    """The value of a ``--lang`` option in ``argv`` (read before the parser is built, whose help it translates)."""
    pre = argparse.ArgumentParser(prog="gpudesk", add_help=False, exit_on_error=False)
    pre.add_argument("--lang")
    try:
        known, _rest = pre.parse_known_args(list(argv))
    except argparse.ArgumentError:  # `--lang` without a value: the real parser says so
        return None
    return known.lang if known.lang in i18n.LANGUAGES else None  # another value: the real parser refuses it


def _modules_for(argv: Sequence[str]) -> list[str]:
    """The command modules a command line needs: the one owning its command, none for ``--version``, or all
    (help before a command, no command, an unknown command: the help then lists every command)."""
    skip_value = False
    for arg in argv:
        if skip_value:
            skip_value = False
            continue
        if arg == "--version":
            return []
        if arg in ("-h", "--help"):
            return COMMAND_MODULES
        if arg.startswith("-"):
            skip_value = arg in _VALUE_OPTIONS
            continue
        owner = COMMAND_OWNERS.get(arg)
        return [owner] if owner else COMMAND_MODULES
    return COMMAND_MODULES


def build_parser(modules: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The whole parser, with the command modules ``modules`` (all when None) imported and added."""
    parser = argparse.ArgumentParser(
        prog="gpudesk",
        description=_("Choose, monitor and debug GPUs for ML work. Without a command, opens the window."),
    )
    parser.add_argument("--version", action="version", version=f"gpudesk {__version__}",
                        help=_("show the version number and exit"))
    parser.add_argument(
        "--lang", choices=i18n.LANGUAGES, metavar="{" + ",".join(i18n.LANGUAGES) + "}",
        help=_("language of the messages (default: GPUDESK_LANG, then the system locale)"),
    )
    parser.add_argument(
        "--self-test", action="store_true", help=_("check this installation (catalog, plan, OOM text, dmon sample, "
                                                   "translations, main window offscreen), print one line per check, "
                                                   "exit 0 when all pass")
    )
    parser.add_argument(
        "--reset-settings", action="store_true", help=_("move settings.ini (window geometry, last tab, UI "
                                                        "preferences) aside to settings.ini.bak; plans and "
                                                        "recordings are kept")
    )
    sub = parser.add_subparsers(dest="command", metavar=_("COMMAND"))
    for name in COMMAND_MODULES if modules is None else modules:
        module = importlib.import_module(f"gpudesk.cli.{name}")
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run a headless command; returns the process exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    argparse_text.install()
    language = language_option(args_list)
    previous = i18n.current_language()
    if language is not None:
        i18n.set_language(language)
    try:
        with terminal_streams():  # every line a command prints: control characters shown escaped
            return _run(build_parser(_modules_for(args_list)), args_list)
    finally:
        if language is not None:  # in-process callers (tests, the self-test) keep their own language
            i18n.set_language(previous)


def _run(parser: argparse.ArgumentParser, argv: list[str]) -> int:
    from gpudesk.cli.suggest import parse_with_suggestions

    args = parse_with_suggestions(parser, argv)
    if args.self_test:  # `gpudesk --self-test` alone is handled by gpudesk.__main__ (it opens the window too)
        print(_("gpudesk: --self-test takes no other arguments"), file=sys.stderr)
        return 2
    if args.reset_settings:
        from gpudesk.cli.reset_settings import reset_settings  # here: it brings platformdirs (start-up time)

        try:
            print(reset_settings())
        except GpudeskError as exc:
            print(f"gpudesk: {exc.user_text()}", file=sys.stderr)
            return 1
        return 0
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    try:
        return int(func(args) or 0)
    except CliError as exc:
        print(_("gpudesk: {error}").format(error=exc.user_text()), file=sys.stderr)
        return exc.status
    except GpudeskError as exc:  # a core error no command converted (an unusable data folder, say): one clear line
        print(_("gpudesk: {error}").format(error=exc.user_text()), file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:  # Ctrl+C in a command that does not stop on it by itself (a long import, say)
        print(_("gpudesk: interrupted."), file=sys.stderr)
        return 130
