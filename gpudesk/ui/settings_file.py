"""The window's settings file, or a stand-in when the user data folder cannot be created."""

from __future__ import annotations

from PySide6.QtCore import QSettings

from gpudesk import paths

SETTINGS_FILE = "settings.ini"


def open_settings() -> tuple[QSettings, paths.DataDirError | None]:
    """The settings file beside the store, and None; or, when the data folder cannot be created, settings at
    the same (unwritable) place, which read as defaults and save nothing, and the error to show the user."""
    try:
        return QSettings(str(paths.settings_path()), QSettings.Format.IniFormat), None
    except paths.DataDirError as exc:
        where = paths.data_dir(create=False) / SETTINGS_FILE
        return QSettings(str(where), QSettings.Format.IniFormat), exc
