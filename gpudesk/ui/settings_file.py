"""The window's settings file, or a stand-in when the user data folder cannot be created; upgraded to the current
settings version when opened (rules in :mod:`gpudesk.settings_upgrade`)."""

from __future__ import annotations

from PySide6.QtCore import QSettings

from gpudesk import paths
from gpudesk.settings_upgrade import SettingsUpgrade, upgrade_settings

SETTINGS_FILE = "settings.ini"


def upgrade(settings: QSettings) -> SettingsUpgrade:
    """Apply the upgrade rules to ``settings`` (nothing changes when it is current or from a newer gpudesk)."""
    result = upgrade_settings({key: settings.value(key) for key in settings.allKeys()})
    for key, value in result.changes.items():
        if value is None:
            settings.remove(key)
        else:
            settings.setValue(key, value)
    return result


def open_settings() -> tuple[QSettings, paths.DataDirError | None]:
    """The settings file beside the store, and None; or, when the data folder cannot be created, settings at
    the same (unwritable) place, which read as defaults and save nothing, and the error to show the user."""
    try:
        settings = QSettings(str(paths.settings_path()), QSettings.Format.IniFormat)
    except paths.DataDirError as exc:
        where = paths.data_dir(create=False) / SETTINGS_FILE
        return QSettings(str(where), QSettings.Format.IniFormat), exc
    upgrade(settings)
    return settings, None
