"""vLLM's start-up memory: weights, profiled activation peak, non-torch memory, CUDA graphs -> KV cache blocks.

Sources (vllm-project/vllm):
- V1 (default from 0.8; the only engine from 0.11): ``vllm/v1/worker/gpu_worker.py`` ``determine_available_memory``:
  ``requested_memory = total_gpu_memory x gpu_memory_utilization``; the profile run measures the torch peak
  increase and the non-torch increase (``vllm/utils`` ``memory_profiling``); ``available_kv_cache_memory =
  requested_memory - (weights + peak activation + non-torch)`` (logged as "Available KV cache memory: X GiB").
  ``vllm/v1/core/kv_cache_utils.py``: ``num_blocks = available // page_size // num_layers`` with ``page_size =
  2 x block_size x kv_heads_per_rank x head_size x dtype_bytes`` (MLA: one latent, no factor 2); it logs "GPU KV
  cache size: N tokens" (``num_blocks x block_size``) and "Maximum concurrency for L tokens per request: X.XXx"
  (``num_blocks / cdiv(max_model_len, block_size)`` for full attention; sliding-window layers reserve less,
  :func:`gpudesk.sizing.memory_inference.kv_sequence_bytes`); from 0.10 models mixing sliding-window and full layers
  are split into padded KV cache groups that change both printed figures (:mod:`gpudesk.sizing.engines.vllm_hybrid`). CUDA graphs are captured after the KV cache is
  allocated, outside ``gpu_memory_utilization`` ("Graph capturing finished in N secs, took X GiB"), until 0.21:
  from then the profiler estimates the graph memory and keeps it inside the budget ("CUDA graph memory profiling
  is enabled (default since v0.21.0). The current --gpu-memory-utilization=0.8800 is equivalent to
  --gpu-memory-utilization=0.8592 without CUDA graph memory profiling", noonghunna/club-3090#104;
  ``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0`` turns it off). :func:`graphs_in_budget`; an unnumbered ``v1`` is
  the newest release.
- V0 (up to 0.10): ``vllm/worker/worker.py`` ``determine_num_available_blocks``: the same budget, ``num_gpu_blocks
  = available // cache_block_size`` ("# GPU blocks: N"), max concurrency ``num_gpu_blocks x block_size /
  max_model_len`` (``vllm/executor/executor_base.py`` ``initialize_cache``). The profile runs
  ``max_num_batched_tokens`` tokens, which without chunked prefill is ``max(max_model_len, 2048)``
  (``vllm/config.py`` SchedulerConfig).
- Defaults (``vllm/engine/arg_utils.py``): gpu_memory_utilization 0.9, block_size 16; max_num_seqs 256 for V0; V1's
  max_num_seqs and max_num_batched_tokens by release and device (:func:`v1_batch_defaults`).
- MXFP4 MoE layout (``vllm/model_executor/layers/quantization/mxfp4.py`` ``Mxfp4MoEMethod.create_weights``): the
  expert weights are allocated padded for the kernel: ``hidden_size`` rounded up to 256 and, on the Marlin
  weight-only FP4 path (GPUs without native FP4 up to 0.10.1, which logs "Weight-only FP4 compression will be
  used leveraging the Marlin kernel"), the per-rank ``intermediate_size`` to 128; the Triton path (0.14.1 logs
  "mxfp4.py: Using Triton backend") pads the hidden size to 256 and, as ``create_weights`` does on CUDA outside
  Marlin and FlashInfer, the per-rank ``intermediate_size`` to 64 (``round_up(intermediate_size_per_partition,
  64)``; a no-op at TP 1 for gpt-oss's 2,880, not at TP 2: 1,440 -> 1,472; gpt-oss-20b at TP 2 on 0.19.0 printed
  7.01 GiB a rank). gpt-oss-120b (2,880 wide): 4,608 experts x 3 x
  2,944 x 3,072 x 4.25 bits + the bf16 rest = 66.0 GiB (0.10.1 printed 65.97, vllm-project/vllm#23278), and 64.6 GiB
  on the Triton path (0.14.1 printed 64.38, vllm-project/vllm#33155). Blackwell's FlashInfer paths (256 on both)
  are not modelled. Which path runs on a GPU without native FP4 (``mxfp4.py`` ``get_mxfp4_backend``, read in the
  0.11.0 wheel): Triton only when the ``triton_kernels`` package is importable (``vllm/utils`` ``has_triton_kernels``)
  and torch >= 2.8, else Marlin ("Using Marlin backend"). ``triton_kernels`` is not a dependency of the 0.11.0 wheel
  (its METADATA lists only ``flashinfer-python`` as an extra); users installed it by hand from the Triton repository
  (vllm-project/vllm#27672, "users will have to install triton_kernels manually"), so a pip 0.11 install pads
  for Marlin (gpt-oss-120b on one H100 at utilization 0.95: 65.97 GiB of weights, 1.71 GiB of KV cache left,
  vllm-project/vllm#27508). From 0.12.0 the wheel vendors it (``vllm/third_party/triton_kernels``, in the 0.12.0,
  0.13.0, 0.14.1 and 0.19.0 wheels; 0.19's ``fused_moe/oracle/mxfp4.py`` ranks Triton first on SM90), so Triton
  runs, as 0.14.1's log shows; ``triton_kernels=true/false`` says what is installed (:func:`mxfp4_marlin`).
  Beside the padded weights the layer holds bf16 expert biases of the padded shapes, which parameter counts without
  biases leave out (:func:`mxfp4_expert_bias_bytes`: 0.077 GiB for gpt-oss-120b on Marlin).
- How V0 measured the peak (``vllm/worker/worker.py`` ``profile_num_available_blocks`` /
  ``determine_num_available_blocks``, read in the 0.2.4-0.6.4 wheels), :func:`profiling_era`:
  ``allocated`` up to 0.2.4, ``torch.cuda.max_memory_allocated()``, PyTorch's peak only; ``device`` in 0.2.5-0.3.0
  (vllm-project/vllm PR 2031, "Fix peak memory profiling"), ``total - free`` after the profile run, everything in
  use on the device: the CUDA context (:data:`~gpudesk.sizing.engines.common.CONTEXT_BYTES`), NCCL, PyTorch's
  reserved blocks; ``since_init`` in 0.3.1-0.6.3, ``init_gpu_memory - free`` with ``init_gpu_memory`` read after
  the context exists (``init_device``), so NCCL and the reserved blocks count but not the context; ``torch_peak``
  from 0.6.4 (PR 9352), the torch peak plus the non-torch increase. In 0.2.5 alone PyTorch also kept the blocks of
  tensors all-reduced on NCCL's stream (``TORCH_NCCL_AVOID_RECORD_STREAMS=1`` is set from 0.2.6), which grew with
  timing under TP (PR 2031's Llama-2-70B at TP 4 lost 10,750 blocks, 13 GiB per GPU); that is not modelled.
- The profiled activation peak of V1 is usually its dummy sampler run (:mod:`gpudesk.sizing.engines.forward`):
  PyTorch's top-k/top-p path peaks at ``torch.sort`` (38 bytes a logit from 128 rows), FlashInfer's kernels need 14.
  Which one runs depends on whether FlashInfer is installed (``vllm_use_flashinfer_sampler``, vLLM's
  ``VLLM_USE_FLASHINFER_SAMPLER``; the log says "Using FlashInfer for top-p & top-k sampling." or "FlashInfer is not
  available. Falling back to the PyTorch-native implementation"); gpudesk assumes the plain pip wheel (no FlashInfer
  before 0.11.1) unless told. From 0.17 the Triton top-k/top-p kernel's scratch rows stay cached through the peak,
  one fp32 vocabulary row per streaming multiprocessor (``vllm/v1/sample/ops/topk_topp_triton.py``
  ``_TRITON_BUFFER_CACHE``, 0.17.0 and 0.19.0 wheels; SM counts by device name,
  :func:`gpudesk.sizing.engines.device.streaming_multiprocessors`).
  That choice alone decides whether a large-vocabulary model that nearly fills the GPU starts: gpt-oss-120b on one
  H100 with vLLM 0.10.x defaults (1,024 rows of 201,088 logits) profiles 7.3 GiB with the sort and 2.7 GiB with
  FlashInfer; without FlashInfer 0.9 x 79.18 GiB - 65.97 GiB weights - 7.3 GiB leaves about -2.1 GiB, as 0.10.1
  printed ("Available KV cache memory: -2.14 GiB", vllm-project/vllm#23278), with it 2.4 GiB (34k tokens), and
  GPUStack served it there with vLLM 0.10.2 and ``--max-model-len 32768`` in an environment with FlashInfer
  installed (its ``VLLM_ATTENTION_BACKEND=FLASHINFER`` trial reached FlashInfer's attention-sink check,
  gpustack/gpustack ``docs/performance-lab/gpt-oss-120b/h100.md``). So when a launch does not fit,
  :func:`_changes` also tries the FlashInfer sampler and ``--max-num-seqs 256`` (fewer sampler rows).
- Non-torch memory: CUDA context allocations outside PyTorch's allocator that appear during the profile (cuBLAS/
  cuBLASLt workspaces; with tensor parallelism NCCL's channel buffers and vLLM's custom all-reduce buffers). From
  0.16 at TP > 1 the profile run also creates the FlashInfer all-reduce fusion workspace and NCCL's lazily connected
  buffers, ~1.85 GiB per rank as vLLM 0.19 prints it (:func:`tp_profile_non_torch_bytes`).
- ``--dtype float32`` with ``--kv-cache-dtype auto`` caches K and V in fp32 (:func:`kv_precision`).
"""

