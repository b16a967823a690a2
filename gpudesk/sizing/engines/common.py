"""What every engine model shares: settings as the engine spells them, and the fit result.

Settings are typed from their default (bool, int, float, str); ``NAME=VALUE`` pairs are refused with the
engine's own list when the name is unknown, so a user can paste the engine's spelling (``gpu_memory_utilization``,
``mem_fraction_static``, ``n_gpu_layers`` ...). A leading ``--`` and dashes are accepted (``--max-model-len``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from gpudesk.i18n import _
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.shapes import ModelSpec

from gpudesk.units import GIB
#: Device memory in use before the weights load, outside PyTorch's allocator: the CUDA context with its loaded
#: kernels and the cuBLAS workspace. SGLang logs it ("avail mem" before "Load weight begin" is about 1 GiB under
#: the total, python/sglang/srt/model_executor/model_runner.py); engines that measure ``total - free`` (SGLang,
#: TensorRT-LLM's free-memory fraction, vLLM 0.2.5-0.6.3) count it, engines that measure the torch peak do not.
CONTEXT_BYTES = 0.75 * GIB
#: NCCL's receive buffers of one connection, per protocol (NCCL ``src/include/device.h``: ``DEFAULT_BUFFSIZE``
#: 4 MiB for Simple; LL ``NCCL_LL_LINES_PER_THREAD x NCCL_LL_MAX_NTHREADS x NCCL_STEPS x 16`` = 8 x 512 x 8 x 16 B;
#: LL128 ``NCCL_LL128_ELEMS_PER_THREAD x NCCL_LL128_MAX_NTHREADS x NCCL_STEPS x 8`` = 120 x 640 x 8 x 8 B, enabled
#: by default only between NVLink-connected GPUs).
NCCL_SIMPLE_BYTES = 4 * 1024 * 1024
NCCL_LL_BYTES = 8 * 512 * 8 * 16
NCCL_LL128_BYTES = 120 * 640 * 8 * 8
#: Collective channels NCCL opens per communicator: 16 on Hopper NVSwitch systems ("16 coll channels" on 8 x H800,
#: NVIDIA/nccl#892; "Hopper generation GPUs have 18 NVLink channels ... the number of NCCL channels is directly
#: related to that", NVIDIA/nccl#1429), 2 over PCIe.
NCCL_CHANNELS = {"nvlink": 16, "pcie": 2}
#: Receive connections per channel and rank: the ring's previous rank and the chain tree's parent and child.
NCCL_CONNECTIONS_PER_CHANNEL = 3
NCCL_TRANSPORTS = ("nvlink", "pcie", "shm")


def nccl_device_bytes(tensor_parallel: int, transport: str) -> float:
    """Device memory NCCL's connection buffers take on one rank of a ``tensor_parallel`` group: channels x
    connections x the per-protocol buffers, over NVLink (P2P with LL128) or PCIe (P2P); none with the ``shm``
    transport (GPUs without peer access: the buffers live in host memory, NCCL ``transport/shm.cc``). A ring or
    chain rank connects to its neighbours only, so it does not grow with the group size."""
    if tensor_parallel <= 1 or transport not in NCCL_CHANNELS:
        return 0.0
    per_connection = NCCL_SIMPLE_BYTES + NCCL_LL_BYTES + (NCCL_LL128_BYTES if transport == "nvlink" else 0)
    return float(NCCL_CHANNELS[transport] * NCCL_CONNECTIONS_PER_CHANNEL * per_connection)
ENGINES: tuple[str, ...] = ("vllm", "sglang", "trtllm", "llamacpp", "ollama")

#: Float settings that are a share of GPU memory, so in (0, 1]; every other float setting is a size (>= 0).
FRACTION_SETTINGS = frozenset({"gpu_memory_utilization", "mem_fraction_static", "free_gpu_memory_fraction"})

#: Integer settings whose engine takes a value below 1 as a sentinel, with the lowest it takes: llama.cpp
#: ``-ngl -1`` (all layers) and ``-c 0`` (the model's context) (tools/server README), Ollama ``num_gpu -1`` (its
#: own layer estimate, api/types.go) and ``OLLAMA_GPU_OVERHEAD=0`` (bytes), SGLang ``--chunked-prefill-size -1``
#: (chunked prefill off, server_args.py). Every other integer setting is a count or size of at least 1.
INT_SETTING_FLOORS = {"n_gpu_layers": -1, "num_gpu": -1, "chunked_prefill_size": -1, "n_ctx": 0, "gpu_overhead": 0}

#: A setting: default value (None: derived; then ``kind`` gives the type) and the engine's command-line flag.
Setting = tuple[Any, type, str]


def parse_engine_args(engine: str, pairs: list[str] | tuple[str, ...], known: dict[str, Setting]) -> dict[str, Any]:
    """``["gpu_memory_utilization=0.9", "enable_lora=true"]`` -> typed values, names normalised to snake case.

    Raises:
        SizingError (field ``engine_arg``): no ``=``, an unknown name (the message lists the engine's names) or
            a value of the wrong type.
    """
    out: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise SizingError("engine_arg", _("{pair!r} is not NAME=VALUE.").format(pair=pair))
        raw_name, value = pair.split("=", 1)
        name = raw_name.strip().lstrip("-").replace("-", "_").lower()
        if name not in known:
            raise SizingError("engine_arg", _("{engine} has no setting {name!r}; it knows {names}.").format(
                engine=engine, name=raw_name.strip(), names=", ".join(sorted(known))))
        kind = known[name][1]
        text = value.strip()
        try:
            if kind is bool:
                if text.lower() not in ("true", "false", "1", "0", "yes", "no", "on", "off"):
                    raise ValueError(text)
                out[name] = text.lower() in ("true", "1", "yes", "on")
            elif kind is int:
                out[name] = int(text)
            elif kind is float:
                out[name] = float(text)
            else:
                out[name] = text
        except ValueError as exc:
            raise SizingError("engine_arg", _("{name}: {value!r} is not a valid {kind}.").format(
                name=name, value=text, kind=kind.__name__)) from exc
        if kind is float:
            _check_float_setting(name, text, out[name])
        elif kind is int and out[name] < INT_SETTING_FLOORS.get(name, 1):
            raise SizingError("engine_arg", _("{name}: {value} is too small; give a whole number of at least "
                                              "{floor}.").format(name=name, value=out[name],
                                                                 floor=INT_SETTING_FLOORS.get(name, 1)))
    return out


def _check_float_setting(name: str, text: str, number: float) -> None:
    """Refuse a float setting outside its range: (0, 1] for a memory share, else finite and >= 0 (a size in GB)."""
    if name in FRACTION_SETTINGS:
        if not (math.isfinite(number) and 0 < number <= 1):
            raise SizingError("engine_arg", _("{name}: {value!r} is not a share of GPU memory; give a number "
                                              "above 0 and at most 1, e.g. 0.9.").format(name=name, value=text))
    elif not (math.isfinite(number) and number >= 0):
        raise SizingError("engine_arg", _("{name}: {value!r} is not a size; give a finite number of at least "
                                          "0.").format(name=name, value=text))


def settings_with_defaults(known: dict[str, Setting], given: dict[str, Any]) -> dict[str, Any]:
    """Every known setting: the given value, else the engine's default (None where the engine derives it)."""
    return {name: given.get(name, spec[0]) for name, spec in known.items()}


@dataclass(frozen=True)
class GpuMemory:
    """One GPU's share of a launch, in bytes (what ``--json`` calls ``per_gpu``)."""

    weights_bytes: float
    activation_bytes: float
    non_torch_bytes: float
    kv_cache_bytes: float
    cuda_graph_bytes: float = 0.0
    other: dict[str, float] = field(default_factory=dict)

    @property
    def total_bytes(self) -> float:
        return (self.weights_bytes + self.activation_bytes + self.non_torch_bytes + self.kv_cache_bytes
                + self.cuda_graph_bytes + sum(self.other.values()))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"weights_bytes": round(self.weights_bytes), "activation_bytes": round(self.activation_bytes),
                               "non_torch_bytes": round(self.non_torch_bytes),
                               "kv_cache_bytes": round(self.kv_cache_bytes),
                               "cuda_graph_bytes": round(self.cuda_graph_bytes), "total_bytes": round(self.total_bytes)}
        out.update({f"{k}_bytes": round(v) for k, v in self.other.items()})
        return out


