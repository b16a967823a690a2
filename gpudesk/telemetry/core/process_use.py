"""Who uses the GPUs: each GPU process with its memory, SM and memory-bandwidth share, user, command and container.

The shares come from NVML's per-process utilization samples (:mod:`gpudesk.nvml.process_util`); the device figure
they are compared with is ``nvmlDeviceGetUtilizationRates`` of the same GPU. NVML samples processes and the device
on their own schedules, so the per-process numbers of one GPU can add up to more than the device's: then they are
scaled down together to the device figure (said in ``share_note``), since no process can use more of a GPU than the
GPU itself was busy. The container is read from ``/proc/<pid>/cgroup`` (cgroup v1 and v2 paths of Docker, Podman,
containerd/CRI-O and Kubernetes pods).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpudesk.i18n import _
from gpudesk.nvml.nvml_processes import GpuProcess, list_gpu_processes
from gpudesk.nvml.nvml_session import NvmlSession
from gpudesk.nvml.process_util import read_process_utilization

# cgroup path patterns -> runtime (the 64-hex container id; Kubernetes pod uid)
_CONTAINER_PATTERNS = (
    (re.compile(r"docker[-/]([0-9a-f]{64})"), "docker"),
    (re.compile(r"libpod[-/]([0-9a-f]{64})"), "podman"),
    (re.compile(r"cri-containerd[-:]([0-9a-f]{64})"), "containerd"),
    (re.compile(r"crio[-:]([0-9a-f]{64})"), "cri-o"),
    (re.compile(r"/([0-9a-f]{64})(?:\.scope)?$"), "container"),
)
_POD = re.compile(r"pod([0-9a-f]{8}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{12})")


def container_of(cgroup_text: str) -> str | None:
    """The container a process runs in, from its ``/proc/<pid>/cgroup`` text: "docker:0123456789ab",
    "k8s-pod:<uid> containerd:..." ..., or None for a process on the host."""
    parts: list[str] = []
    for line in cgroup_text.splitlines():
        path = line.split(":", 2)[-1]
        pod = _POD.search(path)
        if pod and not any(p.startswith("k8s-pod:") for p in parts):
            parts.append("k8s-pod:" + pod.group(1).replace("_", "-"))
        for pattern, runtime in _CONTAINER_PATTERNS:
            found = pattern.search(path)
            if found:
                ident = f"{runtime}:{found.group(1)[:12]}"
                if not any(p.endswith(found.group(1)[:12]) for p in parts):
                    parts.append(ident)
                break
    return " ".join(parts) or None


def read_container(pid: int, proc_root: Path = Path("/proc")) -> str | None:
    try:
        return container_of((proc_root / str(pid) / "cgroup").read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return None  # not Linux, or the process is gone: no container to name


@dataclass
class ProcessUse:
    """A GPU process (:class:`GpuProcess` fields) with its shares of the GPU and its container."""

    process: GpuProcess
    sm_util_pct: float | None = None
    mem_util_pct: float | None = None
    share_reason: str | None = None
    container: str | None = None

    def __getattr__(self, name: str) -> Any:  # pid, gpu_index, user, name, cmdline, used_memory_bytes ...
        return getattr(self.process, name)

    def to_dict(self) -> dict[str, Any]:
        out = self.process.to_dict()
        out.update(sm_util_pct=self.sm_util_pct, mem_util_pct=self.mem_util_pct, share_reason=self.share_reason,
                   container=self.container)
        return out


@dataclass
class ProcessUseListing:
    processes: list[ProcessUse] = field(default_factory=list)
    device_sm_util_pct: dict[int, float | None] = field(default_factory=dict)
    device_mem_util_pct: dict[int, float | None] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    errors: dict[int, str] = field(default_factory=dict)

    def __iter__(self) -> Iterator[ProcessUse]:
        return iter(self.processes)

    def __len__(self) -> int:
        return len(self.processes)

    @property
    def warnings(self) -> list[str]:
        """The notes under the name a process listing uses (the window's process table reads either)."""
        return self.notes


def _cap(rows: list[ProcessUse], attr: str, device: float | None) -> bool:
    """Scale the rows' ``attr`` so they add up to at most ``device``; True when they were scaled."""
    values = [getattr(r, attr) for r in rows if getattr(r, attr) is not None]
    total = sum(values)
    if device is None or total <= device or total <= 0:
        return False
    factor = device / total
    for r in rows:
        v = getattr(r, attr)
        if v is not None:
            setattr(r, attr, round(v * factor, 3))
    return True


def process_use(session: NvmlSession, *, since_us: int = 0, proc_root: Path = Path("/proc")) -> ProcessUseListing:
    """Every GPU process of ``session`` with memory, shares, user, command and container."""
    listing = list_gpu_processes(session)
    out = ProcessUseListing(notes=list(listing.warnings), errors=dict(listing.errors))
    nv = session.nvml
    by_gpu: dict[int, list[ProcessUse]] = {}
    for p in listing.processes:
        by_gpu.setdefault(p.gpu_index, []).append(ProcessUse(p, container=read_container(p.pid, proc_root)))
    for index, rows in by_gpu.items():
        handle = session.handle(index)
        rates, rates_why = session.call(nv.nvmlDeviceGetUtilizationRates, handle) if nv and handle else (None, None)
        dev_sm = float(rates.gpu) if rates is not None else None
        dev_mem = float(rates.memory) if rates is not None else None
        out.device_sm_util_pct[index], out.device_mem_util_pct[index] = dev_sm, dev_mem
        reading = read_process_utilization(session, index, since_us)
        for r in rows:
            sample = reading.by_pid.get(r.pid)
            if reading.reason is not None:
                r.share_reason = reading.reason
            elif sample is None:
                r.sm_util_pct, r.mem_util_pct = 0.0, 0.0  # NVML kept no sample: no kernel ran in the period
                r.share_reason = _("no utilization sample in the period (no kernel ran)")
            else:
                r.sm_util_pct, r.mem_util_pct = sample.sm_util_pct, sample.mem_util_pct
        if _cap(rows, "sm_util_pct", dev_sm):
            out.notes.append(_("GPU {gpu}: the processes' SM shares added up to more than the GPU's own utilization "
                               "(NVML samples them at different times); they were scaled down to it.").format(gpu=index))
        if _cap(rows, "mem_util_pct", dev_mem):
            out.notes.append(_("GPU {gpu}: the processes' memory-bandwidth shares added up to more than the GPU's own "
                               "figure (NVML samples them at different times); they were scaled down to it.").format(
                gpu=index))
        if rates is None and rates_why:
            out.notes.append(_("GPU {gpu}: device utilization is N/A ({reason}); process shares are shown as NVML "
                               "reported them.").format(gpu=index, reason=rates_why))
        out.processes.extend(rows)
    return out
