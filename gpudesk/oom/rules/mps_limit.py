"""Apple MPS: the allocation would exceed the MPS high-watermark limit (PyTorch's MPS allocator).

The limit is ``PYTORCH_MPS_HIGH_WATERMARK_RATIO`` (default 1.7) × the device's recommended working set
(``aten/src/ATen/mps/MPSAllocator.h``, https://github.com/pytorch/pytorch). The message gives this process's
live MPS tensors ("MPS allocated") and the rest of its Metal memory ("other allocations": the MPS heap cache
and other libraries' buffers). Whichever is larger is the first cause:

* live tensors → ``genuine_shortage`` (smaller batch / resolution / model; 0.8);
* other allocations → ``allocation_outside_allocator`` (torch.mps.empty_cache() between steps, close other
  GPU users; pytorch#105839: works after emptying the cache; 0.75).

When the figures do not reach the limit (live tensors, other allocations and the request together under "max
allowed", little held: kitzeslab/opensoundscape#850, 0 bytes allocated and 0 bytes asked under a 1.70 GB limit on a
GitHub Actions macOS runner), the sum did not refuse it: the allocator's heap for the request, sized up from it
(``MPSHeapAllocatorImpl::alloc_buffer`` in aten/src/ATen/mps/MPSAllocator.mm checks the heap's size, not the tensor's,
against the watermark) or Metal itself (``newHeapWithDescriptor`` returning nil on a small virtual machine) did. The
cap is the per-process limit here, ``per_process_cap`` (0.7): the run passed with the watermark off, the fix the message
names (opensoundscape#851).

The ratio that would admit the request is (allocated + other + request) / limit × the ratio in force; the
advice says so but never recommends 0.0 (no limit: the system may hang). No CUDA allocator advice applies.
"""

from __future__ import annotations

import math
from typing import Any

from gpudesk.oom.cause import Cause
from gpudesk.units import format_bytes
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.i18n import _

DEFAULT_HIGH_WATERMARK_RATIO = 1.7


def check(f: Facts) -> Cause | None:
    if f.report.kind != "mps_oom" or f.dev is None:
        return None
    allocated, other, limit = f.allocated, f.dev.other_allocations_bytes, f.total
    if allocated is None or other is None or limit is None:
        small = _small_request_under_any_mac_limit(f)
        if small is not None:
            return small
        return Cause(id="genuine_shortage", title=_("Apple GPU memory limit reached"), confidence=0.5,
                     evidence=evidence(requested_bytes=f.requested),
                     explanation=_("PyTorch's MPS allocator refused the allocation at its high-watermark limit."),
                     fix=_("Reduce the batch, the resolution or the model size; call torch.mps.empty_cache() between steps"))
    req = f.requested or 0
    need = allocated + other + req
    ratio_in_force = float(f.report.parsed.get("mps_high_watermark_ratio", DEFAULT_HIGH_WATERMARK_RATIO))
    ratio_fit = math.ceil(need / limit * ratio_in_force * 100) / 100 if limit else None
    ratio_note = (_('PYTORCH_MPS_HIGH_WATERMARK_RATIO={ratio_fit:.2f} (now {ratio_in_force:g}) would admit it, at the risk of swapping or a system stall; 0.0 removes the limit entirely and is not advised.').format(ratio_fit=ratio_fit, ratio_in_force=ratio_in_force)
                  if ratio_fit is not None else "")
    ev = evidence(mps_allocated_bytes=allocated, mps_other_allocations_bytes=other, mps_max_allowed_bytes=limit,
                  requested_bytes=f.requested, shortfall_bytes=max(0, need - limit),
                  high_watermark_ratio_that_fits=ratio_fit)
    if need <= limit and allocated + other < limit / 4:
        return _cap_refused_under_its_figures(f, ev, need, limit)
    if other > allocated:
        return Cause(
            id="allocation_outside_allocator",
            title=_("Memory outside PyTorch's live MPS tensors fills the limit"),
            confidence=0.75,
            evidence=ev,
            explanation=_("'Other allocations' ({other}) exceed the live MPS tensors ({allocated}): the MPS heap "
                          "cache and other Metal users hold most of the {limit} limit.").format(
                              other=format_bytes(other), allocated=format_bytes(allocated), limit=format_bytes(limit)),
            fix=_("Release the MPS cache between steps with torch.mps.empty_cache() and close other GPU-heavy apps; "
                "load fewer models at once"),
            more_fixes=[ratio_note] if ratio_note else [],
            checks=[_("Memory grows over steps: a tensor kept across iterations (torch.mps.current_allocated_memory()).")],
        )
    return Cause(
        id="genuine_shortage",
        title=_("Live MPS tensors fill the Apple GPU's memory limit"),
        confidence=0.8,
        evidence=ev,
        explanation=_("Live MPS tensors ({allocated}) plus other allocations ({other}) and the request "
                      "({requested}) exceed the {limit} limit by {shortfall}.").format(
                          allocated=format_bytes(allocated), other=format_bytes(other), requested=format_bytes(req),
                          limit=format_bytes(limit), shortfall=format_bytes(max(0, need - limit))),
        fix=_("Reduce the memory per step on the Apple GPU: a smaller batch, resolution or sequence length, or a smaller "
            "/ lower-precision model (float16)"),
        more_fixes=([ratio_note] if ratio_note else []) + [_("Call torch.mps.empty_cache() between phases.")],
    )


