"""A dmon stream in the window whose command dies or prints garbage (issue 14, fault scenarios): one message that
says what happened (exit status, the command's last words, or that the output was not dmon), the samples that came
before stay in view, and the window keeps answering."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from gpudesk.telemetry.core import model as m
from gpudesk.ui.context import AppContext
from gpudesk.ui.monitor import actions
from gpudesk.ui.monitor.import_dialog import ImportChoice
from gpudesk.ui.monitor.tab import MonitorTab

SAMPLE_A = Path(__file__).resolve().parents[2] / "fixtures" / "monitor_ui" / "sample_a_pucvmet.txt"


@pytest.fixture
def messages():
    return []


def stream_tab(qtbot, messages, script: str) -> MonitorTab:
    ctx = AppContext(notify=lambda text, level="info": messages.append((level, text)))
    tab = MonitorTab(ctx, autostart=False)
    qtbot.addWidget(tab, before_close_func=lambda widget: widget.shutdown())
    tab.resize(1280, 800)
    tab.show()
    command = f"{shlex.quote(sys.executable)} -c {shlex.quote(script)}"
    actions.import_dmon(tab, ImportChoice("stream", None, command, None, None, None, 1.0))
    return tab


def ended(messages) -> list[tuple[str, str]]:
    return [(level, text) for level, text in messages if level in ("warning", "error") or "ended" in text]


def the_one_end_message(qtbot, messages) -> tuple[str, str]:
    """Wait for the stream's end to be told, then check it is told once (no repeats a moment later)."""
    qtbot.waitUntil(lambda: bool(ended(messages)), timeout=20000)
    qtbot.wait(200)
    said = ended(messages)
    assert len(said) == 1, said
    return said[0]


def test_a_stream_whose_command_dies_says_its_exit_status_and_last_words(qtbot, messages):
    script = (f"import sys, time\nlines = open({str(SAMPLE_A)!r}).read().splitlines()\n"
              "print(chr(10).join(lines)); sys.stdout.flush(); time.sleep(0.3)\n"
              "sys.stderr.write('Unable to determine the device handle for GPU0000:3B:00.0: GPU is lost\\n')\n"
              "sys.exit(15)\n")
    tab = stream_tab(qtbot, messages, script)
    level, text = the_one_end_message(qtbot, messages)
    assert level in ("warning", "error")
    assert "15" in text and "GPU is lost" in text
    assert tab.ctl.buffer is not None and tab.ctl.buffer.count >= 1  # what arrived stays in view
    assert tab.ctl.buffer.series(m.GPU_UTIL)[0, 0] == 25.0
    tab.shutdown()


def test_a_stream_that_prints_garbage_says_it_is_not_dmon_and_does_not_freeze(qtbot, messages):
    script = ("import os, sys\nsys.stdout.write('\\x00\\xff<b>not dmon</b> ' * 50 + '\\n')\n"
              "sys.stdout.write(('x' * 300000) + '\\n')\n"
              "for i in range(2000): sys.stdout.write('%d %s\\n' % (i, 'nan inf -1 99999999999999999999'))\n"
              "sys.stdout.flush()\n")
    tab = stream_tab(qtbot, messages, script)
    level, text = the_one_end_message(qtbot, messages)
    assert level in ("warning", "error") and "dmon" in text
    # the window answers: a click on the tab's own toolbar is processed at once
    tab.toolbar.window_combo.setCurrentIndex(0)
    assert tab.toolbar.window_combo.currentIndex() == 0
    tab.shutdown()


def test_a_stream_command_that_is_not_found_is_a_message(qtbot, messages):
    ctx = AppContext(notify=lambda text, level="info": messages.append((level, text)))
    tab = MonitorTab(ctx, autostart=False)
    qtbot.addWidget(tab, before_close_func=lambda widget: widget.shutdown())
    actions.import_dmon(tab, ImportChoice("stream", None, "no-such-dmon-command-14 dmon", None, None, None, 1.0))
    qtbot.waitUntil(lambda: any(level == "error" for level, _ in messages), timeout=20000)
    text = next(t for level, t in messages if level == "error")
    assert "Command not found" in text and "no-such-dmon-command-14" in text
    tab.shutdown()
