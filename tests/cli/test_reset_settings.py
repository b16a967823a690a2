"""``gpudesk --reset-settings`` moves settings.ini aside (undoable) and never touches the user database."""

from __future__ import annotations

import os

import pytest

from gpudesk import paths
from gpudesk.cli import main


def test_reset_moves_the_settings_aside_and_keeps_the_user_database(capsys):
    settings = paths.settings_path()
    settings.write_text("[main]\ntab=3\n", encoding="utf-8")
    store = paths.store_path()
    store.write_bytes(b"SQLite format 3\x00 plans")
    assert main(["--reset-settings"]) == 0
    out = capsys.readouterr().out
    assert not settings.exists()
    assert (settings.parent / "settings.ini.bak").read_text(encoding="utf-8") == "[main]\ntab=3\n"
    assert store.read_bytes() == b"SQLite format 3\x00 plans"
    assert str(settings) in out and "settings.ini.bak" in out


def test_reset_without_a_settings_file_says_so(capsys):
    assert main(["--reset-settings"]) == 0
    assert "already starts with default settings" in capsys.readouterr().out


@pytest.mark.skipif(os.geteuid() == 0, reason="root may rename files in a read-only folder")
def test_reset_in_a_read_only_folder_is_a_clear_error(capsys):
    settings = paths.settings_path()
    settings.write_text("[main]\n", encoding="utf-8")
    settings.parent.chmod(0o500)
    try:
        assert main(["--reset-settings"]) == 1
    finally:
        settings.parent.chmod(0o700)
    err = capsys.readouterr().err
    assert "could not be moved aside" in err and "permissions" in err
    assert settings.exists()
