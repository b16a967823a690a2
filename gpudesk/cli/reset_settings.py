"""``gpudesk --reset-settings``: start the window with default settings (geometry, last tab, UI preferences).

The settings file (``settings.ini`` in the user data folder) is renamed to ``settings.ini.bak`` rather than
deleted, so the step can be undone by renaming it back; the user database (plans, recordings, diagnoses, prices)
is not touched.
"""

from __future__ import annotations

import os
from pathlib import Path

from gpudesk import paths
from gpudesk.errors import GpudeskError
from gpudesk.i18n import _

BACKUP_SUFFIX = ".bak"


def reset_settings() -> str:
    """Move the settings file aside; returns one sentence saying what was done.

    Raises:
        GpudeskError: when the file exists but cannot be renamed.
    """
    settings = paths.settings_path()
    if not settings.exists():
        return _("No settings file at {path}: the window already starts with default settings.").format(
            path=settings)
    backup = Path(f"{settings}{BACKUP_SUFFIX}")
    try:
        os.replace(settings, backup)
    except OSError as exc:
        raise GpudeskError(_("The settings file could not be moved aside."), field=str(settings),
                           detail=exc.strerror or str(exc),
                           remedy=_("Check the permissions of the user data folder.")) from exc
    return _("Settings reset: {path} was moved to {backup}; your plans and recordings were not touched.").format(
        path=settings, backup=backup)
