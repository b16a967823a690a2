"""Prices on the Plan tab's results page: the user's prices are used, unknown prices are marked, and a quote
typed on the results page is kept in the store (as the Catalog tab keeps it) and re-plans."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from gpudesk.catalog import open_catalog
from gpudesk.planner.document import PlanOption

from gpudesk.store.prices import price_overrides, set_price
from gpudesk.ui.context import AppContext
from gpudesk.ui.plan.tab import PlanTab

from helpers.catalog_variants import ARTICLE_HOST_PRICES_USD, build_without_prices
from helpers.plan_tab import ARTICLE, Notes, ctx, tab  # noqa: F401 - fixtures
from helpers.planner_cases import ARTICLE_DEADLINE_UNDER_MODEL_S
TCO_COLUMN = 9


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    # The article case with the A100 80GB unpriced (the shipped catalog has its 2026 street / market prices).
    cat = open_catalog(build_without_prices(tmp_path_factory.mktemp("cat"), {"a100-80-sxm4-street", "a100-80-pcie-market"},
                                            ARTICLE_HOST_PRICES_USD))
    yield cat
    cat.close()




def _plan(qtbot, tab, folder):
    # The deadline the 8 x A100 meets under the speed model (helpers.planner_cases): these tests are about prices.
    text = ARTICLE.read_text(encoding="utf-8").replace("deadline_s = 604800.0",
                                                       f"deadline_s = {ARTICLE_DEADLINE_UNDER_MODEL_S}")
    assert text != ARTICLE.read_text(encoding="utf-8")
    profile = folder / "article.toml"
    profile.write_text(text, encoding="utf-8")
    tab.load_example(profile)
    with qtbot.waitSignal(tab.planReady, timeout=20000) as signal:
        qtbot.mouseClick(tab.pages.wizard.plan_button, Qt.MouseButton.LeftButton)
    # The worker's "finished" (which re-enables the button) is queued after its result (planReady).
    qtbot.waitUntil(tab.pages.wizard.plan_button.isEnabled, timeout=5000)
    return signal.args[0]


def _row_of(tab, gpu_id, count):
    candidates = tab.pages.results.plan.candidates
    for row in range(tab.pages.results.table.rowCount()):
        c = candidates[tab.pages.results.table.item(row, 0).data(Qt.ItemDataRole.UserRole)]
        if (c.gpu_id, c.count) == (gpu_id, count):
            return row
    raise AssertionError(f"{count} x {gpu_id} not in the table")


def test_unknown_price_is_marked_and_a_typed_quote_replans(qtbot, tab, ctx, tmp_path):
    result = _plan(qtbot, tab, tmp_path)
    assert result.candidates[0].gpu_id == "h100-sxm5"
    view = tab.pages.results
    assert "Price unknown for" in view.summary.text() and "NVIDIA A100 80GB SXM4" in view.summary.text()
    row = _row_of(tab, "a100-80-sxm4", 8)
    assert view.table.item(row, TCO_COLUMN).text() == "price unknown"
    view.table.selectRow(row)
    editor = view.price_editor
    assert editor.gpu_id == "a100-80-sxm4"
    assert "price unknown — enter your quote in the Catalog tab" in editor.state.text()
    assert "$25,49" in editor.state.text()  # the break-even quote
    assert "Ranking: #" in view.details.toPlainText()
    assert not editor.apply_button.isEnabled()  # nothing typed yet: no price is invented
    editor.price.setFocus()
    qtbot.keyClicks(editor.price, "17,000")
    assert editor.apply_button.isEnabled()
    with qtbot.waitSignal(tab.planReady, timeout=20000) as signal:
        qtbot.keyClick(editor.price, Qt.Key.Key_Return)  # Enter applies
    assert price_overrides(ctx.store)["a100-80-sxm4"]["price_usd"] == 17000.0
    top = signal.args[0].candidates[0]
    assert (top.gpu_id, top.count, top.price.origin) == ("a100-80-sxm4", 8, "user")
    view.table.selectRow(0)
    assert "your price, entered" in editor.state.text()
    assert editor.price.text() == "17,000" and editor.value() == 17000.0


def test_prices_from_the_catalog_tab_are_used(qtbot, tab, ctx, tmp_path):
    set_price(ctx.store, "a100-80-sxm4", 17000.0)
    result = _plan(qtbot, tab, tmp_path)
    assert result.candidates[0].gpu_id == "a100-80-sxm4"
    assert tab.pages.results.table.item(0, TCO_COLUMN).text().startswith("$")


def test_price_editor_refuses_what_is_not_a_price(qtbot):
    from gpudesk.ui.plan.price_editor import PriceEditor

    editor = PriceEditor()
    qtbot.addWidget(editor)
    editor.show_candidate(PlanOption("a100-80-sxm4", "A100", 8, price_known=False))
    for text in ("0", "abc", "99,000,000", "0.00"):
        editor.price.clear()
        qtbot.keyClicks(editor.price, text)
        assert editor.value() is None and not editor.apply_button.isEnabled(), text
    for typed, kept in (("-5", "5"), ("1e5", "15"), ("$300", "300")):  # the validator refuses the stray keys
        editor.price.clear()
        qtbot.keyClicks(editor.price, typed)
        assert editor.price.text() == kept
    received = []
    editor.priceEntered.connect(lambda gpu, usd: received.append((gpu, usd)))
    editor.price.clear()
    qtbot.keyClicks(editor.price, "12500.50")
    qtbot.keyClick(editor.price, Qt.Key.Key_Return)
    assert received == [("a100-80-sxm4", 12500.5)]


def test_without_a_store_the_editor_is_disabled(qtbot, catalog, tmp_path):
    ctx = AppContext(catalog=catalog, store=None, notify=Notes())
    widget = PlanTab(ctx)
    qtbot.addWidget(widget)
    result = _plan(qtbot, widget, tmp_path)
    assert result.candidates
    assert not widget.pages.results.price_editor.price.isEnabled()
    assert not widget.pages.results.price_editor.apply_button.isEnabled()


def test_compare_names_the_price_used(qtbot):
    from gpudesk.store.plans import SavedPlan
    from gpudesk.ui.plan.compare import CompareView

    view = CompareView()
    qtbot.addWidget(view)
    unpriced = {"gpu_id": "a100-80-sxm4", "gpu_name": "NVIDIA A100 80GB SXM4", "count": 8, "tco_3y_usd": None,
                "price_known": False, "gpu_price_text": "GPU price unknown — enter your quote in the Catalog tab",
                "tco_breakdown_usd": {"gpus": None, "hosts": 74000.0}}
    saved = SavedPlan(id=1, name="a", notes="", profile_text="", profile_format="toml", plan={"candidates": [unpriced]},
                      created_at="2026-11-30T00:00:00+00:00", updated_at="2026-11-30T00:00:00+00:00",
                      deleted_at=None, format_version=1)
    rows = dict(view.rows_for(saved))
    assert rows["3-year TCO"] == "price unknown"
    assert rows["GPU price used"].startswith("GPU price unknown")


@pytest.mark.parametrize("size", [(1280, 820), (1280, 800)])  # the main window's default size; the docs' shots
@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_price_unknown_sentence_is_wrapped_whole_in_view(qtbot, qapp, ctx, tmp_path, language, size):
    # QA: the sentence naming the unpriced options sat below the header's fold, cut through mid-line.
    from PySide6.QtGui import QTextDocument

    from gpudesk import i18n
    from gpudesk.ui import app as app_module

    before = i18n.current_language()
    translators = app_module.apply_language(qapp, language)[1] if language != "en" else []
    try:
        widget = PlanTab(ctx)
        qtbot.addWidget(widget)
        widget.resize(*size)
        widget.show()
        _plan(qtbot, widget, tmp_path)
        qtbot.wait(20)
        view = widget.pages.results
        lines = view.summary.text().split("\n")
        marker = "Price unknown for" if language == "en" else "价格未知"
        last = next(i for i, line in enumerate(lines) if marker in line and "NVIDIA A100 80GB SXM4" in line)
        layout = QTextDocument()
        layout.setDocumentMargin(0)
        layout.setDefaultFont(view.summary.font())
        layout.setTextWidth(view.summary.width())
        layout.setPlainText("\n".join(lines[:last + 1]))
        assert view.summary.wordWrap()
        assert view.summary_area.verticalScrollBar().value() == 0
        assert layout.size().height() <= view.summary_area.viewport().height() + 2, (language, lines[:last + 1])
    finally:
        for translator in translators:
            qapp.removeTranslator(translator)
        i18n.set_language(before)
