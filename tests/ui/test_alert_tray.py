"""Alerts on the desktop: the alert loop runs in its own thread on fake NVML (faked at the pynvml boundary), each
alert becomes a notification (a tray balloon where the desktop has a tray, else a corner window), and closing the
main window hides it to the tray while the alerts keep watching."""

from __future__ import annotations

import pytest
from helpers.fake_pynvml import FakeDevice, make_fake_pynvml
from PySide6.QtCore import QSettings

from gpudesk.nvml.events import EVENT_XID
from gpudesk.telemetry.sources.alert_monitor import open_alert_monitor
from gpudesk.ui.alert_tray import AlertTray, Toast
from gpudesk.ui.main_window import MainWindow


def _factory(devs: list[FakeDevice]):
    fake = make_fake_pynvml(devs)
    return lambda on_alert: open_alert_monitor(on_alert, nvml=fake, interval_s=0.05)


def test_an_xid_becomes_a_notification(qtbot):
    devs = [FakeDevice(0)]
    devs[0].events.append((EVENT_XID, 79))
    tray = AlertTray(_factory(devs), interval_s=0.05)
    tray.start()
    try:
        qtbot.waitUntil(lambda: bool(tray.shown), timeout=10000)
    finally:
        tray.stop()
    title, message = tray.shown[0]
    assert "critical" in title and "Xid 79" in message and "fallen off the bus" in message
    if not tray.has_tray:  # offscreen and bare X servers: the corner window
        assert tray.toasts and tray.toasts[0].isVisible()
        assert isinstance(tray.toasts[0], Toast)
        for t in tray.toasts:
            t.close()


@pytest.fixture
def settings(tmp_path):
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


def test_closing_the_window_hides_it_to_the_tray_and_alerts_go_on(qtbot, settings):
    devs = [FakeDevice(0)]
    window = MainWindow(settings=settings)
    qtbot.addWidget(window)
    window.show()
    window.start_alert_tray(_factory(devs))
    tray = window.alert_tray
    assert tray is not None
    window.close()
    assert not window.isVisible() and window.alert_tray is tray  # hidden, still watching
    devs[0].events.append((EVENT_XID, 48))  # an error while the window is closed
    qtbot.waitUntil(lambda: bool(tray.shown), timeout=10000)
    assert "Xid 48" in tray.shown[0][1]
    for t in tray.toasts:
        t.close()
    window.quit()
    assert window.alert_tray is None


def test_delivery_dialog_keeps_the_command_in_settings_and_the_webhook_in_the_keyring(qtbot, settings):
    from helpers import memory_keyring

    from gpudesk.ui.alert_settings_dialog import AlertDeliveryDialog, saved_delivery

    ring = memory_keyring.install()
    dialog = AlertDeliveryDialog(settings)
    qtbot.addWidget(dialog)
    dialog.webhook.setText("ftp://example.com/hook")
    assert not dialog.save() and "http" in dialog.error.text()  # refused, said, dialog stays open
    dialog.command.setText("notify-send gpudesk")
    dialog.webhook.setText("https://hooks.example.com/T000/B000/secret")
    assert dialog.save()
    assert settings.value("alerts/command") == "notify-send gpudesk"
    assert "secret" not in str([settings.value(k) for k in settings.allKeys()])  # never in the plain settings
    assert ("gpudesk-alerts", "webhook-url") in ring.store
    delivery = saved_delivery(settings, "ws1")
    assert delivery.command == "notify-send gpudesk" and delivery.webhook_url.endswith("/secret")
