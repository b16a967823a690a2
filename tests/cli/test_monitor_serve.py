"""`gpudesk monitor serve` on fake NVML (faked at the pynvml boundary): a REAL Prometheus (Debian package) scrapes
it and the fleet view reads the same numbers back; bearer token; 127.0.0.1 by default; per-process metrics."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
import urllib.error
import urllib.request

import pytest
from helpers.fake_pynvml import FakeDevice, FakeProcess, make_fake_pynvml
from helpers.prometheus_server import PROMETHEUS, SKIP_REASON, PrometheusServer, free_port
from prometheus_client.parser import text_string_to_metric_families

from gpudesk.cli import main
from gpudesk.nvml import gpm
from gpudesk.telemetry.sources.metrics_server import GpuCollector, MetricsServer, parse_listen
from gpudesk.telemetry.sources.nvml_source import NvmlSource
from gpudesk.telemetry.core.process_use import process_use

GiB = 1024**3
ME = os.getpid()


def _devices() -> list[FakeDevice]:
    return [
        FakeDevice(0, name="NVIDIA H100 80GB HBM3", util_gpu=87, memory_used=30 * GiB, power_mw=412_345,
                   temperature_c=71, sm_clock_mhz=1980,
                   gpm={gpm.GRAPHICS_UTIL: 97.0, gpm.SM_UTIL: 41.5, gpm.SM_OCCUPANCY: 22.0, gpm.ANY_TENSOR_UTIL: 18.0,
                        gpm.DRAM_BW_UTIL: 35.0, gpm.FP64_UTIL: 0.0, gpm.FP32_UTIL: 9.0, gpm.FP16_UTIL: 2.0},
                   compute_processes=[FakeProcess(ME, 2 * GiB)], process_util=[(ME, 60, 20)]),
        FakeDevice(1, name="NVIDIA H100 80GB HBM3", util_gpu=3, memory_used=1 * GiB, power_mw=95_000),
    ]


def _get(url: str, token: str | None = None) -> tuple[int, str]:
    req = urllib.request.Request(url)
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, ""
    except urllib.error.URLError:
        return 0, ""  # not listening yet


def _values(text: str) -> dict[tuple[str, str], float]:
    out = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            out[(s.name, s.labels.get("gpu", ""))] = s.value
    return out


def _server(fake, token: str | None = None) -> tuple[MetricsServer, NvmlSource]:
    src = NvmlSource(nvml=fake)
    session = src.session
    collector = GpuCollector(src.read, src.devices, "ws1", processes=lambda: process_use(session).processes,
                             min_interval_s=0.0)
    return MetricsServer(collector, "127.0.0.1", 0, token).start(), src


def test_dcgm_exporter_names_units_and_labels():
    server, src = _server(make_fake_pynvml(_devices()))
    try:
        _get(server.url)  # the first read primes GPM (its metrics are between two samples)
        status, text = _get(server.url)
    finally:
        server.stop()
        src.close()
    assert status == 200
    v = _values(text)
    assert v[("DCGM_FI_DEV_GPU_UTIL", "0")] == 87
    assert v[("DCGM_FI_DEV_FB_USED", "0")] == 30 * 1024  # MiB, as the DCGM exporter
    assert v[("DCGM_FI_DEV_POWER_USAGE", "0")] == pytest.approx(412.345)
    assert v[("DCGM_FI_DEV_SM_CLOCK", "0")] == 1980
    assert v[("DCGM_FI_PROF_SM_ACTIVE", "0")] == pytest.approx(0.415)  # a ratio, as DCGM
    assert ("DCGM_FI_PROF_SM_ACTIVE", "1") not in v  # GPU 1 has no GPM: left out, never 0
    fams = {f.name: f for f in text_string_to_metric_families(text)}
    labels = fams["DCGM_FI_DEV_GPU_UTIL"].samples[0].labels
    assert {"gpu", "UUID", "device", "modelName", "Hostname"} <= set(labels)
    assert labels["modelName"] == "NVIDIA H100 80GB HBM3" and labels["Hostname"] == "ws1"
    proc = fams["gpudesk_process_gpu_memory_used_bytes"].samples[0]
    assert proc.value == 2 * GiB and proc.labels["pid"] == str(ME)
    assert fams["gpudesk_process_sm_util_pct"].samples[0].value == 60


def test_mig_gpu_instances_served_with_gpu_i_id():
    migs = [{"uuid": "MIG-aaaa", "gi": 1, "ci": 0, "memory_total": 40 * GiB},
            {"uuid": "MIG-bbbb", "gi": 2, "ci": 0, "memory_total": 20 * GiB}]
    dev = FakeDevice(0, name="NVIDIA H100 80GB HBM3", gpm={gpm.SM_UTIL: 50.0}, mig_mode=1, mig_devices=migs,
                     gpm_mig={1: {gpm.SM_UTIL: 87.0}, 2: {gpm.SM_UTIL: 0.0}})
    server, src = _server(make_fake_pynvml([dev]))
    try:
        _get(server.url)
        status, text = _get(server.url)
    finally:
        server.stop()
        src.close()
    assert status == 200
    sm = {s.labels["GPU_I_ID"]: s.value for f in text_string_to_metric_families(text) for s in f.samples
          if s.name == "DCGM_FI_PROF_SM_ACTIVE"}
    assert sm == {"1": pytest.approx(0.87), "2": 0.0}  # per instance; the whole GPU has no GPM sample under MIG
    from gpudesk.telemetry.fleet.fleet import key_from_labels

    util = next(s for f in text_string_to_metric_families(text) for s in f.samples if s.name == "DCGM_FI_DEV_POWER_USAGE")
    assert key_from_labels(util.labels).mig_instance is None  # the whole GPU's rows stay the whole GPU's


def test_bearer_token_is_required_when_set_and_compared_whole():
    server, src = _server(make_fake_pynvml(_devices()), token="s3cret-token")
    try:
        assert _get(server.url)[0] == 401
        assert _get(server.url, "s3cret-toke")[0] == 401
        assert _get(server.url, "s3cret-token")[0] == 200
        assert _get(server.url.replace("/metrics", "/other"), "s3cret-token")[0] == 404
    finally:
        server.stop()
        src.close()


def test_listen_defaults_to_loopback():
    assert parse_listen(":9500", 9401) == ("127.0.0.1", 9500)
    assert parse_listen("0.0.0.0:9500", 9401) == ("0.0.0.0", 9500)
    assert parse_listen("[::1]:9500", 9401) == ("::1", 9500)
    assert parse_listen("127.0.0.1", 9401) == ("127.0.0.1", 9401)


def test_cli_serve_then_fleet_scrape_reads_the_same_numbers(capsys, monkeypatch, tmp_path):
    fake = make_fake_pynvml(_devices())
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    token_file = tmp_path / "token"
    token_file.write_text("cli-token\n")
    port = free_port()
    done: list[int] = []
    thread = threading.Thread(target=lambda: done.append(main(
        ["monitor", "serve", "--listen", f"127.0.0.1:{port}", "--token-file", str(token_file), "--duration", "4s",
         "--interval", "0.1"])))
    thread.start()
    url = f"http://127.0.0.1:{port}/metrics"
    deadline = time.monotonic() + 10
    while _get(url, "cli-token")[0] != 200 and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.2)
    monkeypatch.setenv("GPUDESK_FLEET_SECRET", "cli-token")
    assert main(["monitor", "fleet", "--scrape", url, "--auth", "bearer", "--json"]) == 0
    first = capsys.readouterr().out
    assert f"Serving 2 GPU(s) at {url} (bearer token required)" in first
    doc = json.loads(first[first.index("\n{") + 1:])
    gpus = {g["gpu_index"]: g for g in doc["gpus"]}
    assert gpus[0]["gpu_util_pct_mean"] == 87 and gpus[1]["gpu_util_pct_mean"] == 3
    assert gpus[0]["mem_used_bytes_max"] == 30 * GiB
    assert gpus[0]["power_w_mean"] == pytest.approx(412.345)
    assert gpus[0]["model_name"] == "NVIDIA H100 80GB HBM3"
    # the per-process series roll up per user: one process of this user holding 2 GiB on GPU 0
    import getpass

    assert doc["users"] == [{"user": getpass.getuser(), "processes": 1, "gpus": 1, "used_memory_bytes": 2 * GiB,
                             "hosts": [doc["processes"][0]["host"]]}]
    assert doc["processes"][0]["pid"] == ME and doc["processes"][0]["sm_util_pct"] == 60
    thread.join(15)
    assert done == [0]
    assert "Stopped after" in capsys.readouterr().out


@pytest.mark.skipif(PROMETHEUS is None, reason=SKIP_REASON)
def test_real_prometheus_scrapes_serve_and_the_fleet_view_reads_the_same_numbers(tmp_path, capsys):
    server, src = _server(make_fake_pynvml(_devices()))
    prom = PrometheusServer(tmp_path, {"ws1": server.url})
    try:
        prom.wait_ready()
        time.sleep(3.5)  # a few scrapes (1 s interval) so the GPM ratios (second sample on) are stored
        assert main(["monitor", "fleet", "--prometheus", prom.url, "--window", "2m", "--json"]) == 0
        doc = json.loads(capsys.readouterr().out)
    finally:
        prom.stop()
        server.stop()
        src.close()
    gpus = {g["gpu_index"]: g for g in doc["gpus"]}
    assert set(gpus) == {0, 1}
    assert gpus[0]["gpu_util_pct_mean"] == 87 and gpus[1]["gpu_util_pct_mean"] == 3
    assert gpus[0]["mem_used_bytes_max"] == 30 * GiB
    assert gpus[0]["power_w_mean"] == pytest.approx(412.345)
    assert gpus[0]["sm_active_pct_mean"] == pytest.approx(41.5)
    assert gpus[1]["sm_active_pct_mean"] is None
    assert gpus[0]["host"] == "ws1" and gpus[0]["model_name"] == "NVIDIA H100 80GB HBM3"
    assert server.scrapes >= 2


@pytest.mark.gpu
def test_real_nvml_served_with_dcgm_names():
    from gpudesk.nvml.nvml_session import probe_nvml

    if not probe_nvml().available:
        pytest.skip("no NVIDIA GPU / NVML here")
    src = NvmlSource()
    collector = GpuCollector(src.read, src.devices, "gpu-host", processes=lambda: process_use(src.session).processes)
    server = MetricsServer(collector, "127.0.0.1", 0).start()
    n = len(src.devices())
    try:
        status, text = _get(server.url)
    finally:
        server.stop()
        src.close()
    assert status == 200
    gpus = {gpu for (name, gpu) in _values(text) if name == "DCGM_FI_DEV_FB_USED"}
    assert len(gpus) == n  # every GPU's memory, in MiB under the DCGM exporter's name
