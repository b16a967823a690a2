"""The Catalog tab on the shipped catalog: filter, sort, detail, compare, chart, user prices, CSV export."""

from __future__ import annotations

import csv
import math

import pytest
from PySide6.QtCore import QItemSelectionModel, QPointF, Qt
from PySide6.QtGui import QDesktopServices, QKeySequence, QShortcut

from gpudesk.catalog import open_catalog
from gpudesk.store.prices import price_overrides
from gpudesk.ui.catalog.compare_view import COMPARE_KEYS, DIFF_BRUSH
from gpudesk.ui.catalog.table_model import GPU_ROLE, TABLE_COLUMNS
from gpudesk.ui.catalog.tab import CatalogTab
from gpudesk.ui.context import AppContext

from helpers.catalog_tab import Notes, ctx  # noqa: F401 - fixture


@pytest.fixture
def tab(qtbot, ctx):
    widget = CatalogTab(ctx)
    qtbot.addWidget(widget)
    widget.resize(1280, 800)
    return widget


def shown_ids(tab) -> list[str]:
    return [g.id for g in tab.proxy.visible_gpus()]


def select_rows(tab, ids: list[str]) -> None:
    selection = tab.table.selectionModel()
    selection.clearSelection()
    for gpu_id in ids:
        index = tab.proxy.mapFromSource(tab.model.index(tab.model.row_of(gpu_id), 0))
        selection.select(index, QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows)


def test_title_and_all_gpus_shown(tab):
    assert tab.windowTitle() == "Catalog"
    assert len(shown_ids(tab)) == 97
    assert tab.count.text() == "97 of 97 GPUs shown"
    headers = [tab.proxy.headerData(c, Qt.Orientation.Horizontal) for c in range(tab.proxy.columnCount())]
    assert "Bandwidth (GB/s)" in headers and "BF16 (TFLOPS)" in headers and "Price (USD)" in headers
    tips = [tab.proxy.headerData(c, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole) for c in range(len(headers))]
    assert "Memory bandwidth (GB/s)" in tips and any("BF16 dense (TFLOPS): dense throughput" in (t or "") for t in tips)


def test_text_search_uses_full_text_index(tab, qtbot):
    qtbot.keyClicks(tab.filters.search, "hopper")
    assert set(shown_ids(tab)) == {"h100-pcie", "h100-sxm5", "h100-nvl", "h200-sxm", "h200-nvl", "h800-sxm5", "h20",
                                  "gh200", "gh200-96"}
    assert tab.count.text() == "9 of 97 GPUs shown"
    tab.filters.search.clear()
    assert len(shown_ids(tab)) == 97


def test_ctrl_f_focuses_the_search(tab):
    # The offscreen platform gives no active window, so key events do not reach window shortcuts: check the
    # binding and what it does.
    shortcut = next(s for s in tab.findChildren(QShortcut) if s.key() == QKeySequence(QKeySequence.StandardKey.Find))
    tab.table.setFocus()
    shortcut.activated.emit()
    assert tab.focusWidget() is tab.filters.search


def test_combined_filters(tab):
    f = tab.filters
    f.vendor.setCurrentIndex(f.vendor.findData("NVIDIA"))
    f.form_factor.setCurrentIndex(f.form_factor.findData("SXM"))
    f.fp8.setCurrentIndex(f.fp8.findData(True))
    assert set(shown_ids(tab)) == {"h100-sxm5", "h200-sxm", "b200", "b300", "gb200", "gb300", "h800-sxm5", "h20",
                                   "gh200", "gh200-96"}
    f.memory_min.setValue(100)
    assert set(shown_ids(tab)) == {"h200-sxm", "b200", "b300", "gb200", "gb300", "gh200"}
    f.memory_max.setValue(150)
    assert set(shown_ids(tab)) == {"h200-sxm", "gh200"}
    tab.reset_button.click()
    assert len(shown_ids(tab)) == 97
    f.architecture.setCurrentIndex(f.architecture.findData("Ada Lovelace"))
    f.fp8.setCurrentIndex(f.fp8.findData(False))
    assert shown_ids(tab) == []
    assert not tab.export_button.isEnabled()


def test_sort_by_bandwidth_and_missing_values_last(tab):
    column = TABLE_COLUMNS.index("memory_bandwidth_gbps")
    tab.table.sortByColumn(column, Qt.SortOrder.DescendingOrder)
    # 8 TB/s: B200, B300, GB200, GB300, MI350X, MI355X; then the MI325X at 6 TB/s.
    assert set(shown_ids(tab)[:6]) == {"b200", "b300", "gb200", "gb300", "mi350x", "mi355x"}
    assert shown_ids(tab)[6] == "mi325x"
    fp8 = TABLE_COLUMNS.index("fp8_dense_tflops")
    for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder):
        tab.table.sortByColumn(fp8, order)
        values = [g.fp8_dense_tflops for g in tab.proxy.visible_gpus()]
        first_none = values.index(None)
        assert all(v is None for v in values[first_none:])
        present = values[:first_none]
        assert present == sorted(present, reverse=order == Qt.SortOrder.DescendingOrder)
    name = TABLE_COLUMNS.index("name")
    tab.table.sortByColumn(name, Qt.SortOrder.AscendingOrder)
    assert shown_ids(tab)[0] == "mi100"  # "AMD Instinct MI100 ..." sorts first


