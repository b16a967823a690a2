"""Fleet reads are linear in GPUs and series (issue 25): a 5,000-GPU exporter page, a 5,000-GPU Prometheus instant
answer and the ``monitor fleet`` table over them each read within 10 s, 2.5x the GPUs costs at most 3.5x the CPU
time, and 512 GPUs x 24 h (two metrics, 721 steps) is read and judged in under 1 s from a loopback server holding
Prometheus' answers (the real-Prometheus figure is tests/benchmarks/test_fleet_figures.py).

Before issue 25 the CLI table called a whole-fleet mean once per GPU: 2,000 GPUs took 28 s and 5,000 did not
finish in 60 s. ``python -m pytest tests/benchmarks/test_fleet_scale.py -q -s`` prints the figures.
"""

from __future__ import annotations

import gc
import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from gpudesk.cli import main
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.fleet.exporter_scrape import scrape
from gpudesk.telemetry.fleet.fleet import fleet_findings
from gpudesk.telemetry.fleet.prometheus_source import DEFAULT_FLEET_METRICS, PrometheusSource

EXPORTER_METRICS = ("DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_GPU_TEMP",
                    "DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_PROF_SM_ACTIVE", "DCGM_FI_DEV_XID_ERRORS",
                    "DCGM_FI_DEV_PCIE_REPLAY_COUNTER")


def labels(i: int) -> dict[str, str]:
    node, g = divmod(i, 8)
    return {"gpu": str(g), "UUID": f"GPU-{node:06d}{g:02d}-0000-0000-0000-000000000000", "device": f"nvidia{g}",
            "modelName": "NVIDIA H100 80GB HBM3", "Hostname": f"node{node:04d}", "pci_bus_id": f"00000000:{g:02X}:00.0",
            "DCGM_FI_DRIVER_VERSION": "550.54.15"}


def exporter_page(n_gpus: int) -> bytes:
    out = []
    for name in EXPORTER_METRICS:
        out.append(f"# HELP {name} help\n# TYPE {name} gauge")
        for i in range(n_gpus):
            text = ",".join(f'{k}="{v}"' for k, v in labels(i).items())
            out.append(f"{name}{{{text}}} {i % 100}")
    return ("\n".join(out) + "\n").encode()


def instant_answer(n_gpus: int) -> bytes:
    names = ["DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_GPU_TEMP"]
    result = [{"metric": {"__name__": name, **labels(i)}, "value": [1.7e9, str(i % 100)]}
              for name in names for i in range(n_gpus)]
    return json.dumps({"status": "success", "data": {"resultType": "vector", "result": result}},
                      separators=(",", ":")).encode()


def range_answer(name: str, n_gpus: int, start: float, step: float, n_t: int, scale: float = 1.0) -> bytes:
    """Per GPU a steady level, as tests/benchmarks/test_fleet_figures.py backfills into a real Prometheus."""
    result = [{"metric": {"__name__": name, **labels(i)},
               "values": [[start + k * step, f"{(i * 37 % 100) * scale:g}"] for k in range(n_t)]}
              for i in range(n_gpus)]
    return json.dumps({"status": "success", "data": {"resultType": "matrix", "result": result}},
                      separators=(",", ":")).encode()


class Loopback:
    """Serves ``pick(path) -> body`` on 127.0.0.1."""

    def __init__(self, pick: Callable[[str], bytes]) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = pick(self.path)
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def loopback() -> Iterator[Callable[[Callable[[str], bytes]], Loopback]]:
    servers: list[Loopback] = []

    def start(pick: Callable[[str], bytes]) -> Loopback:
        servers.append(Loopback(pick))
        return servers[-1]

    yield start
    for srv in servers:
        srv.close()


def _timed(fn: Callable[[], object]) -> tuple[float, float]:
    """(wall s, CPU s) of one call, the garbage collector paused."""
    gc.collect()
    gc.disable()
    try:
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        return time.perf_counter() - w0, time.process_time() - c0
    finally:
        gc.enable()


def test_exporter_page_of_5000_gpus(loopback):
    pages = {n: exporter_page(n) for n in (2000, 5000)}
    srv = loopback(lambda path: pages[int(path.strip("/").split("/")[0])])
    cpu = {}
    for n in (2000, 5000):
        wall, cpu[n] = _timed(lambda n=n: scrape([f"{srv.url}/{n}/metrics"]))
        print(f"\nexporter page, {n} GPUs x {len(EXPORTER_METRICS)} metrics ({len(pages[n]) / 2**20:.1f} MiB): "
              f"{wall:.2f} s wall, {cpu[n]:.2f} s CPU")
        assert wall < 10
    assert cpu[5000] < 3.5 * cpu[2000], cpu


