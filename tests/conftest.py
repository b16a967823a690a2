"""Shared test setup: offscreen Qt, a fresh user data folder per test, opt-in packaging tests."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Before pytest-qt or any test imports PySide6: the same eager type creation as the app (gpudesk/ui/__init__.py).
os.environ.setdefault("PYSIDE6_OPTION_LAZY", "0")

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
sys.path.insert(0, str(Path(__file__).resolve().parent))


def pytest_addoption(parser):
    parser.addoption("--run-packaging", action="store_true", help="build the bundle and installers, then smoke-test them")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--run-packaging"):
        return
    skip = pytest.mark.skip(reason="packaging tests run only with --run-packaging")
    for item in items:
        if item.get_closest_marker("packaging") is not None:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _isolated_data_dir(tmp_path, monkeypatch):
    """Every test gets its own empty GPUDESK_DATA_DIR so no test reads or writes the user's files."""
    data = tmp_path / "gpudesk-data"
    monkeypatch.setenv("GPUDESK_DATA_DIR", str(data))
    return data



@pytest.fixture
def zh_cn():
    """Core messages (gettext) in Simplified Chinese for the test, the language before it restored after."""
    from gpudesk import i18n

    before = i18n.current_language()
    i18n.set_language("zh_CN")
    try:
        yield
    finally:
        i18n.set_language(before)
