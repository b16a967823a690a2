"""GPM metrics (:mod:`gpudesk.nvml.gpm`) recorded beside the NVML fields, under the same metric names as DCGM's
profiling fields (GPM and DCGM's DCP fields count the same hardware activity; NVML returns percent 0..100, DCGM a
ratio that gpudesk stores x 100), so the rules, plots and exports treat a GPM recording and a dcgmi log alike.

Where a GPU has no GPM (before Hopper, older driver), every GPM metric carries the reason "not supported on this
GPU" (the recording keeps it; no column of empty values is stored), never 0.
"""

from __future__ import annotations

from typing import Any

from gpudesk.i18n import _
from gpudesk.nvml import gpm
from gpudesk.telemetry.core import dcgm_fields as df
from gpudesk.telemetry.core.model import InstanceSample

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


def mig_reason() -> str:
    return _("MIG is enabled on this GPU: GPM metrics are read per GPU instance (NVML has no whole-GPU GPM sample "
             "then).")


def put_mig_gpm(reader: gpm.GpmReader, index: int, mig_devices: list[dict[str, Any]], values: dict[str, float | None],
                reasons: dict[str, str]) -> list[InstanceSample]:
    """A MIG-enabled GPU: its GPM metrics per GPU instance (``nvmlGpmMigSampleGet``), one :class:`InstanceSample`
    per GPU instance (compute instances of one GPU instance share its sample); the GPU's own GPM metrics are None
    with the reason (the driver refuses a whole-GPU sample while MIG is on)."""
    out: list[InstanceSample] = []
    seen: set[int] = set()
    for mig in mig_devices:
        gi = mig.get("gpu_instance_id")
        if gi is None or int(gi) in seen:
            continue
        seen.add(int(gi))
        inst_values: dict[str, float | None] = {}
        inst_reasons: dict[str, str] = {}
        put_gpm(reader, index, inst_values, inst_reasons, gpu_instance_id=int(gi))
        out.append(InstanceSample(int(gi), mig.get("uuid"), inst_values, inst_reasons))
    why = reader.support(index) or mig_reason()
    for name in GPM_METRICS.values():
        values[name] = None
        reasons[name] = why
    return out
