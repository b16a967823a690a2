"""The findings rules run live as alerts (fake NVML at the pynvml boundary): one rule set and one threshold set,
evaluated on the live window at a bounded rate, each alert naming its rule, once per episode."""

from __future__ import annotations

import math
from dataclasses import replace

from helpers.fake_pynvml import FakeDevice, make_fake_pynvml

from gpudesk.telemetry.sources.alert_monitor import AlertMonitor
from gpudesk.telemetry.rules.alerts import AlertEngine, AlertKind, AlertThresholds
from gpudesk.telemetry.rules.live_rules import LiveRules
from gpudesk.telemetry.core.model import Sample, SampleBatch
from gpudesk.telemetry.sources.nvml_source import NvmlSource
from gpudesk.telemetry.rules import low_util
from gpudesk.telemetry.rules.thresholds import Thresholds

GiB = 1024**3


def _run(devs, ticks, step_s, rules, scenario):
    clock = {"t": 1_750_000_000.0}
    source = NvmlSource(nvml=make_fake_pynvml(devs), clock=lambda: clock["t"])
    rules.devices = {d.index: d for d in source.devices()}
    monitor = AlertMonitor(source, AlertEngine(AlertThresholds.from_rules(rules.thresholds)), rules=rules,
                           interval_s=0.01)
    try:
        for tick in range(ticks):
            scenario(tick, devs)
            monitor.tick()
            clock["t"] += step_s
    finally:
        monitor.close()
        source.close()
    return monitor.history


def test_rules_judge_the_live_window_at_a_bounded_rate_and_name_the_rule():
    devs = [FakeDevice(i, name="NVIDIA H100 80GB HBM3", memory_total=80 * GiB) for i in range(2)]

    def scenario(tick, devs):
        devs[0].util_gpu, devs[0].memory_used = 92, 60 * GiB
        devs[1].util_gpu, devs[1].memory_used = 2, 20 * GiB  # held, doing nothing

    rules = LiveRules(every_s=30.0, window_s=600.0)
    history = _run(devs, 300, 1.0, rules, scenario)
    assert rules.evaluations <= math.ceil(300 / 30) + 1  # not once per sample
    findings = [a for a in history if a.kind is AlertKind.FINDING]
    by_rule = {(a.rule, a.gpu_index) for a in findings}
    assert (low_util.RULE, 1) in by_rule
    assert len(findings) == len(by_rule)  # each (rule, GPU) once while it holds
    low = next(a for a in findings if a.rule == low_util.RULE)
    assert low.message.startswith(f"Rule {low_util.RULE}: ") and low.evidence["rule"] == low_util.RULE
    assert all(a.gpu_index != 0 for a in findings if a.rule == low_util.RULE)  # the busy GPU is not flagged


def test_one_threshold_set_for_the_findings_and_the_alerts():
    def batch(t, util):
        return SampleBatch(t, [Sample(t, 0, "GPU-0", {"gpu_util_pct": util, "mem_used_bytes": 30.0 * GiB,
                                                       "mem_total_bytes": 80.0 * GiB})])

    def raised(th):
        rules = LiveRules(th, every_s=30.0)
        out = []
        for k in range(200):
            out += rules.feed(batch(1000.0 + k, 20.0))
        return {a.rule for a in out}

    assert low_util.RULE in raised(Thresholds())  # 20 % is under the default 30 % low line
    assert low_util.RULE not in raised(replace(Thresholds(), low_util_pct=15.0))  # the user's line: not low
    th = replace(Thresholds(), low_util_pct=15.0, idle_util_pct=3.0, idle_mem_bytes=float(4 * GiB))
    alert_th = AlertThresholds.from_rules(th, idle_s=60.0)
    assert (alert_th.busy_pct, alert_th.idle_pct, alert_th.allocated_bytes, alert_th.idle_s) == (15.0, 3.0, 4 * GiB,
                                                                                              60.0)


def test_a_finding_is_raised_again_after_it_cleared():
    def batch(t, util):
        return SampleBatch(t, [Sample(t, 0, None, {"gpu_util_pct": util, "mem_used_bytes": 30.0 * GiB})])

    rules = LiveRules(every_s=20.0, window_s=120.0)
    out = []
    for k in range(600):
        util = 2.0 if k < 200 or k >= 400 else 95.0  # low, busy long enough to leave the window, low again
        out += rules.feed(batch(1000.0 + k, util))
    assert [a.rule for a in out if a.rule == low_util.RULE] == [low_util.RULE, low_util.RULE]
