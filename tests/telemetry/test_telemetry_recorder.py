"""Recorder, recordings store, dmon import, replay and CSV export."""

from __future__ import annotations

import csv
import io
import math
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from gpudesk.store import StoreError, open_store
from gpudesk.store import recordings as rec
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.formats.dmon import DmonError
from gpudesk.telemetry.formats.dmon_import import (
    DEMO_GPUS,
    DEMO_ROUNDS,
    demo_path,
    frame_and_devices_from_file,
    import_dmon_log,
    load_demo,
)
from gpudesk.telemetry.recording.export import export_csv, safe_cell
from gpudesk.telemetry.core.model import DeviceInfo, TelemetryError
from gpudesk.telemetry.sources.nvml_source import NvmlSource
from gpudesk.telemetry.recording.recorder import Recorder, RecorderError, load_frame, session_devices
from gpudesk.telemetry.sources.replay import ReplaySource
from helpers.fake_pynvml import FakeDevice, make_fake_pynvml

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "monitor"


class FakeClock:
    def __init__(self, t=1000.0):
        self.t = t

    def __call__(self):
        return self.t


def test_record_nvml_batches_and_read_back():
    fake = make_fake_pynvml([FakeDevice(0), FakeDevice(1, faults={"nvmlDeviceGetPowerUsage": "NotSupported"})])
    wall = FakeClock(1.7e9)
    src = NvmlSource(nvml=fake, clock=wall)
    db = open_store()
    mono = FakeClock()
    r = Recorder(db, flush_interval_s=1.0, clock=mono)
    sid = r.start(src.devices(), source="nvml", interval_s=1.0, notes="three epochs", host="node1",
                  driver_version="550.54.15", nvml_version="12.550")
    for _ in range(5):
        r.write(src.read())
        wall.t += 1.0
        mono.t += 0.5
    assert r.rows_written >= 4  # committed on the way, not only at stop
    r.stop()
    frame = load_frame(db, sid)
    assert len(frame) == 5 and frame.gpus == [0, 1]  # five rounds of two GPUs
    assert frame.series(0, m.POWER)[1].tolist() == [250.0] * 5
    assert np.all(np.isnan(frame.series(1, m.POWER)[1]))  # stored as NULL, not 0
    assert frame.reason(1, m.POWER).startswith("NotSupported")
    sess = rec.get_session(db, sid)
    assert (sess.host, sess.driver_version, sess.notes, sess.interrupted) == ("node1", "550.54.15", "three epochs", False)
    devs = session_devices(db, sid)
    assert devs[0].uuid == fake.devices[0].uuid and devs[0].name == "NVIDIA A100-SXM4-80GB"
    assert devs[0].pcie_link_source == "nvml"
    span = load_frame(db, sid, 1.7e9 + 1, 1.7e9 + 2)
    assert span.times.tolist() == [1.7e9 + 1, 1.7e9 + 2]


def test_write_before_start_is_an_error():
    r = Recorder(open_store())
    with pytest.raises(RecorderError):
        r.write(m.SampleBatch(0.0, []))


