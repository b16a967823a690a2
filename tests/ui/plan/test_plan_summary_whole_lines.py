"""qa51 D16: the results summary pane ends between two lines when its text scrolls (it showed 3.5 lines, the fourth
cut in half under the table's header)."""

from __future__ import annotations

import pytest

from gpudesk import i18n
from gpudesk.ui import app as app_module

from helpers.plan_tab import ARTICLE, Notes, catalog, ctx, tab  # noqa: F401 - fixtures
from test_plan_results_wiring import plan_file


@pytest.mark.parametrize("language", ["en", "zh_CN"])
@pytest.mark.parametrize("size", [(1400, 900), (1280, 820), (1024, 700)])
def test_summary_pane_shows_whole_lines(qtbot, qapp, ctx, language: str, size: tuple[int, int]) -> None:  # noqa: F811
    from gpudesk.ui.plan.tab import PlanTab

    before = i18n.current_language()
    translators = app_module.apply_language(qapp, language)[1] if language != "en" else []
    try:
        widget = PlanTab(ctx)
        qtbot.addWidget(widget)
        widget.resize(*size)
        widget.show()
        plan_file(qtbot, widget, ARTICLE)
        qtbot.wait(30)
        view = widget.pages.results
        viewport = view.summary_area.viewport().height()
        spacing = view.summary.fontMetrics().lineSpacing()
        scrolls = view.summary.heightForWidth(view.summary_area.viewport().width() - 2) > viewport
        assert not scrolls or viewport % spacing == 0, (viewport, spacing)
    finally:
        for translator in translators:
            qapp.removeTranslator(translator)
        i18n.set_language(before)
