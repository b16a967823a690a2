"""Issue 14's crafted dmon logs imported in the window (the CLI cases are in tests/telemetry/test_telemetry_dmon.py):
GPU index -1 (np.bincount's traceback before), 2,000,000,000 (a 14.9 GiB allocation), inf dates, a '-' index, a
pmon log, 309-digit values and utilization 250. Each gives one message naming the line and field, or a history
whose impossible values are N/A."""

from __future__ import annotations

import numpy as np
import pytest

from gpudesk.telemetry.core import model as m
from gpudesk.ui.context import AppContext
from gpudesk.ui.monitor import actions
from gpudesk.ui.monitor.import_dialog import ImportChoice
from gpudesk.ui.monitor.tab import MonitorTab

DT_HEADER = "#Date       Time        gpu     sm    mem\n#YYYYMMDD   HH:MM:SS    Idx      %      %\n"
FIRST = "20240101 00:00:00      0     10     20\n"

REFUSED = {  # the whole log is refused with the line and field named
    "index-minus-1": ("20240101 00:00:01     -1     10     20", "-1"),
    "index-2e9": ("20240101 00:00:01 2000000000 10     20", "2000000000"),
    "inf-date": ("1e999    00:00:01      0     10     20", "inf"),
}


def import_tab(qtbot, messages, tmp_path, text: str) -> MonitorTab:
    ctx = AppContext(notify=lambda t, level="info": messages.append((level, t)))
    tab = MonitorTab(ctx, autostart=False)
    qtbot.addWidget(tab, before_close_func=lambda widget: widget.shutdown())
    path = tmp_path / "crafted.log"
    path.write_text(text, encoding="utf-8")
    actions.import_dmon(tab, ImportChoice("file", str(path), None, None, None, None, 1.0))
    return tab


@pytest.mark.parametrize("name", list(REFUSED))
def test_impossible_row_is_one_message_naming_the_line(qtbot, tmp_path, name):
    row, words = REFUSED[name]
    messages: list[tuple[str, str]] = []
    tab = import_tab(qtbot, messages, tmp_path, DT_HEADER + FIRST + row + "\n")
    qtbot.waitUntil(lambda: any(level == "error" for level, _ in messages), timeout=20000)
    errors = [t for level, t in messages if level == "error"]
    assert len(errors) == 1 and "Line 4" in errors[0] and words in errors[0], errors
    assert "Traceback" not in errors[0] and "bincount" not in errors[0]
    tab.shutdown()


def test_pmon_log_is_refused_clearly(qtbot, tmp_path):
    messages: list[tuple[str, str]] = []
    text = "# gpu        pid  type    sm   mem   enc   dec   command\n# Idx          #   C/G     %     %     %     %   name\n" \
           "    0      12345     C    90    40     -     -   python\n"
    tab = import_tab(qtbot, messages, tmp_path, text)
    qtbot.waitUntil(lambda: any(level == "error" for level, _ in messages), timeout=20000)
    assert "pmon" in next(t for level, t in messages if level == "error")
    tab.shutdown()


def test_dash_index_huge_values_and_250_percent_load_with_na(qtbot, tmp_path):
    messages: list[tuple[str, str]] = []
    text = (DT_HEADER + FIRST + "20240101 00:00:01      -     10     20\n"
            "20240101 00:00:02      0    250     20\n" + "20240101 00:00:03      0     " + "9" * 309 + "     20\n"
            "20240101 00:00:04      0     30     20\n")
    tab = import_tab(qtbot, messages, tmp_path, text)
    qtbot.waitUntil(lambda: tab.ctl.buffer is not None and tab.ctl.loaded is not None
                    or any(level == "error" for level, _ in messages), timeout=20000)
    assert tab.ctl.buffer is not None, messages
    util = tab.ctl.buffer.series(m.GPU_UTIL)[:tab.ctl.buffer.count, 0]
    finite = util[np.isfinite(util)]
    assert (finite <= 100).all() and 10.0 in finite and 30.0 in finite  # 250 % and 10^309 are N/A, not plotted
    tab.shutdown()
