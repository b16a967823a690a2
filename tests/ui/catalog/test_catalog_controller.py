"""CatalogPrices (the Catalog tab's controller): your prices and their undo, without any widget."""

from __future__ import annotations

from gpudesk.store import open_store
from gpudesk.ui.catalog.controller import CatalogPrices
from gpudesk.ui.context import AppContext


def test_set_clear_and_undo_keep_the_store_and_the_signals_in_step(qtbot):
    messages, changed, undo_texts, undone = [], [], [], []
    ctx = AppContext(store=open_store(), notify=lambda text, level="info": messages.append((level, text)))
    prices = CatalogPrices(ctx)
    prices.priceChanged.connect(changed.append)
    prices.undoChanged.connect(undo_texts.append)
    prices.undone.connect(undone.append)
    assert prices.set_user_price("h100-sxm5", 21000.0)
    assert prices.set_user_price("h100-sxm5", 23000.0)
    assert prices.overrides["h100-sxm5"]["price_usd"] == 23000.0
    assert prices.clear_user_price("h100-sxm5") and "h100-sxm5" not in prices.overrides
    assert prices.undo_price_change() and prices.overrides["h100-sxm5"]["price_usd"] == 23000.0
    assert prices.undo_price_change() and prices.overrides["h100-sxm5"]["price_usd"] == 21000.0
    assert prices.undo_price_change() and "h100-sxm5" not in prices.overrides
    assert not prices.undo_price_change()  # nothing left to undo
    assert changed == ["h100-sxm5"] * 6 and undone == ["h100-sxm5"] * 3
    assert undo_texts[-1] is None
    assert all(level == "info" for level, _ in messages)


def test_without_a_store_nothing_is_kept_and_the_user_is_told(qtbot):
    messages = []
    prices = CatalogPrices(AppContext(store=None, notify=lambda text, level="info": messages.append((level, text))))
    assert not prices.set_user_price("a10", 1000.0)
    assert messages and messages[0][0] == "warning"
