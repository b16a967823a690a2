"""Catalog tab, hands-on QA (issue 2): keyboard access, small windows, price undo, what the CSV says about
a user's price. Each test failed before its fix."""

from __future__ import annotations

import collections
import csv
import datetime as dt

import pytest
from PySide6.QtCore import QItemSelectionModel, QSettings, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QAbstractButton, QLabel

from gpudesk.store.prices import price_overrides
from gpudesk.ui.catalog.tab import CatalogTab
from gpudesk.ui.main_window import MainWindow

from helpers.catalog_tab import ctx  # noqa: F401 - fixture

FOUR = ("a100-80-sxm4", "h100-sxm5", "h200-sxm", "mi300x")


@pytest.fixture
def tab(qtbot, ctx):
    widget = CatalogTab(ctx)
    qtbot.addWidget(widget)
    widget.resize(1280, 800)
    widget.show()
    return widget


def select_rows(tab, ids) -> None:
    selection = tab.table.selectionModel()
    selection.clearSelection()
    for gpu_id in ids:
        index = tab.proxy.mapFromSource(tab.model.index(tab.model.row_of(gpu_id), 0))
        selection.select(index, QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows)


def _mnemonic(text: str) -> str | None:
    index = text.replace("&&", "").find("&")
    clean = text.replace("&&", "")
    return clean[index + 1].lower() if 0 <= index < len(clean) - 1 else None


def test_alt_mnemonics_are_unique_and_not_replaced_by_other_shortcuts(qtbot, tmp_path):
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    settings.setValue("main/tab", "catalog")
    window = MainWindow(settings=settings)
    qtbot.addWidget(window)
    window.resize(1280, 820)
    window.show()
    tab = window.tab(1)
    tab.select_gpu("h100-sxm5")
    for page in (tab.detail, tab.compare, tab._chart_page):  # noqa: SLF001 - every side page in turn
        tab.side.setCurrentWidget(page)
        if page is tab._chart_page:  # noqa: SLF001
            tab.chart  # noqa: B018 - built on first display
        qtbot.wait(10)
        letters = [_mnemonic(a.text()) for a in window.menuBar().actions()]
        for button in tab.findChildren(QAbstractButton):
            if button.isVisible() and _mnemonic(button.text()):
                letters.append(_mnemonic(button.text()))
                # A button given another shortcut loses its Alt mnemonic although the letter stays underlined.
                assert button.shortcut() == QKeySequence.mnemonic(button.text()), button.text()
        letters += [_mnemonic(label.text()) for label in tab.findChildren(QLabel)
                    if label.isVisible() and label.buddy() is not None and _mnemonic(label.text())]
        twice = {k: n for k, n in collections.Counter(x for x in letters if x).items() if n > 1}
        assert not twice, (type(page).__name__, twice)


def test_ctrl_d_and_ctrl_e_still_compare_and_export(tab, monkeypatch):
    keys = {s.key().toString(): s for s in tab.findChildren(QShortcut)}
    select_rows(tab, FOUR[:2])
    keys["Ctrl+D"].activated.emit()
    assert [g.id for g in tab.compare.gpus()] == list(FOUR[:2])
    asked = []
    monkeypatch.setattr("gpudesk.ui.catalog.tab.QFileDialog.getSaveFileName", lambda *a, **k: asked.append(a) or ("", ""))
    keys["Ctrl+E"].activated.emit()
    assert asked


def test_tab_order_follows_the_layout(tab):
    f = tab.filters
    expected = [f.search, f.memory_min, f.memory_max, f.vendor, f.architecture, f.form_factor, f.fp8,
                tab.reset_button, tab.compare_button, tab.export_button, tab.table, tab.side.tabBar()]
    order, widget = [], f.search
    for _ in range(400):
        if widget in expected and widget not in order:
            order.append(widget)
        widget = widget.nextInFocusChain()
        if widget is f.search:
            break
    assert order == expected


def test_memory_range_cannot_be_inverted(tab):
    tab.filters.memory_max.setValue(80)
    tab.filters.memory_min.setValue(141)  # above the maximum: held at it
    assert tab.filters.memory_min.value() == 80
    shown = {g.id for g in tab.proxy.visible_gpus()}
    assert shown and {g.memory_gb for g in tab.proxy.visible_gpus()} == {80.0} and "h100-sxm5" in shown
    tab.filters.reset()
    assert len(tab.proxy.visible_gpus()) == 97


