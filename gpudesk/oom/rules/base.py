"""What every diagnosis rule reads: the report plus the derived figures of the failing GPU.

Derived quantities follow oom.md §3.1 ("Derived quantities") and §5 (NVML reconciliation):

* ``unallocated`` = reserved − allocated (cache, fragmented or not);
* ``frag_ratio`` = unallocated / reserved (oom.md writes R/(A+R) with R the unallocated part);
* ``margin`` = free + unallocated − requested: what would be left if the cache were perfectly packed and
  handed to this request; negative means the request cannot fit even without fragmentation;
* ``other`` = Σ other processes' NVML memory; ``non_pytorch`` = this process (NVML) − reserved;
* ``headroom`` = free + unallocated: the most any request could get (known even when the requested size
  is missing, redacted or garbled);
* ``pool_held`` / ``pool_limit``: what a memory pool that prints its own figures (CuPy) held before the request,
  cached free blocks included, and the cap set on it (gpudesk.oom.parsers.generic ``_POOL_HELD``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpudesk.oom.account import MemoryAccount, account_of
from gpudesk.oom.report import DeviceMemory, MemoryReport


@dataclass
class Facts:
    """Numbers of the failing GPU, None where unknown (rules skip what they cannot compute)."""

    report: MemoryReport
    dev: DeviceMemory | None
    requested: int | None
    total: int | None
    free: int | None
    allocated: int | None
    reserved: int | None
    unallocated: int | None
    frag_ratio: float | None
    margin: int | None
    other: int | None
    non_pytorch: int | None
    pools: int | None
    headroom: int | None = None
    account: MemoryAccount | None = None
    outside: int | None = None
    allowed: int | None = None
    pool_held: int | None = None
    pool_limit: int | None = None

    @property
    def mps(self) -> bool:
        """An Apple MPS report: CUDA allocator rules do not apply (its own rule, ``mps_limit``, does)."""
        return self.report.platform == "mps" or self.report.kind == "mps_oom"

    @classmethod
    def of(cls, report: MemoryReport) -> Facts:
        dev = report.device

        def g(name: str) -> Any:
            return getattr(dev, name) if dev is not None else None

        free, unalloc, req = g("free_bytes"), (dev.reserved_unallocated_bytes if dev else None), report.requested_bytes
        margin = None
        if req is not None and free is not None:
            margin = free + (unalloc or 0) - req
        account = account_of(dev, report) if dev is not None else None
        return cls(
            account=account,
            outside=account.value("outside_allocator") if account is not None else None,
            allowed=dev.allowed_bytes if dev is not None else None,
            report=report,
            dev=dev,
            requested=req,
            # A capacity of 0 is a garbage value, never a divisor; NVML's sentinel is not a capacity either.
            total=(account.total_bytes if account is not None else None) or None,
            free=free,
            allocated=g("allocated_bytes"),
            reserved=g("reserved_bytes"),
            unallocated=unalloc,
            frag_ratio=dev.fragmentation_ratio if dev else None,
            margin=margin,
            other=dev.other_processes_bytes if dev else None,
            non_pytorch=dev.non_pytorch_bytes if dev else None,
            pools=g("private_pool_bytes"),
            headroom=None if free is None else free + (unalloc or 0),
            pool_held=_int_or_none(report.parsed.get("pool_held_bytes")),
            pool_limit=_int_or_none(report.parsed.get("pool_limit_bytes")) or None,
        )

    def share(self, value: int | None) -> float | None:
        """``value`` as a fraction of the total capacity; None when either is unknown."""
        if value is None or not self.total:
            return None
        return value / self.total


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def clamp(x: float, lo: float = 0.05, hi: float = 0.97) -> float:
    return round(max(lo, min(hi, x)), 2)


def evidence(**items: Any) -> dict[str, Any]:
    """Evidence dict without the unknown (None) items."""
    return {k: v for k, v in items.items() if v is not None}


def join_sentences(sentences: list[str]) -> str:
    """Whole translated sentences as one text: a space after a Latin full stop, none after a full-width one
    (Chinese writes "。" with no space before the next sentence)."""
    text = ""
    for sentence in sentences:
        if text and not text.endswith(("。", "！", "？", "；", "：", "）")):
            text += " "
        text += sentence
    return text
