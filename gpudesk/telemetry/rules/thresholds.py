"""Every threshold the bottleneck rules use, in one place, with a versioned JSON form the settings can edit.

The defaults are argued in the comments beside each field; where a number comes from the method (the seed
article's digest, sections 2, 3 and 5) or from a public source, the source is named. A settings file
(``rule-thresholds.json`` beside the user store) holds only the values the user changed, plus ``version``;
unknown keys are refused with a message naming them, so a typo never silently falls back to a default.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from gpudesk import paths
from gpudesk.errors import GpudeskError
from gpudesk.file_limits import InputFileError, read_input
from gpudesk.i18n import _

THRESHOLDS_VERSION = 1
THRESHOLDS_FILE = "rule-thresholds.json"
# A thresholds file holds a few dozen numbers (under 2 kB); anything over 1 MB is not one.
_MAX_FILE_BYTES = 1_000_000


class ThresholdsError(GpudeskError):
    """A thresholds file or value that cannot be used."""


@dataclass(frozen=True)
class Thresholds:
    """Rule thresholds. Units are in the names (percent, seconds, bytes per second, counts)."""

    # --- low-utilization spans --------------------------------------------------------------------------
    # A sample is "low" under 30 % GPU utilization: nvitop colours utilization under its low threshold (10 %)
    # as idle and above 75 % as busy (nvitop --gpu-util-thresh defaults 10/75, monitor.md section 1); 30 % sits
    # between them, well under the method's 60 % "the GPU is not fed" line (DIGEST.md section 2), so a span of
    # low samples is a GPU doing little, not a GPU between two fast kernels.
    low_util_pct: float = 30.0
    # A span must last this long to be reported: dmon and NVML sample once a second and NVML's utilization
    # window is 1/6 s to 1 s (nvidia-smi --help-query-gpu), so a few low samples are step boundaries; 10 s
    # is ten samples in a row.
    min_span_s: float = 10.0
    # Low samples separated by at most this many seconds of higher ones belong to the same span (a stall
    # that flickers up for a second is still one stall).
    merge_gap_s: float = 3.0
    # The whole job stalls when at least this share of its GPUs is low at the same moment (3 of 4, 6 of 8, both
    # of 2): a rank that enters or leaves the stall a few seconds late does not split the job's stall.
    job_low_share_pct: float = 75.0
    # A GPU is in use (a job is on it) when its utilization reaches idle_util_pct at least once or its median
    # memory used is at least idle_mem_bytes (an idle GPU holds a few hundred MB: driver reservations and, with
    # R510+ drivers and the v1 memory call, about 300 MB counted as used - monitor.md section 2.3). A GPU not in
    # use is idle, not stalled.
    idle_util_pct: float = 5.0
    idle_mem_bytes: float = float(2**30)
    # A GPU in use but busy in less than this share of the run is reported even
    # when its idle time sits at the start or the end ("the job barely used the GPU").
    min_busy_share_pct: float = 50.0
    # Per scope (the job, or one GPU) up to this many spans are listed one by one; more become one finding
    # that lists them all (the longest first) so that a recurring pattern is one line, not fifty.
    max_spans_listed: int = 5
    # --- input starvation ---------------------------------------------------------------------------------
    # The method's own rule (DIGEST.md section 2): u < 60 % while PCIe > 85 % of the link.
    method_util_below_pct: float = 60.0
    method_pcie_above_pct: float = 85.0
    method_min_sustained_s: float = 30.0
    # Realistic copies: pageable host-to-device copies reach about 6-12 GB/s and pinned ones about 20-25 GB/s
    # on a Gen4 x16 link (NVIDIA's bandwidthTest, cuda-samples Samples/1_Utilities/bandwidthTest), i.e.
    # 20-80 % of the link's 31.5 GB/s, never the 85 %. A low span whose host-to-device traffic is at least
    # 25 % of the link, or at least 1 GB/s and 2x what the same GPU moved while busy, is waiting on copies.
    h2d_link_share_pct: float = 25.0
    h2d_min_bytes_per_s: float = 1e9
    h2d_vs_busy_ratio: float = 2.0
    # Host CPU saturated (psutil.cpu_percent across all cores, or pmon/host metrics when recorded).
    cpu_saturated_pct: float = 90.0
    # CPU-bound swing (DIGEST.md section 5: "utilization swinging, CPU at 100 %"): p95 - p5 of utilization at
    # least swing_spread_pct points with a mean change of swing_change_pct points per sample, on a GPU whose p95
    # reaches swing_busy_p95_pct, over at least swing_min_samples samples.
    swing_spread_pct: float = 50.0
    swing_change_pct: float = 15.0
    swing_busy_p95_pct: float = 70.0
    swing_min_samples: int = 10
    # --- periodic dips ------------------------------------------------------------------------------------
    periodic_min_dip_s: float = 3.0
    periodic_min_dips: int = 4
    # Coefficient of variation (stdev / mean) of the intervals between dips at or below which they are periodic.
    periodic_max_cv: float = 0.2
    # --- multi-GPU ------------------------------------------------------------------------------------------
    imbalance_gap_pct: float = 30.0
    imbalance_busy_pct: float = 60.0
    # A GPU is compared with the others only when it has at least this many readable utilization samples: a
    # median of one or two readings is a moment, not a working level (ten samples = min_span_s at 1 s).
    multi_gpu_min_samples: int = 10
    # A GPU whose dips start this many seconds before or after the others', consistently, leads or lags them.
    straggler_min_lag_s: float = 2.0
    straggler_min_correlation: float = 0.5
    # --- memory ---------------------------------------------------------------------------------------------
    # Safe line: keep 15-20 % free (DIGEST.md section 3: an 80 GB card is safe to about 64 GB).
    safe_line_pct: float = 80.0
    mem_critical_pct: float = 95.0
    # Creep: judged on runs of at least an hour; a rise of 5 % of the card (4 GB on 80 GB) that holds
    # (rank correlation of the hourly medians with time >= 0.8) is a leak suspect.
    creep_min_duration_s: float = 3600.0
    creep_min_rise_pct: float = 5.0
    creep_min_monotonic: float = 0.8
    # --- clocks, throttling, links ------------------------------------------------------------------------
    throttle_warn_share_pct: float = 5.0
    throttle_critical_share_pct: float = 25.0
    # Under load (GPU utilization >= this), an SM clock under clock_below_pct of the reference clock
    # (application clock when recorded, else the highest clock the GPU held in the run) for at least
    # clock_low_share_pct of the loaded samples is flagged.
    load_util_pct: float = 80.0
    clock_below_pct: float = 90.0
    clock_low_share_pct: float = 25.0
    # PCIe link below its maximum in at least this share of the samples at or above link_load_util_pct (an idle
    # link trains down to Gen1 on purpose: nvidia-smi --help-query-gpu, "may be reduced when the GPU is not in use").
    pcie_degraded_share_pct: float = 50.0
    link_load_util_pct: float = 50.0
    # NVLink idle: under 100 MB/s per GPU (95th percentile) while two or more GPUs are busy.
    nvlink_idle_bytes_per_s: float = 1e8

    def to_dict(self) -> dict[str, Any]:
        """All values plus ``version`` (JSON-ready)."""
        return {"version": THRESHOLDS_VERSION, **asdict(self)}

    def changed(self) -> dict[str, Any]:
        """Only the values that differ from the defaults (what a settings file keeps)."""
        default = Thresholds()
        return {k: v for k, v in asdict(self).items() if getattr(default, k) != v}


_FIELDS = {f.name: f for f in fields(Thresholds)}

# The range each threshold may take. A share is 0-100 %; a time is at most 30 days (the longest recording the
# rules are meant for is days, and a threshold longer than any run silently switches its rule off); a byte
# amount at most 16 TiB (more than any GPU holds); a rate at most 10 TB/s (beyond any GPU link or memory:
# NVLink 5 is 1.8 TB/s per GPU). Correlations and monotonicity are 0-1; counts are whole numbers from 1 or 2.
_MAX_SECONDS = 30 * 86400.0
_SUFFIX_RANGES: tuple[tuple[str, float, float], ...] = (
    ("_pct", 0.0, 100.0),
    ("_bytes_per_s", 0.0, 1e13),
    ("_bytes", 0.0, float(2**44)),
    ("_s", 0.0, _MAX_SECONDS),
)
_RANGES: dict[str, tuple[float, float]] = {
    "max_spans_listed": (1, 1000),
    "swing_min_samples": (2, 1_000_000),
    "multi_gpu_min_samples": (2, 1_000_000),
    "periodic_min_dips": (2, 1_000_000),
    "periodic_max_cv": (0.0, 10.0),
    "h2d_vs_busy_ratio": (1.0, 1000.0),
    "straggler_min_correlation": (0.0, 1.0),
    "creep_min_monotonic": (0.0, 1.0),
}


def threshold_range(name: str) -> tuple[float, float]:
    """The smallest and largest value the threshold ``name`` accepts."""
    if name in _RANGES:
        return _RANGES[name]
    for suffix, low, high in _SUFFIX_RANGES:
        if name.endswith(suffix):
            return low, high
    return 0.0, 1e6


def thresholds_from_dict(data: Any) -> Thresholds:
    """Defaults overridden by ``data`` (a dict as written by :func:`save_thresholds`); checks names and types."""
    if not isinstance(data, dict):
        raise ThresholdsError(_("The rule thresholds must be a JSON object."), field="thresholds")
    version = data.get("version", THRESHOLDS_VERSION)
    if not isinstance(version, int) or version > THRESHOLDS_VERSION:
        raise ThresholdsError(
            _("The rule thresholds file has version {version}; this gpudesk reads up to {supported}.").format(
                version=version, supported=THRESHOLDS_VERSION),
            field="version", remedy=_("Update gpudesk, or delete the file to use the defaults."))
    unknown = sorted(k for k in data if k != "version" and k not in _FIELDS)
    if unknown:
        raise ThresholdsError(_("Unknown rule thresholds: {names}.").format(names=", ".join(unknown)),
                              field=unknown[0], remedy=_("Check the spelling against 'gpudesk monitor thresholds'."))
    values: dict[str, Any] = {}
    for name, value in data.items():
        if name == "version":
            continue
        want_int = _FIELDS[name].type in ("int", int)
        low, high = threshold_range(name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or not low <= value <= high:
            raise ThresholdsError(_("The threshold {name} must be a number from {low:g} to {high:g}, not {value!r}.")
                                  .format(name=name, low=low, high=high, value=value), field=name)
        if want_int and value != int(value):
            raise ThresholdsError(_("The threshold {name} counts, so it must be a whole number, not {value!r}.")
                                  .format(name=name, value=value), field=name)
        values[name] = int(value) if want_int else float(value)
    return replace(Thresholds(), **values)


def default_thresholds_path() -> Path:
    """Where the user's thresholds live: beside the store in the data folder."""
    return paths.data_dir() / THRESHOLDS_FILE


