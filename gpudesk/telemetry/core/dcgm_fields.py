"""DCGM field names, exporter label names, dcgmi column tags and blank sentinels, mapped onto gpudesk metrics.

Sources (read, not copied):

* DCGM exporter metric names, types and units: ``etc/default-counters.csv`` and ``etc/dcp-metrics-included.csv``
  of https://github.com/NVIDIA/dcgm-exporter (FB in MiB, clocks in MHz, power in W, PROF ratios 0..1, PROF PCIe
  and NVLink in bytes per second).
* Exporter label names: ``internal/pkg/rendermetrics/render_metrics.go`` (``gpu``, ``UUID``, ``pci_bus_id``,
  ``device``, ``modelName``, ``GPU_I_PROFILE``, ``GPU_I_ID``, ``Hostname``; ``hostname`` in newer releases) and
  ``internal/pkg/transformation/const.go`` (``pod``, ``namespace``, ``container``, ``hpc_job``).
* ``dcgmi dmon`` column tags: ``dcgmlib/src/dcgm_fields.cpp`` of https://github.com/NVIDIA/DCGM.
* Blank sentinels: ``dcgmlib/dcgm_structs.h`` of https://github.com/NVIDIA/DCGM (``DCGM_INT32_BLANK`` 0x7ffffff0,
  ``DCGM_INT64_BLANK`` 0x7ffffffffffffff0, ``DCGM_FP64_BLANK`` 2**47, each followed by NOT_FOUND, NOT_SUPPORTED,
  NOT_PERMISSIONED at +1, +2, +3).
* nvitop-exporter names: ``nvitop-exporter/nvitop_exporter/exporter.py`` of https://github.com/XuehaiPan/nvitop.
* all-smi exporter names: README of https://github.com/lablup/all-smi (``all_smi_gpu_utilization`` ...,
  labels ``instance``, ``uuid``, ``index``, ``gpu`` = model name).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gpudesk.i18n import N_
from gpudesk.telemetry.core import model as m
from gpudesk.units import MIB

MHZ = 1_000_000.0

# Metrics the DCGM profiling (DCP) fields add; percentages (ratio x 100) so they sit next to gpu_util_pct.
GR_ENGINE_ACTIVE = "gr_engine_active_pct"
SM_ACTIVE = "sm_active_pct"
SM_OCCUPANCY = "sm_occupancy_pct"
TENSOR_ACTIVE = "tensor_active_pct"
DRAM_ACTIVE = "dram_active_pct"
FP64_ACTIVE = "fp64_active_pct"
FP32_ACTIVE = "fp32_active_pct"
FP16_ACTIVE = "fp16_active_pct"
XID_LAST = "xid_last_code"
ENERGY_TOTAL = "energy_total_j"
NVLINK_BANDWIDTH_TOTAL = "nvlink_bandwidth_total_count"
POWER_VIOLATION_NS = "power_violation_ns"
THERMAL_VIOLATION_NS = "thermal_violation_ns"

# gpudesk metric -> (unit, label) for the metrics above (model.METRICS holds the NVML/dmon ones).
EXTRA_METRICS: dict[str, tuple[str, str]] = {
    GR_ENGINE_ACTIVE: ("%", N_("Graphics engine active")),
    SM_ACTIVE: ("%", N_("SM active")),
    SM_OCCUPANCY: ("%", N_("SM occupancy")),
    TENSOR_ACTIVE: ("%", N_("Tensor pipe active")),
    DRAM_ACTIVE: ("%", N_("DRAM active")),
    FP64_ACTIVE: ("%", N_("FP64 pipe active")),
    FP32_ACTIVE: ("%", N_("FP32 pipe active")),
    FP16_ACTIVE: ("%", N_("FP16 pipe active")),
    XID_LAST: ("code", N_("Last XID error")),
    ENERGY_TOTAL: ("J", N_("Energy since boot")),
    NVLINK_BANDWIDTH_TOTAL: ("count", N_("NVLink bandwidth counter")),
    POWER_VIOLATION_NS: ("ns", N_("Time throttled by power")),
    THERMAL_VIOLATION_NS: ("ns", N_("Time throttled by heat")),
}


@dataclass(frozen=True)
class FieldMap:
    """One DCGM field: its exporter metric name, dcgmi column tag, gpudesk metric and the factor to its unit."""

    dcgm_name: str
    dmon_tag: str | None
    metric: str
    scale: float = 1.0


FIELDS: tuple[FieldMap, ...] = (
    FieldMap("DCGM_FI_DEV_GPU_UTIL", "GPUTL", m.GPU_UTIL),
    FieldMap("DCGM_FI_DEV_MEM_COPY_UTIL", "MCUTL", m.MEM_UTIL),
    FieldMap("DCGM_FI_DEV_ENC_UTIL", "ECUTL", m.ENC_UTIL),
    FieldMap("DCGM_FI_DEV_DEC_UTIL", "DCUTL", m.DEC_UTIL),
    FieldMap("DCGM_FI_DEV_FB_USED", "FBUSD", m.MEM_USED, MIB),
    FieldMap("DCGM_FI_DEV_FB_FREE", "FBFRE", m.MEM_FREE, MIB),
    FieldMap("DCGM_FI_DEV_FB_TOTAL", "FBTTL", m.MEM_TOTAL, MIB),
    FieldMap("DCGM_FI_DEV_FB_RESERVED", "FBRSV", m.MEM_RESERVED, MIB),
    FieldMap("DCGM_FI_PROF_PCIE_RX_BYTES", "PCIRX", m.PCIE_RX),
    FieldMap("DCGM_FI_PROF_PCIE_TX_BYTES", "PCITX", m.PCIE_TX),
    FieldMap("DCGM_FI_PROF_NVLINK_RX_BYTES", "NVLRX", m.NVLINK_RX),
    FieldMap("DCGM_FI_PROF_NVLINK_TX_BYTES", "NVLTX", m.NVLINK_TX),
    FieldMap("DCGM_FI_DEV_POWER_USAGE", "POWER", m.POWER),
    FieldMap("DCGM_FI_DEV_POWER_MGMT_LIMIT", None, m.POWER_LIMIT),
    FieldMap("DCGM_FI_DEV_GPU_TEMP", "TMPTR", m.GPU_TEMP),
    FieldMap("DCGM_FI_DEV_MEMORY_TEMP", "MMTMP", m.MEM_TEMP),
    FieldMap("DCGM_FI_DEV_SM_CLOCK", "SMCLK", m.SM_CLOCK, MHZ),
    FieldMap("DCGM_FI_DEV_MEM_CLOCK", "MMCLK", m.MEM_CLOCK, MHZ),
    FieldMap("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", "DVCCTR", m.CLOCK_EVENTS),
    FieldMap("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", None, m.CLOCK_EVENTS),  # the same field (112) before DCGM 3.3
    FieldMap("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "RPCTR", m.PCIE_REPLAY),
    FieldMap("DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "ESVTL", m.ECC_SBE),
    FieldMap("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "EDVTL", m.ECC_DBE),
    FieldMap("DCGM_FI_DEV_RETIRED_SBE", None, m.RETIRED_SBE),
    FieldMap("DCGM_FI_DEV_RETIRED_DBE", None, m.RETIRED_DBE),
    FieldMap("DCGM_FI_DEV_RETIRED_PENDING", None, m.RETIRED_PENDING),
    FieldMap("DCGM_FI_DEV_XID_ERRORS", "XIDER", XID_LAST),
    FieldMap("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "TOTEC", ENERGY_TOTAL, 1e-3),  # mJ -> J
    FieldMap("DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", None, NVLINK_BANDWIDTH_TOTAL),
    FieldMap("DCGM_FI_DEV_POWER_VIOLATION", None, POWER_VIOLATION_NS),
    FieldMap("DCGM_FI_DEV_THERMAL_VIOLATION", None, THERMAL_VIOLATION_NS),
    FieldMap("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "GRACT", GR_ENGINE_ACTIVE, 100.0),
    FieldMap("DCGM_FI_PROF_SM_ACTIVE", "SMACT", SM_ACTIVE, 100.0),
    FieldMap("DCGM_FI_PROF_SM_OCCUPANCY", "SMOCC", SM_OCCUPANCY, 100.0),
    FieldMap("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "TENSO", TENSOR_ACTIVE, 100.0),
    FieldMap("DCGM_FI_PROF_DRAM_ACTIVE", "DRAMA", DRAM_ACTIVE, 100.0),
    FieldMap("DCGM_FI_PROF_PIPE_FP64_ACTIVE", "FP64A", FP64_ACTIVE, 100.0),
    FieldMap("DCGM_FI_PROF_PIPE_FP32_ACTIVE", "FP32A", FP32_ACTIVE, 100.0),
    FieldMap("DCGM_FI_PROF_PIPE_FP16_ACTIVE", "FP16A", FP16_ACTIVE, 100.0),
)

BY_DCGM_NAME: dict[str, FieldMap] = {f.dcgm_name: f for f in FIELDS}
BY_DMON_TAG: dict[str, FieldMap] = {f.dmon_tag: f for f in FIELDS if f.dmon_tag}

# all-smi's exporter carries some of the same quantities under its own names (already in base units except MHz).
ALL_SMI_FIELDS: tuple[FieldMap, ...] = (
    FieldMap("all_smi_gpu_utilization", None, m.GPU_UTIL),
    FieldMap("all_smi_gpu_memory_used_bytes", None, m.MEM_USED),
    FieldMap("all_smi_gpu_memory_total_bytes", None, m.MEM_TOTAL),
    FieldMap("all_smi_gpu_temperature_celsius", None, m.GPU_TEMP),
    FieldMap("all_smi_gpu_power_consumption_watts", None, m.POWER),
    FieldMap("all_smi_gpu_frequency_mhz", None, m.SM_CLOCK, MHZ),
)
BY_ALL_SMI_NAME: dict[str, FieldMap] = {f.dcgm_name: f for f in ALL_SMI_FIELDS}

# nvitop-exporter (nvitop-exporter/nvitop_exporter/exporter.py of https://github.com/XuehaiPan/nvitop): gauges made
# with prometheus_client's ``unit=``, which appends the unit to the name; labels hostname, index, devicename, uuid.
MIB_PER_S = float(MIB)
NVITOP_FIELDS: tuple[FieldMap, ...] = (
    FieldMap("gpu_utilization_Percentage", None, m.GPU_UTIL),
    FieldMap("gpu_memory_utilization_Percentage", None, m.MEM_UTIL),
    FieldMap("gpu_memory_used_MiB", None, m.MEM_USED, MIB),
    FieldMap("gpu_memory_free_MiB", None, m.MEM_FREE, MIB),
    FieldMap("gpu_memory_total_MiB", None, m.MEM_TOTAL, MIB),
    FieldMap("gpu_clock_sm_MHz", None, m.SM_CLOCK, MHZ),
    FieldMap("gpu_clock_memory_MHz", None, m.MEM_CLOCK, MHZ),
    FieldMap("gpu_power_usage_W", None, m.POWER),
    FieldMap("gpu_power_limit_W", None, m.POWER_LIMIT),
    FieldMap("gpu_temperature_C", None, m.GPU_TEMP),
    FieldMap("gpu_pcie_tx_throughput_MiBps", None, m.PCIE_TX, MIB_PER_S),
    FieldMap("gpu_pcie_rx_throughput_MiBps", None, m.PCIE_RX, MIB_PER_S),
    FieldMap("gpu_nvlink_total_tx_throughput_MiBps", None, m.NVLINK_TX, MIB_PER_S),
    FieldMap("gpu_nvlink_total_rx_throughput_MiBps", None, m.NVLINK_RX, MIB_PER_S),
)
BY_NVITOP_NAME: dict[str, FieldMap] = {f.dcgm_name: f for f in NVITOP_FIELDS}

# Label names, in the order they are tried.
HOST_LABELS = ("Hostname", "hostname", "instance")  # "instance" is Prometheus' scrape target (host:port)
GPU_INDEX_LABELS = ("gpu", "index")
UUID_LABELS = ("UUID", "uuid", "gpu_uuid")
MODEL_LABELS = ("modelName", "model_name", "devicename")
MIG_INSTANCE_LABEL = "GPU_I_ID"
MIG_PROFILE_LABEL = "GPU_I_PROFILE"
JOB_LABELS = ("namespace", "pod", "container", "hpc_job", "pod_namespace", "pod_name", "container_name")

# DCGM blank sentinels (dcgm_structs.h): value -> reason.
_INT32_BLANK = 0x7FFFFFF0
_INT64_BLANK = 0x7FFFFFFFFFFFFFF0
_FP64_BLANK = 140737488355328.0
_SENTINEL_KINDS = ("blank", "not found", "not supported", "no permission")
SENTINELS: dict[float, str] = {}
for _i, _kind in enumerate(_SENTINEL_KINDS):
    SENTINELS[float(_INT32_BLANK + _i)] = f"DCGM {_kind}"
    SENTINELS[_FP64_BLANK + _i] = f"DCGM {_kind}"
# The four INT64 sentinels are one and the same number as a float64 (2**63), so they read as "DCGM blank".


def blank_reason(value: float, *, int32_gauge: bool = False) -> str | None:
    """The reason when ``value`` is one of DCGM's blank sentinels (as the exporter or dcgmi may pass them on),
    else None. INT64 sentinels lose precision as floats, so anything at or above the INT64 blank counts.

    ``int32_gauge``: the field's raw value is a gauge far below 2**31 (a percentage, ratio, watts, degrees,
    MHz, MiB of one GPU's memory). DCGM tests blanks by ``DCGM_INT32_IS_BLANK(val) (val >= DCGM_INT32_BLANK)``
    (dcgm_structs.h), so for such a field every value from 0x7ffffff0 up (2147483648 = 2**31 among them, the
    32-bit blank as widened or read unsigned) is a blank, never a reading."""
    if math.isnan(value):
        return "not a number"
    why = SENTINELS.get(value)
    if why is not None:
        return why
    if value >= float(_INT64_BLANK):
        return "DCGM blank"
    if int32_gauge and value >= float(_INT32_BLANK):
        return f"DCGM blank ({value:.0f} is in the 32-bit blank range, DCGM_INT32_IS_BLANK)"
    return None


_GAUGE_UNITS = frozenset({"%", "W", "C", "Hz"})


def is_int32_gauge(field_map: FieldMap) -> bool:
    """Whether ``field_map``'s raw DCGM value is a gauge that stays far below 2**31 (see :func:`blank_reason`):
    percentages and ratios, watts, degrees, MHz clocks and framebuffer MiB. Counters (energy, violation
    nanoseconds, NVLink and ECC counts) and byte rates can pass 2**31 legitimately and are not."""
    unit = metric_unit(field_map.metric)
    return unit in _GAUGE_UNITS or (unit == "bytes" and field_map.scale == MIB)


def metric_unit(metric: str) -> str:
    """The unit of a gpudesk metric (from model.METRICS or EXTRA_METRICS), or "" when unknown."""
    info = m.METRICS.get(metric)
    if info is not None:
        return info.unit
    extra = EXTRA_METRICS.get(metric)
    if extra:
        return extra[0]
    return smi_metric_unit(metric)


# The units nvidia-smi --query-gpu prints in a CSV header (``memory.used [MiB]``) -> the suffix of the metric name
# gpudesk gives an unmapped field, and its base unit (gpudesk.telemetry.formats.smi_query_csv).
UNIT_SUFFIXES: dict[str, tuple[str, str]] = {"MiB": ("_bytes", "bytes"), "KiB": ("_bytes", "bytes"),
                                             "GiB": ("_bytes", "bytes"), "MHz": ("_hz", "Hz"), "W": ("_w", "W"),
                                             "%": ("_pct", "%")}


def smi_metric_unit(metric: str) -> str:
    """The unit of an ``smi_*`` metric from its name's suffix ("Hz", "%" ...), or "" when it has none."""
    if metric.startswith("smi_"):
        for suffix, unit in UNIT_SUFFIXES.values():
            if metric.endswith(suffix):
                return unit
    return ""


def metric_label(metric: str) -> str:
    """A short label of a gpudesk metric, falling back to its name."""
    info = m.METRICS.get(metric)
    if info is not None:
        return info.label
    extra = EXTRA_METRICS.get(metric)
    return extra[1] if extra else metric
