"""A memory pool sized at process start from the free memory found, with most of the device already held.

Read by :mod:`gpudesk.oom.rules.other_process` (cause ``other_process``). The RAPIDS Accelerator for Spark sizes each
executor's RMM pool once, when the executor starts and before any task has run (:mod:`gpudesk.oom.parsers.
rmm_pool_start`; ``GpuDeviceManager.initializeMemory``, NVIDIA/spark-rapids): the executor then holds nothing but its
CUDA context, a few hundred MiB. Memory not free at that moment belongs to other processes: an executor placed on a
GPU that another executor's pool already holds (more executors than GPUs on a node, cudf-spark#636 and #2847), or
another job.

When the check prints the total (21.x and later): held at start ``total − free`` of a tenth of the device or more is
another holder's, as at vLLM's start-up check (:data:`gpudesk.oom.rules.other_process.STARTUP_HELD_SHARE`). When it
prints only the pool and the free memory (0.1/0.2: "Initial RMM allocation(P MB) is larger than free memory(F MB)",
P = allocFraction × total): the pool is a fraction of the device, so total ≥ P and the held share
``1 − F/total`` is at least ``1 − F/P``; a free memory at most half the pool means half the device or more was held
before the executor allocated anything (no fraction assumed). 0.85, level with the engine start-up reading.
"""

from __future__ import annotations

from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, evidence, join_sentences
from gpudesk.oom.signatures import CHECKS, check_command, check_line
from gpudesk.units import format_bytes
from gpudesk import i18n
from gpudesk.i18n import _

# Held share of the device at start at and above which another process holds it (as at vLLM's start-up check).
HELD_SHARE = 0.10
# Without the total: free memory at most this share of the pool means at least half the device was held.
FREE_OF_POOL_SHARE = 0.5


def held_at_pool_start(f: Facts) -> Cause | None:
    """``other_process`` for an RMM pool start-up check with the device already held (module docstring)."""
    r = f.report
    if r.kind != "rmm_pool_startup_free":
        return None
    free, total, pool = (r.parsed.get(k) for k in ("free_at_start_bytes", "total_at_start_bytes",
                                                   "engine_budget_bytes"))
    if not isinstance(free, int):
        return None
    if isinstance(total, int) and total > 0:
        held = total - free
        if held < HELD_SHARE * total:
            return None
        share = held / total
        said = _("When the executor started, before it allocated anything, {free} of the GPU's {total} was free: "
                 "{held} ({share:.0%}) was already held by other processes.").format(
                     free=format_bytes(free), total=format_bytes(total), held=format_bytes(held), share=share)
    elif isinstance(pool, int) and pool > 0 and free <= FREE_OF_POOL_SHARE * pool:
        total, held, share = None, None, 1 - free / pool
        said = _("When the executor started, before it allocated anything, only {free} was free, against a pool of "
                 "{pool} sized as a fraction of the GPU: at least {share:.0%} of the GPU was already held by other "
                 "processes.").format(free=format_bytes(free), pool=format_bytes(pool), share=share)
    else:
        return None
    key = "other_process"
    return Cause(
        id="other_process",
        title=_("Another process held the GPU when the executor started"),
        confidence=0.85,
        evidence=evidence(free_at_start_bytes=free, total_at_start_bytes=total, other_processes_bytes=held,
                          rmm_pool_bytes=pool if isinstance(pool, int) else None, held_at_start_min_ratio=round(share, 3),
                          deciding_check=key, check_command=check_command(key, r.platform)),
        explanation=join_sentences([said, _("The executor sizes its memory pool once, at start, from the free memory "
                                             "it finds, so the memory that was not free then belongs to another "
                                             "process: usually a second executor placed on the same GPU.")]),
        fix=_("Run one executor per GPU: give every executor a GPU of its own (spark.executor.resource.gpu.amount=1 "
              "with a GPU discovery script, or as many executors per node as GPUs), and stop other processes on the "
              "GPU (nvidia-smi lists them)"),
        more_fixes=[_("To share a GPU between executors on purpose, lower spark.rapids.memory.gpu.allocFraction (and "
                      "minAllocFraction) so that their pools add up to less than the GPU.")],
        checks=[check_line(command=check_command(key, r.platform),
                                                 meaning=i18n._(CHECKS[key].meaning))],
    )



def pool_above_free(f: Facts) -> Cause | None:
    """``preallocation`` for an RMM pool start-up check that found the device (nearly) to itself: the pool's share of
    the device, allocFraction, is set above what the driver and the executor's own context leave free, so the fix is
    the fraction, not another holder (0.7). Nothing when :func:`held_at_pool_start` reads another process."""
    r = f.report
    if r.kind != "rmm_pool_startup_free" or held_at_pool_start(f) is not None:
        return None
    free, pool = r.parsed.get("free_at_start_bytes"), r.parsed.get("engine_budget_bytes")
    if not isinstance(free, int) or not isinstance(pool, int) or pool <= free:
        return None  # a pool below its minimum (21.x's check) is not one set too large
    return Cause(
        id="preallocation",
        title=_("The executor's memory pool is set larger than the free memory at start"),
        confidence=0.7,
        evidence=evidence(free_at_start_bytes=free, rmm_pool_bytes=pool,
                          total_at_start_bytes=r.parsed.get("total_at_start_bytes")),
        explanation=_("The executor sizes one RMM pool at start as a fraction of the GPU (allocFraction) and asked "
                      "for {pool} with {free} free: the GPU was (nearly) its own, and the fraction leaves no room for "
                      "what the driver and the CUDA context already hold.").format(pool=format_bytes(pool),
                                                                                 free=format_bytes(free)),
        fix=_("Lower spark.rapids.memory.gpu.allocFraction (or raise spark.rapids.memory.gpu.reserve) so that the pool "
              "fits the free memory"),
    )
