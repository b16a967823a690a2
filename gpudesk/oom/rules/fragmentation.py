"""``fragmentation``: reserved memory the allocator cannot hand to the request (oom.md §3.5 rule 4).

Fires when free + reserved-but-unallocated would cover the request (so the memory exists but not as one
block) and the cache is a sizeable part of reserved memory (frag_ratio >= 0.15, Vad-R1#11, pytorch#35901),
or ``inactive_split_bytes`` / cudaMalloc retries / a largest free block smaller than the request say so
directly. Also when the device reports far more free memory than the request (taggui#188: 2.35 GiB free,
20 MiB failed): the free memory is not usable as one block (WDDM address space, per-process cap).
Confidence rises with frag_ratio and retries. A cache smaller than the request could not have served it however its
blocks lay: only free and cached memory together reach the request, which on a nearly full device is the job's own
need first (genuine_shortage's 0.6 below 8 % margin; OPIXray#5: 264 MiB refused on a 2 GiB GPU, the fix a larger
GPU), so the reading is held at 0.55 there; with a wide margin it still leads. This covers the article's "cache not released" row.

A memory pool with a limit that counts its cached blocks (CuPy: ``SingleDeviceMemoryPool._try_malloc`` in
cupy/cuda/memory.pyx compares held + request with the limit and raises ``OutOfMemoryError`` before
``free_all_blocks`` runs; cupy#7678, fixed in cupy#7679): a request that fits the limit on its own but not with
what the pool holds reads as cached blocks in the way (0.6), told apart from live data by the pool's
``used_bytes()`` against ``total_bytes()``.
"""

from __future__ import annotations

import re

from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, clamp, evidence, join_sentences
from gpudesk.units import GIB as GiB, MIB as MiB, format_bytes
from gpudesk import i18n
from gpudesk.i18n import N_, _, ngettext

#: The allocator setting against fragmentation, as one unit: gpudesk.oom.engine_advice swaps it for the ROCm one.
CUDA_ALLOC_CONF = N_("PYTORCH_ALLOC_CONF=expandable_segments:True (PYTORCH_CUDA_ALLOC_CONF on torch < 2.9)")
HIP_ALLOC_CONF = N_("PYTORCH_HIP_ALLOC_CONF=expandable_segments:True (ROCm builds; PYTORCH_ALLOC_CONF on torch ≥ 2.9)")
# Translators: {alloc_conf} is an environment setting such as PYTORCH_ALLOC_CONF=expandable_segments:True
FIX = N_("Set {alloc_conf} before the process starts")


# What the message's era (gpudesk.oom.parsers.pytorch_oom) says the allocator supports: PYTORCH_CUDA_ALLOC_CONF and
# max_split_size_mb arrived in 1.10 (whose message added the "try setting max_split_size_mb" hint), expandable_segments
# in 2.1 (c10/cuda/CUDACachingAllocator.cpp). Before 1.10 the allocator had no setting against fragmentation: it split
# any cached block larger than a request by more than 1 MiB, and "at this point cuda_malloc_retry has already returned
# all possible 'cached' memory to the driver. The only remaining 'cached' memory is split from a larger block that is
# partially in-use" (the comment above its OOM message, THCCachingAllocator.cpp / CUDACachingAllocator.cpp <= 1.3).
_ERAS_WITHOUT_ALLOC_CONF = ("<=1.3", "1.4-1.9", "1.5-1.6")
_ERAS_WITHOUT_EXPANDABLE_SEGMENTS = ("1.10-2.0",)
# Below this confidence a reading is "possible" (the title says so); the old allocator's stranded cache is held there.
OLD_ALLOCATOR_STRANDED_MAX_CONFIDENCE = 0.5