@dataclass(frozen=True)
class Change:
    """A change that makes a launch fit, in the engine's terms: what to set and the command with it;
    ``weight_format``: the gpudesk weight format that gives the same launch, where there is one (each surface
    names its own control for it)."""

    text: str
    settings: dict[str, Any]
    command: str
    weight_format: str | None = None


@dataclass(frozen=True)
class EngineFit:
    """An engine's start-up sizing for one launch.

    Attributes:
        engine, engine_version: which engine model answered. gpu_name, gpu_total_bytes: the device as the engine
        sees it. gpus: tensor-parallel (or split) GPUs. per_gpu: the first (largest) GPU's memory terms;
        devices: every device's terms where they differ (llama.cpp splits). kv_cache_tokens: tokens the KV pool
        holds. kv_cache_blocks: its blocks (pages) of ``block_tokens``. max_concurrency: requests of
        ``context_tokens`` that fit at once. max_context_tokens: the longest request at ``concurrency``
        (bounded by the model's context). fits: the engine starts. reason: why not. command: the command line.
        settings: every setting with its resolved value. host_bytes: CPU memory the launch needs (layers kept on
        the CPU). changes: the smallest changes that make it fit (best first). assumptions: (text, source).
    """

    engine: str
    engine_version: str
    gpu_name: str
    gpu_total_bytes: int
    gpus: int
    per_gpu: GpuMemory
    kv_cache_tokens: int
    kv_cache_blocks: int
    block_tokens: int
    context_tokens: int
    concurrency: int
    max_concurrency: float
    max_context_tokens: int
    fits: bool
    reason: str
    command: str
    settings: dict[str, Any]
    host_bytes: float = 0.0
    devices: tuple[GpuMemory, ...] = ()
    changes: tuple[Change, ...] = ()
    assumptions: tuple[tuple[str, str], ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "engine": self.engine, "engine_version": self.engine_version, "gpu": self.gpu_name,
            "gpu_total_bytes": self.gpu_total_bytes, "gpus": self.gpus, "per_gpu": self.per_gpu.to_dict(),
            "devices": [d.to_dict() for d in self.devices], "kv_cache_tokens": self.kv_cache_tokens,
            "kv_cache_blocks": self.kv_cache_blocks, "block_tokens": self.block_tokens,
            "context_tokens": self.context_tokens, "concurrency": self.concurrency,
            "max_concurrency": round(self.max_concurrency, 2), "max_context_tokens": self.max_context_tokens,
            "fits": self.fits, "reason": self.reason, "command": self.command, "host_bytes": round(self.host_bytes),
            "settings": self.settings, "changes": [{"change": c.text, "settings": c.settings, "command": c.command,
                                                    "weight_format": c.weight_format}
                                                   for c in self.changes],
            "assumptions": [{"assumption": a, "source": s} for a, s in self.assumptions], **self.extra,
        }


