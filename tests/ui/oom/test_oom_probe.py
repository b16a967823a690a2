"""Probe a running Python process from the tab: pick it in the process list (fake NVML), probe via the agent."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from helpers.fake_pynvml import FakeDevice, FakeProcess, GiB, make_fake_pynvml

from gpudesk.nvml.nvml_session import reset_shared_sessions
from gpudesk.oom.agent import agent_available
from gpudesk.store import open_store
from gpudesk.ui.context import AppContext
from gpudesk.ui.oom.tab import OomTab
from gpudesk.ui.workers import tracker

AGENT_SCRIPT = "import gpudesk.oom.agent; gpudesk.oom.agent.install()\nimport time\nprint('ready', flush=True)\ntime.sleep(60)\n"


@pytest.fixture
def agent_process():
    proc = subprocess.Popen([sys.executable, "-c", AGENT_SCRIPT], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        deadline = time.monotonic() + 10
        while agent_available(proc.pid) is not None and time.monotonic() < deadline:
            time.sleep(0.05)
        yield proc
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        proc.stdout.close()


@pytest.fixture
def tab(qtbot):
    reset_shared_sessions()
    messages: list[tuple[str, str]] = []
    widget = OomTab(AppContext(store=open_store(), notify=lambda text, level="info": messages.append((text, level))))
    widget.messages = messages
    qtbot.addWidget(widget)
    yield widget
    reset_shared_sessions()


def test_probe_cpu_process_through_agent(qtbot, tab, agent_process):
    tab.picker.nvml = make_fake_pynvml([FakeDevice(0, compute_processes=[FakeProcess(agent_process.pid, 2 * GiB)])])
    tab.picker.refresh()
    qtbot.waitUntil(lambda: len(tab.picker.process_items()) == 1, timeout=5000)
    tab.picker.tree.setCurrentItem(tab.picker.process_items()[0])
    methods = tab.picker.methods
    qtbot.waitUntil(lambda: bool(methods.statuses), timeout=10000)
    assert methods.radios["agent"].isEnabled() and methods.radios["agent"].isChecked()
    assert "3.14" in methods.reasons["remote_exec"].text() or methods.radios["remote_exec"].isEnabled()
    asked = []
    methods.confirm = lambda title, text, warning, details: asked.append(text) or True
    methods.probe_button.click()
    assert asked == [], "the agent needs no injection, so nothing is asked"
    qtbot.waitUntil(lambda: tab.results.diagnosis is not None, timeout=20000)
    report = tab.results.diagnosis.report
    assert report.torch_imported is False
    assert "torch not imported" in tab.results.partial.text()
    assert str(agent_process.pid) in tab.results.header.text()
    assert agent_process.poll() is None, "the target keeps running"
    assert tab.history.table.rowCount() == 1


def test_evidence_only_for_a_process(qtbot, tab, agent_process):
    tab.picker.nvml = make_fake_pynvml([FakeDevice(0, compute_processes=[FakeProcess(agent_process.pid, 2 * GiB)])])
    with qtbot.waitSignal(tab.picker.methods.evidenceRequested, timeout=2000):
        tab.picker.methods.pid = agent_process.pid
        tab.picker.methods.evidence_button.setEnabled(True)
        tab.picker.methods.evidence_button.click()
    qtbot.waitUntil(lambda: tab.results.diagnosis is not None, timeout=20000)
    report = tab.results.diagnosis.report
    assert report.pid == agent_process.pid
    assert tab.results.bars.bars, "NVML figures give a bar"
    assert "NVML used by process 2.00 GiB" in tab.results.bars.captions[0].text()


def test_probe_of_vanished_process_is_reported(qtbot, tab):
    from gpudesk.ui.oom.method_choice import ProbeRequest

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait(timeout=10)
    tab.probe(ProbeRequest(gone.pid, "agent", False, False))
    qtbot.waitUntil(lambda: any(level in ("error", "warning") for _t, level in tab.messages), timeout=10000)
    assert tab.busy.isHidden() and tab.cancel_button.isHidden()
    text = " ".join(t for t, _level in tab.messages)
    assert str(gone.pid) in text
    assert tab.results.diagnosis is None, "no made-up result"


def test_cancel_ignores_the_late_result(qtbot, tab, agent_process):
    tab.picker.nvml = make_fake_pynvml([FakeDevice(0, compute_processes=[FakeProcess(agent_process.pid, 2 * GiB)])])
    tab.picker.evidenceRequested.emit(agent_process.pid)  # samples for EVIDENCE_DURATION_S
    assert not tab.cancel_button.isHidden()
    tab.cancel_button.click()
    assert "Cancelled" in tab.status.text()
    qtbot.waitUntil(lambda: tracker().pending() == 0, timeout=20000)
    qtbot.wait(50)
    assert tab.results.diagnosis is None, "a cancelled job's result is not shown"
    assert tab.history.table.rowCount() == 0
    assert agent_process.poll() is None
