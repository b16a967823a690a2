"""``per_process_cap``: a memory-fraction cap set in the process refused the allocation.

``torch.cuda.set_per_process_memory_fraction(f)`` makes the caching allocator refuse any growth beyond
f × total and adds "N GiB allowed;" to the OOM message (c10/cuda/CUDACachingAllocator.cpp,
https://github.com/pytorch/pytorch); TGI's ``--cuda-memory-fraction`` and older PyTorch print "PyTorch limit
(set by user-supplied memory fraction)". Fires when the cap is below 97 % of the total (TheRock#2118: 1.05 of
255.98 GiB allowed) — 0.9 when the process's memory plus the request exceed the cap. The fix names the
fraction that fits: (reserved + request) / total, rounded up to the next hundredth above the cap.

A program's own configured ceiling, printed beside the size it refused ("Model 'NAME' (10.20GB) exceeds
max-model-memory (8.00GB)": oMLX, an MLX model server, checks a model's size against its max-model-memory setting
before loading; parsers/generic ``CONFIGURED_CEILING``), is the same mechanism: the setting, not the device, refused.
Such ceilings are set at a share of the machine's memory (Apple's default GPU wired limit is about two thirds to three
quarters of unified memory, ``iogpu.wired_limit_mb``), so a size up to twice the ceiling can fit once the setting is
raised or set to 0 (jundot/omlx#113: 10.20 GB against 8 GB on a 16 GB Mac; 0.8). A size more than twice the ceiling
is more than the machine itself is likely to hold, and raising the setting would not help: the job's own need
(``genuine_shortage``, 0.75, above the reading of one allocation larger than any GPU, since the text names a
whole model checked against a setting; jundot/omlx#378: 218 GB against 25 GB on a 64 GB Mac).
"""

from __future__ import annotations

import math
import re

from gpudesk.oom.cause import Cause
from gpudesk.units import format_bytes
from gpudesk.oom.rules.base import Facts, evidence, join_sentences
from gpudesk.i18n import _


# A size more than this many times the configured ceiling is read as more than the machine holds (module docstring).
_CEILING_SHARE_BOUND = 2.0


def _configured_ceiling(f: Facts) -> Cause | None:
    """A program's own memory setting refused the size printed beside it (module docstring)."""
    limit = f.report.parsed.get("configured_limit_bytes")
    if not isinstance(limit, int) or limit <= 0 or f.requested is None or f.requested <= limit:
        return None
    sizes = {"requested": format_bytes(f.requested), "limit": format_bytes(limit)}
    if f.requested > _CEILING_SHARE_BOUND * limit:
        return Cause(
            id="genuine_shortage",
            title=_("The model is far larger than the memory setting and likely than the machine"),
            confidence=0.75,
            evidence=evidence(requested_bytes=f.requested, configured_limit_bytes=limit),
            explanation=_("The program refused {requested} against its memory setting of {limit}. Such settings are "
                          "a share of the machine's memory, so a size more than twice the setting is more than the "
                          "machine is likely to hold: raising the setting would not make it fit.").format(**sizes),
            fix=_("Use a smaller model or a smaller quantisation that fits the machine's memory, or a machine with "
                  "more memory"),
            more_fixes=[_("Compare {requested} with the machine's memory: if the machine does hold it, raise the "
                          "memory setting (0 disables it in servers that allow that).").format(**sizes)],
        )
    return Cause(
        id="per_process_cap",
        title=_("The program's own memory setting refused the model"),
        confidence=0.8,
        evidence=evidence(requested_bytes=f.requested, configured_limit_bytes=limit),
        explanation=_("The program checks each model against its memory setting of {limit} before loading it, and "
                      "{requested} is above that setting: the setting refused it, not the device.").format(**sizes),
        fix=_("Raise the memory setting above {requested} (or set it to 0 to disable it, if the server allows that), "
              "leaving room for the system; or use a smaller quantisation of the model").format(**sizes),
    )


# A framework's own memory pool, sized once by the user's setting, full (fifty-eighth pass): DyNet before its pools grew
# on demand allocated each pool (forward, backward, parameters) once, at the size --dynet-mem gives in MB, and threw when
# a pool was full whatever the device or the host had free: "dynet is out of memory, try increasing with --dynet-mem
# (current capacity: N)" (clab/dynet dynet/aligned-mem-pool.h before 9d6a6beb6230052b95e080c0dfae806309f11c04), then
# with the pool's name, "GPU forward memory is out of memory, try increasing with --dynet-mem (current capacity: N).
# See ..." (dynet/aligned-mem-pool.cc at that commit; clab/dynet#292, fixed by a larger --dynet-mem). N is the pool's
# size in bytes: the setting refused, not the device. Group 1: the pool's name; group 2: N.
_DYNET_POOL_FULL = re.compile(r"\b(dynet|(?:cpu|gpu) (?:forward|backward|parameter) memory) is out of memory, try "
                              r"increasing with --dynet-mem\s{0,2}\(\s{0,2}current capacity\s{0,2}:\s{0,2}(\d{1,20})\s{0,2}\)",
                              re.IGNORECASE)