def flag_value(value: Any) -> str:
    """A setting's value as it goes on a command line (``True`` -> no value handled by the caller)."""
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def command_line(program: str, model: str, flags: dict[str, Any], spelled: dict[str, str],
                 positional_model: bool = False, model_flag: str = "--model") -> str:
    """``program`` with the model and each non-default flag in the engine's spelling; booleans as bare flags."""
    parts = [_quote(model)] if positional_model else [model_flag, _quote(model)]
    for name, value in flags.items():
        if value is None or value is False:
            continue
        flag = spelled[name]
        parts += [flag] if value is True else [flag, _quote(flag_value(value))]
    return " ".join([program] + parts)


def _quote(part: str) -> str:
    safe = all(c.isalnum() or c in "-_./:=,+@" for c in part)
    return part if safe and part else "'" + part.replace("'", "'\\''") + "'"


def resolve_nccl_transport(given: str | None, nvlink: bool) -> str:
    """The NCCL transport of a tensor-parallel group: ``given`` (``nvlink``, ``pcie``, ``shm``: GPUs without peer
    access, e.g. "platform lacks GPU P2P capability" in vLLM's log), else NVLink when the device has it, else PCIe.

    Raises:
        SizingError (field ``engine_arg``): a transport NCCL does not have.
    """
    if given is None:
        return "nvlink" if nvlink else "pcie"
    value = given.strip().lower()
    if value not in NCCL_TRANSPORTS:
        raise SizingError("engine_arg", _("nccl_transport: {value!r} is not one of {names}.").format(
            value=given, names=", ".join(NCCL_TRANSPORTS)))
    return value


#: Bytes of one cos/sin table entry: vLLM and SGLang cast the table to the model dtype (16-bit).
ROPE_TABLE_DTYPE_BYTES = 2


