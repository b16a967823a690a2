"""Burn-in reports straight from the user store: a recording (by id) and, optionally, a saved plan (by id) - what
the Monitor tab's "Burn-in report" and the Plan tab's saved plan both call (on a worker thread: it reads the whole
recording).
"""

from __future__ import annotations

from gpudesk.store.sqlite_lib import Database

from gpudesk.i18n import _
from gpudesk.store.plans import get_plan
from gpudesk.store.recordings import get_session
from gpudesk.telemetry.recording.burnin import BurnInError, BurnInReport, build_report
from gpudesk.telemetry.recording.recorder import load_frame, session_devices
from gpudesk.telemetry.rules.thresholds import Thresholds


def report_from_store(db: Database, session_id: int, plan_id: int | None = None, *, candidate_index: int = 0,
                      thresholds: Thresholds | None = None, title: str | None = None) -> BurnInReport:
    """The burn-in report of recording ``session_id`` against saved plan ``plan_id`` (or none).

    Raises:
        StoreError: no such recording or plan.
        BurnInError: the recording is empty, the plan unreadable or without that candidate.
    """
    sess = get_session(db, session_id)
    frame = load_frame(db, sess.id)
    if sess.link_assumption:
        frame.notes.append(sess.link_assumption)
    plan = plan_name = None
    if plan_id is not None:
        saved = get_plan(db, plan_id)
        if saved.problem:
            raise BurnInError(_("Saved plan {id} cannot be read ({problem}); re-plan it in the Plan tab.").format(
                id=plan_id, problem=saved.problem))
        plan, plan_name = saved.plan, saved.name
    source = _("recording {id} ({name})").format(id=sess.id, name=sess.name)
    return build_report(frame, session_devices(db, sess.id), source=source, title=title, plan=plan,
                        plan_name=plan_name, candidate_index=candidate_index, thresholds=thresholds)
