"""A plan written in one language and shown in another: the results summary says its explanations are shown as
saved (gpudesk.planner.text_language), and a plan in the reader's language carries no such note."""

from __future__ import annotations

from gpudesk import i18n
from gpudesk.planner import load_profile
from gpudesk.planner.mixed import plan_document

from helpers.plan_tab import ARTICLE, catalog, ctx, tab  # noqa: F401 - fixtures


def _document_written_in(language: str, catalog):  # noqa: F811 - fixture
    before = i18n.current_language()
    i18n.set_language(language)
    try:
        return plan_document(load_profile(ARTICLE, catalog), catalog).to_dict()
    finally:
        i18n.set_language(before)


def test_a_plan_saved_in_chinese_and_opened_in_english_says_its_prose_is_shown_as_saved(qtbot, tab, catalog):  # noqa: F811
    results = tab.pages.results
    saved = _document_written_in("zh_CN", catalog)
    i18n.set_language("en")
    results.show_plan(saved, "Article case")
    summary = results.summary.text()
    assert "shown as they were written when it was saved, in Simplified Chinese" in summary
    assert "Plan it again to have them in English." in summary
    results.show_plan(_document_written_in("en", catalog), "Article case")
    assert "when it was saved" not in results.summary.text()
