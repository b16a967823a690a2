"""Monitor-core figures for issue 4: NVML tick overhead, dmon import + analysis, recorder write rate, memory.

Run with: .venv/bin/python -m pytest tests/benchmarks/test_monitor_core.py --benchmark-enable -q
With the default --benchmark-disable each runs once on a small input (1 hour instead of 72).
"""

from __future__ import annotations

import io
import time
import tracemalloc

import numpy as np
import pytest

from gpudesk.store import open_store
from gpudesk.telemetry import model as m
from gpudesk.telemetry.analysis import analyze
from gpudesk.telemetry.dmon import read_dmon_file
from gpudesk.telemetry.model import DeviceInfo, SampleBatch
from gpudesk.telemetry.nvml_source import NvmlSource
from gpudesk.store import recordings as rec_module
from gpudesk.telemetry.recorder import Recorder, load_frame
from helpers.fake_pynvml import make_fake_pynvml

GPUS = 8


def write_dmon_log(path, hours: float, gpus: int = GPUS, seed: int = 0) -> int:
    """A synthetic ``nvidia-smi dmon -s umt -o DT`` log (the format of monitor.md section 3, newer tokens) with a
    repeated header every 1000 s, like a long capture restarted by logrotate."""
    rng = np.random.default_rng(seed)
    secs = int(hours * 3600)
    n = secs * gpus
    s = np.repeat(np.arange(secs), gpus)
    day = 20240101 + s // 86400
    cols = [day, (s // 3600) % 24, (s // 60) % 60, s % 60, np.tile(np.arange(gpus), secs),
            rng.integers(0, 101, n), rng.integers(0, 101, n), np.zeros(n, int), np.zeros(n, int),
            rng.integers(1000, 80000, n), np.full(n, 2), np.zeros(n, int), rng.integers(0, 25000, n),
            rng.integers(0, 25000, n)]
    data = np.column_stack(cols)
    header = ("#Date       Time        gpu     sm    mem    enc    dec    jpg    ofa     fb   bar1   ccpm  rxpci  txpci\n"
              "#YYYYMMDD   HH:MM:SS    Idx      %      %      %      %      %      %     MB     MB     MB   MB/s   MB/s\n")
    fmt = "%d %02d:%02d:%02d %6d %6d %6d %6d %6d      -      - %6d %6d %6d %6d %6d"
    block = 1000 * gpus
    with open(path, "w", encoding="utf-8") as fh:
        for start in range(0, n, block):
            fh.write(header)
            buf = io.StringIO()
            np.savetxt(buf, data[start:start + block], fmt=fmt)
            fh.write(buf.getvalue())
    return n


def test_sampling_tick_8_gpus(benchmark):
    src = NvmlSource(nvml=make_fake_pynvml(GPUS), slow_interval_s=5.0)
    batch = benchmark(src.read)
    assert len(batch) == GPUS
    src.close()


@pytest.fixture(scope="module")
def big_log(tmp_path_factory, request):
    cfg = request.config
    disabled = cfg.getoption("benchmark_disable") and not cfg.getoption("benchmark_enable")
    hours = 1.0 if disabled else 72.0
    path = tmp_path_factory.mktemp("dmon") / f"dmon_{int(hours)}h_{GPUS}gpu.txt"
    rows = write_dmon_log(path, hours)
    return path, rows, hours


def test_import_and_analysis_72h_8gpu(benchmark, big_log):
    path, rows, hours = big_log
    devices = [DeviceInfo(i, pcie_gen_max=4, pcie_width_max_lanes=16, memory_total_bytes=80 * 1024**3)
               for i in range(GPUS)]

    cpu = {}

    def run():
        c0 = time.process_time()
        log = read_dmon_file(path)
        c1 = time.process_time()
        result = analyze(log.frame, devices)
        cpu.update(parse_cpu_s=c1 - c0, analyze_cpu_s=time.process_time() - c1)
        return log, result

    log, result = benchmark.pedantic(run, rounds=1, iterations=1)
    # CPU seconds of this process, meaningful even when other work shares the cores
    benchmark.extra_info.update({"lines": rows, "hours": hours, **cpu})
    assert len(log.frame) == rows
    assert set(result.stats) == set(range(GPUS))


def test_import_into_store(benchmark, big_log):
    path, rows, hours = big_log
    log = read_dmon_file(path)

    cpu = {}

    def run():
        c0 = time.process_time()
        db = open_store()
        rec = Recorder(db)
        rec.start([DeviceInfo(i) for i in range(GPUS)], source="dmon-file:bench")
        n = rec.write_frame(log.frame)
        rec.stop()
        cpu["write_cpu_s"] = time.process_time() - c0
        return n

    n = benchmark.pedantic(run, rounds=1, iterations=1)
    assert n == rows
    # span read: the last hour of the session, then the whole session
    db = open_store()
    sid = rec_module.list_sessions(db)[0].id
    t_end = float(log.frame.t[-1])
    t0, c0 = time.perf_counter(), time.process_time()
    hour = load_frame(db, sid, t_end - 3600, t_end)
    t1, c1 = time.perf_counter(), time.process_time()
    whole = load_frame(db, sid)
    t2, c2 = time.perf_counter(), time.process_time()
    assert len(hour) == min(rows, 3601 * GPUS) and len(whole) == rows
    benchmark.extra_info.update({"rows": rows, "metrics_per_row": len(log.frame.metrics), **cpu,
                                 "read_last_hour_s": t1 - t0, "read_last_hour_cpu_s": c1 - c0,
                                 "read_whole_s": t2 - t1, "read_whole_cpu_s": c2 - c1})


def test_recorder_write_rate_live_batches(benchmark):
    """Batches as the NVML source makes them (8 GPUs, ~28 metrics each), committed every second."""
    src = NvmlSource(nvml=make_fake_pynvml(GPUS), slow_interval_s=0.0)
    template = src.read()
    ticks = 200 if benchmark.disabled else 5000
    batches = []
    for k in range(ticks):
        samples = [m.Sample(template.t + k, s.gpu_index, s.gpu_uuid, dict(s.values), dict(s.reasons))
                   for s in template.samples]
        batches.append(SampleBatch(template.t + k, samples))
    values_per_batch = sum(len(s.values) for s in template.samples)

    cpu = {}

    def run():
        c0 = time.process_time()
        db = open_store()
        rec = Recorder(db, flush_interval_s=1.0)
        rec.start(src.devices(), source="nvml")
        for b in batches:
            rec.write(b)
        rec.stop()
        cpu["cpu_s"] = time.process_time() - c0
        return rec.rows_written

    rows = benchmark.pedantic(run, rounds=1, iterations=1)
    assert rows == ticks * GPUS
    benchmark.extra_info.update({"gpu_samples": rows, "metric_values": ticks * values_per_batch, **cpu})


def test_memory_of_72h_8gpu_history(benchmark, big_log):
    path, rows, hours = big_log

    def run():
        tracemalloc.start()
        log = read_dmon_file(path)
        current, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return log, current, peak

    log, current, peak = benchmark.pedantic(run, rounds=1, iterations=1)
    held = log.frame.t.nbytes + log.frame.gpu.nbytes + sum(v.nbytes for v in log.frame.metrics.values())
    benchmark.extra_info.update({"frame_bytes": held, "traced_current_bytes": current, "traced_peak_bytes": peak,
                                 "hours": hours, "metrics": len(log.frame.metrics)})
    assert held <= current
