"""What a serving speed estimate is asked about: the engine, the request shape and the load (one of them).

The fields are the settings a user types on the engine's command line or in its benchmark (vLLM
``benchmark_serving --max-concurrency / --request-rate``, ``benchmark_throughput``; SGLang ``bench_serving``;
TensorRT-LLM ``trtllm-bench``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from gpudesk.i18n import _
from gpudesk.sizing.checks import MAX_BATCH, MAX_SEQ_LEN_TOKENS, choice, fraction, positive_float, positive_int
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.serve_awq_gemm import AWQ_QUANTIZATION_CHOICES
from gpudesk.sizing.llamacpp_backends import llamacpp_backend
from gpudesk.sizing.serve_host import engine_version_tuple, trtllm_backend
from gpudesk.sizing.serve_lmdeploy import lmdeploy_backend
from gpudesk.sizing.serve_network import internode_network
from gpudesk.sizing.serve_lengths import LENGTH_DISTRIBUTIONS, SHAREGPT_MIN_TOKENS, sharegpt_mean_limits

#: ``llamacpp``: llama.cpp running a GGUF file, one sequence at a time (gpudesk.sizing.serve_llamacpp).
ENGINES = ("vllm", "sglang", "trtllm", "lmdeploy", "optimum-habana", "llamacpp")
#: llama.cpp names its builds by number (``b7340``), not by release.
_LLAMACPP_BUILD = re.compile(r"b?\d+")
KV_DTYPES = ("auto", "bf16", "fp16", "fp8", "int8", "int4")
#: KV dtypes only LMDeploy offers: ``quant_policy`` 8 (int8) and 4 (int4) (lmdeploy/messages.py
#: TurbomindEngineConfig.quant_policy, int8 since v0.1.0, int4 since v0.4.0; InternLM/lmdeploy).
LMDEPLOY_KV_DTYPES = frozenset({"int8", "int4"})
LMDEPLOY_INT4_KV_SINCE = (0, 4)  # lmdeploy/cli/utils.py --quant-policy choices [0, 4, 8] from v0.4.0
MAX_TP = 64
#: The largest scale-up (NVLink) domain a buyer can rack as one "node": 72 GPUs in a GB200/GB300 NVL72 rack (NVIDIA
#: GB200 NVL72 datasheet), 576 in the announced Rubin Ultra NVL576. Tensor parallelism stays within MAX_TP.
MAX_GPUS_PER_NODE = 576
MAX_KV_BLOCK_SIZE = 65_536
MAX_API_SERVERS = 1024
MAX_REPLICAS = 100_000
MAX_REQUEST_RATE_PER_S = 1e6
MAX_LATENCY_LIMIT_S = 3600.0
# Requests in one benchmark run: MLPerf Inference Offline runs over a million (8 x H200, Llama 2 70B: 1.2 M).
MAX_NUM_PROMPTS = 100_000_000
# Weight formats as serving engines and model cards name them -> the storage format of gpudesk.sizing.dtypes with the
# same bytes. AWQ and GPTQ checkpoints default to groups of 128 (AutoAWQ / AutoGPTQ ``q_group_size=128``); NVFP4 is
# FP4 (E2M1) with one FP8 scale per 16 values, 4.5 bits (NVIDIA, "Introducing NVFP4", 2025), the bytes of int4
# with a 16-bit scale and zero per 64 (4 + 32/64 bits).
SERVING_WEIGHT_FORMATS = {"int4-awq": "int4-g128", "awq": "int4-g128", "int4-gptq": "int4-g128", "gptq": "int4-g128",
                          "w4a16": "int4-g128", "nvfp4": "int4-g64", "fp8-dynamic": "fp8", "w8a8-fp8": "fp8",
                          "w8a8": "int8"}


def storage_weight_format(weight_format: str) -> str:
    """The :mod:`gpudesk.sizing.dtypes` format whose bytes a published weight format has (itself when it is one)."""
    return SERVING_WEIGHT_FORMATS.get(weight_format.lower(), weight_format)


@dataclass(frozen=True)
class ServeLoad:
    """One serving option and its load.

    ``engine``: vllm, sglang, trtllm or lmdeploy. ``input_tokens`` / ``output_tokens`` per request. Exactly one of
    ``concurrency`` (closed loop, requests in flight), ``request_rate_per_s`` (open loop, Poisson arrivals; ``math.inf``: all at once) and
    ``batch`` (offline: ``batch`` requests submitted at once, repeated). ``weight_format``: ``checkpoint`` or a
    format of :mod:`gpudesk.sizing.dtypes`. ``kv_dtype``: ``auto`` (the model's 16-bit dtype) or ``fp8``; LMDeploy
    also ``int8`` / ``int4`` (``--quant-policy 8`` / ``4``).
    ``gpu_memory_utilization``: the engine's memory fraction (vLLM ``--gpu-memory-utilization``, SGLang
    ``--mem-fraction-static``, TensorRT-LLM ``free_gpu_memory_fraction``); None = the engine's default.
    ``tp`` GPUs per replica, ``replicas`` data-parallel copies. ``max_num_batched_tokens`` (the scheduler's
    token budget per step) and ``max_num_seqs`` (running requests per replica): None = the engine's default.
    ``cuda_graphs``: decode steps replayed as CUDA/HIP graphs (False: ``--enforce-eager``). ``num_prompts``:
    requests in the benchmark (None: long enough for the steady state). ``mixed_prefill``: prompt chunks ride in
    the same steps as the decode tokens (vLLM V1 chunked prefill, TensorRT-LLM in-flight batching; SGLang
    ``--enable-mixed-chunk``); False: prompts run in steps of their own and pause decoding (SGLang's default, vLLM
    V0 without ``--enable-chunked-prefill``; for TensorRT-LLM, whose in-flight batching always mixes, False is
    ``enable_chunked_context`` off: each prompt runs whole in one step with the decode tokens); None: the engine's
    default. ``num_scheduler_steps``: decode steps
    scheduled at once (vLLM V0 ``--num-scheduler-steps``; new requests join only between such blocks).
    ``api_server_count``: API-server processes per replica (vLLM ``--api-server-count``; None: one).
    ``pp``: pipeline-parallel stages per replica (each stage ``tp`` GPUs; a replica is ``tp x pp`` GPUs).
    ``attention_dp``: attention data-parallel groups within the replica (SGLang ``--enable-dp-attention --dp D``,
    TensorRT-LLM ``enable_attention_dp``: D = tp; 1: plain tensor parallelism; :mod:`gpudesk.sizing.
    serve_dp_attention`).
    ``benchmark_warmup``: the benchmark client sends the run's first prompt once before it measures (vLLM ``vllm
    bench serve`` / ``benchmark_serving.py``); with vLLM V1's prefix cache the measured first request then finds
    its prompt cached (:mod:`gpudesk.sizing.serve_client`). Off unless the user says so: a deployment's first
    request finds no cache.
    ``cached_prompts``: how many of the run's first prompts (in the order the client sends them) an earlier run of
    the client sent to the same server, so that the engine's prefix cache holds them (a sweep over load levels that
    takes each level's prompts from the head of one dataset, as evalscope ``perf`` does; :mod:`gpudesk.sizing.
    serve_client`). 0 unless the user says so; needs ``num_prompts``.
    ``prefix_caching``: the engine's prefix cache on (True) or off (False: vLLM ``--no-enable-prefix-caching``,
    SGLang ``--disable-radix-cache``); None: the engine's default (:func:`gpudesk.sizing.serve_client.
    keeps_prefix_cache`). Off, neither the warm-up prompt nor an earlier run's prompts are found cached.
    ``rocm_aiter``: vLLM on AMD Instinct with AITER kernels (``VLLM_ROCM_USE_AITER=1``) or without (False); None:
    the AITER kernels, since the version does not tell which image ran (:mod:`gpudesk.sizing.serve_rocm_attention`).
    ``kv_block_size``: tokens per KV-cache block (vLLM ``--block-size``; None: the engine's default, 16).
    ``quantization``: vLLM ``--quantization`` as typed for an AWQ checkpoint, ``awq`` (forces vLLM's plain AWQ
    kernels), ``awq_marlin`` or ``marlin``; None: not given (Marlin where the release and GPU allow:
    :mod:`gpudesk.sizing.serve_awq_gemm`). Only vLLM takes one.
    ``scheduler_recv_interval``: SGLang ``--scheduler-recv-interval`` (new requests are taken in every this many
    decode steps; 1, the default, every step: :mod:`gpudesk.sizing.serve_sched`); only SGLang takes one.
    ``admit_interval_steps`` n and ``admit_min_running`` m: once m or more requests run, the scheduler admits
    waiting requests in only one step of every n (AMD's MLPerf vLLM build: ``VLLM_SUBSEQUENT_DECODE_STEPS`` = n - 1,
    ``VLLM_MIN_REQUEST_DECODE_STEP`` = m; :mod:`gpudesk.sizing.serve_sched`); n = 1, the default: every step, as
    upstream vLLM and the other engines do. Only vLLM takes one.
    ``internode_network``: the network between the nodes (or pods) of a replica whose tensor-parallel group spans
    more than ``gpus_per_node`` GPUs, as typed: ``ethernet-25g`` / ``tcp`` (NCCL over TCP sockets, no RDMA) or
    ``rdma`` / ``infiniband`` / ``roce``; None: RDMA (:mod:`gpudesk.sizing.serve_network`).
    ``backend``: TensorRT-LLM's runtime, ``pytorch`` or ``tensorrt`` (None: the release's default,
    :func:`gpudesk.sizing.serve_host.trtllm_backend`); LMDeploy's, ``turbomind`` or ``pytorch`` (None:
    ``turbomind``, :func:`gpudesk.sizing.serve_lmdeploy.lmdeploy_backend`); llama.cpp's GPU backend, ``cuda``,
    ``hip`` (``rocm``), ``metal``, ``sycl`` or ``vulkan`` (None: ``cuda``, :func:`gpudesk.sizing.llamacpp_backends.
    llamacpp_backend`); no other engine takes one.
    For LMDeploy ``gpu_memory_utilization`` is ``--cache-max-entry-count`` and ``max_num_seqs``
    ``--max-batch-size`` (:mod:`gpudesk.sizing.serve_lmdeploy`).
    """

    engine: str = "vllm"
    input_tokens: int = 1024
    output_tokens: int = 256
    concurrency: int | None = None
    request_rate_per_s: float | None = None
    batch: int | None = None
    weight_format: str = "checkpoint"
    kv_dtype: str = "auto"
    gpu_memory_utilization: float | None = None
    tp: int = 1
    replicas: int = 1
    max_num_batched_tokens: int | None = None
    max_num_seqs: int | None = None
    cuda_graphs: bool = True
    num_prompts: int | None = None
    mixed_prefill: bool | None = None
    num_scheduler_steps: int = 1
    gpus_per_node: int | None = None
    internode_network: str | None = None
    overlap_scheduling: bool | None = None
    engine_version: str | None = None
    length_spread: float = 0.0
    length_distribution: str = "fixed"
    api_server_count: int | None = None
    pp: int = 1
    backend: str | None = None
    attention_dp: int = 1
    benchmark_warmup: bool = False
    cached_prompts: int = 0
    prefix_caching: bool | None = None
    rocm_aiter: bool | None = None
    quantization: str | None = None  # vLLM --quantization for AWQ checkpoints (serve_awq_gemm)
    kv_block_size: int | None = None
    scheduler_recv_interval: int = 1
    ttft_p99_limit_s: float | None = None  # open loop run at the highest rate meeting these (serve_slo)
    tpot_p99_limit_s: float | None = None
    expert_parallel: int = 1  # GPUs of the replica the routed experts are spread over (serve_expert_parallel)
    admit_interval_steps: int = 1  # admit waiting requests in one step of every n (serve_sched)
    admit_min_running: int = 0  # ... once this many run
    # the attention groups are data-parallel replicas whose expert-parallel group spans them (vLLM --data-parallel-
    # size with --enable-expert-parallel): every non-expert weight is held per group, not split over tp (serve_wide_ep)
    dense_per_attention_group: bool = False

    def validated(self) -> ServeLoad:
        """Return self after checking every field.

        Raises:
            SizingError: naming the field (unknown engine or dtype, not exactly one load, a count that is not
                positive, a fraction outside (0, 1]).
        """
        choice("engine", self.engine, frozenset(ENGINES))
        choice("kv_dtype", self.kv_dtype, frozenset(KV_DTYPES))
        if self.kv_dtype.lower() in LMDEPLOY_KV_DTYPES and self.engine.lower() != "lmdeploy":
            raise SizingError("kv_dtype", _("an {dtype} KV cache is LMDeploy's quant_policy; engine {engine!r} has "
                                            "none: use auto or fp8.").format(dtype=self.kv_dtype, engine=self.engine))
        llamacpp = self.engine.lower() == "llamacpp"
        if llamacpp and self.engine_version is not None and not _LLAMACPP_BUILD.fullmatch(self.engine_version.strip()):
            raise SizingError("engine_version", _("{version!r} is not a llama.cpp build number (b7340).").format(
                version=self.engine_version))
        release = None if llamacpp else engine_version_tuple(self.engine_version)
        if self.kv_dtype.lower() == "int4" and release is not None and release < LMDEPLOY_INT4_KV_SINCE:
            raise SizingError("kv_dtype", _("LMDeploy {version} has no int4 KV cache (--quant-policy 4 came in "
                                            "0.4.0): use int8.").format(version=self.engine_version))
        positive_int("input_tokens", self.input_tokens, MAX_SEQ_LEN_TOKENS)
        positive_int("output_tokens", self.output_tokens, MAX_SEQ_LEN_TOKENS)
        loads = [name for name in ("concurrency", "request_rate_per_s", "batch") if getattr(self, name) is not None]
        if len(loads) != 1:
            raise SizingError("load", _("give exactly one of concurrency, request rate or batch (got {count}).").format(
                count=len(loads)))
        if self.concurrency is not None:
            positive_int("concurrency", self.concurrency, MAX_BATCH)
        if self.batch is not None:
            positive_int("batch", self.batch, MAX_BATCH)
        if self.request_rate_per_s is not None and self.request_rate_per_s != math.inf:
            positive_float("request_rate_per_s", self.request_rate_per_s, MAX_REQUEST_RATE_PER_S)
        if self.gpu_memory_utilization is not None:
            fraction("gpu_memory_utilization", self.gpu_memory_utilization, allow_zero=False)
        positive_int("tp", self.tp, MAX_TP)
        positive_int("pp", self.pp, MAX_TP)
        if self.backend is not None:
            if self.engine.lower() == "lmdeploy":
                lmdeploy_backend(self.backend)
            elif llamacpp:
                llamacpp_backend(self.backend)
            elif self.engine.lower() != "trtllm":
                raise SizingError("backend", _("only TensorRT-LLM, LMDeploy and llama.cpp have a backend choice (got "
                                               "engine {engine!r}).").format(engine=self.engine))
            else:
                trtllm_backend(self.engine_version, self.backend)
        if self.quantization is not None:
            choice("quantization", self.quantization, frozenset(AWQ_QUANTIZATION_CHOICES))
            if self.engine.lower() != "vllm":
                raise SizingError("quantization", _("only vLLM takes --quantization here (got engine "
                                                    "{engine!r}).").format(engine=self.engine))
        if self.rocm_aiter is not None and self.engine.lower() != "vllm":
            raise SizingError("rocm_aiter", _("only vLLM has the AITER switch (VLLM_ROCM_USE_AITER; got engine "
                                              "{engine!r}).").format(engine=self.engine))
        positive_int("replicas", self.replicas, MAX_REPLICAS)
        if self.max_num_batched_tokens is not None:
            positive_int("max_num_batched_tokens", self.max_num_batched_tokens, MAX_SEQ_LEN_TOKENS)
        if self.max_num_seqs is not None:
            positive_int("max_num_seqs", self.max_num_seqs, MAX_BATCH)
        if self.num_prompts is not None:
            positive_int("num_prompts", self.num_prompts, MAX_NUM_PROMPTS)
        positive_int("num_scheduler_steps", self.num_scheduler_steps, 1024)
        if self.cached_prompts:
            positive_int("cached_prompts", self.cached_prompts, MAX_NUM_PROMPTS)
            if self.num_prompts is None:
                raise SizingError("cached_prompts", _(
                    "prompts an earlier run sent need the run's prompt count (num_prompts): without one the estimate "
                    "is the steady state, which no earlier prompt reaches."))
        positive_int("scheduler_recv_interval", self.scheduler_recv_interval, 1024)
        positive_int("admit_interval_steps", self.admit_interval_steps, 1024)
        if self.admit_min_running:
            positive_int("admit_min_running", self.admit_min_running, MAX_BATCH)
        if self.admit_interval_steps > 1 and self.engine.lower() != "vllm":
            raise SizingError("admit_interval_steps", _(
                "admitting new requests every n-th step is a setting of AMD's vLLM build (VLLM_SUBSEQUENT_DECODE_STEPS; "
                "got engine {engine!r}).").format(engine=self.engine))
        if self.scheduler_recv_interval > 1 and self.engine.lower() != "sglang":
            raise SizingError("scheduler_recv_interval", _(
                "only SGLang has a scheduler receive interval (--scheduler-recv-interval; got engine {engine!r}).").format(
                engine=self.engine))
        if self.gpus_per_node is not None:
            positive_int("gpus_per_node", self.gpus_per_node, MAX_GPUS_PER_NODE)
        internode_network(self.internode_network)
        if not llamacpp:
            engine_version_tuple(self.engine_version)
        if self.api_server_count is not None:
            positive_int("api_server_count", self.api_server_count, MAX_API_SERVERS)
        positive_int("attention_dp", self.attention_dp, MAX_TP)
        if self.kv_block_size is not None:
            positive_int("kv_block_size", self.kv_block_size, MAX_KV_BLOCK_SIZE)
        positive_int("expert_parallel", self.expert_parallel, MAX_TP)
        if self.tp % self.expert_parallel:
            # An expert-parallel group over whole replicas is folded into one replica before this (serve_wide_ep);
            # what is left fits neither a replica nor a number of whole replicas.
            raise SizingError("expert_parallel", _(
                "The expert-parallel size {ep} neither divides the {tp} GPUs of a replica nor spans whole replicas "
                "of the {gpus} GPUs: use a divisor of {tp}, or a multiple of {tp} that divides {gpus} (expert "
                "parallelism across data-parallel replicas).").format(
                    tp=self.tp, ep=self.expert_parallel, gpus=self.tp * self.replicas))
        if self.tp % self.attention_dp:
            raise SizingError("attention_dp", _(
                "data-parallel attention splits the {tp} tensor-parallel GPUs into groups: {dp} does not divide "
                "{tp}.").format(tp=self.tp, dp=self.attention_dp))
        for name in ("ttft_p99_limit_s", "tpot_p99_limit_s"):
            if getattr(self, name) is not None:
                positive_float(name, getattr(self, name), MAX_LATENCY_LIMIT_S)
        if (self.ttft_p99_limit_s or self.tpot_p99_limit_s) and self.request_rate_per_s in (None, math.inf):
            raise SizingError("ttft_p99_limit_s", _(
                "a p99 latency limit sets the highest request rate the run may reach: it needs a finite request "
                "rate."))
        if not 0.0 <= self.length_spread <= 1.0:
            raise SizingError("length_spread", _("the length spread must be between 0 and 1 (got {value}).").format(
                value=self.length_spread))
        choice("length_distribution", self.length_distribution, LENGTH_DISTRIBUTIONS)
        if self.length_distribution == "sharegpt" and self.length_spread > 0:
            # vLLM's --random-range-ratio belongs to its random dataset; ShareGPT lengths come from the conversations
            # (benchmarks/benchmark_dataset.py): a spread given with them would be silently ignored.
            raise SizingError("length_spread", _(
                "a length spread varies the random dataset's lengths (vLLM --random-range-ratio); ShareGPT lengths "
                "come from the conversations themselves: give one or the other."))
        if self.length_distribution == "sharegpt":
            max_prompt, max_output = sharegpt_mean_limits(self.input_tokens)
            if not (SHAREGPT_MIN_TOKENS <= self.input_tokens <= max_prompt
                    and SHAREGPT_MIN_TOKENS <= self.output_tokens <= max_output):
                # The output limit shrinks as the prompt grows; past the largest mean prompt, quote the output
                # limit at that prompt (it would otherwise read as a negative count).
                max_output = sharegpt_mean_limits(min(self.input_tokens, max_prompt))[1]
                raise SizingError("length_distribution", _(
                    "ShareGPT lengths (vLLM's client keeps prompts of 4 to 1024 tokens and prompt + output of at "
                    "most 2048) cannot average {prompt} prompt and {output} output tokens: give means of 4 to "
                    "{max_prompt} prompt and 4 to {max_output} output tokens, or fixed lengths.").format(
                    prompt=self.input_tokens, output=self.output_tokens, max_prompt=max_prompt,
                    max_output=max_output))
        return self
