"""The window's File and Help menus (issue 29): New plan, Open/Save profile, Export, Recent profiles; the offline
user guide, the keyboard shortcuts, rendered third-party notices and a diagnostics bundle."""

from __future__ import annotations

import json
import zipfile

import pytest
from PySide6.QtCore import QSettings

from gpudesk import paths
from gpudesk.catalog import open_catalog
from gpudesk.store import open_store
from gpudesk.ui.about import AboutDialog
from gpudesk.ui.context import AppContext
from gpudesk.ui.main_window import MainWindow
from gpudesk.ui.shell_menus import find_plan_tab, recent_profiles

ARTICLE = paths.examples_dir() / "article-13b-finetune.toml"


@pytest.fixture
def window(qtbot, tmp_path):  # type: ignore[no-untyped-def]
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    store = open_store()
    ctx = AppContext(catalog=open_catalog(), store=store)
    win = MainWindow(ctx=ctx, settings=settings)
    qtbot.addWidget(win)
    win.resize(1280, 820)
    yield win
    store.close()


def _texts(menu) -> list[str]:  # type: ignore[no-untyped-def]
    return [a.text() for a in menu.actions() if a.text()]


def test_file_and_help_menus_hold_the_shell_actions(window) -> None:  # type: ignore[no-untyped-def]
    menus = {m.title(): m for m in (a.menu() for a in window.menuBar().actions()) if m is not None}
    assert _texts(menus["&File"])[:5] == ["&New plan", "&Open profile…", "&Save profile…", "&Export sheet…",
                                          "&Recent profiles"]
    assert _texts(menus["&File"])[-1] == "&Quit"
    assert {"&User guide", "&Keyboard shortcuts", "Save a &diagnostics bundle…"} <= set(_texts(menus["&Help"]))


def test_open_profile_is_remembered_and_new_plan_starts_blank(window) -> None:  # type: ignore[no-untyped-def]
    window.shell.open_profile(str(ARTICLE))
    assert recent_profiles(window.settings) == [str(ARTICLE.resolve())]
    window.shell._fill_recent()
    assert [a.text() for a in window.shell.recent_menu.actions()] == [ARTICLE.name]
    tab = find_plan_tab(window)
    assert tab.pages.wizard.profile()[0]["software"]["require_ecc"] is True
    window.shell.new_action.trigger()
    assert tab.pages.wizard.profile()[0]["software"]["require_ecc"] is False


def test_user_guide_shortcuts_and_rendered_notices(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window.shell.show_guide()
    text = window.shell.guide.browser.toPlainText()
    assert "Plan: which GPUs to buy or rent" in text and "## " not in text  # rendered, not raw Markdown
    window.shell.guide.close()
    window.shell.show_shortcuts()
    keys = [window.shell.shortcuts.table.item(r, 0).text() for r in range(window.shell.shortcuts.table.rowCount())]
    assert "Ctrl+N" in keys and "F1" in keys and "Ctrl+Shift+E" in keys
    window.shell.shortcuts.close()
    about = AboutDialog(window.ctx, window)
    qtbot.addWidget(about)
    assert "# " not in about.notices_text.toPlainText()[:200]


def test_the_user_guide_follows_the_language() -> None:
    from gpudesk.ui.shell_menus import user_guide_path

    chinese = user_guide_path("zh_CN")
    assert chinese.name == "user-guide.zh_CN.md" and "规划：买或租哪些 GPU" in chinese.read_text(encoding="utf-8")
    assert user_guide_path("en").name == "user-guide.md"
    assert user_guide_path("fr_FR").name == "user-guide.md"  # no translation: the English guide
    english = user_guide_path("en").read_text(encoding="utf-8")
    for section in ("## Plan", "## Catalog", "## Monitor", "## OOM doctor", "## Command line", "## Reporting a problem"):
        assert section in english
    # the Chinese guide has every section of the English one
    assert chinese.read_text(encoding="utf-8").count("\n## ") == english.count("\n## ")


def test_diagnostics_bundle_holds_versions_settings_and_the_plan(window, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    window.shell.open_profile(str(ARTICLE))
    tab = find_plan_tab(window)
    with qtbot.waitSignal(tab.planReady, timeout=30000):
        tab.pages.wizard.plan_button.click()
    window.settings.sync()
    written = window.shell.save_bundle(str(tmp_path / "diag.zip"))
    with zipfile.ZipFile(written) as bundle:
        names = set(bundle.namelist())
        about = json.loads(bundle.read("about.json"))
        plan = json.loads(bundle.read("plan.json"))
    assert {"about.json", "settings.ini", "plan.json"} <= names
    assert about["gpudesk"] and about["catalog"]["schema_version"]
    assert plan["plan"]["candidates"]
