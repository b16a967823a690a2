"""Non-invasive evidence about a process, gathered without running anything inside it (oom.md §5):

* NVML memory per process (``gpudesk.nvml.nvml_processes.list_gpu_processes``) on every GPU the target
  uses: the target's own figure (set as ``process_used_bytes``; minus the allocator's reserved memory it is
  the CUDA context + NCCL + cuBLAS + extensions) and the other processes on the same GPUs;
* host memory of the process over time (psutil RSS, which includes pinned host buffers);
* its child processes (DataLoader workers, engine cores): zombie/dead ones, and ones that hold GPU memory.

Nothing here raises for a GPU-less machine: NVML problems become ``notes`` with NVML's own sentence.
"""

from __future__ import annotations

import time
from types import ModuleType
from typing import TYPE_CHECKING

import psutil

from gpudesk.progress import Progress
from gpudesk.oom.errors import TargetNotFound
from gpudesk.oom.report import DeviceMemory, MemoryReport, ProcessMemory, WorkerState
from gpudesk.i18n import _

if TYPE_CHECKING:  # the NVML modules are imported when evidence is gathered (start-up time)
    from gpudesk.nvml.nvml_processes import ProcessListing
    from gpudesk.nvml.nvml_session import NvmlSession


def _nvml_listing(nvml: ModuleType | None,
                  notes: list[str]) -> tuple[NvmlSession, ProcessListing] | tuple[None, None]:
    from gpudesk.nvml.nvml_processes import list_gpu_processes
    from gpudesk.nvml.nvml_session import NvmlUnavailableError, shared_session

    try:
        session = shared_session(nvml)
        listing = list_gpu_processes(session)
    except NvmlUnavailableError as exc:
        status = getattr(exc, "status", None)
        notes.append(_("NVML unavailable: {reason}").format(reason=getattr(status, "message", None) or str(exc)))
        return None, None
    notes.extend(listing.warnings)
    for index, why in listing.errors.items():
        notes.append(_('GPU {index}: processes could not be listed ({why}).').format(index=index, why=why))
    return session, listing


def _tree(pid: int) -> tuple[psutil.Process, list[psutil.Process]]:
    try:
        proc = psutil.Process(pid)
        return proc, proc.children(recursive=True)
    except psutil.NoSuchProcess as exc:
        raise TargetNotFound(_('No process with PID {pid} exists.').format(pid=pid)) from exc


def _rss(proc: psutil.Process) -> int | None:
    """Resident host memory in bytes; None when unreadable or a zombie (which reads as 0)."""
    try:
        rss = int(proc.memory_info().rss)
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return None
    return rss or None


def gather_evidence(
    pid: int,
    *,
    report: MemoryReport | None = None,
    duration_s: float = 0.0,
    interval_s: float = 0.5,
    progress: Progress | None = None,
    nvml: ModuleType | None = None,
) -> MemoryReport:
    """Add NVML and psutil evidence about ``pid`` to ``report`` (or a new report of source "evidence").

    Args:
        duration_s: how long to sample host memory (0 = one sample); samples every ``interval_s``.
        nvml: the pynvml module to use (tests pass the fake).

    Raises:
        TargetNotFound: ``pid`` does not exist (or exits before the first sample).
    """
    report = report if report is not None else MemoryReport(source="evidence", pid=pid)
    report.pid = pid
    proc, children = _tree(pid)
    if progress:
        progress(_("Reading GPU processes from NVML…"), 0.0)
    session, listing = _nvml_listing(nvml, report.notes)
    child_pids = {c.pid for c in children}
    on_gpu_children: set[int] = set()
    if listing is not None:
        target_gpus = {p.gpu_index for p in listing if p.pid == pid}
        for p in listing:
            if p.pid in child_pids:
                on_gpu_children.add(p.pid)
                target_gpus.add(p.gpu_index)
        for p in listing:
            if p.gpu_index not in target_gpus and not any(d.index == p.gpu_index for d in report.devices):
                continue
            dev = report.ensure_device(p.gpu_index)
            if dev.uuid is None:
                dev.uuid = p.gpu_uuid
            if p.pid == pid:
                dev.process_used_bytes = p.used_memory_bytes
                continue
            if any(o.pid == p.pid for o in dev.other_processes):
                continue
            dev.other_processes.append(ProcessMemory(
                pid=p.pid, used_bytes=p.used_memory_bytes, gpu_index=p.gpu_index, name=p.name, user=p.user,
                alive=p.visible, is_target=p.pid in child_pids,
            ))
        for dev in report.devices:
            _fill_device_info(session, dev)
        if not target_gpus:
            report.notes.append(_('NVML shows no GPU memory for process {pid} or its children.').format(pid=pid))
    report.workers = []
    for child in children:
        try:
            status = child.status()
            name = child.name()
        except psutil.NoSuchProcess:
            status, name = "dead", None
        except psutil.AccessDenied:
            status, name = "unknown", None
        report.workers.append(WorkerState(pid=child.pid, status=status, name=name, rss_bytes=_rss(child),
                                          on_gpu=child.pid in on_gpu_children if listing is not None else None))
    start = time.monotonic()
    t0 = report.host_rss_samples[-1][0] if report.host_rss_samples else 0.0
    while True:
        rss = _rss(proc)
        elapsed = time.monotonic() - start
        if rss is None:
            if not psutil.pid_exists(pid):
                if not report.host_rss_samples:
                    raise TargetNotFound(_('Process {pid} exited while gpudesk was reading it.').format(pid=pid))
                report.notes.append(_('Process {pid} exited after {elapsed:.1f} s of sampling.').format(pid=pid, elapsed=elapsed))
            else:
                report.notes.append(_('Host memory of process {pid} cannot be read (access denied).').format(pid=pid))
            break
        report.host_rss_samples.append((t0 + elapsed, rss))
        if elapsed + interval_s > duration_s:
            break
        if progress:
            progress(_('Sampling host memory of process {pid}…').format(pid=pid), min(1.0, elapsed / duration_s))
        time.sleep(interval_s)
    return report


