"""A plan document records the language its prose is written in (``text_language``), and a reader in another
language is told that the saved explanations are shown as written (gpudesk.planner.text_language)."""

from __future__ import annotations

import copy

import pytest

from gpudesk import i18n
from gpudesk.planner import load_profile
from gpudesk.planner.document import PlanDocument
from gpudesk.planner.mixed import plan_document
from gpudesk.planner.text_language import prose_language_note

from helpers.plan_tab import ARTICLE, catalog  # noqa: F401 - fixture


@pytest.fixture
def language():
    before = i18n.current_language()
    yield i18n.set_language
    i18n.set_language(before)


def _article(catalog) -> PlanDocument:  # noqa: F811 - fixture
    return plan_document(load_profile(ARTICLE, catalog), catalog)


def test_a_plan_records_the_language_of_its_prose_and_keeps_it_when_saved_and_read(catalog, language):  # noqa: F811
    language("en")
    english = _article(catalog)
    assert english.text_language == "en"
    assert PlanDocument.from_dict(english.to_dict()).text_language == "en"
    language("zh_CN")
    chinese = _article(catalog)
    assert chinese.text_language == "zh_CN" and any("\u4e00" <= ch <= "\u9fff" for ch in chinese.top.rank_reason)
    assert PlanDocument.from_json(chinese.to_json()).text_language == "zh_CN"


def test_a_reader_in_another_language_is_told_the_prose_is_shown_as_saved(catalog, language):  # noqa: F811
    language("en")
    saved = _article(catalog).to_dict()
    assert prose_language_note(saved["text_language"]) is None  # same language: nothing to say
    language("zh_CN")
    note = prose_language_note(PlanDocument.from_dict(saved).text_language)
    assert note is not None and "英语" in note and "简体中文" in note
    language("en")
    note = prose_language_note("zh_CN")
    assert note is not None and "Simplified Chinese" in note and "English" in note


def test_a_plan_saved_before_the_record_reads_without_a_language_and_without_a_note(catalog, language):  # noqa: F811
    language("zh_CN")
    older = copy.deepcopy(_article(catalog).to_dict())
    del older["text_language"]
    document = PlanDocument.from_dict(older)
    assert document.text_language is None and prose_language_note(document.text_language) is None
