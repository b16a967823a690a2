"""Display names of the findings' evidence keys, rule ids and severities: one table next to the rules, for the window,
the CLI and the reports.

The rules keep machine keys with their unit in the name (``thermal_throttled_samples_pct``, ``lag_s``) and stable
rule ids (``thermal-throttling``) for JSON, alerts and scripts. People read :func:`evidence_name` and
:func:`rule_name` instead, in their language; the unit still comes from the key's suffix where the value is shown,
so a name carries none. A key or id without an entry is shown with spaces for its underscores or hyphens, never
dropped. The same pattern as the OOM doctor's :mod:`gpudesk.oom.labels`.
"""

from __future__ import annotations

from gpudesk import i18n
from gpudesk.i18n import N_
from gpudesk.telemetry.rules.base import CRITICAL, INFO, NOT_JUDGED, WARNING

# Evidence keys of the rules in this package (the keys their Finding.evidence dicts write).
EVIDENCE_NAMES: dict[str, str] = {
    "at_edge": N_("At the edge of the recording"),
    "basis": N_("Source of the samples"),
    "busy_samples_degraded_pct": N_("Busy samples on a degraded link"),
    "busy_share_pct": N_("Busy share of the time"),
    "busy_share_pct_by_gpu": N_("Busy share of the time, by GPU"),
    "busy_signal": N_("Busy signal used"),
    "busy_signal_by_gpu": N_("Busy signal used, by GPU"),
    "busy_value_pct": N_("Busy value"),
    "cause": N_("Likely cause"),
    "checked": N_("Checked"),
    "clock_below_pct": N_("Clock below its reference by"),
    "clock_event_reasons": N_("Clock-event reasons"),
    "clock_low_share_pct": N_("Share of loaded time at a low clock"),
    "correlation_shifted": N_("Correlation after the lag"),
    "correlation_unshifted": N_("Correlation without a lag"),
    "cpu_saturated_pct": N_("Host CPU saturated"),
    "dip_length_max_s": N_("Longest dip"),
    "dip_length_min_s": N_("Shortest dip"),
    "dip_starts_s": N_("Dip starts"),
    "dips": N_("Dips"),
    "duration_s": N_("Duration"),
    "end_s": N_("End"),
    "gpu": N_("GPU"),
    "gpu_spans": N_("GPU spans"),
    "gpu_temp_max_c": N_("Highest GPU temperature"),
    "gpu_util_max_pct": N_("Highest GPU utilization"),
    "gpu_util_median_pct": N_("Median GPU utilization"),
    "gpu_util_median_pct_by_gpu": N_("Median GPU utilization, by GPU"),
    "gpu_util_p5_pct": N_("GPU utilization, 5th percentile"),
    "gpu_util_p95_pct": N_("GPU utilization, 95th percentile"),
    "gpus": N_("GPUs"),
    "gpus_in_use": N_("GPUs in use"),
    "h2d_link_share_pct": N_("Host-to-device share of the link"),
    "h2d_min_bytes_per_s": N_("Least host-to-device traffic"),
    "h2d_vs_busy_ratio": N_("Host-to-device traffic against busy time"),
    "host_cpu_median_pct": N_("Median host CPU use"),
    "idle_mem_bytes": N_("Memory held while idle"),
    "idle_s": N_("Idle time"),
    "idle_util_pct": N_("Utilization while idle"),
    "imbalance_busy_pct": N_("Busy-share gap between GPUs"),
    "imbalance_gap_pct": N_("Utilization gap between GPUs"),
    "job_low_share_pct": N_("Share of the job at low utilization"),
    "job_spans": N_("Job spans"),
    "lag_s": N_("Lag"),
    "lagging_gpu_util_median_pct": N_("Median utilization of the lagging GPU"),
    "link_load_util_pct": N_("Utilization while the link is loaded"),
    "load_util_pct": N_("Utilization counted as loaded"),
    "loaded_samples": N_("Loaded samples"),
    "loaded_samples_low_pct": N_("Loaded samples at a low clock"),
    "longest_sustained_s": N_("Longest sustained span"),
    "low_total_s": N_("Total time at low utilization"),
    "low_util_pct": N_("Low-utilization threshold"),
    "mean_abs_change_pct_points": N_("Mean change between samples (points)"),
    "mem_critical_pct": N_("Critical memory level"),
    "mem_first_bytes": N_("Memory at the start"),
    "mem_last_bytes": N_("Memory at the end"),
    "mem_rise_bytes": N_("Memory rise"),
    "mem_slope_bytes_per_h": N_("Memory growth per hour (bytes)"),
    "mem_total_bytes": N_("GPU memory"),
    "mem_total_source": N_("Source of the memory size"),
    "mem_used_bytes": N_("Memory used"),
    "mem_used_max_bytes": N_("Most memory used"),
    "mem_used_p95_bytes": N_("Memory used, 95th percentile"),
    "mem_used_p95_pct": N_("Memory used, 95th percentile"),
    "min_busy_share_pct": N_("Least busy share of the time"),
    "min_span_s": N_("Shortest span counted"),
    "nvlink_idle_bytes_per_s": N_("NVLink traffic counted as idle"),
    "nvlink_p95_bytes_per_s_by_gpu": N_("NVLink traffic, 95th percentile, by GPU"),
    "offset_s": N_("From the start"),
    "others_util_mad_pct": N_("Spread of the other GPUs' utilization"),
    "others_util_median_pct": N_("Median utilization of the other GPUs"),
    "pcie_degraded_share_pct": N_("Share of the time on a degraded link"),
    "pcie_gen_current_median": N_("PCIe generation in use (median)"),
    "pcie_gen_max": N_("Highest PCIe generation"),
    "pcie_link_capacity_bytes_per_s": N_("PCIe link capacity"),
    "pcie_link_source": N_("Source of the link capacity"),
    "pcie_rx_busy_median_bytes_per_s": N_("Median PCIe receive while busy"),
    "pcie_rx_link_share_pct": N_("PCIe receive share of the link"),
    "pcie_rx_median_bytes_per_s": N_("Median PCIe receive"),
    "pcie_share_median_pct": N_("Median share of the link"),
    "pcie_tx_median_bytes_per_s": N_("Median PCIe transmit"),
    "pcie_width_current_median_lanes": N_("PCIe lanes in use (median)"),
    "pcie_width_max_lanes": N_("Most PCIe lanes"),
    "period_cv": N_("Variation of the period"),
    "period_s": N_("Period"),
    "power_median_w": N_("Median power draw"),
    "power_throttled_samples_pct": N_("Power-throttled samples"),
    "rank_correlation": N_("Rank correlation"),
    "reference": N_("Reference"),
    "safe_line_pct": N_("Safe line"),
    "samples": N_("Samples"),
    "samples_in_condition_pct": N_("Samples in the condition"),
    "slope_bytes_per_s": N_("Memory growth"),
    "sm_clock_loaded_median_hz": N_("Median SM clock under load"),
    "sm_clock_reference_hz": N_("Reference SM clock"),
    "span_count": N_("Spans"),
    "span_s": N_("Span"),
    "spans_checked": N_("Spans checked"),
    "start_s": N_("Start"),
    "swing_busy_p95_pct": N_("Busy level, 95th percentile"),
    "swing_change_pct": N_("Swing between samples"),
    "swing_spread_pct": N_("Spread of the swings"),
    "thermal_throttled_samples_pct": N_("Thermal-throttled samples"),
    "throttled_s": N_("Time throttled"),
    "time_below_30pct_share_pct": N_("Share of the time under 30 %"),
    "time_to_full_s": N_("Time until the memory is full"),
}

