"""``kv_cache_budget`` from a continuous-batching scheduler that dropped a request for its KV-cache blocks
(sixty-eighth pass).

A continuous-batching engine keeps its KV cache as a fixed pool of blocks sized once (OpenVINO GenAI: the
scheduler's ``cache_size`` in GB or ``num_kv_blocks``). When the scheduler cannot place a single token of the running
requests in that pool it marks them out of memory and ends them with ``GenerationStatus::IGNORED`` ("Status set when
generation run into out-of-memory condition and could not be continued", openvinotoolkit/openvino.genai at da1db864,
src/cpp/include/openvino/genai/generation_handle.hpp; ``set_out_of_memory`` in
src/cpp/src/continuous_batching/pipeline_impl.cpp). The LLM pipeline's adapter asserts a finished status and says
"Got unfinished GenerationStatus" (src/cpp/src/llm/pipeline_continuous_batching_adapter.hpp); later releases say
"dropped by the scheduler because it did not fit in the available cache budget (out of memory)" (src/cpp/src/utils.hpp).
The pool, not the device, was full: one long prompt needs more blocks than the configured cache holds, so the lever is
the cache size (or a shorter prompt), not the allocator. The words are read by
:data:`gpudesk.oom.parsers.generic.SCHEDULER_DROPPED_FOR_KV`.
"""

from __future__ import annotations

from gpudesk.oom.cause import Cause
from gpudesk.oom.parsers.generic import SCHEDULER_DROPPED_FOR_KV
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.i18n import _


def check(f: Facts) -> Cause | None:
    if SCHEDULER_DROPPED_FOR_KV.search(f.report.text or "") is None:
        return None
    return Cause(
        id="kv_cache_budget",
        title=_("The scheduler dropped a request that did not fit in the KV-cache pool"),
        confidence=0.8,
        evidence=evidence(),
        explanation=_("The continuous-batching scheduler keeps the KV cache as a fixed pool of blocks sized by the "
                      "cache size setting. A request whose prompt and output need more blocks than the pool holds "
                      "cannot be scheduled, so it is ended as out of memory (an unfinished generation status) while "
                      "the device itself may still have memory free."),
        fix=_("Raise the KV-cache size of the pipeline (cache_size in GB, or num_kv_blocks) so one request's prompt "
              "and output fit"),
        more_fixes=[_("Shorten the prompt or the maximum number of new tokens, or use a KV-cache precision that "
                      "takes fewer bytes per token.")],
    )
