"""The main window: opens with a missing catalog or a corrupt store and says so; remembers geometry and
the last tab; Help > About shows the data sources with the Epoch AI attribution."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QLabel

from gpudesk import paths
from gpudesk.catalog import open_catalog
from gpudesk.ui import main_window as main_window_module
from gpudesk.ui.about import EPOCH_ATTRIBUTION, AboutDialog
from gpudesk.ui.catalog.tab import CatalogTab
from gpudesk.ui.context import AppContext
from gpudesk.ui.main_window import MainWindow


@pytest.fixture
def settings(tmp_path):
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


def _catalog_tab(window: MainWindow) -> CatalogTab:
    for index in range(window.tabs.count()):
        widget = window.tab(index)
        if isinstance(widget, CatalogTab):
            return widget
    raise AssertionError("no Catalog tab")


def test_opens_with_a_missing_catalog(qtbot, monkeypatch, tmp_path, settings):
    monkeypatch.setenv("GPUDESK_CATALOG", str(tmp_path / "gone" / "catalog.db"))
    window = MainWindow(settings=settings)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: "catalog" in window.startup.ran, timeout=20000)  # opened after the first paint
    assert window.ctx.catalog is None
    assert window.message_bar.isVisible()
    assert "catalog.db is missing" in window.message_bar.text()
    assert "make catalog" in window.message_bar.text()
    tab = _catalog_tab(window)
    assert "is missing" in tab.unavailable.text()


def test_opens_with_a_corrupt_store(qtbot, settings):
    store = paths.store_path()
    store.write_bytes(b"garbage, not a database " * 200)
    window = MainWindow(settings=settings)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.startup.done, timeout=20000)  # the store opens after the first paint
    assert window.ctx.store is None and window.ctx.catalog is not None
    assert "not a readable gpudesk database" in window.message_bar.text()
    assert store.read_bytes().startswith(b"garbage")  # left untouched
    tab = _catalog_tab(window)
    assert len(tab.proxy.visible_gpus()) == len(window.ctx.catalog.gpus())  # the whole catalog, prices or not
    tab.select_gpu("h100-sxm5")
    assert not tab.detail._save.isEnabled()


def test_geometry_and_last_tab_are_remembered(qtbot, monkeypatch, settings):
    # Two tabs so that "last tab" is observable whatever other tabs are registered.
    monkeypatch.setattr(main_window_module, "TAB_CLASSES", [("gpudesk.ui.plan.tab", "PlanTab", "Plan"),
                                                            ("gpudesk.ui.catalog.tab", "CatalogTab", "Catalog")])
    first = MainWindow(settings=settings)
    qtbot.addWidget(first)
    first.show()
    first.resize(701, 543)  # inside the 800-pixel offscreen screen, above the minimum size
    first.tabs.setCurrentIndex(1)
    qtbot.wait(10)
    first.close()
    assert settings.value("main/tab") == "catalog"  # by name (settings version 1)
    second = MainWindow(settings=settings)
    qtbot.addWidget(second)
    second.show()
    assert second.tabs.currentIndex() == 1
    assert (second.width(), second.height()) == (701, 543)


def test_bad_saved_tab_value_falls_back(qtbot, settings):
    settings.setValue("main/tab", "not-a-number")
    window = MainWindow(settings=settings)
    qtbot.addWidget(window)
    assert window.tabs.currentIndex() == 0


def test_about_dialog_lists_sources_and_attribution(qtbot):
    catalog = open_catalog()
    dialog = AboutDialog(AppContext(catalog=catalog), None)
    qtbot.addWidget(dialog)
    assert dialog.attribution.text() == EPOCH_ATTRIBUTION
    assert dialog.attribution.textFormat() == Qt.TextFormat.PlainText
    table = dialog.sources_table
    names = [table.item(r, 0).text() for r in range(table.rowCount())]
    assert "Epoch AI: Data on Machine Learning Hardware" in names
    licences = [table.item(r, 1).text() for r in range(table.rowCount())]
    assert any("CC BY 4.0" in text for text in licences)
    notices = [dialog.notices_table.item(r, 0).text() + " " + dialog.notices_table.item(r, 1).text()
               for r in range(dialog.notices_table.rowCount())]
    for expected in ("PySide6", "LGPL", "pyqtgraph MIT", "nvidia-ml-py (pynvml) BSD", "sqlite-utils Apache-2.0",
                     "psutil BSD", "platformdirs MIT"):
        assert any(expected in n for n in notices), expected
    texts = " ".join(label.text() for label in dialog.findChildren(QLabel))
    assert "gpudesk 0." in texts and "MIT License" in texts
    catalog.close()


def test_about_dialog_without_catalog_still_attributes(qtbot):
    ctx = AppContext(catalog=None, problems=["The GPU catalog x is missing."])
    dialog = AboutDialog(ctx, None)
    qtbot.addWidget(dialog)
    assert dialog.sources_table is None
    assert dialog.attribution.text() == EPOCH_ATTRIBUTION
    texts = " ".join(label.text() for label in dialog.findChildren(QLabel))
    assert "The GPU catalog x is missing." in texts


def test_help_menu_opens_about(qtbot, settings, monkeypatch):
    window = MainWindow(settings=settings)
    qtbot.addWidget(window)
    shown = []
    monkeypatch.setattr(AboutDialog, "exec", lambda self: shown.append(self.windowTitle()) or 0)
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    next(a for a in help_menu.actions() if "About" in a.text()).trigger()
    assert shown == ["About gpudesk and data sources"]


def test_tabs_are_built_when_first_shown(qtbot, settings):
    window = MainWindow(settings=settings)
    qtbot.addWidget(window)
    window.show()
    pages = [window.tabs.widget(i) for i in range(window.tabs.count())]
    current = window.tabs.currentIndex()
    qtbot.waitUntil(lambda: pages[current].content is not None, timeout=20000)  # right after the first paint
    assert all(not p.built for i, p in enumerate(pages) if i != current)
    other = (current + 1) % window.tabs.count()
    window.tabs.setCurrentIndex(other)
    assert pages[other].content is not None


def test_a_broken_tab_reports_and_others_work(qtbot, monkeypatch, settings):
    monkeypatch.setattr(main_window_module, "TAB_CLASSES", [
        ("gpudesk.ui.catalog.tab", "CatalogTab", "Catalog"),
        ("gpudesk.ui.no_such_module", "Nothing", "Broken"),
    ])
    window = MainWindow(settings=settings)
    qtbot.addWidget(window)
    window.show()
    assert window.tab(1) is None
    assert "could not be opened" in window.tabs.widget(1).error
    assert "could not be opened" in window.message_bar.text()
    assert isinstance(window.tab(0), CatalogTab)


def test_a_background_task_failure_nobody_handles_shows_in_the_message_bar(qtbot, settings):
    from gpudesk.store.errors import StoreUnwritableError
    from gpudesk.ui.workers import run_task

    window = MainWindow(AppContext(catalog=open_catalog()), settings=settings)
    qtbot.addWidget(window)
    window.show()

    def save():
        raise StoreUnwritableError("Cannot write /nowhere/gpudesk.db.", remedy="Set GPUDESK_DATA_DIR to a writable folder.")

    run_task(save)
    qtbot.waitUntil(lambda: "Cannot write /nowhere/gpudesk.db." in window.message_bar.text(), timeout=5000)
    assert window.message_bar.isVisible()
    assert "GPUDESK_DATA_DIR" in window.message_bar.text()
