"""llama.cpp (GGUF) single-stream decode: one sequence, batch 1, on one GPU (``llama-bench -n 128``, ``llama-cli``).

At batch 1 every decoded token reads each weight matrix once (a matrix-vector product), so the time of a token is
the bytes it reads over the rate the memory streams them, plus the kernels too small to be bandwidth bound (roofline,
Williams et al. 2009; decode is memory bound: Pope et al. 2022, arXiv 2211.05102 section 2). The terms are the
serving step model's own (:mod:`gpudesk.sizing.serve_step`), applied to llama.cpp's graph:

- Bytes: the tensors of the GGUF file type as llama.cpp's quantiser types them (:mod:`gpudesk.sizing.engines.
  ggml_mix`: ``q4_k_m`` keeps ``output`` at ``q6_K`` and half the ``attn_v`` / ``ffn_down`` at ``q6_K``); the token
  embedding is not read (one row per token, ``ggml_get_rows``) unless it is also the output matrix (tied); routed
  experts only for the ``k`` of ``E`` a token uses. Plus the KV cache at the token's context.
- Rate: the share of the datasheet bandwidth a streaming kernel reaches (:func:`gpudesk.sizing.serve_rates.
  hbm_efficiency`, STREAM copy); each matrix-vector product lasts at least one kernel's fixed time.
- Kernels: every other node of a layer's graph lasts the fixed time of a small kernel replayed from a CUDA graph
  (:data:`gpudesk.sizing.serve_rates.SMALL_KERNEL_GRAPH_S`; llama.cpp's CUDA backend captures the decode graph since
  ggml-org/llama.cpp PR #6766, 2024). No source gives the Vulkan backend a different figure, so it is the same; so
  for every GPU backend (:mod:`gpudesk.sizing.llamacpp_backends`), the run's backend stated as an assumption.
- Prompt: ``n_ubatch`` (512) tokens per pass; each pass reads the weights once and runs at least the matmul FLOPs
  (``2 x active params`` per token) at the GPU's measured matmul share.

Only one sequence is modelled: llama.cpp's server runs ``--parallel`` slots in one batch, which this module does not
price, so a load of more than one request in flight is refused.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gpudesk.catalog.records import GPU
from gpudesk.i18n import _
from gpudesk.sizing.engines.ggml_mix import GgmlTensor, gguf_tensors
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.llamacpp_backends import llamacpp_backend
from gpudesk.sizing.memory_inference import kv_token_bytes_all_layers
from gpudesk.sizing.serve_load import ServeLoad
from gpudesk.sizing.serve_rates import SMALL_KERNEL_GRAPH_S, compute_peak_flops, hbm_efficiency, matmul_efficiency
from gpudesk.sizing.shapes import ModelSpec
from gpudesk.sizing.speed_common import Assumption, raw
from gpudesk.units import format_bytes, format_duration, format_percent, format_rate

ENGINE = "llamacpp"
#: Nodes of one decoder layer of llama.cpp's Llama graph besides the matrix products (ggml-org/llama.cpp
#: ``src/models/llama.cpp`` at commit 069be0ae, ``graph<embed>``): attention RMS norm and its weight multiply,
#: RoPE of Q and of K, the K and V cache writes, flash attention, the residual add, the FFN RMS norm and its weight
#: multiply, SiLU x up (``LLM_FFN_SILU, LLM_FFN_PAR``), the second residual add: 11. The attention node's time is
#: its KV read when that is longer than a kernel.
LAYER_NODES = 11
#: Outside the layers: the embedding row lookup, the output RMS norm and its weight multiply.
OUTER_NODES = 3
#: Nodes a MoE layer's FFN adds to a dense one's (ggml-org/llama.cpp ``src/llama-graph.cpp``
#: ``llm_graph_context::build_moe_ffn`` at commit 00395eb2): the router's probabilities (``ggml_soft_max``), the top-k
#: (``ggml_argsort_top_k``), the chosen experts' weights (``ggml_get_rows``), the weighting of the experts' outputs
#: (``ggml_mul``), then ``n_expert_used - 1`` ``ggml_add`` summing them; a shared expert adds its activation and its
#: add to the routed sum. The router and expert products are matrix products (counted with the weights). Unfused
#: count, as for the dense layer: the backends' fusions (top-k MoE, chained adds) would lower it, not credited.
MOE_ROUTING_NODES = 4
GRAPH_SOURCE = ("ggml-org/llama.cpp src/models/llama.cpp at 069be0ae "
                "(https://github.com/ggml-org/llama.cpp/blob/069be0ae22f391c64e26e8da4c7da0143ede8cf3/src/models/llama.cpp)")
#: Prompt tokens per pass: llama.cpp's default ``n_ubatch`` (common/common.h ``n_ubatch = 512``).
UBATCH_TOKENS = 512
_SIXTEEN_BIT = frozenset({"", "bf16", "fp16", "float16", "bfloat16", "f16"})


@dataclass(frozen=True)
class SingleStream:
    """One sequence's time to first token and mean time per output token (seconds), its KV tokens, assumptions."""

    ttft_s: float
    tpot_s: float
    kv_tokens: int
    assumptions: tuple[Assumption, ...]