# Rule ids (each module's RULE constant; "throttling" is the not-judged group of both throttling rules).
RULE_NAMES: dict[str, str] = {
    "clocks-below-max": N_("Clocks below their maximum"),
    "cpu-bound-preprocessing": N_("CPU-bound preprocessing"),
    "input-starvation": N_("Input starvation"),
    "low-utilization": N_("Low utilization"),
    "memory-creep": N_("Memory creep"),
    "memory-safe-line": N_("Memory over the safe line"),
    "multi-gpu-imbalance": N_("Imbalance between GPUs"),
    "nvlink-idle": N_("NVLink idle"),
    "pcie-link-degraded": N_("PCIe link degraded"),
    "periodic-dips": N_("Periodic dips"),
    "pipeline-starvation": N_("Data pipeline starvation"),
    "power-throttling": N_("Power throttling"),
    "thermal-throttling": N_("Thermal throttling"),
    "straggler": N_("Straggler GPU"),
    "throttling": N_("Throttling"),
}

# Unit suffixes of evidence keys (DESIGN.md), longest first: dropped from the fallback name.
_UNIT_SUFFIXES = ("_bytes_per_s", "_bytes_per_h", "_pct_points", "_bytes", "_lanes", "_pct", "_hz", "_s", "_w", "_c")


def evidence_name(key: str) -> str:
    """The translated name of an evidence key, without its unit: "thermal_throttled_samples_pct" ->
    "Thermal-throttled samples"; a key without an entry reads as its words ("new_key_s" -> "new key")."""
    name = EVIDENCE_NAMES.get(key)
    if name:
        return i18n._(name)
    base = next((key[: -len(s)] for s in _UNIT_SUFFIXES if key.endswith(s) and len(key) > len(s)), key)
    return base.replace("_", " ")


def rule_name(rule: str) -> str:
    """The translated name of a rule id: "thermal-throttling" -> "Thermal throttling"."""
    name = RULE_NAMES.get(rule)
    return i18n._(name) if name else rule.replace("-", " ")


# A finding's severity (gpudesk.telemetry.rules.base): the JSON, alerts' environment and scripts keep the id.
SEVERITY_NAMES: dict[str, str] = {
    INFO: N_("info"), WARNING: N_("warning"), CRITICAL: N_("critical"), NOT_JUDGED: N_("not judged"),
}


def severity_name(severity: str) -> str:
    """The translated word of a severity id: "warning" -> "警告" in zh_CN; an unknown id is shown as it is."""
    name = SEVERITY_NAMES.get(severity)
    return i18n._(name) if name else severity