from __future__ import annotations

import json
from typing import Any

from gpudesk.i18n import _
from gpudesk.sizing.engines.common import (
    CONTEXT_BYTES,
    Change,
    EngineFit,
    GpuMemory,
    quantized_weight_format,
    Setting,
    command_line,
    nccl_device_bytes,
    resolve_nccl_transport,
    rope_table_bytes,
    settings_with_defaults,
)
from gpudesk.sizing.engines.device import amd_gfx_target, streaming_multiprocessors
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.engines.flags import fp8_kv_value, uses_vllm_serve
from gpudesk.sizing.engines.forward import v0_profile_peak_bytes, v1_profile_peak_bytes
from gpudesk.sizing.engines.vllm_hybrid import (
    hybrid_blocks_per_request,
    hybrid_groups,
    hybrid_max_context,
    hybrid_num_blocks,
    hybrid_tokens,
)
from gpudesk.units import GIB
from gpudesk.sizing.memory_inference import (
    kv_global_layer_bytes_per_token,
    kv_layer_bytes_per_token,
    kv_sequence_bytes,
    kv_token_bytes_all_layers,
    resolve_weight_format,
    weight_bytes,
)
from gpudesk.sizing.shapes import ModelSpec
from gpudesk.sizing.engines.vllm_encoder import encoder_profile, image_limit, tower_loaded
from gpudesk.sizing.vision_tower import vision_tower_bytes

