"""Plan tab regressions from the new-user test (issue 3, defects 1, 4, 14, 15, 19, 22): each failed before its fix."""

from __future__ import annotations

import tomllib
from pathlib import Path

from PySide6.QtCore import Qt

from gpudesk import paths
from gpudesk.store.prices import set_price
from gpudesk.ui.plan.tab import example_profiles, example_title
from gpudesk.units import format_duration

from helpers.plan_tab import ARTICLE, Notes, catalog, ctx, tab  # noqa: F401 - fixtures
SHARDING_COLUMN = 10




def plan_now(qtbot, tab):
    with qtbot.waitSignal(tab.planReady, timeout=20000) as signal:
        qtbot.mouseClick(tab.pages.wizard.plan_button, Qt.MouseButton.LeftButton)
    # The worker's "finished" (which re-enables the button) is queued after its result (planReady): wait for it, or
    # a second plan_now clicks a disabled button.
    qtbot.waitUntil(tab.pages.wizard.plan_button.isEnabled, timeout=5000)
    return signal.args[0]


def test_export_button_comes_back_after_a_pdf_export(qtbot, tab, tmp_path):
    # Defect 1: the button stayed grey after a PDF export until another row was clicked.
    tab.load_example(ARTICLE)
    plan_now(qtbot, tab)
    button = tab.pages.results.export_button
    with qtbot.waitSignal(button.exported, timeout=20000):
        button.export_to("pdf", tmp_path / "sheet.pdf")
    qtbot.waitUntil(button.isEnabled, timeout=5000)
    qtbot.wait(50)  # let the task's "finished" arrive too
    assert button.isEnabled() and button.pending is None


def test_rationale_pane_follows_a_replan(qtbot, tab, ctx):
    # Defect 4: after entering a price and planning again, the pane kept the previous plan's warnings.
    tab.load_example(ARTICLE)
    plan_now(qtbot, tab)
    assert "NVIDIA H100 NVL 94GB" in tab.pages.results.details.toPlainText()
    set_price(ctx.store, "h100-nvl", 25000.0)
    tab.show_view(0)
    result = plan_now(qtbot, tab)
    unpriced = next(w for w in result.warnings if "have no price" in w)
    assert "H100 NVL" not in unpriced
    details = tab.pages.results.details.toPlainText()
    assert unpriced in details and "NVIDIA H100 NVL 94GB" not in details.split("Plan warnings:", 1)[1].split("\n\n", 1)[0]


def test_loaded_example_opens_the_live_chart_at_a_count_that_fits(tab):
    # Defect 14: the Article example opened at 1 GPU, 169.7 GiB over the safe line.
    tab.load_example(ARTICLE)
    preview = tab.pages.wizard.preview
    assert preview.count.currentData() > 1
    assert preview.last_fit is not None and preview.last_fit.under_safe_line
    # Tensor parallelism 8: the preview starts at a multiple of 8 instead of pausing on "8 does not divide 1".
    tab.load_example(paths.examples_dir() / "pretraining-70b.toml")
    assert preview.count.currentData() % 8 == 0 and preview.message.text() == ""


def test_example_title_does_not_promise_a_gpu_count():
    # Defect 14: "Pre-training a 70B model (1024 GPUs ...)" while the plan recommends fewer.
    titles = [example_title(p) for p in example_profiles()]
    assert "Pre-training a 70B model (up to 1024 GPUs, 90 days)" in titles


def test_every_bad_field_is_named_and_stays_marked(tab):
    # Defect 15: one error at a time, and the red frames of the other bad fields vanished.
    tab.load_example(ARTICLE)
    wizard = tab.pages.wizard
    wizard.set_field_text("model.seq_len_tokens", "abc")
    wizard.set_field_text("model.micro_batch_size", "-5")
    req, _data = wizard.requirement()
    assert req is None
    text = wizard.problem.text()
    assert "Sequence length" in text and "Micro-batch per GPU" in text and "1 more field(s) to fix" in text
    assert wizard.editors["model.seq_len_tokens"].problem and wizard.editors["model.micro_batch_size"].problem
    wizard.set_field_text("model.seq_len_tokens", "512")
    wizard.requirement()
    assert not wizard.editors["model.seq_len_tokens"].problem
    assert wizard.editors["model.micro_batch_size"].problem  # still bad, still marked


def test_a_config_json_replaces_the_catalog_model(tab, tmp_path):
    # Defect 15: the catalog model box always had a value, so a config.json could not be used.
    config = Path(__file__).resolve().parents[2] / "fixtures" / "plan" / "llama-2-7b-hf.config.json"
    tab.load_example(ARTICLE)
    wizard = tab.pages.wizard
    assert wizard.editors["model.model"].value()[0] == "llama-2-13b"
    wizard.set_field_text("model.config_path", str(config))
    assert wizard.editors["model.model"].value()[0] is None
    req, _data = wizard.requirement()
    assert req is not None and req.model.config_path == str(config) and not req.model.model
    # Both given (a loaded profile): the message uses the field names a user sees.
    profile = tomllib.loads(ARTICLE.read_text(encoding="utf-8"))
    profile["model"]["config_path"] = str(config)
    wizard.load_profile(profile)
    assert wizard.requirement()[0] is None
    assert "give only one of a catalog model, a parameter count or a config.json path" in wizard.problem.text()
    assert "config_path" not in wizard.problem.text()


def test_step_time_units_and_sharding_column(qtbot, tab):
    # Defects 19 and 22: "0.00 s" step times; no sharding/recompute column to explain the alternatives.
    assert format_duration(0.0042) == "4.2 ms" and format_duration(0.61) == "610 ms"
    assert format_duration(3.5) == "3.5 s" and format_duration(None) == "N/A"
    tab.load_example(paths.examples_dir() / "risk-model-qps40.toml")
    result = plan_now(qtbot, tab)
    top = result.candidates[0]  # a service (a classifier: no output tokens): latency in the TTFT / TPOT column
    assert top.ttft_s < 1 and format_duration(top.ttft_s) != "0.00 s"
    assert tab.pages.results.table.item(0, 10).text() == (f"{format_duration(top.ttft_s)} / "
                                                          f"{format_duration(top.tpot_s)}")
    tab.load_example(ARTICLE)
    result = plan_now(qtbot, tab)
    table = tab.pages.results.table
    assert table.horizontalHeaderItem(SHARDING_COLUMN).text() == "Settings the search chose"
    top = result.candidates[0]
    recompute = {"none": "no recompute", "selective": "selective recompute", "full": "full recompute"}[top.recompute]
    assert table.item(0, SHARDING_COLUMN).text().startswith(f"{top.sharding}, {recompute}")


def test_quick_mode_parameter_count_replaces_the_catalog_model(tab):
    # Typing a parameter count in Quick mode used to leave "Llama 2 7B" selected, so the chart ignored it.
    quick = tab.pages.quick
    before = quick.preview.last_estimate.total_bytes
    quick.set_field_text("model.params", "70")
    quick.update_preview()
    assert quick.editors["model.model"].value()[0] is None
    assert quick.preview.last_estimate.total_bytes > 5 * before
    # With no model at all the paused preview names the field as the user sees it, not "model.model".
    quick.editors["model.params"].type_text("")
    quick.update_preview()
    message = quick.preview.message.text()
    assert message.startswith("Memory preview paused: Catalog model: ") and "model.model" not in message
