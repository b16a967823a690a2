"""Every file location gpudesk reads or writes.

``GPUDESK_DATA_DIR`` overrides the user data folder (tests and portable installs use it). Bundled,
read-only files (the catalog, examples, the demo recording, icons, translations) live in the repository's
``resources/`` folder, which is found in three places: ``gpudesk/resources`` in an installed wheel (setup.py maps
``resources/`` there), ``sys._MEIPASS/resources`` in a PyInstaller bundle, and beside the package in a source
checkout or an editable install.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from gpudesk import APP_NAME
from gpudesk.errors import GpudeskError
from gpudesk.i18n import _

ENV_DATA_DIR = "GPUDESK_DATA_DIR"

_PACKAGE_DIR = Path(__file__).resolve().parent


def package_dir() -> Path:
    """The installed ``gpudesk`` package folder."""
    return _PACKAGE_DIR


def bundle_root() -> Path:
    """Root of the read-only install: the PyInstaller unpack folder, or the source checkout."""
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        return Path(frozen)
    return _PACKAGE_DIR.parent


def resources_dir() -> Path:
    """The ``resources/`` folder (icons, examples, demo recording, translations, notices, self-test inputs)."""
    installed = _PACKAGE_DIR / "resources"  # pip/pipx install of the wheel
    if getattr(sys, "_MEIPASS", None) is None and installed.is_dir():
        return installed
    return bundle_root() / "resources"


def examples_dir() -> Path:
    """Bundled example profiles (``resources/examples``)."""
    return resources_dir() / "examples"


def catalog_path() -> Path:
    """The bundled, read-only GPU catalog (``gpudesk/catalog/catalog.db``)."""
    override = os.environ.get("GPUDESK_CATALOG")
    if override:
        return Path(override)
    return _PACKAGE_DIR / "catalog" / "catalog.db"


class DataDirError(GpudeskError):
    """The user data folder cannot be created: settings, plans, recordings and diagnoses cannot be saved."""


def data_dir(create: bool = True) -> Path:
    """The user's data folder (platformdirs user data dir, or ``$GPUDESK_DATA_DIR``), created private (0700).

    Raises:
        DataDirError: when ``create`` is true and the folder cannot be created (a path under a file, no
            permission, a full or read-only disk).
    """
    override = os.environ.get(ENV_DATA_DIR)
    if override:
        path = Path(override).expanduser()
    else:
        import platformdirs  # here, not at the top: opening the catalog needs no data folder (start-up time)

        path = Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
    if create and not path.is_dir():
        try:
            # 0700 whatever the umask (umask 000 would otherwise leave plans and recordings open to every local user)
            path.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.chmod(path, 0o700)
        except OSError as exc:
            remedy = (_("Set {env} to a folder you can write to.").format(env=ENV_DATA_DIR) if override else
                      _("Check the permissions of {path}, or set {env} to a folder you can write to.").format(
                          path=path, env=ENV_DATA_DIR))
            raise DataDirError(
                _("The user data folder {path} cannot be created, so settings, plans and recordings cannot be "
                  "saved.").format(path=path),
                field=ENV_DATA_DIR if override else str(path), detail=exc.strerror or str(exc), remedy=remedy,
            ) from exc
    return path


def cache_dir() -> Path:
    """The folder of files gpudesk can make again (the speed check's finished summaries): ``cache`` inside
    ``$GPUDESK_DATA_DIR`` when that is set (tests and portable installs keep everything in one place), else
    platformdirs' user cache dir. Not created here."""
    override = os.environ.get(ENV_DATA_DIR)
    if override:
        return Path(override).expanduser() / "cache"
    import platformdirs  # here, not at the top (start-up time)

    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))


def store_path() -> Path:
    """The user's SQLite database (plans, recordings, diagnoses, price overrides)."""
    return data_dir() / "gpudesk.db"


def settings_path() -> Path:
    """INI file for window geometry and UI preferences (kept beside the store)."""
    return data_dir() / "settings.ini"