def _fill_device_info(session: NvmlSession | None, dev: DeviceMemory) -> None:
    if session is None or dev.index is None:
        return
    try:
        info = session.device_info(dev.index)
    except (IndexError, KeyError):
        return
    if dev.total_bytes is None:
        dev.total_bytes = getattr(info, "memory_total_bytes", None)
    if dev.name is None:
        dev.name = getattr(info, "name", None)


def _norm_uuid(uuid: str | None) -> str | None:
    return uuid.lower().removeprefix("gpu-") if uuid else None


def _visible_devices(report: MemoryReport) -> list[str] | None:
    value = report.parsed.get("env_CUDA_VISIBLE_DEVICES")
    return [v.strip() for v in str(value).split(",")] if value is not None else None


def _target_device(primary: MemoryReport, xdev: DeviceMemory) -> DeviceMemory | None:
    """The device of ``primary`` (CUDA indices of the target) that NVML device ``xdev`` is.

    By UUID when both sides know it; else through the target's CUDA_VISIBLE_DEVICES (NVML index i is CUDA
    index CVD.index(str(i))); else the same index. None when CUDA_VISIBLE_DEVICES hides that GPU.
    """
    uuid = _norm_uuid(xdev.uuid)
    if uuid:
        for dev in primary.devices:
            if _norm_uuid(dev.uuid) == uuid:
                return dev
    visible = _visible_devices(primary)
    if visible is not None and xdev.index is not None:
        if str(xdev.index) in visible:
            return primary.ensure_device(visible.index(str(xdev.index)))
        if uuid and any(_norm_uuid(v) == uuid for v in visible):
            return primary.ensure_device([_norm_uuid(v) for v in visible].index(uuid))
        return None
    return primary.ensure_device(xdev.index)


def merge_into(primary: MemoryReport, extra: MemoryReport) -> MemoryReport:
    """Fill what ``primary`` lacks from ``extra`` (same process): unknown device figures, other processes,
    host samples, workers, notes, parsed values. Figures already in ``primary`` win. ``extra``'s devices use
    NVML indices and are matched to ``primary``'s CUDA indices by UUID or CUDA_VISIBLE_DEVICES. Returns
    ``primary``."""
    for xdev in extra.devices:
        dev = _target_device(primary, xdev)
        if dev is None:
            primary.notes.append(_('NVML GPU {index} is not visible to the process (CUDA_VISIBLE_DEVICES).').format(index=xdev.index))
            continue
        for name in DeviceMemory.__dataclass_fields__:
            if name == "index":
                continue
            if name == "other_processes":
                known = {p.pid for p in dev.other_processes}
                dev.other_processes.extend(p for p in xdev.other_processes if p.pid not in known)
            elif getattr(dev, name) is None and getattr(xdev, name) is not None:
                setattr(dev, name, getattr(xdev, name))
    primary.host_rss_samples.extend(extra.host_rss_samples)
    primary.samples.extend(extra.samples)
    if not primary.workers:
        primary.workers = list(extra.workers)
    for key, value in extra.parsed.items():
        primary.parsed.setdefault(key, value)
    primary.notes.extend(n for n in extra.notes if n not in primary.notes)
    return primary
