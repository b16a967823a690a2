"""The user data folder: an unusable ``GPUDESK_DATA_DIR`` is a clear GpudeskError, not a raw OSError."""

from __future__ import annotations

import pytest

from gpudesk import paths
from gpudesk.errors import GpudeskError


@pytest.fixture
def data_dir_under_a_file(tmp_path, monkeypatch):
    """GPUDESK_DATA_DIR pointing inside a regular file (the new-user test's /tmp/x/file.md/data)."""
    blocker = tmp_path / "file.md"
    blocker.write_text("# notes\n", encoding="utf-8")
    monkeypatch.setenv(paths.ENV_DATA_DIR, str(blocker / "data"))
    return blocker / "data"


def test_an_unusable_data_folder_is_a_data_dir_error_naming_the_setting(data_dir_under_a_file):
    with pytest.raises(paths.DataDirError) as caught:
        paths.settings_path()
    error = caught.value
    assert isinstance(error, GpudeskError)
    assert error.field == paths.ENV_DATA_DIR
    assert str(data_dir_under_a_file) in error.message
    assert "GPUDESK_DATA_DIR" in (error.remedy or "")
    assert "Not a directory" in (error.detail or "")


def test_the_folder_is_named_without_creating_it(data_dir_under_a_file):
    assert paths.data_dir(create=False) == data_dir_under_a_file


def test_a_usable_folder_is_created(tmp_path, monkeypatch):
    monkeypatch.setenv(paths.ENV_DATA_DIR, str(tmp_path / "a" / "b"))
    assert paths.store_path() == tmp_path / "a" / "b" / "gpudesk.db"
    assert (tmp_path / "a" / "b").is_dir()
