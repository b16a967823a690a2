"""Each engine's memory terms in its own words: the rows a fit is shown with (CLI table, "Will it fit?" page).

The per-GPU figures share one shape (:class:`~gpudesk.sizing.engines.common.GpuMemory`), but each engine names and
bounds its parts differently: vLLM profiles an activation peak and non-torch memory inside
``gpu_memory_utilization`` and captures CUDA graphs after the KV cache (``vllm/v1/worker/gpu_worker.py``);
SGLang leaves ``1 - mem_fraction_static`` of the GPU for activations and CUDA graphs and counts what was in use
before the weights (``python/sglang/srt/model_executor/model_runner.py``); TensorRT-LLM sizes its KV cache from the
memory free after the engine and runtime buffers (``kvCacheManager.cpp``); llama.cpp prints a model, KV and compute
buffer per device (``src/llama-context.cpp``); Ollama splits weights and the compute graph (``llm/memory.go``).
"""

from __future__ import annotations

from gpudesk.i18n import _
from gpudesk.sizing.engines.common import EngineFit


def memory_rows(r: EngineFit) -> list[tuple[str, float]]:
    """(label in ``r.engine``'s terms, bytes) for each per-GPU term, then the total; zero terms an engine does not
    have are left out."""
    m = r.per_gpu
    if r.engine == "sglang":
        rows = [(_("model weights"), m.weights_bytes),
                (_("in use before the weights (CUDA context, NCCL)"), m.non_torch_bytes),
                (_("KV cache pool (max_total_num_tokens)"), m.kv_cache_bytes),
                (_("outside mem_fraction_static (activations, CUDA graphs)"), m.activation_bytes)]
    elif r.engine == "trtllm":
        rows = [(_("engine weights"), m.weights_bytes), (_("runtime activation buffers"), m.activation_bytes),
                (_("CUDA context"), m.non_torch_bytes), (_("paged KV cache (free_gpu_memory_fraction)"), m.kv_cache_bytes)]
    elif r.engine == "llamacpp":
        rows = [(_("model buffer"), m.weights_bytes), (_("KV buffer"), m.kv_cache_bytes),
                (_("compute buffer"), m.activation_bytes), (_("backend context"), m.non_torch_bytes)]
    elif r.engine == "ollama":
        rows = [(_("weights offloaded"), m.weights_bytes), (_("compute graph"), m.activation_bytes)]
    else:
        rows = [(_("model weights"), m.weights_bytes), (_("activation peak (profile run)"), m.activation_bytes),
                (_("non-torch memory"), m.non_torch_bytes),
                (_("CUDA graphs (profiled, inside gpu_memory_utilization)") if r.extra.get("cuda_graphs_in_budget")
                 else _("CUDA graphs (after the KV cache, outside gpu_memory_utilization)"), m.cuda_graph_bytes),
                (_("KV cache"), m.kv_cache_bytes)]
    rows += [(name, value) for name, value in m.other.items()]
    return [(label, v) for label, v in rows if v or r.engine == "vllm"] + [(_("total per GPU"), m.total_bytes)]


def engine_title(r: EngineFit) -> str:
    """``vLLM 0.6.4 (V0 engine)``: the version as typed, and the family whose model answered when it differs."""
    names = {"vllm": "vLLM", "sglang": "SGLang", "trtllm": "TensorRT-LLM", "llamacpp": "llama.cpp", "ollama": "Ollama"}
    name = names.get(r.engine, r.engine)
    family = str(r.extra.get("engine_family", ""))
    if family and family.lower() != r.engine_version.lower():
        return _("{engine} {version} ({family} engine)").format(engine=name, version=r.engine_version,
                                                                family=family.upper())
    return f"{name} {r.engine_version}"
