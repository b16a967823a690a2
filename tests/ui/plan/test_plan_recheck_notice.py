"""A reopened saved plan is rechecked with this gpudesk in the background: a notice on the results names the
figures that now differ, with "Show recomputed plan" and "Keep saved plan"; matching figures get a quiet status
line. The saved plan in the store is never changed by the recheck."""

from __future__ import annotations

import copy

import pytest
from PySide6.QtCore import Qt

from gpudesk.planner import dumps_profile, load_profile
from gpudesk.planner.mixed import plan_document
from gpudesk.store.plans import get_plan, save_plan
from gpudesk.ui.plan.tab import RESULTS

from helpers.plan_tab import ARTICLE, catalog, ctx, tab  # noqa: F401 - fixtures
from test_plan_keyboard import clashes

GIB = 1024**3


@pytest.fixture(scope="module")
def article(catalog):  # noqa: F811 - fixture
    req = load_profile(ARTICLE, catalog)
    return dumps_profile(req), plan_document(req, catalog).to_dict()


def _save(ctx, article, alter=None):  # noqa: F811
    text, document = article
    data = copy.deepcopy(document)
    if alter is not None:
        alter(data)
    return get_plan(ctx.store, save_plan(ctx.store, "Article case", text, data, profile_format="toml"))


def _lower_peak(d):
    d["candidates"][0]["per_gpu_memory_bytes"] -= 3 * GIB


def _open_and_wait(qtbot, tab, saved):  # noqa: F811
    with qtbot.waitSignal(tab.ctl.recheckReady, timeout=30000) as signal:
        tab.open_saved(saved)
        assert tab.pages.currentIndex() == RESULTS
        assert tab.bar.busy.isVisible()  # progress shown, the window not frozen
    qtbot.waitUntil(lambda: not tab.ctl.rechecking, timeout=5000)
    return signal.args[0]


def test_notice_names_the_changed_figure_and_keep_saved_keeps_it(qtbot, tab, ctx):  # noqa: F811
    saved = _save(ctx, tab._article, _lower_peak)
    result = _open_and_wait(qtbot, tab, saved)
    notice = tab.pages.results.recheck_notice
    assert notice.isVisible() and not tab.bar.busy.isVisible()
    assert notice.label.text().startswith(f"Saved {saved.updated_at[:16].replace('T', ' ')}. Recomputed with this "
                                          "gpudesk: per-GPU peak ")
    assert [c.key for c in result.changes] == ["per_gpu_memory"] and result.changes[0].text() in notice.label.text()
    assert clashes(tab) == {}
    shown = tab.pages.results.plan
    notice.keep_button.setFocus()
    qtbot.keyClick(notice.keep_button, Qt.Key.Key_Space)  # keyboard: the focused button acts
    assert not notice.isVisible() and tab.pages.results.plan is shown
    assert "as they were saved" in tab.status.text()
    assert get_plan(ctx.store, saved.id).plan == saved.plan


def test_show_recomputed_makes_it_current_and_unsaved(qtbot, tab, ctx):  # noqa: F811
    saved = _save(ctx, tab._article, _lower_peak)
    result = _open_and_wait(qtbot, tab, saved)
    notice = tab.pages.results.recheck_notice
    qtbot.mouseClick(notice.use_button, Qt.MouseButton.LeftButton)
    assert not notice.isVisible()
    assert tab.ctl.current_plan is result.recomputed and tab.pages.results.plan is result.recomputed
    assert tab.ctl.current_saved_id == saved.id and tab.pages.results.save_button.text() == "&Save changes"
    assert get_plan(ctx.store, saved.id).plan == saved.plan  # nothing written until Save changes
    assert tab.save_current() == saved.id
    assert get_plan(ctx.store, saved.id).plan == result.recomputed.to_dict()


def test_matching_figures_get_a_quiet_status_line(qtbot, tab, ctx):  # noqa: F811
    saved = _save(ctx, tab._article)
    result = _open_and_wait(qtbot, tab, saved)
    assert not result.differs
    assert not tab.pages.results.recheck_notice.isVisible()
    assert tab.status.text() == "Saved figures match this gpudesk."


@pytest.fixture(autouse=True)
def _article_on_tab(tab, article):  # noqa: F811
    tab._article = article
