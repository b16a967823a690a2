"""Screenshot of an alert notification for docs/screenshots/monitor-alert-notification.png (run by hand):
a real X server (Xvfb, xcb platform), the main window closed to the tray while the alert loop watches fake NVML
(faked at the pynvml boundary) when an Xid 79 arrives from NVML's event API. Without a tray host
the notification is gpudesk's corner window; the whole screen is grabbed with xwd.

    PYTHONPATH=$PWD python tools/screenshots/alert_screenshots.py
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
OUT = REPO / "docs" / "screenshots"


def main() -> int:
    from helpers import xvfb

    server = xvfb.start_xvfb()
    os.environ["DISPLAY"] = server.display
    os.environ["QT_QPA_PLATFORM"] = "xcb"
    try:
        from helpers.fake_pynvml import FakeDevice, make_fake_pynvml
        from PySide6.QtCore import QSettings
        from PySide6.QtGui import QImage
        from PySide6.QtWidgets import QApplication

        from gpudesk.nvml.events import EVENT_XID
        from gpudesk.telemetry.sources.alert_monitor import open_alert_monitor
        from gpudesk.ui.main_window import MainWindow

        app = QApplication([])
        devs = [FakeDevice(0, name="NVIDIA H100 80GB HBM3", memory_used=60 * 1024**3)]
        devs[0].events.append((EVENT_XID, 79))
        fake = make_fake_pynvml(devs)

        def make(on_alert):
            return open_alert_monitor(on_alert, nvml=fake, interval_s=0.2)

        import tempfile

        scratch = Path(tempfile.mkdtemp(prefix="gpudesk-alert-shot-"))
        window = MainWindow(settings=QSettings(str(scratch / "settings.ini"), QSettings.Format.IniFormat))
        window.show()
        window.start_alert_tray(make)
        window.close()  # to the tray: the alerts keep watching
        deadline = time.monotonic() + 20
        tray = window.alert_tray
        while time.monotonic() < deadline and not (tray and tray.toasts):
            app.processEvents()
            time.sleep(0.05)
        for _ in range(20):
            app.processEvents()
            time.sleep(0.05)
        OUT.mkdir(parents=True, exist_ok=True)
        pixels = xvfb.screenshot(server.display, OUT / "_screen.xwd")
        h, w, _c = pixels.shape
        image = QImage(pixels.tobytes(), w, h, 3 * w, QImage.Format.Format_RGB888)
        image.save(str(OUT / "monitor-alert-notification.png"))
        (OUT / "_screen.xwd").unlink()
        print(tray.shown if tray else "no tray")
        window.quit()
        return 0
    finally:
        server.stop()


if __name__ == "__main__":
    raise SystemExit(main())
