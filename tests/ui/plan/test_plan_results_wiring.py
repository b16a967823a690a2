"""The Plan results page as a user drives it: "How accurate is this?" beside the memory figures opens the
estimator's check against published measurements; the rent-vs-buy line of the selected candidate; when nothing
fits, the summary names the binding control instead of only "No configuration fits"."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from gpudesk.ui.plan.tab import RESULTS

from helpers.plan_tab import ARTICLE, Notes, catalog, ctx, tab  # noqa: F401 - fixtures

BOUND_BY_GPU_COUNT = """version = 1
name = "DeepSeek-V3 at 20 req/s on at most 4 GPUs"
[model]
model = "deepseek-ai/DeepSeek-V3"
mode = "inference"
precision = "fp8"
weight_format = "fp8"
kv_precision = "fp8"
[workload]
target_qps = 20
training_share = 0.0
prompt_tokens = 2048
output_tokens = 512
tpot_target_s = 0.1
[operations]
max_gpus = 4
"""


def plan_file(qtbot, tab, path: Path) -> dict:  # type: ignore[no-untyped-def]
    tab.load_example(path)
    with qtbot.waitSignal(tab.planReady, timeout=30000) as signal:
        qtbot.mouseClick(tab.pages.wizard.plan_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(tab.pages.wizard.plan_button.isEnabled, timeout=5000)
    assert tab.pages.currentIndex() == RESULTS
    return signal.args[0]


def test_accuracy_button_beside_the_memory_figures_opens_the_check(qtbot, tab) -> None:  # type: ignore[no-untyped-def]
    plan_file(qtbot, tab, ARTICLE)
    view = tab.pages.results
    assert view.charts.cornerWidget(Qt.Corner.TopRightCorner) is view.accuracy
    assert view.accuracy.isVisible() and view.charts.tabText(0) == "Memory breakdown"
    view.accuracy.setFocus()
    qtbot.keyClick(view.accuracy, Qt.Key.Key_Space)
    dialog = view.accuracy.dialog
    assert dialog is not None and dialog.isVisible()
    qtbot.waitUntil(lambda: "published measurements" in dialog.view.headline.text()
                    and dialog.view.table.rowCount() > 0, timeout=30000)
    assert dialog.view.headline.text().startswith("This estimator is within 15 % on ")
    assert dialog.view.typical.text().startswith(("For full jobs", "No published measurement of a full job"))
    assert dialog.view.table.horizontalHeaderItem(4).text() == "Measured (GiB)"
    # The speed model's check comes in beside it (its own background task). It predicts every bundled run (about
    # 2,300 since fresh20-22), over a minute on a loaded 2-core machine: a behaviour check, so the wait is generous.
    qtbot.waitUntil(lambda: dialog.view.speed_table.rowCount() > 0, timeout=300000)
    assert dialog.view.speed_headline.text().startswith("Speed model: training: within 20 % on ")
    dialog.close()


def test_rent_vs_buy_line_follows_the_selected_candidate(qtbot, tab) -> None:  # type: ignore[no-untyped-def]
    result = plan_file(qtbot, tab, ARTICLE)
    view = tab.pages.results
    for row in range(min(3, view.table.rowCount())):
        view.table.selectRow(row)
        c = result.candidates[view.selected_index()]
        text = view.rent_label.text()
        if c.rent:
            assert text == f"Rent vs buy: {c.rent.text}."
            assert "/GPU-hour" in text
        else:
            assert text == "Rent vs buy: no public on-demand cloud rate for this GPU."
    assert any(c.rent for c in result.candidates[:3]), "the article's GPUs have sourced cloud rates"


def test_nothing_fits_names_the_binding_control(qtbot, tab, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bound.toml"
    path.write_text(BOUND_BY_GPU_COUNT, encoding="utf-8")
    result = plan_file(qtbot, tab, path)
    assert not result.candidates
    view = tab.pages.results
    summary = view.summary.text()
    assert 'No configuration fits this requirement: The GPU-count limit binds: "Largest GPU count to consider" is 4' \
        in summary
    assert 'Raise "Largest GPU count to consider" to ' in summary
    assert "see the reasons below" not in summary
    assert view.details.toPlainText().startswith('⚠ The GPU-count limit binds: "Largest GPU count to consider"')
    assert view.rent_label.text() == ""


def test_training_capped_at_4_gpus_shows_the_binding_not_the_first_warning(qtbot, tab, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # New-user test: "Pre-training a 70B" with "Largest GPU count to consider" = 4 showed "No configuration fits this
    # requirement: Pin and test the listed libraries ..." and "Closest: N/A".
    example = Path(__file__).parents[3] / "resources/examples/pretraining-70b.toml"
    path = tmp_path / "70b-cap4.toml"
    path.write_text(example.read_text(encoding="utf-8").replace("max_gpus = 1024", "max_gpus = 4"), encoding="utf-8")
    assert "max_gpus = 4" in path.read_text(encoding="utf-8")
    plan_file(qtbot, tab, path)
    summary = tab.pages.results.summary.text()
    assert 'No configuration fits this requirement: The GPU-count limit binds: "Largest GPU count to consider" is 4' \
        in summary
    assert "Pin and test" not in summary.splitlines()[1]
    assert "Closest options beyond the GPU-count limit: " in summary and "h100-sxm5" in summary
    assert "N/A" not in summary


def test_nothing_fits_can_still_be_exported_as_why(qtbot, tab, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Export was disabled when nothing fits, so the binding constraint and the rejections could not be shared.
    path = tmp_path / "bound.toml"
    path.write_text(BOUND_BY_GPU_COUNT, encoding="utf-8")
    plan_file(qtbot, tab, path)
    button = tab.pages.results.export_button
    assert button.isEnabled()
    assert button.actions_by_format["md"].isEnabled() and button.actions_by_format["pdf"].isEnabled()
    assert not button.actions_by_format["csv"].isEnabled()  # no bill of materials without a configuration
    with qtbot.waitSignal(button.exported, timeout=10000):
        button.export_to("md", tmp_path / "why.md")
    text = (tmp_path / "why.md").read_text(encoding="utf-8")
    assert "The GPU-count limit binds" in text and "## Rejected configurations" in text
