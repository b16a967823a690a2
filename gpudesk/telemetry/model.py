"""The sample model shared by every source, the recorder, the UI and the rules.

Two shapes of the same data:

* :class:`Sample` / :class:`SampleBatch` - what a live source yields: one batch per tick, one ``Sample`` per
  GPU (time in seconds since the epoch, GPU index and UUID, ``metric -> value or None`` and for each None
  the reason it could not be read).
* :class:`SeriesFrame` - columnar history (numpy) for import, replay, recording reads, statistics, heat
  maps and rules: ``t`` (float64 seconds), ``gpu`` (int32 index) and one array per metric (float32 for
  percentages, watts, degrees; float64 for bytes, rates, clocks, counters: :func:`column_dtype`), where NaN
  means "could not be read" (never 0).
  ``reasons`` keeps, per (gpu, metric), why it was missing.

Metric names carry their unit in the name (bytes, bytes per second, watts, hertz, percent, degrees C), so
JSON and CSV keys built from them carry units too. The names follow NVML / ``nvidia-smi dmon`` terms.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np

from gpudesk.errors import GpudeskError
from gpudesk.nvml.device import DeviceInfo as DeviceInfo  # re-exported: part of the telemetry model

# --- metric names (units in the name) ---------------------------------------------------------------------
GPU_UTIL = "gpu_util_pct"  # nvmlDeviceGetUtilizationRates .gpu; dmon "sm"
MEM_UTIL = "mem_util_pct"  # nvmlDeviceGetUtilizationRates .memory; dmon "mem"
ENC_UTIL = "enc_util_pct"
DEC_UTIL = "dec_util_pct"
JPG_UTIL = "jpg_util_pct"
OFA_UTIL = "ofa_util_pct"
MEM_USED = "mem_used_bytes"  # nvmlDeviceGetMemoryInfo(v2) .used; dmon "fb" (MB -> bytes)
MEM_FREE = "mem_free_bytes"
MEM_TOTAL = "mem_total_bytes"
MEM_RESERVED = "mem_reserved_bytes"
BAR1_USED = "bar1_used_bytes"
CCPM_USED = "ccpm_used_bytes"
PCIE_RX = "pcie_rx_bytes_per_s"  # nvmlDeviceGetPcieThroughput(RX) KB/s -> bytes/s; dmon "rxpci" MB/s
PCIE_TX = "pcie_tx_bytes_per_s"
PCIE_GEN_CUR = "pcie_gen_current"
PCIE_GEN_MAX = "pcie_gen_max"
PCIE_WIDTH_CUR = "pcie_width_current_lanes"
PCIE_WIDTH_MAX = "pcie_width_max_lanes"
POWER = "power_w"  # nvmlDeviceGetPowerUsage mW -> W; dmon "pwr"
POWER_LIMIT = "power_limit_w"  # nvmlDeviceGetEnforcedPowerLimit mW -> W
GPU_TEMP = "gpu_temp_c"  # dmon "temp"/"gtemp"
MEM_TEMP = "mem_temp_c"  # dmon "mtemp"
SM_CLOCK = "sm_clock_hz"  # nvmlDeviceGetClockInfo(SM) MHz -> Hz; dmon "pclk"
MEM_CLOCK = "mem_clock_hz"  # dmon "mclk"
CLOCK_EVENTS = "clock_event_reasons"  # nvmlDeviceGetCurrentClocksEventReasons bit mask
POWER_VIOLATION = "power_violation_pct"  # dmon "pviol"
THERMAL_VIOLATION = "thermal_violation"  # dmon "tviol" (bool as 0/1)
ECC_SBE = "ecc_sbe_volatile_count"  # volatile corrected; dmon "sbecc"
ECC_DBE = "ecc_dbe_volatile_count"  # volatile uncorrected; dmon "dbecc"
PCIE_REPLAY = "pcie_replay_count"  # dmon "pci" (errs)
RETIRED_SBE = "retired_pages_sbe_count"
RETIRED_DBE = "retired_pages_dbe_count"
RETIRED_PENDING = "retired_pages_pending"
NVLINK_RX = "nvlink_rx_bytes_per_s"
NVLINK_TX = "nvlink_tx_bytes_per_s"


@dataclass(frozen=True)
class MetricInfo:
    """Static description of a metric: its unit, a short label, and what it is called by NVML and dmon."""

    name: str
    unit: str
    label: str
    nvml: str
    dmon: tuple[str, ...] = ()


METRICS: dict[str, MetricInfo] = {
    m.name: m
    for m in (
        MetricInfo(GPU_UTIL, "%", "GPU utilization", "nvmlDeviceGetUtilizationRates.gpu", ("sm",)),
        MetricInfo(MEM_UTIL, "%", "Memory-controller utilization", "nvmlDeviceGetUtilizationRates.memory", ("mem",)),
        MetricInfo(ENC_UTIL, "%", "Encoder utilization", "nvmlDeviceGetEncoderUtilization", ("enc",)),
        MetricInfo(DEC_UTIL, "%", "Decoder utilization", "nvmlDeviceGetDecoderUtilization", ("dec",)),
        MetricInfo(JPG_UTIL, "%", "JPEG engine utilization", "nvmlDeviceGetJpgUtilization", ("jpg",)),
        MetricInfo(OFA_UTIL, "%", "Optical-flow engine utilization", "nvmlDeviceGetOfaUtilization", ("ofa",)),
        MetricInfo(MEM_USED, "bytes", "Memory used", "nvmlDeviceGetMemoryInfo.used", ("fb",)),
        MetricInfo(MEM_FREE, "bytes", "Memory free", "nvmlDeviceGetMemoryInfo.free"),
        MetricInfo(MEM_TOTAL, "bytes", "Memory total", "nvmlDeviceGetMemoryInfo.total"),
        MetricInfo(MEM_RESERVED, "bytes", "Memory reserved (driver)", "nvmlDeviceGetMemoryInfo_v2.reserved"),
        MetricInfo(BAR1_USED, "bytes", "BAR1 used", "nvmlDeviceGetBAR1MemoryInfo.bar1Used", ("bar1",)),
        MetricInfo(CCPM_USED, "bytes", "CC-protected memory used", "usedGpuCcProtectedMemory", ("ccpm",)),
        MetricInfo(PCIE_RX, "bytes/s", "PCIe RX", "nvmlDeviceGetPcieThroughput(RX_BYTES)", ("rxpci",)),
        MetricInfo(PCIE_TX, "bytes/s", "PCIe TX", "nvmlDeviceGetPcieThroughput(TX_BYTES)", ("txpci",)),
        MetricInfo(PCIE_GEN_CUR, "gen", "PCIe generation (current)", "nvmlDeviceGetCurrPcieLinkGeneration"),
        MetricInfo(PCIE_GEN_MAX, "gen", "PCIe generation (max)", "nvmlDeviceGetMaxPcieLinkGeneration"),
        MetricInfo(PCIE_WIDTH_CUR, "lanes", "PCIe width (current)", "nvmlDeviceGetCurrPcieLinkWidth"),
        MetricInfo(PCIE_WIDTH_MAX, "lanes", "PCIe width (max)", "nvmlDeviceGetMaxPcieLinkWidth"),
        MetricInfo(POWER, "W", "Power draw", "nvmlDeviceGetPowerUsage", ("pwr",)),
        MetricInfo(POWER_LIMIT, "W", "Power limit", "nvmlDeviceGetEnforcedPowerLimit"),
        MetricInfo(GPU_TEMP, "C", "GPU temperature", "nvmlDeviceGetTemperature(GPU)", ("temp", "gtemp")),
        MetricInfo(MEM_TEMP, "C", "Memory temperature", "NVML_FI_DEV_MEMORY_TEMP", ("mtemp",)),
        MetricInfo(SM_CLOCK, "Hz", "SM clock", "nvmlDeviceGetClockInfo(SM)", ("pclk",)),
        MetricInfo(MEM_CLOCK, "Hz", "Memory clock", "nvmlDeviceGetClockInfo(MEM)", ("mclk",)),
        MetricInfo(CLOCK_EVENTS, "bitmask", "Clock event (throttle) reasons", "nvmlDeviceGetCurrentClocksEventReasons"),
        MetricInfo(POWER_VIOLATION, "%", "Power violation", "NVML_PERF_POLICY_POWER", ("pviol",)),
        MetricInfo(THERMAL_VIOLATION, "bool", "Thermal violation", "NVML_PERF_POLICY_THERMAL", ("tviol",)),
        MetricInfo(ECC_SBE, "count", "ECC corrected (volatile)", "nvmlDeviceGetTotalEccErrors", ("sbecc",)),
        MetricInfo(ECC_DBE, "count", "ECC uncorrected (volatile)", "nvmlDeviceGetTotalEccErrors", ("dbecc",)),
        MetricInfo(PCIE_REPLAY, "count", "PCIe replay errors", "nvmlDeviceGetPcieReplayCounter", ("pci",)),
        MetricInfo(RETIRED_SBE, "count", "Retired pages (single-bit)", "nvmlDeviceGetRetiredPages"),
        MetricInfo(RETIRED_DBE, "count", "Retired pages (double-bit)", "nvmlDeviceGetRetiredPages"),
        MetricInfo(RETIRED_PENDING, "bool", "Page retirement pending", "nvmlDeviceGetRetiredPagesPendingStatus"),
        MetricInfo(NVLINK_RX, "bytes/s", "NVLink RX", "NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX"),
        MetricInfo(NVLINK_TX, "bytes/s", "NVLink TX", "NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX"),
    )
}

# Storage precision of history columns (SeriesFrame). float32 (IEEE 754 binary32) keeps a 24-bit significand:
# every integer up to 2**24 = 16,777,216 exactly, about 7 significant decimal digits otherwise. That holds what
# the sources report for percentages (integer %), power (mW resolution below 10 kW), temperatures (whole C),
# PCIe generation/width and flags, so those columns are float32 (half the memory). Metrics whose values pass
# 2**24 stay float64 (exact integers up to 2**53): bytes (memory used on an 80 GB GPU would move in 8 KiB
# steps), bytes/s (62 MiB/s is fine, 4513 MHz is not: 4513000000 Hz would read back as 4512999936), Hz,
# counters and bit masks (must stay exact). A 72 h x 8 GPU x 1 Hz history is 2,073,600 rows: 8.3 MB per
# float32 column, 16.6 MB per float64 one.
FLOAT64_UNITS = frozenset({"bytes", "bytes/s", "Hz", "count", "bitmask"})


def column_dtype(metric: str) -> np.dtype:
    """The numpy dtype a history column of ``metric`` is stored in: float64 for bytes, bytes/s, Hz, counters, bit
    masks and metrics of unknown unit (e.g. unknown dmon columns); float32 for percentages, watts, degrees C,
    PCIe generation/width and flags (see FLOAT64_UNITS)."""
    info = METRICS.get(metric)
    if info is None or info.unit in FLOAT64_UNITS:
        return np.dtype(np.float64)
    return np.dtype(np.float32)


def widen(values: np.ndarray) -> np.ndarray:
    """A history column as float64 for output (CSV, JSON): float32 values become the float64 of their shortest
    decimal form (37.3 W stays 37.3, not 37.29999923706055); float64 columns are returned as they are.
    Vectorised: per value, the coarsest decimal rounding that still maps back to the same float32 (NaN stays
    NaN)."""
    if values.dtype != np.float32:
        return np.asarray(values, dtype=np.float64)
    x = values.astype(np.float64)
    out = np.full(x.shape, np.nan)
    todo = np.flatnonzero(~np.isnan(x))
    for decimals in range(-12, 46):  # float32 spans about 1e-45 .. 3.4e38
        if not todo.size:
            break
        cand = np.round(x[todo], decimals)
        with np.errstate(over="ignore"):
            ok = cand.astype(np.float32) == values[todo]
        out[todo[ok]] = cand[ok]
        todo = todo[~ok]
    out[todo] = x[todo]
    return out


# Clock event reason bits (nvmlClocksEventReason*, nvml.h) that mean "slowed by power or heat".
POWER_THROTTLE_BITS = 0x4 | 0x80  # SwPowerCap, HwPowerBrakeSlowdown
THERMAL_THROTTLE_BITS = 0x20 | 0x40  # SwThermalSlowdown, HwThermalSlowdown
HW_SLOWDOWN_BIT = 0x8


class TelemetryError(GpudeskError):
    """Base class of the telemetry layer's errors; messages say what went wrong and what to do."""