def stranded_in_old_allocator(f: Facts) -> bool:
    """PyTorch before 1.10 on CUDA (the message's era), a request that free plus cached memory would cover, and less
    memory stranded in the cache than the live tensors hold.

    That allocator raises only after ``free_cached_blocks`` has returned every whole cached segment to the driver
    ("at this point cuda_malloc_retry has already returned all possible 'cached' memory to the driver. The only
    remaining 'cached' memory is split from a larger block that is partially in-use", the comment above the OOM
    message in THCCachingAllocator.cpp / c10/cuda/CUDACachingAllocator.cpp <= 1.9), so the cached figure of its message
    is memory inside segments that live tensors still occupy. It splits any cached block for any request and has no
    setting against it (``max_split_size_mb`` arrived in 1.10), so that remainder is part of the job's own peak:
    while it is smaller than the live tensors, lowering the peak (batch, resolution) is what frees it, and the job's
    need leads (mega.pytorch#32: 650 MiB cached beside 1.89 GiB live, fixed by a smaller memory module). A cache
    larger than the live tensors is the layout failing, not the job's size (pocket#9: 6.8 GiB cached beside 308 MiB
    live): fragmentation stays first there.
    """
    era = f.report.era or ""
    return (f.report.platform in (None, "cuda") and era.startswith(_ERAS_WITHOUT_ALLOC_CONF)
            and f.allocated is not None and f.unallocated is not None and f.requested is not None
            and f.margin is not None and f.margin >= 0 and 0 < f.unallocated < f.allocated
            and f.dev is not None and f.dev.largest_free_block_bytes is None and not f.dev.inactive_split_bytes)


def check(f: Facts) -> Cause | None:
    if f.mps:
        return None  # Apple MPS: see mps_limit
    pooled = _pool_limit_cache(f) or _said_fragmented(f) or _tpu_heap_pieces(f)
    if pooled is not None:
        return pooled
    dev = f.dev
    if dev is None:
        return None
    conf = 0.0
    why = []
    ratio = f.frag_ratio
    fits = f.margin is not None and f.margin >= 0
    if ratio is not None and ratio >= 0.15 and (fits or f.requested is None):
        conf = 0.5 + min(0.4, ratio)
        if f.unallocated is not None and f.requested is not None and f.unallocated < f.requested:
            conf = 0.55  # the cache alone could not have served it (module docstring)
        why.append(_("{ratio:.0%} of reserved memory is cached but unallocated.").format(ratio=ratio))
    elif f.unallocated is not None and f.requested is not None and fits and (
        f.unallocated >= GiB or f.unallocated >= f.requested
    ):
        conf = 0.3 + min(0.15, (ratio or 0))
        why.append(_("The unallocated cache alone is as large as the request."))
    if f.free is not None and f.requested is not None and f.free >= max(2 * f.requested, 256 * MiB) and (
        f.total is None or f.free < f.total
    ):
        conf = max(conf, 0.55)
        why.append(_("The GPU reports more free memory than the request, yet it failed (no contiguous block, "
                     "WDDM/driver limit or a per-process memory fraction)."))
    if dev.inactive_split_bytes and dev.reserved_bytes and dev.inactive_split_bytes / dev.reserved_bytes >= 0.15:
        conf = max(conf, 0.5 + min(0.4, dev.inactive_split_bytes / dev.reserved_bytes))
        why.append(_("Non-releasable (inactive split) memory is large."))
    if dev.largest_free_block_bytes is not None and f.requested is not None and f.unallocated:
        if dev.largest_free_block_bytes < f.requested <= f.unallocated:
            conf = max(conf, 0.8)
            why.append(_("The largest free cached block is smaller than the request."))
    if conf == 0:
        return None
    if stranded_in_old_allocator(f):
        conf = min(conf, OLD_ALLOCATOR_STRANDED_MAX_CONFIDENCE)
        why.append(_("This PyTorch releases every whole cached segment before it raises: the cached memory left sits "
                     "in segments its live tensors still occupy, less than those tensors hold."))
    if dev.num_alloc_retries:
        conf += 0.05
        why.append(ngettext("{n} cudaMalloc retry (cache flush) happened.", "{n} cudaMalloc retries (cache flushes) happened.",
                             dev.num_alloc_retries).format(n=dev.num_alloc_retries))
    conf_hint = f.report.alloc_conf.get("expandable_segments")
    more = [
        _("Keep tensor shapes stable between steps (pad or bucket variable-length batches); variable shapes split cached blocks."),
        _("Call torch.cuda.empty_cache() between phases (e.g. after evaluation) — it releases only whole free segments."),
        _("As a last resort set max_split_size_mb:<N> in PYTORCH_ALLOC_CONF (do not combine with expandable_segments, pytorch#119452)."),
    ]
    fix = i18n._(FIX).format(alloc_conf=i18n._(CUDA_ALLOC_CONF))
    # Vendor builds (torch_npu, IPEX, ROCm) keep an older message format with their own allocator settings: the era
    # dates the allocator only on CUDA.
    era = (f.report.era or "") if f.report.platform in (None, "cuda") else ""
    if era.startswith(_ERAS_WITHOUT_ALLOC_CONF):
        fix = _("This PyTorch predates the allocator's settings (its message is worded as before 1.10): upgrade to "
                "PyTorch 2.1 or later and set {alloc_conf}; with this version, keep tensor shapes stable and lower "
                "the peak (batch, resolution)").format(alloc_conf=i18n._(CUDA_ALLOC_CONF))
        more = more[:2]
    elif era.startswith(_ERAS_WITHOUT_EXPANDABLE_SEGMENTS):
        fix = _("Set PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:<N> before the process starts, N in MiB below the "
                "request (e.g. 128); expandable_segments needs PyTorch 2.1 or later")
        more = more[:2]
    if conf_hint and conf_hint.lower() == "true":
        fix = _("expandable_segments is already on: reduce peak memory or stabilise shapes; the hint in the message is generic (pytorch#173049)")
    return Cause(
        id="fragmentation",
        # Below 0.5 the figures only allow it (a small cache that happens to cover the request): say so.
        title=_("Fragmented allocator cache") if conf >= 0.5 else _("Possibly a fragmented allocator cache"),
        confidence=clamp(conf),
        evidence=evidence(
            requested_bytes=f.requested,
            free_bytes=f.free,
            reserved_bytes=f.reserved,
            allocated_bytes=f.allocated,
            reserved_unallocated_bytes=f.unallocated,
            fragmentation_ratio=round(ratio, 3) if ratio is not None else None,
            inactive_split_bytes=dev.inactive_split_bytes,
            largest_free_block_bytes=dev.largest_free_block_bytes,
            num_alloc_retries=dev.num_alloc_retries,
            fit_margin_bytes=f.margin,
        ),
        explanation=join_sentences([*why, _("The memory exists but not as one contiguous block, so the allocation fails.")]),
        fix=fix,
        more_fixes=more,
        checks=[_("Compare memory_reserved() with memory_allocated() after each step: a growing gap with a flat "
                "allocated curve is fragmentation, not a leak.")],
    )



