"""Device memory held by dead arrays until the garbage collector runs (a ``leak`` reading, forty-second pass).

A runtime whose device arrays are freed by its language's garbage collector retries a failed allocation after a
collection and says how much that freed: CUDA.jl's ``retry_reclaim`` logs "CUDA memory allocation failed; attempting to
free up memory...", then "... running a quick GC (freed 8.292 GiB)" / "... running a full GC (freed N)" (JuliaGPU/
CUDA.jl, src/pool.jl). A collection that frees a large share of the device at the moment of failure says the device
was full of arrays the program no longer used but had not released: each step leaves its arrays to the collector, and
they pile up between collections until an allocation fails (JuliaGPU/CUDA.jl#2197: 8.3 GiB of an 11.7 GiB card freed
at every retry, the arrays of earlier iterations kept alive by a try/catch, JuliaLang/julia#52533). The fix is the
program's: release the arrays when done with them (``CUDA.unsafe_free!``), or drop what keeps earlier iterations'
arrays reachable; a bigger GPU only delays it.

Read when a freed figure is at least a quarter of the device (the pool's reservation or the device's total as the
status printout gives it): smaller collections are the ordinary churn of a collected runtime.
"""

from __future__ import annotations

import re

from gpudesk.oom.cause import Cause
from gpudesk.oom.parsers.units import to_bytes
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.units import format_bytes
from gpudesk.i18n import _

_SIZE = r"(\d{1,20}(?:\.\d{1,6})?)\s{0,2}([KMGTP]i?B|bytes?)"
# A garbage collection run at an allocation failure and what it freed ("running a quick GC (freed 8.292 GiB)").
_GC_FREED = re.compile(r"\b(?:running|ran)\s{1,3}(?:a\s{1,3})?(?:quick\s{1,3}|full\s{1,3}|incremental\s{1,3})?"
                       r"(?:GC|garbage collection)\s{0,3}\(\s{0,2}freed\s{1,3}" + _SIZE + r"\s{0,2}\)", re.IGNORECASE)
# The share of the device a collection must free to be read as the cause (module docstring).
LARGE_SHARE = 0.25


def largest_freed_bytes(text: str) -> int | None:
    """The most one collection freed in ``text`` (``_GC_FREED``), or None."""
    freed = [to_bytes(m.group(1), m.group(2)) for m in _GC_FREED.finditer(text)]
    return max(freed) if freed else None


def check(f: Facts) -> Cause | None:
    freed = largest_freed_bytes(f.report.text or "")
    dev = f.dev
    whole = (f.total if f.total is not None else (dev.reserved_bytes if dev is not None else None))
    if freed is None or whole is None or whole <= 0 or freed < LARGE_SHARE * whole:
        return None
    return Cause(
        id="leak",
        title=_("Arrays no longer used held the device until the garbage collector ran"),
        confidence=0.75,
        evidence=evidence(gc_freed_bytes=freed, total_capacity_bytes=f.total,
                          reserved_bytes=dev.reserved_bytes if dev is not None else None,
                          freed_share_ratio=round(freed / whole, 3)),
        explanation=_("At the failed allocation the runtime ran its garbage collector, which freed {freed} ({share:.0%} "
                      "of {whole}): that much of the device was held by arrays the program no longer used but had "
                      "not released. Each step leaves its arrays to the collector and they pile up until an "
                      "allocation fails.").format(freed=format_bytes(freed), share=freed / whole,
                                                  whole=format_bytes(whole)),
        fix=_("Release device arrays as soon as they are no longer needed (CUDA.unsafe_free! in Julia), and look for "
              "what keeps earlier iterations' arrays reachable (globals, closures, a try/catch around the loop)"),
        more_fixes=[_("Run the collector between steps (GC.gc(); CUDA.reclaim()) to confirm: if the failures stop, "
                      "the memory was garbage waiting to be collected.")],
    )
