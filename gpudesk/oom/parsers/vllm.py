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
from gpudesk.i18n import N_

_OLD = re.compile(r"max seq len \((\d{1,12})\) is larger than the maximum number of tokens that can be stored in KV\s*cache \((\d{1,12})\)")
# "cach e": terminals wrap the V1 message mid-word (intel-arc-pro-b70-inference-cookbook#4).
_NEW = re.compile(r"max seq len \((\d{1,12})\),?\s*\(?" + SIZE + r" KV cach\s?e is needed, which is larger than the "
                  r"available KV cach\s?e memory \(" + SIZE + r"\)")
# (Sixtieth pass) The same check quoted from its middle on ("exceeds available Mamba cache blocks (95)... CUDA graph
# capture cannot proceed", home-ops#13226): the block count alone names it; max_num_seqs is then not read.
_MAMBA = re.compile(r"(?:max_num_seqs \((\d{1,12})\) )?exceeds available Mamba cache blocks \((\d{1,12})\)")
# (Sixtieth pass) The V1 check's sentence cut before the available figure ("To serve at least one request with the
# model's max seq len (1048576),⏎  23.32 GiB KV cache is needed, which is larger", vllm#53961). vLLM raises it only
# when the needed memory exceeds the available (vllm/v1/core/kv_cache_utils.py, check_enough_kv_cache_memory, "if
# needed_memory > available_memory: raise ValueError(f"To serve at least one request with the models's max seq len
# ..."); ROCm/vllm at f8c9a385233a8e1f724411785a1c326006640df5, upstream later spells it "model's"), so its opening
# and the needed figure are the engine's KV-cache budget refusing one max-length request.
_NEW_CUT = re.compile(r"To serve at least one request with the models?'s?'? max seq len \((\d{1,12})\),?\s*\(?"
                      + SIZE + r" KV cach\s?e is needed")
# The V0 worker's profiling lines (vllm/worker/worker.py determine_num_available_blocks, 0.6-0.8), one-line
# and tabular forms, and the V1 worker's (vllm/v1/worker/gpu_worker.py).
_PROF_TOTAL = re.compile(r"total_gpu_memory\s*[=(]?\s*" + SIZE)
_PROF_UTIL = re.compile(r"gpu_memory_utilization\s*\(?\s*(0?\.\d{1,4}|1(?:\.0{1,4})?)\b")
_PROF_WEIGHTS = re.compile(r"(?:model weights take|Model loading took|Loading model weights took)\s+" + SIZE)
_PROF_NON_TORCH = re.compile(r"non_torch_memory(?:\s+takes)?\s+" + SIZE)
# The V0 worker's "initial_memory_usage=N GiB" (0.6.4-0.8, vllm/worker/worker.py determine_num_available_blocks:
# total_gpu_memory - free_memory_pre_profile, measured after the weights loaded and before the profiling run): the
# device's memory in use before profiling, this instance's weights and CUDA context plus whatever other processes
# hold.
_PROF_INITIAL = re.compile(r"initial_memory_usage\s*=?\s*" + SIZE)
_PROF_ACT = re.compile(r"activation peak memory(?:\s+takes)?\s+" + SIZE)
_PROF_KV = re.compile(r"(?:reserved for KV Cache is|available_kv_cache_memory|Available KV cache memory:)\s*(-?)\s*" + SIZE)
_PROFILE_WORDS = re.compile(r"memory|took|weights|max_num_seqs|max-num-seqs|utilization")
_MAX_NUM_SEQS = re.compile(r"max[_-]num[_-]seqs[= ]\s*(\d{1,7})\b")
_EST = re.compile(r"estimated maximum model length is (\d{1,12})")
_NO_MEM = re.compile(r"No available memory for the cache blocks")
_BLOCKS = re.compile(r"# GPU blocks:\s*(\d{1,12})")
_KV_TOKENS = re.compile(r"GPU KV cache size:\s*([\d,]+)\s*tokens")
_UTIL = re.compile(r"gpu_memory_utilization\s*[=:]\s*(0?\.\d+|1(?:\.0+)?)")
_BLOCK_SIZE = re.compile(r"block_size\s*[=:]\s*(\d{1,12})")


