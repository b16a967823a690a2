"""A serving engine's swap area for preempted KV-cache blocks ran out (``kv_cache_budget``; fifty-fifth pass).

When the GPU KV cache cannot hold the next tokens of every running sequence, vLLM's V0 scheduler preempts sequence
groups; a group with several sequences (beam search, ``n`` > 1 samples per prompt) cannot be recomputed and is
preempted by swapping its KV blocks to a CPU swap area of its own, ``swap_space`` GiB per GPU (4 by default), allocated
by the engine at start (``vllm/core/scheduler.py``, ``_preempt`` / ``_swap_out``: "Aborted due to the lack of CPU swap
space. Please increase the swap space to avoid this error."; ``vllm/engine/arg_utils.py`` ``--swap-space``;
https://github.com/vllm-project/vllm). The operating system's swap and RAM are not involved: raising them changes
nothing (rllm-org/rllm#62: the OS swap raised to 40G without effect). The area is the KV cache's overflow, so what
ran short is the KV-cache budget for the running batch: fewer sequences at once (``max_num_seqs``, fewer samples per
prompt), more GPU KV cache (``gpu_memory_utilization``, more GPUs), or a larger ``swap_space``.

Read by the words of the mechanism (a request aborted for the lack of the CPU swap space), never a project's name.
0.8: the message names the area itself.
"""

from __future__ import annotations

import re

from gpudesk.i18n import _
from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, evidence

CONFIDENCE = 0.8
# A run aborted because the CPU swap space (the engine's area for swapped-out KV blocks) ran short.
_ABORTED_FOR_SWAP = re.compile(r"\baborted\b[^\n]{0,40}?\b(?:lack of|out of|insufficient|not enough)\s{1,3}(?:the\s{1,3})?"
                               r"cpu\s{1,3}swap\s{0,2}space\b", re.IGNORECASE)


def check(f: Facts) -> Cause | None:
    said = _ABORTED_FOR_SWAP.search(f.report.text or "")
    if said is None:
        return None
    return Cause(
        id="kv_cache_budget",
        title=_("The KV cache ran out: the engine's CPU swap space for preempted sequences is full"),
        confidence=CONFIDENCE,
        evidence=evidence(engine_words=said.group(0)),
        explanation=_("This is not the operating system's swap. When the GPU KV cache cannot hold the next tokens of "
                      "every running sequence, the scheduler preempts sequence groups, and a group with several "
                      "sequences (beam search, several samples per prompt) is swapped out to a CPU swap area the "
                      "engine sized at start (--swap-space, in GiB per GPU). That area was full too, so the running "
                      "batch needs more KV cache than the engine has."),
        fix=_("Run fewer sequences at once (lower max_num_seqs or the samples per prompt), give the KV cache more GPU "
              "memory (a higher gpu_memory_utilization, more GPUs) or raise --swap-space; adding system swap or RAM "
              "does not help"),
        checks=[_("Read the engine's start-up log for the number of GPU and CPU KV blocks, and the scheduler's "
                  "preemption warnings before the error: many preemptions confirm the KV cache is the limit.")],
    )
