"""llama.cpp's KV cache refused on the GPU at context creation: the context size sets that buffer (``kv_cache_budget``).

When llama.cpp creates a context it allocates the whole key/value cache at once, one backend buffer per device, for
``n_ctx`` cells of every offloaded layer: bytes = 2 × n_layer × n_ctx × n_embd_kv × bytes per element (the KV type,
f16 unless ``-ctk``/``-ctv`` say otherwise), times the parallel sequences that do not share it. A refusal of that
buffer is logged by the cache's own constructor, "llama_kv_cache_init: failed to allocate buffer for kv cache" (later
builds: "failed to allocate buffer for kv cache" from ``llama_kv_cache``), then "llama_kv_cache_init() failed for
self-attention cache" (src/llama-kv-cache.cpp and the older llama.cpp, https://github.com/ggml-org/llama.cpp). The
weights were already placed when this buffer is asked for, so what does not fit is the cache that the configured
context (``-c`` / ``--ctx-size``, Ollama's ``num_ctx``, an app's context length, often the model's trained maximum
of 32k-128k tokens by default) asks for beside them: the engine's KV budget, fixed by the context setting (janhq/jan#3796:
ctx_len 128000 failed on two 12 GB cards beside 8 GB of weights, and the retry at 4096 loaded).

Only a device buffer is read here: a KV cache refused in host RAM (``ggml_backend_cpu_buffer_type_alloc_buffer``) is
the host's memory (:mod:`gpudesk.oom.signatures`, ``host_ram``). 0.75: above a plain shortage (0.5), whose reading
(a model too large for the card) the weights already placed before this buffer rule out.
"""

from __future__ import annotations

import re

from gpudesk.i18n import _
from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, evidence

CONFIDENCE = 0.75
# The KV cache's own refusal line, in llama.cpp's older ("llama_kv_cache_init: failed to allocate buffer for kv
# cache") and later ("failed to allocate buffer for kv cache" from llama_kv_cache's constructor) wordings.
_KV_REFUSED = re.compile(r"failed to allocate buffer for kv cache|llama_kv_cache_init\(\) failed", re.IGNORECASE)
# The same buffer refused in host RAM: ggml's CPU buffer type failing (then the host's memory is what ran out).
_CPU_BUFFER_FAILED = re.compile(r"ggml_backend_cpu_buffer_type_alloc_buffer:\s{0,3}failed", re.IGNORECASE)
# A GPU backend's refusal in the same text (CUDA/HIP/SYCL malloc, Vulkan, Metal, or ggml's device buffer type).
_DEVICE_REFUSAL = re.compile(r"\b(?:cuda|hip|sycl)Malloc\w{0,10} failed|\bCUDA error\b|\bROCm error\b|"
                             r"ErrorOutOfDeviceMemory|VK_ERROR_OUT_OF_DEVICE_MEMORY|\bMetal\b|"
                             r"ggml_backend_(?:cuda|vk|vulkan|metal|sycl|rocm|hip)\w{0,30}alloc_buffer",
                             re.IGNORECASE)
# The context size llama.cpp prints before the cache ("llama_new_context_with_model: n_ctx = 131072", "n_ctx_per_seq").
_N_CTX = re.compile(r"\bn_ctx\s{0,8}=\s{0,4}(\d{2,8})\b")


def device_kv_refused(text: str) -> bool:
    """The text shows llama.cpp's KV cache refused on a GPU backend, not in host RAM (module docstring)."""
    return bool(_KV_REFUSED.search(text) and _DEVICE_REFUSAL.search(text) and not _CPU_BUFFER_FAILED.search(text))


def check(f: Facts) -> Cause | None:
    text = f.report.text or ""
    if not device_kv_refused(text):
        return None
    n_ctx = _N_CTX.findall(text)
    context_tokens = int(n_ctx[-1]) if n_ctx else None
    explanation = _("The buffer the GPU refused is llama.cpp's KV cache, which it allocates whole when the context "
                    "is created, after the weights were placed: 2 × layers × context length × KV width × bytes per "
                    "element. Its size is set by the context length (and the parallel slots), not by the prompt, so "
                    "a context larger than the room left beside the weights fails at load even for short chats.")
    if context_tokens is not None:
        explanation += " " + _("The log shows a context of {tokens} tokens.").format(tokens=context_tokens)
    return Cause(
        id="kv_cache_budget",
        title=_("llama.cpp's KV cache for the configured context does not fit beside the weights"),
        confidence=CONFIDENCE,
        evidence=evidence(requested_bytes=f.requested, context_tokens=context_tokens),
        explanation=explanation,
        fix=_("Lower the context size (llama.cpp -c / --ctx-size, Ollama num_ctx, the app's context length): the KV "
              "cache shrinks in proportion. Or store the cache quantised (-ctk q8_0 -ctv q8_0, with flash attention), "
              "use fewer parallel slots (-np), or offload fewer layers (-ngl) so part of the cache stays in host RAM"),
        checks=[_("Read the 'KV buffer size' / 'KV self size' lines of a load that works (a smaller -c): the cache "
                  "grows linearly with the context, so they show which context fits beside the weights.")],
    )
