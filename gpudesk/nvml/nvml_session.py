"""One long-lived NVML session: nvmlInit once, handles and static facts cached, per-call error capture.

The ``pynvml`` module (package nvidia-ml-py) is imported when a session opens, not at import time, so a
machine without it still runs the rest of gpudesk; tests inject a fake module (``nvml=``) or monkeypatch
``sys.modules["pynvml"]``. Error classes are pynvml's own (``NVMLError_NotSupported`` ...), generated from the
``NVML_ERROR_*`` codes of nvml.h.

A session is used from one thread (the sampler's). Every NVML call goes through :meth:`NvmlSession.call`,
which returns ``(value, None)`` or ``(None, reason)``; a value that cannot be read is None, never 0.
"""

from __future__ import annotations

import importlib
import os
import socket
import sys
import threading
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any
from collections.abc import Callable

from gpudesk.i18n import _
from gpudesk.nvml.device import DeviceInfo
from gpudesk.nvml.errors import NvmlError

# Availability states (NvmlStatus.state).
OK = "ok"
MODULE_MISSING = "module-missing"  # the Python bindings (nvidia-ml-py) are not installed
LIBRARY_NOT_FOUND = "library-not-found"  # libnvidia-ml.so.1 / nvml.dll not found: no NVIDIA driver installed
DRIVER_NOT_LOADED = "driver-not-loaded"  # NVMLError_DriverNotLoaded
VERSION_MISMATCH = "version-mismatch"  # NVMLError_LibRmVersionMismatch
NO_PERMISSION = "no-permission"
NO_DEVICES = "no-devices"
ERROR = "error"

def _status_text(state: str) -> str | None:
    """What a user reads for an NVML state (and what to do), in the current language; None for OK / ERROR."""
    texts = {
        MODULE_MISSING: _("The NVML Python bindings (package nvidia-ml-py, module pynvml) are not installed. "
                          "Install them with: pip install nvidia-ml-py"),
        LIBRARY_NOT_FOUND: _("The NVIDIA driver library (NVML: libnvidia-ml.so.1 on Linux, nvml.dll on Windows) was "
                             "not found: no NVIDIA driver is installed on this machine. Install the driver, or import a "
                             "dmon log / open a recording instead."),
        DRIVER_NOT_LOADED: _("The NVIDIA driver is installed but not loaded (NVML: Driver Not Loaded). Load the kernel "
                             "module (sudo modprobe nvidia) or check that an NVIDIA GPU is present, then retry."),
        VERSION_MISMATCH: _("Driver/library version mismatch (NVML: LibRmVersionMismatch): the NVIDIA driver was "
                            "upgraded but the old kernel module is still loaded. Reboot, or reload the nvidia kernel "
                            "modules, then retry."),
        NO_PERMISSION: _("No permission to use NVML (NVML: No Permission). Check access to /dev/nvidia* (group "
                         "'video' or 'render'), or run with the needed rights."),
        NO_DEVICES: _("NVML works but reports no NVIDIA GPU on this machine."),
    }
    return texts.get(state)

# NVML_VALUE_NOT_AVAILABLE_ulonglong / _uint (nvml.h): all ones, "could not be read", never a reading
_NOT_AVAILABLE_ULL = 2**64 - 1
_NOT_AVAILABLE_UINT = 2**32 - 1


class NvmlUnavailableError(NvmlError):
    """NVML cannot be used; ``status`` says why (see :class:`NvmlStatus`)."""

    def __init__(self, status: NvmlStatus):
        super().__init__(status.message)
        self.status = status


@dataclass(frozen=True)
class NvmlStatus:
    """Whether NVML can be used here, and if not, exactly why (for the UI banner and the CLI).

    state: one of "ok", "module-missing", "library-not-found", "driver-not-loaded", "version-mismatch",
    "no-permission", "no-devices", "error". message: a sentence a user can act on. error: the NVML error class
    name (e.g. "NVMLError_DriverNotLoaded") or None.
    """

    state: str
    message: str
    error: str | None = None
    driver_version: str | None = None
    nvml_version: str | None = None
    device_count: int = 0
    warnings: tuple[str, ...] = ()

    @property
    def available(self) -> bool:
        return self.state == OK


