"""Findings and burn-in report figures for issue 13: rules over a 72 h x 8 GPU x 1 Hz run, report generation.

Run with: .venv/bin/python -m pytest tests/benchmarks/test_monitor_rules.py --benchmark-enable -q
With the default --benchmark-disable each runs once on 1 hour instead of 72. The frame is built directly (the
dmon import is measured with the analysis in test_monitor_core.py) and holds a realistic run: busy GPUs with
1-sample dips, a checkpoint stall every 10 min, memory creeping, so every rule has work to do.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.recording.burnin import build_report
from gpudesk.telemetry.recording.burnin_render import to_html, to_markdown
from gpudesk.telemetry.core.model import DeviceInfo, History
from gpudesk.telemetry.rules import run_rules

GPUS = 8


def burn_in_frame(hours: float, seed: int = 0) -> History:
    rng = np.random.default_rng(seed)
    secs = int(hours * 3600)
    n = secs * GPUS
    s = np.repeat(np.arange(secs, dtype=float), GPUS)
    util = np.clip(rng.normal(94, 4, n), 0, 100)
    util[rng.random(n) < 0.02] = 55.0
    util[(s % 600) < 25] = 5.0  # checkpoint every 10 min
    return History.from_rows(1.7e9 + s, np.tile(np.arange(GPUS), secs), {
        m.GPU_UTIL: util, m.PCIE_RX: rng.normal(9e8, 2e8, n), m.PCIE_TX: rng.normal(1e8, 2e7, n),
        m.MEM_USED: 40e9 + s * 5e4, m.POWER: 100 + 2.5 * util, m.SM_CLOCK: np.full(n, 1.41e9),
        m.GPU_TEMP: np.full(n, 65.0)})


@pytest.fixture(scope="module")
def run_frame(request):
    cfg = request.config
    disabled = cfg.getoption("benchmark_disable") and not cfg.getoption("benchmark_enable")
    hours = 1.0 if disabled else 72.0
    return burn_in_frame(hours), hours


DEVICES = [DeviceInfo(i, pcie_gen_max=4, pcie_width_max_lanes=16, memory_total_bytes=80 * 1024**3)
           for i in range(GPUS)]


def test_rules_72h_8gpu(benchmark, run_frame):
    frame, hours = run_frame
    cpu = {}

    def run():
        c0 = time.process_time()
        found = run_rules(frame, DEVICES)
        cpu["rules_cpu_s"] = time.process_time() - c0
        return found

    found = benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update({"rows": len(frame), "hours": hours, **cpu})
    periodic = [f for f in found if f.rule == "periodic-dips" and f.severity == "warning"]
    assert periodic and periodic[0].evidence["period_s"] == pytest.approx(600, abs=2)


def test_burnin_report_72h_8gpu(benchmark, run_frame):
    frame, hours = run_frame
    cpu = {}

    def run():
        c0 = time.process_time()
        report = build_report(frame, DEVICES, source="bench")
        md, page = to_markdown(report), to_html(report)
        cpu["report_cpu_s"] = time.process_time() - c0
        return report, md, page

    report, md, page = benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update({"rows": len(frame), "hours": hours, "html_bytes": len(page), **cpu})
    assert len(report.gpus) == GPUS and "<svg" in page