def rope_table_bytes(spec: ModelSpec, config_tables: bool = True) -> float:
    """The rotary embedding's cos/sin table every rank keeps on the GPU with the weights: ``max_position x
    rotary_dim`` values (``cos`` and ``sin`` halves) in the model dtype, one table shared by all layers (vLLM
    ``vllm/model_executor/layers/rotary_embedding.py`` ``RotaryEmbedding.__init__``: ``register_buffer(
    "cos_sin_cache", cache.to(dtype))``, cached per configuration by ``get_rope``; read in the 0.9.2 wheel). It is
    part of what "Model loading took" measures: Llama-3-8B (8,192 positions) prints 14.96 GiB, Llama-3.1-8B
    (131,072 positions, a 32 MiB table) 14.99 (vllm-project/vllm PR 10511 and issue 10517). MLA models rotate
    ``qk_rope_head_dim`` of each head. vLLM 0.5's Gemma 2 built one table per layer (``GemmaRotaryEmbedding`` in
    ``gemma2.py``, 42 x 4 MiB); that is not modelled. Linear RoPE scaling caches ``factor`` times the positions and
    Gemma 3 adds an unscaled table for its local layers (:attr:`ModelSpec.rope_table_positions`): Gemma-3-4B-it
    (131,072 positions x 8 and 131,072, 256 wide) keeps 0.56 GiB of tables; vLLM 0.19.0 printed "Model loading took
    8.58 GiB" (llm-d-planner v0.19.0 log). ``config_tables`` False keeps the one table of ``context_length``: SGLang
    0.4.4's Gemma 3 (``sglang/srt/models/gemma3_causal.py``) computes its global and local RoPE on the fly with
    Hugging Face's ``Gemma3RotaryEmbedding`` instead of ``get_rope``'s cached tables (sgl-project/sglang PR 4826:
    8.13 GiB of weights for Gemma-3-4B-it)."""
    if not (spec.is_transformer and spec.context_length):
        return 0.0
    rotary_dim = spec.qk_rope_head_dim if spec.kv_latent_dim and spec.qk_rope_head_dim else spec.head_dim_resolved
    positions = sum(spec.rope_table_positions) if spec.rope_table_positions and config_tables \
        else spec.context_length
    return float(positions * rotary_dim * ROPE_TABLE_DTYPE_BYTES)


# ``--quantization`` names a kernel method, not always a storage format. Methods that read a checkpoint's own packed
# weights (GPTQ, AWQ and their Marlin/Machete kernels, compressed-tensors, ModelOpt) store what the checkpoint holds:
# the weight format the user gave, else a 4-bit group-128 layout (AutoGPTQ ``BaseQuantizeConfig`` bits=4,
# group_size=128; AutoAWQ ``w_bit`` 4, ``q_group_size`` 128). Methods that quantise at load time store their own
# format (vLLM ``vllm/model_executor/layers/quantization/__init__.py`` QUANTIZATION_METHODS, ``fp8.py``,
# ``bitsandbytes.py`` (NF4 by default), ``mxfp4.py``; SGLang ``python/sglang/srt/layers/quantization``).
_CHECKPOINT_METHODS = frozenset({"gptq", "gptq_marlin", "gptq_marlin_24", "awq", "awq_marlin", "marlin",
                                 "compressed-tensors", "compressed_tensors", "modelopt", "modelopt_fp4", "machete"})
_LOAD_TIME_FORMATS = {"fp8": "fp8", "fbgemm_fp8": "fp8", "bitsandbytes": "nf4", "mxfp4": "mxfp4",
                      "experts_int8": "int8", "w8a8_int8": "int8", "w8a8_fp8": "fp8"}
_METHOD_DEFAULT_FORMAT = "int4-g128"


def quantized_weight_format(method: str | None, weight_format: str) -> str:
    """The storage format under the engine's ``--quantization`` ``method`` (see above): a checkpoint method keeps
    ``weight_format`` (a 16-bit or "checkpoint" one becomes ``int4-g128``), a load-time method gives its own
    format, any other value is taken as a weight format name (checked by the caller)."""
    if not method:
        return weight_format
    key = method.lower()
    if key in _CHECKPOINT_METHODS:
        unquantised = weight_format.lower() in ("checkpoint", "bf16", "fp16", "fp32", "tf32")
        return _METHOD_DEFAULT_FORMAT if unquantised else weight_format
    return _LOAD_TIME_FORMATS.get(key, method)
