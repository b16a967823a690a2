"""TensorRT-LLM memory failures.

* Executor creation (PyTorch backend): ``Executor creation failed due to insufficient GPU memory.`` with the
  component that could not be created, the total and free memory, and each earlier component's free memory
  before / after it was created (GiB).
* Runtime buffers: ``CUDA runtime error in ::cudaMallocAsync(ptr, n, ...): out of memory (.../tllmBuffers.h)``.
* Engine build (TensorRT): ``Requested amount of GPU memory (N bytes) could not be allocated``.
* KV cache smaller than one sequence: the KV cache manager's start-up check ``maxTokensInPagedKvCache (N) must be
  large enough to process at least 1 sequence to completion (i.e. must be larger than beam_width (B) *
  tokensPerBlock (T) * maxBlocksPerSeq (M))`` (``cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp``, the
  KVCacheManager constructor's TLLM_CHECK_WITH_INFO, https://github.com/NVIDIA/TensorRT-LLM; releases before 0.8
  print it without the figures), with the pool's size from the INFO lines before it ("Allocate N bytes for k/v
  cache", "Using N [total] tokens in paged KV cache[, and M blocks per sequence]"). The pool holds N tokens; one
  sequence at the engine's maximum length needs B × T × M.

* KV blocks run out while requests are served (fifty-eighth pass): the block manager's assertion "Can't allocate new
  blocks. No free blocks left." (``BlockManager::allocateBlock`` in the same kvCacheManager.cpp, as the assertion's own
  file and frame in the message name them; NVIDIA/TensorRT-LLM#694): the paged pool has no block left for a sequence
  the batch manager scheduled. The pool's size is the KV budget (the fraction, or max_tokens_in_paged_kv_cache) left
  after the engine's activation buffers, which the build's max_batch_size / max_num_tokens size.

The KV cache takes ``free_gpu_memory_fraction`` (``kv_cache_free_gpu_mem_fraction``, default 0.9) of the
memory free after the model and the other components (https://nvidia.github.io/TensorRT-LLM/features/kvcache.html).
"""

from __future__ import annotations

import re

from gpudesk.oom.parsers.units import to_bytes
from gpudesk.oom.report import MemoryReport
from gpudesk.i18n import N_

_EXEC = re.compile(r"Executor creation failed due to insufficient GPU memory")
_COMPONENT = re.compile(r"The following component could not be created:\s*([^\n]{1,80})")
_TOTAL = re.compile(r"Total GPU memory \(GiB\):\s*(\d{1,7}(?:\.\d{1,4})?)")
_FREE = re.compile(r"Free GPU memory before component creation attempt \(GiB\):\s*(\d{1,7}(?:\.\d{1,4})?)")
_STEP = re.compile(r"^[ \t]*([\w ()\-,.]{1,80}?):\s*(\d{1,7}(?:\.\d{1,4})?)\s*/\s*(\d{1,7}(?:\.\d{1,4})?)\s*$", re.MULTILINE)
_RUNTIME = re.compile(r"CUDA runtime error in\s+::?(cudaMalloc\w*)\([^\n]{0,160}?\):\s*out of memory")
_BUILD = re.compile(r"Requested amount of GPU memory \((\d{1,15}) bytes\) could not be allocated")
# (Words may be split by a terminal's line breaks: any whitespace between them.)
_KV_TOO_SMALL = re.compile(
    r"maxTokensInPagedKvCache\s{0,3}(?:\((\d{1,12})\)\s{0,3})?must\s{1,3}be\s{1,3}large\s{1,3}enough\s{1,3}to\s{1,3}"
    r"process\s{1,3}at\s{1,3}least\s{1,3}1\s{1,3}sequence"
    r"(?:.{0,120}?beam_width\s{0,3}\((\d{1,6})\)\s{0,3}\*\s{0,3}tokensPerBlock\s{0,3}\((\d{1,6})\)\s{0,3}\*\s{0,3}"
    r"maxBlocksPerSeq\s{0,3}\((\d{1,9})\))?", re.DOTALL)
_BLOCKS_EXHAUSTED = re.compile(r"Can't\s{1,3}allocate\s{1,3}new\s{1,3}blocks\.?\s{1,3}No\s{1,3}free\s{1,3}blocks\s{1,3}left")
_POOL_TOKENS = re.compile(r"Using (\d{1,12}) (?:total )?tokens in paged KV cache(?:, and (\d{1,9}) blocks per sequence)?")
_POOL_BYTES = re.compile(r"Allocate (\d{1,15}) bytes for k/v cache")
_FRACTION = re.compile(r"(?:kv_cache_free_gpu_mem_fraction|free_gpu_memory_fraction)\D{0,40}?(0?\.\d{1,4})")


