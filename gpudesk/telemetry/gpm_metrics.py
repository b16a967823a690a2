"""GPM metrics (:mod:`gpudesk.nvml.gpm`) recorded beside the NVML fields, under the same metric names as DCGM's
profiling fields (GPM and DCGM's DCP fields count the same hardware activity; NVML returns percent 0..100, DCGM a
ratio that gpudesk stores x 100), so the rules, plots and exports treat a GPM recording and a dcgmi log alike.

Where a GPU has no GPM (before Hopper, older driver), every GPM metric carries the reason "not supported on this
GPU" (the recording keeps it; no column of empty values is stored), never 0.
"""

from __future__ import annotations

from gpudesk.nvml import gpm
from gpudesk.telemetry import dcgm_fields as df

# NVML_GPM_METRIC_* id -> gpudesk metric (percent).
GPM_METRICS: dict[int, str] = {
    gpm.GRAPHICS_UTIL: df.GR_ENGINE_ACTIVE,
    gpm.SM_UTIL: df.SM_ACTIVE,
    gpm.SM_OCCUPANCY: df.SM_OCCUPANCY,
    gpm.ANY_TENSOR_UTIL: df.TENSOR_ACTIVE,
    gpm.DRAM_BW_UTIL: df.DRAM_ACTIVE,
    gpm.FP64_UTIL: df.FP64_ACTIVE,
    gpm.FP32_UTIL: df.FP32_ACTIVE,
    gpm.FP16_UTIL: df.FP16_ACTIVE,
}


def put_gpm(reader: gpm.GpmReader, index: int, values: dict[str, float | None], reasons: dict[str, str],
            gpu_instance_id: int | None = None) -> None:
    """Read GPU ``index`` (or one MIG GPU instance) through ``reader`` and put its GPM metrics into ``values`` /
    ``reasons`` (a sample's dictionaries)."""
    reading = reader.read(index, gpu_instance_id)
    if reader.support(index) is not None:
        # a GPU without GPM: the reason is kept (shown as N/A with it), no empty columns are stored every tick
        for name in GPM_METRICS.values():
            reasons[name] = reading.reason or gpm.not_supported_text()
        return
    for metric_id, name in GPM_METRICS.items():
        value = reading.values.get(metric_id)
        values[name] = value
        if value is None:
            reasons[name] = reading.reason or reading.reasons.get(metric_id, "NotSupported")
