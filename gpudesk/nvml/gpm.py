"""NVML GPU Performance Monitoring (GPM): SM activity, SM occupancy, tensor and FP pipes, DRAM bandwidth.

GPM (NVML >= 12.0, Hopper and later GPUs) computes metrics between two samples taken by the driver: allocate a
sample buffer (``nvmlGpmSampleAlloc``), fill it (``nvmlGpmSampleGet``, or ``nvmlGpmMigSampleGet`` for one MIG GPU
instance), and ask ``nvmlGpmMetricsGet`` for the metrics between the previous and the current sample with an
``nvmlGpmMetricsGet_t`` structure (version ``NVML_GPM_METRICS_GET_VERSION``; one ``nvmlGpmMetric_t`` per metric,
each with its own return code). Support is asked once per GPU (``nvmlGpmQueryDeviceSupport``). No DCGM daemon is
needed. Sources: ``nvml.h`` "GPM" section and https://docs.nvidia.com/deploy/nvml-api/group__nvmlGpmFunctions.html;
the structures are nvidia-ml-py's (``c_nvmlGpmMetricsGet_t``, ``c_nvmlGpmSupport_t``).

Values are what NVML returns: percentages 0..100 for the utilization metrics (``NVML_GPM_METRIC_SM_UTIL`` ...).
The first read of a GPU has no previous sample: its values are None with that reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpudesk.i18n import _
from gpudesk.nvml.nvml_session import NvmlSession, reason_text

# NVML_GPM_METRIC_* ids (nvml.h), the ones gpudesk records.
GRAPHICS_UTIL = 1
SM_UTIL = 2
SM_OCCUPANCY = 3
ANY_TENSOR_UTIL = 5
DRAM_BW_UTIL = 10
FP64_UTIL = 11
FP32_UTIL = 12
FP16_UTIL = 13
DEFAULT_METRICS = (GRAPHICS_UTIL, SM_UTIL, SM_OCCUPANCY, ANY_TENSOR_UTIL, DRAM_BW_UTIL, FP64_UTIL, FP32_UTIL, FP16_UTIL)


def not_supported_text() -> str:
    return _("GPM metrics are not supported on this GPU (they need a Hopper or later GPU and NVML 12 or later).")


@dataclass
class GpmReading:
    """GPM metrics of one GPU (or MIG GPU instance) between its last two samples.

    ``values``: metric id -> value (None when NVML did not return it, with the reason in ``reasons``);
    ``reason``: set when nothing could be read at all (not supported, first sample, sample failed).
    """

    values: dict[int, float | None] = field(default_factory=dict)
    reasons: dict[int, str] = field(default_factory=dict)
    reason: str | None = None


@dataclass
class _Slot:
    previous: Any = None
    current: Any = None


class GpmReader:
    """Reads GPM metrics through an open :class:`NvmlSession`; one reader per session, used from one thread.

    ``read(index)`` takes a new sample of GPU ``index`` and returns the metrics since its previous sample;
    ``read(index, gpu_instance_id=gi)`` does the same for one MIG GPU instance. ``close()`` frees the buffers.
    """

    def __init__(self, session: NvmlSession, metric_ids: tuple[int, ...] = DEFAULT_METRICS):
        self.session = session
        self.metric_ids = metric_ids
        self._support: dict[int, str | None] = {}
        self._slots: dict[tuple[int, int | None], _Slot] = {}

    def support(self, index: int) -> str | None:
        """None when GPU ``index`` supports GPM, else the reason it does not (asked once, then cached)."""
        if index in self._support:
            return self._support[index]
        nv = self.session.nvml
        handle = self.session.handle(index)
        if nv is None or handle is None:
            return _("GPU handle unavailable")
        fn = getattr(nv, "nvmlGpmQueryDeviceSupport", None)
        if fn is None:
            why: str | None = not_supported_text()
        else:
            result, err = self.session.call(fn, handle)
            if result is None:
                name = (err or "").split(" ")[0]
                why = not_supported_text() if name in ("NotSupported", "FunctionNotFound") else err
            else:
                why = None if int(result.isSupportedDevice) else not_supported_text()
        self._support[index] = why
        return why

    def read(self, index: int, gpu_instance_id: int | None = None) -> GpmReading:
        why = self.support(index)
        if why is not None:
            return GpmReading(reason=why)
        nv = self.session.nvml
        handle = self.session.handle(index)
        assert nv is not None and handle is not None, "support() checked the session and the handle"
        slot = self._slots.setdefault((index, gpu_instance_id), _Slot())
        if slot.current is None:
            for attr in ("previous", "current"):
                buf, err = self.session.call(nv.nvmlGpmSampleAlloc)
                if buf is None:
                    return GpmReading(reason=_("GPM sample buffer could not be allocated: {reason}").format(reason=err))
                setattr(slot, attr, buf)
            slot_fresh = True
        else:
            slot_fresh = False
        if gpu_instance_id is None:
            _got, err = self.session.call(nv.nvmlGpmSampleGet, handle, slot.current)
        else:
            _got, err = self.session.call(nv.nvmlGpmMigSampleGet, handle, gpu_instance_id, slot.current)
        if err is not None:
            why = _("GPM sample failed: {reason}").format(reason=err)
            if gpu_instance_id is None and err.split(" ")[0] in ("NotSupported", "FunctionNotFound"):
                # e.g. the whole-GPU sample of a MIG-enabled GPU: said once, not retried every tick
                self._support[index] = why
            return GpmReading(reason=why)
        # the sample just taken becomes the previous one of the next read; its old buffer is filled next time
        if slot_fresh:
            slot.previous, slot.current = slot.current, slot.previous
            return GpmReading(reason=_("first GPM sample: the metrics start with the next one"))
        reading = self._metrics(nv, slot)
        slot.previous, slot.current = slot.current, slot.previous
        return reading

    def _metrics(self, nv: Any, slot: _Slot) -> GpmReading:
        request = nv.c_nvmlGpmMetricsGet_t()
        request.version = nv.NVML_GPM_METRICS_GET_VERSION
        request.numMetrics = len(self.metric_ids)
        request.sample1 = slot.previous
        request.sample2 = slot.current
        for i, metric_id in enumerate(self.metric_ids):
            request.metrics[i].metricId = metric_id
        result, err = self.session.call(nv.nvmlGpmMetricsGet, request)
        if result is None:
            return GpmReading(reason=_("GPM metrics could not be computed: {reason}").format(reason=err))
        out = GpmReading()
        for i, metric_id in enumerate(self.metric_ids):
            metric = result.metrics[i]
            code = int(metric.nvmlReturn)
            if code != nv.NVML_SUCCESS:
                out.values[metric_id] = None
                out.reasons[metric_id] = _return_text(nv, code)
                continue
            out.values[metric_id] = float(metric.value)
        return out

    def close(self) -> None:
        nv = self.session.nvml
        if nv is None or not self.session.is_open:
            self._slots.clear()
            return
        for slot in self._slots.values():
            for buf in (slot.previous, slot.current):
                if buf is not None:
                    self.session.call(nv.nvmlGpmSampleFree, buf)
        self._slots.clear()


def _return_text(nv: Any, code: int) -> str:
    """An NVML return code as the reason text of its error class ("NotSupported (...)")."""
    return reason_text(nv.NVMLError(code))
