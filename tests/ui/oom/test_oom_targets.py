"""Target picker of the OOM doctor: GPU processes over the fake pynvml, method choice, launch command parsing."""

from __future__ import annotations

import getpass
import os

import pytest
from helpers.fake_pynvml import GiB, FakeDevice, FakeProcess, make_fake_pynvml

from gpudesk.nvml.nvml_session import reset_shared_sessions
from gpudesk.ui.oom.launch_panel import LaunchPanel, split_command
from gpudesk.ui.oom.method_choice import MethodChoice
from gpudesk.ui.oom.target_picker import TargetPicker

MiB = 1024**2
GONE_PID = 4_000_001  # above Linux's PID_MAX_LIMIT: a host PID seen from a container


@pytest.fixture(autouse=True)
def _fresh_nvml_sessions():
    reset_shared_sessions()
    yield
    reset_shared_sessions()


def _fake():
    return make_fake_pynvml(
        [
            FakeDevice(
                0,
                name="NVIDIA A100-SXM4-80GB",
                compute_processes=[FakeProcess(os.getpid(), 37 * GiB), FakeProcess(GONE_PID, 1200 * MiB)],
            ),
            FakeDevice(1, name="NVIDIA A100-SXM4-80GB", compute_processes=[FakeProcess(os.getpid(), None)]),
            FakeDevice(2, name="NVIDIA A100-SXM4-80GB", faults={"nvmlDeviceGetComputeRunningProcesses": "NoPermission",
                                                               "nvmlDeviceGetGraphicsRunningProcesses": "NoPermission"}),
        ]
    )


def _loaded_picker(qtbot, nvml):
    picker = TargetPicker(nvml=nvml)
    qtbot.addWidget(picker)
    picker.refresh()
    qtbot.waitUntil(lambda: picker.refresh_button.isEnabled() and picker.tree.topLevelItemCount() > 0, timeout=5000)
    return picker


def test_process_list_over_fake_nvml(qtbot):
    picker = _loaded_picker(qtbot, _fake())
    assert picker.tree.topLevelItemCount() == 3
    gpu0 = picker.tree.topLevelItem(0).text(0)
    assert "GPU 0" in gpu0 and "NVIDIA A100-SXM4-80GB" in gpu0 and "80.00 GiB total" in gpu0
    mine = [item for item in picker.process_items() if item.text(0) == str(os.getpid())]
    assert len(mine) == 2
    # sorted by memory, biggest first; our own process has our user and command line
    first = picker.tree.topLevelItem(0).child(0)
    assert first.text(0) == str(os.getpid())
    assert first.text(2) == "37.00 GiB"
    assert first.text(1) == getpass.getuser()
    assert "pytest" in first.text(4) or "python" in first.text(4)
    # memory NVML cannot report is N/A, never 0
    on_gpu1 = picker.tree.topLevelItem(1).child(0)
    assert on_gpu1.text(2) == "N/A"
    # a PID that does not exist here is listed but cannot be selected
    gone = [item for item in picker.process_items() if item.text(0) == str(GONE_PID)][0]
    assert not (gone.flags() & gone.flags().ItemIsSelectable)
    assert "container" in gone.toolTip(4)
    # GPU 2's processes are unreadable: its row says why
    assert "NoPermission" in picker.tree.topLevelItem(2).child(0).text(0)
    assert not picker.warnings.isHidden()
    assert "not available" in picker.warnings.text()


def test_nvml_missing_is_reported(qtbot):
    picker = TargetPicker(nvml=make_fake_pynvml(init_error="DriverNotLoaded"))
    qtbot.addWidget(picker)
    with qtbot.waitSignal(picker.failed, timeout=5000) as blocker:
        picker.refresh()
    assert "Cannot list GPU processes" in blocker.args[0]
    assert picker.tree.topLevelItemCount() == 0
    qtbot.waitUntil(picker.refresh_button.isEnabled)


