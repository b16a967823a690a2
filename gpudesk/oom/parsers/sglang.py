"""SGLang start-up memory errors and the log lines around them.

The KV pool is what is left of the static budget after the weights (``profile_max_num_token`` in
``python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py``,
https://github.com/sgl-project/sglang):

    rest_memory = available_after_load − total_before_load × (1 − mem_fraction_static)
    max_num_tokens = rest_memory / cell_size

``total_before_load`` is the free memory measured before the weights load (the "Load weight begin. avail
mem=" figure, or "avail mem" + "mem usage" of the "Load weight end" line). When the result is not positive
SGLang raises ``RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.`` (later releases:
``ValueError: Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=F``) or logs
"max_total_tokens=N is larger than the profiled value -M". SGLang prints these figures in "GB" computed as
bytes / 2**30 (``get_available_gpu_memory``), so they are read as GiB.
"""

from __future__ import annotations

import re

from gpudesk.oom.parsers.units import to_bytes
from gpudesk.oom.report import MemoryReport
from gpudesk.i18n import N_

# The same check in the wording of later releases (``_profile_available_bytes`` of the model runner's KV-cache mixin:
# rest_memory <= 0 raises ``ValueError: Loaded weights leave no GPU memory for the KV cache under
# --mem-fraction-static=F. Raise --mem-fraction-static above M (minimum viable = 1 - available/pre = ...)``,
# https://github.com/sgl-project/sglang; SemiAnalysisAI/InferenceX#2128).
_NOT_ENOUGH = re.compile(r"Not enough memory\.?\s+Please try to increase\s+--mem-fraction-static"
                         r"|Loaded weights leave no GPU memory for the KV cache\b")
_PROFILED = re.compile(r"larger than the profiled value\s+(-?\d{1,15})")
_BEGIN = re.compile(r"Load weight begin\.\s+avail mem=(\d{1,9}(?:\.\d{1,6})?)\s*GB")
_END = re.compile(r"Load weight end\..{0,200}?avail mem=(\d{1,9}(?:\.\d{1,6})?)\s*GB,\s*mem usage=(\d{1,9}(?:\.\d{1,6})?)\s*GB")
_FRACTION = re.compile(r"mem[_-]fraction[_-]static[= ]\s*(0?\.\d{1,4}|1(?:\.0{1,4})?)")
_KV_ALLOC = re.compile(r"KV Cache is allocated\.\s*#tokens:\s*(\d{1,12})")
# (Sixtieth pass) SGLang's refusal of a request longer than it accepts (``validate_input_length`` in
# python/sglang/srt/managers/utils.py, sgl-project/sglang at 005f6ca5ac2b900d5abdeab31acbb54913db8471: "Input length
# (N tokens) exceeds the maximum allowed length (M tokens). Use a shorter input or enable --allow-auto-truncate.").
# M is the worker's ``max_req_input_len`` = min(context_len − 1, KV pool tokens − 1) − 5 (the model worker's
# ``max_req_len`` and ``max_req_input_len``, python/sglang/srt/managers/tp_worker.py; the truncating branch's warning
# says the same: "longer than the KV cache pool size or the max context length"). A context length is the model's
# configured window, a multiple of 1024 tokens in every released config (2048 ... 131072, 40960, 163840); when M + 6 is
# not one, the KV pool the engine sized from memory at start-up set the limit (sglang#36583: 1735 from a pool of 1,741
# tokens). When it is one, it is the model's window, not memory, and the line is not read.
_INPUT_TOO_LONG = re.compile(r"Input length \((\d{1,9}) tokens\) exceeds the maximum allowed length \((\d{1,9}) tokens\)")
CONTEXT_STEP_TOKENS = 1024
INPUT_MARGIN_TOKENS = 6  # max_req_len = limit − 1, max_req_input_len = max_req_len − 5


def _pool_limited_input(text: str) -> re.Match[str] | None:
    m = _INPUT_TOO_LONG.search(text)
    if m is None or (int(m.group(2)) + INPUT_MARGIN_TOKENS) % CONTEXT_STEP_TOKENS == 0:
        return None
    return m


def matches(text: str) -> bool:
    if _NOT_ENOUGH.search(text) or _pool_limited_input(text):
        return True
    m = _PROFILED.search(text)
    return bool(m and int(m.group(1)) <= 0)


def parse(text: str, report: MemoryReport) -> bool:
    if not matches(text):
        return False
    report.framework = "pytorch"
    report.engine = "sglang"
    report.kind = "sglang_kv_pool"
    parsed = report.parsed
    too_long = None if _NOT_ENOUGH.search(text) else _pool_limited_input(text)
    if too_long:
        report.kind = "sglang_input_over_pool"
        parsed["refused_request_tokens"] = int(too_long.group(1))
        parsed["sglang_max_input_tokens"] = int(too_long.group(2))
        report.kv_cache_tokens = int(too_long.group(2)) + INPUT_MARGIN_TOKENS
        parsed["kv_cache_tokens"] = report.kv_cache_tokens
        return True
    prof = _PROFILED.search(text)
    if prof:
        parsed["sglang_profiled_max_tokens"] = int(prof.group(1))
    end = _END.search(text)
    begin = _BEGIN.search(text)
    if end:
        avail = to_bytes(end.group(1), "GiB")
        usage = to_bytes(end.group(2), "GiB")
        parsed["sglang_avail_after_load_bytes"] = avail
        parsed["sglang_weights_bytes"] = usage
        parsed["sglang_total_before_load_bytes"] = to_bytes(begin.group(1), "GiB") if begin else avail + usage
    frac = _FRACTION.search(text)
    if frac:
        parsed["mem_fraction_static_ratio"] = float(frac.group(1))
    kv = _KV_ALLOC.search(text)
    if kv:
        report.kv_cache_tokens = int(kv.group(1))
        parsed["kv_cache_tokens"] = report.kv_cache_tokens
    if not end:
        report.missing.append(N_("the 'Load weight end. ... avail mem=..., mem usage=...' log line"))
    return True
