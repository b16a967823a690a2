"""The Plan wizard's problems line names every field by the caption its page shows ("Target QPS (requests/s)"),
never by the internal key ("workload.target_qps"), in English and in Chinese (QA finding: a requirement with two
problems was listed as "(1) workload.target_qps: ... (2) workload.training_share: ...")."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest
from PySide6.QtWidgets import QLabel

from gpudesk import i18n
from gpudesk.planner import requirement_from_dict
from gpudesk.planner.errors import PlanInputErrors
from gpudesk.ui import app as app_module
from gpudesk.ui.context import AppContext
from gpudesk.ui.plan.quick import QuickMode
from gpudesk.ui.plan.wizard import PlanWizard

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from helpers.plan_tab import ARTICLE, catalog  # noqa: F401 - fixture

# What the zh_CN page shows for the two fields (resources/translations/gpudesk_zh_CN.ts, context PlanQuestions).
ZH_QPS = "目标 QPS"
ZH_SHARE = "训练占 GPU 时间的比例"


@pytest.fixture(params=["en", "zh_CN"])
def language(request, qapp) -> Iterator[str]:
    before = i18n.current_language()
    translators = app_module.apply_language(qapp, request.param)[1] if request.param != "en" else []
    if request.param == "en":
        i18n.set_language("en")
    try:
        yield request.param
    finally:
        for translator in translators:
            qapp.removeTranslator(translator)
        i18n.set_language(before)


def _inference_without_target() -> dict:
    """The article's fine-tune switched to inference, training share and QPS target left as they were: two
    problems (no QPS target; a training share of 100 % for a service)."""
    profile = tomllib.loads(ARTICLE.read_text(encoding="utf-8"))
    profile["model"]["mode"] = "inference"
    profile["workload"].pop("target_qps", None)
    return profile


def _row_caption(widget, key: str) -> str:
    """The text of the form label beside the field ``key``, as the page shows it (without its colon)."""
    editor = widget.editors[key]
    labels = [label for label in widget.findChildren(QLabel) if label.buddy() is editor.widget]
    assert len(labels) == 1, key
    return labels[0].text().rstrip(":：")


def test_problems_line_names_each_field_by_its_page_label(qtbot, catalog, language):  # noqa: F811
    with pytest.raises(PlanInputErrors) as raised:
        requirement_from_dict(_inference_without_target()).validate()
    assert [p.field for p in raised.value.problems] == ["workload.target_qps", "workload.training_share"]

    ctx = AppContext(catalog=catalog, store=None, notify=lambda text, level="info": None)
    wizard = PlanWizard(ctx)
    qtbot.addWidget(wizard)
    wizard.load_profile(_inference_without_target())
    req, _data = wizard.requirement()
    assert req is None
    text = wizard.problem.text()
    qps, share = _row_caption(wizard, "workload.target_qps"), _row_caption(wizard, "workload.training_share")
    assert "workload.target_qps" not in text and "workload.training_share" not in text
    if language == "zh_CN":
        assert qps.startswith(ZH_QPS) and share.startswith(ZH_SHARE)
        assert text.startswith(f"2 个问题：(1) {qps}：")
        assert f"；(2) {share}：" in text
    else:
        assert text.startswith(f"2 problems: (1) {qps}: inference needs a QPS target (requests per second) to size the cards; ")
        assert f"; (2) {share}: mode is inference but training_share is 1; set it to 0" in text
    # Each problem keeps the planner's sentence after the caption.
    for problem in raised.value.problems:
        assert problem.reason.rstrip(".。") in text
    assert wizard.current_index() == wizard.page_of["workload.target_qps"]
    # Both fields are marked, not only the first.
    assert wizard.editors["workload.target_qps"].problem and wizard.editors["workload.training_share"].problem

    # Quick mode and the live preview name the fields with the same captions (one mapping).
    quick = QuickMode(ctx)
    qtbot.addWidget(quick)
    assert quick.describe_error(raised.value) == wizard.describe_error(raised.value) == text
