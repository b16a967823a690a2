"""llama.cpp / Ollama (ggml) buffer allocation failures (``ggml/src/ggml-cuda/ggml-cuda.cu``,
``ggml/src/ggml-alloc.c``, https://github.com/ggml-org/llama.cpp):

* ``ggml_backend_cuda_buffer_type_alloc_buffer: allocating 144817.04 MiB on device 0: cudaMalloc failed: out of memory``
* ``alloc_tensor_range: failed to allocate CUDA0 buffer of size N`` (model weights: ``load_tensors``),
  ``ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size N`` (compute buffer: scales with
  ``--ubatch-size`` and ``--ctx-size``), ``llama_kv_cache_init`` (the KV cache: scales with ``--ctx-size``);
* Ollama: ``llama runner process has terminated: cudaMalloc failed: out of memory``;
* a failure during model loading (``llama_model_load: error loading model: unable to allocate CUDA0 buffer``) is the
  weights' buffer, whatever line names the size.

ROCm builds print ``ROCm0`` buffers from the same CUDA-named function (hipMalloc under the hood).
"""

from __future__ import annotations

import re

from gpudesk.oom.parsers.units import to_bytes
from gpudesk.oom.report import MemoryReport
from gpudesk.i18n import N_

_ALLOC = re.compile(r"allocating\s+(\d{1,12}(?:\.\d{1,4})?)\s*MiB on device\s+(\d{1,4}):\s*(?:cuda|hip)Malloc failed:\s*out of memory")
_FAILED = re.compile(r"(alloc_tensor_range|ggml_gallocr_reserve_n\w*|llama_kv_cache_init|ggml_backend_alloc_ctx_tensors\w*)"
                     r":\s*failed to allocate\s+(CUDA|ROCm|Vulkan|Metal|SYCL)(\d{1,4})\s+buffer(?: of size (\d{1,15}))?")
_GENERIC = re.compile(r"(?:cudaMalloc|hipMalloc) failed:\s*out of memory")
_OLLAMA = re.compile(r"llama runner process has terminated")
_KV = re.compile(r"KV self size\s*=\s*(\d{1,9}(?:\.\d{1,4})?)\s*MiB")
_MODEL_BUF = re.compile(r"(CUDA|ROCm)(\d{1,4}) model buffer size\s*=\s*(\d{1,9}(?:\.\d{1,4})?)\s*MiB")
_OFFLOADED = re.compile(r"offloaded\s+(\d{1,5})/(\d{1,5})\s+layers to GPU")
_FREE = re.compile(r"using device (?:CUDA|ROCm)(\d{1,4})\s*\([^)\n]{0,120}\)[^\n]{0,40}?-\s*(\d{1,9})\s*MiB free")
# Words of the model-loading step (llama.cpp's llama_model_load / load_tensors, src/llama-model-loader.cpp, and its
# "error loading model: unable to allocate CUDA0 buffer"): a buffer that failed there holds the weights.
_MODEL_LOADING = ("load_tensors", "model buffer", "llama_model_load", "error loading model")
_CTX = re.compile(r"(?:n_ctx|n_ctx_slot)\s*=\s*(\d{1,9})")


def matches(text: str) -> bool:
    return bool(_ALLOC.search(text) or _FAILED.search(text) or (_GENERIC.search(text) and _OLLAMA.search(text)))


def parse(text: str, report: MemoryReport) -> bool:
    if not matches(text):
        return False
    report.framework = "ggml"
    report.engine = "ollama" if _OLLAMA.search(text) or "ollama" in text.lower() else "llamacpp"
    report.kind = "ggml_alloc_failed"
    parsed = report.parsed
    alloc, failed = _ALLOC.search(text), _FAILED.search(text)
    index: int | None = None
    if alloc:
        report.requested_bytes = to_bytes(alloc.group(1), "MiB")
        index = int(alloc.group(2))
    if failed:
        where = failed.group(1).lower()
        parsed["ggml_buffer"] = ("model" if where.startswith(("alloc_tensor_range", "ggml_backend_alloc_ctx"))
                                 else "kv_cache" if where.startswith("llama_kv") else "compute")
        if failed.group(2).lower() == "rocm":
            report.platform = "rocm"
        index = int(failed.group(3)) if index is None else index
        if failed.group(4):
            exact = int(failed.group(4))
            # The byte count of the next line is exact; the MiB figure is rounded to 0.01 MiB. Same allocation
            # when they agree to that rounding: keep the exact one.
            if report.requested_bytes is None or abs(exact - report.requested_bytes) <= 0.01 * 2**20:
                report.requested_bytes = exact
    elif any(marker in text for marker in _MODEL_LOADING):
        parsed["ggml_buffer"] = "model"
    if report.requested_bytes is not None:
        parsed["requested_bytes"] = report.requested_bytes
    report.device_index = index
    dev = report.ensure_device(index)
    if index is not None:
        parsed["device_index"] = index
    for m in _FREE.finditer(text):
        if index is not None and int(m.group(1)) == index:
            dev.free_bytes = to_bytes(m.group(2), "MiB")
            parsed["free_bytes"] = dev.free_bytes
    kv = _KV.search(text)
    if kv:
        parsed["kv_cache_bytes"] = to_bytes(kv.group(1), "MiB")
    for m in _MODEL_BUF.finditer(text):
        if index is not None and int(m.group(2)) == index:
            parsed["model_buffer_bytes"] = to_bytes(m.group(3), "MiB")
    off = _OFFLOADED.search(text)
    if off:
        parsed["offloaded_layers"] = int(off.group(1))
        parsed["total_layers"] = int(off.group(2))
    ctx = _CTX.search(text)
    if ctx:
        parsed["n_ctx_tokens"] = int(ctx.group(1))
    if dev.free_bytes is None:
        report.missing.append(N_("free memory on the device (llama.cpp prints it at start: 'using device CUDA0 ... MiB free')"))
    return True
