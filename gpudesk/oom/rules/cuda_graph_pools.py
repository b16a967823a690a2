"""``cuda_graph_pools``: memory captured in CUDA-graph private pools (oom.md §3.5 rule 7).

The 2.4+ OOM message reports "with Z allocated in private pools (e.g., CUDA Graphs)" (onediff#1041: 19.83 of
28.34 GiB). Pool memory is reserved for replays and cannot serve eager allocations. Fires when pools are
>= 25 % of allocated memory (0.55 + 0.4 × share) or >= 1 GiB (0.4). Covers the article's "CUDA graph capture
pre-allocation" row.

Without the pool figure, the failure said to come while graphs are captured ("the OOM occurs during the process of
capturing CUDA graphs", zwhong714/PSFT#13; vLLM's "Capturing cudagraphs for decoding" / "Capturing CUDA graph shapes"
progress line right before the error): capture allocates each captured batch size's graph pool
(``torch.cuda.graphs.graph`` with a private mempool; vLLM ``model_runner.capture_model`` /
``gpu_model_runner.capture_model``, https://github.com/vllm-project/vllm) after the KV cache took its share, so the
graphs are what did not fit. 0.7, with the engine's knobs (eager mode, fewer capture sizes).
"""

from __future__ import annotations

import re

from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, clamp, evidence
from gpudesk.units import GIB as GiB
from gpudesk.i18n import _


_CAPTURE_SAID = re.compile(
    r"(?:out of memory|\boom\b)[^\n]{0,80}?\b(?:during|while|when)\b[^\n]{0,30}?\bcaptur(?:e|es|ed|ing)\b[^\n.]{0,20}?"
    r"\bcuda ?graphs?\b"
    r"|\b(?:during|while|when)\b[^\n]{0,30}?\bcaptur(?:e|es|ed|ing)\b[^\n.]{0,20}?\bcuda ?graphs?\b[^\n]{0,80}?"
    r"(?:out of memory|\boom\b)"
    r"|捕获[^，,。\n]{0,10}?cuda ?graph[^，,。\n]{0,20}?(?:oom|显存不足|爆显存|显存溢出)",
    re.IGNORECASE)


def _capture_said(f: Facts) -> Cause | None:
    text = f.report.text or ""
    if "captur" not in text.lower() and "捕获" not in text:
        return None  # the words the pattern needs, checked first: a long log is read once, cheaply
    m = _CAPTURE_SAID.search(text)
    if m is None:
        return None
    return Cause(
        id="cuda_graph_pools",
        title=_("Capturing CUDA graphs ran out of memory"),
        confidence=0.7,
        evidence=evidence(described_as=m.group(0)),
        explanation=_("The failure came while CUDA graphs were captured: each captured batch size gets its own "
                      "memory pool, allocated after the weights and the KV cache took their share."),
        fix=_("Run without CUDA graphs (vLLM enforce_eager=True / --enforce-eager) or capture fewer sizes "
              "(cuda_graph_sizes, --max-seq-len-to-capture); or lower gpu_memory_utilization to leave room for them"),
    )


def check(f: Facts) -> Cause | None:
    if not f.pools:
        return _capture_said(f)
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
