"""``per_process_cap``: a memory-fraction cap set in the process refused the allocation.

``torch.cuda.set_per_process_memory_fraction(f)`` makes the caching allocator refuse any growth beyond
f × total and adds "N GiB allowed;" to the OOM message (c10/cuda/CUDACachingAllocator.cpp,
https://github.com/pytorch/pytorch); TGI's ``--cuda-memory-fraction`` and older PyTorch print "PyTorch limit
(set by user-supplied memory fraction)". Fires when the cap is below 97 % of the total (TheRock#2118: 1.05 of
255.98 GiB allowed) — 0.9 when the process's memory plus the request exceed the cap. The fix names the
fraction that fits: (reserved + request) / total, rounded up to the next hundredth above the cap.
"""

from __future__ import annotations

import math

from gpudesk.oom.cause import Cause
from gpudesk.units import format_bytes
from gpudesk.oom.rules.base import Facts, evidence, join_sentences
from gpudesk.i18n import _


def check(f: Facts) -> Cause | None:
    cap, total = f.allowed, f.total
    if cap is None or total is None or cap >= 0.97 * total:
        return None
    own = f.reserved if f.reserved is not None else f.allocated
    need = (own or 0) + (f.requested or 0)
    # The figures are printed rounded to 0.01 GiB and segments round requests up (2 MiB / 20 MiB), so a need
    # within 2 % of the cap is at the cap.
    binding = own is not None and f.requested is not None and need > 0.98 * cap
    fraction = None
    if binding:
        fraction = math.ceil(max(need, cap) / total * 100) / 100
        if fraction * total <= cap:
            fraction += 0.01
        fraction = min(1.0, round(fraction, 2))
    sizes = {"cap": format_bytes(cap), "total": format_bytes(total)}
    fix = (_("Raise the per-process cap to at least {fraction:.2f}: torch.cuda.set_per_process_memory_fraction("
             "{fraction:.2f}) (it allows {cap} of {total}), or remove the call").format(fraction=fraction, **sizes)
           if fraction is not None else
           _("Raise or remove the per-process cap (torch.cuda.set_per_process_memory_fraction; it allows {cap} of "
             "{total})").format(**sizes))
    if f.report.engine == "tgi":
        fix = _("Raise --cuda-memory-fraction (it allows {cap} of {total})").format(**sizes)
    return Cause(
        id="per_process_cap",
        title=_("A per-process memory cap refused the allocation"),
        confidence=0.9 if binding else 0.6,
        evidence=evidence(allowed_bytes=cap, total_capacity_bytes=total, reserved_bytes=f.reserved,
                          allocated_bytes=f.allocated, requested_bytes=f.requested, free_bytes=f.free,
                          allowed_ratio=round(cap / total, 4), fraction_that_fits_ratio=fraction),
        explanation=join_sentences([
            _("The process may use only {cap} ({share:.1%} of the GPU); it holds {own} and asked for {requested} "
              "more.").format(cap=format_bytes(cap), share=cap / total, own=format_bytes(own),
                              requested=format_bytes(f.requested))
            if binding and own is not None and f.requested is not None else
            _("The process may use only {cap} ({share:.1%} of the GPU).").format(cap=format_bytes(cap),
                                                                              share=cap / total),
            *([_("The GPU itself has {free} free.").format(free=format_bytes(f.free))] if f.free is not None else []),
        ]),
        fix=fix,
        more_fixes=[_("Test suites and launchers set this cap to run several processes on one GPU: run fewer at once.")],
    )
