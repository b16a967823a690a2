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
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.rules.analysis import analyze
from gpudesk.telemetry.formats.dmon import read_dmon_file
from gpudesk.telemetry.core.model import DeviceInfo, SampleBatch
from gpudesk.telemetry.sources.nvml_source import NvmlSource
from gpudesk.store import recordings as rec_module
from gpudesk.telemetry.recording.recorder import Recorder, load_frame
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
    assert len(log.frame) * len(log.frame.gpus) == rows
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
    t_end = float(log.frame.times[-1])
    t0, c0 = time.perf_counter(), time.process_time()
    hour = load_frame(db, sid, t_end - 3600, t_end)
    t1, c1 = time.perf_counter(), time.process_time()
    whole = load_frame(db, sid)
    t2, c2 = time.perf_counter(), time.process_time()
    assert len(hour) * GPUS == min(rows, 3601 * GPUS) and len(whole) * GPUS == rows
    benchmark.extra_info.update({"rows": rows, "metrics_per_row": len(log.frame.columns), **cpu,
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
    held = log.frame.nbytes
    benchmark.extra_info.update({"frame_bytes": held, "traced_current_bytes": current, "traced_peak_bytes": peak,
                                 "hours": hours, "metrics": len(log.frame.columns)})
    assert held <= current


def test_memory_of_72h_8gpu_frame_by_column_dtype(benchmark):
    """Bytes a History holds for 72 h x 8 GPUs x 1 Hz with the column dtypes of ``model.column_dtype``
    (float32 for %, W, C, link gen/width, flags; float64 for bytes, bytes/s, Hz, counters), against all-float64.

    Measured on a real frame of the Monitor tab's history metrics (72 h when benchmarks are enabled, 1 h
    otherwise); the all-metrics figure (every store column, as a whole NVML recording read back) is the measured
    bytes per row of a 1-hour frame x 72 h of rows."""
    from gpudesk.store.recordings import SAMPLE_COLUMNS

    hours = 1.0 if benchmark.disabled else 72.0
    tab_metrics = (m.GPU_UTIL, m.MEM_UTIL, m.MEM_USED, m.PCIE_RX, m.PCIE_TX, m.POWER, m.GPU_TEMP, m.SM_CLOCK,
                   m.MEM_CLOCK)

    def frame_of(names, secs):
        n = secs * GPUS
        t = np.repeat(1.767e9 + np.arange(secs, dtype=np.float64), GPUS)
        gpu = np.tile(np.arange(GPUS, dtype=np.int32), secs)
        return m.History.from_rows(t, gpu, {k: np.full(n, 42.0, dtype=m.column_dtype(k)) for k in names})

    frame = benchmark.pedantic(lambda: frame_of(tab_metrics, int(hours * 3600)), rounds=1, iterations=1)
    rows_72h = 72 * 3600 * GPUS
    tab_72h = frame.nbytes * rows_72h // (len(frame) * GPUS)
    tab_f64_72h = rows_72h * (8 + 4 + 8 * len(tab_metrics))
    hour = frame_of(SAMPLE_COLUMNS, 3600)
    all_72h = hour.nbytes * rows_72h // (len(hour) * GPUS)
    all_f64_72h = rows_72h * (8 + 4 + 8 * len(SAMPLE_COLUMNS))
    benchmark.extra_info.update({
        "hours_measured": hours, "tab_metrics_72h_mb": round(tab_72h / 1e6, 1),
        "tab_metrics_72h_all_float64_mb": round(tab_f64_72h / 1e6, 1),
        "all_store_columns_72h_mb": round(all_72h / 1e6, 1),
        "all_store_columns_72h_all_float64_mb": round(all_f64_72h / 1e6, 1),
    })
    assert tab_72h < 200e6 and tab_72h < tab_f64_72h and all_72h < all_f64_72h
