"""Shared fixtures for the Catalog tab tests: the shipped catalog and a fresh store in an AppContext.

Import the fixture into a test module (``from helpers.catalog_tab import Notes, ctx``).
"""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.store import open_store
from gpudesk.ui.context import AppContext

from helpers.notes import Notes

__all__ = ["Notes", "ctx"]


@pytest.fixture
def ctx():
    store = open_store()
    context = AppContext(catalog=open_catalog(), store=store, notify=Notes())
    yield context
    store.close()
    context.catalog.close()
