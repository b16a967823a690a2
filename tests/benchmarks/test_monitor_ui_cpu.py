"""CPU use of the whole app while the Monitor tab watches 8 (and 64) GPUs at 1 Hz over the fake pynvml (issue 4
aim: under 3 % of one core; issue 15 aim: at or below nvitop's CPU at 1 Hz for 8 GPUs, 1.85 % of a core measured
side by side on the same fake NVML in the issue; figures for 64 GPUs reported too).

Run with: .venv/bin/python -m pytest tests/benchmarks/test_monitor_ui_cpu.py --benchmark-enable -q -s
With --benchmark-enable, and where nvitop is installed (bench extra, `make bench`), the same test also runs
nvitop's terminal UI (``--monitor full --interval 1``) over the same fake NVML in a pseudo-terminal, at the same
time, reads its CPU time from /proc over the same seconds, and reports both and their ratio
(tests/benchmarks/nvitop_on_fake_nvml.py says what it fakes; measuring both at once keeps the machine's changing
speed out of the ratio).
It measures time.process_time() (every thread of this process: GUI, sampler, Qt) over 20 s of monitoring with
the plots visible and following, counted from 4 s after the tab's start as nvitop's from 4 s after its own, in a plain Qt event loop; with the default --benchmark-disable it measures 3 s only and checks a loose
bound. The figure covers the app's Python and Qt work, not the real NVML driver calls.
"""

from __future__ import annotations

import os
import subprocess
import signal
import sys
import time
from pathlib import Path

import pytest
from helpers.fake_pynvml import FakeDevice, make_fake_pynvml
from PySide6.QtCore import QEventLoop, QTimer

from gpudesk.ui.context import AppContext
from gpudesk.ui.monitor.tab import MonitorTab


NVITOP_IN_PTY = Path(__file__).with_name("nvitop_in_pty.py")
WARMUP_S = 4.0  # with --benchmark-enable, each program runs this long (imports, first screens) before its CPU counts


def _process_cpu_s(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (Linux /proc/<pid>/stat fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class NvitopRunning:
    """nvitop's terminal UI at 1 Hz over the same fake NVML, in a pseudo-terminal drained by a process of its
    own (tests/benchmarks/nvitop_in_pty.py); :meth:`cpu_s` reads its CPU seconds from /proc."""

    def __init__(self, n_gpus: int):
        self.started = time.monotonic()
        self.process = subprocess.Popen([sys.executable, str(NVITOP_IN_PTY), str(n_gpus)], stdout=subprocess.PIPE,
                                        text=True)
        assert self.process.stdout is not None
        self.pid = int(self.process.stdout.readline())

    def cpu_s(self) -> float:
        return _process_cpu_s(self.pid)

    def stop(self) -> None:
        """Stop nvitop; fails unless its screen showed the fake GPUs (it really ran)."""
        self.process.send_signal(signal.SIGTERM)
        out, _err = self.process.communicate(timeout=30)
        assert out.strip() == "shown", out[-2000:]


def _nvitop_installed() -> bool:
    try:
        import nvitop  # noqa: F401 - the reference is measured only where it is installed
    except ImportError:
        return False
    return sys.platform.startswith("linux")


@pytest.mark.parametrize("n_gpus", [8, 64])
def test_cpu_while_monitoring_gpus_at_1hz(qtbot, benchmark, n_gpus):
    enabled = not benchmark.disabled
    seconds = 20.0 if enabled else 3.0
    # nvitop runs over the same seconds as gpudesk (both see the same machine; ~1 % of a core each on 2 cores)
    nvitop = NvitopRunning(n_gpus) if enabled and _nvitop_installed() else None
    if enabled and nvitop is None:
        print("nvitop is not installed: no reference measured")
    try:
        fake = make_fake_pynvml([FakeDevice(i) for i in range(n_gpus)])
        tab_started = time.monotonic()
        tab = MonitorTab(AppContext(), nvml=fake)
        qtbot.addWidget(tab, before_close_func=lambda w: w.shutdown())
        tab.resize(1280, 800)
        tab.show()
        qtbot.waitUntil(lambda: tab.ctl.buffer is not None and tab.ctl.buffer.count >= 1, timeout=8000)
        qtbot.wait(1500)  # past start-up
        if enabled:  # each program's CPU is counted from the same time after its own start
            since = min(time.monotonic() - tab_started, time.monotonic() - nvitop.started if nvitop else 1e9)
            qtbot.wait(max(0, int((WARMUP_S - since) * 1000)))
        nvitop_s: list[float] = []

        def measure() -> float:
            # A plain event loop, as in the app (qtbot.wait polls in 10 ms steps and would add its own cost).
            loop = QEventLoop()
            QTimer.singleShot(int(seconds * 1000), loop.quit)
            nv0 = nvitop.cpu_s() if nvitop is not None else 0.0
            cpu0, wall0 = time.process_time(), time.monotonic()
            loop.exec()
            cpu1, wall1 = time.process_time(), time.monotonic()
            if nvitop is not None:
                nvitop_s.append((nvitop.cpu_s() - nv0) / (wall1 - wall0) * 100.0)
            return (cpu1 - cpu0) / (wall1 - wall0) * 100.0

        ticks_before = tab.ctl.buffer.count
        cpu_pct = benchmark.pedantic(measure, rounds=1, iterations=1)
    finally:
        if nvitop is not None:
            nvitop.stop()
    benchmark.extra_info["cpu_pct_of_one_core"] = round(cpu_pct, 2)
    benchmark.extra_info["seconds"] = seconds
    benchmark.extra_info["gpus"] = n_gpus
    print(f"\nCPU while monitoring {n_gpus} GPUs at 1 Hz: {cpu_pct:.2f} % of one core over {seconds:.0f} s")
    assert tab.ctl.buffer.count - ticks_before >= int(seconds) - 1  # it really sampled once a second
    if nvitop_s:
        reference = nvitop_s[0]
        benchmark.extra_info["nvitop_cpu_pct_of_one_core"] = round(reference, 2)
        benchmark.extra_info["ratio_to_nvitop"] = round(cpu_pct / reference, 2)
        print(f"nvitop --monitor full --interval 1 on the same fake NVML, over the same seconds: {reference:.2f} % "
              f"of one core; ratio {cpu_pct / reference:.2f}x (aim <= 1x)")
    # The aim is 3 %; measured 3.1-3.4 % on the shared 2-core build machine (load ~1.6). The bound
    # guards against regressions (e.g. redrawing twice per tick, or re-measuring table columns every tick).
    assert cpu_pct < (6.0 if enabled else 25.0) * (1 if n_gpus <= 8 else 2)
