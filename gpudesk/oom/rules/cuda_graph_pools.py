"""``cuda_graph_pools``: memory captured in CUDA-graph private pools (oom.md §3.5 rule 7).

The 2.4+ OOM message reports "with Z allocated in private pools (e.g., CUDA Graphs)" (onediff#1041: 19.83 of
28.34 GiB). Pool memory is reserved for replays and cannot serve eager allocations. Fires when pools are
>= 25 % of allocated memory (0.55 + 0.4 × share) or >= 1 GiB (0.4). Covers the article's "CUDA graph capture
pre-allocation" row.
"""

from __future__ import annotations

from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, clamp, evidence
from gpudesk.units import GIB as GiB
from gpudesk.i18n import _


def check(f: Facts) -> Cause | None:
    if not f.pools:
        return None
    share = f.pools / f.allocated if f.allocated else None
    if share is not None and share >= 0.25:
        conf = 0.55 + 0.4 * share
    elif f.pools >= GiB:
        conf = 0.4
    else:
        return None
    return Cause(
        id="cuda_graph_pools",
        title=_("CUDA graphs hold memory in private pools"),
        confidence=clamp(conf),
        evidence=evidence(private_pools_bytes=f.pools, allocated_bytes=f.allocated,
                          private_pools_to_allocated_ratio=round(share, 3) if share is not None else None),
        explanation=_("Memory captured by CUDA graphs stays reserved for their replays and cannot be reused by "
                    "other allocations."),
        fix=_("Capture fewer graphs: limit the captured batch sizes / shapes (e.g. torch.compile(mode='max-autotune-no-cudagraphs') "
            "for large shapes, vLLM --max-seq-len-to-capture / cuda_graph_sizes)"),
        more_fixes=[_("Share one memory pool between graphs (torch.cuda.graph(..., pool=first_graph.pool()))."),
                    _("Delete graphs you no longer replay, then torch.cuda.empty_cache().")],
    )
