"""``gpudesk plans``: the plans saved in the Plan tab (the user store).

``gpudesk plans list`` lists them (id, name, when saved); ``gpudesk plans recheck ID`` re-plans a saved plan's
answers with this gpudesk's models and prints which headline figures of its recommended option now read
differently (``gpudesk.planner.recheck``, the same comparison the Plan tab shows when a saved plan is opened);
``--json`` prints it as data. The saved plan is never changed.

Exit status of ``recheck`` (as ``gpudesk oom diagnose``: 0 and 1 are answers, 2 is an error): 0 the saved figures
match; 1 the figures differ; 2 the plan could not be rechecked (no such id, an unreadable document or profile, a
profile that no longer plans, the store or catalog not opening).
"""

from __future__ import annotations

import argparse
import sys

from gpudesk.cli import CliError
from gpudesk.i18n import _


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser("plans", help=_("list the saved plans, or recheck one against this gpudesk"),
                              description=_("The plans saved in the Plan tab."))
    sub = p.add_subparsers(dest="plans_command", metavar=_("ACTION"))
    ls = sub.add_parser("list", help=_("list the saved plans: id, name, when saved"))
    ls.set_defaults(func=cmd_list)
    r = sub.add_parser("recheck", help=_("re-plan a saved plan with this gpudesk and print the figures that differ"),
                       description=_("Re-plan a saved plan's answers with this gpudesk's memory, speed and cost "
                                     "models and compare its recommended option with what was saved. Exit status "
                                     "0: the saved figures match; 1: the figures differ; 2: the plan could not be "
                                     "rechecked (an error, printed on stderr). The saved plan is not changed."))
    r.add_argument("plan_id", type=int, metavar="ID", help=_("id of the saved plan ('gpudesk plans list')"))
    r.add_argument("--json", action="store_true", help=_("print the comparison as JSON"))
    r.add_argument("--no-my-prices", action="store_true",
                   help=_("use catalog prices only, not your own prices from the Catalog tab"))
    r.set_defaults(func=cmd_recheck)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


# Exit statuses of ``plans recheck`` (see the module's docstring).
RECHECK_MATCH, RECHECK_DIFFERS, RECHECK_ERROR = 0, 1, 2


def _store(status: int = 1):
    from gpudesk.store import StoreError, open_store

    try:
        return open_store()
    except StoreError as exc:
        raise CliError.from_error(exc, status=status) from exc


def cmd_list(args: argparse.Namespace) -> int:
    from gpudesk.store import StoreError
    from gpudesk.store.plans import list_plans

    try:
        plans = list_plans(_store())
    except StoreError as exc:
        raise CliError.from_error(exc, status=1) from exc
    if not plans:
        print(_("No saved plans. Save one in the Plan tab."))
        return 0
    print(f"{_('ID'):>5}  {_('Saved (UTC)'):<16}  {_('Name')}")
    for saved in plans:
        print(f"{saved.id:>5}  {saved.updated_at[:16].replace('T', ' ')}  {saved.name}")
    return 0


def cmd_recheck(args: argparse.Namespace) -> int:
    from gpudesk.cli.json_text import dumps_json
    from gpudesk.cli.plan import _catalog, my_prices
    from gpudesk.planner.recheck import RecheckError, recheck_saved_plan
    from gpudesk.store import StoreError
    from gpudesk.store.plans import PlanNotFoundError, get_plan

    try:
        saved = get_plan(_store(RECHECK_ERROR), args.plan_id)
    except PlanNotFoundError as exc:
        raise CliError(_("{message} The saved plans and their ids: gpudesk plans list").format(
            message=exc.user_text()), status=RECHECK_ERROR) from exc
    except StoreError as exc:
        raise CliError.from_error(exc, status=RECHECK_ERROR) from exc
    try:
        catalog = _catalog()
    except CliError as exc:
        exc.status = RECHECK_ERROR
        raise
    prices = None if args.no_my_prices else my_prices()
    try:
        result = recheck_saved_plan(saved.profile_text, saved.profile_format, saved.plan, catalog, prices, saved.name)
    except RecheckError as exc:
        # Which plan failed, whatever part of it (the document, the profile, the model it names) did not read.
        raise CliError(_("Saved plan {id} “{name}”: {error}").format(id=saved.id, name=saved.name,
                                                                     error=exc.user_text()),
                       status=RECHECK_ERROR) from exc
    status = RECHECK_DIFFERS if result.differs else RECHECK_MATCH
    if args.json:
        data = {"plan_id": saved.id, "name": saved.name, "saved_at": saved.updated_at, **result.to_dict()}
        if not result.differs:
            data["summary"] = _("the saved figures match this gpudesk")
        sys.stdout.write(dumps_json(data, ensure_ascii=False) + "\n")
        return status
    when = saved.updated_at[:16].replace("T", " ")
    if not result.differs:
        print(_("Saved plan {id} “{name}” (saved {date}): the saved figures match this gpudesk.").format(
            id=saved.id, name=saved.name, date=when))
        return status
    print(_("Saved plan {id} “{name}” (saved {date}), recomputed with this gpudesk:").format(
        id=saved.id, name=saved.name, date=when))
    for line in result.lines():
        print(f"  {line}")
    print(_("The saved plan is unchanged. Open it in the Plan tab to show the recomputed plan and save it."))
    return status
