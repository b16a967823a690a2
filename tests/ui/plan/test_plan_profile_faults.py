"""Crafted TOML profiles opened in the Plan tab (issue 14: "deeply nested TOML profiles"): the CLI said so in one
line; the window let RecursionError / ValueError escape load_example. Each now gives one message naming the file."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.planner import ProfileError, parse_profile_text
from gpudesk.store import open_store
from gpudesk.ui.context import AppContext
from gpudesk.ui.plan.controller import read_profile_text
from gpudesk.ui.plan.tab import PlanTab

CRAFTED = {
    "nested-arrays": "name = 'x'\nlist = " + "[" * 100_000 + "]" * 100_000 + "\n",
    "5000-digit-number": "[workload]\nsteps = " + "9" * 5000 + "\n",
    "not-toml": "[model\nname = ",
    "huge": "# " + "x" * 2_000_000 + "\n",
}


@pytest.fixture(scope="module")
def catalog():
    cat = open_catalog()
    yield cat
    cat.close()


@pytest.mark.parametrize("name", list(CRAFTED))
def test_crafted_profile_is_a_profile_error(name):
    with pytest.raises(ProfileError):
        parse_profile_text(CRAFTED[name], "crafted.toml")
    with pytest.raises(ProfileError):
        read_profile_text(CRAFTED[name], "toml")


def test_deeply_nested_saved_json_profile_is_a_planner_error():
    with pytest.raises(Exception) as caught:
        read_profile_text("[" * 100_000 + "]" * 100_000, "json")
    assert not isinstance(caught.value, RecursionError) and "not valid JSON" in str(caught.value)


@pytest.mark.parametrize("name", [*CRAFTED, "binary"])
def test_crafted_profile_opened_in_the_window_is_one_message(qtbot, catalog, tmp_path, name):
    messages: list[tuple[str, str]] = []
    store = open_store()
    tab = PlanTab(AppContext(catalog=catalog, store=store, notify=lambda text, level="info": messages.append((level, text))))
    qtbot.addWidget(tab)
    path = tmp_path / f"{name}.toml"
    if name == "binary":
        path.write_bytes(b"\xff\xfe\x00name = \x80\x81")
    else:
        path.write_text(CRAFTED[name], encoding="utf-8")
    tab.load_example(path)
    errors = [text for level, text in messages if level == "error"]
    assert len(errors) == 1 and path.name in errors[0], messages
    store.close()