@dataclass
class InstanceSample:
    """One MIG GPU instance of a GPU at one moment: its id (``nvmlDeviceGetGpuInstanceId``, dcgmi's ``GPU-I``
    entity id, the DCGM exporter's ``GPU_I_ID`` label), its MIG device UUID, and its own metrics (GPM)."""

    gpu_instance_id: int
    uuid: str | None
    values: dict[str, float | None]
    reasons: dict[str, str] = field(default_factory=dict)


@dataclass
class Sample:
    """One GPU at one moment.

    Attributes:
        t: seconds since the Unix epoch (float).
        gpu_index: NVML / dmon index of the GPU.
        gpu_uuid: NVML UUID ("GPU-...") or None when the source does not know it (dmon logs).
        values: metric name -> value in the metric's unit, or None when it could not be read.
        reasons: metric name -> why it is None ("NotSupported", "NoPermission", "dmon '-'", ...).
        instances: the GPU's MIG GPU instances measured on their own (NVML GPM per GPU instance), if any.
    """

    t: float
    gpu_index: int
    gpu_uuid: str | None
    values: dict[str, float | None]
    reasons: dict[str, str] = field(default_factory=dict)
    instances: list[InstanceSample] = field(default_factory=list)

    def get(self, metric: str) -> float | None:
        return self.values.get(metric)


