"""The Monitor tab's "Fleet (Prometheus)" source as a user drives it: the toolbar button opens the connection
dialog (the last connection filled in from the app's settings), OK shows the fleet grid refreshed in the
background, activating a GPU (Enter) opens its plots; against a real Prometheus when one is installed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helpers import memory_keyring
from helpers.prometheus_server import PROMETHEUS, Exporter, PrometheusServer
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from gpudesk.errors import GpudeskError
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.fleet.fleet import FleetHistory, GpuKey, frame_from_matrix
from gpudesk.telemetry.fleet.fleet_secrets import SERVICE, ConnectionSettings
from gpudesk.ui.context import AppContext
from gpudesk.ui.monitor import actions
from gpudesk.ui.monitor.fleet_connection_dialog import FleetConnectionDialog
from gpudesk.ui.monitor.fleet_control import SETTINGS_KEY, app_settings
from gpudesk.ui.monitor.tab import MonitorTab

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "fleet" / "dcgm_exporter_v100_issue250.prom"


def two_node_fleet() -> FleetHistory:
    """2 nodes x 4 GPUs over 20 minutes; node01 GPU 2 idles at 0 %."""
    keys = [GpuKey(f"node{n:02d}", g, f"GPU-{n}{g}", model_name="NVIDIA H100 80GB HBM3") for n in range(2)
            for g in range(4)]
    t = 1_764_000_000 + 60.0 * np.arange(20)
    util = np.full((20, 8), 80.0)
    util[:, 6] = 0.0
    return FleetHistory(keys, frame_from_matrix(t, {m.GPU_UTIL: util, m.POWER: 200 + util}), 60.0)


class FakeSource:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def history(self, window_s: float) -> FleetHistory:
        self.calls.append("history")
        return two_node_fleet()

    def window_means(self, window_s: float) -> FleetHistory:
        self.calls.append("window_means")
        return two_node_fleet()


def make_tab(qtbot, messages):  # type: ignore[no-untyped-def]
    tab = MonitorTab(AppContext(notify=lambda text, level="info": messages.append((level, text))), autostart=False)
    qtbot.addWidget(tab, before_close_func=lambda widget: widget.shutdown())
    tab.resize(1280, 800)
    tab.show()
    return tab


def fill_and_accept(url: str, *, expect_url: str = "") -> None:
    dialog = QApplication.activeModalWidget()
    assert isinstance(dialog, FleetConnectionDialog)
    assert dialog.url.text() == expect_url, "the last connection is filled in"
    dialog.url.setText(url)
    dialog.accept()


def test_fleet_source_grid_refresh_and_gpu_plots(qtbot) -> None:  # type: ignore[no-untyped-def]
    memory_keyring.install()
    messages: list[tuple[str, str]] = []
    tab = make_tab(qtbot, messages)
    source = FakeSource()
    asked: list[ConnectionSettings] = []
    tab.ctl.fleet.source_factory = lambda settings: asked.append(settings) or source
    QTimer.singleShot(50, lambda: fill_and_accept("http://prom.example:9090"))
    tab.toolbar.fleet_button.click()
    assert [s.url for s in asked] == ["http://prom.example:9090"]
    assert tab.subtabs.currentWidget() is tab.fleet
    qtbot.waitUntil(lambda: tab.fleet.grid.cell_count() == 8 and bool(tab.ctl.fleet.findings), timeout=20000)
    assert "window_means" in source.calls and "history" in source.calls
    assert "Fleet (Prometheus) http://prom.example:9090" in tab.toolbar.source_label.text()
    assert any("node01 GPU 2" in tab.fleet.table.item(r, 1).text() for r in range(tab.fleet.table.rowCount()))
    saved = json.loads(str(app_settings().value(SETTINGS_KEY)))
    assert saved["url"] == "http://prom.example:9090" and "secret" not in json.dumps(saved)
    # an arrow key selects the first cell, the next moves to node00 GPU 1, Enter opens its plots; the fleet
    # keeps refreshing
    tab.fleet.grid.setFocus()
    qtbot.keyClick(tab.fleet.grid, Qt.Key.Key_Right)
    qtbot.keyClick(tab.fleet.grid, Qt.Key.Key_Right)
    qtbot.keyClick(tab.fleet.grid, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: tab.ctl.loaded is not None and tab.ctl.loaded.kind == "fleet-gpu", timeout=5000)
    assert tab.subtabs.currentIndex() == 0
    assert tab.ctl.buffer.series(m.GPU_UTIL)[:, 0].tolist() == [80.0] * 20
    assert "node00 GPU 1" in tab.toolbar.source_label.text()
    assert tab.ctl.fleet.running
    # the next time, the dialog starts from the saved connection; Live stops the fleet
    QTimer.singleShot(50, lambda: QApplication.activeModalWidget().reject())
    tab.toolbar.fleet_button.click()
    tab.ctl.stop_source()
    assert not tab.ctl.fleet.running
    assert not [t for level, t in messages if level == "error"]


def test_dialog_opens_with_the_saved_connection(qtbot) -> None:  # type: ignore[no-untyped-def]
    memory_keyring.install()
    tab = make_tab(qtbot, [])
    tab.ctl.fleet.save_settings(ConnectionSettings("http://saved:9090", timeout_s=12.0))
    seen: list[str] = []

    def check() -> None:
        dialog = QApplication.activeModalWidget()
        assert isinstance(dialog, FleetConnectionDialog)
        seen.append(dialog.url.text())
        assert dialog.timeout.value() == 12.0 and dialog.timeout.suffix() == " s"
        dialog.reject()

    QTimer.singleShot(50, check)
    tab.toolbar.fleet_button.click()
    assert seen == ["http://saved:9090"] and not tab.ctl.fleet.running


@pytest.mark.skipif(PROMETHEUS is None, reason="the prometheus binary is not installed (apt-get install prometheus)")
def test_against_a_real_prometheus(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    ring = memory_keyring.install()
    text = FIXTURE.read_text()
    exporter = Exporter(lambda host: text)
    server = PrometheusServer(tmp_path, {"r6i3n0": exporter.url("r6i3n0")}, scrape_interval_s=1)
    try:
        server.wait_ready(60)
        tab = make_tab(qtbot, [])
        QTimer.singleShot(50, lambda: fill_and_accept(server.url))
        tab.toolbar.fleet_button.click()
        qtbot.waitUntil(lambda: tab.fleet.grid.cell_count() == 3, timeout=30000)  # GPUs 0, 2, 3 of r6i3n0
        assert not ring.store or (SERVICE, server.url) not in ring.store  # no credentials given, none kept
        tab.ctl.stop_source()
    finally:
        server.stop()
        exporter.close()


class UnreachableSource:
    """What PrometheusSource raises for a refused connection (http://127.0.0.1:9 in the new-user test)."""

    def history(self, window_s: float) -> FleetHistory:
        raise GpudeskError("Prometheus at http://127.0.0.1:9 did not answer.", detail="Connection refused")

    window_means = history


def test_a_fleet_connection_replaces_the_previous_views_and_says_what_happens(qtbot) -> None:  # type: ignore[no-untyped-def]
    memory_keyring.install()
    messages: list[tuple[str, str]] = []
    tab = make_tab(qtbot, messages)
    actions.play_demo(tab)
    qtbot.waitUntil(lambda: tab.gpu_model.rowCount() > 0, timeout=10000)
    tab.ctl.fleet.source_factory = lambda settings: UnreachableSource()
    tab.ctl.start_fleet(ConnectionSettings("http://127.0.0.1:9"))
    assert "Fleet (Prometheus) http://127.0.0.1:9" in tab.toolbar.source_label.text()
    # the demo's GPUs, samples and heat map are gone: nothing reads as the fleet's but the fleet's own data
    assert tab.gpu_model.rowCount() == 0 and tab.ctl.buffer is None
    assert tab.heatmap.image.image is None
    assert "Fleet tab" in tab.stats.label.text() and "Fleet tab" in tab.findings.status.text()
    assert tab.fleet.grid.empty_text().startswith("Connecting to Fleet (Prometheus) http://127.0.0.1:9")
    qtbot.waitUntil(lambda: tab.fleet.grid.empty_text().startswith("No data:"), timeout=10000)
    assert "did not answer" in tab.fleet.grid.empty_text() and tab.fleet.grid.cell_count() == 0
    tab.ctl.stop_source()


class FlakySource:
    """Fails with ``errors[i]`` on the i-th fetch (None: answers with the two-node fleet)."""

    def __init__(self, errors: list[str | None]) -> None:
        self.errors = errors
        self.calls = 0

    def history(self, window_s: float) -> FleetHistory:
        error = self.errors[min(self.calls, len(self.errors) - 1)]
        self.calls += 1
        if error is not None:
            raise GpudeskError(error)
        return two_node_fleet()

    def window_means(self, window_s: float) -> FleetHistory:
        raise GpudeskError(self.errors[0] or "first")


def test_a_failing_refresh_is_told_once_per_streak(qtbot) -> None:  # type: ignore[no-untyped-def]
    memory_keyring.install()
    messages: list[tuple[str, str]] = []
    tab = make_tab(qtbot, messages)
    source = FlakySource(["refused"] * 4 + ["timed out", None, "refused"])
    tab.ctl.fleet.source_factory = lambda settings: source
    tab.ctl.start_fleet(ConnectionSettings("http://127.0.0.1:9"))
    refresher = tab.ctl.fleet.refresher
    for _ in range(6):
        qtbot.waitUntil(lambda: not refresher.pending, timeout=5000)
        refresher.refresh()
    qtbot.waitUntil(lambda: source.calls >= 7 and not refresher.pending, timeout=5000)
    errors = [text for level, text in messages if level == "error"]
    # refused (the quick first fetch and 4 refreshes: once), timed out (changed: once), success, refused again
    assert errors == ["Fleet refresh failed: refused", "Fleet refresh failed: timed out",
                      "Fleet refresh failed: refused"]
    tab.ctl.stop_source()