# Fragmentation said in the text's own words ("BFCArena grabs ~14.9GB of a 16GB T4 then fragments",
# bobmatnyc/trusty-tools#600), with PyTorch's generic hint ("... to avoid fragmentation", in every 2.x message) taken out
# first. ONNX Runtime's BFC arena grows by powers of two by default (arena_extend_strategy kNextPowerOfTwo) and keeps
# what it took, so it over-reserves and then splits its regions (onnxruntime/core/framework/bfc_arena.cc; the CUDA
# execution provider's options arena_extend_strategy and gpu_mem_limit,
# https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html).
# (A statistics label, XLA's "total fragmentation: 680.30MiB (4.60%)", is a figure, not a statement: left out.)
# TensorFlow's BFC allocator prints a generic hint of its own in every out-of-memory warning, whatever the cause:
# "If the cause is memory fragmentation maybe the environment variable 'TF_GPU_ALLOCATOR=cuda_malloc_async' will
# improve the situation." (tensorflow/core/common_runtime/bfc_allocator.cc, BFCAllocator::AllocateRawInternal, since
# TensorFlow 2.5; GoogleCloudPlatform/practical-ml-vision-book#6 printed it when another notebook held the GPU): a
# conditional of the runtime's, not the user's finding, taken out like PyTorch's.
# XLA:TPU's per-buffer statistics ("HLO temp 1.68G (66.7% utilization: ..., 0.5% fragmentation (7.92M))") are a figure
# too: a percentage right before the word.
_FRAGMENT_WORDS = re.compile(r"(?<!%)(?<!% )\bfragment(?:s|ed|ing|ation)\b(?!\s{0,3}:)", re.IGNORECASE)
_GENERIC_HINTS = re.compile(r"(?:to avoid|against) fragmentation|if the cause is memory fragmentation", re.IGNORECASE)