def error_name(exc: BaseException) -> str:
    """Short NVML error name for a reason text: NVMLError_NotSupported -> "NotSupported"."""
    name = type(exc).__name__
    return name[len("NVMLError_"):] if name.startswith("NVMLError_") else name


def _reason_hints() -> dict[str, str]:
    """NVML error name -> the name and a short hint (the name stays first: callers test ``startswith``)."""
    return {
        "NotSupported": _("NotSupported (this GPU or driver does not provide it)"),
        "NoPermission": _("NoPermission (needs more rights)"),
        "FunctionNotFound": _("FunctionNotFound (nvidia-ml-py is newer than the driver; the driver lacks this call)"),
        "GpuIsLost": _("GpuIsLost (the GPU fell off the bus; check dmesg for Xid 79, reset or reboot)"),
        "NotFound": "NotFound",
        "Unknown": _("Unknown (NVML returned an unknown error)"),
    }


def reason_text(exc: BaseException) -> str:
    """Reason kept next to a None value: the NVML error name and a short hint."""
    if isinstance(exc, UnicodeDecodeError):
        return _("Unknown (the driver returned text that is not valid UTF-8)")
    name = error_name(exc)
    return _reason_hints().get(name, name)


def classify_init_error(exc: BaseException) -> NvmlStatus:
    """Map an nvmlInit failure to an :class:`NvmlStatus`."""
    name = error_name(exc)
    state = {
        "LibraryNotFound": LIBRARY_NOT_FOUND,
        "DriverNotLoaded": DRIVER_NOT_LOADED,
        "LibRmVersionMismatch": VERSION_MISMATCH,
        "NoPermission": NO_PERMISSION,
    }.get(name, ERROR)
    message = _status_text(state) or _("NVML failed to initialise: {name} ({reason}).").format(name=name, reason=exc)
    return NvmlStatus(state, message, type(exc).__name__)


def import_pynvml() -> ModuleType:
    """The ``pynvml`` module (or whatever sits in ``sys.modules['pynvml']``, e.g. the test fake).

    Raises:
        NvmlUnavailableError: state "module-missing".
    """
    try:
        return importlib.import_module("pynvml")
    except ImportError as exc:
        raise NvmlUnavailableError(NvmlStatus(MODULE_MISSING, _status_text(MODULE_MISSING) or "", type(exc).__name__)) from exc