def file_type(spec: ModelSpec, weight_format: str) -> str:
    """The GGUF file type a load names: its own (``q4_k_m`` ...), or for ``checkpoint`` the 16-bit file
    ``convert_hf_to_gguf.py`` writes from a 16-bit checkpoint (``f16``).

    Raises:
        SizingError: ``checkpoint`` of a checkpoint that is not 16-bit (no GGUF file type has its bytes).
    """
    if weight_format.lower() != "checkpoint":
        return weight_format.lower()
    if (spec.checkpoint_weight_format or "").lower() in _SIXTEEN_BIT:
        return "f16"
    raise SizingError("weight_format", _(
        "llama.cpp runs GGUF files: give the file's quantisation type with --weight-format (q4_k_m, q8_0 ...); "
        "the checkpoint's {format} weights have no GGUF type here.").format(format=spec.checkpoint_weight_format))


def _read_share(tensor: GgmlTensor, spec: ModelSpec) -> float:
    """The share of ``tensor`` one decoded token reads: k of E routed experts, the whole of any other matrix."""
    if tensor.name.endswith("_exps.weight") and spec.moe_experts and spec.moe_active_experts:
        return spec.moe_active_experts / spec.moe_experts
    return 1.0


def _matrices(spec: ModelSpec, tensors: list[GgmlTensor]) -> list[tuple[float, float]]:
    """(bytes read per token, bytes of the tensor) of every matrix product of a decode step: the norms' weight
    vectors are not products, and the token embedding is read one row per token unless it is the output."""
    out = []
    for t in tensors:
        if t.name.endswith("norm.weight"):
            continue
        if t.name == "token_embd.weight" and not spec.tied_embeddings:
            continue
        out.append((t.bytes * _read_share(t, spec), float(t.bytes)))
    return out


def moe_nodes(spec: ModelSpec) -> int:
    """Graph nodes the MoE layers of ``spec`` add to a dense model's (:data:`MOE_ROUTING_NODES`, one add per routed
    expert past the first, two per shared expert group); 0 for a dense model."""
    if not (spec.moe_experts and spec.moe_active_experts):
        return 0
    moe_layers = spec.moe_layers if spec.moe_layers is not None else int(spec.layers or 0)
    per_layer = MOE_ROUTING_NODES + int(spec.moe_active_experts) - 1 + (2 if spec.moe_shared_experts else 0)
    return int(moe_layers) * per_layer


def _check_load(load: ServeLoad) -> None:
    in_flight = load.batch if load.batch is not None else load.concurrency
    if in_flight != 1:
        raise SizingError("load", _(
            "llama.cpp is modelled for one sequence at a time (batch 1 or concurrency 1, as llama-bench's token "
            "generation test); its server's parallel slots are not modelled."))
    if load.tp * load.pp != 1:
        raise SizingError("tp", _("llama.cpp is modelled on one GPU (tp 1, pp 1); splitting a model over GPUs "
                                  "(--split-mode) is not modelled."))
    if load.kv_dtype.lower() not in ("auto", "fp16", "bf16"):
        raise SizingError("kv_dtype", _("llama.cpp is modelled with its default 16-bit KV cache (f16); use auto or "
                                        "fp16."))


def prompt_peak_flops(gpu: GPU, ftype: str) -> float:
    """Peak rate (per second) of the prompt's matrix products: the GPU's dense 16-bit matrix rate where the catalog
    has one; else the rate of the kernel llama.cpp's CUDA backend falls back to on a GPU without fast 16-bit math
    (Pascal GP102/GP104: FP16 at 1/64): quantised weights through MMQ, whose dot products are ``__dp4a`` int8
    (the catalog's INT8 figure), 16/32-bit weights through cuBLAS in FP32 (``fast_fp16_available`` false; ggml-org/
    llama.cpp ``ggml/src/ggml-cuda/common.cuh`` and ``mmq.cuh``). Decode does not use it: it is bandwidth bound.

    Raises:
        SizingError: the catalog has no 16-bit, INT8 or FP32 rate for the GPU.
    """
    try:
        return compute_peak_flops(gpu, "bf16")[0]
    except SizingError:
        quantised = ftype not in ("f16", "bf16", "f32")
        rate = (gpu.int8_dense_tops if quantised else None) or gpu.fp32_tflops
        if not rate:
            raise
        return float(rate) * 1e12


