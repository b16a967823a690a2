"""Screenshots of the Monitor tab's GPM panels (run by hand, offscreen):

    QT_QPA_PLATFORM=offscreen .venv/bin/python tools/screenshots/gpm_screenshots.py

- monitor-gpm.png: live view over the fake pynvml (faked at the pynvml boundary, the bindings' real GPM
  structures) with two H100s: GPU 0 trains (SM active ~70 %, tensor ~45 %), GPU 1 is "100 % utilized" by a
  small kernel loop (SM active ~12 %, no tensor work): the panels tell busy from productive.
- monitor-gpm-not-supported.png: an A100 (no GPM): no panel, the line says GPM is not supported on this GPU.
"""

from __future__ import annotations

import math
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
os.environ.setdefault("GPUDESK_DATA_DIR", tempfile.mkdtemp(prefix="gpudesk-shots-"))

from helpers.fake_pynvml import FakeDevice, make_fake_pynvml  # noqa: E402
from PySide6.QtCore import QTimer  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

OUT = REPO / "docs" / "screenshots"


def wait_until(predicate, timeout_s: float = 30.0) -> None:
    end = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > end:
            raise TimeoutError("screenshot state not reached")
        QTest.qWait(50)


def main() -> int:
    app = QApplication.instance() or QApplication(sys.argv)
    OUT.mkdir(parents=True, exist_ok=True)
    from gpudesk.nvml import gpm
    from gpudesk.telemetry.sources.nvml_source import NvmlSource
    from gpudesk.ui.context import AppContext
    from gpudesk.ui.monitor.tab import MonitorTab

    ctx = AppContext(notify=lambda text, level="info": print(f"[{level}] {text}"))
    devices = [FakeDevice(i, name="NVIDIA H100 80GB HBM3", util_gpu=100, gpm={}) for i in range(2)]
    fake = make_fake_pynvml(devices)
    tab = MonitorTab(ctx, nvml=fake, autostart=False)
    tab.resize(1280, 900)
    tab.show()
    tick = [0]

    def vary() -> None:
        tick[0] += 1
        k = tick[0]
        train = 70 + 15 * math.sin(k / 8)
        devices[0].gpm = {gpm.SM_UTIL: train, gpm.SM_OCCUPANCY: train * 0.45,
                          gpm.ANY_TENSOR_UTIL: 45 + 12 * math.sin(k / 8), gpm.DRAM_BW_UTIL: 55 + 10 * math.cos(k / 5),
                          gpm.GRAPHICS_UTIL: 99.0}
        devices[1].gpm = {gpm.SM_UTIL: 12 + 3 * math.sin(k / 3), gpm.SM_OCCUPANCY: 4.0, gpm.ANY_TENSOR_UTIL: 0.0,
                          gpm.DRAM_BW_UTIL: 6 + 2 * math.sin(k / 4), gpm.GRAPHICS_UTIL: 100.0}

    vary()
    timer = QTimer()
    timer.timeout.connect(vary)
    timer.start(50)
    tab.ctl.start_worker(lambda: NvmlSource(nvml=fake, interval_s=0.05), kind="nvml", title="")
    tab.toolbar.window_combo.setCurrentIndex(0)
    wait_until(lambda: tab.ctl.buffer is not None and tab.ctl.buffer.count >= 200, 60)
    timer.stop()
    tab.gpu_model.set_latest(tab.ctl.buffer.latest, tab.ctl.buffer.reasons)
    tab.plots.refresh()
    QTest.qWait(300)
    tab.grab().save(str(OUT / "monitor-gpm.png"))
    tab.shutdown()
    tab.close()

    fake = make_fake_pynvml([FakeDevice(0, name="NVIDIA A100-SXM4-80GB", util_gpu=60, gpm=None)])
    tab = MonitorTab(ctx, nvml=fake, autostart=False)
    tab.resize(1280, 900)
    tab.show()
    tab.ctl.start_worker(lambda: NvmlSource(nvml=fake, interval_s=0.05), kind="nvml", title="")
    wait_until(lambda: tab.ctl.buffer is not None and tab.ctl.buffer.count >= 20, 60)
    tab.plots.refresh()
    QTest.qWait(300)
    tab.grab().save(str(OUT / "monitor-gpm-not-supported.png"))
    tab.shutdown()
    tab.close()
    app.processEvents()
    return 0


if __name__ == "__main__":
    sys.exit(main())