def load_thresholds(path: Path | None = None) -> Thresholds:
    """The user's thresholds, or the defaults when no file exists."""
    target = path or default_thresholds_path()
    remedy = _("Fix or delete the file {path} to use the defaults ('gpudesk monitor thresholds --reset' deletes "
               "it).").format(path=target)
    try:
        raw = read_input(target, _MAX_FILE_BYTES, _("the rule thresholds file"))
    except InputFileError as exc:
        if isinstance(exc.__cause__, FileNotFoundError):
            return Thresholds()
        raise ThresholdsError(exc.message, field=str(target), detail=exc.detail, remedy=remedy) from exc
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ThresholdsError(_("The rule thresholds file {path} is not text (it holds bytes that are not UTF-8).")
                              .format(path=target), field=str(target), detail=str(exc), remedy=remedy) from exc
    except json.JSONDecodeError as exc:
        raise ThresholdsError(_("The rule thresholds file {path} is not valid JSON.").format(path=target),
                              field=str(target),
                              detail=_("{error} at line {line}").format(error=exc.msg, line=exc.lineno),
                              remedy=remedy) from exc
    try:
        return thresholds_from_dict(data)
    except ThresholdsError as exc:
        raise ThresholdsError(_("{path}: {problem}").format(path=target, problem=exc.message), field=exc.field,
                              detail=exc.detail, remedy=exc.remedy or remedy) from exc


def save_thresholds(thresholds: Thresholds, path: Path | None = None) -> Path:
    """Write the values that differ from the defaults, with the version; returns the path written."""
    target = path or default_thresholds_path()
    payload = {"version": THRESHOLDS_VERSION, **thresholds.changed()}
    thresholds_from_dict(payload)  # never write a file that would be refused when read back (ranges, types)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(".tmp")
        tmp.write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        tmp.replace(target)
    except OSError as exc:
        raise ThresholdsError(_("Could not write the rule thresholds file."), field=str(target),
                              detail=str(exc)) from exc
    return target
