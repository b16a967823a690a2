"""Text Generation Inference warm-up failures (``server/text_generation_server/models/flash_causal_lm.py``,
https://github.com/huggingface/text-generation-inference): ``Not enough memory to handle 4096 prefill tokens.
You need to decrease `--max-batch-prefill-tokens```. TGI 0.9-1.0 warmed up on the whole token budget instead:
``Not enough memory to handle 16000 total tokens with 2 prefill tokens. You need to decrease
`--max-batch-total-tokens` or `--max-batch-prefill-tokens``` (``flash_causal_lm.py`` warmup allocated the KV cache
for ``max_batch_total_tokens`` first): that one is the KV-cache budget (kind ``tgi_total_tokens``). TGI's other OOMs are PyTorch messages (parsed by the
PyTorch parsers); the engine is recognised by :func:`gpudesk.oom.parsers.detect.detect_engine`.
"""

from __future__ import annotations

import re

from gpudesk.oom.report import MemoryReport
from gpudesk.i18n import N_

_PREFILL = re.compile(r"Not enough memory to handle\s+(\d{1,9})\s+prefill tokens")
_TOTAL_WITH_PREFILL = re.compile(r"Not enough memory to handle\s+(\d{1,9})\s+total tokens with\s+(\d{1,9})\s+prefill "
                                 r"tokens")
_TOTAL = re.compile(r"max_batch_total_tokens\D{0,12}?(\d{1,9})")


def matches(text: str) -> bool:
    return bool(_PREFILL.search(text) or _TOTAL_WITH_PREFILL.search(text))


def parse(text: str, report: MemoryReport) -> bool:
    both = _TOTAL_WITH_PREFILL.search(text)
    if both is not None:
        report.framework = "pytorch"
        report.engine = "tgi"
        report.kind = "tgi_total_tokens"
        report.parsed["max_batch_total_tokens"] = int(both.group(1))
        report.parsed["max_batch_prefill_tokens"] = int(both.group(2))
        report.missing.append(N_("memory figures (TGI's warm-up message prints none)"))
        return True
    m = _PREFILL.search(text)
    if m is None:
        return False
    report.framework = "pytorch"
    report.engine = "tgi"
    report.kind = "tgi_prefill"
    report.parsed["max_batch_prefill_tokens"] = int(m.group(1))
    total = _TOTAL.search(text)
    if total:
        report.parsed["max_batch_total_tokens"] = int(total.group(1))
    report.missing.append(N_("memory figures (TGI's warm-up message prints none)"))
    return True
