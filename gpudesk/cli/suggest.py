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
    return _command_path(parser, argv)[-1][1]


def _command_words(parser: argparse.ArgumentParser, argv: Sequence[str]) -> list[tuple[str, argparse.ArgumentParser]]:
    """(word, the parser it selects) for the command words of ``argv``, skipping options and the values they take
    (``gpudesk --lang zh_CN estimate speed``: ``zh_CN`` is --lang's value, not a command)."""
    out: list[tuple[str, argparse.ArgumentParser]] = []
    current, skip = parser, False
    for word in argv:
        if skip:
            skip = False
            continue
        if word.startswith("-"):
            action = current._option_string_actions.get(word)
            skip = action is not None and action.nargs != 0 and "=" not in word
            continue
        sub = _subparsers(current)
        if sub is None or word not in sub.choices:
            break
        current = sub.choices[word]
        out.append((word, current))
    return out


def _command_path(parser: argparse.ArgumentParser,
                  argv: Sequence[str]) -> list[tuple[str, argparse.ArgumentParser]]:
    """``[(prog, parser), (word, its parser) ...]``: the top parser and each command word's parser."""
    return [(parser.prog, parser), *_command_words(parser, argv)]


def suggestion(word: str, choices: Sequence[str]) -> str:
    """" (did you mean X?)" for the closest of ``choices``, "" when none is close."""
    import difflib  # here: start-up time (only a mistyped word needs it)

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return _(" (did you mean {choice}?)").format(choice=close[0]) if close else ""


def _sibling_commands(parser: argparse.ArgumentParser, argv: Sequence[str],
                      target: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The commands beside ``target`` under the same parent (``estimate memory`` beside ``estimate speed``), by
    their full name (``gpudesk estimate memory``)."""
    path = _command_path(parser, argv)
    if len(path) < 2 or path[-1][1] is not target:
        return {}
    sub = _subparsers(path[-2][1])
    if sub is None:
        return {}
    names = [word for word, _parser in path[:-1]]
    return {" ".join([*names, name]): p for name, p in sub.choices.items() if p is not target}


def _hint(option: str, options: Sequence[str], siblings: dict[str, argparse.ArgumentParser]) -> str:
    """" (an option of gpudesk estimate memory)" where a sibling command has exactly ``option`` (a flag typed for
    the wrong command), else the closest spelling among ``options``."""
    owners = [name for name, p in siblings.items() if option in p._option_string_actions]
    if owners:
        return _(" (an option of {commands}, not of this command)").format(commands=", ".join(owners))
    return suggestion(option, options)


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
        siblings = _sibling_commands(parser, argv, target)
        described = [f"{word}{_hint(word.split('=', 1)[0], options, siblings) if word.startswith('-') else ''}"
                     for word in extras]
        target.error(_("unrecognized arguments: {words}").format(words=" ".join(described)))
    return args
