"""Keyboard use of the Plan tab: no two visible mnemonics share a letter (Qt then only cycles focus instead of
acting), Enter advances the wizard and plans on the last page, and Tab on the results page follows the layout."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton, QGroupBox, QLabel, QTabWidget, QWidget

from gpudesk.ui.plan.tab import PLANS, QUICK, RESULTS, WIZARD

from helpers.plan_tab import ARTICLE, catalog, ctx, tab  # noqa: F401 - fixtures


def visible_mnemonics(root: QWidget) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}

    def add(text: str) -> None:
        match = re.search(r"&([^&])", text or "")
        if match:
            found.setdefault(match.group(1).lower(), []).append(text)

    for w in root.findChildren(QWidget):
        if not w.isVisible():
            continue
        if isinstance(w, QAbstractButton) or isinstance(w, QLabel) and w.buddy() is not None:
            add(w.text())
        elif isinstance(w, QGroupBox):
            add(w.title())
        elif isinstance(w, QTabWidget):
            for i in range(w.count()):
                add(w.tabText(i))
    return found


def clashes(root: QWidget) -> dict[str, list[str]]:
    return {k: v for k, v in visible_mnemonics(root).items() if len(v) > 1}


def test_no_mnemonic_is_shared_on_any_view(qtbot, tab):
    tab.show_view(QUICK)
    assert clashes(tab) == {}
    tab.load_example(ARTICLE)
    for page in range(len(tab.pages.wizard.pages)):
        tab.pages.wizard.go_to(page)
        assert clashes(tab) == {}, f"wizard page {page + 1}"
    with qtbot.waitSignal(tab.planReady, timeout=20000):
        tab.pages.wizard.request_plan()
    assert tab.pages.currentIndex() == RESULTS
    assert clashes(tab) == {}
    tab.save_current()
    tab.show_view(PLANS)
    assert clashes(tab) == {}


def test_enter_advances_the_wizard_and_plans_on_the_last_page(qtbot, tab):
    tab.load_example(ARTICLE)
    wizard = tab.pages.wizard
    wizard.go_to(0)
    field = wizard.pages[0].editors[next(iter(wizard.pages[0].editors))].widget
    field.setFocus()
    qtbot.keyClick(field, Qt.Key.Key_Return)
    assert wizard.current_index() == 1
    for _ in range(len(wizard.pages) - 2):
        focus = next(e.widget for e in wizard.pages[wizard.current_index()].editors.values() if e.widget.isVisible())
        qtbot.keyClick(focus, Qt.Key.Key_Enter)
    assert wizard.current_index() == len(wizard.pages) - 1
    last = next(e.widget for e in wizard.pages[-1].editors.values() if e.widget.isVisible())
    with qtbot.waitSignal(tab.planReady, timeout=20000):
        qtbot.keyClick(last, Qt.Key.Key_Return)
    assert tab.pages.currentIndex() == RESULTS


def test_enter_on_a_bad_answer_stays_and_names_it(qtbot, tab):
    tab.show_view(WIZARD)
    wizard = tab.pages.wizard
    wizard.go_to(0)
    wizard.set_field_text("data.sample_count", "twenty")
    qtbot.keyClick(wizard.editors["data.sample_count"].widget, Qt.Key.Key_Return)
    assert wizard.current_index() == 0
    assert "twenty" in wizard.problem.text()


def test_results_tab_order_follows_the_layout(qtbot, tab):
    tab.load_example(ARTICLE)
    with qtbot.waitSignal(tab.planReady, timeout=20000):
        tab.pages.wizard.request_plan()
    view = tab.pages.results
    editor = view.price_editor
    chain = [view.table, view.charts, editor.price, view.details, view.edit_button, view.save_button, view.export_button]
    for before, after in zip(chain, chain[1:]):
        widget = before.focusProxy() or before
        seen = set()
        nxt = widget.nextInFocusChain()
        while nxt not in (after, after.focusProxy()) and nxt is not widget and len(seen) < 400:
            assert not (nxt.isVisible() and nxt.focusPolicy() & Qt.FocusPolicy.TabFocus and nxt in chain), \
                f"Tab from {type(before).__name__} reaches {type(nxt).__name__} before {type(after).__name__}"
            seen.add(nxt)
            nxt = nxt.nextInFocusChain()
        assert nxt in (after, after.focusProxy())


def test_charts_are_not_tab_stops(qtbot, tab):
    import pyqtgraph as pg

    tab.show_view(QUICK)
    start = tab.bar.mode_buttons.button(0)
    widget, stops = start.nextInFocusChain(), []
    while widget is not start:
        if widget.isVisible() and widget.isEnabled() and widget.focusPolicy() & Qt.FocusPolicy.TabFocus:
            stops.append(widget)
        widget = widget.nextInFocusChain()
    def in_plot(w):
        while w is not None:
            if isinstance(w, pg.PlotWidget):
                return True
            w = w.parentWidget()
        return False

    assert stops and not [w for w in stops if in_plot(w)]