# The worker's own figure below zero: "Available KV cache memory: -0.87 GiB" (vllm/v1/worker/gpu_worker.py
# determine_available_memory logs requested memory − non-KV memory, https://github.com/vllm-project/vllm; platform
# plug-ins such as vllm-ascend's NPU worker log the same line): the weights, activations and non-torch memory already
# exceed gpu_memory_utilization × total, so no KV block fits (the engine then stops with "No available memory for the
# cache blocks", or the paste ends here).
# (The V0 worker, vllm/worker/worker.py, words the same figure "the rest of the memory reserved for KV Cache is -N GiB".)
_NEGATIVE_KV = re.compile(r"(?:Available KV cache memory:|reserved for KV Cache is)\s{0,3}-\s{0,2}\d")


def matches(text: str) -> bool:
    return bool(_OLD.search(text) or _NEW.search(text) or _NEW_CUT.search(text) or _NO_MEM.search(text) or _MAMBA.search(text)
                or _NEGATIVE_KV.search(text))


def parse(text: str, report: MemoryReport) -> bool:
    if not matches(text):
        return False
    flat = re.sub(r"\s+", " ", text)
    report.framework = "vllm"
    report.engine = "vllm"
    report.kind = "vllm_kv_cache"
    parsed = report.parsed
    # The profiling figures sit on lines that name memory or the engine's knobs: search only those lines.
    _profile(" ".join(line for line in text.splitlines() if _PROFILE_WORDS.search(line)), report)
    mamba = _MAMBA.search(flat)
    if mamba:
        report.kind = "vllm_mamba_cache"
        if mamba.group(1):
            parsed["max_num_seqs"] = int(mamba.group(1))
        parsed["mamba_cache_blocks"] = int(mamba.group(2))
        return True
    old, new = _OLD.search(flat), _NEW.search(flat)
    if old:
        report.max_model_len_tokens = int(old.group(1))
        report.kv_cache_tokens = int(old.group(2))
    if new:
        report.max_model_len_tokens = int(new.group(1))
        parsed["kv_cache_needed_bytes"] = to_bytes(new.group(2), new.group(3))
        parsed["kv_cache_available_bytes"] = to_bytes(new.group(4), new.group(5))
    cut = None if new else _NEW_CUT.search(flat)
    if cut:
        report.max_model_len_tokens = int(cut.group(1))
        parsed["kv_cache_needed_bytes"] = to_bytes(cut.group(2), cut.group(3))
    est = _EST.search(flat)
    if est:
        parsed["estimated_max_model_len_tokens"] = int(est.group(1))
        report.kv_cache_tokens = report.kv_cache_tokens or int(est.group(1))
    if _NO_MEM.search(flat) or _NEGATIVE_KV.search(flat):
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
        report.missing.append(N_("max_model_len"))
    if report.kv_cache_tokens is not None:
        parsed["kv_cache_tokens"] = report.kv_cache_tokens
    else:
        report.missing.append(N_("KV cache capacity (tokens)"))
    return True


def _profile(flat: str, report: MemoryReport) -> None:
    """The memory budget vLLM printed while profiling: total × gpu_memory_utilization = weights + non-torch
    + activation peak + KV cache (the KV figure may be negative)."""
    parsed = report.parsed
    for key, pattern in (("vllm_total_gpu_memory_bytes", _PROF_TOTAL), ("vllm_weights_bytes", _PROF_WEIGHTS),
                         ("vllm_non_torch_bytes", _PROF_NON_TORCH), ("vllm_activation_peak_bytes", _PROF_ACT),
                         ("vllm_initial_usage_bytes", _PROF_INITIAL)):
        m = pattern.search(flat)
        if m:
            parsed[key] = to_bytes(m.group(1), m.group(2))
    kv = _PROF_KV.search(flat)
    if kv:
        value = to_bytes(kv.group(2), kv.group(3))
        parsed["vllm_kv_cache_memory_bytes"] = -value if kv.group(1) else value
    util = _PROF_UTIL.search(flat)
    if util and "gpu_memory_utilization_ratio" not in parsed:
        parsed["gpu_memory_utilization_ratio"] = float(util.group(1))
    flag = re.search(r"--gpu[-_]memory[-_]utilization[= ]\s*(0?\.\d{1,4}|1(?:\.0{1,4})?)\b", flat)
    if flag and "gpu_memory_utilization_ratio" not in parsed:
        parsed["gpu_memory_utilization_ratio"] = float(flag.group(1))
    seqs = _MAX_NUM_SEQS.search(flat)
    if seqs:
        parsed["max_num_seqs"] = int(seqs.group(1))
    total = parsed.get("vllm_total_gpu_memory_bytes")
    if isinstance(total, int):
        report.ensure_device(None).total_bytes = total
