"""One call for any engine: ``engine_fit(engine, model, device, settings)`` -> :class:`EngineFit`.

The model is a :class:`ModelSpec` (catalog, config.json) with a weight format, or a read .gguf file
(:class:`GgufModel`, every tensor at its real type). ggml engines (llama.cpp, Ollama) size GGUF tensors: for a
catalog model and a llama.cpp file type (q4_k_m ...) the tensors come from :func:`gguf_tensors`; for a 16-bit or
other format they are sized at that format's bits.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from gpudesk.i18n import _
from gpudesk.sizing.engines import llamacpp, ollama, sglang, trtllm, vllm
from gpudesk.sizing.engines.common import ENGINES, Change, EngineFit, Setting, parse_engine_args
from gpudesk.sizing.engines.device import DeviceMemory
from gpudesk.sizing.engines.ggml_mix import BASE_TYPE, MERGED_EXPERTS_BUILD, GgmlTensor, gguf_tensors
from gpudesk.sizing.engines.ggml_types import canonical_file_type
from gpudesk.sizing.engines.gguf_file import GgufModel
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.memory_inference import resolve_weight_format
from gpudesk.sizing.shapes import ModelSpec
from gpudesk.units import GIB

SETTINGS: dict[str, dict[str, Setting]] = {
    "vllm": vllm.SETTINGS, "sglang": sglang.SETTINGS, "trtllm": trtllm.SETTINGS, "llamacpp": llamacpp.SETTINGS,
    "ollama": ollama.SETTINGS,
}
#: The setting that carries tensor parallelism in each engine's spelling.
TP_SETTING = {"vllm": "tensor_parallel_size", "sglang": "tp_size", "trtllm": "tp_size"}
DEFAULT_VERSION = {"vllm": "v1", "sglang": "0.4", "trtllm": "1.0", "llamacpp": "b6000", "ollama": "0.12"}


#: A release as engines spell it: 0.6.3, v0.12.3, 0.6.3.post1, 0.10.1rc1, llama.cpp's b6000; or a family (v0, v1).
_VERSION_RE = re.compile(r"^[vb]?\d+(\.\d+)*([.+-]?[a-z]+\d*)*$")


def check_version(version: str | None) -> None:
    """Refuse an engine version that is no release number or family (``garbage``, ``-1``).

    Raises:
        SizingError (field ``engine_version``).
    """
    if version is not None and not _VERSION_RE.match(version.strip().lower()):
        raise SizingError("engine_version", _("{version!r} is not an engine version; give a release such as "
                                              "0.6.3, v0.12.3 or b6000, or a family: v0, v1.").format(
            version=version))


#: The Python distribution of each engine as ``pip freeze`` names it (PEP 503 normalized), so a pasted
#: ``vllm==0.8.5.post1`` reads as that engine's release. llama.cpp and Ollama ship no pip package of the server.
PIP_NAMES = {"vllm": ("vllm",), "sglang": ("sglang",), "trtllm": ("tensorrt-llm",)}
_PIP_PIN = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*===?\s*(.*)$")


def release_version(engine: str, version: str | None) -> str | None:
    """``version`` as a release, a ``pip freeze`` line's ``<name>==`` dropped where ``<name>`` is ``engine``'s own
    distribution (``vllm==0.8.5.post1`` -> ``0.8.5.post1``; PEP 503 names, https://peps.python.org/pep-0503/);
    then checked like :func:`check_version`.

    Raises:
        SizingError (field ``engine_version``): a pin of another package, or no release after it.
    """
    if version is None:
        return None
    pin = _PIP_PIN.match(version)
    if pin is not None:
        name = re.sub(r"[-_.]+", "-", pin.group(1)).lower()
        key = engine.strip().lower().replace(".", "").replace("-", "").replace("_", "")
        key = {"tensorrtllm": "trtllm"}.get(key, key)
        if name not in PIP_NAMES.get(key, ()):
            raise SizingError("engine_version", _("{version!r} pins the package {package!r}, not the {engine} "
                                                  "engine.").format(version=version, package=pin.group(1),
                                                                    engine=engine))
        if not _VERSION_RE.match(pin.group(2).strip().lower()):
            check_version(version)  # the whole pasted text named in the refusal
        version = pin.group(2).strip()
    check_version(version)
    return version


def check_flags_in_release(engine: str, version: str, given: dict[str, Any]) -> None:
    """Refuse settings whose flag (or ``--kv-cache-dtype`` value) the engine's parser of ``version`` does not have,
    so the command shown starts that release (:mod:`gpudesk.sizing.engines.flags`).

    Raises:
        SizingError (field ``engine_arg``): one sentence per setting that release lacks.
    """
    from gpudesk.sizing.engines.flags import missing_in_release

    spelled = {SETTINGS[engine][name][2]: value for name, value in given.items()
               if value is not None and value is not False}
    missing = missing_in_release(engine, version, spelled)
    if missing:
        raise SizingError("engine_arg", " ".join(sentence for _flag, sentence in missing))


def check_engine(engine: str) -> str:
    """The engine name, lower case.

    Raises:
        SizingError (field ``engine``): not one of :data:`ENGINES`.
    """
    key = engine.strip().lower().replace(".", "").replace("-", "").replace("_", "")
    key = {"tensorrtllm": "trtllm", "llamacpp": "llamacpp", "llama": "llamacpp"}.get(key, key)
    if key not in ENGINES:
        raise SizingError("engine", _("unknown engine {engine!r}; use one of {names}.").format(
            engine=engine, names=", ".join(ENGINES)))
    return key


def ggml_tensors_for(spec: ModelSpec, weight_format: str, llamacpp_version: str | None = None) -> list[GgmlTensor]:
    """Tensors of a catalog/config model for llama.cpp: a llama.cpp file type's mix, or the format's base type; a
    llama.cpp build before :data:`MERGED_EXPERTS_BUILD` loads MoE files of the one-tensor-per-expert era."""
    from gpudesk.sizing.engines.flags import llamacpp_build

    build = llamacpp_build(llamacpp_version) if llamacpp_version else None
    fmt = resolve_weight_format(spec, weight_format).lower()
    key = canonical_file_type(fmt) or {"bf16": "bf16", "fp16": "f16", "f16": "f16", "fp32": "f32", "int8": "q8_0",
                                       "fp8": "q8_0", "mxfp4": "mxfp4"}.get(fmt)  # gpt-oss: MXFP4_MOE (ggml_mix)
    if key is None or key not in BASE_TYPE:
        raise SizingError("weight_format", _("llama.cpp loads GGUF files; {format!r} is not a GGUF type (use q4_k_m, "
                                             "q8_0, f16 ...).").format(format=weight_format))
    return gguf_tensors(spec, key, split_experts=build is not None and build < MERGED_EXPERTS_BUILD)


def _check_heads_split(key: str, spec: ModelSpec, given: dict[str, Any]) -> None:
    """Refuse a tensor-parallel degree that does not divide the attention heads: vLLM stops at start ("Total number
    of attention heads (32) must be divisible by tensor parallel size (3)", vllm/config/model.py
    ModelConfig.verify_with_parallel_config), and SGLang's ModelConfig and TensorRT-LLM's Mapping alike (each rank
    holds whole heads). The planner never offers such a degree (gpudesk.planner.serve_eval); this is the user's own.

    Raises:
        SizingError: field the engine's tensor-parallel setting (``tensor_parallel_size``, ``tp_size``).
    """
    from gpudesk.sizing.engines.flags import ENGINE_NAMES  # as check_flags_in_release imports it

    setting = TP_SETTING.get(key)
    value = given.get(setting) if setting else None
    tp = int(value) if isinstance(value, (int, float, str)) and str(value).isdigit() else 1
    heads = spec.num_attention_heads
    if setting and tp > 1 and heads and heads % tp:
        raise SizingError(setting, _("the model's {heads} attention heads do not split evenly over {tp} "
                                     "tensor-parallel GPUs; {engine} refuses to start: use a degree that divides "
                                     "{heads}.").format(heads=heads, tp=tp, engine=ENGINE_NAMES.get(key, key)))


#: Engines that quantise a 16-bit checkpoint's Linear weights to FP8 as they load it (``--quantization fp8``):
#: vLLM's ``Fp8Config`` with ``is_checkpoint_fp8_serialized`` false quantises each weight after loading it
#: (vllm/model_executor/layers/quantization/fp8.py, ``Fp8LinearMethod.process_weights_after_loading``; vLLM docs
#: "FP8 W8A8", "online dynamic quantization"); SGLang's ``--quantization fp8`` reuses that method
#: (python/sglang/srt/layers/quantization/fp8.py). TensorRT-LLM and the ggml engines need a converted checkpoint.
ONLINE_FP8_ENGINES = ("vllm", "sglang")
_SIXTEEN_BIT = ("bf16", "fp16", "f16", "float16", "bfloat16")


def online_fp8_args(key: str, spec: ModelSpec, engine_args: list[str], weight_format: str) -> list[str]:
    """``engine_args`` with ``quantization=fp8`` when FP8 weights are asked of a 16-bit checkpoint and no
    ``--quantization`` is given: the engine loads such a checkpoint in 16 bits unless told to quantise it
    (vLLM ``Fp8Config`` with ``is_checkpoint_fp8_serialized`` false, ``--quantization fp8``; SGLang
    ``python/sglang/srt/server_args.py`` ``QUANTIZATION_CHOICES`` "fp8"), so the command sizes what it launches."""
    checkpoint = resolve_weight_format(spec, "checkpoint").lower()
    if (resolve_weight_format(spec, weight_format).lower() != "fp8" or checkpoint not in _SIXTEEN_BIT
            or parse_engine_args(key, engine_args, SETTINGS[key]).get("quantization")):
        return engine_args
    return [*engine_args, "quantization=fp8"]


def _with_fp8_weights(key: str, result: EngineFit, model: ModelSpec | GgufModel, device: DeviceMemory,
                      engine_args: list[str], spec: ModelSpec, weight_format: str, given: dict[str, Any],
                      **kwargs: Any) -> EngineFit:
    """``result`` with FP8 weights among its changes, when the 16-bit launch does not fit, the GPU has FP8 tensor
    cores (catalog) and the launch with ``--quantization fp8`` does fit: sized by :func:`engine_fit` itself, so its
    memory figure is the main answer's arithmetic. The catalog does not link a model to its FP8 checkpoint (an FP8
    row is a model of its own), so the change is the engine's load-time quantisation of this checkpoint."""
    if (result.fits or key not in ONLINE_FP8_ENGINES or not device.fp8_tensor_cores or given.get("quantization")
            or resolve_weight_format(spec, weight_format).lower() not in _SIXTEEN_BIT):
        return result
    more_gpus = TP_SETTING[key]
    args = [*engine_args, "quantization=fp8"]
    trial = engine_fit(key, model, device, args, weight_format="fp8", **kwargs)
    settings: dict[str, Any] = {"quantization": "fp8"}
    also = next((c for c in trial.changes if more_gpus not in c.settings), None)
    if not trial.fits and also is not None:  # FP8 weights fit; one more of the engine's own changes starts it
        settings.update(also.settings)
        trial = engine_fit(key, model, device, [*args, *(f"{k}={v}" for k, v in also.settings.items())],
                           weight_format="fp8", **kwargs)
    if not trial.fits:
        return result
    before_kv = trial.per_gpu.total_bytes - trial.per_gpu.kv_cache_bytes
    text = _("FP8 weights quantised at load (--quantization fp8): weights "
             "{weights:.2f} GiB, {before_kv:.2f} GiB per GPU before the KV cache").format(
        weights=trial.per_gpu.weights_bytes / GIB, before_kv=before_kv / GIB)
    if also is not None and len(settings) > 1:
        text = _("{first}, with {second}").format(first=text, second=also.text)
    change = Change(text, settings, trial.command, weight_format="fp8")
    at = next((i for i, c in enumerate(result.changes) if more_gpus in c.settings), len(result.changes))
    return dataclasses.replace(result, changes=(*result.changes[:at], change, *result.changes[at:]))