def test_compare_of_four_in_a_1024_wide_window_keeps_every_gpu_id_readable(qtbot, tab):
    tab.resize(1024, 640)
    qtbot.wait(10)
    select_rows(tab, FOUR)
    tab.compare_selected()
    qtbot.wait(10)
    assert tab.splitter.sizes()[1] >= 0.54 * sum(tab.splitter.sizes())  # the comparison gets the room
    table = tab.compare.table()
    header = table.horizontalHeader()
    assert [table.horizontalHeaderItem(c).text() for c in range(4)] == ["A100 80GB SXM4", "H100 SXM5 80GB", "H200 SXM 141GB", "Instinct MI300X 192GB"]
    for column in range(4):
        assert header.sectionSize(column) >= header.sectionSizeFromContents(column).width(), FOUR[column]
        assert header.sectionSize(column) >= table.sizeHintForColumn(column)
    assert "vendor" in tab.compare.differing_rows()  # MI300X is AMD: highlighted


def test_export_says_a_user_price_is_the_users(tab, tmp_path):
    tab.prices.set_user_price("rtx4090", 1799.0)
    path = tmp_path / "view.csv"
    tab.export_csv(path)
    with path.open(newline="", encoding="utf-8") as handle:
        rows = {r["Id"]: r for r in csv.DictReader(handle)}
    mine, theirs = rows["rtx4090"], rows["rtx4080"]
    assert mine["Price (USD)"] == "1799.0"
    assert mine["Price date"] == dt.datetime.now(dt.timezone.utc).date().isoformat()
    assert mine["Price source"].startswith("Your own price")
    assert theirs["Price source"] != "" and not theirs["Price source"].startswith("Your own price")


def test_price_changes_can_be_undone(tab, ctx):
    tab.select_gpu("h100-sxm5")
    assert not tab.detail._undo.isEnabled()  # noqa: SLF001
    assert tab.prices.set_user_price("h100-sxm5", 21000.0)
    assert tab.prices.set_user_price("h100-sxm5", 23000.0)
    assert tab.prices.clear_user_price("h100-sxm5")
    assert "h100-sxm5" not in price_overrides(ctx.store)
    assert tab.detail._undo.isEnabled()  # noqa: SLF001
    assert tab.prices.undo_price_change()  # the clear: 23000 is back
    assert price_overrides(ctx.store)["h100-sxm5"]["price_usd"] == 23000.0
    assert tab.prices.undo_price_change()  # the second price: 21000 is back
    assert price_overrides(ctx.store)["h100-sxm5"]["price_usd"] == 21000.0
    tab.select_gpu("a100-80-sxm4")
    assert tab.prices.undo_price_change()  # the first price: none again, and the GPU it concerns is shown
    assert "h100-sxm5" not in price_overrides(ctx.store)
    assert tab.detail.gpu().id == "h100-sxm5"
    assert tab.model.override("h100-sxm5") is None
    assert not tab.detail._undo.isEnabled() and not tab.prices.undo_price_change()  # noqa: SLF001
    assert ctx.notify[-1] == ("Undone: h100-sxm5 uses the catalog price again.", "info")


def test_undo_button_undoes_through_the_pane(qtbot, tab, ctx):
    tab.select_gpu("l40s")
    assert tab.prices.set_user_price("l40s", 7000.0)
    qtbot.mouseClick(tab.detail._undo, Qt.MouseButton.LeftButton)  # noqa: SLF001
    assert "l40s" not in price_overrides(ctx.store)


def test_a_gpu_without_price_offers_no_zero_price_to_save(qtbot):
    from gpudesk.catalog import open_catalog
    from gpudesk.store import open_store
    from gpudesk.ui.catalog.tab import CatalogTab
    from gpudesk.ui.context import AppContext

    tab = CatalogTab(AppContext(catalog=open_catalog(), store=open_store()), None)
    qtbot.addWidget(tab)
    tab.select_gpu("l4")  # the catalog has no dated price for the L4
    assert tab.detail._price.value() == 0
    assert tab.detail._price.text() == "type your quote"
    assert not tab.detail._save.isEnabled()
    tab.detail._price.setValue(2500)
    assert tab.detail._save.isEnabled()
