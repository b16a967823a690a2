"""The sample model shared by every source, the recorder, the UI and the rules.

Two shapes of the same data:

* :class:`Sample` / :class:`SampleBatch` - what a live source yields: one batch per tick, one ``Sample`` per
  GPU (time in seconds since the epoch, GPU index and UUID, ``metric -> value or None`` and for each None
  the reason it could not be read).
* :class:`History` - the one in-memory shape of GPU time series, from source to plot to rules: ``times``
  (float64 seconds, one per sampling round), ``gpus`` (GPU index per column) and per metric one array of shape
  (rounds, GPUs) (float32 for percentages, watts, degrees; float64 for bytes, rates, clocks, counters:
  :func:`column_dtype`), where NaN means "could not be read" (never 0). ``reasons`` keeps, per (gpu, metric),
  why it was missing. Live sampling and replay hold it in a :class:`~gpudesk.telemetry.core.ring_buffer.HistoryBuffer`
  (the same layout, preallocated); logs, recordings and fleet scrapes build it with :meth:`History.from_rows`.

Metric names carry their unit in the name (bytes, bytes per second, watts, hertz, percent, degrees C), so
JSON and CSV keys built from them carry units too. The names follow NVML / ``nvidia-smi dmon`` terms.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from gpudesk.errors import GpudeskError
from gpudesk.i18n import N_, _
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
    """Static description of a metric: its unit, a short label, and what it is called by NVML and dmon.

    The label is English, marked with ``N_`` so that a text for people translates it (``i18n._(label)``, the CLI's
    analysis); machine-read texts (Prometheus HELP) keep it as it is."""

    name: str
    unit: str
    label: str
    nvml: str
    dmon: tuple[str, ...] = ()


METRICS: dict[str, MetricInfo] = {
    m.name: m
    for m in (
        MetricInfo(GPU_UTIL, "%", N_("GPU utilization"), "nvmlDeviceGetUtilizationRates.gpu", ("sm",)),
        MetricInfo(MEM_UTIL, "%", N_("Memory-controller utilization"), "nvmlDeviceGetUtilizationRates.memory", ("mem",)),
        MetricInfo(ENC_UTIL, "%", N_("Encoder utilization"), "nvmlDeviceGetEncoderUtilization", ("enc",)),
        MetricInfo(DEC_UTIL, "%", N_("Decoder utilization"), "nvmlDeviceGetDecoderUtilization", ("dec",)),
        MetricInfo(JPG_UTIL, "%", N_("JPEG engine utilization"), "nvmlDeviceGetJpgUtilization", ("jpg",)),
        MetricInfo(OFA_UTIL, "%", N_("Optical-flow engine utilization"), "nvmlDeviceGetOfaUtilization", ("ofa",)),
        MetricInfo(MEM_USED, "bytes", N_("Memory used"), "nvmlDeviceGetMemoryInfo.used", ("fb",)),
        MetricInfo(MEM_FREE, "bytes", N_("Memory free"), "nvmlDeviceGetMemoryInfo.free"),
        MetricInfo(MEM_TOTAL, "bytes", N_("Memory total"), "nvmlDeviceGetMemoryInfo.total"),
        MetricInfo(MEM_RESERVED, "bytes", N_("Memory reserved (driver)"), "nvmlDeviceGetMemoryInfo_v2.reserved"),
        MetricInfo(BAR1_USED, "bytes", N_("BAR1 used"), "nvmlDeviceGetBAR1MemoryInfo.bar1Used", ("bar1",)),
        MetricInfo(CCPM_USED, "bytes", N_("CC-protected memory used"), "usedGpuCcProtectedMemory", ("ccpm",)),
        MetricInfo(PCIE_RX, "bytes/s", N_("PCIe RX"), "nvmlDeviceGetPcieThroughput(RX_BYTES)", ("rxpci",)),
        MetricInfo(PCIE_TX, "bytes/s", N_("PCIe TX"), "nvmlDeviceGetPcieThroughput(TX_BYTES)", ("txpci",)),
        MetricInfo(PCIE_GEN_CUR, "gen", N_("PCIe generation (current)"), "nvmlDeviceGetCurrPcieLinkGeneration"),
        MetricInfo(PCIE_GEN_MAX, "gen", N_("PCIe generation (max)"), "nvmlDeviceGetMaxPcieLinkGeneration"),
        MetricInfo(PCIE_WIDTH_CUR, "lanes", N_("PCIe width (current)"), "nvmlDeviceGetCurrPcieLinkWidth"),
        MetricInfo(PCIE_WIDTH_MAX, "lanes", N_("PCIe width (max)"), "nvmlDeviceGetMaxPcieLinkWidth"),
        MetricInfo(POWER, "W", N_("Power draw"), "nvmlDeviceGetPowerUsage", ("pwr",)),
        MetricInfo(POWER_LIMIT, "W", N_("Power limit"), "nvmlDeviceGetEnforcedPowerLimit"),
        MetricInfo(GPU_TEMP, "C", N_("GPU temperature"), "nvmlDeviceGetTemperature(GPU)", ("temp", "gtemp")),
        MetricInfo(MEM_TEMP, "C", N_("Memory temperature"), "NVML_FI_DEV_MEMORY_TEMP", ("mtemp",)),
        MetricInfo(SM_CLOCK, "Hz", N_("SM clock"), "nvmlDeviceGetClockInfo(SM)", ("pclk",)),
        MetricInfo(MEM_CLOCK, "Hz", N_("Memory clock"), "nvmlDeviceGetClockInfo(MEM)", ("mclk",)),
        MetricInfo(CLOCK_EVENTS, "bitmask", N_("Clock event (throttle) reasons"), "nvmlDeviceGetCurrentClocksEventReasons"),
        MetricInfo(POWER_VIOLATION, "%", N_("Power violation"), "NVML_PERF_POLICY_POWER", ("pviol",)),
        MetricInfo(THERMAL_VIOLATION, "bool", N_("Thermal violation"), "NVML_PERF_POLICY_THERMAL", ("tviol",)),
        MetricInfo(ECC_SBE, "count", N_("ECC corrected (volatile)"), "nvmlDeviceGetTotalEccErrors", ("sbecc",)),
        MetricInfo(ECC_DBE, "count", N_("ECC uncorrected (volatile)"), "nvmlDeviceGetTotalEccErrors", ("dbecc",)),
        MetricInfo(PCIE_REPLAY, "count", N_("PCIe replay errors"), "nvmlDeviceGetPcieReplayCounter", ("pci",)),
        MetricInfo(RETIRED_SBE, "count", N_("Retired pages (single-bit)"), "nvmlDeviceGetRetiredPages"),
        MetricInfo(RETIRED_DBE, "count", N_("Retired pages (double-bit)"), "nvmlDeviceGetRetiredPages"),
        MetricInfo(RETIRED_PENDING, "bool", N_("Page retirement pending"), "nvmlDeviceGetRetiredPagesPendingStatus"),
        MetricInfo(NVLINK_RX, "bytes/s", N_("NVLink RX"), "NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX"),
        MetricInfo(NVLINK_TX, "bytes/s", N_("NVLink TX"), "NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX"),
    )
}

# Storage precision of history columns (History). float32 (IEEE 754 binary32) keeps a 24-bit significand:
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


def middle(values: np.ndarray) -> float:
    """Median of a non-empty array without NaN, as np.median gives it (the mean of the two middle values for an
    even count, in the array's precision), by one sort: np.median costs more on short arrays, and its first call
    imports numpy.ma (20 ms)."""
    k = values.size
    if k > 256:  # a partition at the middle is cheaper than a sort
        v = np.partition(values.reshape(-1), [(k - 1) // 2, k // 2])
    else:
        v = np.sort(values, axis=None)
    return float((v[(k - 1) // 2] + v[k // 2]) / 2) if k % 2 == 0 else float(v[k // 2])


def quantiles(values: np.ndarray, fractions: Sequence[float]) -> list[float]:
    """``np.percentile(values, [100 * f for f in fractions])`` (its default linear method, the same numbers: numpy's
    order statistics and its ``_lerp``, numpy/lib/_function_base_impl.py) of a non-empty 1-D array without NaN, by
    one partition; np.percentile's first call imports numpy.ma (20 ms) through np.unique."""
    n = int(values.size)
    where = [(n - 1) * f for f in fractions]
    below = [int(math.floor(w)) for w in where]
    above = [min(b + 1, n - 1) for b in below]
    part = np.array(values, copy=True).reshape(-1)
    part.partition(sorted({0, n - 1, *below, *above}))
    out = []
    for w, b, a in zip(where, below, above):
        lo, hi = part[b], part[a]
        gamma = np.float64(w - b)
        diff = hi - lo
        out.append(float(hi - diff * (1 - gamma) if gamma >= 0.5 else lo + diff * gamma))
    return out


def nan_middle(values: np.ndarray) -> float:
    """:func:`middle` of the readable values; NaN when there are none (np.nanmedian's value)."""
    v = values[~np.isnan(values)]
    return middle(v) if v.size else float("nan")


def _is_float(arr: np.ndarray) -> bool:
    return arr.dtype == np.float32 or arr.dtype == np.float64


class History:
    """GPU time series: one time base and, per metric, one column per GPU.

    Attributes:
        times: float64 seconds since the epoch (or an undated basis, :mod:`gpudesk.telemetry.core.timebase`), shape
            (n,), ascending; one entry per sampling round (tick).
        gpus: GPU indices (NVML / dmon / exporter index), one per column, in column order.
        columns: metric name -> array of shape (n, len(gpus)); float32 or float64 (producers use
            :func:`column_dtype`; the live buffer keeps float32). NaN means "could not be read" (never 0), also for
            a GPU that had no sample in that round.
        reasons: (gpu index, metric) -> reason text for missing values (first reason seen).
        notes: parser / source notes (skipped lines, unknown columns, assumptions).
        interval_s: the step when the rounds lie on a regular grid (``times[i] = times[0] + i * interval_s``, as
            :func:`gpudesk.telemetry.rules.spans.on_grid` makes for the rules), else None.

    The arrays may be views of a :class:`~gpudesk.telemetry.core.ring_buffer.HistoryBuffer` (live, replay) or of a
    parser's output: treat them as read-only; :meth:`copy` before handing a live view to another thread.
    """

    def __init__(self, times: np.ndarray, gpus: Iterable[int], columns: Mapping[str, np.ndarray],
                 reasons: Mapping[tuple[int, str], str] | None = None, notes: Iterable[str] = (),
                 interval_s: float | None = None):
        times = np.asarray(times, dtype=np.float64)
        gpu_list = [int(g) for g in gpus]
        cols: dict[str, np.ndarray] = {}
        shape = (times.shape[0], len(gpu_list))
        for name, col in columns.items():
            arr = np.asarray(col)
            if not _is_float(arr):
                arr = arr.astype(column_dtype(name))
            if arr.shape != shape:
                raise TelemetryError(_("Metric {name} has shape {shape}; the history needs {needed}.").format(
                    name=name, shape=arr.shape, needed=shape))
            cols[name] = arr
        if times.size > 1 and bool(np.any(times[1:] < times[:-1])):
            order = np.argsort(times, kind="stable")
            times = times[order]
            cols = {k: v[order] for k, v in cols.items()}
        self.times = times
        self.gpus = gpu_list
        self.columns = cols
        self.reasons: dict[tuple[int, str], str] = dict(reasons or {})
        self.notes: list[str] = list(notes)
        self.interval_s = interval_s

    # ------------------------------------------------------------------ building
    @classmethod
    def empty(cls, notes: Iterable[str] = ()) -> History:
        return cls(np.empty(0), [], {}, None, notes)

    @classmethod
    def from_rows(cls, t: np.ndarray, gpu: np.ndarray, metrics: Mapping[str, np.ndarray],
                  reasons: Mapping[tuple[int, str], str] | None = None, notes: Iterable[str] = ()) -> History:
        """The history of rows (time, GPU, values) as a log, a recording or a scrape lists them: rows closer in
        time than half the sampling interval (at most 0.5 s; NVML reads GPUs one after another, milliseconds apart)
        form one round, at the time of its first row. This is the one place rows become columns (a text log or an exporter lists one GPU
        per line); when the rows are whole rounds in the same GPU order (the usual dmon log) the columns are
        reshaped views of ``metrics``, no copy. Values are stored in :func:`column_dtype` of their metric. A (time,
        GPU) given twice keeps its last row."""
        t = np.asarray(t, dtype=np.float64)
        gpu = np.asarray(gpu, dtype=np.int64)
        n = t.shape[0]
        if gpu.shape != t.shape:
            raise TelemetryError(_("GPU column has {values} values for {rows} rows.").format(values=gpu.shape[0], rows=n))
        for name, col in metrics.items():
            if np.shape(col) != (n,):
                raise TelemetryError(_("Metric {name} has {values} values for {rows} rows.").format(
                    name=name, values=np.shape(col)[0], rows=n))
        if not n:
            return cls(np.empty(0), [], {}, reasons, notes)
        if bool(np.any(t[1:] < t[:-1])):
            order = np.argsort(t, kind="stable")
            t, gpu = t[order], gpu[order]
            metrics = {k: np.asarray(v)[order] for k, v in metrics.items()}
        lo, hi = int(gpu.min()), int(gpu.max())
        if lo >= 0 and hi < 1 << 20:
            seen = np.bincount(gpu, minlength=hi + 1) > 0
            gpu_ids = np.flatnonzero(seen)
            col = (np.cumsum(seen) - 1)[gpu]
        else:
            gpu_ids, col = np.unique(gpu, return_inverse=True)
        ng = gpu_ids.shape[0]
        new_tick = np.empty(n, dtype=bool)
        new_tick[0] = True
        np.greater(t[1:] - t[:-1], _round_tolerance_s(t, gpu), out=new_tick[1:])
        row = np.cumsum(new_tick) - 1
        nt = int(row[-1]) + 1
        whole = n == nt * ng and bool(np.array_equal(col.reshape(nt, ng), np.broadcast_to(np.arange(ng), (nt, ng))))
        if whole:
            ticks = t[new_tick]
        else:
            row = _split_repeats(row, col, ng)
            nt = int(row.max()) + 1
            ticks = np.full(nt, np.inf)
            np.minimum.at(ticks, row, t)  # a round is at the time of its first row
        columns: dict[str, np.ndarray] = {}
        for name, values in metrics.items():
            v = np.asarray(values).astype(column_dtype(name), copy=False)
            if whole:
                columns[name] = v.reshape(nt, ng)
            else:
                out = np.full((nt, ng), np.nan, dtype=v.dtype)
                out[row, col] = v
                columns[name] = out
        return cls(ticks, gpu_ids.tolist(), columns, reasons, notes)

    @classmethod
    def from_batches(cls, batches: Iterable[SampleBatch], notes: Iterable[str] = ()) -> History:
        """The history of live batches: one round per batch at the batch's time; None becomes NaN and its
        reason is kept."""
        ts: list[float] = []
        gs: list[int] = []
        cols: dict[str, list[float]] = {}
        reasons: dict[tuple[int, str], str] = {}
        n = 0
        for batch in batches:
            for s in batch.samples:
                ts.append(batch.t)
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
        return cls.from_rows(np.array(ts), np.array(gs, dtype=np.int64),
                             {k: np.array(v, dtype=column_dtype(k)) for k, v in cols.items()}, reasons, notes)

    def replace(self, *, times: np.ndarray | None = None, columns: Mapping[str, np.ndarray] | None = None,
                reasons: Mapping[tuple[int, str], str] | None = None, notes: Iterable[str] | None = None) -> History:
        """A history sharing this one's arrays except those given (no copy)."""
        return History(self.times if times is None else times, self.gpus,
                       self.columns if columns is None else columns,
                       self.reasons if reasons is None else reasons, self.notes if notes is None else notes)

    def copy(self) -> History:
        """A copy of the arrays (for another thread while the live buffer keeps changing)."""
        return History(self.times.copy(), self.gpus, {k: v.copy() for k, v in self.columns.items()},
                       self.reasons, self.notes)

    # ------------------------------------------------------------------ reading
    def __len__(self) -> int:
        """Sampling rounds (ticks)."""
        return int(self.times.shape[0])

    @property
    def nbytes(self) -> int:
        """Bytes held by the time base and the columns."""
        return int(self.times.nbytes + sum(v.nbytes for v in self.columns.values()))

    @property
    def span(self) -> tuple[float, float] | None:
        if not len(self):
            return None
        return float(self.times[0]), float(self.times[-1])

    def position(self, gpu: int) -> int | None:
        """Column of GPU index ``gpu``, or None when the history has no such GPU."""
        return self.positions().get(int(gpu))

    def positions(self) -> dict[int, int]:
        """GPU index -> column (built once, then kept: treat a history as immutable)."""
        cached: dict[int, int] | None = self.__dict__.get("_positions")
        if cached is None:
            cached = self.__dict__["_positions"] = {g: j for j, g in enumerate(self.gpus)}
        return cached

    def column(self, gpu: int, metric: str) -> np.ndarray | None:
        """Values of one metric on one GPU, one per round (a view), or None when either is absent."""
        j = self.position(gpu)
        col = self.columns.get(metric)
        return None if j is None or col is None else col[:, j]

    def seen_span(self, j: int) -> tuple[float, float] | None:
        """(first, last) time at which column ``j`` (one GPU) has any reading, None when it has none (computed
        for every column at the first call, then kept: treat a history as immutable)."""
        cached: list[tuple[float, float] | None] | None = self.__dict__.get("_seen_spans")
        if cached is None:
            seen = np.zeros((len(self), len(self.gpus)), dtype=bool)
            for col in self.columns.values():
                seen |= ~np.isnan(col)
            any_seen: list[bool] = np.asarray(seen.any(axis=0)).tolist()
            first = np.argmax(seen, axis=0)
            last = len(self) - 1 - np.argmax(seen[::-1], axis=0)
            cached = [(float(self.times[f]), float(self.times[la])) if ok else None
                      for f, la, ok in zip(first.tolist(), last.tolist(), any_seen)]
            self.__dict__["_seen_spans"] = cached
        return cached[j]

    def metric_names(self) -> list[str]:
        """Metrics with at least one readable value, in a stable order."""
        return [k for k, v in self.columns.items() if v.size and not np.all(np.isnan(v))]

    def sample_count(self, gpu: int) -> int:
        """Rounds in which GPU ``gpu`` has at least one readable value."""
        j = self.position(gpu)
        if j is None or not self.columns:
            return 0
        seen = np.zeros(len(self), dtype=bool)
        for col in self.columns.values():
            seen |= ~np.isnan(col[:, j])
        return int(seen.sum())

    def select(self, t0: float | None = None, t1: float | None = None, gpus: Iterable[int] | None = None) -> History:
        """Rounds with t0 <= t <= t1 (either bound optional) and, if given, only those GPUs (views when no GPU
        is left out)."""
        lo = 0 if t0 is None else int(np.searchsorted(self.times, t0, side="left"))
        hi = len(self) if t1 is None else int(np.searchsorted(self.times, t1, side="right"))
        cols = {k: v[lo:hi] for k, v in self.columns.items()}
        keep = self.gpus
        if gpus is not None:
            wanted = {int(g) for g in gpus}
            idx = [j for j, g in enumerate(self.gpus) if g in wanted]
            keep = [self.gpus[j] for j in idx]
            cols = {k: v[:, idx] for k, v in cols.items()}
            times = self.times[lo:hi]
            present = np.zeros(times.shape[0], dtype=bool)
            for v in cols.values():
                present |= ~np.all(np.isnan(v), axis=1) if v.shape[1] else present
            cols = {k: v[present] for k, v in cols.items()}
            return History(times[present], keep, cols, self.reasons, self.notes)
        return History(self.times[lo:hi], keep, cols, self.reasons, self.notes)

    def series(self, gpu: int, metric: str) -> tuple[np.ndarray, np.ndarray]:
        """(times, values) of one metric on one GPU; NaN where missing, all NaN when the metric is absent;
        empty for a GPU the history does not have."""
        j = self.position(gpu)
        if j is None:
            return np.empty(0), np.empty(0)
        col = self.columns.get(metric)
        return self.times, (np.full(len(self), np.nan) if col is None else col[:, j])

    def reason(self, gpu: int, metric: str) -> str | None:
        """Why values of ``metric`` on ``gpu`` are missing, if known."""
        if metric not in self.columns:
            return self.reasons.get((gpu, metric), "not recorded by this source")
        return self.reasons.get((gpu, metric))

    def rows(self) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        """(t, gpu, metric -> values) with one row per (round, GPU) that has a readable value: the form of a
        text file or a database table, made at the writer (CSV export, recorder)."""
        n, g = len(self), len(self.gpus)
        if not n or not g:
            return np.empty(0), np.empty(0, dtype=np.int32), {k: np.empty(0, dtype=v.dtype)
                                                              for k, v in self.columns.items()}
        present = np.zeros((n, g), dtype=bool)
        for v in self.columns.values():
            present |= ~np.isnan(v)
        flat = present.reshape(-1)
        everything = bool(flat.all())
        t = np.repeat(self.times, g)
        gpu = np.tile(np.asarray(self.gpus, dtype=np.int32), n)
        cols = {k: v.reshape(-1) for k, v in self.columns.items()}
        if everything:
            return t, gpu, cols
        return t[flat], gpu[flat], {k: v[flat] for k, v in cols.items()}

    def to_batches(self) -> list[SampleBatch]:
        """One :class:`SampleBatch` per round (used by replay)."""
        batches: list[SampleBatch] = []
        names = list(self.columns)
        for i in range(len(self)):
            t = float(self.times[i])
            samples = []
            for j, g in enumerate(self.gpus):
                vals: dict[str, float | None] = {}
                reasons: dict[str, str] = {}
                seen = False
                for n in names:
                    v = float(self.columns[n][i, j])
                    if math.isnan(v):
                        vals[n] = None
                        reasons[n] = self.reasons.get((g, n), "not read")
                    else:
                        vals[n] = v
                        seen = True
                if seen or not names:
                    samples.append(Sample(t, g, None, vals, reasons))
            batches.append(SampleBatch(t, samples))
        return batches


def _split_repeats(row: np.ndarray, col: np.ndarray, n_gpus: int) -> np.ndarray:
    """Round of each row once a GPU that appears twice in a round starts a new one there (its second sample is a
    later round, not a value to overwrite): rounds renumbered in time order."""
    key = row * n_gpus + col
    order = np.argsort(key, kind="stable")
    sk = key[order]
    first = np.empty(sk.shape[0], dtype=bool)
    first[0] = True
    np.not_equal(sk[1:], sk[:-1], out=first[1:])
    idx = np.arange(sk.shape[0])
    occurrence_sorted = idx - np.maximum.accumulate(np.where(first, idx, 0))
    occurrence = np.empty_like(occurrence_sorted)
    occurrence[order] = occurrence_sorted
    top = int(occurrence.max())
    if not top:
        return row
    _keys, renumbered = np.unique(row * (top + 1) + occurrence, return_inverse=True)
    return renumbered.reshape(-1)


def _round_tolerance_s(t: np.ndarray, gpu: np.ndarray) -> float:
    """How far apart (s) rows of one sampling round may be: half the interval of the first GPU's samples (median
    of its first 10,000 gaps), at most 0.5 s; 0 when that GPU has fewer than two samples."""
    own = t[gpu == gpu[0]][:10_001]
    gaps = np.diff(own)
    gaps = gaps[gaps > 0]
    return min(0.5, 0.5 * middle(gaps)) if gaps.size else 0.0


def concat_histories(parts: Iterable[History]) -> History:
    """Join histories in time: the union of their GPUs and metrics, NaN where a part lacks one."""
    parts = [p for p in parts]
    if not parts:
        return History.empty()
    if len(parts) == 1:
        return parts[0]
    gpus = sorted({g for p in parts for g in p.gpus})
    where = {g: j for j, g in enumerate(gpus)}
    names: list[str] = []
    for p in parts:
        names.extend(k for k in p.columns if k not in names)
    cols: dict[str, np.ndarray] = {}
    for k in names:
        dtype = np.result_type(*[p.columns[k].dtype for p in parts if k in p.columns])
        pieces = []
        for p in parts:
            block = np.full((len(p), len(gpus)), np.nan, dtype=dtype)
            if k in p.columns:
                block[:, [where[g] for g in p.gpus]] = p.columns[k]
            pieces.append(block)
        cols[k] = np.concatenate(pieces)
    reasons: dict[tuple[int, str], str] = {}
    notes: list[str] = []
    for p in parts:
        for key, why in p.reasons.items():
            reasons.setdefault(key, why)
        notes.extend(p.notes)
    return History(np.concatenate([p.times for p in parts]), gpus, cols, reasons, notes)
