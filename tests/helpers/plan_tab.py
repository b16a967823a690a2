"""Shared fixtures for the Plan tab tests: the shipped catalog, a fresh store, a PlanTab at 1280x800.

Import the fixtures into a test module (``from helpers.plan_tab import ARTICLE, Notes, catalog, ctx, tab``).
"""

from __future__ import annotations

import pytest

from gpudesk import paths
from gpudesk.catalog import open_catalog
from gpudesk.store import open_store
from gpudesk.ui.context import AppContext
from gpudesk.ui.plan.tab import PlanTab

from helpers.notes import Notes

__all__ = ["ARTICLE", "Notes", "catalog", "ctx", "tab"]

ARTICLE = paths.examples_dir() / "article-13b-finetune.toml"


@pytest.fixture(scope="module")
def catalog():
    cat = open_catalog()
    yield cat
    cat.close()


@pytest.fixture
def ctx(catalog):
    store = open_store()
    context = AppContext(catalog=catalog, store=store, notify=Notes())
    yield context
    store.close()


@pytest.fixture
def tab(qtbot, ctx):
    widget = PlanTab(ctx)
    qtbot.addWidget(widget)
    widget.resize(1280, 800)
    widget.show()
    return widget