def _text(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


@dataclass
class _Device:
    index: int
    handle: Any = None
    info: DeviceInfo = field(default_factory=lambda: DeviceInfo(-1))
    lost_reason: str | None = None


class NvmlSession:
    """An open NVML session with cached handles and static device facts.

    Use ``with NvmlSession() as s:`` or ``open()``/``close()``. ``nvml`` injects a module with pynvml's API.

    Raises (from open):
        NvmlUnavailableError: the bindings are missing, or nvmlInit failed (status tells why).
    """

    def __init__(self, nvml: ModuleType | None = None):
        self._nvml_arg = nvml
        self.nvml: ModuleType | None = None
        self.status: NvmlStatus | None = None
        self._devices: list[_Device] = []
        self._open = False
        self.missing_functions: set[str] = set()

    # --- life cycle -------------------------------------------------------------------------------------------
    def open(self) -> NvmlSession:
        if self._open:
            return self
        nv = self._nvml_arg if self._nvml_arg is not None else import_pynvml()
        self.nvml = nv
        try:
            nv.nvmlInit()
        except nv.NVMLError as exc:
            self.status = classify_init_error(exc)
            raise NvmlUnavailableError(self.status) from exc
        self._open = True
        driver, _why = self.call(nv.nvmlSystemGetDriverVersion)
        nvml_version, _why = self.call(nv.nvmlSystemGetNVMLVersion)
        count, why = self.call(nv.nvmlDeviceGetCount)
        if count is None:
            self.close()
            self.status = NvmlStatus(ERROR, _("NVML could not count the GPUs: {reason}.").format(reason=why), why)
            raise NvmlUnavailableError(self.status)
        self._devices = [self._open_device(i) for i in range(int(count))]
        if not self._devices:
            self.status = NvmlStatus(NO_DEVICES, _status_text(NO_DEVICES) or "", None, _opt_text(driver), _opt_text(nvml_version), 0)
        else:
            self.status = NvmlStatus(
                OK, _("NVML {nvml_version}, driver {driver}, {count} GPU(s).").format(
                    nvml_version=_opt_text(nvml_version), driver=_opt_text(driver), count=len(self._devices)),
                None, _opt_text(driver), _opt_text(nvml_version), len(self._devices),
                tuple(driver_warnings(_opt_text(driver))),
            )
        return self

    def close(self) -> None:
        if self._open and self.nvml is not None:
            self._open = False
            try:
                self.nvml.nvmlShutdown()
            except self.nvml.NVMLError:
                pass  # shutting down a session whose driver went away: nothing left to release
        self._devices = []

    def __enter__(self) -> NvmlSession:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def is_open(self) -> bool:
        return self._open

    # --- calls ------------------------------------------------------------------------------------------------
    def call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, str | None]:
        """Run one NVML call: (value, None) on success, (None, reason) on an NVML error or undecodable text."""
        nv = self.nvml
        try:
            return fn(*args, **kwargs), None
        except UnicodeDecodeError as exc:
            return None, reason_text(exc)
        except nv.NVMLError as exc:  # type: ignore[union-attr]
            if error_name(exc) == "FunctionNotFound":
                self.missing_functions.add(getattr(fn, "__name__", str(fn)))
            return None, reason_text(exc)

    def mark_lost(self, index: int, reason: str) -> None:
        """Stop calling NVML on a GPU that fell off the bus (calls on a lost handle can hang or crash)."""
        dev = self._devices[index]
        dev.lost_reason = reason
        dev.info.lost_reason = reason

    # --- devices ----------------------------------------------------------------------------------------------
    @property
    def device_count(self) -> int:
        return len(self._devices)

    def handle(self, index: int) -> Any:
        """Cached handle of GPU ``index``; None when it could not be opened or was lost."""
        dev = self._devices[index]
        return None if dev.lost_reason else dev.handle

    def device_info(self, index: int) -> DeviceInfo:
        return self._devices[index].info

    def devices(self) -> list[DeviceInfo]:
        return [d.info for d in self._devices]

    def _open_device(self, index: int) -> _Device:
        nv = self.nvml
        assert nv is not None, "devices are opened by open(), after the module is set"
        handle, why = self.call(nv.nvmlDeviceGetHandleByIndex, index)
        info = DeviceInfo(index=index)
        dev = _Device(index, handle, info)
        if handle is None:
            dev.lost_reason = info.lost_reason = _("no handle: {reason}").format(reason=why)
            return dev
        reasons: dict[str, str] = {}

        def read(key: str, fn: Callable[..., Any], *args: Any) -> Any:
            value, err = self.call(fn, *args)
            if err is not None:
                reasons[key] = err
            return value

        name = read("name", nv.nvmlDeviceGetName, handle)
        info.name = _text(name) if name is not None else None
        uuid = read("uuid", nv.nvmlDeviceGetUUID, handle)
        info.uuid = _text(uuid) if uuid is not None else None
        pci = read("pci_bus_id", nv.nvmlDeviceGetPciInfo, handle)
        if pci is not None:
            info.pci_bus_id = _text(getattr(pci, "busId", "")) or None
        gen = read("pcie_gen_max", nv.nvmlDeviceGetMaxPcieLinkGeneration, handle)
        width = read("pcie_width_max_lanes", nv.nvmlDeviceGetMaxPcieLinkWidth, handle)
        info.pcie_gen_max = int(gen) if gen is not None and int(gen) > 0 else None
        info.pcie_width_max_lanes = int(width) if width is not None and int(width) > 0 else None
        if info.pcie_gen_max is not None and info.pcie_width_max_lanes is not None:
            info.pcie_link_source = "nvml"
        mem = read("memory_total_bytes", nv.nvmlDeviceGetMemoryInfo, handle)
        if mem is not None and 0 < int(mem.total) < _NOT_AVAILABLE_ULL:
            info.memory_total_bytes = int(mem.total)
        elif mem is not None:
            reasons["memory_total_bytes"] = (_("total memory reported as 0 (unified-memory device)")
                                             if int(mem.total) == 0 else
                                             _("NVML returned its 'not available' value for the total memory"))
        limit = read("power_limit_w", nv.nvmlDeviceGetEnforcedPowerLimit, handle)
        info.power_limit_w = limit / 1000.0 if limit is not None and limit != _NOT_AVAILABLE_UINT else None
        mig = read("mig_mode", nv.nvmlDeviceGetMigMode, handle)
        if mig is not None:
            info.mig_mode = "enabled" if int(mig[0]) == 1 else "disabled"
        if info.mig_mode == "enabled":
            info.mig_devices = self._mig_devices(handle)
        info.reasons = reasons
        lost = [r for r in reasons.values() if r.startswith("GpuIsLost")]
        if lost:
            dev.lost_reason = info.lost_reason = lost[0]
        return dev

    def _mig_devices(self, parent: Any) -> list[dict[str, Any]]:
        nv = self.nvml
        assert nv is not None, "devices are opened by open(), after the module is set"
        count, _ = self.call(nv.nvmlDeviceGetMaxMigDeviceCount, parent)
        out: list[dict[str, Any]] = []
        for i in range(int(count or 0)):
            mig, why = self.call(nv.nvmlDeviceGetMigDeviceHandleByIndex, parent, i)
            if mig is None:
                continue  # empty MIG slot (NotFound): slots need not be contiguous
            uuid, _ = self.call(nv.nvmlDeviceGetUUID, mig)
            gi, _ = self.call(nv.nvmlDeviceGetGpuInstanceId, mig)
            ci, _ = self.call(nv.nvmlDeviceGetComputeInstanceId, mig)
            mem, mem_why = self.call(nv.nvmlDeviceGetMemoryInfo, mig)
            out.append(
                {
                    "slot": i,
                    "uuid": _text(uuid) if uuid is not None else None,
                    "gpu_instance_id": gi,
                    "compute_instance_id": ci,
                    "memory_total_bytes": int(mem.total) if mem is not None else None,
                    "memory_used_bytes": int(mem.used) if mem is not None else None,
                    "memory_reason": mem_why,
                    "utilization_reason": "NotSupported on MIG instances (utilization is per physical GPU)",
                }
            )
        return out


