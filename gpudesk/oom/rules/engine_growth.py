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

TurboMind's own CUDA check ("[TM][ERROR] CUDA runtime error: out of memory <file>:<line>", the check_cuda_error macro
of ``src/turbomind/utils/cuda_utils.h``; the file is TurboMind's, e.g. ``src/turbomind/utils/memory_utils.cu`` or
``src/turbomind/core/allocator.cc``) while it serves is the same budget read from the engine's side: the k/v cache
takes ``cache_max_entry_count`` (0.8 by default) of the memory free after the weights, and the runtime buffers sized
by ``max_batch_size`` and the session length must fit in the rest. LMDeploy's FAQ (``docs/en/faq.md``, "RuntimeError:
[TM][ERROR] CUDA runtime error: out of memory ...": "usually due to a disproportionately large memory ratio for the
k/v cache ... reduce cache_max_entry_count") names that reading for this very line. 0.6, above a figureless shortage
(0.45-0.5); a text that names the weights being loaded (``LlamaWeight``, "load weights") is the model's size instead.
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


# TurboMind's CUDA check with out of memory as the error (module docstring), or the OOM beside a TurboMind source file.
_TM_CUDA_OOM = re.compile(r"\[TM\]\s{0,2}\[ERROR\]\s{0,2}CUDA runtime error:\s{0,2}out of memory"
                          r"|out of memory\s{1,3}\S{0,200}?[/\\]turbomind[/\\]\S{1,200}?\.(?:cu|cc|cpp|h):\d{1,6}",
                          re.IGNORECASE)
_WEIGHTS_LOADING = re.compile(r"LlamaWeight|\bload(?:ing)?[_ ]weights?\b|\bloadModel\b", re.IGNORECASE)


def check(f: Facts) -> Cause | None:
    text = f.report.text or ""
    if _TURBOMIND.search(text) is None or budget_words.OOM_SAID.search(text) is None:
        return None
    said = _SETTING.search(text) or _ZH_GROWTH.search(text) or generic.MEMORY_GROWTH.search(text)
    if said is None:
        return _turbomind_cuda_check(f)
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


def _turbomind_cuda_check(f: Facts) -> Cause | None:
    """TurboMind's own CUDA check reporting out of memory while it serves (module docstring)."""
    r = f.report
    text = r.text or ""
    said = _TM_CUDA_OOM.search(text)
    if said is None or r.signature not in (None, "bare_cuda_error") or _WEIGHTS_LOADING.search(text) is not None:
        return None
    return Cause(
        id="kv_cache_budget",
        title=_("TurboMind's k/v cache share leaves too little for its runtime buffers"),
        confidence=0.6,
        evidence=evidence(engine="lmdeploy", setting="cache_max_entry_count", described_as=said.group(0)),
        explanation=_("LMDeploy's TurboMind engine gives its k/v cache cache_max_entry_count (0.8 by default) of the "
                      "memory left after the weights; the buffers for each batch (max_batch_size sequences of the "
                      "session length) must fit in the rest, and TurboMind's own CUDA check found none left. LMDeploy's "
                      "FAQ gives this line that reading: the k/v cache's share is too large."),
        fix=_("Lower cache_max_entry_count (TurbomindEngineConfig(cache_max_entry_count=0.5), or "
              "--cache-max-entry-count 0.5 on the command line), and max_batch_size if it still runs out"),
        more_fixes=[_("Quantise the KV cache (quant_policy=8 or 4) so the same share holds more tokens, or spread the "
                      "model over more GPUs (tp).")],
    )
