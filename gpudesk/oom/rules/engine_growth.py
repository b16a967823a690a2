"""``kv_cache_budget`` for an engine that grows its KV cache while it serves (issue 28, twenty-second pass).

Most serving engines allocate their whole KV cache when they start (vLLM's blocks, SGLang's token pool, TGI's
warm-up, llama.cpp's context), so an out-of-memory later is something else. LMDeploy's TurboMind engine does not by
default: it allocates k/v blocks ``cache_chunk_size`` at a time as sequences arrive, up to ``cache_max_entry_count``
(in 0.0.x a number of sequences, 48 by default; from 0.1 a share of the GPU's memory, from 0.2.1 a share of the memory
left free after the weights; ``-1`` as the chunk size allocates all of it at start; lmdeploy
``docs/en/inference/turbomind_config.md``, https://github.com/InternLM/lmdeploy). Memory that grows while it serves
until an out-of-memory is that cache reaching a maximum that does not fit beside the weights (InternLM/lmdeploy#684:
Llama-2-70B at tp=4 on four 40 GB A100s, the maintainers: 48 cached sequences need about 60 GB of fp16 KV cache on
top of 140 GB of weights). Read when the text names LMDeploy or TurboMind, an out-of-memory, and growth over the run
(or the setting itself): 0.7, above a figureless shortage (0.5) and a leak read from growth words (0.65).
"""

from __future__ import annotations

import re

from gpudesk.oom.cause import Cause
from gpudesk.oom.parsers import generic
from gpudesk.oom.rules import budget_words
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.i18n import _

_TURBOMIND = re.compile(r"\blmdeploy|\bturbomind\b", re.IGNORECASE)
_SETTING = re.compile(r"\bcache_max_entry_count\b|\bcache_chunk_size\b", re.IGNORECASE)
# Growth in Chinese: memory that keeps (一直/持续/不断/逐渐/慢慢/缓慢) rising (增长/增加/上涨/上升/变大).
_ZH_GROWTH = re.compile(r"(?:显存|内存|memory|vram)[^\n。；]{0,10}?(?:一直|持续|不断|逐渐|慢慢|缓慢)[^\n。；]{0,6}?"
                        r"(?:增长|增加|上涨|上升|变大)", re.IGNORECASE)


def check(f: Facts) -> Cause | None:
    text = f.report.text or ""
    if _TURBOMIND.search(text) is None or budget_words.OOM_SAID.search(text) is None:
        return None
    said = _SETTING.search(text) or _ZH_GROWTH.search(text) or generic.MEMORY_GROWTH.search(text)
    if said is None:
        return None
    return Cause(
        id="kv_cache_budget",
        title=_("TurboMind's KV cache grows to a maximum that does not fit"),
        confidence=0.7,
        evidence=evidence(engine="lmdeploy", described_as=said.group(0)),
        explanation=_("LMDeploy's TurboMind engine allocates its k/v cache in chunks as sequences arrive, up to "
                      "cache_max_entry_count; memory that grows while it serves is that cache filling, and the "
                      "out-of-memory comes when its maximum does not fit beside the weights."),
        fix=_("Lower cache_max_entry_count (a share of the free memory from LMDeploy 0.2.1, of the whole GPU in "
              "0.1-0.2, a number of sequences in 0.0.x) and max_batch_size to match; set cache_chunk_size=-1 to "
              "allocate the whole cache at start, so that a budget that does not fit fails at once"),
        more_fixes=[_("Quantise the KV cache (quant_policy=8 or 4) or add GPUs (tp) to hold more sequences.")],
    )
