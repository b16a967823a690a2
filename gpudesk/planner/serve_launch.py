"""From a serving option of a plan to the engine launch that checks it ("Will it fit?" opened from Plan results).

A serving plan sizes replicas of ``tensor_parallel`` GPUs with the answers' context (prompt + output tokens) and
concurrency (``max_concurrent_sequences`` per replica); the engine fit asks the same question in the engine's
own terms. :func:`launch_inputs` maps one candidate onto the inputs of
:func:`gpudesk.sizing.engines.fit.engine_fit`: the engine named among the answers' libraries (vLLM when none is),
the catalog model, the candidate's GPU, one replica's GPUs, the weight format, and the context, concurrency and KV
cache type spelled as that engine's settings (``vllm/engine/arg_utils.py``, ``sglang/srt/server_args.py``,
TensorRT-LLM ``KvCacheConfig``, llama.cpp ``common/arg.cpp``, Ollama's Modelfile parameters).
"""

from __future__ import annotations

from dataclasses import dataclass

from gpudesk.i18n import _
from gpudesk.planner.document import PlanDocument, PlanOption
from gpudesk.planner.requirement import Requirement

#: Library names the answers may use for each engine.
ENGINE_NAMES = {"vllm": "vllm", "sglang": "sglang", "trtllm": "trtllm", "tensorrt-llm": "trtllm",
                "tensorrt_llm": "trtllm", "llamacpp": "llamacpp", "llama.cpp": "llamacpp", "llama-cpp": "llamacpp",
                "ollama": "ollama"}
#: The engine's settings for (context tokens, concurrent sequences, fp8 KV cache).
ENGINE_SETTINGS = {
    "vllm": ("max_model_len", "max_num_seqs", "kv_cache_dtype=fp8"),
    "sglang": ("context_length", "max_running_requests", "kv_cache_dtype=fp8_e5m2"),
    "trtllm": ("max_seq_len", "max_batch_size", "kv_cache_dtype=fp8"),
    "llamacpp": ("n_ctx", "parallel", ""),
    "ollama": ("num_ctx", "num_parallel", ""),
}


@dataclass(frozen=True)
class LaunchInputs:
    """What the "Will it fit?" page is opened with for one serving option.

    Attributes:
        engine: engine key (``vllm`` ...). model_id: catalog model id, or None when the plan's model is not one.
        gpu_id: catalog GPU id. gpus: GPUs of one replica (the tensor-parallel degree). weight_format: as the
        answers give it. engine_args: ``NAME=VALUE`` in the engine's spelling. notes: what could not be carried
        over, one sentence each.
    """

    engine: str
    model_id: str | None
    gpu_id: str
    gpus: int
    weight_format: str
    engine_args: tuple[str, ...]
    notes: tuple[str, ...] = ()


def _catalog_model_id(query: str) -> str | None:
    """The catalog id of a model given by id, Hugging Face repo or name (None when the catalog has no such model)."""
    from gpudesk.catalog import open_catalog
    from gpudesk.errors import GpudeskError

    if not query:
        return None
    try:
        return open_catalog().find_model(query).id
    except GpudeskError:
        return None


def is_serving_option(option: PlanOption) -> bool:
    """True for an option of a serving plan (it has a QPS capacity)."""
    return option.serving and bool(option.gpu_id)


def launch_inputs(plan: PlanDocument, option: PlanOption) -> LaunchInputs:
    """The engine launch that checks ``option`` of ``plan`` (module docstring)."""
    req = plan.requirement or Requirement()
    model, workload, software = req.model, req.workload, req.software
    notes: list[str] = []
    libraries = [str(x).strip().lower() for x in software.libraries]
    engines = [ENGINE_NAMES[x] for x in libraries if x in ENGINE_NAMES]
    engine = engines[0] if engines else ENGINE_NAMES.get(str(option.engine or "").lower(), "")
    if not engine:
        engine = "vllm"
        notes.append(_("The answers name no serving engine; vLLM is assumed."))
    model_name = str(model.model or model.config_path or "")
    model_id = _catalog_model_id(model_name)
    if model_id is None:
        notes.append(_("The plan's model {model} is not in the catalog; choose the model on the page.").format(
            model=model_name or "?"))
    # One replica: the tensor-parallel degree (llama.cpp and Ollama split its layers over the same GPUs).
    gpus = max(1, int(option.tensor_parallel or 1))
    weight_format = str(model.weight_format or model.precision or "checkpoint")
    ctx_name, seqs_name, fp8_kv = ENGINE_SETTINGS[engine]
    args: list[str] = []
    context = int(workload.prompt_tokens or 0) + int(workload.output_tokens or 0)
    if context > 0:
        args.append(f"{ctx_name}={context}")
    seqs = int(workload.max_concurrent_sequences or 0)
    if seqs > 0:
        args.append(f"{seqs_name}={seqs}")
    if str(model.kv_precision or "").lower().startswith("fp8"):
        if fp8_kv:
            args.append(fp8_kv)
        else:
            notes.append(_("{engine} has no fp8 KV cache; its default cache type is kept.").format(engine=engine))
    return LaunchInputs(engine, model_id, option.gpu_id, gpus, weight_format, tuple(args), tuple(notes))


__all__ = ["LaunchInputs", "is_serving_option", "launch_inputs"]