def test_killed_recorder_loses_only_the_last_seconds(tmp_path):
    """A child process records, commits, then dies with os._exit: the session stays readable."""
    script = textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {str(Path(__file__).resolve().parent.parent)!r})
        from helpers.fake_pynvml import make_fake_pynvml
        from gpudesk.telemetry.sources.nvml_source import NvmlSource
        from gpudesk.telemetry.recording.recorder import Recorder
        t = [1.7e9]
        src = NvmlSource(nvml=make_fake_pynvml(2), clock=lambda: t[0])
        mono = [0.0]
        r = Recorder(flush_interval_s=1.0, clock=lambda: mono[0])
        r.start(src.devices(), source="nvml", interval_s=1.0)
        for i in range(10):
            r.write(src.read()); t[0] += 1; mono[0] += 1.0
        mono[0] -= 1.0
        r.write(src.read())  # within the flush interval: buffered, never committed
        os._exit(9)
    """)
    env = {"GPUDESK_DATA_DIR": str(tmp_path / "data"), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 9, proc.stderr
    db = open_store(tmp_path / "data" / "gpudesk.db")
    (sess,) = rec.list_sessions(db)
    assert sess.interrupted
    frame = load_frame(db, sess.id)
    assert len(frame) == 10 and frame.gpus == [0, 1]  # only the last, uncommitted tick (2 GPUs) is lost


def test_rename_notes_delete():
    db = open_store()
    sid = rec.create_session(db, source="nvml", name="first")
    rec.rename_session(db, sid, "  burn-in  ")
    rec.set_notes(db, sid, "8x H100")
    s = rec.get_session(db, sid)
    assert (s.name, s.notes) == ("burn-in", "8x H100")
    with pytest.raises(StoreError):
        rec.rename_session(db, sid, " ")
    rec.delete_session(db, sid)
    with pytest.raises(StoreError, match="No recording"):
        rec.get_session(db, sid)


def test_import_dmon_with_catalog_model_keeps_assumption():
    from gpudesk.catalog import open_catalog

    try:
        cat = open_catalog()
        gpu = cat.find_gpu("a100 80gb pcie")
    except Exception as exc:  # noqa: BLE001 - the catalog is another engineer's work in progress
        pytest.skip(f"catalog not usable here: {exc}")
    db = open_store()
    res = import_dmon_log(FIX / "sample_a_pucvmet.txt", db=db, gpu_model="a100 80gb pcie", catalog=cat)
    assert res.rows == 4
    sess = rec.get_session(db, res.session_id)
    assert sess.gpu_model == gpu.id and "catalog model" in sess.link_assumption
    devs = session_devices(db, res.session_id)
    assert devs[0].pcie_link_source == f"catalog:{gpu.id}"
    assert devs[0].pcie_gen_max == gpu.pcie_gen
    frame = load_frame(db, res.session_id)
    assert frame.series(3, m.PCIE_RX)[1].tolist() == [62e6]
    assert math.isnan(frame.series(0, m.ECC_SBE)[1][0]) if m.ECC_SBE in frame.columns else True


def test_import_without_model_and_unsupported_log():
    db = open_store()
    res = import_dmon_log(FIX / "sample_b_u.txt", db=db)
    assert rec.get_session(db, res.session_id).gpu_model is None
    assert session_devices(db, res.session_id)[0].pcie_link_source is None
    with pytest.raises(DmonError, match="Not supported"):
        import_dmon_log(FIX / "sample_f_unsupported.txt", db=db)


def test_unknown_dmon_columns_survive_the_store(tmp_path):
    p = tmp_path / "x.txt"
    p.write_text("# gpu sm foo\n# Idx % x\n 0 10 7\n 0 20 8\n")
    db = open_store()
    res = import_dmon_log(p, db=db)
    frame = load_frame(db, res.session_id)
    assert frame.series(0, "dmon_foo")[1].tolist() == [7.0, 8.0]


def test_replay_real_speed_and_faster():
    frame, devices, _ = frame_and_devices_from_file(FIX / "sample_a_pucvmet.txt")
    clock = FakeClock(0.0)
    # the real Sample A is one round; stretch it to 3 rounds to see pacing
    from gpudesk.telemetry.core.model import concat_histories

    three = concat_histories([frame.replace(times=frame.times + k) for k in range(3)])
    rp = ReplaySource(three, devices, speed=1.0, clock=clock)
    assert [len(b) for b in rp.poll()] == [4]
    assert rp.poll() == []
    clock.t += 1.0
    assert len(rp.poll()) == 1
    rp.speed = 10.0
    clock.t += 0.1
    out = rp.poll()
    assert len(out) == 1 and rp.finished
    with pytest.raises(TelemetryError):
        rp.speed = 0


def test_demo_is_bundled_with_its_source():
    assert demo_path().exists()
    assert "github.com/mozilla/DeepSpeech/issues/178" in (demo_path().parent / "SOURCE.md").read_text()


def test_export_csv_formula_safe_and_na_empty():
    frame, _, _ = frame_and_devices_from_file(FIX / "sample_a_pucvmet.txt")  # real Sample A
    devs = [DeviceInfo(0, name="=HYPERLINK(\"http://x\")", uuid="GPU-1"), DeviceInfo(1, name="@SUM(A1)")]
    buf = io.StringIO()
    n = export_csv(frame, buf, devices=devs)
    rows = list(csv.DictReader(io.StringIO(buf.getvalue())))
    assert n == 4 and len(rows) == 4
    assert rows[0]["gpu_name"].startswith("'=") and rows[1]["gpu_name"].startswith("'@")
    assert rows[0][m.GPU_UTIL] == "25" and rows[0][m.ECC_SBE] == ""
    assert safe_cell("-1+2") == "'-1+2" and safe_cell("A100") == "A100"


def test_export_unwritable_path(tmp_path):
    frame, _, _ = frame_and_devices_from_file(FIX / "sample_a_pucvmet.txt")  # real Sample A
    with pytest.raises(TelemetryError, match="Cannot write"):
        export_csv(frame, tmp_path / "missing-dir" / "x.csv")


def test_span_read_finds_metrics_with_and_without_the_metrics_index():
    db = open_store()
    res = import_dmon_log(FIX / "sample_a_pucvmet.txt", db=db)
    first = load_frame(db, res.session_id)
    assert m.GPU_UTIL in first.columns and m.ECC_SBE not in first.columns  # all '-' -> not stored as values
    db.conn.execute("delete from recording_metrics where session_id = ?", (res.session_id,))
    db.conn.commit()
    again = load_frame(db, res.session_id)
    assert set(again.columns) == set(first.columns)
    assert "'-'" in again.reasons[(0, m.ECC_SBE)]  # the N/A reason survives the store


def test_import_header_only_log_says_no_samples(tmp_path):
    p = tmp_path / "killed.txt"
    p.write_text("# gpu sm mem\n# Idx % %\n")
    with pytest.raises(DmonError, match="no samples"):
        import_dmon_log(p, db=open_store())


def test_replay_seek():
    frame, devices, _ = load_demo()
    from gpudesk.telemetry.core.model import concat_histories

    span = float(frame.times[-1] - frame.times[0]) + 1.0
    ten = concat_histories([frame.replace(times=frame.times + k * span) for k in range(10)])  # ten runs in a row
    clock = FakeClock(0.0)
    rp = ReplaySource(ten, devices, speed=1.0, clock=clock)
    rp.seek(float(ten.times[0]) + 7)
    out = rp.poll()
    assert [b.t for b in out] == [float(ten.times[0]) + 7]
    assert out[0].samples[0].gpu_uuid is None and out[0].source == "replay"


def test_load_only_some_metrics_and_gpus():
    db = open_store()
    res = import_dmon_log(FIX / "sample_a_pucvmet.txt", db=db)
    f = load_frame(db, res.session_id, metrics=[m.GPU_UTIL, m.PCIE_RX, "not_a_metric"], gpus=[1, 3])
    assert set(f.columns) == {m.GPU_UTIL, m.PCIE_RX} and f.gpus == [1, 3]
    assert f.series(3, m.GPU_UTIL)[1].tolist() == [18.0]


def test_demo_imports_and_analyzes_and_states_what_it_is():
    """The bundled demo (a generated 5-minute, 4-GPU run; tools/make_demo_recording.py) parses, stores, reads
    back and analyses: a job-wide stall and GPU 3's thermal throttling; it says it is generated."""
    import json

    from gpudesk.telemetry.rules.analysis import analyze

    frame, devices, log = load_demo()
    assert frame.gpus == [0, 1, 2, 3] and not log.errors and not log.unsupported
    assert any("generated example, not a real capture" in n and "300 one-second samples of a 4-GPU" in n
               for n in log.notes)
    assert not any("SOURCE.md" in n or "resources/" in n for n in log.notes)  # a sentence for users, no dev notes
    assert frame.notes.count(log.notes[-1]) == 1
    assert (len(frame.gpus), len(frame)) == (DEMO_GPUS, DEMO_ROUNDS)  # the UI's sentence is true
    assert demo_path().stat().st_size < 300_000
    res = import_dmon_log(demo_path(), db=open_store())
    back = load_frame(open_store(), res.session_id)
    assert res.rows == DEMO_GPUS * DEMO_ROUNDS
    doc = json.loads(json.dumps(analyze(back, devices).to_json()))
    assert 90.0 <= doc["gpus"]["0"]["metrics"][m.GPU_UTIL]["median"] <= 99.0
    judged = {(f["rule"], f["severity"]) for f in doc["findings"]}
    assert ("low-utilization", "warning") in judged and ("thermal-throttling", "critical") in judged
    source = (demo_path().parent / "SOURCE.md").read_text()
    assert "GENERATED" in source and "no LICENSE file" in source  # why: no redistributable long capture