def _said_fragmented(f: Facts) -> Cause | None:
    """The text says the memory fragments, and no allocator figure is there to weigh it (0.55)."""
    text = _GENERIC_HINTS.sub("", f.report.text or "")
    m = _FRAGMENT_WORDS.search(text)
    if m is None or f.reserved is not None or f.unallocated is not None:
        return None
    onnxruntime = f.report.runtime == "onnxruntime"
    return Cause(
        id="fragmentation",
        title=_("Possibly a fragmented allocator cache"),
        confidence=0.55,
        evidence=evidence(described_as=m.group(0), requested_bytes=f.requested, total_capacity_bytes=f.total),
        explanation=_("The text says the memory fragments ('{words}'): the allocator holds memory it cannot hand out "
                      "as one contiguous block.").format(words=m.group(0)),
        fix=(_("Set the CUDA execution provider's arena_extend_strategy to kSameAsRequested (the default doubles "
               "each extension) and cap the arena with gpu_mem_limit") if onnxruntime
             else i18n._(FIX).format(alloc_conf=i18n._(CUDA_ALLOC_CONF))),
        checks=[_("Compare the memory the allocator reserves with what its live buffers use: a large gap that grows "
                  "with varying input shapes is fragmentation.")],
    )


# The load-time wording of the program's reservation; the other wording with the same three figures is one buffer's
# allocation ("Could not allocate N bytes in memory ...; A bytes allocatable, F bytes available",
# gpudesk.oom.parsers.generic, _TPU_ALLOCATABLE).
_PROGRAM_RESERVE = re.compile(r"attempting to reserve", re.IGNORECASE)


def _tpu_heap_pieces(f: Facts) -> Cause | None:
    """The TPU runtime's program reservation (or one buffer) refused while the core has the memory free, in pieces: "Attempting to
    reserve N at the bottom of memory. That was not possible. There are F free, R reserved, and V reservable" with
    F >= N > V. The runtime loads a compiled program into one contiguous region at the bottom of HBM, and the data
    buffers allocated since sit in the way; openxla/xla docs/errors/error_0101.md names this case "HBM
    Fragmentation: ... the total free HBM on the device might be sufficient in aggregate, it is not available in a
    single, contiguous block". Free below N is a shortage (genuine_shortage reads it). 0.75: the figures decide."""
    r = f.report
    reservable = r.parsed.get("tpu_reservable_bytes")
    if (not isinstance(reservable, int) or f.requested is None or f.free is None
            or not reservable < f.requested <= f.free):
        return None
    return Cause(
        id="fragmentation",
        title=_("The TPU core has the memory free, but not in one piece"),
        confidence=0.75,
        evidence=evidence(requested_bytes=f.requested, free_bytes=f.free, reservable_bytes=reservable),
        explanation=(_("The TPU runtime had to reserve {requested} in one contiguous region for the program; {free} "
                       "was free, but the largest region it could reserve was {reservable}: the data buffers allocated "
                       "before it split the free memory.") if _PROGRAM_RESERVE.search(r.text or "") else
                     _("The TPU runtime could not allocate one buffer of {requested}: {free} of its HBM was free in "
                       "all, but the largest piece it could hand out was {reservable}; the buffers allocated before "
                       "it split the free memory.")).format(requested=format_bytes(f.requested),
                                                            free=format_bytes(f.free),
                                                            reservable=format_bytes(reservable)),
        fix=_("Hold fewer buffers on the core when the program loads: drop references to arrays you no longer need "
              "and donate inputs (jax.jit(..., donate_argnums=...)), or lower the batch size so the program and its "
              "buffers leave a large enough piece"),
        more_fixes=[_("Run with the tpu_log_allocations_on_oom flag to list the buffers that hold the memory.")],
    )


def _pool_limit_cache(f: Facts) -> Cause | None:
    """A pool limit refused a request that fits under it alone: the pool's held blocks, cached ones included,
    counted against the limit (module docstring)."""
    req, held, limit = f.requested, f.pool_held, f.pool_limit
    if req is None or not held or limit is None or not req <= limit < req + held:
        return None
    return Cause(
        id="fragmentation",
        title=_("The memory pool's cached blocks count against its limit"),
        confidence=0.6,
        evidence=evidence(requested_bytes=req, pool_held_bytes=held, pool_limit_bytes=limit),
        explanation=_("The request ({requested}) fits under the pool's limit ({limit}) on its own, but the pool "
                      "already holds {held}, cached free blocks included, and the limit is checked before the cache "
                      "is released.").format(requested=format_bytes(req), limit=format_bytes(limit),
                                             held=format_bytes(held)),
        fix=_("Release the pool's cached blocks before the large allocation (cupy.get_default_memory_pool()"
              ".free_all_blocks()), or raise the limit"),
        more_fixes=[_("Upgrade CuPy: newer releases free cached blocks when the limit is reached (cupy#7679).")],
        checks=[_("Compare the pool's used_bytes() with its total_bytes(): a large difference is cache, not live "
                  "arrays.")],
    )
