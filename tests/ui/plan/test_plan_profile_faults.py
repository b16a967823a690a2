"""Crafted TOML profiles opened in the Plan tab (issue 14: "deeply nested TOML profiles"): the CLI said so in one
line; the window let RecursionError / ValueError escape load_example. Each now gives one message naming the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from gpudesk import paths
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


LLAMA_2_7B = Path(__file__).resolve().parents[2] / "fixtures" / "plan" / "llama-2-7b-hf.config.json"


def _crafted_config(tmp_path, name: str) -> Path:
    cfg = json.loads(LLAMA_2_7B.read_text(encoding="utf-8"))
    path = tmp_path / f"{name}.config.json"
    if name == "experts-as-list":
        cfg["num_local_experts"] = list(range(10_000))
    elif name == "experts-as-string":
        cfg["num_local_experts"] = "8" * 30
    elif name == "negative-hidden":
        cfg["hidden_size"] = -4096
    elif name == "nan-layers":
        path.write_text(json.dumps(cfg).replace('"num_hidden_layers": 32', '"num_hidden_layers": NaN'), encoding="utf-8")
        return path
    elif name == "text-positions":
        cfg["max_position_embeddings"] = "four thousand"
    elif name == "deep":
        path.write_text('{"hidden_size": 4096, "x": ' + "[" * 100_000 + "]" * 100_000 + "}", encoding="utf-8")
        return path
    path.write_text(json.dumps(cfg), encoding="utf-8")
    return path


NAMED = {"experts-as-list": "num_local_experts", "experts-as-string": "num_local_experts",
         "negative-hidden": "hidden_size", "nan-layers": "num_hidden_layers",
         "text-positions": "max_position_embeddings", "deep": "64 levels"}


@pytest.mark.parametrize("name", ["experts-as-list", "experts-as-string", "negative-hidden", "nan-layers",
                                  "text-positions", "deep"])
def test_crafted_config_json_in_the_plan_window_is_a_named_problem(qtbot, catalog, tmp_path, name):
    """Issue 14's config.json reproductions in the window: Plan answers with one message naming the field (or
    the file), the wizard stays usable; no traceback, no 2 GB allocation."""
    messages: list[tuple[str, str]] = []
    store = open_store()
    tab = PlanTab(AppContext(catalog=catalog, store=store, notify=lambda text, level="info": messages.append((level, text))))
    qtbot.addWidget(tab)
    tab.resize(1280, 800)
    tab.show()
    tab.load_example(paths.examples_dir() / "article-13b-finetune.toml")
    wizard = tab.pages.wizard
    wizard.set_field_text("model.config_path", str(_crafted_config(tmp_path, name)))
    req, _data = wizard.requirement()
    if req is not None:  # the wizard took the path: planning reads the file and must say what is wrong
        failed = []
        tab.ctl.planFailed.connect(failed.append)
        qtbot.mouseClick(wizard.plan_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: bool(failed) or tab.ctl.current_plan is not None, timeout=30000)
        assert failed and not isinstance(failed[0], (RecursionError, MemoryError, OverflowError)), failed
        errors = [text for level, text in messages if level == "error"]
        assert len(errors) == 1 and "Planning failed" not in errors[0], errors
        assert NAMED[name] in errors[0], errors
    else:
        assert wizard.problem.text()
    store.close()
