"""The Plan tab end to end on the shipped catalog and examples: plan in the background, results and charts,
save / reopen / duplicate / edit / compare / delete with undo, and the four exports of the sheet."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from PySide6.QtCore import Qt

from gpudesk import paths
from gpudesk.store.plans import get_plan, list_plans
from gpudesk.ui.plan.tab import COMPARE, PLANS, RESULTS, WIZARD, example_profiles

from helpers.plan_tab import ARTICLE, Notes, catalog, ctx, tab  # noqa: F401 - fixtures




def plan_example(qtbot, tab, path=ARTICLE):
    tab.load_example(path)
    assert tab.pages.currentIndex() == WIZARD
    with qtbot.waitSignal(tab.planReady, timeout=20000) as signal:
        qtbot.mouseClick(tab.pages.wizard.plan_button, Qt.MouseButton.LeftButton)
    # The worker's "finished" (which re-enables the button) is queued after its result (planReady).
    qtbot.waitUntil(tab.pages.wizard.plan_button.isEnabled, timeout=5000)
    return signal.args[0]


def test_examples_are_offered(tab):
    names = [tab.bar.examples.itemText(i) for i in range(1, tab.bar.examples.count())]
    assert len(names) == len(example_profiles()) >= 1
    assert "Article case: 13B full fine-tune in 7 days" in names


def test_planning_runs_in_the_background_and_fills_the_results(qtbot, tab):
    result = plan_example(qtbot, tab)
    assert tab.pages.currentIndex() == RESULTS
    top = result.candidates[0]
    view = tab.pages.results
    assert view.table.rowCount() == min(len(result.candidates), 25)
    assert view.table.item(0, 1).text().startswith(f"{top.count}× ")
    assert "Top candidate" in view.summary.text()
    assert view.memory_chart.specs()[0].total_bytes == top.per_gpu_memory_bytes
    assert view.memory_chart.specs()[0].safe_bytes == top.safe_line_bytes
    assert view.tco_chart.bar_count >= 1
    assert view.scatter.point_count >= 1
    assert "Rationale:" in view.details.toPlainText()
    assert top.rationale[0].text in view.details.toPlainText()
    assert tab.pages.wizard.plan_button.isEnabled()
    assert not tab.bar.busy.isVisible()
    rejected = result.rejected
    assert view.charts.tabText(4) == f"Rejected ({len(rejected)})"
    if rejected:
        assert rejected[0].reasons[0] in view.rejected.toPlainText()


def test_save_reopen_duplicate_edit_compare_delete_undo(qtbot, tab, ctx):
    result = plan_example(qtbot, tab)
    plan_id = tab.save_current()
    saved = get_plan(ctx.store, plan_id)
    assert saved.plan == result.to_dict()
    assert saved.name == "Article case: 13B full fine-tune in 7 days"
    assert "[model]" in saved.profile_text and 'model = "llama-2-13b"' in saved.profile_text

    tab.show_view(PLANS)
    assert tab.pages.plans.table.rowCount() == 1
    tab.pages.plans.table.selectRow(0)
    qtbot.mouseClick(tab.pages.plans.duplicate_button, Qt.MouseButton.LeftButton)
    assert len(list_plans(ctx.store)) == 2
    copy = next(p for p in list_plans(ctx.store) if p.id != plan_id)
    assert copy.name.endswith("(copy)") and copy.plan == result.to_dict()

    # Edit the copy: 14 days instead of 7, re-plan, save changes.
    tab.edit_saved(copy)
    assert tab.pages.currentIndex() == WIZARD
    tab.pages.wizard.set_field_text("workload.deadline_s", "14")
    with qtbot.waitSignal(tab.planReady, timeout=20000):
        tab.pages.wizard.request_plan()
    assert tab.pages.results.save_button.text() == "&Save changes"
    assert tab.save_current() == copy.id
    edited = get_plan(ctx.store, copy.id)
    assert 'deadline_s = 1209600.0' in edited.profile_text
    assert get_plan(ctx.store, plan_id).profile_text != edited.profile_text

    # Reopen shows the saved figures without re-planning.
    tab.open_saved(get_plan(ctx.store, plan_id))
    assert tab.pages.currentIndex() == RESULTS
    assert tab.pages.results.plan == result

    # Compare side by side.
    tab.show_view(PLANS)
    tab.pages.plans.select_ids([plan_id, copy.id])
    assert tab.pages.plans.compare_button.isEnabled()
    qtbot.mouseClick(tab.pages.plans.compare_button, Qt.MouseButton.LeftButton)
    assert tab.pages.currentIndex() == COMPARE
    table = tab.pages.compare.table
    labels = [table.item(r, 0).text() for r in range(table.rowCount())]
    assert "Time to result" in labels and "3-year TCO" in labels
    assert {table.horizontalHeaderItem(1).text(), table.horizontalHeaderItem(2).text()} == {saved.name, copy.name}

    # Delete with undo.
    tab.show_view(PLANS)
    tab.pages.plans.select_ids([copy.id])
    qtbot.mouseClick(tab.pages.plans.delete_button, Qt.MouseButton.LeftButton)
    assert [p.id for p in list_plans(ctx.store)] == [plan_id]
    assert any("Undo delete" in text for text, _level in ctx.notify)
    qtbot.mouseClick(tab.pages.plans.undo_button, Qt.MouseButton.LeftButton)
    assert {p.id for p in list_plans(ctx.store)} == {plan_id, copy.id}
    assert tab.pages.plans.table.rowCount() == 2

    # A delete that is not undone is made final when the window closes.
    tab.pages.plans.select_ids([copy.id])
    tab.pages.plans.delete_selected()
    tab.shutdown()
    assert [p.id for p in list_plans(ctx.store, include_deleted=True)] == [plan_id]


def test_rename_refuses_an_empty_name(tab, ctx, qtbot):
    plan_example(qtbot, tab)
    plan_id = tab.save_current()
    tab.show_view(PLANS)
    assert not tab.pages.plans.rename(plan_id, "   ")
    assert ctx.notify[-1][1] == "warning" and "must not be empty" in ctx.notify[-1][0]
    assert tab.pages.plans.rename(plan_id, "Purchase v2")
    assert get_plan(ctx.store, plan_id).name == "Purchase v2"


def test_exports_in_all_four_formats(qtbot, tab, tmp_path):
    result = plan_example(qtbot, tab)
    button = tab.pages.results.export_button
    assert button.isEnabled()
    written = {}
    for fmt in ("md", "json", "csv", "pdf"):
        with qtbot.waitSignal(button.exported, timeout=20000) as signal:
            button.export_to(fmt, tmp_path / f"sheet-{fmt}")
        written[signal.args[0]] = signal.args[1]
    pdf = Path(written["pdf"]).read_bytes()
    assert pdf.startswith(b"%PDF") and len(pdf) > 5000
    doc = json.loads(Path(written["json"]).read_text(encoding="utf-8"))
    assert doc["candidate"]["gpu_id"] == result.candidates[0].gpu_id
    text = Path(written["csv"]).read_bytes().decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0][:3] == ["category", "item", "quantity"]
    assert {row[0] for row in rows} >= {"GPU", "Server", "Software", "Total"}
    assert not [c for row in rows for c in row if c[:1] in ("=", "+", "-", "@")]
    md = Path(written["md"]).read_text(encoding="utf-8")
    assert md.startswith("# Article case") and "## Checks after delivery" in md


def test_pdf_export_error_is_reported_not_raised(qtbot, tab, tmp_path, ctx):
    plan_example(qtbot, tab)
    button = tab.pages.results.export_button
    with qtbot.waitSignal(button.failed, timeout=20000) as signal:
        button.export_to("pdf", tmp_path / "no-such-folder" / "sheet.pdf")
    assert "does not exist" in signal.args[0]
    assert ctx.notify[-1][1] == "error"


def test_planner_error_goes_back_to_the_field(qtbot, tab, ctx):
    tab.load_example(ARTICLE)
    tab.pages.wizard.set_field_text("data.sample_count", "")
    tab.pages.wizard.set_field_text("workload.tokens_to_train", "")
    tab.pages.wizard.request_plan()
    assert tab.ctl.task is None  # nothing was started
    assert tab.pages.wizard.problem.text().startswith("Samples: training needs the amount of data")
    assert tab.pages.wizard.current_index() == tab.pages.wizard.page_of["data.sample_count"]


def test_a_sizing_error_in_the_background_names_the_field_by_its_caption(qtbot, tab, ctx):
    # bitsandbytes fp32 compute on a training plan: the sizing refuses it once the plan runs; the field, the status
    # line and the message bar say "4-bit layers compute in fp32", not the key "model.bnb_fp32_compute".
    tab.load_example(ARTICLE)
    tab.pages.wizard.editors["model.bnb_fp32_compute"].set_value(True)
    tab.pages.wizard.request_plan()
    qtbot.waitUntil(lambda: "inference" in tab.pages.wizard.problem.text(), timeout=60000)
    assert tab.pages.wizard.problem.text().startswith("4-bit layers compute in fp32: applies to mode inference only")
    assert tab.status.text() == tab.pages.wizard.problem.text()
    assert ctx.notify[-1] == (tab.status.text(), "error")
    assert "model.bnb_fp32_compute" not in tab.status.text()


def test_results_before_any_plan_points_to_the_wizard(tab):
    tab.show_view(RESULTS)
    assert tab.pages.currentIndex() == WIZARD
    assert "No plan yet" in tab.status.text()


def test_a_deadline_nobody_meets_shows_the_closest_and_how_late(qtbot, tab):
    tab.load_example(ARTICLE)
    tab.pages.wizard.set_field_text("workload.deadline_s", "0.25")
    with qtbot.waitSignal(tab.planReady, timeout=20000) as signal:
        tab.pages.wizard.request_plan()
    result = signal.args[0]
    assert result.deadline_met_by_any is False
    closest = result.closest[0]
    summary = tab.pages.results.summary.text()
    assert "No candidate meets the deadline. Closest: " in summary
    assert f"{closest.count} × {closest.gpu_id} late by " in summary
    assert tab.pages.results.table.item(0, 8).text() == "no"


def test_inference_plan_shows_qps_instead_of_time(qtbot, tab):
    result = plan_example(qtbot, tab, paths.examples_dir() / "chat-api-qps200.toml")
    assert result.workload_kind == "high-concurrency-inference"
    top = result.candidates[0]
    assert top.time_to_result_s is None and top.qps_capacity is not None
    assert tab.pages.results.table.item(0, 7).text() == f"{top.qps_capacity:.1f} req/s"  # the serving page (issue 29)
    assert tab.pages.results.table.item(0, 8).text() == ("yes" if top.meets_qps else "no")
    assert f"Sustained QPS: {top.qps_capacity:.1f}" in tab.pages.results.details.toPlainText()
    # the engine settings the search chose, from the plan document (not the training layout line)
    details = tab.pages.results.details.toPlainText()
    assert f"Replicas × TP: {top.replicas} × TP{top.tensor_parallel}; requests in flight per replica: " \
           f"{top.concurrent_sequences}" in details
    assert "Sharding:" not in details


def test_profile_round_trip_through_a_file(qtbot, tab, tmp_path, catalog):
    from gpudesk.planner import load_profile, plan, plan_to_dict

    tab.load_example(ARTICLE)
    tab.pages.wizard.set_field_text("workload.deadline_s", "10")
    target = tmp_path / "mine.toml"
    assert tab.save_profile_to(target)
    saved = load_profile(target)
    assert saved.workload.deadline_s == 10 * 86400
    tab.load_example(target)
    req, _data = tab.pages.wizard.requirement()
    assert plan_to_dict(plan(req, catalog)) == plan_to_dict(plan(saved, catalog))
    tab.pages.wizard.set_field_text("data.epochs", "-1")
    assert not tab.save_profile_to(tmp_path / "bad.toml")
    assert not (tmp_path / "bad.toml").exists()
    assert tab.pages.wizard.problem.text() == "Epochs: must be more than 0, got -1"


def test_unreadable_profile_is_reported(tab, tmp_path, ctx):
    bad = tmp_path / "broken.toml"
    bad.write_text("[model\nparams = 7", encoding="utf-8")
    tab.load_example(bad)
    assert ctx.notify[-1][1] == "error"
    assert "Cannot load the profile broken.toml" in ctx.notify[-1][0]
    assert "not valid TOML" in ctx.notify[-1][0]


def test_quick_mode_hand_over_replaces_the_model_source(qtbot, tab):
    tab.load_example(ARTICLE)  # the wizard holds model = llama-2-13b
    quick = tab.pages.quick
    quick.editors["model.model"].set_value(None)
    quick.set_field_text("model.params", "0.23")
    quick.full_button.click()
    assert tab.pages.currentIndex() == WIZARD
    data, problems = tab.pages.wizard.profile()
    assert problems == []
    assert "model" not in data["model"] and data["model"]["params"] == 230_000_000
    # a quick-mode case is a new plan: the example's other answers do not leak into it (issue 29)
    assert "sample_count" not in data.get("data", {}) and not data.get("software", {}).get("libraries")
    req, _data = tab.pages.wizard.requirement()
    assert req is None and "amount of data" in tab.pages.wizard.problem.text()


def test_a_damaged_saved_plan_is_listed_and_can_be_replanned(qtbot, tab, ctx):
    plan_example(qtbot, tab)
    plan_id = tab.save_current()
    ctx.store["plans"].update(plan_id, {"plan_json": "[truncated"})
    tab.show_view(PLANS)
    assert tab.pages.plans.table.item(0, 1).text() == "unreadable plan: edit and plan again"
    tab.pages.plans.select_ids([plan_id])
    tab.pages.plans.open_selected()
    assert ctx.notify[-1][1] == "error" and "unreadable plan JSON" in ctx.notify[-1][0]
    tab.pages.plans.edit_selected()
    assert tab.pages.currentIndex() == WIZARD
    with qtbot.waitSignal(tab.planReady, timeout=20000):
        tab.pages.wizard.request_plan()
    assert tab.save_current() == plan_id
    assert get_plan(ctx.store, plan_id).problem is None
