"""Fleet view (nodes x GPUs grid, findings, click-through) and the connection dialog, offscreen."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers import memory_keyring
from helpers.prometheus_server import PROMETHEUS, Exporter, PrometheusServer, free_port
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QImage

from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.fleet.fleet import (
    FleetHistory,
    GpuKey,
    fleet_findings,
    frame_from_matrix,
)
from gpudesk.telemetry.fleet.fleet_http import Auth, FleetUnreachable
from gpudesk.telemetry.fleet.fleet_secrets import SERVICE
from gpudesk.telemetry.fleet.prometheus_source import PrometheusSource
from gpudesk.ui.monitor.fleet_connection_dialog import FleetConnectionDialog
from gpudesk.ui.monitor.fleet_grid import CELL_H, CELL_W, GAP
from gpudesk.ui.monitor.fleet_refresh import FleetRefresher
from gpudesk.ui.monitor.fleet_view import FleetView

SHOTS = Path(__file__).resolve().parents[3] / "docs" / "screenshots"


def fleet(n_nodes: int = 8, gpus: int = 8, n_t: int = 120, step_s: float = 60.0) -> FleetHistory:
    """A fleet in the DCGM exporter's layout: node00 runs job research/train-0 on 8 GPUs with GPU 3 starved
    (low utilization), node01 GPU 0 is held by a pod but idle, one node has a GPU whose utilization is N/A
    (MIG instances do not report DCGM_FI_DEV_GPU_UTIL)."""
    keys = []
    for node in range(n_nodes):
        for g in range(gpus):
            job: tuple[tuple[str, str], ...] = ()
            if node == 0:
                job = (("namespace", "research"), ("pod", "train-0"))
            elif node == 1 and g == 0:
                job = (("namespace", "dev"), ("pod", "notebook-7"))
            mig = 3 if node == 2 and g == 7 else None
            keys.append(GpuKey(f"node{node:02d}", g, f"GPU-{node:04d}{g:04d}-0000-0000-0000-000000000000",
                               mig_instance=mig, model_name="NVIDIA H100 80GB HBM3", job=job))
    n = len(keys)
    rng = np.random.default_rng(7)
    util = np.clip(85 + 8 * rng.standard_normal((n_t, n)), 0, 100)
    if n_nodes >= 3 and gpus == 8:
        util[:, 3] = 20.0  # node00 GPU 3 lags its job
        util[:, gpus] = 0.0  # node01 GPU 0: allocated, idle
        util[:, 2 * gpus + 7] = np.nan  # the MIG instance
    for node in range(3, n_nodes):
        util[:, node * gpus:(node + 1) * gpus] *= 0.3 + 0.7 * (node % 3) / 2
    power = 150 + 5 * util
    t = 1_764_000_000 + step_s * np.arange(n_t)
    reasons = {(2 * gpus + 7, m.GPU_UTIL): "not exported for MIG instances"}
    frame = frame_from_matrix(t, {m.GPU_UTIL: util, m.POWER: power}, reasons)
    return FleetHistory(keys, frame, step_s)


def test_grid_shows_every_gpu_grouped_and_clicks_through(qtbot):
    hist = fleet()
    view = FleetView()
    qtbot.addWidget(view)
    view.resize(900, 620)
    view.set_history(hist, fleet_findings(hist))
    assert view.grid.cell_count() == 64
    view.show()
    qtbot.waitExposed(view)
    SHOTS.mkdir(parents=True, exist_ok=True)
    view.grab().save(str(SHOTS / "monitor-fleet-grid.png"))
    # row 1 = node01, col 0 = its GPU 0
    with qtbot.waitSignal(view.gpuActivated) as sig:
        qtbot.mouseClick(view.grid, Qt.MouseButton.LeftButton,
                         pos=QPoint(view.grid._label_w + CELL_W // 2, 4 + (CELL_H + GAP) + CELL_H // 2))
    assert hist.keys[sig.args[0]].label == "node01 GPU 0"
    qtbot.keyClick(view.grid, Qt.Key.Key_Right)
    with qtbot.waitSignal(view.gpuActivated) as sig:
        qtbot.keyClick(view.grid, Qt.Key.Key_Return)
    assert hist.keys[sig.args[0]].label == "node01 GPU 1"
    rules = {view.table.item(r, 1).text(): view.table.item(r, 4).text() for r in range(view.table.rowCount())}
    assert any(k == "node01 GPU 0" and "idle" in v for k, v in rules.items())
    rows = [(view.table.item(r, 1).text(), view.table.item(r, 4).text()) for r in range(view.table.rowCount())]
    # named by host, not group index (the GPU has several rows: the imbalance and its low-utilization span)
    assert any(k == "node00 GPU 3" and v.startswith("node00 GPU 3 works at a median 20 %") for k, v in rows)


def test_na_cells_are_grey_not_zero_and_group_by_job(qtbot):
    hist = fleet(n_nodes=3)
    view = FleetView()
    qtbot.addWidget(view)
    view.set_history(hist, [])
    na = [c for _, cells in view.grid._groups for c in cells if c.value is None]
    assert len(na) == 1 and "not exported for MIG instances" in na[0].tooltip and na[0].text == "7/3"
    assert view.grid.colour(None).name() == "#c8c8c8"
    assert view.grid.colour(0.0).name() != "#c8c8c8"
    view.group_box.setCurrentIndex(view.group_box.findData("job"))
    names = [name for name, _ in view.grid._groups]
    assert names == ["research/train-0", "dev/notebook-7", "(no job)"]


def test_hostile_labels_stay_plain_text(qtbot):
    hist = fleet(n_nodes=1, gpus=1, n_t=3)  # no planted cases in a 1-GPU fleet
    hist.keys[0] = GpuKey("<b>evil</b>", 0, "GPU-x", job=(("pod", "<img src=x>"),))
    view = FleetView()
    qtbot.addWidget(view)
    view.set_history(hist, [])
    cell = view.grid._groups[0][1][0]
    assert "<img src=x>" in cell.tooltip  # escaped when shown (html.escape in FleetGrid.mouseMoveEvent)


def test_grid_redraw_of_512_gpus(qtbot):
    hist = fleet(n_nodes=64, gpus=8, n_t=30)
    view = FleetView()
    qtbot.addWidget(view)
    view.resize(1400, 1000)
    view.set_history(hist, [])
    view.show()
    qtbot.waitExposed(view)
    assert view.grid.cell_count() == 512
    image = QImage(view.grid.sizeHint(), QImage.Format.Format_ARGB32)
    view.grid.resize(view.grid.sizeHint())
    image.fill(0)
    view.grid.render(image)  # a full paint of all 512 cells; its time is measured in tests/benchmarks
    assert len({image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)}) > 2


def test_connection_dialog_tests_in_background_and_keeps_the_secret_in_the_keyring(qtbot):
    ring = memory_keyring.install()
    calls = []

    def fake_probe(url: str, auth: Auth, timeout_s: float, ca: str) -> str:
        calls.append((url, auth.kind, auth.username, auth.secret))
        if "down" in url:
            raise FleetUnreachable("Could not reach http://down:9090.", detail="refused")
        return "512 GPUs, 12 GPU metrics"

    dialog = FleetConnectionDialog(probe_fn=fake_probe)
    qtbot.addWidget(dialog)
    dialog.url.setText("http://prom.example:9090")
    dialog.auth_kind.setCurrentIndex(dialog.auth_kind.findData("basic"))
    dialog.user.setText("ops")
    dialog.secret.setText("hunter2")
    dialog.test_button.click()
    qtbot.waitUntil(lambda: "Connected" in dialog.status.text(), timeout=5000)
    assert calls == [("http://prom.example:9090", "basic", "ops", "hunter2")]
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.grab().save(str(SHOTS / "monitor-fleet-connection.png"))
    dialog.url.setText("http://down:9090")
    dialog.test_button.click()
    qtbot.waitUntil(lambda: "Failed" in dialog.status.text(), timeout=5000)
    assert "Could not reach" in dialog.status.text()
    dialog.url.setText("http://prom.example:9090")
    dialog.accept()
    assert "hunter2" not in str(dialog.settings().to_dict())
    assert ring.store[(SERVICE, "http://prom.example:9090")] == "hunter2"


@pytest.mark.skipif(PROMETHEUS is None, reason="the prometheus binary is not installed (apt-get install prometheus)")
def test_connection_dialog_against_a_real_prometheus_without_dcgm(qtbot, tmp_path):
    memory_keyring.install()
    server = PrometheusServer(tmp_path, {})
    try:
        server.wait_ready(60, targets_up=False)
        dialog = FleetConnectionDialog()
        qtbot.addWidget(dialog)
        dialog.url.setText(server.url)
        dialog.test_button.click()
        qtbot.waitUntil(lambda: "Failed" in dialog.status.text(), timeout=15000)
        assert "no DCGM exporter metrics" in dialog.status.text()
    finally:
        server.stop()


@pytest.mark.skipif(PROMETHEUS is None, reason="the prometheus binary is not installed (apt-get install prometheus)")
def test_background_refresh_from_a_real_prometheus_feeds_the_view(qtbot, tmp_path):
    text = (Path(__file__).resolve().parents[2] / "fixtures" / "fleet" / "dcgm_exporter_v100_issue250.prom").read_text()
    exporter = Exporter(lambda host: text)
    server = PrometheusServer(tmp_path, {"r6i3n0": exporter.url("r6i3n0")}, scrape_interval_s=1)
    try:
        server.wait_ready(60)
        src = PrometheusSource(server.url, scrape_interval_s=1)
        view = FleetView()
        qtbot.addWidget(view)
        refresher = FleetRefresher(lambda: src.history(30, step_s=1), interval_s=0.5,
                                   first=lambda: src.window_means(30))
        seen = []
        refresher.updated.connect(view.set_history)
        refresher.updated.connect(lambda hist, findings: seen.append(len(hist.frame)))
        refresher.start()
        qtbot.waitUntil(lambda: refresher.refreshes >= 1, timeout=15000)
        refresher.stop()
        # the capture has DCGM_FI_DEV_GPU_UTIL for GPU 0 only: the window means are one row; a full range is more
        assert max(seen) > 3 and all(n == 1 or n > 3 for n in seen)
        assert view.grid.cell_count() == 3  # GPUs 0, 2, 3 of r6i3n0 in the capture
        bad = FleetRefresher(lambda: PrometheusSource(f"http://127.0.0.1:{free_port()}", timeout_s=2).history(60))
        with qtbot.waitSignal(bad.failed, timeout=15000) as sig:
            bad.refresh()
        assert "Could not reach" in sig.args[0]
    finally:
        server.stop()
        exporter.close()


def test_metric_names_follow_the_language(qtbot):
    # review10: the metric box and the cell tooltips showed the telemetry model's English labels under zh_CN, and so
    # did the monitor's fallback label of a metric without its own display entry (BAR1, reserved memory ...).
    from gpudesk import i18n
    from gpudesk.ui.monitor.display import shown

    before = i18n.current_language()
    i18n.set_language("zh_CN")
    shown.cache_clear()  # (cached per process: the language is chosen at start)
    try:
        view = FleetView()
        qtbot.addWidget(view)
        items = [view.metric_box.itemText(i) for i in range(view.metric_box.count())]
        assert any(text.startswith("已用显存") for text in items), items
        assert not any(text.startswith("Memory used") for text in items)
        assert shown(m.MEM_RESERVED).label == "显存保留（驱动）"
    finally:
        i18n.set_language(before)
        shown.cache_clear()


def test_tooltips_and_severities_follow_the_language(qtbot, qapp):
    # qa22: the cell tooltips' "UUID:", "Model:", "Job:", "none", "(mean)" and the findings' severity ids stayed
    # English under zh_CN.
    from PySide6.QtCore import QTranslator

    from gpudesk import i18n

    translator = QTranslator()
    assert translator.load(str(Path(__file__).resolve().parents[3] / "resources/translations/gpudesk_zh_CN.qm"))
    qapp.installTranslator(translator)
    before = i18n.current_language()
    i18n.set_language("zh_CN")
    try:
        hist = fleet(n_nodes=2)
        view = FleetView()
        qtbot.addWidget(view)
        view.set_history(hist, fleet_findings(hist))
        tips = "\n".join(c.tooltip for _, cells in view.grid._groups for c in cells)
        for english in ("UUID:", "Model:", "Job:", "(mean)", ": none"):
            assert english not in tips, english
        assert "型号：" in tips and "（均值）" in tips
        severities = {view.table.item(r, 0).text() for r in range(view.table.rowCount())}
        assert severities and not severities & {"warning", "info", "critical"}, severities
    finally:
        i18n.set_language(before)
        qapp.removeTranslator(translator)
