"""Shared fixtures for catalog tests: the shipped catalog, opened once per module."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog


@pytest.fixture(scope="module")
def catalog():
    cat = open_catalog()
    yield cat
    cat.close()
