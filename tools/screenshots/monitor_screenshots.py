"""Screenshots of the Monitor tab for docs/screenshots/monitor-*.png (run by hand, offscreen):

    QT_QPA_PLATFORM=offscreen .venv/bin/python tools/screenshots/monitor_screenshots.py

- monitor-live.png: live view over the fake pynvml with 8 GPUs whose readings change over time (sampled fast
  so the picture fills in seconds; GPU 5 reports power as NotSupported, drawn as a gap and N/A).
- monitor-heatmap.png, monitor-dmon-findings.png, monitor-stats.png: a synthetic 24-hour, 8-GPU dmon log in the
  real dmon format (``-s pucvmet -o DT`` layout of Sample A) imported with the GPU model picked from the
  catalog; GPU 6 idles half the time and GPU 3 has a stretch of '-' values.
- monitor-no-gpu.png: NVML init failing with DriverNotLoaded.
- monitor-demo-plots.png, monitor-demo-findings.png, monitor-demo-heatmap.png: the bundled demo, a generated
  5-minute run of 4 GPUs (tools/make_demo_recording.py): a job-wide stall and GPU 3's thermal throttling.
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


def wait_until(predicate, timeout_s: float = 20.0) -> None:
    end = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > end:
            raise TimeoutError("screenshot state not reached")
        QTest.qWait(50)


def synthetic_dmon(path: Path, hours: float = 24.0, step_s: int = 30) -> None:
    """Write a dmon log (Sample A's column layout with -o DT) for 8 GPUs; values follow a training run."""
    header = ("#Date       Time      gpu   pwr  temp    sm   mem   enc   dec  mclk  pclk pviol tviol    fb  bar1 "
              "sbecc dbecc   pci rxpci txpci")
    units = ("#YYYYMMDD   HH:MM:SS  Idx     W     C     %     %     %     %   MHz   MHz     %  bool    MB    MB  "
             "errs  errs  errs  MB/s  MB/s")
    start = 1_767_000_000
    lines = [header, units]
    for k in range(int(hours * 3600 / step_s)):
        t = start + k * step_s
        stamp = time.strftime("%Y%m%d %H:%M:%S", time.gmtime(t))
        epoch_phase = (k * step_s / 3600.0) % 1.0  # one epoch per hour, evaluation in the last 8 %
        for g in range(8):
            busy = 92 + 6 * math.sin(k / 7 + g) if epoch_phase < 0.92 else 15
            if g == 6 and (k // 40) % 2:
                busy = 4  # waits for the others (imbalance)
            rx = 9000 + 4000 * math.sin(k / 5 + g) if busy > 50 else 200
            sm = f"{busy:.0f}"
            rxpci = "-" if (g == 3 and 1200 < k < 1500) else f"{rx:.0f}"
            lines.append(f"{stamp} {g:>4} {180 + busy * 1.2:5.0f} {55 + busy / 4:5.0f} {sm:>5} {busy / 2:5.0f}"
                         f"     0     0  1512  {1200 + busy * 2:4.0f}     0     0 {60000 + busy * 100:5.0f}     2"
                         f"     0     0     0 {rxpci:>5} {rx / 8:5.0f}")
    path.write_text("\n".join(lines) + "\n")


def main() -> int:
    app = QApplication.instance() or QApplication(sys.argv)
    OUT.mkdir(parents=True, exist_ok=True)
    from gpudesk.catalog import open_catalog
    from gpudesk.telemetry.sources.nvml_source import NvmlSource
    from gpudesk.ui.context import AppContext
    from gpudesk.ui.monitor import actions
    from gpudesk.ui.monitor.import_dialog import ImportChoice
    from gpudesk.ui.monitor.tab import MonitorTab

    catalog = open_catalog()
    ctx = AppContext(catalog=catalog, notify=lambda text, level="info": print(f"[{level}] {text}"))

    # --- live, 8 fake GPUs --------------------------------------------------------------------------------
    devices = [FakeDevice(i, name="NVIDIA A100-SXM4-80GB") for i in range(8)]
    devices[5].faults["nvmlDeviceGetPowerUsage"] = "NotSupported"
    fake = make_fake_pynvml(devices)
    tab = MonitorTab(ctx, nvml=fake, autostart=False)
    tab.resize(1280, 800)
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
    wait_until(lambda: tab.ctl.buffer is not None and tab.ctl.buffer.count >= 300, 60)
    timer.stop()
    tab.gpu_model.set_latest(tab.ctl.buffer.latest, tab.ctl.buffer.reasons)  # what the 1 Hz refresh shows
    tab.plots.refresh()
    QTest.qWait(300)
    mid = float(tab.ctl.buffer.times[-40])
    tab.plots.set_crosshair(mid)
    tab.plots.crosshairMoved.emit(mid)  # as the pointer over the plots
    QTest.qWait(100)
    tab.grab().save(str(OUT / "monitor-live.png"))
    tab.shutdown()
    tab.close()

    # --- dmon import: findings, heat map, statistics ------------------------------------------------------
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "burn-in-node7.log"
        synthetic_dmon(log)
        tab = MonitorTab(ctx, autostart=False)
        tab.resize(1280, 800)
        tab.show()
        gpu = catalog.find_gpu("a100 80gb pcie")
        actions.import_dmon(tab, ImportChoice("file", str(log), None, gpu, gpu.pcie_gen, gpu.pcie_lanes, 30.0))
        wait_until(lambda: tab.ctl.loaded is not None)
        wait_until(lambda: tab.findings.tree.topLevelItemCount() > 0 and bool(tab.stats.stats))
        tab.subtabs.setCurrentWidget(tab.findings)
        QTest.qWait(200)
        tab.grab().save(str(OUT / "monitor-dmon-findings.png"))
        tab.subtabs.setCurrentWidget(tab.heatmap)
        QTest.qWait(300)
        tab.grab().save(str(OUT / "monitor-heatmap.png"))
        tab.subtabs.setCurrentIndex(0)
        tab.stats.span_button.setChecked(True)
        wait_until(lambda: "Span" in tab.stats.label.text())
        tab.subtabs.setCurrentWidget(tab.stats)
        QTest.qWait(200)
        tab.grab().save(str(OUT / "monitor-stats.png"))
        tab.subtabs.setCurrentIndex(0)
        QTest.qWait(200)
        tab.grab().save(str(OUT / "monitor-dmon-plots.png"))
        tab.shutdown()
        tab.close()

    # --- the demo: a generated 5-minute run ---------------------------------------------------------------------
    tab = MonitorTab(ctx, autostart=False)
    tab.resize(1280, 800)
    tab.show()
    actions.play_demo(tab)
    wait_until(lambda: tab.ctl.loaded is not None)
    wait_until(lambda: tab.findings.tree.topLevelItemCount() > 0 and bool(tab.stats.stats))
    QTest.qWait(300)
    tab.plots.set_crosshair(0.0)
    tab.plots.crosshairMoved.emit(0.0)  # as the pointer over the plots
    QTest.qWait(100)
    tab.grab().save(str(OUT / "monitor-demo-plots.png"))
    tab.subtabs.setCurrentWidget(tab.findings)
    tab.findings.tree.setCurrentItem(tab.findings.tree.topLevelItem(0))
    QTest.qWait(200)
    tab.grab().save(str(OUT / "monitor-demo-findings.png"))
    tab.subtabs.setCurrentWidget(tab.heatmap)
    QTest.qWait(300)
    tab.grab().save(str(OUT / "monitor-demo-heatmap.png"))
    tab.subtabs.setCurrentWidget(tab.stats)
    QTest.qWait(200)
    tab.grab().save(str(OUT / "monitor-demo-stats.png"))
    tab.shutdown()
    tab.close()

    # --- no GPU --------------------------------------------------------------------------------------------
    tab = MonitorTab(ctx, nvml=make_fake_pynvml([], init_error="DriverNotLoaded"))
    tab.resize(1280, 800)
    tab.show()
    wait_until(lambda: tab.stack.currentIndex() == 0 and tab.ctl.nvml_status is not None)
    QTest.qWait(200)
    tab.grab().save(str(OUT / "monitor-no-gpu.png"))
    tab.shutdown()
    print("written:", ", ".join(sorted(p.name for p in OUT.glob("monitor-*.png"))))
    app.processEvents()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
