"""Text Generation Inference warm-up failures (``server/text_generation_server/models/flash_causal_lm.py``,
https://github.com/huggingface/text-generation-inference): ``Not enough memory to handle 4096 prefill tokens.
You need to decrease `--max-batch-prefill-tokens```. TGI's other OOMs are PyTorch messages (parsed by the
PyTorch parsers); the engine is recognised by :func:`gpudesk.oom.parsers.detect.detect_engine`.
"""

from __future__ import annotations

import re

from gpudesk.oom.report import MemoryReport

_PREFILL = re.compile(r"Not enough memory to handle\s+(\d{1,9})\s+prefill tokens")
_TOTAL = re.compile(r"max_batch_total_tokens\D{0,12}?(\d{1,9})")


def matches(text: str) -> bool:
    return bool(_PREFILL.search(text))


def parse(text: str, report: MemoryReport) -> bool:
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
    report.missing.append("memory figures (TGI's warm-up message prints none)")
    return True
