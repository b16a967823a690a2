"""Monitor tab: dmon import (with the catalog GPU picker), demo replay, recording start/stop, recordings view."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from helpers.fake_pynvml import FakeDevice, make_fake_pynvml
from helpers.monitor_findings import finding_items

from gpudesk.telemetry.core import model as m
from gpudesk.ui.context import AppContext
from gpudesk.ui.monitor import actions
from gpudesk.ui.monitor.gpu_table import COLUMNS
from gpudesk.ui.monitor.import_dialog import ImportChoice, ImportDialog
from gpudesk.ui.monitor.tab import PAGE_VIEW, MonitorTab

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "monitor_ui"


class FakeGpu:
    """Stands in for a catalog GPU (only the fields the import uses)."""

    id = "a100-80-pcie"
    name = "NVIDIA A100 80GB PCIe"
    memory_bytes = 80 * 1024**3
    pcie_gen = 4
    pcie_lanes = 16
    tdp_w = 300


def make_tab(qtbot, messages, nvml=None, store=None, autostart=False):
    ctx = AppContext(store=store, notify=lambda text, level="info": messages.append((level, text)))
    tab = MonitorTab(ctx, nvml=nvml, autostart=autostart)
    qtbot.addWidget(tab, before_close_func=lambda widget: widget.shutdown())
    tab.resize(1280, 800)
    tab.show()
    return tab


def long_log(tmp_path: Path, rounds: int) -> Path:
    """Sample A's header and rows repeated ``rounds`` times (1 s apart), GPU 0's sm% swinging 0..100 and
    GPU 3's rxpci set to '-' in the second half (derived from the real Sample A)."""
    lines = (FIXTURES / "sample_a_pucvmet.txt").read_text().splitlines()
    header, rows = lines[:2], lines[2:]
    out = list(header)
    for r in range(rounds):
        for row in rows:
            cols = row.split()
            if cols[0] == "0":
                cols[3] = str((r * 7) % 101)
            if cols[0] == "3" and r >= rounds // 2:
                cols[-2] = "-"
            out.append(" ".join(f"{c:>5}" for c in cols))
    path = tmp_path / "run.log"
    path.write_text("\n".join(out) + "\n")
    return path


def test_dmon_import_with_assumed_link(qtbot, tmp_path):
    messages = []
    tab = make_tab(qtbot, messages)
    path = long_log(tmp_path, 600)
    choice = ImportChoice("file", str(path), None, FakeGpu(), 4, 16, 1.0)
    actions.import_dmon(tab, choice)
    qtbot.waitUntil(lambda: tab.ctl.loaded is not None, timeout=20000)
    assert tab.stack.currentIndex() == PAGE_VIEW
    assert tab.ctl.buffer.n_gpus == 4 and tab.ctl.buffer.count == 600
    util = tab.ctl.buffer.series(m.GPU_UTIL)
    assert util[1, 0] == 7.0 and util[0, 1] == 18.0
    rx = tab.ctl.buffer.series(m.PCIE_RX)
    assert rx[0, 3] == pytest.approx(62e6)
    assert math.isnan(rx[-1, 3])  # '-' stays N/A, never 0
    # The PCIe share uses the assumed Gen4 x16 link and says it is assumed.
    title = tab.plots.plots[m.PCIE_RX].titleLabel.text
    assert "assumed" in title and "Gen4 x16" in title and "a100-80-pcie" in title
    model = tab.table.model()
    rx_col = [k for k, _ in COLUMNS].index(m.PCIE_RX)
    assert model.data(model.index(0, rx_col)) == f"{41e6 / 31.504e9 * 100:.0f} %"
    assert "assumed" in model.data(model.index(0, rx_col), role=3)
    assert model.data(model.index(3, rx_col)) == "N/A"
    # statistics and findings are computed for the whole log in the background
    qtbot.waitUntil(lambda: bool(tab.stats.stats), timeout=20000)
    assert tab.stats.stats[1][m.GPU_UTIL].median == 18.0
    assert tab.stats.table.item(1, 0).text().startswith("18")
    qtbot.waitUntil(lambda: tab.findings.analyze_button.isEnabled() and tab.findings.tree.topLevelItemCount() > 0,
                    timeout=20000)
    rules = {f.rule for f in tab.findings.findings}
    assert rules, "the rules returned findings for the imported log"
    # activating a finding with a span zooms the plots to it
    finding = next(f for f in tab.findings.findings if f.span)
    item = next(i for i, f in finding_items(tab.findings) if f is finding)
    tab.findings.tree.setCurrentItem(item)
    tab.findings.tree.itemActivated.emit(item, 0)  # Enter on the item
    x0, x1 = tab.plots.plots[m.GPU_UTIL].getViewBox().viewRange()[0]
    assert x0 <= finding.span[0] and x1 >= finding.span[1] and not tab.plots.follow
    # export the span as CSV (formula-safe cells, units in the header)
    out = tmp_path / "span.csv"
    actions.export_csv(tab, str(out))
    qtbot.waitUntil(out.exists, timeout=20000)
    qtbot.waitUntil(lambda: len(out.read_text().splitlines()) > 2400, timeout=20000)
    assert "gpu_util_pct" in out.read_text().splitlines()[0]
    # and store the import as a recording
    from gpudesk.store import open_store, recordings

    assert tab.toolbar.save_button.isVisible()
    tab.toolbar.save_button.click()
    qtbot.waitUntil(lambda: any("Saved as recording" in t for _, t in messages), timeout=20000)
    db = open_store()
    session = recordings.list_sessions(db)[0]
    assert session.gpu_model == "a100-80-pcie" and session.gpu_count == 4 and session.sample_rows == 2400
    assert "Gen4 x16" in session.link_assumption
    db.close()


