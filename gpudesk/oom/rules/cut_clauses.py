"""PyTorch's out-of-memory message cut inside its clauses (issue 28, forty-third pass): what the cut left.

A title or a paste often stops part-way through the message ("(GPU 0; 15.90 GiB total capacity", "3.42 GiB already
all", "GPU 0 has a total capacity of 23.65 GiB of which"): the request and the capacity were read, the free and
reserved figures were not. The caching allocator refused the request (c10/cuda/CUDACachingAllocator.cpp raises only
after it has freed its cache and retried), so the message is read from the clauses that survived
(rules.genuine_shortage, rules.other_process, rules.single_allocation_exceeds_capacity) instead of as "not enough of
the message"; garbled clauses ("?? total capacity") keep that answer.
"""

from __future__ import annotations

from gpudesk.oom.rules.base import Facts

# What can follow the capacity in a message cut before its free figure: "total capacity; 3.42 GiB already allocated; 0
# bytes fr" is under 80 characters; a longer tail is more text after the message, not a cut inside it.
CUT_CLAUSE_TAIL_CHARS = 120


def cut_before_free(f: Facts) -> bool:
    """PyTorch's message cut inside its clauses, before the free figure (a title or a paste that stops at "(GPU 0; 15.90
    GiB total capacity" or "3.42 GiB already all", "GPU 0 has a total capacity of 23.65 GiB of which"): the request and
    the capacity were read, perhaps the live tensors, the free and reserved figures were not, and the text ends in the
    clause list (no closing parenthesis and no free figure after the capacity). A complete message that prints no free
    figure (Intel's XPU allocator, whose clauses end with "reserved in total by PyTorch)") is not cut."""
    r = f.report
    if (r.kind != "pytorch_oom" or f.requested is None or f.total is None or f.free is not None
            or f.reserved is not None or f.requested > f.total or r.signature is not None):
        return False
    text = r.text or ""
    at = text.lower().rfind("total capacity")
    rest = text[at:] if at >= 0 else ""
    return at >= 0 and ")" not in rest and "free" not in rest.lower() and len(rest.rstrip()) <= CUT_CLAUSE_TAIL_CHARS