def single_stream(spec: ModelSpec, gpu: GPU, load: ServeLoad) -> SingleStream:
    """Time to first token and mean time per output token of one sequence on one ``gpu`` under llama.cpp.

    Raises:
        SizingError: a load of more than one sequence or more than one GPU, a KV dtype other than 16-bit, a weight
            format that is not a GGUF file type, or a model and KV cache larger than the GPU's memory.
    """
    _check_load(load)
    backend = llamacpp_backend(load.backend)
    ftype = file_type(spec, load.weight_format)
    tensors = gguf_tensors(spec, ftype)
    file_bytes = float(sum(t.bytes for t in tensors))
    kv_token = kv_token_bytes_all_layers(spec, "fp16")
    kv_tokens = load.input_tokens + load.output_tokens
    if file_bytes + kv_tokens * kv_token > gpu.memory_bytes:
        raise SizingError("gpu", _(
            "the {ftype} weights ({weights}) and the KV cache of {tokens} tokens ({kv}) do not fit in the {gpu}'s "
            "{memory}.").format(ftype=ftype, weights=format_bytes(file_bytes), tokens=kv_tokens,
                                kv=format_bytes(kv_tokens * kv_token), gpu=gpu.name,
                                memory=format_bytes(gpu.memory_bytes)))
    share, share_source = hbm_efficiency(gpu)
    rate = gpu.memory_bandwidth_gbps * 1e9 * share
    kernel_s = SMALL_KERNEL_GRAPH_S
    layers = int(spec.layers or 0)
    matrices = _matrices(spec, tensors)
    read_bytes = sum(b for b, _whole in matrices)
    products_s = sum(max(b / rate, kernel_s) for b, _whole in matrices)
    nodes_s = (layers * (LAYER_NODES - 1) + moe_nodes(spec) + OUTER_NODES) * kernel_s

    def token_s(context: float) -> float:
        attention = layers * max(context * kv_token / max(1, layers) / rate, kernel_s)
        return products_s + nodes_s + attention

    tpot = token_s(load.input_tokens + (load.output_tokens - 1) / 2)
    # The prompt: ceil(p / n_ubatch) passes, each reading the weights whole, at least the matmul FLOPs.
    passes = math.ceil(load.input_tokens / UBATCH_TOKENS)
    peak = prompt_peak_flops(gpu, ftype)
    mm_share, mm_source = matmul_efficiency(gpu)
    flops_s = 2.0 * spec.active_params * load.input_tokens / (peak * mm_share)
    whole_s = sum(max(whole / rate, kernel_s) for _b, whole in matrices)
    ttft = max(passes * whole_s, flops_s) + passes * (nodes_s + layers * kernel_s) \
        + load.input_tokens * kv_token / rate
    assumptions = (
        Assumption("llamacpp_weights_read", _(
            "{ftype}: {read} of weights read per token ({file} file; the token embedding is looked up, not read; "
            "routed experts: the active ones)").format(ftype=ftype, read=format_bytes(read_bytes),
                                                       file=format_bytes(file_bytes)),
            _("llama.cpp quantiser tensor types: gpudesk.sizing.engines.ggml_mix"),
            raw(bytes_per_token=read_bytes, file_bytes=file_bytes)),
        Assumption("hbm_efficiency", _("{share} of {bandwidth}").format(
            share=format_percent(share, digits=None), bandwidth=format_rate(gpu.memory_bandwidth_gbps * 1e9,
                                                                            digits=None)),
            share_source, raw(share=share, bandwidth_bytes_per_s=gpu.memory_bandwidth_gbps * 1e9)),
        Assumption("llamacpp_kernels", _(
            "{count} graph nodes per layer besides the matrix products, {time} each").format(
            count=LAYER_NODES, time=format_duration(kernel_s)),
            _("{graph}; a kernel replayed from a CUDA graph: NVIDIA developer blog, Getting Started with CUDA Graphs "
              "(https://developer.nvidia.com/blog/cuda-graphs/)").format(graph=GRAPH_SOURCE),
            raw(nodes_per_layer=LAYER_NODES, moe_routing_nodes=moe_nodes(spec), kernel_s=kernel_s)),
        Assumption("llamacpp_single_stream", _(
            "one sequence: {tpot} per output token, {ttft} to the first").format(
            tpot=format_duration(tpot), ttft=format_duration(ttft)),
            _("prompt in passes of {ubatch} tokens (llama.cpp n_ubatch); matmul share: {source}").format(
                ubatch=UBATCH_TOKENS, source=mm_source),
            raw(tpot_s=tpot, ttft_s=ttft, prompt_passes=passes)),
        # Every GPU backend is priced as CUDA (module docstring): the backend is stated, it changes no figure.
        Assumption("llamacpp_backend", _(
            "llama.cpp's {backend} backend is priced as its CUDA backend (no published figure separates them)").format(
            backend=backend),
            _("ggml GPU backends: gpudesk.sizing.llamacpp_backends"), raw(backend=backend)),
    )
    return SingleStream(ttft_s=ttft, tpot_s=tpot, kv_tokens=kv_tokens, assumptions=assumptions)
