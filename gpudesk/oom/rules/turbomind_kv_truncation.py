"""LMDeploy TurboMind's KV cache holds fewer tokens than the session length (``kv_cache_budget``).

TurboMind sizes its KV cache once at start as blocks from ``cache_max_entry_count`` (the share of the GPU memory
free after the weights, default 0.8; of the total, 0.5, in v0.2.0-v0.2.1: ``lmdeploy/messages.py``); when those blocks hold fewer tokens than ``session_len``
it cuts the session length and warns "`session_len` truncated to N due to limited KV cache memory"
(``src/turbomind/engine/engine.cc``, max cached tokens = block count × block length, InternLM/lmdeploy commit
d19d92d9 and later). Requests longer than the cut length then end with status 6, ``Request::kTooLong`` ("history +
prompt > session_len", ``src/turbomind/engine/request.h``): its start-up warm-up logs "Warm-up for N tokens failed
with status 6" (``src/turbomind/turbomind.cc``). No CUDA allocation failed: the pool left beside the weights is
the limit. 0.8: the engine names its KV memory as the reason.
"""

from __future__ import annotations

import re

from gpudesk.i18n import _
from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, evidence

CONFIDENCE = 0.8
_TRUNCATED = re.compile(r"session_len`?\s{0,3}truncated to\s{1,3}(\d{1,9})\s{1,3}due to limited kv cache memory",
                        re.IGNORECASE)
_TOO_LONG_WARMUP = re.compile(r"warm-up for\s{1,3}(\d{1,9})\s{1,3}tokens failed with status 6\b", re.IGNORECASE)


def check(f: Facts) -> Cause | None:
    text = f.report.text or ""
    found = _TRUNCATED.search(text)
    if found is None:
        return None
    tokens = int(found.group(1))
    refused = sorted({int(n) for n in _TOO_LONG_WARMUP.findall(text)})
    more = ""
    if refused:
        more = " " + _("The warm-up requests of {lengths} tokens were longer than that and ended as too long "
                       "(status 6).").format(lengths=", ".join(str(n) for n in refused))
    return Cause(
        id="kv_cache_budget",
        title=_("LMDeploy's KV cache holds fewer tokens than the session length"),
        confidence=CONFIDENCE,
        evidence=evidence(kv_cache_tokens=tokens, refused_request_tokens=max(refused) if refused else None),
        explanation=_("This is TurboMind's KV-cache budget, not a failed CUDA allocation: the cache blocks it sized "
                      "at start from cache_max_entry_count hold only {tokens} tokens beside the weights, so it cut "
                      "session_len to {tokens}.").format(tokens=tokens) + more,
        fix=_("Give the KV cache more room: raise cache_max_entry_count (TurbomindEngineConfig, "
              "--cache-max-entry-count) if the GPU has memory left, quantise the KV cache (quant_policy=8 or 4), "
              "or use more GPUs (tp); otherwise set session_len to what the cache holds"),
        checks=[_("Read TurboMind's start-up log: the block count and block length it prints give the tokens the "
                  "cache holds; nvidia-smi shows what the weights left free.")],
    )
