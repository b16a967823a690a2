"""The Catalog tab's side pane shows the selected GPU's sourced prices and renting it: select a GPU in the table
(keyboard), open the "Prices, rent vs buy" page, Enter on a row opens its source."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from gpudesk.catalog import open_catalog
from gpudesk.planner.prices import cloud_rate
from gpudesk.store import open_store
from gpudesk.ui.catalog.tab import CatalogTab
from gpudesk.ui.context import AppContext


@pytest.fixture
def tab(qtbot):  # type: ignore[no-untyped-def]
    catalog, store = open_catalog(), open_store()
    widget = CatalogTab(AppContext(catalog=catalog, store=store, notify=lambda text, level="info": None))
    qtbot.addWidget(widget)
    widget.resize(1280, 800)
    widget.show()
    yield widget
    store.close()
    catalog.close()


def test_selected_gpu_prices_and_rent_line(qtbot, tab, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    assert tab.select_gpu("h100-sxm5")
    view = tab.price_sources
    tab.side.setCurrentWidget(view)
    assert tab.side.tabText(tab.side.currentIndex()) == "Prices, rent vs buy"
    prices = tab.catalog.prices("h100-sxm5")
    assert view.table.rowCount() == len(prices) + 1  # the GPU row's own dated price on top
    assert view.table.item(0, 1).text() == "$24,400 per GPU"
    rate = cloud_rate("h100-sxm5", prices)
    assert rate is not None
    assert view.rent_label.text().startswith(f"Rent vs buy: renting 1 GPU at ${rate.usd_per_gpu_hour:.2f}/GPU-hour")
    assert "over 3 years at" in view.rent_label.text()  # renting over the TCO horizon (tco.RentVsBuy.describe)
    opened: list[str] = []
    monkeypatch.setattr("gpudesk.ui.catalog.tab.QDesktopServices.openUrl", lambda url: opened.append(url.toString()))
    view.table.setFocus()
    view.table.setCurrentCell(1, 0)
    qtbot.keyClick(view.table, Qt.Key.Key_Return)
    assert opened and opened[0].startswith("https://")
    # another GPU replaces the list; the keyboard moves the table's current row
    tab.table.setFocus()
    current = tab.table.currentIndex()
    qtbot.keyClick(tab.table, Qt.Key.Key_Down)
    assert tab.table.currentIndex().row() == current.row() + 1
    assert view._title.text() == f"Prices of {tab.detail.gpu().name}"
