"""A scripted stand-in for the ``pynvml`` module (nvidia-ml-py) for tests without a GPU.

It raises pynvml's REAL error classes (``pynvml.NVMLError_NotSupported`` ...) and carries pynvml's real
constants, so code under test cannot tell it from the bindings except by the devices it reports.

Use it by injection (``NvmlSession(nvml=fake)``, ``NvmlSource(nvml=fake)``, ``list_gpu_processes(nvml=fake)``)
or by ``monkeypatch.setitem(sys.modules, "pynvml", fake)``.

    fake = make_fake_pynvml([FakeDevice(0), FakeDevice(1, faults={"nvmlDeviceGetPowerUsage": "NotSupported"})])
    fake = make_fake_pynvml(init_error="DriverNotLoaded")
    fake.devices[1].lose()          # GPU 1 falls off the bus: every later call raises NVMLError_GpuIsLost

Faults: ``faults={pynvml function name: error}`` where error is an NVML error name ("NotSupported",
"NoPermission", "NotFound", "GpuIsLost", "Unknown", "FunctionNotFound", ...), an exception instance or class,
or a callable ``(device, *args) -> value`` that may raise. ``missing_functions`` simulates a driver older than
the bindings (e.g. "nvmlDeviceGetMemoryInfo_v2" -> FunctionNotFound for the v2 memory call).
"""

from __future__ import annotations

import ctypes
import types
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pynvml as _real

GiB = 1024**3


def nvml_error(name: str) -> Exception:
    """A real pynvml error instance from its short name ("NotSupported" -> NVMLError_NotSupported())."""
    cls = getattr(_real, f"NVMLError_{name}")
    return cls()


@dataclass
class FakeProcess:
    pid: int
    used_memory_bytes: int | None  # None = NVML_VALUE_NOT_AVAILABLE (pynvml turns it into None)
    gpu_instance_id: int = 0xFFFFFFFF
    compute_instance_id: int = 0xFFFFFFFF


@dataclass
class FakeDevice:
    """One scripted GPU. Values are in NVML's own units (KB/s, mW, MHz, bytes)."""

    index: int
    name: str | bytes = "NVIDIA A100-SXM4-80GB"
    uuid: str | None = None
    memory_total: int = 80 * GiB
    memory_used: int = 10 * GiB
    memory_reserved: int = 512 * 1024**2
    util_gpu: int = 75
    util_memory: int = 40
    pcie_tx_kb: int = 1_000_000
    pcie_rx_kb: int = 2_000_000
    power_mw: int = 250_000
    power_limit_mw: int = 400_000
    temperature_c: int = 60
    memory_temperature_c: int | None = None  # None -> the field returns NotSupported (GDDR cards)
    pcie_counters: bool = False  # NVML_FI_DEV_PCIE_COUNT_TX/RX_BYTES supported (cumulative, pcie_*_kb rate)
    sm_clock_mhz: int = 1410
    mem_clock_mhz: int = 1593
    clock_events: int = 0
    encoder: int = 0
    decoder: int = 0
    pcie_gen_max: int = 4
    pcie_width_max: int = 16
    pcie_gen_cur: int = 4
    pcie_width_cur: int = 16
    ecc_corrected: int = 0
    ecc_uncorrected: int = 0
    retired_sbe: int = 0
    retired_dbe: int = 0
    pcie_replay: int = 0
    compute_processes: list[FakeProcess] = field(default_factory=list)
    graphics_processes: list[FakeProcess] = field(default_factory=list)
    mig_mode: int | None = None  # None -> NotSupported; 0 disabled; 1 enabled
    mig_devices: list[dict] = field(default_factory=list)
    nvlink_links: int = 0
    nvlink_kib_per_s: int = 0
    # GPM: metric id -> value between two samples (None: nvmlGpmQueryDeviceSupport says unsupported); per MIG GPU
    # instance id the same; metric id -> NVML error name returned in that metric's nvmlReturn
    gpm: dict[int, float] | None = None
    gpm_mig: dict[int, dict[int, float]] = field(default_factory=dict)
    gpm_metric_errors: dict[int, str] = field(default_factory=dict)
    # per-process utilization samples: (pid, smUtil %, memUtil %) as the driver keeps them (newest last)
    process_util: list[tuple[int, int, int]] = field(default_factory=list)
    # NVML events waiting to be read: (event type bit, event data = Xid code), delivered in order; event types
    # the GPU supports (nvmlDeviceGetSupportedEventTypes)
    events: list[tuple[int, int]] = field(default_factory=list)
    supported_events: int = 0x1 | 0x2 | 0x8
    faults: dict[str, Any] = field(default_factory=dict)
    lost: bool = False
    calls: int = 0

    def __post_init__(self) -> None:
        if self.uuid is None:
            self.uuid = f"GPU-{self.index:08x}-0000-0000-0000-{self.index:012x}"

    def lose(self) -> None:
        """The GPU falls off the bus (Xid 79): every call raises NVMLError_GpuIsLost from now on."""
        self.lost = True