def test_command_lines_are_plain_text(qtbot):
    picker = _loaded_picker(qtbot, _fake())
    first = picker.tree.topLevelItem(0).child(0)
    # tooltips with outside text are escaped so Qt never renders them as rich text
    assert first.toolTip(4).startswith("<p style='white-space:pre-wrap'>")


def test_selecting_a_process_checks_the_methods(qtbot):
    picker = _loaded_picker(qtbot, _fake())
    first = picker.tree.topLevelItem(0).child(0)
    picker.tree.setCurrentItem(first)
    assert picker.methods.pid == os.getpid()
    qtbot.waitUntil(lambda: bool(picker.methods.statuses), timeout=10000)
    assert set(picker.methods.statuses) == {"agent", "remote_exec", "gdb"}
    for name, radio in picker.methods.radios.items():
        status = picker.methods.statuses.get(name)
        if status is not None:
            assert radio.isEnabled() == bool(status.usable)
            if not status.usable:
                assert picker.methods.reasons[name].text(), f"{name} disabled without a reason"


def test_gdb_asks_and_warns_before_injecting(qtbot):
    choice = MethodChoice()
    qtbot.addWidget(choice)
    asked = []
    choice.confirm = lambda title, text, warning, details: asked.append((title, text, warning, details)) or False
    choice.pid = 1234
    choice.description = "(train.py, me)"
    from types import SimpleNamespace

    choice._statuses_ready(
        choice._generation,
        [
            SimpleNamespace(name="agent", usable=False, reason="no agent answers on its socket", invasive=False, warning=None),
            SimpleNamespace(name="remote_exec", usable=False, reason="target runs Python 3.11; needs 3.14", invasive=True, warning=None),
            SimpleNamespace(name="gdb", usable=True, reason="", invasive=True, warning="gdb pauses the process; it may crash"),
        ],
    )
    assert not choice.radios["agent"].isEnabled()
    assert "3.14" in choice.reasons["remote_exec"].text()
    assert choice.radios["gdb"].isChecked()
    emitted = []
    choice.probeRequested.connect(emitted.append)
    choice.probe_button.click()
    assert asked and asked[0][2] is True and "may crash" in asked[0][1] and "1234" in asked[0][1]
    assert "def collect" in asked[0][3], "the probe's exact source is shown before it runs"
    assert emitted == []  # the user said no
    choice.confirm = lambda title, text, warning, details: True
    choice.probe_button.click()
    assert emitted and emitted[0].method == "gdb" and emitted[0].pid == 1234


def test_launch_command_is_split_like_a_shell(qtbot):
    assert split_command('python train.py --name "my run"') == ["python", "train.py", "--name", "my run"]
    with pytest.raises(ValueError):
        split_command("   ")
    panel = LaunchPanel()
    qtbot.addWidget(panel)
    panel.command.setText('python -c "print(1')
    with qtbot.assertNotEmitted(panel.launchRequested):
        panel.launch_button.click()
    assert "quotation" in panel.error.text().lower() or "Cannot read the command" in panel.error.text()
    panel.command.setText("python -V")
    with qtbot.waitSignal(panel.launchRequested) as blocker:
        panel.launch_button.click()
    assert blocker.args == [["python", "-V"], "", 0.5]


@pytest.mark.gpu
def test_process_list_over_real_nvml(qtbot):
    from gpudesk.nvml.nvml_session import probe_nvml

    status = probe_nvml()
    if not status.available:
        pytest.skip(f"no NVIDIA GPU here: {status.message}")
    picker = TargetPicker()
    qtbot.addWidget(picker)
    picker.refresh()
    qtbot.waitUntil(lambda: picker.refresh_button.isEnabled() and picker.tree.topLevelItemCount() > 0, timeout=10000)
    assert picker.tree.topLevelItemCount() == status.device_count
    assert "GiB total" in picker.tree.topLevelItem(0).text(0)