def _framework_pool_full(f: Facts) -> Cause | None:
    """DyNet's fixed pool, sized by --dynet-mem, is full (``_DYNET_POOL_FULL``): 0.85 (the message names the setting)."""
    m = _DYNET_POOL_FULL.search(f.report.text or "")
    if m is None:
        return None
    capacity = int(m.group(2))
    return Cause(
        id="per_process_cap",
        title=_("The framework's own memory pool, sized by its setting, is full"),
        confidence=0.85,
        evidence=evidence(configured_limit_bytes=capacity, requested_bytes=f.requested),
        explanation=_("DyNet reserves its memory pools once, at the size --dynet-mem gives, and stops when one is "
                      "full ({pool}: {capacity}), whatever the device or the host still has free: the setting "
                      "refused, not the memory.").format(pool=m.group(1), capacity=format_bytes(capacity)),
        fix=_("Raise --dynet-mem (in MB; the pools can be given separately, e.g. --dynet-mem 2000,2000,1000 for the "
              "forward, backward and parameter memory), keeping the total within what the device holds"),
        more_fixes=[_("A smaller minibatch or shorter sequences need less of the forward and backward pools.")],
    )


# XLA's GPU allocator with unified memory on (TF_FORCE_UNIFIED_MEMORY=1): the BFC allocator takes its memory with
# cuMemAllocManaged and its limit is the device's memory times XLA_PYTHON_CLIENT_MEM_FRACTION, a fraction that may then
# exceed 1 (openxla/xla, xla/pjrt/gpu/gpu_helpers.cc, CreateBFCAllocator: with enable_unified_memory the allocation size
# is total_memory * memory_fraction). AlphaFold's docker runner sets the pair to 1 and 4.0 (docker/run_docker.py), and
# its maintainers read an allocation above the GPU refused there as that ceiling ("you could be hitting this limit",
# google-deepmind/alphafold#149): the host RAM backs the rest, so the configured fraction, not the card, refused it.
_UNIFIED_ON = re.compile(r"TF_FORCE_UNIFIED_MEMORY['\"]?\s{0,3}(?:=|:|set\s{1,3}to|to)\s{0,3}['\"]?(?:1|true)\b",
                         re.IGNORECASE)
_XLA_KINDS = ("xla_resource_exhausted", "tf_resource_exhausted", "tf_bfc_dump")


def _unified_memory_fraction(f: Facts) -> Cause | None:
    """An XLA allocation refused with unified memory on: the memory fraction's ceiling (``_UNIFIED_ON``), 0.85."""
    r = f.report
    if f.requested is None or not _UNIFIED_ON.search(r.text or "") or (
            r.kind not in _XLA_KINDS and r.framework not in ("jax", "tensorflow")):
        return None
    return Cause(
        id="per_process_cap",
        title=_("XLA's memory fraction refused the allocation (unified memory on)"),
        confidence=0.85,
        evidence=evidence(requested_bytes=f.requested, total_capacity_bytes=f.total,
                          check_command="echo $XLA_PYTHON_CLIENT_MEM_FRACTION"),
        explanation=_("With TF_FORCE_UNIFIED_MEMORY=1, XLA's allocator takes managed memory that host RAM backs "
                      "beyond the GPU, up to the GPU's memory times XLA_PYTHON_CLIENT_MEM_FRACTION: a request of "
                      "{requested} with what the program already holds went past that ceiling, not past the "
                      "machine.").format(requested=format_bytes(f.requested)),
        fix=_("Raise XLA_PYTHON_CLIENT_MEM_FRACTION (above 1 with unified memory, e.g. 8.0) so that the GPU's memory "
              "times it covers the job, as long as RAM and swap hold the rest"),
        more_fixes=[_("Shorten the input (a shorter sequence, fewer residues) if RAM cannot hold it either.")],
    )


def check(f: Facts) -> Cause | None:
    pool = _framework_pool_full(f)
    if pool is not None:
        return pool
    ceiling = _configured_ceiling(f)
    if ceiling is not None:
        return ceiling
    unified = _unified_memory_fraction(f)
    if unified is not None:
        return unified
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
    elif f.report.parsed.get("allocator_cap_bytes") == cap:
        # The cap as the runtime's own status printout states it ("usage: U (capped at C)", parsers/pool_status):
        # the limit the runtime was started with, not PyTorch's fraction.
        fix = _("Raise or remove the memory limit the runtime was started with (it allows {cap} of {total}; CUDA.jl: "
                "JULIA_CUDA_MEMORY_LIMIT)").format(**sizes)
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
