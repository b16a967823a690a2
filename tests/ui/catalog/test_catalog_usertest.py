"""The Catalog tab as a new user met it (usertest of the real window): "Price: N/A" beside "see the prices
table", Compare headed by ids, overprinted chart labels and one highlighted point of four selected, a rent-only
"Rent vs buy" line; and the accuracy dialog's unreadable source URLs."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, Qt

from gpudesk.sizing.validation import load_accuracy
from gpudesk.ui.plan.accuracy_view import URL_COLUMN, EstimatorAccuracyView
from gpudesk.ui.tooltips import plain_tooltip

from test_catalog_tab import ctx, select_rows, tab  # noqa: F401 - fixtures

FOUR = ("a100-80-sxm4", "h100-sxm5", "h200-sxm", "mi300x")


def _select(tab, gpu_id: str) -> None:  # type: ignore[no-untyped-def]
    index = tab.proxy.mapFromSource(tab.model.index(tab.model.row_of(gpu_id), 0))
    tab.table.selectionModel().setCurrentIndex(
        index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)


def test_price_is_said_the_same_way_in_the_detail_and_the_prices_table(tab) -> None:  # type: ignore[no-untyped-def]
    _select(tab, "rtx-pro-6000-bw")  # no price on the GPU row; list and street prices in the prices table
    # the catalog's one price (a list price before a street price), the one the planner uses
    assert tab.detail.value_text("price_usd") == "8,565 USD" and tab.detail.value_text("price_kind") == "list"
    assert tab.price_sources.table.rowCount() >= 2
    _select(tab, "b300")  # nothing anywhere
    assert tab.detail.value_text("price_usd") == "no public price found"
    # the catalog's own note on why there is none, not only "no public price found"
    assert tab.detail.value_text("price_source") == "no public price found (searched 2026-12-01); enter your quote"
    assert tab.price_sources.table.rowCount() == 0
    _select(tab, "a10g")  # an AWS-only part: the note says why no price can exist
    assert tab.detail.value_text("price_usd") == "no public price found"
    assert tab.detail.value_text("price_source") == "no public price: not sold, AWS EC2 G5 instances only"
    assert tab.price_sources.table.rowCount() == 0


def test_made_for_market_reads_sold_worldwide_not_na(tab) -> None:  # type: ignore[no-untyped-def]
    _select(tab, "h100-sxm5")  # no market restriction: the empty value is the answer, not a missing one
    assert tab.detail.value_text("market") == "sold worldwide"
    _select(tab, "h20")
    assert tab.detail.value_text("market") == "china"


def test_rent_vs_buy_says_what_owning_costs_or_that_it_is_unknown(tab) -> None:  # type: ignore[no-untyped-def]
    _select(tab, "rtx-pro-6000-bw")
    text = tab.price_sources.rent_label.text()
    assert "Owning: $8,565 per GPU" in text and "GPU-hours at this rate" in text
    _select(tab, "t4")  # a cloud rate, no purchase price
    assert "Owning: no purchase price is known for this GPU" in tab.price_sources.rent_label.text()


def test_compare_columns_are_headed_by_gpu_names(qtbot, tab) -> None:  # type: ignore[no-untyped-def]
    select_rows(tab, FOUR)
    tab.compare_selected()
    table = tab.compare.table()
    headers = [table.horizontalHeaderItem(c).text() for c in range(4)]
    assert headers == ["A100 80GB SXM4", "H100 SXM5 80GB", "H200 SXM 141GB", "Instinct MI300X 192GB"]
    # the full name, shown literally (catalog text goes through plain_tooltip)
    assert table.horizontalHeaderItem(3).toolTip() == plain_tooltip("AMD Instinct MI300X 192GB (mi300x)")


def test_chart_highlights_every_selected_gpu_and_merges_coinciding_labels(qtbot, tab) -> None:  # type: ignore[no-untyped-def]
    chart = tab.chart
    tab.show_chart()
    for gpu_id in FOUR:
        index = tab.proxy.mapFromSource(tab.model.index(tab.model.row_of(gpu_id), 0))
        tab.table.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows)
    sizes = {p.data(): p.size() for p in chart.scatter.points()}
    assert sorted(gpu for gpu, size in sizes.items() if size == 18) == sorted(FOUR)
    chart.set_axes("memory_gb", "memory_bandwidth_gbps")  # B300 and MI355X: 288 GB at 8,000 GB/s
    visible = [label.toPlainText() for label in chart._labels.values() if label.isVisible()]  # noqa: SLF001
    assert any("b300" in text and "mi355x" in text for text in visible), "|".join(visible)
    assert not any(text == "mi355x" for text in visible)


def test_accuracy_urls_are_cut_in_the_middle_with_the_whole_url_in_the_tooltip(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = EstimatorAccuracyView()
    qtbot.addWidget(view)
    view.set_report(load_accuracy())
    assert view.table.textElideMode() == Qt.TextElideMode.ElideMiddle
    item = view.table.item(0, URL_COLUMN)
    assert item.toolTip().startswith("https://") and item.toolTip().split("\n")[0].endswith(item.text())


def test_catalog_tab_shows_the_price_the_planner_uses_for_every_gpu(tab) -> None:  # type: ignore[no-untyped-def]
    from gpudesk.catalog import open_catalog
    from gpudesk.planner.prices import resolve_gpu_price

    catalog = open_catalog()
    column = tab.model.fields().index(next(f for f in tab.model.fields() if f.key == "price_usd"))
    for gpu in catalog.gpus():
        used = resolve_gpu_price(gpu, {}, {}, catalog.prices())
        row = tab.model.row_of(gpu.id)
        shown = tab.model.data(tab.model.index(row, column))
        expected = "N/A" if used.price_usd is None else f"{used.price_usd:,.0f}"
        assert shown == expected, gpu.id
