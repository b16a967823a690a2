"""The Processes sub-tab: SM and memory-bandwidth shares and container per process (from fake NVML at the pynvml
boundary), and stopping one's own process after a confirmation, never another user's."""

from __future__ import annotations

import os
import subprocess
import sys

from helpers.fake_pynvml import FakeDevice, FakeProcess, make_fake_pynvml
from PySide6.QtCore import Qt

from gpudesk.nvml.nvml_session import NvmlSession
from gpudesk.telemetry.core import process_control
from gpudesk.telemetry.core.process_use import process_use
from gpudesk.ui.monitor.process_table import ProcessTable

GiB = 1024**3


def _table_with(pid: int, qtbot) -> ProcessTable:
    fake = make_fake_pynvml([FakeDevice(0, util_gpu=80, util_memory=50,
                                        compute_processes=[FakeProcess(pid, 3 * GiB)], process_util=[(pid, 70, 45)])])
    with NvmlSession(fake) as session:
        listing = process_use(session)
    table = ProcessTable()
    qtbot.addWidget(table)
    table.set_listing(listing)
    return table


def test_shares_are_shown_per_process(qtbot):
    table = _table_with(os.getpid(), qtbot)
    model = table.model
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert headers[7:] == ["SM share (%)", "Memory bandwidth share (%)", "Container", "Memory trend (GiB/min)"]
    assert model.index(0, 7).data() == "70" and model.index(0, 8).data() == "45"


def test_stop_own_process_after_confirmation_only(qtbot):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        table = _table_with(child.pid, qtbot)
        p = table.process_at(0)
        assert table.stop_refusal(p.pid) is None
        asked: list[str] = []
        assert not table.request_stop(p, False, ask=lambda text: asked.append(text) or False)  # "Cancel"
        assert child.poll() is None and "Terminate process" in asked[0]
        assert table.request_stop(p, False, ask=lambda text: True)
        qtbot.waitUntil(lambda: child.poll() is not None, timeout=10000)
        qtbot.waitUntil(lambda: "ended (SIGTERM)" in table.notes.text(), timeout=10000)
    finally:
        if child.poll() is None:
            child.kill()
        child.wait(10)


def test_another_users_process_cannot_be_stopped(qtbot, monkeypatch):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        table = _table_with(child.pid, qtbot)
        other = os.getuid() + 4242
        monkeypatch.setattr(process_control.os, "getuid", lambda: other)
        why = table.stop_refusal(child.pid)
        assert why is not None and "another user" in why
    finally:
        child.kill()
        child.wait(10)


def test_memory_over_time_per_process(qtbot):
    from gpudesk.nvml.nvml_processes import GpuProcess

    table = ProcessTable()
    qtbot.addWidget(table)
    for k in range(4):  # a process whose memory grows 0.5 GiB every 30 s: +1.00 GiB/min
        table.model.set_processes([GpuProcess(4242, 0, None, "compute", int((10 + 0.5 * k) * GiB),
                                              cmdline="python train.py")], t=1_750_000_000.0 + 30 * k)
    trend = table.model.index(0, 10)
    assert trend.data() == "+1.00"
    assert "Peak 11.50 GiB over 4 readings" in trend.data(Qt.ItemDataRole.ToolTipRole)
    # the same PID now runs another command: a new history, no trend from one reading
    table.model.set_processes([GpuProcess(4242, 0, None, "compute", 2 * GiB, cmdline="python eval.py")],
                              t=1_750_000_200.0)
    assert table.model.index(0, 10).data() == "N/A"
