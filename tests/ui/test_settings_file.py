"""gpudesk/ui/settings_file.py: an old settings.ini (before the settings version, issue 31) is upgraded when it is
opened, by the window or by open_settings, and the window reopens the tab the file named."""

from __future__ import annotations

from PySide6.QtCore import QSettings

from gpudesk import paths
from gpudesk.settings_upgrade import SETTINGS_VERSION, V0_TAB_ORDER, VERSION_KEY
from gpudesk.ui.catalog.tab import CatalogTab
from gpudesk.ui.main_window import MainWindow
from gpudesk.ui.settings_file import open_settings
from gpudesk.ui.tabs import TAB_CLASSES, tab_name

# settings.ini as gpudesk wrote it before the version: the Catalog tab (index 1) last open, tray on, Chinese.
V0_INI = "[alerts]\ntray=true\n\n[main]\ntab=1\n\n[ui]\nlanguage=zh_CN\n"


def test_open_settings_upgrades_an_old_file_and_keeps_its_other_keys():
    paths.settings_path().write_text(V0_INI, encoding="utf-8")
    settings, error = open_settings()
    assert error is None
    assert settings.value("main/tab") == "catalog"
    assert int(settings.value(VERSION_KEY)) == SETTINGS_VERSION
    assert settings.value("ui/language") == "zh_CN" and settings.value("alerts/tray") == "true"
    settings.sync()
    text = paths.settings_path().read_text(encoding="utf-8")
    assert "tab=catalog" in text and f"version={SETTINGS_VERSION}" in text


def test_the_window_reopens_the_old_files_tab_and_saves_it_by_name(qtbot, tmp_path):
    ini = tmp_path / "settings.ini"
    ini.write_text(V0_INI, encoding="utf-8")
    settings = QSettings(str(ini), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings)
    qtbot.addWidget(window)
    assert isinstance(window.tab(window.tabs.currentIndex()), CatalogTab)
    window.close()
    assert QSettings(str(ini), QSettings.Format.IniFormat).value("main/tab") == "catalog"


def test_a_newer_file_is_read_and_not_downgraded(tmp_path):
    ini = tmp_path / "settings.ini"
    ini.write_text(f"[main]\ntab=monitor\n\n[settings]\nversion={SETTINGS_VERSION + 1}\n", encoding="utf-8")
    settings = QSettings(str(ini), QSettings.Format.IniFormat)
    from gpudesk.ui.settings_file import upgrade

    assert upgrade(settings).newer
    assert int(settings.value(VERSION_KEY)) == SETTINGS_VERSION + 1 and settings.value("main/tab") == "monitor"


def test_every_tab_an_old_file_can_name_is_still_a_tab():
    assert set(V0_TAB_ORDER) <= {tab_name(module_name) for module_name, _, _ in TAB_CLASSES}
