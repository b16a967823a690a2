"""GPUDESK_EXIT_AFTER_PAINT: the documented hook that quits right after the window's first paint."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PySide6.QtWidgets import QLabel

from gpudesk.ui.first_paint import FirstPaintWatcher, exit_after_first_paint_requested

REPO = Path(__file__).resolve().parents[2]


def test_watcher_fires_once_after_the_first_paint(qtbot):
    label = QLabel("painted?")
    qtbot.addWidget(label)
    watcher = FirstPaintWatcher(label)
    fired: list[float] = []
    watcher.painted.connect(fired.append)
    before = time.time()
    with qtbot.waitSignal(watcher.painted, timeout=5000):
        label.show()
    label.update()
    qtbot.wait(50)
    assert len(fired) == 1
    assert before <= fired[0] == watcher.painted_at <= time.time()


def test_watcher_stays_silent_while_hidden(qtbot):
    label = QLabel("never shown")
    qtbot.addWidget(label)
    watcher = FirstPaintWatcher(label)
    qtbot.wait(100)
    assert watcher.painted_at is None


@pytest.mark.parametrize(("value", "expected"), [("", False), ("0", False), ("1", True), ("yes", True)])
def test_env_switch(monkeypatch, value, expected):
    monkeypatch.setenv("GPUDESK_EXIT_AFTER_PAINT", value)
    assert exit_after_first_paint_requested() is expected


@pytest.mark.slow
def test_app_quits_after_first_paint(tmp_path):
    env = dict(os.environ, GPUDESK_EXIT_AFTER_PAINT="1", QT_QPA_PLATFORM="offscreen", GPUDESK_DATA_DIR=str(tmp_path))
    started = time.time()
    result = subprocess.run([sys.executable, "-m", "gpudesk"], capture_output=True, text=True, env=env, cwd=REPO,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    stamp = [line for line in result.stderr.splitlines() if line.startswith("gpudesk: first paint at ")]
    assert len(stamp) == 1, result.stderr
    assert started < float(stamp[0].rsplit(" ", 1)[1]) < time.time()
    assert (tmp_path / "gpudesk.db").is_file()  # first run created the user database in the data folder
