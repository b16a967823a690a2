"""One pattern per test, on synthetic frames that isolate it (the labelled logs are in test_rules_accuracy.py)."""

from __future__ import annotations

import numpy as np

from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.rules.findings_summary import summarize
from gpudesk.telemetry.core.host_metrics import HOST_CPU_UTIL
from gpudesk.telemetry.core.model import DeviceInfo, History
from gpudesk.telemetry.rules import RULES, run_rules
from gpudesk.telemetry.rules.periodic import periodicity

T0 = 1.7e9


def frame(n: int, gpus: int = 1, **cols: np.ndarray | float) -> History:
    t = np.repeat(T0 + np.arange(n, dtype=float), gpus)
    g = np.tile(np.arange(gpus), n)
    metrics = {}
    for name, v in cols.items():
        a = np.asarray(v, dtype=float)
        if a.ndim == 0:
            a = np.full((n, gpus), float(a))
        elif a.ndim == 1:
            a = np.tile(a[:, None], (1, gpus))
        metrics[name] = a.reshape(-1)
    return History.from_rows(t, g, metrics)


def judged(findings, rule):
    return [f for f in findings if f.rule == rule and f.severity in ("warning", "critical")]


def test_cpu_saturation_during_a_stall_is_input_starvation():
    u = np.full(600, 95.0)
    cpu = np.full(600, 40.0)
    u[200:260] = 12.0
    cpu[200:260] = 100.0
    found = run_rules(frame(600, 2, **{m.GPU_UTIL: u, HOST_CPU_UTIL: cpu, m.PCIE_RX: 5e8}))
    (hit,) = judged(found, "input-starvation")
    assert hit.gpu is None and hit.evidence["cause"] == "host-cpu"
    assert hit.span == (T0 + 200, T0 + 259) and "host CPU at 100 %" in hit.summary
    assert "host CPU at 100 %: the data loader is the bottleneck" in summarize(found)


def test_low_span_with_ordinary_traffic_is_not_starvation_but_says_what_it_checked():
    u = np.full(600, 95.0)
    u[200:260] = 5.0
    found = run_rules(frame(600, 1, **{m.GPU_UTIL: u, m.PCIE_RX: 8e8}), [DeviceInfo(0, pcie_gen_max=4,
                                                                                       pcie_width_max_lanes=16)])
    assert not judged(found, "input-starvation")
    (quiet,) = [f for f in found if f.rule == "input-starvation"]
    assert quiet.severity == "info" and quiet.summary.startswith("No starvation found: 1 low-utilization span")


def test_periodicity_tolerates_one_skipped_dip_but_not_random_gaps():
    assert periodicity(np.array([0, 600, 1200, 2400, 3000.0]), 0.2)[0] == 600.0
    assert periodicity(np.array([0, 100, 700, 900, 2000.0]), 0.2) is None


def test_memory_creep_needs_an_hour_and_a_steady_rise():
    n = 7200
    rising = np.linspace(20e9, 40e9, n)
    dev = [DeviceInfo(0, memory_total_bytes=80 * 2**30)]
    (hit,) = judged(run_rules(frame(n, **{m.MEM_USED: rising, m.GPU_UTIL: 95.0}), dev), "memory-creep")
    assert 20e9 * 0.9 < hit.evidence["mem_rise_bytes"] < 20e9 * 1.1 and hit.evidence["time_to_full_s"] > 0
    short = run_rules(frame(1800, **{m.MEM_USED: np.linspace(20e9, 40e9, 1800), m.GPU_UTIL: 95.0}), dev)
    (nj,) = [f for f in short if f.rule == "memory-creep"]
    assert nj.severity == "not-judged" and "30 min" in nj.summary
    flat = run_rules(frame(n, **{m.MEM_USED: 30e9 + 1e9 * np.sin(np.arange(n) / 50), m.GPU_UTIL: 95.0}), dev)
    assert not judged(flat, "memory-creep")


def test_clock_reference_prefers_the_application_clock():
    from gpudesk.telemetry.core.host_metrics import SM_CLOCK_APP
    found = run_rules(frame(300, **{m.GPU_UTIL: 95.0, m.SM_CLOCK: 1.2e9, SM_CLOCK_APP: 1.41e9}))
    (hit,) = judged(found, "clocks-below-max")
    assert hit.evidence["reference"] == "application clock"
    steady = run_rules(frame(300, **{m.GPU_UTIL: 95.0, m.SM_CLOCK: 1.2e9}))
    assert not judged(steady, "clocks-below-max")


def test_nvlink_idle_only_when_several_gpus_work():
    busy = {m.GPU_UTIL: 95.0, m.NVLINK_RX: 1e6, m.NVLINK_TX: 1e6}
    (hit,) = judged(run_rules(frame(120, 4, **busy)), "nvlink-idle")
    assert hit.gpu is None and "GPUs 0-3" in hit.summary
    used = dict(busy, **{m.NVLINK_RX: 40e9})
    assert not judged(run_rules(frame(120, 4, **used)), "nvlink-idle")
    (nj,) = [f for f in run_rules(frame(120, 4, **{m.GPU_UTIL: 95.0})) if f.rule == "nvlink-idle"]
    assert nj.severity == "not-judged"


def test_a_rule_that_cannot_judge_says_why_once():
    found = run_rules(frame(120, 8, **{m.GPU_UTIL: 95.0}))
    throttling = [f for f in found if f.rule == "throttling"]
    assert len(throttling) == 1 and throttling[0].gpu is None and "GPUs 0-7" in throttling[0].summary


def test_every_rule_says_something_on_a_clean_busy_run():
    n = 4000
    rng = np.random.default_rng(0)
    found = run_rules(frame(n, 2, **{m.GPU_UTIL: np.clip(rng.normal(94, 3, n), 0, 100), m.PCIE_RX: 9e8,
                                     m.MEM_USED: 50e9, m.SM_CLOCK: 1.41e9, m.CLOCK_EVENTS: 0.0}),
                      [DeviceInfo(i, memory_total_bytes=80 * 2**30, pcie_gen_max=4, pcie_width_max_lanes=16)
                       for i in range(2)])
    assert not [f for f in found if f.severity in ("warning", "critical")]
    rules = {f.rule for f in found}
    assert {"low-utilization", "input-starvation", "pipeline-starvation", "periodic-dips", "memory-safe-line",
            "memory-creep", "multi-gpu-imbalance", "straggler", "clocks-below-max", "power-throttling",
            "cpu-bound-preprocessing"} <= rules
    assert len(RULES) == 12
    assert summarize(found).startswith("GPUs busy 100 % of the run. No stall or other problem found")