def test_monitor_fleet_table_of_5000_gpus(loopback, capsys):
    page = exporter_page(5000)
    srv = loopback(lambda path: page)
    wall, _cpu = _timed(lambda: main(["monitor", "fleet", "--scrape", srv.url + "/metrics", "--json"]))
    doc = json.loads(capsys.readouterr().out)
    print(f"\nmonitor fleet --scrape, 5000 GPUs, --json: {wall:.2f} s")
    assert len(doc["gpus"]) == 5000 and wall < 10


def test_prometheus_instant_answer_of_5000_gpus(loopback):
    answers = {n: instant_answer(n) for n in (2000, 5000)}
    names = json.dumps({"status": "success", "data": [
        "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_GPU_TEMP"]}).encode()
    srv = loopback(lambda path: names if "/label/" in path else answers[int(path.strip("/").split("/")[0])])
    cpu = {}
    for n in (2000, 5000):
        src = PrometheusSource(f"{srv.url}/{n}")
        wall, cpu[n] = _timed(lambda src=src: src.snapshot(DEFAULT_FLEET_METRICS))
        snap = src.snapshot(DEFAULT_FLEET_METRICS)
        print(f"\nPrometheus instant answer, {n} GPUs x 4 metrics ({len(answers[n]) / 2**20:.1f} MiB): "
              f"{wall:.2f} s wall, {cpu[n]:.2f} s CPU")
        assert len(snap.keys) == n and wall < 10
    assert cpu[5000] < 3.5 * cpu[2000], cpu


def test_512_gpus_over_24_hours_under_a_second(loopback):
    step, n_t = 120.0, 721
    end = 1_700_006_400.0  # a multiple of the step
    start = end - (n_t - 1) * step
    util = range_answer("DCGM_FI_DEV_GPU_UTIL", 512, start, step, n_t)
    power = range_answer("DCGM_FI_DEV_POWER_USAGE", 512, start, step, n_t, 7.0)
    names = json.dumps({"status": "success", "data": ["DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_POWER_USAGE"]}).encode()
    srv = loopback(lambda path: names if "/label/" in path else power if "POWER" in path else util)
    src = PrometheusSource(srv.url, scrape_interval_s=60)
    src.present_names()

    def full_picture() -> None:
        hist = src.history(24 * 3600, end=end, metrics=[m.GPU_UTIL, m.POWER])
        assert len(hist.keys) == 512
        fleet_findings(hist)

    best = min(_timed(full_picture)[0] for _ in range(3))
    print(f"\n512 GPUs x 24 h (2 metrics x {n_t} steps, {len(util) / 2**20:.1f} MiB each): range reads + rules "
          f"{best:.2f} s")
    assert best < 1.0


def test_judging_5000_gpus_group_by_group_is_linear():
    # every "not exported" reason of a 5,000-GPU history (18 metrics each) once, not once per host group
    import numpy as np

    from gpudesk.telemetry.fleet.fleet import FleetHistory, GpuKey, frame_from_matrix, group_keys

    def fleet(n: int) -> FleetHistory:
        keys = [GpuKey(f"node{i // 8:04d}", i % 8, f"GPU-{i}") for i in range(n)]
        t = np.arange(0, 3600, 15.0)
        reasons = {(p, f"m{j}"): "not exported" for p in range(n) for j in range(18)}
        cols = {m.GPU_UTIL: np.random.default_rng(0).uniform(0, 100, (len(t), n))}
        return FleetHistory(keys, frame_from_matrix(t, cols, reasons), 15.0)

    cpu = {}
    for n in (2000, 5000):
        hist = fleet(n)
        groups = group_keys(hist.keys)
        _wall, cpu[n] = _timed(lambda hist=hist, groups=groups: [hist.sub(p) for p in groups.values()])
        print(f"\nsub-frames of {len(groups)} host groups, {n} GPUs: {cpu[n]:.2f} s CPU")
    assert cpu[5000] < 1.0 and cpu[5000] < 3.5 * cpu[2000], cpu
