"""``kv_cache_budget`` from a KV-cache manager's own "available < need" comparison (sixty-seventh pass).

A paged KV cache is a pool of fixed blocks sized once from the engine's memory budget; its manager hands blocks to
requests and, when a request needs more blocks than are free, refuses it before any CUDA allocation is made (vLLM's
block pool, vllm/v1/core/block_pool.py ``get_new_blocks``: "Cannot get N free blocks from the pool"; an elastic
manager such as kvcached logs the comparison itself, "[kv_cache_manager.py:164] available_size()=9.0 < need_size=30",
ovg-project/kvcached#191, before the engine core's fatal error). The figures count the pool's blocks, not bytes of
the GPU: the levers are the engine's KV budget (its memory fraction) and the work asked of it at once (the number of
sequences, the length), never the allocator. Read only where the comparison sits on a line that names a KV cache, so
another manager's "available < need" stays the tolerant layer's shortage.
"""

from __future__ import annotations

import re

from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.i18n import _

# A line naming the KV cache (kv_cache_manager.py, "[kvcached]", "KV cache", "kv-cache") with an amount available
# set below an amount needed on it.
_KV_LINE_COMPARISON = re.compile(
    r"^(?=[^\n]{0,400}?\bkv[ _-]?cache)[^\n]{0,400}?\b(?:available|free|avail)\w{0,20}(?:\(\s{0,2}\))?\s{0,2}[=:]"
    r"\s{0,2}(\d[\d.]{0,20})\s{0,3}<\s{0,3}(?:need|needed|required|requested|request)\w{0,20}(?:\(\s{0,2}\))?"
    r"\s{0,2}[=:]\s{0,2}(\d[\d.]{0,20})", re.IGNORECASE | re.MULTILINE)


def shortfall(text: str) -> tuple[float, float] | None:
    """(available, needed) of a KV-cache manager's comparison in ``text`` with available below needed, or None."""
    for m in _KV_LINE_COMPARISON.finditer(text):
        try:
            avail, need = float(m.group(1).rstrip(".")), float(m.group(2).rstrip("."))
        except ValueError:
            continue
        if avail < need:
            return avail, need
    return None


def check(f: Facts) -> Cause | None:
    found = shortfall(f.report.text or "")
    if found is None:
        return None
    avail, need = found
    return Cause(
        id="kv_cache_budget",
        title=_("The KV-cache manager had fewer free blocks than a request needs"),
        confidence=0.7,
        evidence=evidence(kv_blocks_available=avail, kv_blocks_needed=need),
        explanation=_("The KV cache is a pool of fixed blocks sized once from the engine's memory budget; its manager "
                      "found {available} free where the next request needs {needed} and refused it before any GPU "
                      "allocation. The pool is too small for the work asked of it at once, whatever the GPU has "
                      "free.").format(available=f"{avail:g}", needed=f"{need:g}"),
        fix=_("Ask less of the KV pool at once: lower the number of sequences served together (max_num_seqs) or the "
              "maximum length (max_model_len)"),
        more_fixes=[_("Give the pool more blocks: raise the engine's memory fraction (gpu_memory_utilization) or the "
                      "KV-cache manager's own size limit."),
                    _("Store the KV cache in fp8 (--kv-cache-dtype fp8): each block then holds twice the tokens.")],
    )