@dataclass
class SampleBatch:
    """What a source yields per tick: one :class:`Sample` per GPU, all taken at about time ``t``."""

    t: float
    samples: list[Sample]
    source: str = ""

    def __iter__(self) -> Iterator[Sample]:
        return iter(self.samples)

    def __len__(self) -> int:
        return len(self.samples)


class SeriesFrame:
    """Columnar history: rows are (t, gpu) pairs; NaN in a metric column means "could not be read".

    Attributes:
        t: float64 seconds since the epoch, shape (n,), sorted ascending.
        gpu: int32 GPU index, shape (n,).
        metrics: metric name -> array of shape (n,) in :func:`column_dtype` of the metric (float32 for
            percentages, power, temperatures, link generation/width, flags; float64 for bytes, bytes/s, Hz,
            counters, bit masks and unknown units).
        reasons: (gpu index, metric) -> reason text for missing values (first reason seen).
        notes: parser / source notes (skipped lines, unknown columns, assumptions).

    Treat a frame as immutable (``select`` and ``concat_frames`` make new ones): the per-GPU row index
    (:meth:`gpu_rows`) is cached.
    """

    def __init__(
        self,
        t: np.ndarray,
        gpu: np.ndarray,
        metrics: Mapping[str, np.ndarray],
        reasons: Mapping[tuple[int, str], str] | None = None,
        notes: Iterable[str] = (),
        sort: bool = True,
    ):
        t = np.asarray(t, dtype=np.float64)
        gpu = np.asarray(gpu, dtype=np.int32)
        cols = {k: np.asarray(v, dtype=column_dtype(k)) for k, v in metrics.items()}
        for name, col in cols.items():
            if col.shape != t.shape:
                raise TelemetryError(f"Metric {name} has {col.shape[0]} values for {t.shape[0]} rows.")
        if gpu.shape != t.shape:
            raise TelemetryError(f"GPU column has {gpu.shape[0]} values for {t.shape[0]} rows.")
        if sort and t.size and np.any(np.diff(t) < 0):
            order = np.argsort(t, kind="stable")
            t, gpu = t[order], gpu[order]
            cols = {k: v[order] for k, v in cols.items()}
        self.t = t
        self.gpu = gpu
        self.metrics: dict[str, np.ndarray] = cols
        self.reasons: dict[tuple[int, str], str] = dict(reasons or {})
        self.notes: list[str] = list(notes)

    def __len__(self) -> int:
        return int(self.t.shape[0])

    @property
    def nbytes(self) -> int:
        """Bytes held by the time, GPU and metric arrays."""
        return int(self.t.nbytes + self.gpu.nbytes + sum(v.nbytes for v in self.metrics.values()))

    def gpu_rows(self) -> dict[int, np.ndarray]:
        """GPU index -> row indices of that GPU in time order (computed once, cached)."""
        cached = getattr(self, "_gpu_rows", None)
        if cached is None:
            order = np.argsort(self.gpu, kind="stable")
            uniq, starts = np.unique(self.gpu[order], return_index=True)
            ends = [*starts[1:].tolist(), len(order)]
            cached = {int(g): order[s:e] for g, s, e in zip(uniq.tolist(), starts.tolist(), ends)}
            self._gpu_rows = cached
        return cached

    @property
    def gpus(self) -> list[int]:
        return sorted(self.gpu_rows())

    @property
    def span(self) -> tuple[float, float] | None:
        if not len(self):
            return None
        return float(self.t[0]), float(self.t[-1])

    def metric_names(self) -> list[str]:
        """Metrics with at least one readable value, in a stable order."""
        return [k for k, v in self.metrics.items() if v.size and not np.all(np.isnan(v))]

    def select(self, t0: float | None = None, t1: float | None = None, gpus: Iterable[int] | None = None) -> SeriesFrame:
        """Rows with t0 <= t <= t1 (either bound optional) and, if given, only those GPUs."""
        lo = 0 if t0 is None else int(np.searchsorted(self.t, t0, side="left"))
        hi = len(self) if t1 is None else int(np.searchsorted(self.t, t1, side="right"))
        sl = slice(lo, hi)
        t, gpu = self.t[sl], self.gpu[sl]
        cols = {k: v[sl] for k, v in self.metrics.items()}
        if gpus is not None:
            mask = np.isin(gpu, np.fromiter(gpus, dtype=np.int32))
            t, gpu = t[mask], gpu[mask]
            cols = {k: v[mask] for k, v in cols.items()}
        return SeriesFrame(t, gpu, cols, self.reasons, self.notes, sort=False)

    def series(self, gpu: int, metric: str) -> tuple[np.ndarray, np.ndarray]:
        """(t, values) of one metric for one GPU; values NaN where missing; empty when the metric is absent."""
        rows = self.gpu_rows().get(int(gpu), np.empty(0, dtype=np.int64))
        if metric not in self.metrics:
            return self.t[rows], np.full(rows.size, np.nan)
        return self.t[rows], self.metrics[metric][rows]

    def reason(self, gpu: int, metric: str) -> str | None:
        """Why values of ``metric`` on ``gpu`` are missing, if known."""
        if metric not in self.metrics:
            return self.reasons.get((gpu, metric), "not recorded by this source")
        return self.reasons.get((gpu, metric))

    def to_batches(self) -> list[SampleBatch]:
        """Split into :class:`SampleBatch` es, one per distinct time stamp (used by replay)."""
        batches: list[SampleBatch] = []
        if not len(self):
            return batches
        names = list(self.metrics)
        cols = [self.metrics[n] for n in names]
        bounds = np.flatnonzero(np.diff(self.t)) + 1
        starts = np.concatenate(([0], bounds))
        ends = np.concatenate((bounds, [len(self)]))
        for s, e in zip(starts.tolist(), ends.tolist()):
            samples = []
            for i in range(s, e):
                g = int(self.gpu[i])
                vals: dict[str, float | None] = {}
                reasons: dict[str, str] = {}
                for n, c in zip(names, cols):
                    v = float(c[i])
                    if math.isnan(v):
                        vals[n] = None
                        reasons[n] = self.reasons.get((g, n), "not read")
                    else:
                        vals[n] = v
                samples.append(Sample(float(self.t[i]), g, None, vals, reasons))
            batches.append(SampleBatch(float(self.t[s]), samples))
        return batches

    @classmethod
    def from_batches(cls, batches: Iterable[SampleBatch], notes: Iterable[str] = ()) -> SeriesFrame:
        """Build a frame from live batches; None becomes NaN and its reason is kept."""
        ts: list[float] = []
        gs: list[int] = []
        cols: dict[str, list[float]] = {}
        reasons: dict[tuple[int, str], str] = {}
        n = 0
        for batch in batches:
            for s in batch.samples:
                ts.append(s.t)
                gs.append(s.gpu_index)
                for name, v in s.values.items():
                    col = cols.get(name)
                    if col is None:
                        col = cols[name] = [math.nan] * n
                    col.append(math.nan if v is None else float(v))
                for name, why in s.reasons.items():
                    reasons.setdefault((s.gpu_index, name), why)
                n += 1
                for col in cols.values():
                    if len(col) < n:
                        col.append(math.nan)
        return cls(np.array(ts), np.array(gs), {k: np.array(v) for k, v in cols.items()}, reasons, notes)


def concat_frames(frames: Iterable[SeriesFrame]) -> SeriesFrame:
    """Join frames row-wise; metrics missing from a part are NaN there."""
    frames = [f for f in frames]
    if not frames:
        return SeriesFrame(np.empty(0), np.empty(0), {})
    names: list[str] = []
    for f in frames:
        for k in f.metrics:
            if k not in names:
                names.append(k)
    t = np.concatenate([f.t for f in frames])
    gpu = np.concatenate([f.gpu for f in frames])
    cols = {
        k: np.concatenate([f.metrics[k] if k in f.metrics else np.full(len(f), np.nan, dtype=column_dtype(k))
                           for f in frames])
        for k in names
    }
    reasons: dict[tuple[int, str], str] = {}
    notes: list[str] = []
    for f in frames:
        for key, why in f.reasons.items():
            reasons.setdefault(key, why)
        notes.extend(f.notes)
    return SeriesFrame(t, gpu, cols, reasons, notes)
