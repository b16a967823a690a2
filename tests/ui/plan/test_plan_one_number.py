"""One number per option on every view (issue 29, "done when"): for the three buyer cases (LoRA Qwen2.5-14B on one
workstation, Llama 3.1 70B served at 20 req/s, the article's 13B fine-tune) the results table, the header, the
live chart, the results charts, the Markdown/PDF sheet, the JSON sheet, the bill of materials, the saved plan,
the compare view and ``gpudesk plan --format json`` show the same memory, cost and time (or QPS) for the same
option, all read from the one plan document."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from gpudesk.cli import main
from gpudesk.planner.document import PlanDocument, PlanOption
from gpudesk.planner.sheet import build_sheet
from gpudesk.planner.sheet_csv import sheet_to_csv
from gpudesk.planner.sheet_json import sheet_to_dict
from gpudesk.planner.sheet_markdown import sheet_to_markdown
from gpudesk.store.plans import get_plan
from gpudesk.units import format_duration, format_gib

from helpers.plan_tab import ARTICLE, Notes, catalog, ctx, tab  # noqa: F401 - fixtures
from test_plan_results_wiring import plan_file

BUYER = Path(__file__).resolve().parents[2] / "fixtures/plan/buyer"
CASES = {"lora-14b-workstation": BUYER / "lora-qwen14b-workstation.toml",
         "serve-70b-20qps": BUYER / "serve-llama31-70b-20qps.toml",
         "article-13b": ARTICLE}
OPTIONS = 8  # the options a buyer weighs, priced and unpriced (GPU or host price unknown) alike


def _row_of(view, index: int) -> int:  # type: ignore[no-untyped-def]
    for row in range(view.table.rowCount()):
        if view.table.item(row, 0).data(0x0100) == index:  # Qt.UserRole: the option's index in the plan
            return row
    raise AssertionError(f"option {index} is not in the table")


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_view_shows_one_number_per_option(qtbot, tab, case: str, capsys) -> None:  # type: ignore[no-untyped-def]
    doc: PlanDocument = plan_file(qtbot, tab, CASES[case])
    view = tab.pages.results
    assert doc.candidates, case
    # the CLI plans the same requirement to the same document
    assert main(["plan", "--profile", str(CASES[case]), "--format", "json", "--no-my-prices"]) == 0
    cli = json.loads(capsys.readouterr().out)["candidates"]
    chart_specs = view.memory_chart.specs()
    tco_caption = view.tco_chart.caption.text()
    for index, option in enumerate(doc.candidates[:OPTIONS]):
        memory, tco = option.per_gpu_memory_bytes, option.tco_3y_usd
        row = _row_of(view, index)
        cells = [view.table.item(row, c).text() for c in range(view.table.columnCount())]
        assert cells[4].startswith(format_gib(memory)), (case, index)          # results table
        assert cells[9] == view.tco_text(option)                               # TCO column
        charted = index < len(chart_specs)  # the charts draw the first six options
        assert not charted or chart_specs[index].total_bytes == memory        # memory chart
        if tco is not None and charted:
            assert f"#{index + 1} " in tco_caption and f"{tco / 1000:,.0f} k USD" in tco_caption  # TCO chart
        if option.serving:
            assert cells[7] == f"{option.qps_capacity:.1f} req/s"
            assert cells[10] == f"{format_duration(option.ttft_s)} / {format_duration(option.tpot_s)}"
        else:
            assert cells[7] == format_duration(option.time_to_result_s) or cells[7].replace(" ", "") == format_duration(
                option.time_to_result_s).replace(" ", "")
        # the sheet of this option: Markdown (and the PDF made from it), JSON, bill of materials
        sheet = build_sheet(doc, index, profile=tab.ctl.current_profile)
        text = sheet_to_markdown(sheet)
        assert f"**{format_gib(memory)}**" in text
        # a priced option: the same dollars; an unpriced one: "price unknown" (the sheet adds where to enter a quote)
        assert f"| 3-year TCO | {view.tco_text(option)}" in text
        if option.serving:
            assert f"| Sustained QPS | {option.qps_capacity:.1f} req/s |" in text
        else:
            assert f"| Time to result | {format_duration(option.time_to_result_s)} |" in text
        data = sheet_to_dict(sheet)
        assert data["memory_per_gpu"]["total_bytes"] == memory and data["tco_usd"]["total_3y"] == tco
        assert data["candidate"] == option.to_dict()
        rows = list(csv.reader(io.StringIO(sheet_to_csv(sheet).lstrip("\ufeff"))))
        gpu_line = next(r for r in rows if r[0] == "GPU")
        assert float(gpu_line[2]) == option.bought  # what is bought: a whole NVL72 rack for a 5-GPU option on it
        # `gpudesk plan --format json`
        for key in ("gpu_id", "count", "per_gpu_memory_bytes", "tco_3y_usd", "time_to_result_s", "qps_capacity",
                    "micro_batch_size", "gradient_accumulation", "tensor_parallel", "replicas"):
            assert cli[index][key] == option.to_dict()[key], (case, index, key)
    top = doc.candidates[0]
    # the header and the live chart name the top option's numbers
    assert f"{format_gib(top.per_gpu_memory_bytes)} per GPU" in view.summary.text()
    assert view.tco_text(top) in view.summary.text()
    preview = tab.pages.wizard.preview
    assert isinstance(preview.shown_option, PlanOption) and preview.shown_option == top
    assert preview.chart.specs()[0].total_bytes == top.per_gpu_memory_bytes
    # saved, reopened and compared: the same numbers
    plan_id = tab.save_current()
    assert plan_id is not None
    saved = get_plan(tab.ctx.store, plan_id)
    assert PlanDocument.from_dict(saved.plan) == doc
    compared = dict(tab.pages.compare.rows_for(saved))
    assert compared["Memory per GPU"] == format_gib(top.per_gpu_memory_bytes)
    assert compared["3-year TCO"] == view.tco_text(top)
    tab.open_saved(saved)
    assert tab.pages.results.table.item(_row_of(tab.pages.results, 0), 4).text().startswith(
        format_gib(top.per_gpu_memory_bytes))
