"""PlanController (the Plan tab's controller): saved-profile parsing and the store actions, without widgets."""

from __future__ import annotations

import pytest

from gpudesk.planner import PlannerError
from gpudesk.ui.context import AppContext
from gpudesk.ui.plan.controller import PlanController, read_profile_text


def test_a_damaged_saved_profile_is_a_planner_error_not_a_traceback():
    with pytest.raises(PlannerError, match="not valid TOML"):
        read_profile_text("[model\nname = ", "toml")
    with pytest.raises(PlannerError, match="not a table"):
        read_profile_text("[1, 2]", "json")
    assert read_profile_text('{"name": "x"}', "json") == {"name": "x"}


def test_nothing_to_save_is_a_warning(qtbot):
    messages = []
    ctl = PlanController(AppContext(notify=lambda text, level="info": messages.append((level, text))), lambda: None)
    assert ctl.save_current() is None
    assert messages == [("warning", "Nothing to save, or the user database is not available.")]


def test_no_plan_without_a_catalog(qtbot):
    messages = []
    ctl = PlanController(AppContext(catalog=None, notify=lambda text, level="info": messages.append((level, text))),
                         lambda: None)
    assert not ctl.start_plan(object(), {})  # type: ignore[arg-type]
    assert ctl.task is None and messages[0][0] == "error"