#: vLLM's switch for FlashInfer's top-k/top-p sampler (``vllm/envs.py``).
ENV_FLASHINFER_SAMPLER = "VLLM_USE_FLASHINFER_SAMPLER"
#: vLLM settings gpudesk sizes: default, type, flag (vllm/engine/arg_utils.py EngineArgs).
SETTINGS: dict[str, Setting] = {
    "gpu_memory_utilization": (0.9, float, "--gpu-memory-utilization"),
    "max_model_len": (None, int, "--max-model-len"),
    "max_num_seqs": (None, int, "--max-num-seqs"),
    "max_num_batched_tokens": (None, int, "--max-num-batched-tokens"),
    "block_size": (16, int, "--block-size"),
    "kv_cache_dtype": ("auto", str, "--kv-cache-dtype"),
    "dtype": ("auto", str, "--dtype"),
    "quantization": (None, str, "--quantization"),
    "tensor_parallel_size": (1, int, "--tensor-parallel-size"),
    "enforce_eager": (False, bool, "--enforce-eager"),
    "enable_chunked_prefill": (None, bool, "--enable-chunked-prefill"),
    "enable_lora": (False, bool, "--enable-lora"),
    "max_lora_rank": (16, int, "--max-lora-rank"),
    "max_loras": (1, int, "--max-loras"),
    "cpu_offload_gb": (0.0, float, "--cpu-offload-gb"),
    "swap_space": (4.0, float, "--swap-space"),
    "num_gpu_blocks_override": (None, int, "--num-gpu-blocks-override"),
    # No term of their own: prefix caching shares the one KV block pool (vllm/v1/core/kv_cache_manager.py); a KV
    # connector's own buffers (--kv-transfer-config, e.g. LMCacheConnectorV1, whose cache lives in host memory)
    # are not sized here. Both are accepted so the command line shown is the one launched.
    "enable_prefix_caching": (None, bool, "--enable-prefix-caching"),
    # One KV cache group for every layer, sliding-window ones sized as full attention (vllm_hybrid.py).
    "disable_hybrid_kv_cache_manager": (False, bool, "--disable-hybrid-kv-cache-manager"),
    # An environment variable, not a flag: true when FlashInfer is installed and its sampler used (V1 logs "Using
    # FlashInfer for top-p & top-k sampling."), which changes the profiled sampler peak (forward.py); shown as a
    # VLLM_USE_FLASHINFER_SAMPLER=1 prefix of the command.
    "vllm_use_flashinfer_sampler": (False, bool, ENV_FLASHINFER_SAMPLER),
    "kv_transfer_config": (None, str, "--kv-transfer-config"),
    # Whether OpenAI's ``triton_kernels`` package is installed (not a flag): picks the MXFP4 MoE path and its
    # padding (module docstring); None: by release (:func:`mxfp4_marlin`).
    "triton_kernels": (None, bool, "triton_kernels"),
    # Not a flag: GiB other processes already hold on each GPU. The budget stays total x utilization (the profile
    # measures vLLM's own use), but V1 refuses to start when less than that is free (gpu_worker.py init_device,
    # read in the 0.9.2, 0.10.1 and 0.11.0 wheels).
    "gpu_used_gib": (0.0, float, "gpu_used_gib"),
    # Not a flag: how the tensor-parallel GPUs talk (nvlink, pcie, shm); default from the device.
    "nccl_transport": (None, str, "nccl_transport"),
    # Multimodal models (vllm_encoder.py): images per prompt ({"image": 0} or image=0: no encoder profile, and from
    # 0.17 no vision tower), text only (0.17 on), or no encoder profile (0.10.1 on).
    "limit_mm_per_prompt": (None, str, "--limit-mm-per-prompt"),
    "language_model_only": (False, bool, "--language-model-only"),
    "skip_mm_profiling": (False, bool, "--skip-mm-profiling"),
}
#: The flag that turns a multimodal model's images off (vllm_encoder.py), as a user types it.
DISABLE_IMAGES_FLAG = """--limit-mm-per-prompt '{"image": 0}'"""
#: Settings that describe the environment, not the command line.
ENVIRONMENT_SETTINGS = frozenset({"vllm_use_flashinfer_sampler", "triton_kernels", "gpu_used_gib", "nccl_transport"})
#: Non-torch memory seen by the profiler (cuBLAS/cuBLASLt workspaces, NCCL and custom all-reduce buffers with TP):
#: vLLM >= 0.6.5 prints 0.16 GiB on an H100 (vllm-project/vllm PR 12126) and 0.25-0.35 GiB on 24-48 GiB cards
#: with TP 1-2 (issues 10517, 13061, 15815).
NON_TORCH_BYTES = 0.25 * GIB
#: Extra non-torch memory the V1 profiler measures on each rank at tensor parallelism > 1 from vLLM 0.16 (module
#: docstring, :func:`tp_profile_non_torch_bytes`): 0.19.0 prints "non-torch forward increase memory" 2.07-2.10 GiB at
#: TP 2 and 2.13-2.21 GiB at TP 4 against 0.24-0.26 GiB at TP 1 on H100 (llm-d-incubation/llm-d-planner
#: accuracy/results/v0.19.0/logs, 10 TP runs of 7 models, hidden sizes 2,048-8,192).
TP_PROFILE_NON_TORCH_BYTES = 1.85 * GIB
#: CUDA graph pool of the default capture sizes (up to 512 sequences; logged "took 0.3-1.5 GiB").
CUDA_GRAPH_BYTES_PER_LAYER = 0.02 * GIB


def is_v1(version: str) -> bool:
    """V1 engine: ``v1``, or a release from 0.8 on (V0 for ``v0`` and releases before 0.8)."""
    v = version.strip().lower()
    if v in ("v1", "1", "latest", ""):
        return True
    if v in ("v0", "0"):
        return False
    try:
        parts = [int(p) for p in v.lstrip("v").split(".")[:2]]
    except ValueError:
        return True
    return parts[0] > 0 or (len(parts) > 1 and parts[1] >= 8)