def engine_fit(engine: str, model: ModelSpec | GgufModel, device: DeviceMemory, engine_args: list[str] | None = None,
               *, version: str | None = None, weight_format: str = "checkpoint", gpus: int = 1,
               tensor_parallel: int | None = None, concurrency: int = 1, model_ref: str | None = None) -> EngineFit:
    """The start-up sizing of ``model`` in ``engine`` on ``gpus`` devices like ``device``.

    Raises:
        SizingError: unknown engine or setting, bad value, or a model the engine cannot size.
    """
    key = check_engine(engine)
    if key in ONLINE_FP8_ENGINES and not isinstance(model, GgufModel):
        engine_args = online_fp8_args(key, model, engine_args or [], weight_format)
        result = _engine_fit(key, model, device, engine_args, version=version, weight_format=weight_format,
                             gpus=gpus, tensor_parallel=tensor_parallel, concurrency=concurrency, model_ref=model_ref)
        given = parse_engine_args(key, engine_args or [], SETTINGS[key])
        return _with_fp8_weights(key, result, model, device, engine_args or [], model, weight_format, given,
                                 version=version, gpus=gpus, tensor_parallel=tensor_parallel,
                                 concurrency=concurrency, model_ref=model_ref)
    return _engine_fit(key, model, device, engine_args, version=version, weight_format=weight_format, gpus=gpus,
                       tensor_parallel=tensor_parallel, concurrency=concurrency, model_ref=model_ref)


