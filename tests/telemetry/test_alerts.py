"""Alerts run live on fake NVML (faked at the pynvml boundary, events included): each kind is raised exactly once,
kept in the store, and delivered to a command and a webhook the user gave."""

from __future__ import annotations

import json
import shlex
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from helpers.fake_pynvml import FakeDevice, make_fake_pynvml

from gpudesk.cli import main
from gpudesk.nvml.events import EVENT_DOUBLE_BIT_ECC, EVENT_XID, EventWatcher
from gpudesk.store import open_store
from gpudesk.store.alerts import list_alerts
from gpudesk.telemetry.rules.alert_delivery import Delivery
from gpudesk.telemetry.sources.alert_monitor import AlertMonitor
from gpudesk.telemetry.rules.alerts import AlertEngine, AlertKind, AlertThresholds
from gpudesk.telemetry.sources.nvml_source import NvmlSource

GiB = 1024**3
STEP_S = 10.0
CONDITION_KINDS = [k for k in AlertKind if k is not AlertKind.FINDING]  # judged sample by sample or from events


class _Hook:
    """A local webhook receiver on 127.0.0.1."""

    def __init__(self) -> None:
        self.bodies: list[dict] = []
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                n = int(self.headers.get("Content-Length") or 0)
                hook.bodies.append(json.loads(self.rfile.read(n)))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _scenario(tick: int, devs: list[FakeDevice]) -> None:
    """GPU 0 runs a job for 100 s, then frees its memory; GPU 1 holds 20 GiB doing nothing; GPU 2's memory grows
    1 GiB every 10 s; GPU 3 is slowed by heat. Xid 48 on GPU 2 and a double-bit ECC on GPU 1 at tick 6."""
    job, idle, creep, hot = devs
    job.util_gpu, job.memory_used = (95, 30 * GiB) if tick < 10 else (0, GiB // 2)
    idle.util_gpu, idle.memory_used = 0, 20 * GiB
    creep.util_gpu, creep.memory_used = 90, (40 + tick) * GiB if tick < 30 else 69 * GiB
    hot.util_gpu, hot.clock_events = 90, 0x20  # SwThermalSlowdown
    if tick == 6:
        creep.events.append((EVENT_XID, 48))
        idle.events.append((EVENT_DOUBLE_BIT_ECC, 0))


def test_each_alert_kind_once_stored_and_delivered(tmp_path):
    devs = [FakeDevice(i, name="NVIDIA H100 80GB HBM3", memory_total=80 * GiB) for i in range(4)]
    fake = make_fake_pynvml(devs)
    clock = {"t": 1_750_000_000.0}
    source = NvmlSource(nvml=fake, clock=lambda: clock["t"])
    marks = tmp_path / "kinds.txt"
    command = (f"{shlex.quote(sys.executable)} -c "
               + shlex.quote("import os,sys; open(sys.argv[1], 'a').write(os.environ['GPUDESK_ALERT_KIND'] + '\\n')")
               + f" {shlex.quote(str(marks))}")
    hook = _Hook()
    db = open_store()
    shown: list[str] = []
    th = AlertThresholds(idle_s=120, job_busy_min_s=60, job_idle_s=30, throttle_s=30)
    monitor = AlertMonitor(source, AlertEngine(th), db=db, delivery=Delivery(command, hook.url, host="ws1"),
                           watcher=EventWatcher(source.session).open(), interval_s=0.01,
                           on_alert=lambda a, delivered, errors: shown.append(a.kind.value))
    try:
        for tick in range(40):
            _scenario(tick, devs)
            monitor.tick()
            clock["t"] += STEP_S
    finally:
        monitor.close()
        source.close()
        hook.close()
    kinds = sorted(a.kind.value for a in monitor.history)
    assert kinds == sorted(k.value for k in CONDITION_KINDS), kinds  # every kind, each exactly once
    by_kind = {a.kind: a for a in monitor.history}
    assert by_kind[AlertKind.JOB_FINISHED].gpu_index == 0
    assert by_kind[AlertKind.IDLE_ALLOCATED].gpu_index == 1
    assert by_kind[AlertKind.MEMORY_RUNNING_OUT].gpu_index == 2
    assert "memory will run out in ~" in by_kind[AlertKind.MEMORY_RUNNING_OUT].message
    assert by_kind[AlertKind.THROTTLING].gpu_index == 3 and "heat" in by_kind[AlertKind.THROTTLING].message
    assert by_kind[AlertKind.XID].evidence["xid"] == 48 and by_kind[AlertKind.XID].severity == "critical"
    assert by_kind[AlertKind.ECC].gpu_index == 1 and by_kind[AlertKind.ECC].severity == "critical"
    # memory: 1 GiB per 10 s from 40 GiB -> 6 GiB/min; at 45 GiB 35 GiB are left: about 6 minutes
    eta = by_kind[AlertKind.MEMORY_RUNNING_OUT].evidence["eta_s"]
    assert 4 * 60 < eta < 7 * 60
    assert sorted(marks.read_text().split()) == kinds  # the command ran once per alert
    assert sorted(b["kind"] for b in hook.bodies) == kinds and all(b["host"] == "ws1" for b in hook.bodies)
    rows = list_alerts(db)
    assert sorted(r.kind for r in rows) == kinds
    assert all(r.delivered == "desktop,command,webhook" and not r.delivery_error for r in rows)
    assert shown and len(shown) == len(kinds)
    db.close()


def test_alerts_rearm_when_the_condition_clears():
    engine = AlertEngine(AlertThresholds(idle_s=20))
    from gpudesk.telemetry.core.model import Sample, SampleBatch

    def batch(t: float, util: float) -> SampleBatch:
        return SampleBatch(t, [Sample(t, 0, None, {"gpu_util_pct": util, "mem_used_bytes": 10 * GiB})])

    raised = []
    for k in range(30):
        raised += engine.feed(batch(k * 5.0, 0.0 if k < 10 or k >= 15 else 80.0))
    assert [a.kind for a in raised] == [AlertKind.IDLE_ALLOCATED, AlertKind.IDLE_ALLOCATED]


def test_a_failing_hook_is_kept_with_the_alert_not_raised(tmp_path):
    devs = [FakeDevice(0)]
    clock = {"t": 1_750_000_000.0}
    source = NvmlSource(nvml=make_fake_pynvml(devs), clock=lambda: clock["t"])
    devs[0].events.append((EVENT_XID, 79))
    db = open_store()
    monitor = AlertMonitor(source, AlertEngine(), db=db, delivery=Delivery("/nonexistent/notify-send-x", None),
                           watcher=EventWatcher(source.session).open(), interval_s=0.01)
    try:
        alerts = monitor.tick()
    finally:
        monitor.close()
        source.close()
    assert [a.evidence["xid"] for a in alerts] == [79]
    row = list_alerts(db)[0]
    assert "could not run" in row.delivery_error and "fallen off the bus" in row.message
    db.close()


def test_webhook_must_be_http():
    with pytest.raises(ValueError):
        Delivery(webhook_url="file:///etc/passwd").check()


def test_cli_history_lists_stored_alerts(capsys):
    from gpudesk.store.alerts import save_alert

    db = open_store()
    save_alert(db, t=1.0, kind="xid", severity="critical", gpu_index=0, gpu_uuid=None, host="ws1",
               message="GPU 0: Xid 79 (GPU has fallen off the bus).", evidence={"xid": 79})
    db.close()
    assert main(["monitor", "alerts", "history"]) == 0
    assert "[critical] xid (GPU 0): GPU 0: Xid 79" in capsys.readouterr().out


def test_cli_history_line_is_translated(capsys):
    # review10: the history line was an f-string, so zh_CN kept the English colon and brackets around its words.
    from gpudesk import i18n
    from gpudesk.store.alerts import save_alert

    db = open_store()
    save_alert(db, t=1.0, kind="xid", severity="critical", gpu_index=0, gpu_uuid=None, host="ws1",
               message="GPU 0: Xid 79 (GPU has fallen off the bus).", evidence={"xid": 79})
    db.close()
    before = i18n.current_language()
    try:
        assert main(["--lang", "zh_CN", "monitor", "alerts", "history"]) == 0
    finally:
        i18n.set_language(before)
    assert "[严重] xid（GPU 0）：GPU 0: Xid 79" in capsys.readouterr().out


@pytest.mark.parametrize("limit", ["0", "-5", "1000000000000000000000"])
def test_cli_history_limit_must_be_a_count(capsys, limit):
    # QA: -5 listed every alert (SQLite LIMIT -5 is no limit), 10**21 raised OverflowError from sqlite3.
    assert main(["monitor", "alerts", "history", "--limit", limit]) == 2
    err = capsys.readouterr().err
    assert "--limit" in err and "Traceback" not in err


def test_cli_watch_prints_an_xid_from_nvml_events(capsys, monkeypatch):
    devs = [FakeDevice(0)]
    devs[0].events.append((EVENT_XID, 79))
    monkeypatch.setitem(sys.modules, "pynvml", make_fake_pynvml(devs))
    assert main(["monitor", "alerts", "watch", "--duration", "1s", "--interval", "0.2"]) == 0
    out = capsys.readouterr().out
    assert "Watching 1 GPU(s)" in out
    assert "[critical] xid: GPU 0: Xid 79 (GPU has fallen off the bus)." in out
    assert "Stopped; 1 alert(s) raised." in out


@pytest.mark.gpu
def test_real_nvml_alert_loop_and_event_wait():
    from gpudesk.nvml.nvml_session import probe_nvml
    from gpudesk.telemetry.sources.alert_monitor import open_alert_monitor

    if not probe_nvml().available:
        pytest.skip("no NVIDIA GPU / NVML here")
    db = open_store()
    monitor = open_alert_monitor(None, interval_s=0.2, db=db)
    try:
        for _ in range(3):
            monitor.tick()  # an idle test machine raises nothing; the event wait times out without error
        assert monitor.watcher is not None
    finally:
        monitor.close()
        monitor.source.close()
        db.close()


def test_webhook_name_lookup_that_never_answers_is_cut_at_the_deadline(monkeypatch):
    """socket.getaddrinfo faked at its boundary: a DNS server that never answers holds the lookup for 30 s (the C
    resolver takes no timeout); the webhook gives up at its 1 s deadline and says why, nothing raised."""
    import socket
    import time

    from gpudesk.telemetry.rules.alert_delivery import deliver
    from gpudesk.telemetry.rules.alerts import Alert

    release = threading.Event()
    looked_up: list[str] = []

    def hanging_getaddrinfo(host, port, *args, **kwargs):
        looked_up.append(host)
        release.wait(30)
        raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")

    monkeypatch.setattr(socket, "getaddrinfo", hanging_getaddrinfo)
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY"):
        monkeypatch.delenv(name, raising=False)
    alert = Alert(kind=AlertKind.XID, severity="critical", gpu_index=0, gpu_uuid=None, t=0.0, message="Xid 79")
    try:
        t0 = time.monotonic()
        result = deliver(alert, Delivery(webhook_url="https://hooks.hang.test/T000/B000", timeout_s=1.0))
        elapsed = time.monotonic() - t0
    finally:
        release.set()
    assert elapsed < 2.0
    assert looked_up == ["hooks.hang.test"] and result.delivered == []
    assert result.errors == ["The webhook https://hooks.hang.test/T000/B000 did not take the alert: "
                             "its host name was not resolved within 1 s"]


def test_webhook_that_trickles_its_answer_is_cut_at_the_deadline():
    """A receiver that sends its status line one byte every 0.3 s (each read within a socket timeout) is given up at
    the 1 s deadline for the whole request."""
    import socket
    import time

    from gpudesk.telemetry.rules.alert_delivery import deliver
    from gpudesk.telemetry.rules.alerts import Alert

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    stop = threading.Event()

    def trickle() -> None:
        conn, _ = listener.accept()
        conn.recv(65536)
        for byte in b"HTTP/1.1 204 No Content\r\n\r\n":
            if stop.wait(0.3):
                break
            try:
                conn.sendall(bytes([byte]))
            except OSError:
                break
        conn.close()

    threading.Thread(target=trickle, daemon=True).start()
    alert = Alert(kind=AlertKind.XID, severity="critical", gpu_index=0, gpu_uuid=None, t=0.0, message="Xid 79")
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/hook"
    try:
        t0 = time.monotonic()
        result = deliver(alert, Delivery(webhook_url=url, timeout_s=1.0))
        elapsed = time.monotonic() - t0
    finally:
        stop.set()
        listener.close()
    assert elapsed < 2.0 and result.delivered == []
    assert result.errors == [f"The webhook {url} did not take the alert: no answer within 1 s"]
