"""vLLM start-up KV-cache errors and log lines (oom.md §1.2, §3.1; vllm#2418).

* old: ``The model's max seq len (4096) is larger than the maximum number of tokens that can be stored in KV
  cache (3664). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` ...``
* newer: ``To serve at least one request with the models's max seq len (32768), (4.00 GiB KV cache is
  needed, which is larger than the available KV cache memory (2.50 GiB). Based on the available memory, the
  estimated maximum model length is 20480.``
* ``No available memory for the cache blocks.``
* log lines ``# GPU blocks: 229`` (× block size 16 = tokens), ``GPU KV cache size: 123,456 tokens``,
  ``gpu_memory_utilization=0.9``.
"""

from __future__ import annotations

import re

from gpudesk.oom.parsers.units import SIZE, to_bytes
from gpudesk.oom.report import MemoryReport

_OLD = re.compile(r"max seq len \((\d{1,12})\) is larger than the maximum number of tokens that can be stored in KV\s*cache \((\d{1,12})\)", re.I)
_NEW = re.compile(r"max seq len \((\d{1,12})\),?\s*\(?" + SIZE + r" KV cache is needed, which is larger than the available KV cache memory \(" + SIZE + r"\)", re.I)
_EST = re.compile(r"estimated maximum model length is (\d{1,12})", re.I)
_NO_MEM = re.compile(r"No available memory for the cache blocks", re.I)
_BLOCKS = re.compile(r"# GPU blocks:\s*(\d{1,12})")
_KV_TOKENS = re.compile(r"GPU KV cache size:\s*([\d,]+)\s*tokens", re.I)
_UTIL = re.compile(r"gpu_memory_utilization\s*[=:]\s*(0?\.\d+|1(?:\.0+)?)")
_BLOCK_SIZE = re.compile(r"block_size\s*[=:]\s*(\d{1,12})")


def matches(text: str) -> bool:
    return bool(_OLD.search(text) or _NEW.search(text) or _NO_MEM.search(text))


def parse(text: str, report: MemoryReport) -> bool:
    if not matches(text):
        return False
    flat = re.sub(r"\s+", " ", text)
    report.framework = "vllm"
    report.kind = "vllm_kv_cache"
    parsed = report.parsed
    old, new = _OLD.search(flat), _NEW.search(flat)
    if old:
        report.max_model_len_tokens = int(old.group(1))
        report.kv_cache_tokens = int(old.group(2))
    if new:
        report.max_model_len_tokens = int(new.group(1))
        parsed["kv_cache_needed_bytes"] = to_bytes(new.group(2), new.group(3))
        parsed["kv_cache_available_bytes"] = to_bytes(new.group(4), new.group(5))
    est = _EST.search(flat)
    if est:
        parsed["estimated_max_model_len_tokens"] = int(est.group(1))
        report.kv_cache_tokens = report.kv_cache_tokens or int(est.group(1))
    if _NO_MEM.search(flat):
        parsed["kv_cache_blocks"] = 0
        report.kv_cache_tokens = 0
    blocks = _BLOCKS.search(text)
    block_size = _BLOCK_SIZE.search(text)
    if blocks:
        parsed["kv_cache_blocks"] = int(blocks.group(1))
        size = int(block_size.group(1)) if block_size else 16
        parsed["kv_block_size_tokens"] = size
        if report.kv_cache_tokens is None:
            report.kv_cache_tokens = int(blocks.group(1)) * size
    kv_tokens = _KV_TOKENS.search(text)
    if kv_tokens and report.kv_cache_tokens is None:
        report.kv_cache_tokens = int(kv_tokens.group(1).replace(",", ""))
    util = _UTIL.search(text)
    if util:
        parsed["gpu_memory_utilization_ratio"] = float(util.group(1))
    if report.max_model_len_tokens is not None:
        parsed["max_model_len_tokens"] = report.max_model_len_tokens
    else:
        report.missing.append("max_model_len")
    if report.kv_cache_tokens is not None:
        parsed["kv_cache_tokens"] = report.kv_cache_tokens
    else:
        report.missing.append("KV cache capacity (tokens)")
    return True
