"""vLLM's V0 KV-cache allocation refused with no device figures: another process holds what the budget counted.

vLLM's V0 worker sizes the KV cache from the whole device, not from its free memory: available KV memory =
``total × gpu_memory_utilization − peak``, where peak is the memory taken since the worker started (free memory at
start minus free memory after the profiling run; ``vllm/worker/worker.py``, ``determine_num_available_blocks``, whose
own comment says "Here we assume that the other processes using the same GPU did not change their memory usage during
the profiling"). It then allocates that cache at once, one tensor per layer, in the cache engine
(``vllm/worker/cache_engine.py``, ``CacheEngine._allocate_kv_cache``: ``torch.empty(kv_cache_shape, ...)``, later
``torch.zeros(alloc_shape, ...)``; https://github.com/vllm-project/vllm). Memory other processes held before the
engine started is therefore inside its budget: with the default ``gpu_memory_utilization`` of 0.9 (or any stated value
up to 0.9) a tenth of the device stays outside the budget, far more than the engine's own context, so the allocation
the profiler sized to fit is refused only when something outside this engine holds more than that share of the GPU
(QwenLM/Qwen3#458: a second process on the same GPU at utilization 0.8; chatdoc-com/OCRFlux#64: three other processes
held 30.6 of 44.35 GiB while the cache engine allocated). That is the first reading (0.75), with the process list as
its check; the budget itself is named second (:mod:`gpudesk.oom.rules.kv_pool_allocation`). A stated utilization
above 0.9 leaves less than the engine's own non-torch memory outside the budget: there the budget is the reading, and
this rule stays silent. A message with the device's figures is read from them (:mod:`gpudesk.oom.rules.other_process`).
"""

from __future__ import annotations

import re

from gpudesk import i18n
from gpudesk.i18n import _
from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.oom.rules.budget_words import UTILIZATION
from gpudesk.oom.signatures import CHECKS, check_command, check_line

# vLLM V0's cache engine (vllm/worker/cache_engine.py, class CacheEngine) in a traceback, with its KV allocation (the
# "_allocate_kv_cache" frame or call, or the allocating line, "torch.empty(kv_cache_shape," / "torch.zeros(alloc_shape,").
# The function name alone is not V0's: V1's model runners and other engines have their own "_allocate_kv_cache", and
# V1 checks the free memory at start-up instead (gpudesk.oom.parsers.startup_free).
_V0_CACHE_ENGINE = re.compile(r"\bcache_engine\b|\bCacheEngine\b")
_KV_ALLOCATION = re.compile(r"\b_allocate_kv_cache\b|\btorch\.(?:empty|zeros)\(\s{0,3}(?:kv_cache_shape|alloc_shape)\b")
# The V0 cache engine's allocating line quoted without its frame: one function makes the GPU cache and the pinned CPU
# swap cache, hence its "pin_memory=pin_memory" argument (a model's own KV cache, "self.k_cache =
# torch.empty(kv_cache_shape)", has none).
_V0_PINNED_LINE = re.compile(r"\btorch\.(?:empty|zeros)\(\s{0,3}kv_cache_shape\b[^)]{0,300}?"
                             r"\bpin_memory\s{0,2}=\s{0,2}pin_memory\b")


def v0_kv_allocation(text: str) -> bool:
    """The text's failing call is vLLM V0's cache engine allocating the KV cache (the patterns above)."""
    return bool((_V0_CACHE_ENGINE.search(text) and _KV_ALLOCATION.search(text)) or _V0_PINNED_LINE.search(text))


# vLLM's default budget share; above it the share left outside the budget no longer covers other holders.
DEFAULT_UTILIZATION = 0.9
_ALLOCATOR_KINDS = frozenset({"pytorch_oom", "generic_oom", "cuda_error_oom"})


def stated_utilization(text: str) -> float | None:
    """The gpu_memory_utilization the text states (the last one, in any of the forms
    :data:`gpudesk.oom.rules.budget_words.UTILIZATION` reads), None when it states none."""
    found = UTILIZATION.findall(text)
    return float(found[-1]) if found else None


def others_inside_budget(f: Facts) -> bool:
    """vLLM V0's KV-cache allocation failed, no device figures given, at a budget share of 0.9 or less (module
    docstring)."""
    r = f.report
    text = r.text or ""
    if r.kind not in _ALLOCATOR_KINDS or f.total is not None or not v0_kv_allocation(text):
        return False
    util = stated_utilization(text)
    return util is None or util <= DEFAULT_UTILIZATION


def check(f: Facts) -> Cause | None:
    if not others_inside_budget(f):
        return None
    r = f.report
    util = stated_utilization(r.text or "")
    key = "other_process"
    return Cause(
        id="other_process",
        title=_("vLLM's KV cache was refused: another process holds memory vLLM counted as its own"),
        confidence=0.75,
        evidence=evidence(requested_bytes=f.requested, gpu_memory_utilization_ratio=util, deciding_check=key,
                          check_command=check_command(key, r.platform)),
        explanation=_("The refused allocation is vLLM's KV cache, which the engine sized after profiling as "
                      "gpu_memory_utilization ({util:.2f}) of the whole GPU minus its own peak. That budget does not "
                      "subtract what other processes held before it started, and it leaves {outside:.0%} of the GPU "
                      "outside, far more than the engine's own context: a cache sized this way is refused only when "
                      "another process (a second engine, a notebook, a run still alive) holds more than that.").format(
                          util=util if util is not None else DEFAULT_UTILIZATION,
                          outside=1 - (util if util is not None else DEFAULT_UTILIZATION)),
        fix=_("Run nvidia-smi and stop the other processes on this GPU, or move this engine to a free GPU "
              "(CUDA_VISIBLE_DEVICES); to share the GPU on purpose, lower gpu_memory_utilization below the share the "
              "others leave free"),
        checks=[check_line(command=check_command(key, r.platform),
                                                 meaning=i18n._(CHECKS[key].meaning))],
    )
