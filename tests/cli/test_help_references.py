"""Every command the plan and monitor help texts point users to exists (the tryout found 'gpudesk plan list' and
'gpudesk plan ... --json', neither of which does)."""

import argparse
import re
import shlex

import pytest

from gpudesk.cli import build_parser

QUOTED = re.compile(r"'(gpudesk [^']{1,200})'")


def _parsers(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, path + (name,))


def _references() -> list[tuple[tuple[str, ...], str]]:
    refs = []
    for path, parser in _parsers(build_parser()):
        if path[:1] not in (("plan",), ("monitor",)):
            continue
        texts = [parser.description or ""] + [a.help or "" for a in parser._actions]
        refs += [(path, m) for t in texts for m in QUOTED.findall(t)]
    return refs


def test_help_texts_name_commands():
    refs = [r for _, r in _references()]
    assert "gpudesk monitor analyze --list" in refs
    assert not any("plan list" in r or "--json" in r and r.startswith("gpudesk plan") for r in refs)


@pytest.mark.parametrize("ref", sorted({r for _, r in _references()}))
def test_every_referenced_command_parses(ref):
    argv = [t for t in shlex.split(ref)[1:] if t != "..."]
    build_parser().parse_args(argv)  # SystemExit (unknown command or option) fails the test


def test_the_estimate_command_is_described_by_all_it_does(capsys):
    # "gpudesk --help" said "estimate GPU memory for a model and workload" over memory, speed and serve (QA pass).
    from gpudesk.cli import main

    with pytest.raises(SystemExit):
        main(["--help"])
    line = next(line for line in capsys.readouterr().out.splitlines() if line.strip().startswith("estimate"))
    assert "speed" in line and "memory" in line
