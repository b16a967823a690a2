"""Bottleneck rules, statistics and heat maps on frames built to trigger (or not) each rule."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.rules.analysis import analyze
from gpudesk.telemetry.formats.dmon import read_dmon_file
from gpudesk.telemetry.rules.heatmap import heatmap
from gpudesk.telemetry.core.model import DeviceInfo, History, TelemetryError
from gpudesk.telemetry.rules import run_rules
from gpudesk.telemetry.core.stats import span_stats

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "monitor"
GEN4_X16 = 1969e6 * 16  # bytes/s per direction


def frame(n=300, gpus=1, **cols):
    """n seconds x gpus rows; each keyword is a metric -> array (n,) or (gpus, n) or scalar."""
    t = np.repeat(np.arange(n, dtype=float), gpus) + 1.7e9
    g = np.tile(np.arange(gpus), n)
    metrics = {}
    for name, v in cols.items():
        a = np.asarray(v, dtype=float)
        if a.ndim == 0:
            a = np.full((gpus, n), float(a))
        elif a.ndim == 1:
            a = np.tile(a, (gpus, 1))
        metrics[name] = a.T.reshape(-1)
    return History.from_rows(t, g, metrics)


def link_dev(i=0, **kw):
    return DeviceInfo(i, pcie_gen_max=4, pcie_width_max_lanes=16, pcie_link_source="catalog:a100-80-pcie",
                      memory_total_bytes=80 * 1024**3, **kw)


def by_rule(findings, rule):
    """Findings of ``rule``, leaving out the "checked, nothing found" sentence every quiet rule adds."""
    return [f for f in findings if f.rule == rule and not f.evidence.get("checked")]


def test_starvation_fires_on_the_method_rule():
    f = frame(**{m.GPU_UTIL: 40.0, m.PCIE_RX: 0.9 * GEN4_X16, m.PCIE_TX: 0.1 * GEN4_X16})
    (hit,) = by_rule(run_rules(f, [link_dev()]), "pipeline-starvation")
    assert hit.severity == "critical" and hit.gpu == 0
    assert hit.evidence["gpu_util_median_pct"] == 40.0
    assert hit.evidence["pcie_share_median_pct"] == 90.0
    assert "catalog:a100-80-pcie" in hit.evidence["pcie_link"]
    assert "data pipeline" in hit.advice


def test_starvation_not_fired_when_busy_or_link_idle():
    busy = frame(**{m.GPU_UTIL: 95.0, m.PCIE_RX: 0.9 * GEN4_X16})
    idle_link = frame(**{m.GPU_UTIL: 40.0, m.PCIE_RX: 0.2 * GEN4_X16})
    assert not by_rule(run_rules(busy, [link_dev()]), "pipeline-starvation")
    assert not by_rule(run_rules(idle_link, [link_dev()]), "pipeline-starvation")


def test_starvation_single_bursts_do_not_fire_but_sustained_runs_do():
    u = np.full(300, 95.0)
    p = np.full(300, 0.1 * GEN4_X16)
    u[::20], p[::20] = 30.0, 0.95 * GEN4_X16  # isolated 1-s bursts
    assert not by_rule(run_rules(frame(**{m.GPU_UTIL: u, m.PCIE_RX: p}), [link_dev()]), "pipeline-starvation")
    u[105:165], p[105:165] = 30.0, 0.95 * GEN4_X16  # 60 s in a row
    (hit,) = by_rule(run_rules(frame(**{m.GPU_UTIL: u, m.PCIE_RX: p}), [link_dev()]), "pipeline-starvation")
    assert hit.severity == "warning" and hit.evidence["longest_sustained_s"] == 60.0
    assert hit.span == (1.7e9 + 105, 1.7e9 + 164)


def test_starvation_not_judged_without_link_or_util():
    f = frame(**{m.GPU_UTIL: 40.0, m.PCIE_RX: 0.9 * GEN4_X16})
    (nj,) = by_rule(run_rules(f, [DeviceInfo(0)]), "pipeline-starvation")
    assert nj.severity == "not-judged" and "pick the GPU model" in nj.summary
    f2 = frame(**{m.GPU_UTIL: np.nan, m.PCIE_RX: 0.9 * GEN4_X16})
    f2.reasons[(0, m.GPU_UTIL)] = "NotSupported (this GPU or driver does not provide it)"
    (nj2,) = by_rule(run_rules(f2, [link_dev()]), "pipeline-starvation")
    assert nj2.severity == "not-judged" and "NotSupported" in nj2.summary


def test_starvation_uses_nvml_link_columns():
    f = frame(**{m.GPU_UTIL: 40.0, m.PCIE_TX: 0.9 * GEN4_X16, m.PCIE_GEN_MAX: 4, m.PCIE_WIDTH_MAX: 16})
    (hit,) = by_rule(run_rules(f), "pipeline-starvation")
    assert hit.evidence["pcie_link_source"] == "nvml"


def test_cpu_bound_swinging():
    u = np.where(np.arange(300) % 4 < 2, 95.0, 5.0)
    (hit,) = by_rule(run_rules(frame(**{m.GPU_UTIL: u})), "cpu-bound-preprocessing")
    assert hit.evidence["gpu_util_p5_pct"] == 5.0 and hit.evidence["gpu_util_p95_pct"] == 95.0
    steady = frame(**{m.GPU_UTIL: 90.0 + np.sin(np.arange(300))})
    assert not by_rule(run_rules(steady), "cpu-bound-preprocessing")


def test_imbalance_names_the_lagging_gpu():
    u = np.vstack([np.full(300, 95.0), np.full(300, 93.0), np.full(300, 35.0), np.full(300, 96.0)])
    (hit,) = by_rule(run_rules(frame(gpus=4, **{m.GPU_UTIL: u})), "multi-gpu-imbalance")
    assert hit.gpu == 2 and hit.evidence["lagging_gpu_util_median_pct"] == 35.0
    even = frame(gpus=4, **{m.GPU_UTIL: 90.0})
    assert not by_rule(run_rules(even), "multi-gpu-imbalance")


def test_memory_safe_line_with_catalog_total_and_nvml_total():
    gib = 1024**3
    f = frame(**{m.MEM_USED: 70 * gib})
    (hit,) = by_rule(run_rules(f, [link_dev()]), "memory-safe-line")
    assert hit.severity == "warning" and hit.evidence["mem_used_p95_pct"] == 87.5
    f2 = frame(**{m.MEM_USED: 79 * gib, m.MEM_TOTAL: 80 * gib})
    assert by_rule(run_rules(f2), "memory-safe-line")[0].severity == "critical"
    ok = frame(**{m.MEM_USED: 60 * gib, m.MEM_TOTAL: 80 * gib})
    assert not by_rule(run_rules(ok), "memory-safe-line")
    unknown = by_rule(run_rules(f, [DeviceInfo(0)]), "memory-safe-line")[0]
    assert unknown.severity == "not-judged" and "capacity unknown" in unknown.summary


def test_throttling_from_nvml_bits_and_from_dmon_violations():
    ev = np.where(np.arange(300) < 100, float(m.POWER_THROTTLE_BITS & 0x4), 0.0)
    found = run_rules(frame(**{m.CLOCK_EVENTS: ev}))
    (p,) = by_rule(found, "power-throttling")
    assert p.severity == "critical" and p.evidence["power_throttled_samples_pct"] == pytest.approx(33.3, abs=0.1)
    (clear,) = by_rule(found, "thermal-throttling")  # judged and clear: reported as info, never silent
    assert clear.severity == "info" and clear.evidence["thermal_throttled_samples_pct"] == 0.0
    tv = np.where(np.arange(300) < 30, 1.0, 0.0)
    (th,) = by_rule(run_rules(frame(**{m.THERMAL_VIOLATION: tv, m.POWER_VIOLATION: 0.0})), "thermal-throttling")
    assert th.severity == "warning" and th.evidence["basis"] == "dmon pviol/tviol"
    (nj,) = by_rule(run_rules(frame(**{m.GPU_UTIL: 50.0})), "throttling")
    assert nj.severity == "not-judged"


def test_pcie_link_degraded_only_under_load():
    idle = frame(**{m.GPU_UTIL: 0.0, m.PCIE_GEN_CUR: 1, m.PCIE_WIDTH_CUR: 16, m.PCIE_GEN_MAX: 4,
                    m.PCIE_WIDTH_MAX: 16})
    assert not by_rule(run_rules(idle), "pcie-link-degraded")
    busy = frame(**{m.GPU_UTIL: 90.0, m.PCIE_GEN_CUR: 4, m.PCIE_WIDTH_CUR: 4, m.PCIE_GEN_MAX: 4,
                    m.PCIE_WIDTH_MAX: 16})
    (hit,) = by_rule(run_rules(busy), "pcie-link-degraded")
    assert hit.evidence["pcie_width_current_median_lanes"] == 4.0
    dmon = frame(**{m.GPU_UTIL: 90.0})
    assert by_rule(run_rules(dmon, [link_dev()]), "pcie-link-degraded")[0].severity == "not-judged"


def test_span_stats_median_p5_p95_and_missing():
    v = np.arange(101, dtype=float)
    v[0] = np.nan
    st = span_stats(frame(n=101, **{m.GPU_UTIL: v, m.POWER: np.nan}))[0]
    assert st[m.GPU_UTIL].median == 50.5 and st[m.GPU_UTIL].missing == 1 and st[m.GPU_UTIL].n == 100
    assert st[m.GPU_UTIL].p5 == pytest.approx(5.95) and st[m.GPU_UTIL].p95 == pytest.approx(95.05)
    assert st[m.POWER].median is None and st[m.POWER].n == 0


def test_span_stats_over_a_span():
    f = frame(n=100, **{m.GPU_UTIL: np.arange(100, dtype=float)})
    st = span_stats(f, 1.7e9 + 10, 1.7e9 + 20)[0][m.GPU_UTIL]
    assert st.median == 15.0 and st.n == 11


def test_heatmap_bins_and_no_data_is_nan():
    u = np.vstack([np.arange(100, dtype=float), np.full(100, np.nan)])
    h = heatmap(frame(n=100, gpus=2, **{m.GPU_UTIL: u}), bins=4)
    assert h.values.shape == (2, 4) and h.gpus == [0, 1]
    assert h.values[0, 0] == pytest.approx(np.mean(np.arange(25)))
    assert np.all(np.isnan(h.values[1]))
    with pytest.raises(TelemetryError):
        heatmap(frame(n=10, **{m.GPU_UTIL: 1.0}), bins=0)


def test_analyze_sample_a_json_shape():
    log = read_dmon_file(FIX / "sample_a_pucvmet.txt")
    result = analyze(log.frame, [link_dev(i) for i in range(4)])
    j = json.loads(json.dumps(result.to_json()))
    g0 = j["gpus"]["0"]["metrics"][m.GPU_UTIL]
    assert (g0["median"], g0["p5"], g0["p95"]) == (25.0, 25.0, 25.0)
    assert m.ECC_SBE not in j["gpus"]["0"]["metrics"]  # all '-' -> not present
    for f in j["findings"]:
        assert {"rule", "gpu", "severity", "evidence", "advice"} <= set(f)
    assert j["gpus"]["0"]["pcie_link_source"] == "catalog:a100-80-pcie"


def test_one_idle_gpu_does_not_hide_a_second_weak_one():
    # the tryout's job: 2 nodes x 4 H100, one GPU idle at 0 %, one at 38 %, six at about 97 %
    u = np.vstack([np.full(300, v) for v in (97.0, 38.0, 97.0, 96.0, 97.0, 98.0, 97.0, 0.0)])
    hits = by_rule(run_rules(frame(gpus=8, **{m.GPU_UTIL: u})), "multi-gpu-imbalance")
    assert sorted(h.gpu for h in hits) == [1, 7]
    assert all(h.evidence["others_util_median_pct"] == 97.0 for h in hits)


def test_imbalance_and_straggler_need_enough_samples():
    u = np.array([[95.0], [20.0]])
    found = [f for f in run_rules(frame(n=1, gpus=2, **{m.GPU_UTIL: u}))
             if f.rule in ("multi-gpu-imbalance", "straggler")]
    assert {f.rule for f in found} == {"multi-gpu-imbalance", "straggler"}
    assert all(f.severity == "not-judged" and "1 sample per GPU" in f.summary for f in found)