def test_na_cells_explain_why(tab):
    row = tab.model.row_of("a100-80-sxm4")
    index = tab.model.index(row, TABLE_COLUMNS.index("fp8_dense_tflops"))
    assert index.data() == "N/A"
    assert index.data(Qt.ItemDataRole.ToolTipRole) == "no FP8 support"


def test_detail_pane_shows_every_spec_with_units(tab, monkeypatch):
    assert tab.select_gpu("h100-sxm5")
    detail = tab.detail
    assert detail.gpu().id == "h100-sxm5"
    assert detail.value_text("memory_bandwidth_gbps") == "3350 GB/s"
    assert detail.value_text("bf16_dense_tflops") == "989.4 TFLOPS"
    assert detail.value_text("tdp_w") == "700 W"
    assert detail.value_text("fp4_dense_tflops") == "N/A (no FP4 support)"
    opened = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url.toString()) or True)
    buttons = detail.link_buttons()
    assert buttons[0].text() == "https://www.nvidia.com/en-us/data-center/h100/"
    buttons[0].click()
    assert opened == ["https://www.nvidia.com/en-us/data-center/h100/"]


def test_compare_highlights_differences(tab):
    select_rows(tab, ["a100-80-sxm4", "h100-sxm5", "h200-sxm"])
    tab.compare_button.click()
    assert tab.side.currentWidget() is tab.compare
    assert [g.id for g in tab.compare.gpus()] == ["a100-80-sxm4", "h100-sxm5", "h200-sxm"]
    differing = set(tab.compare.differing_rows())
    assert {"memory_gb", "memory_bandwidth_gbps", "bf16_dense_tflops"} <= differing
    assert "vendor" not in differing and "form_factor" not in differing
    table = tab.compare.table()
    bw_row = COMPARE_KEYS.index("memory_bandwidth_gbps")
    assert table.item(bw_row, 0).text() == "2039 GB/s"
    assert table.item(bw_row, 1).background() == DIFF_BRUSH
    vendor_row = COMPARE_KEYS.index("vendor")
    assert table.item(vendor_row, 0).background() != DIFF_BRUSH


def test_compare_takes_at_most_four(tab, ctx):
    select_rows(tab, ["t4", "a10", "l4", "l40s", "rtx4090"])
    tab.compare_button.click()
    assert len(tab.compare.gpus()) == 4
    assert ctx.notify.levels()[-1] == "warning"
    assert not tab.compare.add(tab.catalog.gpu("b200"))
    tab.compare.table().setCurrentCell(0, 0)
    tab.compare._remove.click()
    assert [g.id for g in tab.compare.gpus()] == ["a10", "l4", "l40s"]
    tab.compare._clear.click()
    assert tab.compare.gpus() == []


def test_compare_without_selection_says_what_to_do(tab, ctx):
    tab.table.selectionModel().clearSelection()
    tab.compare_button.click()
    assert "Select one or more GPUs" in ctx.notify[-1][0]


def test_chart_click_selects_gpu_and_axes_switch(tab):
    assert tab._chart is None  # built on first display, not at start-up
    tab.show_chart()
    assert tab._chart is not None and tab.side.currentWidget().layout().indexOf(tab.chart) == 0
    assert tab.chart.axes() == ("bf16_dense_tflops", "memory_bandwidth_gbps")
    plotted = tab.chart.plotted_ids()
    assert "h200-sxm" in plotted and "t4" not in plotted  # T4 has no BF16
    point = next(p for p in tab.chart.scatter.points() if p.data() == "h200-sxm")
    tab.chart._on_clicked(tab.chart.scatter, [point])
    assert tab.selected_gpus()[0].id == "h200-sxm"
    assert tab.detail.gpu().id == "h200-sxm"
    tab.chart.set_axes("memory_gb", "price_usd")
    assert "t4" not in tab.chart.plotted_ids()  # no dated price
    assert "rtx4090" in tab.chart.plotted_ids()
    tab.filters.vendor.setCurrentIndex(tab.filters.vendor.findData("AMD"))
    # The AMD GPUs with a dated price (catalog order).
    assert tab.chart.plotted_ids() == ["mi300x", "radeon-pro-w7900", "rx7900xtx", "rx7900xt", "rx6900xt",
                                       "radeon-pro-w6800"]


