"""What each rule threshold means, for a settings form: a label and the unit shown beside the field (the
rationale and sources are in the comments of :mod:`gpudesk.telemetry.rules.thresholds`)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from gpudesk.i18n import N_, _

# name -> (label, unit, group), in English; THRESHOLD_LABELS gives them in the current language.
_LABELS: dict[str, tuple[str, str, str]] = {
    "low_util_pct": (N_("Low utilization below"), "%", N_("Low-utilization spans")),
    "min_span_s": (N_("Shortest span reported"), "s", N_("Low-utilization spans")),
    "merge_gap_s": (N_("Gap bridged inside a span"), "s", N_("Low-utilization spans")),
    "job_low_share_pct": (N_("Share of GPUs low for a job stall"), "%", N_("Low-utilization spans")),
    "idle_util_pct": (N_("A GPU is in use once utilization reaches"), "%", N_("Low-utilization spans")),
    "idle_mem_bytes": (N_("... or once it holds"), "bytes", N_("Low-utilization spans")),
    "min_busy_share_pct": (N_("Flag a GPU busy in less than"), "%", N_("Low-utilization spans")),
    "max_spans_listed": (N_("Spans listed one by one (more are grouped)"), "", N_("Low-utilization spans")),
    "method_util_below_pct": (N_("Method rule: utilization below"), "%", N_("Input starvation")),
    "method_pcie_above_pct": (N_("Method rule: PCIe above"), N_("% of link"), N_("Input starvation")),
    "method_min_sustained_s": (N_("Method rule: sustained for"), "s", N_("Input starvation")),
    "h2d_link_share_pct": (N_("Host-to-device traffic of at least"), N_("% of link"), N_("Input starvation")),
    "h2d_min_bytes_per_s": (N_("... or at least"), "bytes/s", N_("Input starvation")),
    "h2d_vs_busy_ratio": (N_("... and this many times the busy feed"), "x", N_("Input starvation")),
    "cpu_saturated_pct": (N_("Host CPU saturated at"), "%", N_("Input starvation")),
    "swing_spread_pct": (N_("CPU-bound swing: p95 - p5 of at least"), N_("points"), N_("Input starvation")),
    "swing_change_pct": (N_("CPU-bound swing: mean change per sample"), N_("points"), N_("Input starvation")),
    "swing_busy_p95_pct": (N_("CPU-bound swing: p95 at least"), "%", N_("Input starvation")),
    "swing_min_samples": (N_("CPU-bound swing: samples needed"), "", N_("Input starvation")),
    "periodic_min_dip_s": (N_("Shortest dip counted"), "s", N_("Periodic dips")),
    "periodic_min_dips": (N_("Dips needed"), "", N_("Periodic dips")),
    "periodic_max_cv": (N_("Largest spread of the intervals (CV)"), "", N_("Periodic dips")),
    "imbalance_gap_pct": (N_("Imbalance: gap to the others"), N_("points"), N_("Multi-GPU")),
    "imbalance_busy_pct": (N_("Imbalance: the others busy at"), "%", N_("Multi-GPU")),
    "multi_gpu_min_samples": (N_("Imbalance and straggler: samples needed per GPU"), "", N_("Multi-GPU")),
    "straggler_min_lag_s": (N_("Straggler: shortest lag"), "s", N_("Multi-GPU")),
    "straggler_min_correlation": (N_("Straggler: correlation at least"), "", N_("Multi-GPU")),
    "nvlink_idle_bytes_per_s": (N_("NVLink idle under"), "bytes/s", N_("Multi-GPU")),
    "safe_line_pct": (N_("Memory safe line"), N_("% of card"), N_("Memory")),
    "mem_critical_pct": (N_("Memory critical at"), N_("% of card"), N_("Memory")),
    "creep_min_duration_s": (N_("Creep: judged on runs of at least"), "s", N_("Memory")),
    "creep_min_rise_pct": (N_("Creep: rise of at least"), N_("% of card"), N_("Memory")),
    "creep_min_monotonic": (N_("Creep: rank correlation with time"), "", N_("Memory")),
    "throttle_warn_share_pct": (N_("Throttling warning from"), N_("% of samples"), N_("Clocks and links")),
    "throttle_critical_share_pct": (N_("Throttling critical from"), N_("% of samples"), N_("Clocks and links")),
    "load_util_pct": (N_("Under load from"), "%", N_("Clocks and links")),
    "clock_below_pct": (N_("Clock low under"), N_("% of reference"), N_("Clocks and links")),
    "clock_low_share_pct": (N_("Flag low clocks in at least"), N_("% of loaded samples"), N_("Clocks and links")),
    "pcie_degraded_share_pct": (N_("PCIe link degraded in at least"), N_("% of loaded samples"), N_("Clocks and links")),
    "link_load_util_pct": (N_("PCIe link judged under load from"), "%", N_("Clocks and links")),
}


class _TranslatedLabels(Mapping[str, tuple[str, str, str]]):
    """The labels, units and groups translated when read (so a language chosen after import applies)."""

    def __getitem__(self, name: str) -> tuple[str, str, str]:
        label, unit, group = _LABELS[name]
        return _(label), _(unit) if unit else unit, _(group)

    def __iter__(self) -> Iterator[str]:
        return iter(_LABELS)

    def __len__(self) -> int:
        return len(_LABELS)


THRESHOLD_LABELS: Mapping[str, tuple[str, str, str]] = _TranslatedLabels()
