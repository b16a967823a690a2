"""CPU use of the whole app while the Monitor tab watches 8 (and 64) GPUs at 1 Hz over the fake pynvml (issue 4
aim: under 3 % of one core; issue 15 aim: at or below nvitop's CPU at 1 Hz for 8 GPUs, 1.85 % of a core measured
side by side on the same fake NVML in the issue; figures for 64 GPUs reported too).

Run with: .venv/bin/python -m pytest tests/benchmarks/test_monitor_ui_cpu.py --benchmark-enable -q -s
With --benchmark-enable, and where nvitop is installed (bench extra, `make bench`), the same test then runs nvitop's terminal UI
(``--monitor full --interval 1``) over the same fake NVML in a pseudo-terminal for as long, reads its CPU time
from /proc, and reports both and their ratio (tests/benchmarks/nvitop_on_fake_nvml.py says what it fakes).
It measures time.process_time() (every thread of this process: GUI, sampler, Qt) over 20 s of monitoring with
the plots visible and following, in a plain Qt event loop; with the default --benchmark-disable it measures 3 s only and checks a loose
bound. The figure covers the app's Python and Qt work, not the real NVML driver calls.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import time
from pathlib import Path

import pytest
from helpers.fake_pynvml import FakeDevice, make_fake_pynvml
from PySide6.QtCore import QEventLoop, QTimer

from gpudesk.ui.context import AppContext
from gpudesk.ui.monitor.tab import MonitorTab


NVITOP_LAUNCHER = Path(__file__).with_name("nvitop_on_fake_nvml.py")


def _process_cpu_s(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (Linux /proc/<pid>/stat fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def nvitop_cpu_pct(n_gpus: int, seconds: float, warmup_s: float = 4.0) -> float:
    """nvitop's CPU (% of one core) at 1 Hz over the fake NVML, in a 60 x 200 pseudo-terminal."""
    import fcntl
    import pty
    import struct
    import termios

    pid, fd = pty.fork()
    if pid == 0:  # the child: nvitop in the terminal
        os.environ["TERM"] = "xterm-256color"
        os.execv(sys.executable, [sys.executable, str(NVITOP_LAUNCHER), str(n_gpus)])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 60, 200, 0, 0))
    screen = bytearray()

    def read_for(duration_s: float) -> None:
        end = time.monotonic() + duration_s
        while time.monotonic() < end:
            if select.select([fd], [], [], 0.1)[0]:
                try:
                    screen.extend(os.read(fd, 65536))
                except OSError:  # the terminal closed: nvitop has ended
                    return

    try:
        read_for(warmup_s)
        cpu0, wall0 = _process_cpu_s(pid), time.monotonic()
        read_for(seconds)
        cpu1, wall1 = _process_cpu_s(pid), time.monotonic()
    finally:
        os.kill(pid, signal.SIGTERM)
        os.waitpid(pid, 0)
        os.close(fd)
    assert b"NVITOP" in screen and b"A100" in screen, bytes(screen[-2000:])  # it really showed the fake GPUs
    return (cpu1 - cpu0) / (wall1 - wall0) * 100.0


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
    if enabled and sys.platform.startswith("linux"):
        try:
            import nvitop  # noqa: F401 - the reference is measured only where it is installed
        except ImportError:
            print("nvitop is not installed: no reference measured")
        else:
            reference = nvitop_cpu_pct(n_gpus, seconds)
            benchmark.extra_info["nvitop_cpu_pct_of_one_core"] = round(reference, 2)
            benchmark.extra_info["ratio_to_nvitop"] = round(cpu_pct / reference, 2)
            print(f"nvitop --monitor full --interval 1 on the same fake NVML: {reference:.2f} % of one core; "
                  f"ratio {cpu_pct / reference:.2f}x (aim <= 1x)")
    # The aim is 3 %; measured 3.1-3.4 % on the shared 2-core build machine (load ~1.6). The bound
    # guards against regressions (e.g. redrawing twice per tick, or re-measuring table columns every tick).
    assert cpu_pct < (6.0 if enabled else 25.0) * (1 if n_gpus <= 8 else 2)