def matches(text: str) -> bool:
    return bool(_EXEC.search(text) or _RUNTIME.search(text) or _BUILD.search(text) or _KV_TOO_SMALL.search(text)
                or _BLOCKS_EXHAUSTED.search(text))


def parse(text: str, report: MemoryReport) -> bool:
    if not matches(text):
        return False
    # TensorRT-LLM's C++ runtime prints these; PyTorch only where the text itself shows it (the PyTorch backend's
    # traceback), by the detection every parser falls back on.
    from gpudesk.oom.parsers.detect import detect_framework  # detect imports this module

    report.framework = detect_framework(text)
    report.engine = "trtllm"
    parsed = report.parsed
    frac = _FRACTION.search(text)
    if frac:
        parsed["kv_cache_free_gpu_mem_fraction_ratio"] = float(frac.group(1))
    pool_bytes = _POOL_BYTES.search(text)
    if pool_bytes:
        parsed["kv_cache_pool_bytes"] = int(pool_bytes.group(1))  # created before the failure (an INFO line)
    too_small = _KV_TOO_SMALL.search(text)
    if too_small:
        _kv_too_small(text, too_small, report)
        return True
    if _BLOCKS_EXHAUSTED.search(text):
        report.kind = "trtllm_kv_blocks_exhausted"
        pool = _POOL_TOKENS.search(text)
        if pool:
            report.kv_cache_tokens = int(pool.group(1))
        return True
    if _EXEC.search(text):
        report.kind = "trtllm_executor"
        comp = _COMPONENT.search(text)
        if comp:
            parsed["trtllm_component"] = comp.group(1).strip()
        dev = report.ensure_device(None)
        total, free = _TOTAL.search(text), _FREE.search(text)
        if total:
            dev.total_bytes = to_bytes(total.group(1), "GiB")
            parsed["total_capacity_bytes"] = dev.total_bytes
        if free:
            dev.free_bytes = to_bytes(free.group(1), "GiB")
            parsed["free_bytes"] = dev.free_bytes
        for steps, m in enumerate(_STEP.finditer(text), 1):
            before, after = to_bytes(m.group(2), "GiB"), to_bytes(m.group(3), "GiB")
            name = re.sub(r"\W+", "_", m.group(1).strip().lower()).strip("_")[:40]
            parsed[f"trtllm_{name}_used_bytes"] = before - after
            if steps >= 32:
                break
        return True
    runtime = _RUNTIME.search(text)
    if runtime:
        report.kind = "trtllm_runtime_alloc"
        parsed["cuda_call"] = runtime.group(1)
        report.missing.append(N_("memory figures (TensorRT-LLM's runtime buffer error prints none)"))
        return True
    build = _BUILD.search(text)
    if build:
        report.kind = "tensorrt_build_alloc"
        report.requested_bytes = int(build.group(1))
        parsed["requested_bytes"] = report.requested_bytes
        report.missing.append(N_("total capacity (TensorRT's builder message prints only the request)"))
    return True


def _kv_too_small(text: str, m: re.Match[str], report: MemoryReport) -> None:
    """The KV cache manager's one-sequence check (module docstring): the pool's tokens, one sequence's need."""
    report.kind = "trtllm_kv_too_small"
    parsed = report.parsed
    pool = _POOL_TOKENS.search(text)
    tokens = int(m.group(1)) if m.group(1) else (int(pool.group(1)) if pool else None)
    if tokens is not None:
        report.kv_cache_tokens = tokens
    if m.group(2):
        beam, per_block, blocks = int(m.group(2)), int(m.group(3)), int(m.group(4))
        parsed["beam_width"] = beam
        parsed["kv_block_size_tokens"] = per_block
        parsed["max_blocks_per_sequence"] = blocks
        report.max_model_len_tokens = beam * per_block * blocks
    elif pool and pool.group(2):
        parsed["max_blocks_per_sequence"] = int(pool.group(2))
    if tokens is None:
        report.missing.append(N_("the KV cache's size in tokens (TensorRT-LLM's INFO line 'Using N tokens in paged KV "
                                 "cache')"))
