"""What each rule threshold means, for a settings form: a label and the unit shown beside the field (the
rationale and sources are in the comments of :mod:`gpudesk.telemetry.rules.thresholds`)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from gpudesk.i18n import _


def _labels() -> dict[str, tuple[str, str, str]]:
    """name -> (label, unit, group) in the current language."""
    return {
        "low_util_pct": (_("Low utilization below"), "%", _("Low-utilization spans")),
        "min_span_s": (_("Shortest span reported"), "s", _("Low-utilization spans")),
        "merge_gap_s": (_("Gap bridged inside a span"), "s", _("Low-utilization spans")),
        "job_low_share_pct": (_("Share of GPUs low for a job stall"), "%", _("Low-utilization spans")),
        "idle_util_pct": (_("A GPU is in use once utilization reaches"), "%", _("Low-utilization spans")),
        "idle_mem_bytes": (_("... or once it holds"), "bytes", _("Low-utilization spans")),
        "min_busy_share_pct": (_("Flag a GPU busy in less than"), "%", _("Low-utilization spans")),
        "max_spans_listed": (_("Spans listed one by one (more are grouped)"), "", _("Low-utilization spans")),
        "method_util_below_pct": (_("Method rule: utilization below"), "%", _("Input starvation")),
        "method_pcie_above_pct": (_("Method rule: PCIe above"), _("% of link"), _("Input starvation")),
        "method_min_sustained_s": (_("Method rule: sustained for"), "s", _("Input starvation")),
        "h2d_link_share_pct": (_("Host-to-device traffic of at least"), _("% of link"), _("Input starvation")),
        "h2d_min_bytes_per_s": (_("... or at least"), "bytes/s", _("Input starvation")),
        "h2d_vs_busy_ratio": (_("... and this many times the busy feed"), "x", _("Input starvation")),
        "cpu_saturated_pct": (_("Host CPU saturated at"), "%", _("Input starvation")),
        "swing_spread_pct": (_("CPU-bound swing: p95 - p5 of at least"), _("points"), _("Input starvation")),
        "swing_change_pct": (_("CPU-bound swing: mean change per sample"), _("points"), _("Input starvation")),
        "swing_busy_p95_pct": (_("CPU-bound swing: p95 at least"), "%", _("Input starvation")),
        "swing_min_samples": (_("CPU-bound swing: samples needed"), "", _("Input starvation")),
        "periodic_min_dip_s": (_("Shortest dip counted"), "s", _("Periodic dips")),
        "periodic_min_dips": (_("Dips needed"), "", _("Periodic dips")),
        "periodic_max_cv": (_("Largest spread of the intervals (CV)"), "", _("Periodic dips")),
        "imbalance_gap_pct": (_("Imbalance: gap to the others"), _("points"), _("Multi-GPU")),
        "imbalance_busy_pct": (_("Imbalance: the others busy at"), "%", _("Multi-GPU")),
        "multi_gpu_min_samples": (_("Imbalance and straggler: samples needed per GPU"), "", _("Multi-GPU")),
        "straggler_min_lag_s": (_("Straggler: shortest lag"), "s", _("Multi-GPU")),
        "straggler_min_correlation": (_("Straggler: correlation at least"), "", _("Multi-GPU")),
        "nvlink_idle_bytes_per_s": (_("NVLink idle under"), "bytes/s", _("Multi-GPU")),
        "safe_line_pct": (_("Memory safe line"), _("% of card"), _("Memory")),
        "mem_critical_pct": (_("Memory critical at"), _("% of card"), _("Memory")),
        "creep_min_duration_s": (_("Creep: judged on runs of at least"), "s", _("Memory")),
        "creep_min_rise_pct": (_("Creep: rise of at least"), _("% of card"), _("Memory")),
        "creep_min_monotonic": (_("Creep: rank correlation with time"), "", _("Memory")),
        "throttle_warn_share_pct": (_("Throttling warning from"), _("% of samples"), _("Clocks and links")),
        "throttle_critical_share_pct": (_("Throttling critical from"), _("% of samples"), _("Clocks and links")),
        "load_util_pct": (_("Under load from"), "%", _("Clocks and links")),
        "clock_below_pct": (_("Clock low under"), _("% of reference"), _("Clocks and links")),
        "clock_low_share_pct": (_("Flag low clocks in at least"), _("% of loaded samples"), _("Clocks and links")),
        "pcie_degraded_share_pct": (_("PCIe link degraded in at least"), _("% of loaded samples"), _("Clocks and links")),
        "link_load_util_pct": (_("PCIe link judged under load from"), "%", _("Clocks and links")),
    }


class _TranslatedLabels(Mapping[str, tuple[str, str, str]]):
    """The labels, units and groups translated when read (so a language chosen after import applies)."""

    def __getitem__(self, name: str) -> tuple[str, str, str]:
        return _labels()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(_labels())

    def __len__(self) -> int:
        return len(_labels())


THRESHOLD_LABELS: Mapping[str, tuple[str, str, str]] = _TranslatedLabels()
