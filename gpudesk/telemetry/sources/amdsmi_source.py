"""Live samples from AMD GPUs through AMD's own Python library, ``amdsmi`` (issue 32).

A :class:`~gpudesk.telemetry.core.source.SampleSource` like the NVML one, so recording, plots, findings and the
burn-in report work on AMD Instinct and Radeon PRO cards. Calls and fields are AMD SMI's documented Python API
(rocm.docs.amd.com/projects/amdsmi, "Python API reference"): ``amdsmi_init`` / ``amdsmi_shut_down``,
``amdsmi_get_processor_handles``, ``amdsmi_get_gpu_asic_info`` (``market_name``), ``amdsmi_get_gpu_device_uuid``,
``amdsmi_get_gpu_device_bdf``, ``amdsmi_get_gpu_activity`` (``gfx_activity``, ``umc_activity`` in %),
``amdsmi_get_gpu_vram_usage`` (``vram_used`` / ``vram_total`` in MB, i.e. MiB), ``amdsmi_get_power_info``
(``current_socket_power``, else ``average_socket_power``, W), ``amdsmi_get_temp_metric`` (``EDGE``, else
``HOTSPOT`` on parts without an edge sensor such as the MI300X; ``VRAM``; degrees C) and
``amdsmi_get_clock_info`` (``GFX`` / ``MEM`` ``clk`` in MHz). Failures raise ``AmdSmiException`` and its
subclasses; a ``AmdSmiLibraryException`` whose ``get_error_code()`` is ``AMDSMI_STATUS_NOT_SUPPORTED`` (2,
amdsmi.h) is not asked again for that GPU, other errors are retried next tick.

Mapping onto the NVML-shaped metrics: gfx_activity -> GPU utilization, umc_activity (memory controller) ->
memory utilization, GFX clock -> SM clock. Not read here: PCIe and Infinity Fabric throughput, throttle reasons
and ECC counters (the findings that need them are not judged and say so).
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

from gpudesk.i18n import _
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core.model import DeviceInfo, Sample, SampleBatch, TelemetryError

from gpudesk.units import MIB
MHZ = 1e6
NOT_SUPPORTED = 2  # AMDSMI_STATUS_NOT_SUPPORTED (amdsmi.h)
LIVE_METRICS = (m.GPU_UTIL, m.MEM_UTIL, m.MEM_USED, m.MEM_TOTAL, m.POWER, m.GPU_TEMP, m.MEM_TEMP, m.SM_CLOCK,
                m.MEM_CLOCK)


class AmdSmiUnavailableError(TelemetryError):
    """The amdsmi library is missing or cannot start (no AMD GPU driver)."""


def _import_amdsmi() -> ModuleType:
    try:
        return importlib.import_module("amdsmi")
    except ImportError as exc:
        raise AmdSmiUnavailableError(_("AMD SMI's Python library is not installed: pip install amdsmi (it needs the "
                                       "ROCm driver and libamd_smi).")) from exc


class AmdSmiSource:
    """Read every AMD GPU once per :meth:`poll`.

    Args:
        amdsmi: the library module (tests inject a fake); None imports ``amdsmi``.
        interval_s: suggested poll interval in seconds.
        clock: time source returning seconds since the epoch.

    Raises:
        AmdSmiUnavailableError: the library is missing or ``amdsmi_init`` failed.
    """

    kind = "amdsmi"

    def __init__(self, amdsmi: ModuleType | None = None, *, interval_s: float = 1.0,
                 clock: Callable[[], float] = time.time):
        self.lib = amdsmi if amdsmi is not None else _import_amdsmi()
        self.interval_s = float(interval_s)
        self._clock = clock
        try:
            self.lib.amdsmi_init()
            self._handles = list(self.lib.amdsmi_get_processor_handles())
        except self.lib.AmdSmiException as exc:
            raise AmdSmiUnavailableError(_("AMD SMI could not start: {reason}").format(reason=exc)) from exc
        self._skip: list[dict[str, str]] = [{} for _ in self._handles]
        self._devices = [self._device(i, h) for i, h in enumerate(self._handles)]
        self._closed = False

    # --- SampleSource -------------------------------------------------------------------------------------------
    def devices(self) -> list[DeviceInfo]:
        return list(self._devices)

    @property
    def finished(self) -> bool:
        return self._closed

    def describe(self) -> str:
        return _("AMD SMI live ({count} GPU(s))").format(count=len(self._handles))

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            try:
                self.lib.amdsmi_shut_down()
            except self.lib.AmdSmiException:
                pass  # shutting down a library that already failed: nothing left to release

    def poll(self) -> list[SampleBatch]:
        now = self._clock()
        return [SampleBatch(now, [self._sample(i, h, now) for i, h in enumerate(self._handles)], self.kind)]

    # --- reading ------------------------------------------------------------------------------------------------
    def _call(self, index: int, key: str, fn: Callable[..., Any], *args: Any) -> tuple[Any, str | None]:
        skip = self._skip[index].get(key)
        if skip is not None:
            return None, skip
        try:
            return fn(*args), None
        except self.lib.AmdSmiException as exc:
            code = exc.get_error_code() if hasattr(exc, "get_error_code") else None
            why = f"{type(exc).__name__}: {exc}"
            if code == NOT_SUPPORTED:
                self._skip[index][key] = why
            return None, why

    def _device(self, index: int, h: Any) -> DeviceInfo:
        asic, _why = self._call(index, "asic", self.lib.amdsmi_get_gpu_asic_info, h)
        uuid, _why = self._call(index, "uuid", self.lib.amdsmi_get_gpu_device_uuid, h)
        bdf, _why = self._call(index, "bdf", self.lib.amdsmi_get_gpu_device_bdf, h)
        vram, _why = self._call(index, "vram", self.lib.amdsmi_get_gpu_vram_usage, h)
        total = vram.get("vram_total") if isinstance(vram, dict) else None
        return DeviceInfo(index=index, uuid=uuid, name=(asic or {}).get("market_name"), pci_bus_id=bdf,
                          memory_total_bytes=int(total) * MIB if isinstance(total, (int, float)) else None,
                          reasons={"pcie_gen_max": _("AMD SMI source: the PCIe link is not read")})

    def _sample(self, index: int, h: Any, now: float) -> Sample:
        lib = self.lib
        values: dict[str, float | None] = {}
        reasons: dict[str, str] = {}

        def put(metric: str, value: Any, why: str | None) -> None:
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                values[metric] = float(value)
            else:
                values[metric] = None
                reasons[metric] = why or _("not reported by AMD SMI")

        activity, why = self._call(index, "activity", lib.amdsmi_get_gpu_activity, h)
        put(m.GPU_UTIL, (activity or {}).get("gfx_activity"), why)
        put(m.MEM_UTIL, (activity or {}).get("umc_activity"), why)
        vram, why = self._call(index, "vram", lib.amdsmi_get_gpu_vram_usage, h)
        used, total = (vram or {}).get("vram_used"), (vram or {}).get("vram_total")
        put(m.MEM_USED, used * MIB if isinstance(used, (int, float)) else None, why)
        put(m.MEM_TOTAL, total * MIB if isinstance(total, (int, float)) else None, why)
        power, why = self._call(index, "power", lib.amdsmi_get_power_info, h)
        power = power or {}
        put(m.POWER, power.get("current_socket_power", power.get("average_socket_power")), why)
        temp_type, temp_metric = lib.AmdSmiTemperatureType, lib.AmdSmiTemperatureMetric
        edge, why = self._call(index, "temp_edge", lib.amdsmi_get_temp_metric, h, temp_type.EDGE, temp_metric.CURRENT)
        if edge is None:
            edge, why = self._call(index, "temp_hotspot", lib.amdsmi_get_temp_metric, h, temp_type.HOTSPOT,
                                   temp_metric.CURRENT)
        put(m.GPU_TEMP, edge, why)
        vram_temp, why = self._call(index, "temp_vram", lib.amdsmi_get_temp_metric, h, temp_type.VRAM,
                                    temp_metric.CURRENT)
        put(m.MEM_TEMP, vram_temp, why)
        for metric, clk_type, key in ((m.SM_CLOCK, lib.AmdSmiClkType.GFX, "clk_gfx"),
                                      (m.MEM_CLOCK, lib.AmdSmiClkType.MEM, "clk_mem")):
            clock, why = self._call(index, key, lib.amdsmi_get_clock_info, h, clk_type)
            mhz = (clock or {}).get("clk")
            put(metric, mhz * MHZ if isinstance(mhz, (int, float)) else None, why)
        return Sample(now, index, self._devices[index].uuid if index < len(self._devices) else None, values, reasons)