def test_dmon_unsupported_log_is_reported(qtbot):
    messages = []
    tab = make_tab(qtbot, messages)
    choice = ImportChoice("file", str(FIXTURES / "sample_f_unsupported.txt"), None, None, None, None, 1.0)
    actions.import_dmon(tab, choice)
    qtbot.waitUntil(lambda: any(level == "error" for level, _ in messages), timeout=20000)
    text = [t for level, t in messages if level == "error"][0]
    assert "Not supported on the device" in text
    assert tab.ctl.loaded is None


def test_import_dialog_model_picker_fills_the_link(qtbot):
    from gpudesk.catalog import open_catalog

    dialog = ImportDialog(open_catalog())
    qtbot.addWidget(dialog)
    assert dialog.select_model("h100 pcie")
    assert (dialog.gen_spin.value(), dialog.width_spin.value()) == (5, 16)
    assert "Gen5 x16" in dialog.link_label.text() and "63.0 GB/s" in dialog.link_label.text()
    dialog.width_spin.setValue(8)  # the card sits in a x8 slot
    choice = dialog.choice()
    assert choice.gpu.id == "h100-pcie" and (choice.pcie_gen, choice.pcie_width) == (5, 8)
    dialog.path_edit.setText("")
    dialog.accept()
    assert dialog.error.text()  # no file chosen: the dialog says so and stays open
    assert not dialog.select_model("no such gpu at all")


def test_demo_opens_whole(qtbot):
    """The demo (a generated 5-minute run, see resources/demo/SOURCE.md) opens whole like an imported log."""
    messages = []
    tab = make_tab(qtbot, messages)
    assert tab.toolbar.demo_button.isEnabled()
    assert "generated example" in tab.toolbar.demo_button.toolTip()
    actions.play_demo(tab)
    qtbot.waitUntil(lambda: tab.ctl.loaded is not None, timeout=20000)
    assert tab.ctl.source_kind == "demo"
    util = tab.ctl.buffer.series(m.GPU_UTIL)
    assert util.shape == (300, 4) and list(util[0]) == [4.0, 5.0, 3.0, 0.0]  # the first second of start-up


def test_recording_start_stop_and_recordings_view(qtbot, tmp_path):
    from gpudesk.store import open_store, recordings
    from gpudesk.telemetry.recording.recorder import load_frame

    messages = []
    store = open_store()
    fake = make_fake_pynvml([FakeDevice(i, util_gpu=50 + i) for i in range(2)])
    tab = make_tab(qtbot, messages, nvml=fake, store=store, autostart=True)
    qtbot.waitUntil(lambda: tab.ctl.buffer is not None and tab.toolbar.record_button.isEnabled(), timeout=20000)
    tab.toolbar.notes_edit.setText("batch 64, 8 workers")
    tab.toolbar.record_button.click()
    qtbot.waitUntil(lambda: tab.ctl.recording_id is not None, timeout=20000)
    sid = tab.ctl.recording_id
    start = tab.ctl.buffer.count
    qtbot.waitUntil(lambda: tab.ctl.buffer.count >= start + 2, timeout=20000)
    tab.toolbar.record_button.click()
    qtbot.waitUntil(lambda: tab.ctl.recording_id is None, timeout=20000)
    assert any(f"#{sid} saved" in t for _, t in messages)
    session = recordings.get_session(store, sid)
    assert session.notes == "batch 64, 8 workers" and session.gpu_count == 2 and session.ended_at
    frame = load_frame(store, sid)
    assert len(frame) >= 2 and set(frame.gpus) == {0, 1}  # two rounds of two GPUs or more
    assert np.all(frame.series(1, m.GPU_UTIL)[1] == 51.0)
    # the recordings list
    view = tab.recordings
    tab.show_recordings()
    assert view.table.rowCount() == 1 and view.table.item(0, 0).text() == str(sid)
    view.table.selectRow(0)
    assert view.notes.toPlainText() == "batch 64, 8 workers"
    view.rename(sid, "burn-in node 7")
    assert view.table.item(0, 1).text() == "burn-in node 7"
    out = tmp_path / "rec.csv"
    view.export_csv(sid, str(out))
    qtbot.waitUntil(lambda: out.exists() and "Exported" in view.status.text(), timeout=20000)
    assert out.read_text().count("\n") >= len(frame)
    # open it in the plots, exporting the plots as PNG on the way
    png = tmp_path / "rec.png"
    view.pending_png = (sid, str(png))
    view.table.selectRow(0)
    view.buttons["open"].click()
    qtbot.waitUntil(lambda: tab.ctl.loaded is not None and tab.ctl.loaded.session_id == sid, timeout=20000)
    assert tab.ctl.buffer.n_gpus == 2 and tab.ctl.buffer.count >= 2
    assert png.exists() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    view.delete(sid)
    qtbot.waitUntil(lambda: view.table.rowCount() == 0, timeout=20000)
    assert recordings.list_sessions(store) == []
    store.close()