def driver_warnings(driver: str | None) -> list[str]:
    """Known driver problems that change what NVML reports (monitor.md section 7, row 8)."""
    out: list[str] = []
    if not driver:
        return out
    parts = driver.split(".")
    try:
        major, minor = int(parts[0]), int(parts[1])
    except (IndexError, ValueError):
        return out
    if major == 535 and 43 <= minor <= 86:
        out.append(_("Driver {driver} is in the 535.43-535.86 range whose process structs do not match some "
                     "nvidia-ml-py releases: process lists may miss entries or show bogus PIDs (gpustat #161). Upgrade "
                     "the driver or match nvidia-ml-py to it.").format(driver=driver))
    return out


def _opt_text(value: Any) -> str | None:
    return None if value is None else _text(value)


def host_name() -> str:
    return socket.gethostname()


def probe_nvml(nvml: ModuleType | None = None) -> NvmlStatus:
    """Open and close a session to learn whether NVML works here; never raises."""
    session = NvmlSession(nvml)
    try:
        session.open()
    except NvmlUnavailableError as exc:
        return exc.status
    status = session.status
    session.close()
    assert status is not None
    return status


_shared_lock = threading.Lock()
_shared: dict[int, NvmlSession] = {}


def shared_session(nvml: ModuleType | None = None) -> NvmlSession:
    """A process-wide session opened on first use (for one-shot callers such as the process listing).

    Raises:
        NvmlUnavailableError: NVML cannot be used (the status says why).
    """
    nv = nvml if nvml is not None else sys.modules.get("pynvml") or import_pynvml()
    with _shared_lock:
        session = _shared.get(id(nv))
        if session is None or not session.is_open:
            session = NvmlSession(nv).open()
            _shared[id(nv)] = session
        return session


def reset_shared_sessions() -> None:
    """Close the process-wide sessions (tests; or after a driver reload)."""
    with _shared_lock:
        for s in _shared.values():
            s.close()
        _shared.clear()


def environment_note() -> str | None:
    """A hint about WSL / containers that changes what NVML can report, or None."""
    try:
        with open("/proc/version", encoding="utf-8") as fh:
            if "microsoft" in fh.read().lower():
                return _("WSL2: per-process GPU memory is not available (WDDM driver model).")
    except OSError:
        pass
    if os.path.exists("/.dockerenv"):
        return _("Container: NVML reports host PIDs; run the container with --pid=host to see process details.")
    return None
