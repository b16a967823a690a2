"""The Language menu (gpudesk/ui/language_menu.py) and the start-up's language choice (gpudesk/ui/app.py): the
window's Qt translation and the core's messages follow the same language."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QCoreApplication, QLocale, QSettings

from gpudesk import i18n
from gpudesk.ui import app as app_module
from gpudesk.ui.language_menu import SETTINGS_KEY, LanguageMenu, saved_language
from gpudesk.ui.main_window import MainWindow

CORE_MESSAGE = "gpudesk: --self-test takes no other arguments"


@pytest.fixture
def settings(tmp_path):
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def restore_language(qapp, monkeypatch):
    before_core, before_locale = i18n.current_language(), QLocale()
    installed = []
    yield installed
    for translator in installed:
        qapp.removeTranslator(translator)
    QLocale.setDefault(before_locale)
    monkeypatch.undo()
    i18n.set_language(before_core)


def test_choosing_a_language_saves_it_and_says_it_applies_after_restart(qtbot, settings, tmp_path):
    said = []
    menu = LanguageMenu(settings, lambda text, level: said.append((text, level)))
    qtbot.addWidget(menu)
    names = [a.text() for a in menu.actions()]
    assert names == ["System language", "English", "简体中文"]
    assert [a.isChecked() for a in menu.actions()] == [True, False, False]
    menu.actions()[2].trigger()
    assert saved_language(settings) == "zh_CN"
    assert said == [("The language changes the next time gpudesk starts.", "info")]
    assert [a.isChecked() for a in menu.actions()] == [False, False, True]
    reread = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)  # written to disk
    assert saved_language(reread) == "zh_CN"
    menu.actions()[2].trigger()  # the same choice again: nothing to say
    assert len(said) == 1
    menu.actions()[0].trigger()
    assert saved_language(settings) is None and settings.value(SETTINGS_KEY) == ""


def test_a_saved_choice_is_checked_and_a_bad_value_means_system(qtbot, settings):
    settings.setValue(SETTINGS_KEY, "en")
    menu = LanguageMenu(settings, lambda *_: None)
    qtbot.addWidget(menu)
    assert [a.isChecked() for a in menu.actions()] == [False, True, False]
    settings.setValue(SETTINGS_KEY, "tlh")
    assert saved_language(settings) is None


def test_main_window_has_the_language_menu(qtbot, settings):
    window = MainWindow(settings=settings)
    qtbot.addWidget(window)
    titles = [a.text() for a in window.menuBar().actions()]
    assert "&Language" in titles
    window.language_menu.actions()[2].trigger()
    assert "next time gpudesk starts" in window.message_bar.text()


def test_choose_language_order(settings, monkeypatch):
    monkeypatch.delenv("GPUDESK_LANG", raising=False)
    assert app_module.choose_language(None, settings) is None
    monkeypatch.setenv("GPUDESK_LANG", "zh_CN")
    assert app_module.choose_language(None, settings) == "zh_CN"
    settings.setValue(SETTINGS_KEY, "en")
    assert app_module.choose_language(None, settings) == "en"  # the menu's choice beats the variable
    assert app_module.choose_language("zh_CN", settings) == "zh_CN"  # --lang beats both
    monkeypatch.setenv("GPUDESK_LANG", "xx")
    settings.setValue(SETTINGS_KEY, "")
    assert app_module.choose_language(None, settings) is None


def test_apply_language_turns_window_and_core_chinese(qapp, restore_language):
    name, translators = app_module.apply_language(qapp, "zh_CN")
    restore_language.extend(translators)
    assert name == "zh_CN"
    assert any(t.filePath().endswith("gpudesk_zh_CN.qm") for t in translators)
    assert QCoreApplication.translate("MainWindow", "Plan") == "规划"
    assert i18n._(CORE_MESSAGE) == "gpudesk：--self-test 不接受其他参数"
    assert QLocale().name() == "zh_CN"


def test_apply_language_english_keeps_both_english(qapp, restore_language):
    name, translators = app_module.apply_language(qapp, "en")
    restore_language.extend(translators)
    assert name == "en"
    assert not any(t.filePath().endswith("gpudesk_zh_CN.qm") for t in translators)
    assert QCoreApplication.translate("MainWindow", "Plan") == "Plan"
    assert i18n._(CORE_MESSAGE) == CORE_MESSAGE


def test_apply_language_follows_a_chinese_system_locale(qapp, restore_language, monkeypatch):
    class ChineseSystem(QLocale):
        @staticmethod
        def system() -> QLocale:
            return QLocale("zh_CN")

    monkeypatch.setattr(app_module, "QLocale", ChineseSystem)
    name, translators = app_module.apply_language(qapp, None)
    restore_language.extend(translators)
    assert name == "zh_CN"
    assert QCoreApplication.translate("MainWindow", "Plan") == "规划"
    assert i18n._(CORE_MESSAGE) != CORE_MESSAGE