def test_history_columns_float32_where_exact_and_float64_for_bytes_rates_clocks():
    """Percent, W, C in float32 (half the memory); bytes, bytes/s, Hz, counters, bit masks and unknown columns
    in float64 so 4513 MHz, 62 MiB/s and 80 GB of memory read back exactly, through the store too."""
    frame, devices, _ = frame_and_devices_from_file(FIX / "sample_a_pucvmet.txt")  # real Sample A
    assert frame.columns[m.GPU_UTIL].dtype == np.float32 and frame.columns[m.POWER].dtype == np.float32
    for name in (m.MEM_USED, m.PCIE_RX, m.MEM_CLOCK, m.PCIE_REPLAY):
        assert frame.columns[name].dtype == np.float64, name
    assert m.column_dtype("dmon_foo") == np.float64 and m.column_dtype(m.CLOCK_EVENTS) == np.float64
    assert frame.series(0, m.MEM_CLOCK)[1].tolist() == [4513e6]
    db = open_store()
    back = load_frame(db, import_dmon_log(FIX / "sample_a_pucvmet.txt", db=db).session_id)
    assert back.columns[m.GPU_UTIL].dtype == np.float32 and back.columns[m.MEM_USED].dtype == np.float64
    assert back.series(1, m.MEM_USED)[1].tolist() == [11653 * 2**20]
    later = m.History(back.times + 1, back.gpus, {m.GPU_UTIL: back.columns[m.GPU_UTIL]})
    mixed = m.concat_histories([back, later])
    assert mixed.columns[m.POWER].dtype == np.float32 and np.isnan(mixed.columns[m.POWER][1:]).all()
    assert back.nbytes == 1 * 8 + sum(v.nbytes for v in back.columns.values())  # one round of four GPUs


def test_float32_values_come_out_in_their_shortest_decimal_form():
    watts = np.array([37.3, 123.456, 0.0, np.nan, 250.0], dtype=np.float32)
    assert float(watts[0]) != 37.3  # what a plain float() of a float32 gives
    assert m.widen(watts)[[0, 1, 2, 4]].tolist() == [37.3, 123.456, 0.0, 250.0] and np.isnan(m.widen(watts)[3])
    frame = m.History.from_rows(np.arange(3.0), np.zeros(3), {m.POWER: [37.3, 37.4, 37.5]})
    from gpudesk.telemetry.core.stats import span_stats

    st = span_stats(frame)[0][m.POWER]
    assert (st.median, st.max) == (37.4, 37.5) and st.p5 == pytest.approx(37.31, abs=1e-5)
    text = io.StringIO()
    export_csv(frame, text)
    assert [r[m.POWER] for r in csv.DictReader(io.StringIO(text.getvalue()))] == ["37.3", "37.4", "37.5"]
