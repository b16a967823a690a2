"""Save the Monitor tab with the shipped zh_CN translation installed (run by hand, offscreen):

    QT_QPA_PLATFORM=offscreen .venv/bin/python tools/screenshots/monitor_i18n_screenshots.py

- monitor-zh_CN.png: live view over the fake pynvml with 4 GPUs whose readings change (sampled fast so the
  picture fills in seconds), with the read-out at one moment.
- monitor-findings-zh_CN.png: the bundled demo (one real dmon sampling round) on the Findings sub-tab.
- monitor-no-gpu-zh_CN.png: NVML init failing with DriverNotLoaded.

1280x800, a throw-away data folder. CJK glyphs need a CJK font (Debian: fonts-noto-cjk).
"""

from __future__ import annotations

import math
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ["GPUDESK_DATA_DIR"] = tempfile.mkdtemp(prefix="gpudesk-shots-")

from helpers.fake_pynvml import FakeDevice, make_fake_pynvml  # noqa: E402
from monitor_screenshots import wait_until  # noqa: E402
from PySide6.QtCore import QTimer  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from zh_cn_app import SIZE, zh_cn_app  # noqa: E402

OUT = REPO / "docs" / "screenshots"


def main() -> int:
    app = zh_cn_app()
    if app is None:
        return 1
    OUT.mkdir(parents=True, exist_ok=True)
    from gpudesk.catalog import open_catalog
    from gpudesk.telemetry.sources.nvml_source import NvmlSource
    from gpudesk.ui.context import AppContext
    from gpudesk.ui.monitor import actions
    from gpudesk.ui.monitor.tab import MonitorTab

    ctx = AppContext(catalog=open_catalog(), notify=lambda text, level="info": print(f"[{level}] {text}"))
    devices = [FakeDevice(i, name="NVIDIA A100-SXM4-80GB") for i in range(4)]
    devices[3].faults["nvmlDeviceGetPowerUsage"] = "NotSupported"
    fake = make_fake_pynvml(devices)
    tab = MonitorTab(ctx, nvml=fake, autostart=False)
    tab.resize(*SIZE)
    tab.show()
    tick = [0]

    def vary() -> None:
        tick[0] += 1
        k = tick[0]
        for d in devices:
            i = d.index
            d.util_gpu = int(max(0, min(100, 80 + 18 * math.sin(k / 9 + i) - (60 if (k // 25 + i) % 6 == 0 else 0))))
            d.util_memory = d.util_gpu // 2
            d.memory_used = int((40 + 3 * i + 4 * math.sin(k / 30)) * 1024**3)
            d.pcie_rx_kb = int(max(0, 9e6 + 6e6 * math.sin(k / 4 + i)))
            d.pcie_tx_kb = int(max(0, 1.5e6 + 1e6 * math.sin(k / 6 + i)))
            d.power_mw = int((150 + 2.2 * d.util_gpu) * 1000)
            d.temperature_c = 45 + d.util_gpu // 3
            d.sm_clock_mhz = 1410 - (200 if d.util_gpu > 95 else 0)

    timer = QTimer()
    timer.timeout.connect(vary)
    timer.start(50)
    tab.ctl.start_worker(lambda: NvmlSource(nvml=fake, interval_s=0.05), kind="nvml", title="")
    tab.toolbar.window_combo.setCurrentIndex(0)
    wait_until(lambda: tab.ctl.buffer is not None and tab.ctl.buffer.count >= 200, 60)
    timer.stop()
    tab.gpu_model.set_latest(tab.ctl.buffer.latest, tab.ctl.buffer.reasons)  # what the 1 Hz refresh shows
    tab.plots.refresh()
    QTest.qWait(300)
    mid = float(tab.ctl.buffer.times[-40])
    tab.plots.set_crosshair(mid)
    tab.plots.crosshairMoved.emit(mid)  # as the pointer over the plots
    QTest.qWait(100)
    path = OUT / "monitor-zh_CN.png"
    tab.grab().save(str(path))
    print(path)
    tab.shutdown()
    tab.close()

    tab = MonitorTab(ctx, autostart=False)
    tab.resize(*SIZE)
    tab.show()
    actions.play_demo(tab)
    wait_until(lambda: tab.ctl.loaded is not None)
    wait_until(lambda: tab.findings.tree.topLevelItemCount() > 0)
    tab.subtabs.setCurrentWidget(tab.findings)
    tab.findings.tree.setCurrentItem(tab.findings.tree.topLevelItem(0))
    QTest.qWait(300)
    path = OUT / "monitor-findings-zh_CN.png"
    tab.grab().save(str(path))
    print(path)
    tab.shutdown()
    tab.close()

    tab = MonitorTab(ctx, nvml=make_fake_pynvml([], init_error="DriverNotLoaded"))
    tab.resize(*SIZE)
    tab.show()
    wait_until(lambda: tab.stack.currentIndex() == 0 and tab.ctl.nvml_status is not None)
    QTest.qWait(200)
    path = OUT / "monitor-no-gpu-zh_CN.png"
    tab.grab().save(str(path))
    print(path)
    tab.shutdown()
    tab.close()
    app.processEvents()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