def _engine_fit(engine: str, model: ModelSpec | GgufModel, device: DeviceMemory, engine_args: list[str] | None = None,
                *, version: str | None = None, weight_format: str = "checkpoint", gpus: int = 1,
                tensor_parallel: int | None = None, concurrency: int = 1, model_ref: str | None = None) -> EngineFit:
    key = check_engine(engine)
    version = release_version(key, version)
    given: dict[str, Any] = parse_engine_args(key, engine_args or [], SETTINGS[key])
    ver = version or DEFAULT_VERSION[key]
    check_flags_in_release(key, ver, given)
    if key in TP_SETTING and tensor_parallel:
        given.setdefault(TP_SETTING[key], tensor_parallel)
    if isinstance(model, GgufModel):
        spec, tensors, ref = model.to_spec(), list(model.tensors), model_ref or str(model.path)
        if key not in ("llamacpp", "ollama"):
            raise SizingError("gguf", _("{engine} serves Hugging Face checkpoints here; size a .gguf with llamacpp "
                                        "or ollama.").format(engine=key))
    else:
        spec, tensors, ref = model, [], model_ref or (model.hf_repo or model.name)
    _check_heads_split(key, spec, given)
    if key == "vllm":
        return vllm.vllm_fit(spec, device.name, device.total_bytes, given, version=ver, weight_format=weight_format,
                             concurrency=concurrency, model_ref=ref, nvlink=device.nvlink)
    if key == "sglang":
        return sglang.sglang_fit(spec, device.name, device.total_bytes, given, version=ver,
                                 weight_format=weight_format, concurrency=concurrency, model_ref=ref,
                                 nvlink=device.nvlink)
    if key == "trtllm":
        return trtllm.trtllm_fit(spec, device.name, device.total_bytes, given, version=ver,
                                 weight_format=weight_format, concurrency=concurrency, model_ref=ref,
                                 unified=device.unified)
    if not tensors:
        tensors = ggml_tensors_for(spec, weight_format, ver if key == "llamacpp" else None)
        ref = model_ref or f"{spec.name}-{weight_format}.gguf".replace(" ", "-")
    devices = max(1, gpus)
    if key == "llamacpp":
        return llamacpp.llamacpp_fit(spec, tensors, device.name, device.total_bytes, given, devices=devices,
                                     backend=device.backend, version=ver, concurrency=concurrency, model_ref=ref)
    return ollama.ollama_fit(spec, tensors, device.name, device.total_bytes, given, devices=devices,
                             metal=device.backend == "Metal", version=ver, model_ref=ref, concurrency=concurrency,
                             gguf_architecture=model.architecture if isinstance(model, GgufModel) else None)
