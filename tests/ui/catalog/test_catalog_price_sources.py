"""The price-sources view: every catalog price of a GPU with kind, unit, date and source; rent vs buy; keyboard
access to the source link; a screenshot for docs (docs/screenshots/catalog-price-sources.png)."""

from pathlib import Path

from PySide6.QtCore import Qt

from gpudesk.catalog import open_catalog
from gpudesk.planner.prices import cloud_rate
from gpudesk.planner.tco import TcoAssumptions, rent_vs_buy
from gpudesk.ui.catalog.price_sources import PriceSourcesView

SHOTS = Path(__file__).resolve().parents[3] / "docs" / "screenshots"


def test_prices_rent_and_keyboard(qtbot):
    catalog = open_catalog()
    prices = catalog.prices("h100-sxm5")
    rate = cloud_rate("h100-sxm5", catalog.prices())
    rent = rent_vs_buy(rate, count=8, job_hours=53.0, tco_total_usd=427_935.0, a=TcoAssumptions())
    view = PriceSourcesView()
    qtbot.addWidget(view)
    view.resize(980, 360)
    view.set_prices("NVIDIA H100 SXM5 80GB", prices, rent, count=8, gpu=catalog.gpu("h100-sxm5"))
    table = view.table
    assert table.rowCount() == len(prices) + 1  # the GPU row's dated purchase price on top
    assert table.item(0, 0).text() == "Catalog price" and table.item(0, 1).text() == "$24,400 per GPU"
    assert table.item(0, 2).text() == "2023-05"
    texts = [table.item(r, 1).text() for r in range(1, table.rowCount())]
    assert all("per GPU-hour" in t for t in texts)
    assert {table.item(r, 0).text() for r in range(table.rowCount())} >= {"Cloud, on demand", "Cloud, committed", "Cloud, spot"}
    assert "owning wins above" in view.rent_label.text() and "$2.69/GPU-hour" in view.rent_label.text()
    table.setFocus()
    assert "HGX baseboard" in table.item(0, 4).text()  # no URL in the row's price source: its text is shown
    table.setCurrentCell(1, 0)
    with qtbot.waitSignal(view.linkOpened) as blocker:
        qtbot.keyClick(table, Qt.Key.Key_Return)
    assert blocker.args[0].startswith("https://")
    SHOTS.mkdir(parents=True, exist_ok=True)
    view.show()
    qtbot.waitExposed(view)
    view.grab().save(str(SHOTS / "catalog-price-sources.png"))


def test_purchase_rows_show_ranges_and_no_price_says_so(qtbot):
    catalog = open_catalog()
    view = PriceSourcesView()
    qtbot.addWidget(view)
    view.set_prices("NVIDIA RTX PRO 6000 Blackwell", catalog.prices("rtx-pro-6000-bw"))
    first = [view.table.item(0, c).text() for c in range(5)]
    assert first[0] == "List price" and first[1] == "$8,565 per GPU" and first[4].startswith("https://")
    assert any("(range $8,000-$9,200)" in view.table.item(r, 1).text() for r in range(view.table.rowCount()))
    view.set_prices("NVIDIA H100 NVL 94GB", catalog.prices("h100-nvl"))
    assert view.table.rowCount() == 0 and "No public price" in view.rent_label.text()
