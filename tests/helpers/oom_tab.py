"""An OOM doctor tab on a fresh user store, with the messages it posts collected (OOM tab tests share it)."""

from __future__ import annotations

from gpudesk.store import open_store
from gpudesk.ui.context import AppContext
from gpudesk.ui.oom.tab import OomTab


def make_oom_tab(qtbot) -> OomTab:  # type: ignore[no-untyped-def]
    """The tab at 1280 x 800, not yet shown; ``tab.messages`` holds (text, level) of every message it posts."""
    messages: list[tuple[str, str]] = []
    ctx = AppContext(store=open_store(), notify=lambda text, level="info": messages.append((text, level)))
    widget = OomTab(ctx)
    widget.messages = messages  # type: ignore[attr-defined]
    qtbot.addWidget(widget)
    widget.resize(1280, 800)
    return widget