# (Sixtieth pass) The smallest limit a real Apple-silicon Mac gets: 8 GB of unified memory (the smallest configuration
# sold), of which Metal recommends about two thirds as the working set (MTLDevice.recommendedMaxWorkingSetSize), times
# the default high-watermark ratio 1.7: about 9 GB. Live tensors of a quarter of that, asking for less than a page more,
# do not reach it on any Mac; a virtual machine or CI runner that gives Metal about 1 GB does (actions/runner-images
# #11899: 256 bytes refused at 1024 MB on a macOS-15 runner, where gc and torch.mps.empty_cache() changed nothing).
SMALLEST_MAC_LIMIT_BYTES = int(8e9 * 2 / 3 * DEFAULT_HIGH_WATERMARK_RATIO)
SMALL_REQUEST_BYTES = 1 << 20


def _small_request_under_any_mac_limit(f: Facts) -> Cause | None:
    """A cut MPS message (no "max allowed") whose live tensors and request sit far below any Mac's limit."""
    allocated = f.report.parsed.get("mps_allocated_bytes")
    req = f.requested
    if (not isinstance(allocated, int) or req is None or req >= SMALL_REQUEST_BYTES
            or allocated + req > SMALLEST_MAC_LIMIT_BYTES // 4):
        return None
    return Cause(
        id="per_process_cap",
        title=_("The MPS allocator's per-process limit refused a request its figures fit under"),
        confidence=0.6,
        evidence=evidence(mps_allocated_bytes=allocated, requested_bytes=req),
        explanation=_("This process's live MPS tensors ({allocated}) and the request ({requested}) are far below the "
                      "limit of any Apple-silicon Mac (about {smallest} on the smallest, 8 GB one): the limit in force "
                      "is a small one, as on a virtual machine or CI runner that gives the GPU little memory, or the "
                      "MPS cache ('other allocations', cut from this message) holds the rest.").format(
                          allocated=format_bytes(allocated), requested=format_bytes(req),
                          smallest=format_bytes(SMALLEST_MAC_LIMIT_BYTES)),
        fix=_("Run with PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 where the machine only runs this job (a CI runner), or "
              "run on the CPU there; on a desktop raise the ratio a little instead, since 0.0 can stall the system"),
        checks=[_("python -c \"import torch; print(torch.mps.recommended_max_memory())\": a small value means a "
                  "machine (or virtual machine) that gives the GPU little memory.")],
    )


def _cap_refused_under_its_figures(f: Facts, ev: dict[str, Any], need: int, limit: int) -> Cause:
    """The MPS limit refused an allocation that its own figures fit under (module docstring)."""
    return Cause(
        id="per_process_cap",
        title=_("The MPS allocator's per-process limit refused a request its figures fit under"),
        confidence=0.7,
        evidence=ev,
        explanation=_("This process holds {held} and asked for {requested}, under the {limit} 'max allowed' limit: "
                      "the figures do not reach it, so the refusal came from the limit's own accounting (the heap "
                      "rounded up from the request) or from Metal on a machine with little memory for the GPU, such as "
                      "a virtual machine or CI runner.").format(
                          held=format_bytes(need - (f.requested or 0)), requested=format_bytes(f.requested or 0),
                          limit=format_bytes(limit)),
        fix=_("Run with PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 where the machine only runs this job (a CI runner), or "
              "run on the CPU there; on a desktop raise the ratio a little instead, since 0.0 can stall the system"),
        checks=[_("python -c \"import torch; print(torch.mps.recommended_max_memory())\": a small value means a "
                  "machine (or virtual machine) that gives the GPU little memory.")],
    )
