"""A serving engine's KV-cache pool failing as it is allocated at start-up (part of ``kv_cache_budget``).

Token-pool engines allocate their whole KV cache once, when the model is set up, as one tensor per layer whose first
dimension is the token budget: LightLLM's ``MemoryManager._init_buffers`` (``lightllm/common/mem_manager.py``,
https://github.com/ModelTC/lightllm: ``self.key_buffer`` / ``self.value_buffer`` / ``self.kv_buffer`` =
``[torch.empty((size, head_num, head_dim), ...) for _ in range(layer_num)]``, ``size`` being ``--max_total_token_num``
or, when that is unset, what ``--mem_fraction`` of the GPU leaves after the weights), SGLang's token-to-KV pools
(``python/sglang/srt/mem_cache/memory_pool.py``, ``self.k_buffer`` / ``self.v_buffer`` sized from
``--mem-fraction-static``), vLLM's cache engine (``vllm/worker/cache_engine.py`` ``_allocate_kv_cache``; V1
``gpu_model_runner.py`` ``initialize_kv_cache``, sized from ``--gpu-memory-utilization``). An out-of-memory raised
on that line or in those frames is the pool the engine was told to make not fitting next to the weights: the engine's
budget knob decides it, not the requests (LightLLM#13: Llama-2-13B on an 80 GB A800, fixed by a smaller
``--max_total_token_num``).
"""

from __future__ import annotations

import re

from gpudesk.i18n import _
from gpudesk.oom.cause import Cause
from gpudesk.oom.rules import vllm_kv_allocation
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.units import format_bytes

# The allocation of a per-layer K/V buffer (a source line as a traceback prints it), or the engines' pool frames.
_KV_BUFFER_LINE = re.compile(r"\b(?:key|value|kv|k|v)_(?:buffer|cache)s?\s{0,2}=\s{0,2}\[?\s{0,2}torch\.(?:empty|zeros)\(|"
                             # vLLM V0's cache engine, the allocating call as a traceback or IPython prints it
                             # (vllm/worker/cache_engine.py, _allocate_kv_cache: torch.empty(kv_cache_shape, ...)).
                             r"\btorch\.(?:empty|zeros)\(\s{0,3}kv_cache_shape\b")
# (A plain traceback prints "line N, in _allocate_kv_cache"; IPython "in CacheEngine._allocate_kv_cache(self, ...)".)
# vLLM V1's runner allocates the pool in ``_allocate_kv_cache_tensors`` (vllm/v1/worker/gpu_model_runner.py, called from
# ``initialize_kv_cache_tensors``: one ``torch.zeros(kv_cache_tensor.size, dtype=torch.int8)`` per tensor of the
# KVCacheConfig sized from --gpu-memory-utilization), and platform plugins keep the name (vllm-ascend's
# worker/model_runner_v1.py, vllm-project/vllm-ascend#6611).
_KV_POOL_FRAMES = re.compile(r"\bin (?:\w{1,60}\.)?(?:_allocate_kv_cache|allocate_kv_cache|initialize_kv_cache|"
                             r"_init_kv_cache|init_kv_cache)(?:_tensors)?\b")
# Shapes that are an allocator's own failure (the engine's shapes have their own readings in kv_cache_budget).
_ALLOCATOR_KINDS = frozenset({"pytorch_oom", "generic_oom", "cuda_error_oom"})
# The budget reading behind vLLM V0's other-holder reading (0.75).
OTHERS_FIRST_CONFIDENCE = 0.55


def kv_pool_allocation(text: str) -> bool:
    """The text's failing line or frames allocate a serving engine's KV-cache pool (module docstring)."""
    return bool(_KV_BUFFER_LINE.search(text) or _KV_POOL_FRAMES.search(text))


def _fix(engine: str | None) -> str:
    if engine == "lightllm":
        return _("Start LightLLM with a smaller --max_total_token_num (the pool holds that many tokens), or, when it "
                 "sizes the pool itself, a lower --mem_fraction")
    if engine == "vllm":
        return _("Lower --gpu-memory-utilization (or --kv-cache-memory-bytes where available): the KV cache vLLM "
                 "sized from it does not fit beside what else holds the GPU")
    if engine == "sglang":
        return _("Lower --mem-fraction-static (e.g. by 0.05): the KV pool SGLang sized from it does not fit next to "
                 "the weights")
    if engine == "tgi":
        return _("Set --max-batch-total-tokens explicitly (smaller) or lower --cuda-memory-fraction: TGI sizes its "
                 "KV cache from what is free after warm-up")
    return _("Give the engine a smaller KV pool: LightLLM --max_total_token_num or --mem_fraction, vLLM "
             "--gpu-memory-utilization, SGLang --mem-fraction-static, TGI --max-batch-total-tokens or "
             "--cuda-memory-fraction, TensorRT-LLM kv_cache_free_gpu_mem_fraction; in your own code, size the cache for "
             "a smaller maximum length × batch")


def check(f: Facts) -> Cause | None:
    r = f.report
    if r.kind not in _ALLOCATOR_KINDS or not kv_pool_allocation(r.text or ""):
        return None
    # vLLM V0's budget counts other processes' memory as its own: with no figures and a share of 0.9 or less, another
    # holder comes first (gpudesk.oom.rules.vllm_kv_allocation) and the budget second.
    others_first = vllm_kv_allocation.others_inside_budget(f)
    return Cause(
        id="kv_cache_budget",
        title=_("The serving engine's KV-cache pool does not fit next to the weights"),
        confidence=OTHERS_FIRST_CONFIDENCE if others_first else 0.87,
        evidence=evidence(requested_bytes=f.requested, free_bytes=f.free, total_capacity_bytes=f.total,
                          engine=r.engine),
        explanation=(_("The failing allocation is the KV-cache pool the engine makes once at start-up, one buffer "
                       "per layer for its whole token budget ({requested} for this one, {free} free): the budget it "
                       "was given, not the requests, is too large for what the weights leave.").format(
                           requested=format_bytes(f.requested), free=format_bytes(f.free))
                     if f.requested is not None and f.free is not None else
                     _("The failing allocation is the KV-cache pool the engine makes once at start-up, one buffer "
                       "per layer for its whole token budget: the budget it was given, not the requests, is too "
                       "large for what the weights leave.")),
        fix=_fix(r.engine),
        more_fixes=[_("Shard the model over more GPUs or quantise the weights to leave room for the pool."),
                    _("Store the KV cache in 8 bits where the engine supports it.")],
    )
