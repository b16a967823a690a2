"""GPU processes from NVML (compute and graphics lists), joined with psutil for user, name and command line.

Handles the faults collected in monitor.md section 7: PIDs of 0 or 2^32-1 from driver/binding struct
mismatches (dropped with one warning), ``usedGpuMemory`` None (NVML_VALUE_NOT_AVAILABLE on Windows WDDM, WSL2,
or MIG without privileges: kept as None with the reason, never summed as 0), the same PID in both lists (one row,
type "compute+graphics"), processes that vanish between the NVML listing and the psutil lookup, and host PIDs
from inside a container that do not exist locally (kept, with their GPU memory, marked not visible).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import psutil

from gpudesk.i18n import _, ngettext
from gpudesk.nvml.nvml_session import NvmlSession, environment_note, shared_session

# Linux pid_max can be at most 2^22 (PID_MAX_LIMIT); Windows PIDs are multiples of 4 below 2^32.
_PID_LIMIT = 1 << 22
_BAD_PIDS = {0, 0xFFFFFFFF}
_NOT_MIG = 0xFFFFFFFF

COMPUTE = "compute"
GRAPHICS = "graphics"
BOTH = "compute+graphics"


@dataclass
class GpuProcess:
    """One process using one GPU.

    Attributes:
        pid: host PID as NVML reports it.
        gpu_index, gpu_uuid: the GPU (a process using two GPUs appears twice).
        type: "compute", "graphics" or "compute+graphics".
        used_memory_bytes: GPU memory the process holds, or None (with ``memory_reason``) when NVML cannot say.
        user, name, cmdline: from psutil; None with ``host_reason`` when the process cannot be looked up.
        visible: False when the PID does not exist here (e.g. a container without --pid=host) - never offer
            to signal such a process.
        gpu_instance_id, compute_instance_id: MIG instance IDs, or None when not on MIG.
    """

    pid: int
    gpu_index: int
    gpu_uuid: str | None
    type: str
    used_memory_bytes: int | None
    memory_reason: str | None = None
    user: str | None = None
    name: str | None = None
    cmdline: str | None = None
    visible: bool = True
    host_reason: str | None = None
    gpu_instance_id: int | None = None
    compute_instance_id: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class ProcessListing:
    """Result of :func:`list_gpu_processes`: iterable like a list of :class:`GpuProcess`.

    ``warnings``: things the user should know (bad PIDs dropped, WSL, container PIDs).
    ``errors``: GPU index -> why its processes could not be listed (e.g. "NotSupported ...").
    """

    processes: list[GpuProcess] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    errors: dict[int, str] = field(default_factory=dict)

    def __iter__(self) -> Iterator[GpuProcess]:
        return iter(self.processes)

    def __len__(self) -> int:
        return len(self.processes)

    def __getitem__(self, i: int) -> GpuProcess:
        return self.processes[i]

    def for_pid(self, pid: int) -> list[GpuProcess]:
        return [p for p in self.processes if p.pid == pid]


def list_gpu_processes(session: NvmlSession | None = None, *, nvml: ModuleType | None = None) -> ProcessListing:
    """List compute and graphics processes on every GPU with their GPU memory.

    Args:
        session: an open :class:`NvmlSession`; None uses the process-wide shared session.
        nvml: module for the shared session (tests pass the fake pynvml).

    Raises:
        NvmlUnavailableError: NVML cannot be used (only when ``session`` is None and opening fails).
    """
    session = session if session is not None else shared_session(nvml)
    nv = session.nvml
    listing = ProcessListing()
    bad_pids = 0
    for index in range(session.device_count):
        info = session.device_info(index)
        handle = session.handle(index)
        if handle is None:
            listing.errors[index] = info.lost_reason or _("GPU handle unavailable")
            continue
        by_pid: dict[int, GpuProcess] = {}
        errors = []
        for kind, name in ((COMPUTE, "nvmlDeviceGetComputeRunningProcesses"),
                           (GRAPHICS, "nvmlDeviceGetGraphicsRunningProcesses")):
            items, why = session.call(getattr(nv, name), handle)
            older = getattr(nv, f"{name}_v2", None)
            if items is None and why and why.startswith("FunctionNotFound") and older is not None:
                # the driver predates the _v3 struct (before R510): fall back as nvitop and gpustat do
                items, why = session.call(older, handle)
            if items is None:
                errors.append(f"{kind}: {why}")
                if why and why.startswith("GpuIsLost"):
                    session.mark_lost(index, why)
                    break
                continue
            for item in items:
                pid = int(item.pid)
                if pid in _BAD_PIDS or pid < 0 or pid >= 0xFFFFFFFF:
                    bad_pids += 1
                    continue
                existing = by_pid.get(pid)
                if existing is not None:
                    existing.type = BOTH
                    if existing.used_memory_bytes is None:
                        existing.used_memory_bytes, existing.memory_reason = _memory(item)
                    continue
                mem, mem_why = _memory(item)
                by_pid[pid] = GpuProcess(
                    pid=pid, gpu_index=index, gpu_uuid=info.uuid, type=kind,
                    used_memory_bytes=mem, memory_reason=mem_why,
                    gpu_instance_id=_mig_id(getattr(item, "gpuInstanceId", None)),
                    compute_instance_id=_mig_id(getattr(item, "computeInstanceId", None)),
                )
        if errors and not by_pid:
            listing.errors[index] = "; ".join(errors)
        listing.processes.extend(by_pid.values())
    if bad_pids:
        listing.warnings.append(ngettext(
            "Dropped {n} process entry with an invalid PID (0 or 2^32-1): the driver and nvidia-ml-py disagree on the "
            "process struct (e.g. drivers 535.43-535.86). Upgrade nvidia-ml-py to match the driver.",
            "Dropped {n} process entries with an invalid PID (0 or 2^32-1): the driver and nvidia-ml-py disagree on the "
            "process struct (e.g. drivers 535.43-535.86). Upgrade nvidia-ml-py to match the driver.", bad_pids).format(
            n=bad_pids))
    missing = 0
    for proc in listing.processes:
        if not _fill_host_info(proc):
            missing += 1
    if missing:
        note = environment_note()
        text = _("{n} GPU process(es) have no local /proc entry: NVML reports host PIDs, so inside a container without "
                 "--pid=host they are not visible (their GPU memory is still shown).").format(n=missing)
        listing.warnings.append(f"{text} {note}" if note else text)
    if any(p.used_memory_bytes is None for p in listing.processes):
        listing.warnings.append(
            "Per-process GPU memory is not available for some processes (NVML_VALUE_NOT_AVAILABLE: Windows WDDM, "
            "WSL2, or MIG without privileges); they are not counted in totals."
        )
    return listing


def _memory(item: Any) -> tuple[int | None, str | None]:
    used = getattr(item, "usedGpuMemory", None)
    if used is None or int(used) >= 0xFFFFFFFFFFFFFFFF:
        return None, "N/A (NVML_VALUE_NOT_AVAILABLE: WDDM / WSL2 driver model or MIG without privileges)"
    return int(used), None


def _mig_id(value: Any) -> int | None:
    if value is None or int(value) == _NOT_MIG:
        return None
    return int(value)


def _fill_host_info(proc: GpuProcess) -> bool:
    """Look the PID up with psutil; False when it is not visible here. Never raises for a vanished process."""
    if proc.pid >= _PID_LIMIT and psutil.LINUX:
        proc.visible = False
        proc.host_reason = "PID outside this system's PID range (host PID seen from a container?)"
        return False
    try:
        p = psutil.Process(proc.pid)
        with p.oneshot():
            proc.name = p.name()
            proc.user = _safe(p.username)
            cmd = _safe(p.cmdline)
            proc.cmdline = " ".join(cmd) if cmd else None
        return True
    except (psutil.NoSuchProcess, FileNotFoundError, ProcessLookupError):
        proc.visible = False
        proc.host_reason = _(
            "process not found locally: it ended after NVML listed it, or it is a host PID seen from inside a "
            "container (run with --pid=host)"
        )
        return False
    except psutil.AccessDenied:
        proc.host_reason = _("access denied reading the process (owned by another user)")
        return True
    except (OverflowError, ValueError) as exc:
        proc.visible = False
        proc.host_reason = _("invalid PID for this system ({reason})").format(reason=exc)
        return False


def _safe(fn: Any) -> Any:
    try:
        return fn()
    except (psutil.AccessDenied, psutil.ZombieProcess):
        return None