class _Handle:
    __slots__ = ("device", "mig")

    def __init__(self, device: FakeDevice, mig: dict | None = None):
        self.device = device
        self.mig = mig


def make_fake_pynvml(
    devices: list[FakeDevice] | int | None = None,
    *,
    init_error: str | None = None,
    driver_version: str = "550.54.15",
    nvml_version: str = "12.550.54.15",
    missing_functions: tuple[str, ...] = (),
    clock: Any = None,
) -> types.ModuleType:
    """Build a module object that quacks like pynvml over the scripted ``devices`` (or N default devices)."""
    if isinstance(devices, int):
        devices = [FakeDevice(i) for i in range(devices)]
    devs: list[FakeDevice] = list(devices or [])
    mod = types.ModuleType("pynvml")
    for name in dir(_real):
        if name.startswith(("NVML_", "NVMLError", "nvmlClocks", "nvmlMemory_v", "c_nvml")):
            setattr(mod, name, getattr(_real, name))
    mod.__file__ = "<fake pynvml>"
    mod.devices = devs
    mod.initialized = 0
    mod.missing_functions = set(missing_functions)
    mod.call_log = []
    ticks = [0]

    def now_us() -> int:
        if clock is not None:
            return int(clock() * 1e6)
        ticks[0] += 1_000_000
        return ticks[0]

    def api(fn):
        name = fn.__name__

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            mod.call_log.append(name)
            if name in mod.missing_functions:
                raise nvml_error("FunctionNotFound")
            if name not in ("nvmlInit", "nvmlInitWithFlags") and not mod.initialized:
                raise nvml_error("Uninitialized")
            handle = args[0] if args and isinstance(args[0], _Handle) else None
            if handle is not None:
                dev = handle.device
                dev.calls += 1
                if dev.lost:
                    raise nvml_error("GpuIsLost")
                fault = dev.faults.get(name)
                if fault is not None:
                    if isinstance(fault, str):
                        raise nvml_error(fault)
                    if isinstance(fault, BaseException):
                        raise fault
                    if isinstance(fault, type) and issubclass(fault, BaseException):
                        raise fault()
                    return fault(dev, *args[1:], **kwargs)
            return fn(*args, **kwargs)

        wrapper.__name__ = name
        setattr(mod, name, wrapper)
        return wrapper

    @api
    def nvmlInit() -> None:
        if init_error is not None:
            raise nvml_error(init_error)
        mod.initialized += 1

    @api
    def nvmlShutdown() -> None:
        mod.initialized = max(0, mod.initialized - 1)

    @api
    def nvmlSystemGetDriverVersion() -> str:
        return driver_version

    @api
    def nvmlSystemGetNVMLVersion() -> str:
        return nvml_version

    @api
    def nvmlDeviceGetCount() -> int:
        return len(devs)

    @api
    def nvmlDeviceGetHandleByIndex(index: int) -> _Handle:
        if not 0 <= index < len(devs):
            raise nvml_error("InvalidArgument")
        dev = devs[index]
        fault = dev.faults.get("nvmlDeviceGetHandleByIndex")
        if fault is not None:
            raise nvml_error(fault) if isinstance(fault, str) else fault
        if dev.lost:
            raise nvml_error("GpuIsLost")
        return _Handle(dev)

    @api
    def nvmlDeviceGetName(h: _Handle) -> str:
        name = h.device.name
        if isinstance(name, bytes):
            return name.decode()  # raises UnicodeDecodeError for non-UTF-8 names, as pynvml does (nvitop #127)
        return name

    @api
    def nvmlDeviceGetUUID(h: _Handle) -> str:
        if h.mig is not None:
            return h.mig["uuid"]
        return h.device.uuid

    @api
    def nvmlDeviceGetPciInfo(h: _Handle) -> SimpleNamespace:
        return SimpleNamespace(busId=f"00000000:{0x10 + h.device.index:02X}:00.0")

    @api
    def nvmlDeviceGetMaxPcieLinkGeneration(h: _Handle) -> int:
        return h.device.pcie_gen_max

    @api
    def nvmlDeviceGetMaxPcieLinkWidth(h: _Handle) -> int:
        return h.device.pcie_width_max

    @api
    def nvmlDeviceGetCurrPcieLinkGeneration(h: _Handle) -> int:
        return h.device.pcie_gen_cur

    @api
    def nvmlDeviceGetCurrPcieLinkWidth(h: _Handle) -> int:
        return h.device.pcie_width_cur

    @api
    def nvmlDeviceGetEnforcedPowerLimit(h: _Handle) -> int:
        return h.device.power_limit_mw

    @api
    def nvmlDeviceGetPowerUsage(h: _Handle) -> int:
        return h.device.power_mw

    @api
    def nvmlDeviceGetUtilizationRates(h: _Handle) -> SimpleNamespace:
        if h.device.mig_mode == 1:
            raise nvml_error("NotSupported")
        return SimpleNamespace(gpu=h.device.util_gpu, memory=h.device.util_memory)

    @api
    def nvmlDeviceGetMemoryInfo(h: _Handle, version: int | None = None) -> SimpleNamespace:
        if h.mig is not None:
            return SimpleNamespace(total=h.mig["memory_total"], used=h.mig.get("memory_used", 0),
                                   free=h.mig["memory_total"] - h.mig.get("memory_used", 0))
        d = h.device
        if version:
            if "nvmlDeviceGetMemoryInfo_v2" in mod.missing_functions:
                raise nvml_error("FunctionNotFound")
            return SimpleNamespace(version=version, total=d.memory_total, reserved=d.memory_reserved,
                                   used=d.memory_used, free=max(0, d.memory_total - d.memory_used - d.memory_reserved))
        # v1 counts the reserved memory as used (R510+; gpustat #141)
        used = d.memory_used + d.memory_reserved if d.memory_total else 0
        return SimpleNamespace(total=d.memory_total, used=used, free=max(0, d.memory_total - used))

    @api
    def nvmlDeviceGetPcieThroughput(h: _Handle, counter: int) -> int:
        return h.device.pcie_tx_kb if counter == _real.NVML_PCIE_UTIL_TX_BYTES else h.device.pcie_rx_kb

    @api
    def nvmlDeviceGetTemperature(h: _Handle, sensor: int) -> int:
        return h.device.temperature_c

    @api
    def nvmlDeviceGetClockInfo(h: _Handle, kind: int) -> int:
        return h.device.sm_clock_mhz if kind == _real.NVML_CLOCK_SM else h.device.mem_clock_mhz

    @api
    def nvmlDeviceGetCurrentClocksEventReasons(h: _Handle) -> int:
        return h.device.clock_events

    @api
    def nvmlDeviceGetCurrentClocksThrottleReasons(h: _Handle) -> int:
        return h.device.clock_events

    @api
    def nvmlDeviceGetEncoderUtilization(h: _Handle) -> list[int]:
        return [h.device.encoder, 167000]

    @api
    def nvmlDeviceGetDecoderUtilization(h: _Handle) -> list[int]:
        return [h.device.decoder, 167000]

    @api
    def nvmlDeviceGetTotalEccErrors(h: _Handle, error_type: int, counter_type: int) -> int:
        if error_type == _real.NVML_MEMORY_ERROR_TYPE_CORRECTED:
            return h.device.ecc_corrected
        return h.device.ecc_uncorrected

    @api
    def nvmlDeviceGetRetiredPages(h: _Handle, cause: int) -> list[int]:
        n = h.device.retired_sbe if cause == 0 else h.device.retired_dbe
        return [0x1000 * i for i in range(n)]

    @api
    def nvmlDeviceGetRetiredPagesPendingStatus(h: _Handle) -> int:
        return 0

    @api
    def nvmlDeviceGetPcieReplayCounter(h: _Handle) -> int:
        return h.device.pcie_replay

    @api
    def nvmlDeviceGetFieldValues(h: _Handle, field_ids: list) -> list[SimpleNamespace]:
        d = h.device
        ts = now_us()
        out = []
        for fid in field_ids:
            fid, scope = fid if isinstance(fid, tuple) else (fid, 0)
            ret, ui, ull = 0, 0, 0
            if fid == _real.NVML_FI_DEV_NVLINK_LINK_COUNT:
                ui = d.nvlink_links
            elif fid in (_real.NVML_FI_DEV_PCIE_COUNT_TX_BYTES, _real.NVML_FI_DEV_PCIE_COUNT_RX_BYTES):
                if not d.pcie_counters:
                    ret = _real.NVML_ERROR_NOT_SUPPORTED
                per_s = d.pcie_tx_kb if fid == _real.NVML_FI_DEV_PCIE_COUNT_TX_BYTES else d.pcie_rx_kb
                ull = per_s * 1000 * ts // 1_000_000  # the same bytes as the "KB/s" figure (SI)
            elif fid == _real.NVML_FI_DEV_MEMORY_TEMP and d.memory_temperature_c is not None:
                ui = d.memory_temperature_c
            elif fid in (_real.NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX, _real.NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX):
                if d.nvlink_links == 0:
                    ret = _real.NVML_ERROR_NOT_SUPPORTED
                ull = d.nvlink_kib_per_s * ts // 1_000_000
            else:
                ret = _real.NVML_ERROR_NOT_SUPPORTED
            out.append(SimpleNamespace(fieldId=fid, scopeId=scope, timestamp=ts, latencyUsec=0, nvmlReturn=ret,
                                       valueType=0, value=SimpleNamespace(uiVal=ui, ullVal=ull, dVal=0.0)))
        return out

    def _procs(items: list[FakeProcess]) -> list[SimpleNamespace]:
        return [SimpleNamespace(pid=p.pid, usedGpuMemory=p.used_memory_bytes, gpuInstanceId=p.gpu_instance_id,
                                computeInstanceId=p.compute_instance_id) for p in items]

    @api
    def nvmlDeviceGetComputeRunningProcesses(h: _Handle) -> list[SimpleNamespace]:
        return _procs(h.device.compute_processes)

    @api
    def nvmlDeviceGetGraphicsRunningProcesses(h: _Handle) -> list[SimpleNamespace]:
        return _procs(h.device.graphics_processes)

    @api
    def nvmlDeviceGetComputeRunningProcesses_v2(h: _Handle) -> list[SimpleNamespace]:
        return _procs(h.device.compute_processes)

    @api
    def nvmlDeviceGetGraphicsRunningProcesses_v2(h: _Handle) -> list[SimpleNamespace]:
        return _procs(h.device.graphics_processes)

    @api
    def nvmlDeviceGetMigMode(h: _Handle) -> list[int]:
        if h.device.mig_mode is None:
            raise nvml_error("NotSupported")
        return [h.device.mig_mode, h.device.mig_mode]

    @api
    def nvmlDeviceGetMaxMigDeviceCount(h: _Handle) -> int:
        return 7 if h.device.mig_mode == 1 else 0

    @api
    def nvmlDeviceGetMigDeviceHandleByIndex(h: _Handle, i: int) -> _Handle:
        migs = h.device.mig_devices
        if i >= len(migs):
            raise nvml_error("NotFound")
        return _Handle(h.device, migs[i])

    @api
    def nvmlDeviceGetGpuInstanceId(h: _Handle) -> int:
        return h.mig["gi"] if h.mig else 0xFFFFFFFF

    @api
    def nvmlDeviceGetComputeInstanceId(h: _Handle) -> int:
        return h.mig["ci"] if h.mig else 0xFFFFFFFF

    # --- GPM: the real structures (c_nvmlGpmSupport_t, c_nvmlGpmSample_t, c_nvmlGpmMetricsGet_t) -------------
    gpm_samples: dict[int, tuple[FakeDevice, dict[int, float]]] = {}

    @api
    def nvmlGpmQueryDeviceSupport(h: _Handle) -> Any:
        support = _real.c_nvmlGpmSupport_t()
        support.version = _real.NVML_GPM_SUPPORT_VERSION
        support.isSupportedDevice = 0 if h.device.gpm is None else 1
        return support

    @api
    def nvmlGpmSampleAlloc() -> Any:
        return ctypes.pointer(_real.struct_c_nvmlGpmSample_t())

    @api
    def nvmlGpmSampleFree(sample: Any) -> None:
        gpm_samples.pop(ctypes.addressof(sample.contents), None)

    @api
    def nvmlGpmSampleGet(h: _Handle, sample: Any) -> Any:
        if h.device.gpm is None or h.device.mig_mode == 1:  # MIG on: the driver samples GPU instances only
            raise nvml_error("NotSupported")
        gpm_samples[ctypes.addressof(sample.contents)] = (h.device, dict(h.device.gpm))
        return sample

    @api
    def nvmlGpmMigSampleGet(h: _Handle, gpu_instance_id: int, sample: Any) -> Any:
        values = h.device.gpm_mig.get(gpu_instance_id)
        if values is None:
            raise nvml_error("NotFound")
        gpm_samples[ctypes.addressof(sample.contents)] = (h.device, dict(values))
        return sample

    @api
    def nvmlGpmMetricsGet(request: Any) -> Any:
        if request.version != _real.NVML_GPM_METRICS_GET_VERSION:
            raise nvml_error("ArgumentVersionMismatch")
        first = gpm_samples.get(ctypes.addressof(request.sample1.contents))
        second = gpm_samples.get(ctypes.addressof(request.sample2.contents))
        if first is None or second is None:
            raise nvml_error("InvalidArgument")
        device, values = second
        for i in range(request.numMetrics):
            metric = request.metrics[i]
            error = device.gpm_metric_errors.get(metric.metricId)
            if error is not None:
                metric.nvmlReturn = getattr(_real, "NVML_ERROR_" + {"NotSupported": "NOT_SUPPORTED"}.get(error, error))
                continue
            if metric.metricId not in values:
                metric.nvmlReturn = _real.NVML_ERROR_NOT_SUPPORTED
                continue
            metric.nvmlReturn = _real.NVML_SUCCESS
            metric.value = values[metric.metricId]
        return request

    # --- per-process utilization: lists of the real sample structures -----------------------------------------
    def _util_samples(dev: FakeDevice, since_us: int, struct: Any) -> list[Any]:
        out = []
        for k, (pid, sm, mem) in enumerate(dev.process_util):
            sample = struct()
            sample.pid, sample.smUtil, sample.memUtil = pid, sm, mem
            sample.timeStamp = since_us + 1000 * (k + 1)
            out.append(sample)
        if not out:
            raise nvml_error("NotFound")  # NVML: no sample since lastSeenTimeStamp
        return out

    @api
    def nvmlDeviceGetProcessesUtilizationInfo(h: _Handle, since_us: int) -> list[Any]:
        return _util_samples(h.device, since_us, _real.c_nvmlProcessUtilizationInfo_v1_t)

    @api
    def nvmlDeviceGetProcessUtilization(h: _Handle, since_us: int) -> list[Any]:
        return _util_samples(h.device, since_us, _real.c_nvmlProcessUtilizationSample_t)

    # --- events: a set holds registered devices; waits return the next queued event or raise Timeout ---------
    event_sets: list[dict[str, Any]] = []

    @api
    def nvmlEventSetCreate() -> Any:
        event_set = {"devices": []}
        event_sets.append(event_set)
        return event_set

    @api
    def nvmlDeviceGetSupportedEventTypes(h: _Handle) -> int:
        return h.device.supported_events

    @api
    def nvmlDeviceRegisterEvents(h: _Handle, types: int, event_set: Any) -> None:
        if types & ~h.device.supported_events:
            raise nvml_error("NotSupported")
        event_set["devices"].append((h, types))

    @api
    def nvmlEventSetWait(event_set: Any, timeout_ms: int) -> Any:
        for h, wanted in event_set["devices"]:
            queue = h.device.events
            while queue:
                etype, data = queue.pop(0)
                if etype & wanted:
                    return SimpleNamespace(device=h, eventType=etype, eventData=data, gpuInstanceId=0xFFFFFFFF,
                                           computeInstanceId=0xFFFFFFFF)
        raise nvml_error("Timeout")

    @api
    def nvmlEventSetFree(event_set: Any) -> None:
        event_set["devices"].clear()

    # keep references so linters do not flag the registered functions as unused
    mod._registered = [v for v in locals().values() if callable(v)]
    return mod
