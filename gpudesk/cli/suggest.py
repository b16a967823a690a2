"""Errors for mistyped arguments that name the command they belong to: "did you mean --profile?" and that
command's own usage (argparse reports extra arguments from the top-level parser, with the top-level usage)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from gpudesk.i18n import _


def _subparsers(parser: argparse.ArgumentParser) -> argparse._SubParsersAction | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    return None


def command_parser(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.ArgumentParser:
    """The deepest (sub)command parser the words of ``argv`` select (``gpudesk estimate memory`` -> its parser)."""
    current = parser
    for word in argv:
        if word.startswith("-"):
            continue
        sub = _subparsers(current)
        if sub is None or word not in sub.choices:
            break
        current = sub.choices[word]
    return current


def suggestion(word: str, choices: Sequence[str]) -> str:
    """" (did you mean X?)" for the closest of ``choices``, "" when none is close."""
    import difflib  # here: start-up time (only a mistyped word needs it)

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return _(" (did you mean {choice}?)").format(choice=close[0]) if close else ""


def parse_with_suggestions(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace:
    """``parser.parse_args(argv)``, except that an unknown option or command is reported by the command it was
    typed for, with its usage and the closest known spelling."""
    sub = _subparsers(parser)
    if sub is not None:
        words = [w for w in argv if not w.startswith("-")]
        if words and words[0] not in sub.choices and not any(w in ("-h", "--help") for w in argv):
            first_option_free = next((w for w in argv if not w.startswith("-")), "")
            if first_option_free == words[0] and argv and not argv[0].startswith("-"):
                parser.error(_("unknown command {word!r}{hint}; the commands are: {commands}").format(
                    word=words[0], hint=suggestion(words[0], list(sub.choices)), commands=", ".join(sub.choices)))
    args, extras = parser.parse_known_args(argv)
    if extras:
        target = command_parser(parser, argv)
        options = [o for action in target._actions for o in action.option_strings]
        described = [f"{word}{suggestion(word.split('=', 1)[0], options) if word.startswith('-') else ''}"
                     for word in extras]
        target.error(_("unrecognized arguments: {words}").format(words=" ".join(described)))
    return args
