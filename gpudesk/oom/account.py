"""One memory account per GPU: total = free + this process + other processes + unattributed.

This process's part splits into what its allocator holds (allocated = live tensors; cached = reserved −
allocated) and what it holds outside the allocator (non-PyTorch: CUDA context, NCCL, cuBLAS, extensions;
NVML's per-process figure − reserved, oom.md §5). Every term is marked:

* ``measured``: read from the input as is;
* ``given``: typed by the user beside the text (``gpudesk oom diagnose --other-processes-gib``, the window's
  "Other processes" box; :mod:`gpudesk.oom.user_context`), not read by a tool;
* ``derived``: computed from measured terms (the remainder of the total, a difference of two figures);
* ``unknown``: the input does not give it (and it cannot be derived).

When the input does not say what this process holds outside its allocator nor which other processes use
the GPU, the remainder ``total − free − reserved`` is one term, "outside this process's allocator": memory
held by another process (hidden by a container's PID namespace), a zombie, or this process's own non-PyTorch
memory. Inconsistent inputs (NVML's 2**64 "not available" value, free > total, terms that add up to more
than the total) are flagged and never used as numbers. Apple MPS accounts use the high-watermark limit as
the total and MPS's "other allocations" as the memory outside the allocator.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from gpudesk.i18n import _
from gpudesk.oom.labels import PYTORCH_FRAMEWORKS
from gpudesk.oom.report import DeviceMemory, MemoryReport

MEASURED = "measured"
GIVEN = "given"
DERIVED = "derived"
UNKNOWN = "unknown"

# Any figure from a PiB up is not a GPU measurement (NVML_VALUE_NOT_AVAILABLE is 2**64 - 1 bytes).
SENTINEL_BYTES = 1024**5

# Term names (JSON ids, English) in the order a stacked bar draws them.
TERMS = ("allocated", "cached", "non_pytorch", "outside_allocator", "other_processes", "unattributed", "free")


@dataclass
class AccountTerm:
    """One part of a GPU's memory: ``name`` (one of :data:`TERMS`), its bytes (None when unknown), how it
    was obtained (``status``) and a plain note (what it holds, how it was derived)."""

    name: str
    value_bytes: int | None
    status: str
    note: str = ""


@dataclass
class MemoryAccount:
    """The account of one GPU. ``total_bytes`` is None when the input gives no (believable) total; ``flags``
    lists every inconsistency found, as sentences; ``limit_name`` says what the total is when it is not the
    device's capacity (a per-process cap, MPS's high-watermark limit)."""

    gpu_index: int | None
    total_bytes: int | None
    total_status: str
    terms: list[AccountTerm] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    allowed_bytes: int | None = None
    limit_name: str = "total capacity"

    def term(self, name: str) -> AccountTerm | None:
        for t in self.terms:
            if t.name == name:
                return t
        return None

    def value(self, name: str) -> int | None:
        t = self.term(name)
        return None if t is None else t.value_bytes

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def accounts_of(report: MemoryReport) -> list[MemoryAccount]:
    """One account per GPU of ``report`` (the failing GPU first, as in ``report.devices``)."""
    return [account_of(dev, report) for dev in report.devices]


def account_of(dev: DeviceMemory, report: MemoryReport | None = None) -> MemoryAccount:
    """The account of ``dev``; see the module docstring for the terms and their status."""
    flags: list[str] = []
    mps = report is not None and report.platform == "mps"
    rocm = report is not None and report.platform == "rocm"
    # PyTorch's words only for PyTorch's allocator; CUDA.jl, TensorFlow, JAX ... hold memory outside their own.
    pytorch = report is None or report.framework in PYTORCH_FRAMEWORKS
    total = _believable(dev.total_bytes, "total", flags)
    free = _believable(dev.free_bytes, "free", flags)
    if total is not None and free is not None and free > total:
        flags.append(_("The free memory ({free} bytes) is larger than the total ({total} bytes); free is not used.")
                     .format(free=free, total=total))
        free = None
    acc = MemoryAccount(gpu_index=dev.index, total_bytes=total, total_status=MEASURED if total is not None else UNKNOWN,
                        flags=flags, allowed_bytes=dev.allowed_bytes,
                        limit_name="MPS high-watermark limit" if mps else "total capacity")
    allocated = dev.allocated_bytes
    reserved = dev.reserved_bytes
    terms = acc.terms
    terms.append(AccountTerm("allocated", allocated, MEASURED if allocated is not None else UNKNOWN,
                             _("live tensors")))
    if reserved is not None and allocated is not None:
        terms.append(AccountTerm("cached", max(0, reserved - allocated), DERIVED,
                                 _("reserved − allocated: the allocator's cache")))
    else:
        terms.append(AccountTerm("cached", None, UNKNOWN, _("reserved memory not given")))
    others = dev.other_processes_bytes
    if mps:
        other_alloc = dev.other_allocations_bytes
        terms.append(AccountTerm("non_pytorch", other_alloc, MEASURED if other_alloc is not None else UNKNOWN,
                                 _("MPS 'other allocations': the MPS heap cache and other Metal buffers")))
    elif dev.process_used_bytes is not None and reserved is not None:
        terms.append(AccountTerm("non_pytorch", dev.process_used_bytes - reserved, DERIVED,
                                 _("this process (rocm-smi) − reserved: HIP context, RCCL, hipBLAS, extensions") if rocm
                                 else _("this process (NVML) − reserved: CUDA context, NCCL, cuBLAS, extensions")))
    else:
        terms.append(AccountTerm("non_pytorch", None, UNKNOWN,
                                 _("needs this process's figure from rocm-smi / amd-smi") if rocm
                                 else _("needs this process's NVML figure")))
    terms.append(_other_processes_term(dev, others))
    terms.append(AccountTerm("free", free, MEASURED if free is not None and not mps else
                             DERIVED if free is not None else UNKNOWN,
                             _("limit − MPS allocated − other allocations") if mps else _("free on the device")))
    if total is not None and free is not None and not mps:
        if dev.process_used_bytes is not None:
            rest = total - free - dev.process_used_bytes - (others or 0)
            terms.append(AccountTerm("unattributed", rest, DERIVED,
                                     _("total − free − this process − other processes: display, driver, hidden PIDs")))
        elif reserved is not None:
            rest = total - free - reserved - (others or 0)
            terms.append(AccountTerm("outside_allocator", rest, DERIVED,
                                     _("total − free − this process's allocator − listed processes: another process, "
                                       "a zombie, or this process's non-PyTorch memory") if pytorch else
                                     _("total − free − this process's allocator − listed processes: another process, "
                                       "a zombie, or this process's memory outside the framework's allocator")))
        elif allocated is not None:
            rest = total - free - allocated - (others or 0)
            terms.append(AccountTerm("unattributed", rest, DERIVED,
                                     _("total − free − allocated − listed processes: the allocator's cache and "
                                       "memory outside it together (reserved memory not given)")))
        else:
            rest = None
        if rest is not None and rest < -(total // 100):
            flags.append(_("The terms add up to {over} bytes more than the total: the figures come from different "
                           "moments or one of them is wrong.").format(over=-rest))
            for t in terms:
                if t.name in ("unattributed", "outside_allocator"):
                    t.value_bytes, t.status = None, UNKNOWN
    terms.sort(key=lambda t: TERMS.index(t.name))  # the stacked bar's order: this process, others, free last
    if dev.allowed_bytes is not None and total is not None and dev.allowed_bytes < total:
        flags.append(_("A per-process cap allows this process {allowed} bytes of the {total}.")
                     .format(allowed=dev.allowed_bytes, total=total))
    return acc


def _other_processes_term(dev: DeviceMemory, others: int | None) -> AccountTerm:
    """The other processes' term: ``given`` when any figure in it is the user's (a sum with a typed figure in it is
    no longer a measurement), ``measured`` when every figure was read from NVML or the text."""
    if others is None:
        return AccountTerm("other_processes", None, UNKNOWN, _("other processes listed on this GPU"))
    if any(p.given and p.used_bytes is not None and not p.is_target for p in dev.other_processes):
        return AccountTerm("other_processes", others, GIVEN, _("other processes on this GPU, as given by the user"))
    return AccountTerm("other_processes", others, MEASURED, _("other processes listed on this GPU"))


def _believable(value: int | None, name: str, flags: list[str]) -> int | None:
    if value is None:
        return None
    if value < 0 or value >= SENTINEL_BYTES:
        flags.append(_("The {name} figure ({value} bytes) is NVML's 'not available' value or impossible; it is "
                       "not used.").format(name=name, value=value))
        return None
    return value
