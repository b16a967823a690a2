"""The Plan tab at 1024 x 700 (new-user test): wizard values were clipped ("12" invisible, "20," shown); the results
showed ~2.5 table rows, a ~70 px chart and no Memory / Step / TCO columns while "Interconnect" took the width."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QLineEdit

from gpudesk.ui.plan.tab import RESULTS

from helpers.plan_tab import ARTICLE, Notes, catalog, ctx, tab  # noqa: F401 - fixtures

# A 1024 x 700 window less the menu bar, the tab bar and the status bar.
SIZE = (1024, 640)


def _inside(widget, viewport) -> bool:  # type: ignore[no-untyped-def]
    top_left = widget.mapTo(viewport, QPoint(0, 0))
    return viewport.rect().contains(QRect(top_left, widget.size()))


def test_wizard_fields_are_fully_visible(qtbot, tab) -> None:  # type: ignore[no-untyped-def]
    tab.resize(*SIZE)
    tab.load_example(ARTICLE)
    wizard = tab.pages.wizard
    wizard.go_to(0)
    qtbot.wait(50)
    page = wizard.pages[0]
    for key in ("data.dataset_bytes", "data.sample_count", "data.sample_bytes"):
        edit = page.editors[key].widget
        assert isinstance(edit, QLineEdit)
        assert _inside(edit, page.viewport()), key
    assert page.editors["data.sample_count"].widget.text() == "20,000,000"


def test_results_show_rows_figures_and_a_readable_chart(qtbot, tab) -> None:  # type: ignore[no-untyped-def]
    tab.resize(*SIZE)
    tab.load_example(ARTICLE)
    with qtbot.waitSignal(tab.planReady, timeout=30000):
        qtbot.mouseClick(tab.pages.wizard.plan_button, Qt.MouseButton.LeftButton)
    assert tab.pages.currentIndex() == RESULTS
    view = tab.pages.results
    qtbot.wait(50)
    table = view.table
    header = table.horizontalHeader()
    width = table.viewport().width()
    for title in ("Memory per GPU", "Step time", "3-year TCO (USD)"):
        column = next(i for i in range(table.columnCount()) if table.horizontalHeaderItem(i).text() == title)
        assert header.sectionViewportPosition(column) + header.sectionSize(column) <= width, title
    assert table.viewport().height() >= 4 * table.rowHeight(0)
    assert view.memory_chart.height() >= 300


def test_emptied_config_json_field_keeps_its_width_under_its_label(qtbot, tab) -> None:  # type: ignore[no-untyped-def]
    # qa16/qa17 new-user test: the emptied "Hugging Face config.json" box shrank to ~107 px at the far right of its
    # row while the rows around it put their fields under their labels.
    tab.resize(1280, 800)
    tab.load_example(ARTICLE)
    wizard = tab.pages.wizard
    wizard.go_to(1)
    wizard.set_field_text("model.config_path", "")
    qtbot.wait(50)
    page = wizard.pages[1]
    config = page.editors["model.config_path"].widget
    params = page.editors["model.params"].widget
    assert config.width() >= params.width()
    assert config.mapTo(page.widget(), QPoint(0, 0)).x() == params.mapTo(page.widget(), QPoint(0, 0)).x()
