"""The Language menu: English, 简体中文 or the system's language, saved in the app's settings.

The choice applies the next time gpudesk starts (the window's texts are set once, when each part is built);
:func:`gpudesk.ui.app.run_app` reads it with :func:`saved_language` and loads the Qt translation and the core's
catalog (:func:`gpudesk.i18n.set_language`) for the same language.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu, QWidget

from gpudesk.i18n import LANGUAGES

#: QSettings key of the chosen language: one of LANGUAGES, or "" to follow the system locale.
SETTINGS_KEY = "ui/language"
#: Each language is named in itself, so a user can find theirs whatever the current language is.
LANGUAGE_NAMES = {"en": "English", "zh_CN": "简体中文"}


def saved_language(settings: QSettings) -> str | None:
    """The language chosen in the menu, or None to follow the system locale (also for an unknown value)."""
    value = settings.value(SETTINGS_KEY, "")
    return value if isinstance(value, str) and value in LANGUAGES else None


class LanguageMenu(QMenu):
    """Checkable entries, one per language plus "System language"; choosing one saves it and says that it
    applies after a restart through ``notify(text, level)``."""

    def __init__(self, settings: QSettings, notify: Callable[[str, str], None], parent: QWidget | None = None):
        super().__init__(self.tr("&Language"), parent)
        self.settings = settings
        self._notify = notify
        self._group = QActionGroup(self)
        self._group.setExclusive(True)
        current = saved_language(settings) or ""
        choices = [("", self.tr("System language"))] + [(code, LANGUAGE_NAMES.get(code, code)) for code in LANGUAGES]
        for code, name in choices:
            action = QAction(name, self)
            action.setCheckable(True)
            action.setChecked(code == current)
            action.setData(code)
            action.triggered.connect(lambda _checked=False, c=code: self.choose(c))
            self._group.addAction(action)
            self.addAction(action)

    def choose(self, code: str) -> None:
        """Save ``code`` ("" = system language) and tell the user it applies after a restart."""
        if code == (saved_language(self.settings) or ""):
            return
        self.settings.setValue(SETTINGS_KEY, code)
        self.settings.sync()
        for action in self._group.actions():
            action.setChecked(action.data() == code)
        self._notify(self.tr("The language changes the next time gpudesk starts."), "info")
