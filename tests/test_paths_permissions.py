"""The data folder and the database are private whatever the umask (issue 14: under umask 000 they were 0777)."""

from __future__ import annotations

import os
import stat

import pytest

from gpudesk import paths
from gpudesk.store import open_store


@pytest.mark.skipif(os.name != "posix", reason="POSIX modes")
def test_data_folder_and_database_are_private_under_umask_000(tmp_path, monkeypatch):
    data = tmp_path / "deep" / "gpudesk-data"
    monkeypatch.setenv(paths.ENV_DATA_DIR, str(data))
    old = os.umask(0)
    try:
        db = open_store()
        db.execute("create table t (x)")
        db.close()
    finally:
        os.umask(old)
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    assert stat.S_IMODE((data / "gpudesk.db").stat().st_mode) == 0o600


@pytest.mark.skipif(os.name != "posix", reason="POSIX modes")
def test_an_existing_folder_is_left_as_the_user_made_it(tmp_path, monkeypatch):
    shared = tmp_path / "team-share"
    shared.mkdir(mode=0o750)
    os.chmod(shared, 0o750)
    monkeypatch.setenv(paths.ENV_DATA_DIR, str(shared))
    assert paths.data_dir() == shared and stat.S_IMODE(shared.stat().st_mode) == 0o750
