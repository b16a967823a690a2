"""Results pages by workload kind (issue 29): a service shows GPUs, replicas x TP, sustained QPS, TTFT/TPOT and
cost per million output tokens with a latency-vs-throughput chart; a training job shows time to result and cost
against time; unpriced options are outlined and marked, never drawn as cheap; every results tab is on screen at
1280x820 in English and in Chinese."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument

from gpudesk import i18n
from gpudesk.ui import app as app_module
from gpudesk.ui.plan.plan_view import COST_PER_TOKEN_COLUMN, LATENCY_TAB, SCATTER_TAB, SERVING_SIDE_TAB

from helpers.plan_tab import ARTICLE, Notes, catalog, ctx, tab  # noqa: F401 - fixtures
from test_plan_results_wiring import plan_file

SERVE_70B = """version = 1
name = "Serve Llama 3.1 70B at 20 req/s"
[model]
model = "meta-llama/Llama-3.1-70B"
mode = "inference"
[workload]
training_share = 0.0
target_qps = 20
prompt_tokens = 1024
output_tokens = 256
"""


def _serve(qtbot, tab, tmp_path: Path) -> dict:  # type: ignore[no-untyped-def]
    path = tmp_path / "serve70.toml"
    path.write_text(SERVE_70B, encoding="utf-8")
    return plan_file(qtbot, tab, path)


def test_a_service_gets_a_serving_page(qtbot, tab, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    plan = _serve(qtbot, tab, tmp_path)
    view = tab.pages.results
    headers = [view.table.horizontalHeaderItem(i).text() for i in range(view.table.columnCount())]
    assert {"Replicas × TP", "Sustained QPS", "TTFT / TPOT", "USD per million output tokens"} <= set(headers)
    assert "Time to result" not in headers and "Step time" not in headers
    assert not view.table.isColumnHidden(COST_PER_TOKEN_COLUMN)
    top = plan.candidates[0]
    tp = top.tensor_parallel
    assert view.table.item(0, 6).text() == f"{top.count // tp} × TP{tp}"
    assert view.table.item(0, 7).text() == f"{top.qps_capacity:.1f} req/s"
    assert view.table.item(0, COST_PER_TOKEN_COLUMN).text().startswith("$")
    assert view.charts.isTabVisible(LATENCY_TAB) and not view.charts.isTabVisible(SCATTER_TAB)
    assert view.latency.point_count == min(len(plan.candidates), 25)
    assert "sustains" in view.summary.text() and "per million output tokens" in view.summary.text()
    # unpriced options are outlined and marked, never drawn as cheap bars
    unpriced = sum(1 for c in plan.candidates[:6] if c.tco_3y_usd is None)
    assert unpriced and view.tco_chart.unpriced_count == unpriced


def test_a_training_job_keeps_time_to_result_and_cost_against_time(qtbot, tab) -> None:  # type: ignore[no-untyped-def]
    plan_file(qtbot, tab, ARTICLE)
    view = tab.pages.results
    assert view.table.horizontalHeaderItem(7).text() == "Time to result"
    assert view.table.isColumnHidden(COST_PER_TOKEN_COLUMN)
    assert view.charts.isTabVisible(SCATTER_TAB) and not view.charts.isTabVisible(LATENCY_TAB)
    assert not view.charts.isTabVisible(SERVING_SIDE_TAB)


MIXED = Path(__file__).resolve().parents[2] / "fixtures/plan/buyer/mixed-lora-llama3-8b-5qps.toml"


def test_a_mixed_workload_shows_training_and_serving(qtbot, tab) -> None:  # type: ignore[no-untyped-def]
    plan = plan_file(qtbot, tab, MIXED)
    view = tab.pages.results
    side = plan.serving_side
    assert side is not None and side.top is not None
    # the training side: time to result and cost against time
    assert view.table.horizontalHeaderItem(7).text() == "Time to result"
    assert view.charts.isTabVisible(SCATTER_TAB)
    # the serving side: one tab with its own table and the latency chart of its options
    assert view.charts.isTabVisible(SERVING_SIDE_TAB) and not view.charts.isTabVisible(LATENCY_TAB)
    assert view.serving_side.latency.point_count == min(len(side.candidates), 25)
    table = view.serving_side.table
    assert table.rowCount() == min(len(side.candidates), 10)
    assert table.item(0, 2).text() == f"{side.top.qps_capacity:.1f} req/s"
    assert "Serving side at 5 req/s" in view.summary.text()
    assert f"sustains {side.top.qps_capacity:.1f} req/s" in view.summary.text()


@pytest.mark.parametrize("mixed", [False, True])
@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_every_results_tab_is_on_screen_at_1280x820(qtbot, qapp, ctx, tmp_path: Path, language: str, mixed: bool) -> None:  # type: ignore[no-untyped-def]
    from gpudesk.ui.plan.tab import PlanTab

    before = i18n.current_language()
    translators = app_module.apply_language(qapp, language)[1] if language != "en" else []
    try:
        widget = PlanTab(ctx)
        qtbot.addWidget(widget)
        widget.resize(1280, 820)
        widget.show()
        plan = plan_file(qtbot, widget, MIXED) if mixed else _serve(qtbot, widget, tmp_path)
        bar = widget.pages.results.charts.tabBar()
        qtbot.wait(20)
        # The header's decision lines (down to the line with the serving figure: the top candidate of a service,
        # the serving side of a mixed plan) are on screen without scrolling (issue 29: they sat below the fold).
        view = widget.pages.results
        served = plan.serving_side.top if mixed else plan.candidates[0]
        lines = view.summary.text().split("\n")
        last = max(i for i, line in enumerate(lines) if f"{served.qps_capacity:.1f}" in line)
        assert last >= 1
        layout = QTextDocument()
        layout.setDocumentMargin(0)
        layout.setDefaultFont(view.summary.font())
        layout.setTextWidth(view.summary.width())
        layout.setPlainText("\n".join(lines[:last + 1]))
        assert view.summary_area.verticalScrollBar().value() == 0
        assert layout.size().height() <= view.summary_area.viewport().height() + 2, (language, lines[:last + 1])
        for index in range(bar.count()):
            if bar.isTabVisible(index):
                rect = bar.tabRect(index)
                assert rect.right() <= bar.width() and rect.width() > 30, (language, bar.tabText(index))
                # the whole label is shown, not elided
                assert rect.width() >= bar.fontMetrics().horizontalAdvance(bar.tabText(index).replace("&", "")), (
                    language, bar.tabText(index))
    finally:
        for translator in translators:
            qapp.removeTranslator(translator)
        i18n.set_language(before)


def test_a_serving_option_opens_will_it_fit_filled_and_checked(qtbot, tab) -> None:  # type: ignore[no-untyped-def]
    """The flaw of the last review: "Will it fit?" was not reachable from a serving plan's options."""
    from gpudesk import paths
    from gpudesk.planner.serve_launch import launch_inputs

    plan = plan_file(qtbot, tab, paths.examples_dir() / "chat-api-qps200.toml")
    view = tab.pages.results
    view.table.selectRow(0)
    assert view.launch_button.isEnabled() and view.launch_button.isVisible()
    index = view.selected_index()
    option = plan.option(index)
    assert option is not None
    expected = launch_inputs(plan, option)
    qtbot.mouseClick(view.launch_button, Qt.MouseButton.LeftButton)
    dialog = view.launch_dialog
    page = dialog.page
    assert dialog.isVisible() and page.result is not None
    assert page.engine.currentData() == expected.engine and page.gpu.currentData() == expected.gpu_id
    assert page.model.currentData() == expected.model_id and page.gpus.value() == expected.gpus
    assert page.settings.text() == " ".join(expected.engine_args)
    assert page.result.fits and page.command.text() == page.result.command
    dialog.close()


def test_a_training_option_has_no_engine_check(qtbot, tab) -> None:  # type: ignore[no-untyped-def]
    plan_file(qtbot, tab, ARTICLE)
    view = tab.pages.results
    view.table.selectRow(0)
    assert not view.launch_button.isEnabled() and view.open_launch_check() is None