def test_live_dmon_stream_from_a_command(qtbot, tmp_path):
    """A command the user types (here: a shell printing a real capture slowly) streams into the plots; the
    GPUs appear as their rows arrive and the PCIe link is the one assumed from the picked model."""
    import shlex
    import sys

    messages = []
    tab = make_tab(qtbot, messages)
    log = long_log(tmp_path, 3)
    script = ("import sys, time\n"
              f"for line in open({str(log)!r}):\n"
              "    sys.stdout.write(line); sys.stdout.flush(); time.sleep(0.01)\n")
    command = f"{shlex.quote(sys.executable)} -c {shlex.quote(script)}"
    actions.import_dmon(tab, ImportChoice("stream", None, command, FakeGpu(), 4, 16, 1.0))
    qtbot.waitUntil(lambda: tab.ctl.buffer is not None and tab.ctl.buffer.n_gpus == 4 and tab.ctl.buffer.count >= 2,
                    timeout=20000)
    assert tab.ctl.source_kind == "dmon-stream"
    assert tab.ctl.buffer.series(m.GPU_UTIL)[0, 3] == 18.0
    assert all(d.pcie_link_source == "catalog:a100-80-pcie" for d in tab.ctl.devices)
    assert "assumed" in tab.plots.plots[m.PCIE_RX].titleLabel.text
    qtbot.waitUntil(lambda: any("ended" in t for _, t in messages), timeout=20000)


def test_replay_a_recording_at_speed(qtbot):
    """A stored recording (the real Sample A rounds, 1 s apart) replays through the live views at 600x."""
    from gpudesk.store import open_store
    from gpudesk.telemetry.formats.dmon import read_dmon_file
    from gpudesk.telemetry.recording.recorder import Recorder

    store = open_store()
    frame = read_dmon_file(FIXTURES / "sample_a_pucvmet.txt").frame
    recorder = Recorder(store)
    sid = recorder.start([], source="test", notes="")
    recorder.write_frame(frame)
    recorder.stop()
    messages = []
    tab = make_tab(qtbot, messages, store=store)
    tab.show_recordings()
    tab.recordings.table.selectRow(0)
    tab.recordings.speed.setCurrentIndex(3)
    assert tab.recordings.speed.currentData() == 600.0
    tab.recordings.buttons["replay"].click()
    qtbot.waitUntil(lambda: tab.ctl.source_kind == "replay" and tab.ctl.buffer is not None and tab.ctl.buffer.count >= 1,
                    timeout=20000)
    assert list(tab.ctl.buffer.series(m.GPU_UTIL)[0]) == [25.0, 18.0, 24.0, 18.0]
    assert tab.toolbar.window_combo.currentData() is None  # the whole run is shown
    assert sid == tab.recordings.sessions[0].id
    store.close()


def test_recording_into_an_unwritable_data_folder_shows_a_message(qtbot, tmp_path, monkeypatch):
    # Issue 9: Recorder() raised StoreUnwritableError in the worker, the slot died silently and the Record
    # button stayed disabled with no message. A data folder below a regular file cannot be created, even as root.
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the data folder's parent should be")
    monkeypatch.setenv("GPUDESK_DATA_DIR", str(blocker / "data"))
    messages = []
    fake = make_fake_pynvml([FakeDevice(0, util_gpu=40)])
    tab = make_tab(qtbot, messages, nvml=fake, autostart=True)
    qtbot.waitUntil(lambda: tab.ctl.buffer is not None and tab.toolbar.record_button.isEnabled(), timeout=20000)
    tab.toolbar.record_button.click()
    qtbot.waitUntil(lambda: any(level == "error" for level, _ in messages), timeout=20000)
    text = next(t for level, t in messages if level == "error")
    assert "data folder" in text and "GPUDESK_DATA_DIR" in text
    qtbot.waitUntil(lambda: tab.toolbar.record_button.isEnabled(), timeout=5000)
    assert not tab.toolbar.record_button.isChecked() and tab.ctl.recording_id is None
