"""``single_allocation_exceeds_capacity``: one request larger than the GPU, or than all it could ever free.

oom.md §3.5 rules 1-2: request > total capacity (Qwen2.5-Omni#240 124.68 GiB on 95.22, clovaai#386
26.05 on 23.70) → 0.95; request > total − allocated (SD-depth 14.48 of 14.76 with 6.23 live; TF BFC
Limit − InUse, ASR#78) → 0.85 when it is over half the GPU, else 0.7; request > 2 × total or > 1 TiB with no
total known (pytorch#126766: 3725 GiB) is a bogus size from a shape or config bug.
"""

from __future__ import annotations

from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, clamp, evidence
from gpudesk.units import GIB as GiB
from gpudesk.i18n import _

TiB = 1024 * GiB


def check(f: Facts) -> Cause | None:
    if f.mps:
        return None  # Apple MPS: see mps_limit
    req = f.requested
    if req is None:
        return None
    total = f.total
    bogus = (total is not None and req > 2 * total) or (total is None and req > TiB)
    if bogus:
        conf = 0.9 if total is not None else 0.75
        why = _("The request is far larger than any GPU: a shape, dtype or configuration bug (e.g. a wrong dimension).")
    elif total is None:
        return None
    elif req > total:
        conf = 0.95
        why = _("One request is larger than the whole GPU; no setting can make it fit.")
    elif f.allocated is not None and req > total - f.allocated:
        conf = 0.85 if req > total / 2 else 0.7
        why = _("One request is larger than everything the GPU could free while the live tensors stay.")
    else:
        return None
    r = f.report
    fix = _("Find the tensor: an attention score matrix (batch × heads × seq²) or a wrong shape; use memory-efficient attention (attn_implementation='sdpa' or 'flash_attention_2')")
    more = [
        _("Lower the resolution / sequence length or the batch for this step."),
        _("Split the computation (attention slicing, tiling, chunked loss over the vocabulary)."),
    ]
    if r.framework == "tensorflow":
        fix = _("Check the op that makes this tensor (shape {shape}): a Tile/Concat/broadcast that grew too "
                "large").format(shape=r.tensor_shape)
        more = [_("Reduce the batch or the input length."), _("Add report_tensor_allocations_upon_oom to RunOptions.")]
    if bogus:
        fix = _("Print the shapes feeding this allocation; the requested size is not a plausible tensor")
    return Cause(
        id="single_allocation_exceeds_capacity",
        title=_("A single allocation larger than the GPU can hold"),
        confidence=clamp(conf),
        evidence=evidence(
            requested_bytes=req,
            total_capacity_bytes=total,
            allocated_bytes=f.allocated,
            requested_to_capacity_ratio=round(req / total, 3) if total else None,
            bogus_size=bogus or None,
            tensor_shape=r.tensor_shape,
        ),
        explanation=why,
        fix=fix,
        more_fixes=more,
    )
