"""TensorRT-LLM's per-iteration runtime buffers refused while it serves: the KV-cache pool's share leaves too little.

TensorRT-LLM's batch manager creates its paged KV-cache pool once, when the executor starts, from
``free_gpu_memory_fraction`` (``kv_cache_free_gpu_mem_fraction``, default 0.9) of the memory free after the weights
and the engine's activations (https://nvidia.github.io/TensorRT-LLM/reference/memory.html;
https://nvidia.github.io/TensorRT-LLM/examples/kvcacheconfig.html). The runtime buffers of each iteration are sized
afterwards, to the batch of that iteration: ``TrtGptModelInflightBatching::forwardAsync`` prepares them through
``RuntimeBuffers::reshape`` (``cpp/tensorrt_llm/batch_manager/runtimeBuffers.cpp``), which allocates through
``BufferManager::gpu`` and ``cudaMallocAsync`` (``cpp/tensorrt_llm/runtime/tllmBuffers.h``,
https://github.com/NVIDIA/TensorRT-LLM). Those buffers (the context and generation logits a request asks for, batch ×
tokens × vocabulary × 4 bytes, among them) can only come from the share the pool left, a tenth of the free memory by
default. So a runtime buffer refused inside the serving loop (the executor's "Encountered an error in forwardAsync
function", or ``RuntimeBuffers::reshape`` in the stack) is the KV pool's share leaving too little room, and the knob is
that share (NVIDIA/TensorRT-LLM#3636, "Reserve vram for context_logits instead of allocating on the fly"; #2857,
generation logits returned under load). 0.75, above the shortage read from the same error line at start-up (0.7,
``gpudesk.oom.rules.engine_budget``), where the error comes while the model instance is created (the engine's
build-time batch limits: TensorRT-LLM#260, #401) and is not read so.
"""

from __future__ import annotations

import re

from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, evidence, join_sentences
from gpudesk.i18n import _

# The serving loop's marks: the executor's error for a failed iteration (executor.cpp), the per-iteration reshape of
# the runtime buffers (a stack frame), and the in-flight batching model's forwardAsync frame.
_SERVING_LOOP = re.compile(r"Encountered an error in forwardAsync function|\bRuntimeBuffers::reshape\b|"
                           r"\bTrtGptModelInflightBatching::forwardAsync\b")
BUFFERS_AFTER_POOL_CONFIDENCE = 0.75
TRTLLM_DEFAULT_FRACTION = 0.9  # KvCacheConfig.free_gpu_memory_fraction's default


def buffers_after_pool(f: Facts) -> Cause | None:
    """A TensorRT-LLM runtime buffer refused inside the serving loop, after the KV pool was made (module docstring)."""
    r = f.report
    hit = _SERVING_LOOP.search(r.text or "")
    if r.kind != "trtllm_runtime_alloc" or hit is None:
        return None
    frac = r.parsed.get("kv_cache_free_gpu_mem_fraction_ratio")
    given = frac if isinstance(frac, float) else TRTLLM_DEFAULT_FRACTION
    return Cause(
        id="kv_cache_budget",
        title=_("TensorRT-LLM's KV cache left too little memory for the buffers of a running batch"),
        confidence=BUFFERS_AFTER_POOL_CONFIDENCE,
        evidence=evidence(trtllm_stage=hit.group(0), cuda_call=r.parsed.get("cuda_call"),
                          kv_cache_free_gpu_mem_fraction_ratio=frac),
        explanation=join_sentences([
            _("The allocation failed inside the serving loop, after start-up: TensorRT-LLM had already given its KV "
              "cache {share:.0%} of the memory that was free, and sizes the buffers of each batch (among them the "
              "context and generation logits a request asks for) only when the batch runs, from what the KV cache "
              "left.").format(share=given),
            *([] if isinstance(frac, float) else
              [_("The log does not show the fraction: TensorRT-LLM's default, 0.9, is assumed.")])]),
        fix=_("Lower the KV cache's share: KvCacheConfig.free_gpu_memory_fraction (kv_cache_free_gpu_mem_fraction) "
              "below {fraction}, e.g. {lower}, or cap it with KvCacheConfig.max_tokens").format(
                  fraction=given, lower=round(max(0.1, given - 0.1), 2)),
        more_fixes=[_("Ask for context or generation logits only when they are needed (gather_all_token_logits, "
                      "return_context_logits, return_generation_logits): they take batch × tokens × vocabulary × 4 "
                      "bytes."),
                    _("Lower max_batch_size / max_num_tokens so that each batch's buffers are smaller.")],
        checks=[_("Watch nvidia-smi while serving: memory that keeps growing under a steady load is a leak; a failure "
                  "that stops after the KV share is lowered was the budget.")],
    )