#: MXFP4 block: 32 FP4 values (16 bytes) share one 8-bit scale (OCP Microscaling spec): 4.25 bits per weight.
MXFP4_BITS = 4.25


def _round_up(n: int, multiple: int) -> int:
    return -(-n // multiple) * multiple


def mxfp4_marlin(version: str, triton_kernels: bool | None = None) -> bool:
    """True when vLLM ``version`` runs MXFP4 MoE on the Marlin weight-only path on a GPU without native FP4
    (module docstring): always up to 0.10; from 0.10.2 unless ``triton_kernels`` is installed, which the wheels
    vendor from 0.12 (and an unnumbered release is taken to), unless told."""
    release = _patch_release(version)
    if release is not None and release < (0, 10, 2):
        return True
    if triton_kernels is None:
        triton_kernels = release is None or release >= (0, 12, 0)
    return not triton_kernels


def mxfp4_padding_bytes(spec: ModelSpec, weight_format: str, version: str, tensor_parallel: int = 1,
                        triton_kernels: bool | None = None) -> float:
    """Bytes one rank's MXFP4 expert weights grow by when vLLM pads them for its MoE kernel (module docstring);
    0 for other formats and dense models."""
    if weight_format.lower() != "mxfp4" or not (spec.moe_experts and spec.hidden_size):
        return 0.0
    width = spec.moe_ffn_size or spec.ffn_size or 0
    tp = max(1, tensor_parallel)
    per_rank = width // tp
    marlin = mxfp4_marlin(version, triton_kernels)
    padded_width = _round_up(per_rank, 128 if marlin else 64)
    hidden = spec.hidden_size
    layers = spec.moe_layers if spec.moe_layers is not None else (spec.layers or 0)
    grow = 3 * (padded_width * _round_up(hidden, 256) - per_rank * hidden)
    return layers * spec.moe_experts * grow * MXFP4_BITS / 8


def mxfp4_expert_bias_bytes(spec: ModelSpec, weight_format: str, version: str, tensor_parallel: int = 1,
                            triton_kernels: bool | None = None) -> float:
    """Bytes of one rank's 16-bit expert biases in vLLM's MXFP4 MoE layer; 0 for other formats and dense models.

    ``Mxfp4MoEMethod.create_weights`` (``vllm/model_executor/layers/quantization/mxfp4.py``, read at
    https://github.com/vllm-project/vllm/blob/007d50058a06dec0f82472d63c819244d460c40d/vllm/model_executor/layers/quantization/mxfp4.py)
    registers, beside the packed weights and scales, ``w13_bias`` (``num_experts x 2 x intermediate_after_pad``)
    and ``w2_bias`` (``num_experts x hidden_size``), both ``torch.bfloat16``, for every MoE layer: the padded
    per-rank intermediate size on each rank, the whole (padded) hidden size on every rank. Padding as for the
    weights: Marlin rounds the intermediate size to 128 and the hidden size to 256; the CUDA Triton path rounds
    the intermediate size to 64 and keeps the hidden size. gpt-oss's checkpoint carries these biases
    (transformers ``GptOssExperts`` ``gate_up_proj_bias`` / ``down_proj_bias``), which parameter counts without
    biases leave out (the catalog's gpt-oss rows; :func:`gpudesk.sizing.shapes.spec_from_hf_config`): 0.077 GiB
    for gpt-oss-120b on the Marlin path, whose "Model loading took 65.97 GiB" (vllm-project/vllm#23278) they bring
    within 0.1 %."""
    if weight_format.lower() != "mxfp4" or not (spec.moe_experts and spec.hidden_size):
        return 0.0
    tp = max(1, tensor_parallel)
    per_rank = (spec.moe_ffn_size or spec.ffn_size or 0) // tp
    if mxfp4_marlin(version, triton_kernels):
        intermediate, hidden = _round_up(per_rank, 128), _round_up(spec.hidden_size, 256)
    else:
        intermediate, hidden = _round_up(per_rank, 64), spec.hidden_size
    layers = spec.moe_layers if spec.moe_layers is not None else (spec.layers or 0)
    return layers * spec.moe_experts * (2 * intermediate + hidden) * 2


def kv_precision(kv_cache_dtype: str, model_dtype: str = "bf16") -> str:
    """vLLM ``--kv-cache-dtype`` -> a gpudesk precision (fp8, fp8_e4m3, fp8_e5m2: fp8). ``auto`` caches in the
    model's ``--dtype`` (``vllm/config/cache.py`` CacheConfig: "auto" uses the model data type; ``vllm/worker``'s
    ``STR_DTYPE_TO_TORCH_DTYPE``): ``half``/``float16`` 2 bytes, ``float``/``float32`` 4 bytes (``--dtype float32``
    on Llama-3.1-8B in vLLM 0.19.0: 42.8 GiB hold 175,296 tokens, 256 KiB a token, twice bf16's), else bf16."""
    k = (kv_cache_dtype or "auto").lower()
    if k == "auto":
        d = (model_dtype or "auto").lower()
        if d in ("fp16", "float16", "half"):
            return "fp16"
        if d in ("fp32", "float32", "float"):
            return "fp32"
        return "bf16"
    return "fp8" if k.startswith("fp8") else k


def _release(version: str) -> tuple[int, int] | None:
    v = version.strip().lower().lstrip("v")
    try:
        major, minor = (int(p) for p in v.split(".")[:2])
    except ValueError:
        return None
    return major, minor


def triton_top_k_top_p(version: str) -> bool:
    """True from vLLM 0.17, whose sampler masks top-k/top-p with a Triton kernel instead of sorting
    (:mod:`gpudesk.sizing.engines.forward`); an unnumbered ``v1``/``latest`` is the newest release."""
    if not is_v1(version):
        return False
    release = _patch_release(version)
    return release is None or release >= (0, 17, 0)


def graphs_in_budget(version: str) -> bool:
    """True from vLLM 0.21, whose profiler counts the CUDA graph pool inside ``gpu_memory_utilization`` (module
    docstring); an unnumbered ``v1``/``latest`` is the newest release."""
    if not is_v1(version):
        return False
    release = _patch_release(version)
    return release is None or release >= (0, 21, 0)


def tp_profile_non_torch_bytes(version: str, tensor_parallel: int, transport: str) -> float:
    """Non-torch memory that appears on each rank during V1's profile run at ``tensor_parallel`` > 1 from vLLM 0.16
    on, and so is subtracted from the KV budget (``vllm/v1/worker/gpu_worker.py`` ``determine_available_memory``:
    "Total non KV cache memory" = weights + torch peak increase + non-torch increase, measured from the worker's
    init snapshot, which already holds the NCCL communicator). What the profile run creates outside PyTorch's
    allocator at TP > 1: the FlashInfer all-reduce + RMSNorm fusion workspace, IPC buffers that every rank
    allocates with ``cudaMalloc`` (``vllm/distributed/device_communicators/flashinfer_all_reduce.py``
    ``get_fi_ar_workspace``; FlashInfer ``trtllm_create_ipc_workspace_for_all_reduce_fusion``: ``tp x tokens x
    hidden x 2`` bytes of buffer plus three times that of Lamport buffers, 512 MiB at TP 2 with the 64 MB limit),
    the fusion pass being on by default at ``-O2`` since vllm-project/vllm PR 34299 (merged 2026-02-11, first in
    0.16: "Enabled custom fusions: allreduce_rms"); the NCCL connections and their buffers, which NCCL >= 2.22
    sets up on the first collective of each algorithm (``NCCL_RUNTIME_CONNECT`` defaults to 1, NCCL
    ``src/init.cc``), here the profile run's all-reduces, and graph-captured collectives (NVIDIA/nccl#1234). The
    sum is taken as printed (:data:`TP_PROFILE_NON_TORCH_BYTES`), not term by term: it barely depends on the
    model or TP 2 vs 4, while the FlashInfer workspace alone falls from 512 to 32 MiB between them, so the parts
    are not yet separated. vLLM 0.11.0 at TP 2 on H100 printed 0.55 GiB non-torch in all (no fusion workspace),
    0.10.1 on A100 none of it. Without peer access (``shm``) neither custom all-reduce nor the fusion runs: 0."""
    release = _patch_release(version)
    if tensor_parallel <= 1 or transport == "shm" or not is_v1(version):
        return 0.0
    if release is not None and release < (0, 16, 0):
        return 0.0
    return TP_PROFILE_NON_TORCH_BYTES


def profiling_era(version: str) -> str:
    """How the engine measured the profile peak (module docstring): ``allocated`` (V0 up to 0.2.4), ``device``
    (0.2.5-0.3.0: total - free), ``since_init`` (0.3.1-0.6.3: free at init - free) or ``torch_peak`` (0.6.4 on,
    and V1). An unnumbered ``v0`` is the last V0."""
    release = _patch_release(version)
    if release is None or not (release[0] == 0 and release[1] < 7):
        return "torch_peak"
    if release < (0, 2, 5):
        return "allocated"
    if release < (0, 3, 1):
        return "device"
    if release < (0, 6, 4):
        return "since_init"
    return "torch_peak"


def _patch_release(version: str) -> tuple[int, int, int] | None:
    parts = version.strip().lower().lstrip("v").split(".")
    try:
        nums = [int("".join(c for c in p if c.isdigit()) or "x") for p in parts[:3]]
    except ValueError:
        return None
    if len(nums) < 2:
        return None
    return nums[0], nums[1], nums[2] if len(nums) > 2 else 0


def v1_batch_defaults(version: str, gpu_total_bytes: int, gpu_name: str = "") -> tuple[int, int]:
    """V1's default (``max_num_seqs``, ``max_num_batched_tokens``) for ``vllm serve`` (``EngineArgs.
    _set_default_args_v1`` in ``vllm/engine/arg_utils.py``, read in the 0.8.0-0.11.0 wheels):

    - 0.8.0-0.8.3: 1024 sequences on every GPU; 8192 batched tokens when the device name has "h100" or "h200",
      else 2048;
    - 0.8.4: 1024 / 8192 on H100/H200 by name, else 256 / 2048;
    - 0.8.5: by memory, 1024 / 8192 at 70 GiB and more, else 256 / 2048;
    - 0.9.0 on: the same, except an A100 ("a100" in the device name) keeps 256 / 2048.
    ``gpu_name`` is the device as named (catalog or the log's ``torch.cuda.get_device_name``)."""
    release = _patch_release(version)
    name = gpu_name.lower()
    large = gpu_total_bytes >= 70 * GIB
    hopper_name = "h100" in name or "h200" in name
    if release is not None and release < (0, 8, 4):
        return 1024, 8192 if hopper_name else 2048
    if release is not None and release < (0, 8, 5):
        return (1024, 8192) if hopper_name else (256, 2048)
    if release is not None and release < (0, 9, 0):
        return (1024, 8192) if large else (256, 2048)
    return (1024, 8192) if large and "a100" not in name else (256, 2048)


def default_max_num_seqs(version: str, gpu_total_bytes: int, gpu_name: str = "") -> int:
    """vLLM's default ``max_num_seqs``: 256 for V0 (``EngineArgs``: "Set max_num_seqs to 256 for VLLM_V0"), V1's
    from :func:`v1_batch_defaults`."""
    if not is_v1(version):
        return 256
    return v1_batch_defaults(version, gpu_total_bytes, gpu_name)[0]


def default_batched_tokens(v1: bool, max_model_len: int, gpu_total_bytes: int, chunked: bool | None,
                           version: str = "v1", gpu_name: str = "") -> int:
    """vLLM's default ``max_num_batched_tokens`` (module docstring; V1: :func:`v1_batch_defaults`)."""
    if v1:
        return v1_batch_defaults(version, gpu_total_bytes, gpu_name)[1]
    if chunked:
        return 512
    return max(max_model_len, 2048)


#: The AMD targets vLLM's ROCm build runs on (docs ``getting_started/installation/gpu.rocm.inc.md``, "GPU: MI200s
#: (gfx90a), MI300 (gfx942), MI350 (gfx950), Radeon RX 7900 series (gfx1100/1101), Radeon RX 9000 series
#: (gfx1200/1201), Ryzen AI MAX / AI 300 Series (gfx1151/1150)"; the 0.4.0-0.5.3 docs list gfx90a, gfx942 and
#: gfx1100 alone).
ROCM_TARGETS = frozenset({"gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1101", "gfx1200", "gfx1201", "gfx1150",
                          "gfx1151"})


def check_rocm_target(gpu_name: str) -> None:
    """Refuse an AMD GPU whose target vLLM's ROCm build does not support (MI50/MI60 gfx906, MI100 gfx908): vLLM runs
    there only as a third-party fork (e.g. nlzy/vllm-gfx906), whose kernels, quantised weight layouts and profiling
    are not those of vLLM's source, so its memory is not predicted.

    Raises:
        SizingError (field ``gpu``).
    """
    target = amd_gfx_target(gpu_name)
    if target is not None and target not in ROCM_TARGETS:
        raise SizingError("gpu", _("vLLM's ROCm build does not support {gpu} ({target}; it runs on {targets}); only "
                                   "third-party forks run there, and their memory use is not modelled.").format(
            gpu=gpu_name, target=target, targets=", ".join(sorted(ROCM_TARGETS))))


def vllm_fit(spec: ModelSpec, gpu_name: str, gpu_total_bytes: int, given: dict[str, Any], *,
             version: str = "v1", weight_format: str = "checkpoint", concurrency: int = 1,
             model_ref: str | None = None, advise: bool = True, nvlink: bool = False) -> EngineFit:
    """vLLM's sizing of ``spec`` on ``tensor_parallel_size`` GPUs of ``gpu_total_bytes`` each (module docstring);
    ``nvlink``: the GPUs are NVLink-connected (NCCL's default transport)."""
    check_rocm_target(gpu_name)
    s = settings_with_defaults(SETTINGS, given)
    transport = s["nccl_transport"] = resolve_nccl_transport(s["nccl_transport"], nvlink)
    v1 = is_v1(version)
    tp = max(1, int(s["tensor_parallel_size"]))
    fmt = resolve_weight_format(spec, quantized_weight_format(s["quantization"], weight_format))
    max_len = int(s["max_model_len"] or spec.context_length or 4096)
    block = int(s["block_size"])
    seqs = int(s["max_num_seqs"] or default_max_num_seqs(version, gpu_total_bytes, gpu_name))
    batched = int(s["max_num_batched_tokens"] or default_batched_tokens(v1, max_len, gpu_total_bytes,
                                                                       s["enable_chunked_prefill"], version,
                                                                       gpu_name))
    images = image_limit(s["limit_mm_per_prompt"])
    tower = spec.vision_tower if tower_loaded(_release(version), images, bool(s["language_model_only"])) else None
    weights = (weight_bytes(spec, fmt) + mxfp4_padding_bytes(spec, fmt, version, tp, s["triton_kernels"]) * tp) / tp \
        + mxfp4_expert_bias_bytes(spec, fmt, version, tp, s["triton_kernels"]) \
        + vision_tower_bytes(tower, tp) + rope_table_bytes(spec) - float(s["cpu_offload_gb"]) * GIB
    if s["enable_lora"]:
        # LoRA slots for max_loras adapters of max_lora_rank on every linear layer (A and B, bf16).
        weights += 2 * s["max_loras"] * s["max_lora_rank"] * (spec.hidden_size or 0) * 7 * (spec.layers or 0) * 2 / tp
    flashinfer = bool(s["vllm_use_flashinfer_sampler"]) and v1
    triton_sampler = triton_top_k_top_p(version)
    activation = (v1_profile_peak_bytes(spec, batched, seqs, tp, flashinfer, triton_sampler,
                                        streaming_multiprocessors(gpu_name)) if v1
                  else v0_profile_peak_bytes(spec, batched, seqs, tp))
    encoder = encoder_profile(tower, spec.hidden_size or 0, batched, seqs, max_len,
                              0 if s["language_model_only"] else images, tp) \
        if v1 and not s["skip_mm_profiling"] else None
    if encoder is not None:
        activation = max(encoder.encoder_peak_bytes, activation + encoder.cached_output_bytes)
    era = profiling_era(version) if not v1 else "torch_peak"
    tp_collective = tp_profile_non_torch_bytes(version, tp, transport) if v1 else 0.0
    non_torch = NON_TORCH_BYTES + tp_collective
    if era in ("device", "since_init"):
        non_torch += nccl_device_bytes(tp, transport) + (CONTEXT_BYTES if era == "device" else 0.0)
    graphs = 0.0 if s["enforce_eager"] else CUDA_GRAPH_BYTES_PER_LAYER * (spec.layers or 0)
    util = float(s["gpu_memory_utilization"])
    requested = gpu_total_bytes * util
    available = requested - weights - activation - non_torch
    if graphs_in_budget(version):
        available -= graphs
    kvp = kv_precision(s["kv_cache_dtype"], s["dtype"])
    per_token = kv_token_bytes_all_layers(spec, kvp, tp)
    groups = hybrid_groups(spec, _release(version)) if v1 and not s["disable_hybrid_kv_cache_manager"] else None
    if groups is not None:
        # vllm_hybrid.py: group_size tensors of num_blocks pages; the printed tokens count one group's blocks.
        # One page size for every group: the largest layer's (kv_cache_utils.py unify_kv_cache_spec_page_size
        # widens the smaller layers' blocks to it).
        page = max(kv_layer_bytes_per_token(spec, kvp, tp), kv_global_layer_bytes_per_token(spec, kvp, tp)) * block
        blocks = hybrid_num_blocks(groups, available, page)
        if s["num_gpu_blocks_override"]:
            blocks = int(s["num_gpu_blocks_override"])
        kv_bytes = blocks * page * groups.group_size
        tokens = hybrid_tokens(groups, blocks, block)
        per_block_request = hybrid_blocks_per_request(groups, int(spec.sliding_window or 0), max_len, batched, block)
        max_conc = blocks / per_block_request if per_block_request else 0.0
    else:
        blocks = max(0, int(available // (per_token * block))) if available > 0 else 0
        if s["num_gpu_blocks_override"]:
            blocks = int(s["num_gpu_blocks_override"])
        kv_bytes = blocks * block * per_token
        tokens = blocks * block
        per_request = kv_sequence_bytes(spec, max_len, kvp, tp, block, prefill_chunk_tokens=batched,
                                        hybrid_kv_cache=not s["disable_hybrid_kv_cache_manager"])
        if v1:
            max_conc = kv_bytes / per_request if per_request else 0.0
        else:
            max_conc = tokens / max_len
    if groups is not None:
        per_seq_ctx = hybrid_max_context(groups, int(spec.sliding_window or 0), blocks, max(1, concurrency), batched,
                                         block, max_len)
    else:
        per_seq_ctx = _max_context(spec, kv_bytes, max(1, concurrency), kvp, tp, block, batched, max_len)
    free_at_start = gpu_total_bytes - float(s["gpu_used_gib"]) * GIB
    release = _release(version)
    shared_refused = free_at_start < requested and v1 and (release is None or release >= (0, 9))
    fits = available > 0 and tokens >= max_len and weights <= requested and not shared_refused
    if shared_refused:
        # vllm/v1/worker/gpu_worker.py init_device (0.9.2-0.11.0 wheels): "Free memory on device ... on startup is
        # less than desired GPU memory utilization"
        reason = _("free memory on the device at start-up ({free:.2f} GiB) is less than gpu_memory_utilization "
                   "{util:g} asks for ({budget:.2f} GiB); lower it or free the memory other processes use.").format(
            free=free_at_start / GIB, util=util, budget=requested / GIB)
    elif available <= 0:
        reason = _("weights, activation peak and non-torch memory take {need:.2f} GiB of the {budget:.2f} GiB that "
                   "gpu_memory_utilization {util:g} allows; nothing is left for the KV cache.").format(
            need=(weights + activation + non_torch) / GIB, budget=requested / GIB, util=util)
    elif tokens < max_len:
        reason = _("the model's max seq len ({max_model_len}) is larger than the maximum number of tokens that can "
                   "be stored in KV cache ({tokens}).").format(max_model_len=max_len, tokens=tokens)
    else:
        reason = ""
    flags = {k: v for k, v in s.items() if v is not None and v != SETTINGS[k][0]
             and k not in ENVIRONMENT_SETTINGS}
    flags["max_model_len"] = max_len
    if images is not None:
        flags["limit_mm_per_prompt"] = json.dumps({"image": images})
    spelled = {k: v[2] for k, v in SETTINGS.items()}
    model = model_ref or spec.hf_repo or spec.name
    if uses_vllm_serve(version):
        cmd = command_line("vllm serve", model, flags, spelled, positional_model=True)
    else:
        cmd = command_line("python -m vllm.entrypoints.openai.api_server", model, flags, spelled)
    if s["vllm_use_flashinfer_sampler"]:
        cmd = f"{ENV_FLASHINFER_SAMPLER}=1 {cmd}"
    mem = GpuMemory(weights, activation, non_torch, kv_bytes, graphs)
    changes = () if fits or not advise else _changes(spec, gpu_name, gpu_total_bytes, s, version, weight_format, model, max_len)
    src = "vllm/v1/worker/gpu_worker.py determine_available_memory; vllm/v1/core/kv_cache_utils.py" if v1 else \
        "vllm/worker/worker.py determine_num_available_blocks"
    assumptions = (
        (_("KV budget = {total:.2f} GiB x {util:g} - weights - activation peak - non-torch memory").format(
            total=gpu_total_bytes / GIB, util=util), src),
        (_("activation peak of a profile run over {tokens} batched tokens and {seqs} sequences").format(
            tokens=batched, seqs=seqs), "gpudesk.sizing.engines.forward"),
        *(((_("the sampler is profiled with FlashInfer's top-k/top-p kernels (VLLM_USE_FLASHINFER_SAMPLER)"),
            "vllm/v1/sample/ops/topk_topp_sampler.py"),) if flashinfer else ()),
        *(((_("the sampler is profiled with top-k/top-p in PyTorch (no FlashInfer installed); with FlashInfer the "
              "KV cache gets about {gib:.2f} GiB more").format(
            gib=max(0.0, activation - v1_profile_peak_bytes(spec, batched, seqs, tp, True)) / GIB),
           "vllm/v1/sample/ops/topk_topp_sampler.py"),) if v1 and not flashinfer and not triton_sampler else ()),
        *(((_("the sampler masks top-k/top-p in place with vLLM's Triton kernel (0.17 on) instead of sorting"),
            "vllm/v1/sample/ops/topk_topp_triton.py"),) if v1 and not flashinfer and triton_sampler else ()),
        *(((_("at tensor parallelism {tp} the profile run's all-reduce workspaces and NCCL buffers add {gib:.2f} GiB "
              "of non-torch memory per GPU (vLLM 0.16 on)").format(tp=tp, gib=tp_collective / GIB),
           "vllm/distributed/device_communicators/flashinfer_all_reduce.py"),) if tp_collective else ()),
        *(((_("the profile run also encodes {images} dummy images of {tokens} tokens and keeps their outputs "
              "through the language model's profile; {flag} skips that").format(
            images=encoder.images, tokens=encoder.tokens_per_image, flag=DISABLE_IMAGES_FLAG),
           "vllm/v1/worker/gpu_model_runner.py profile_run"),) if encoder is not None else ()),
        ((_("CUDA graph memory is estimated by the profiler and kept inside gpu_memory_utilization (vLLM 0.21 on)")
          if graphs_in_budget(version) else
          _("CUDA graphs are captured after the KV cache, outside gpu_memory_utilization")),
         "vllm/v1/worker/gpu_model_runner.py capture_model"),
    )
    return EngineFit("vllm", version, gpu_name, gpu_total_bytes, tp, mem, tokens, blocks, block,
                     max_len, max(1, concurrency), max_conc, per_seq_ctx, fits, reason, cmd, s,
                     changes=changes, assumptions=assumptions,
                     extra={"engine_family": "v1" if v1 else "v0", "max_num_batched_tokens": batched,
                            "profiling_era": era, "cuda_graphs_in_budget": graphs_in_budget(version),
                            "kv_budget_bytes": round(max(0.0, available))})


def _max_context(spec: ModelSpec, kv_bytes: float, concurrency: int, kvp: str, tp: int, block: int, batched: int,
                 limit: int) -> int:
    """Longest request such that ``concurrency`` of them fit in ``kv_bytes`` (bisection on whole blocks)."""
    lo, hi = 0, max(block, limit)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if kv_sequence_bytes(spec, mid, kvp, tp, block, prefill_chunk_tokens=batched) * concurrency <= kv_bytes:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _changes(spec: ModelSpec, gpu_name: str, gpu_total: int, s: dict[str, Any], version: str, weight_format: str,
             model: str, max_len: int) -> tuple[Change, ...]:
    """Single changes, each tried alone, that make the launch start: fp8 KV, shorter context, a multimodal model
    without images (no encoder profile, and from 0.17 no vision tower: vllm_encoder.py), TP, utilization."""
    tries: list[tuple[str, dict[str, Any]]] = []
    tries.append((_("raise --gpu-memory-utilization"), {"gpu_memory_utilization": 0.95}))
    if is_v1(version) and not s["vllm_use_flashinfer_sampler"] and not triton_top_k_top_p(version):
        # The sorted top-k/top-p sampler of the profile run peaks at 38 bytes a logit over max_num_seqs rows
        # (forward.py); FlashInfer's kernels need 14 (vLLM's Docker images ship FlashInfer).
        tries.append((_("sample with FlashInfer (install flashinfer-python, as vLLM's Docker image does; "
                        "{env}=1)").format(env=ENV_FLASHINFER_SAMPLER), {"vllm_use_flashinfer_sampler": True}))
    seqs = int(s["max_num_seqs"] or default_max_num_seqs(version, gpu_total, gpu_name))
    if is_v1(version) and seqs > 256:
        tries.append((_("fewer sequences per step (--max-num-seqs 256)"), {"max_num_seqs": 256}))
    fp8 = fp8_kv_value("vllm", version)
    if fp8 and kv_precision(s["kv_cache_dtype"], s["dtype"]) != "fp8":
        tries.append((_("FP8 KV cache (--kv-cache-dtype {value})").format(value=fp8), {"kv_cache_dtype": fp8}))
    if spec.vision_tower is not None and image_limit(s["limit_mm_per_prompt"]) != 0 and not s["language_model_only"]:
        tries.append((_("text only: no images ({flag})").format(flag=DISABLE_IMAGES_FLAG),
                      {"limit_mm_per_prompt": json.dumps({"image": 0})}))
    for ctx in (max_len // 2, max_len // 4, 8192, 4096):
        if 0 < ctx < max_len:
            tries.append((_("shorter context (--max-model-len {ctx})").format(ctx=ctx), {"max_model_len": ctx}))
    tp = int(s["tensor_parallel_size"])
    for more in (tp * 2, tp * 4, tp * 8):
        if spec.num_attention_heads and spec.num_attention_heads % more:
            # vLLM refuses it at start: "Total number of attention heads (96) must be divisible by tensor parallel
            # size (64)" (vllm/config/model.py ModelConfig.verify_with_parallel_config).
            continue
        tries.append((_("more GPUs (--tensor-parallel-size {tp})").format(tp=more), {"tensor_parallel_size": more}))
    out = []
    for text, change in tries:
        trial = {k: v for k, v in s.items() if v is not None}
        trial.update(change)
        result = vllm_fit(spec, gpu_name, gpu_total, trial, version=version, weight_format=weight_format,
                          model_ref=model, advise=False)
        if result.fits:
            out.append(Change(text, change, result.command))
            if len(out) >= 3:
                break
    return tuple(out)
