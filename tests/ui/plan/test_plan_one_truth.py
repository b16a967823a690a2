"""One truth on screen (issue 29): for the same option the live chart, the header, the results table, the results
chart and the sheet show the same memory; where the search changed an answer (micro-batch 4 → 1 x N
accumulation) it says so beside the number; "Apply this option" writes the chosen settings into the wizard.

The case is the issue's: LoRA of Qwen2.5-14B on one workstation with a $60k budget, micro-batch 4 of a global
batch of 16 (the window once showed 50.6 GiB in the live chart, 35.1 GiB in the table and 138.4 GiB in the header).
"""

from __future__ import annotations

from pathlib import Path

from gpudesk.planner.search_notes import search_changes
from gpudesk.planner.sheet import build_sheet
from gpudesk.planner.sheet_markdown import sheet_to_markdown
from gpudesk.ui.plan.tab import WIZARD
from gpudesk.units import format_gib

from helpers.plan_tab import Notes, catalog, ctx, tab  # noqa: F401 - fixtures
from test_plan_results_wiring import plan_file

LORA_14B_WORKSTATION = """version = 1
name = "LoRA Qwen2.5-14B on one workstation"
[data]
sample_count = 50000
[model]
model = "qwen2.5-14b"
mode = "lora"
seq_len_tokens = 2048
micro_batch_size = 4
global_batch_size = 16
[workload]
deadline_s = 604800.0
[operations]
max_gpus = 4
budget_usd = 60000
"""


def test_every_view_shows_the_same_memory_for_the_same_option(qtbot, tab, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "lora14.toml"
    path.write_text(LORA_14B_WORKSTATION, encoding="utf-8")
    plan = plan_file(qtbot, tab, path)
    view = tab.pages.results
    profile = tab.ctl.current_profile
    candidates = plan.candidates
    for row in range(6):
        view.table.selectRow(row)
        index = view.selected_index()
        shown = candidates[index]
        figure = format_gib(shown.per_gpu_memory_bytes)
        assert view.table.item(row, 4).text().startswith(figure)  # results table
        assert format_gib(view.memory_chart.specs()[index].total_bytes) == figure  # results chart
        sheet = build_sheet(plan, index, profile=profile)
        text = sheet_to_markdown(sheet)
        assert f"**{figure}**" in text  # the sheet's per-GPU total
        for change in search_changes(shown, plan.requirement):
            assert change in text and change in view.table.item(row, 10).text()
    top = candidates[0]
    figure = format_gib(top.per_gpu_memory_bytes)
    assert top.micro_batch_size < 4  # the search cut the micro-batch to fit a 48 GB card
    assert f", {figure} per GPU" in view.summary.text()  # the header's top candidate
    assert "micro-batch 4 → " in view.summary.text()
    preview = tab.pages.wizard.preview  # the live chart shows the plan's option, not a fresh estimate
    assert preview.shown_option == top
    assert format_gib(preview.chart.specs()[0].total_bytes) == figure
    assert "micro-batch 4 → " in preview.chart.caption.text()


def test_apply_this_option_writes_the_chosen_settings_into_the_wizard(qtbot, tab, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "lora14.toml"
    path.write_text(LORA_14B_WORKSTATION, encoding="utf-8")
    plan = plan_file(qtbot, tab, path)
    view = tab.pages.results
    view.table.selectRow(0)
    top = plan.candidates[view.selected_index()]
    view.apply_button.click()
    assert tab.pages.currentIndex() == WIZARD
    answers, _problems = tab.pages.wizard.profile()
    assert answers["model"]["micro_batch_size"] == top.micro_batch_size
    assert answers["model"]["recompute"] == top.recompute
    assert answers["model"]["global_batch_size"] == 16  # the global batch is kept
