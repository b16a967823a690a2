"""``gpudesk oom accuracy``: how often the OOM doctor's first cause is the one the public thread established,
per case set and per family (the same figures as the window's "How accurate is this?" view)."""

from __future__ import annotations

import sys
from pathlib import Path

from gpudesk.cli.json_text import dumps_json
from gpudesk.i18n import _
from gpudesk.oom.accuracy import CASE_FILES, OomAccuracy, load_accuracy
from gpudesk.oom.errors import OomInputError

SET_NAMES = tuple(name for name, _file in CASE_FILES)


def add_parser(sub) -> None:
    p = sub.add_parser("accuracy", help=_("how often the first cause is right on real messages, per family"))
    p.add_argument("--set", choices=SET_NAMES, default=None, help=_("only this case set"))
    p.add_argument("--cases", metavar="DIR", default=None,
                   help=_("folder with cases.jsonl / engine_cases.jsonl / platform_cases.jsonl (default: bundled)"))
    p.add_argument("--misses", action="store_true", help=_("list the cases whose first cause is wrong"))
    p.add_argument("--json", action="store_true", help=_("print the figures and every case as JSON"))
    p.set_defaults(func=cmd_accuracy)


def _line(label: str, right: int, total: int) -> str:
    share = right / total if total else 0.0
    return _("{label}: {right}/{total} ({share:.0%})").format(label=label, right=right, total=total, share=share)


def print_accuracy(accuracy: OomAccuracy, misses: bool = False, out=None) -> None:
    out = out or sys.stdout
    for case_set in SET_NAMES:
        sub = accuracy.subset(case_set)
        if not sub.total:
            continue
        print(_line(_("First cause right, set '{name}'").format(name=case_set), sub.right, sub.total), file=out)
        nc_right, nc_total = sub.not_capacity()
        if nc_total:
            print("  " + _line(_("not a memory-capacity problem, said so with the deciding check"), nc_right,
                               nc_total), file=out)
        not_found = len(sub.not_found())
        print("  " + _("reported as no out-of-memory message: {n}").format(n=not_found), file=out)
        for family in sub.families():
            mark = "" if family.judged else " " + _("(fewer than 5 cases)")
            print("    " + _line(family.family, family.right, family.total) + mark, file=out)
        later = sub.subset(labelled="after_rules")
        if later.total:
            print("  " + _line(_("cases added after the rules were written"), later.right, later.total), file=out)
    if misses:
        print(_("Wrong first cause:"), file=out)
        for o in accuracy.outcomes:
            if not o.right:
                print(f"  [{o.case.case_set}/{o.case.family}] {o.case.expected_cause} ≠ {o.top_cause}  {o.case.url}",
                      file=out)


def cmd_accuracy(args) -> int:
    if args.cases and not Path(args.cases).is_dir():
        print(_("gpudesk: --cases {path} is not a folder, so no cases found; give the folder that holds {files}.")
              .format(path=args.cases, files=", ".join(name for _set, name in CASE_FILES)), file=sys.stderr)
        return 2
    try:
        accuracy = load_accuracy(Path(args.cases) if args.cases else None)
    except OomInputError as exc:
        print(_("gpudesk: {error}").format(error=exc), file=sys.stderr)
        return 2
    if args.set:
        accuracy = accuracy.subset(args.set)
    if not accuracy.total:
        print(_("gpudesk: no cases found (looked for {files})").format(
            files=", ".join(name for _set, name in CASE_FILES)), file=sys.stderr)
        return 2
    if args.json:
        print(dumps_json(accuracy.to_dict(), indent=2, ensure_ascii=False))
    else:
        print_accuracy(accuracy, misses=args.misses)
    return 0