def test_mouse_click_on_a_chart_point_selects_it(tab, qtbot):
    tab.show()
    tab.show_chart()
    qtbot.wait(20)
    gpu = tab.catalog.gpu("mi300x")
    view = tab.chart.plot.getPlotItem().vb
    scene = view.mapViewToScene(QPointF(math.log10(gpu.bf16_dense_tflops), math.log10(gpu.memory_bandwidth_gbps)))
    qtbot.mouseClick(tab.chart.plot.viewport(), Qt.MouseButton.LeftButton, pos=tab.chart.plot.mapFromScene(scene))
    assert [g.id for g in tab.selected_gpus()] == ["mi300x"]
    assert tab.detail.gpu().id == "mi300x"


def test_user_price_override_is_stored_and_shown(tab, ctx):
    tab.select_gpu("t4")
    tab.detail._price.setValue(950)
    tab.detail._save.click()
    assert price_overrides(ctx.store)["t4"]["price_usd"] == 950
    index = tab.model.index(tab.model.row_of("t4"), TABLE_COLUMNS.index("price_usd"))
    assert index.data() == "950"
    assert "Your price" in index.data(Qt.ItemDataRole.ToolTipRole)
    tab.chart.set_axes("memory_gb", "price_usd")
    assert "t4" in tab.chart.plotted_ids()
    # a fresh tab on the same store shows it too
    again = CatalogTab(ctx)
    assert again.model.value(ctx.catalog.gpu("t4"), "price_usd") == 950
    again.deleteLater()
    tab.detail._clear.click()
    assert "t4" not in price_overrides(ctx.store)
    assert index.data() == "N/A"


def test_bad_price_is_refused_with_a_message(tab, ctx):
    tab.select_gpu("a10")
    tab.detail._price.setValue(0)
    assert not tab.detail._save.isEnabled()  # 0 means "no price": it cannot be saved from the pane
    assert tab.prices.set_user_price("a10", 0.0) is False  # and the store refuses it with a message
    assert ctx.notify[-1][1] == "error" and "positive" in ctx.notify[-1][0]
    assert "a10" not in price_overrides(ctx.store)


def test_without_store_overrides_are_unavailable(qtbot):
    ctx = AppContext(catalog=open_catalog(), store=None, notify=Notes())
    widget = CatalogTab(ctx)
    qtbot.addWidget(widget)
    widget.select_gpu("a10")
    assert not widget.detail._save.isEnabled()
    assert "unavailable" in widget.detail._price_state.text()
    assert widget.prices.set_user_price("a10", 1000.0) is False
    assert ctx.notify.levels() == ["warning"]


def test_export_current_view(tab, ctx, tmp_path):
    tab.prices.set_user_price("rtx4090", 1799.0)
    tab.filters.search.setText("geforce")
    tab.table.sortByColumn(TABLE_COLUMNS.index("memory_gb"), Qt.SortOrder.DescendingOrder)
    path = tmp_path / "view.csv"
    # The view: every GeForce card (name) and the TITAN RTX (its notes name the GeForce driver), largest memory first.
    assert tab.export_csv(path) == len(tab.proxy.visible_gpus()) == 26
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["Id"] for r in rows][0] == "rtx5090"
    assert {r["Id"] for r in rows} >= {"rtx3090", "rtx4080", "rtx4090", "rtx4090d", "rtx5090", "gtx1080ti", "titan-rtx"}
    by_id = {r["Id"]: r for r in rows}
    assert by_id["rtx4090"]["Price (USD)"] == "1799.0"
    assert by_id["rtx4090"]["Memory bandwidth (GB/s)"] == "1008.0"
    assert by_id["rtx3090"]["FP8 dense (TFLOPS)"] == ""
    assert not any(v.startswith(("=", "+", "@")) for r in rows for v in r.values())


def test_tab_without_catalog_explains(qtbot):
    ctx = AppContext(catalog=None, problems=["The GPU catalog /x/catalog.db is missing. Reinstall gpudesk."])
    widget = CatalogTab(ctx)
    qtbot.addWidget(widget)
    text = widget.unavailable.text()
    assert "/x/catalog.db is missing" in text and "make catalog" in text
    assert widget.unavailable.textFormat() == Qt.TextFormat.PlainText


def test_gpu_role_returns_records(tab):
    assert tab.proxy.index(0, 0).data(GPU_ROLE).id == "v100-sxm2-16"


def test_prices_entered_elsewhere_show_when_the_tab_is_shown_again(qtbot):
    from gpudesk.catalog import open_catalog
    from gpudesk.store import open_store
    from gpudesk.store.prices import set_price
    from gpudesk.ui.catalog.tab import CatalogTab
    from gpudesk.ui.context import AppContext

    ctx = AppContext(catalog=open_catalog(), store=open_store())
    tab = CatalogTab(ctx, None)
    qtbot.addWidget(tab)
    tab.show()
    tab.select_gpu("a100-80-sxm4")
    assert tab.model.override("a100-80-sxm4") is None
    tab.hide()
    set_price(ctx.store, "a100-80-sxm4", 17000, "quote entered from the Plan tab")
    tab.show()
    assert tab.model.override("a100-80-sxm4")["price_usd"] == 17000
