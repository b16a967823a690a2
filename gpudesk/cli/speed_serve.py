"""``gpudesk estimate speed`` for serving: one fixed option (engine, GPUs, request shape, load), no search.

``add_serve_arguments(parser)`` adds the serving flags (``--engine``, ``--input-tokens``, ``--output-tokens``,
one of ``--concurrency`` / ``--request-rate`` / ``--batch``, ``--weight-format``, ``--kv-dtype``,
``--gpu-memory-utilization``, ``--tp``, ``--replicas``, ``--engine-version``, ``--internode-network``; ``--pp`` (pipeline stages per replica) comes from the
training flags, ``--trtllm-backend``, ``--llamacpp-backend`` (llama.cpp only), ``--lmdeploy-backend`` / ``--cache-max-entry-count`` / ``--max-batch-size`` /
``--max-prefill-token-num`` (LMDeploy only), ``--[no-]overlap-scheduling``, ``--length-spread``, ``--length-distribution``, ``--ttft-p99-limit`` / ``--tpot-p99-limit``, ``--api-server-count``, ``--num-prompts``, ``--benchmark-warmup``, ``--prefix-caching``, ``--enable-dp-attention`` / ``--attention-dp``, ``--rocm-aiter``, ``--quantization``, ``--block-size``, ``--scheduler-recv-interval``, ``--admit-interval-steps`` / ``--admit-min-running``); ``--ep`` (the replica's expert-parallel size: vLLM --enable-expert-parallel, SGLang --ep-size, TensorRT-LLM --ep_size) also comes from the training flags; ``--gpu``, ``--count``, ``--model`` and ``--json`` come
from the common speed parser. ``cmd_serve_speed(args)`` prints the answer of
:func:`gpudesk.sizing.speed_serve.serve_speed` or, with ``--json``,
``{"serve": {...}, "assumptions": [...]}``.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import replace

from gpudesk.cli.json_text import dumps_json
from gpudesk.cli import CliError
from gpudesk.i18n import _
from gpudesk.sizing.dtypes import WEIGHT_FORMAT_CHOICES
from gpudesk.sizing.engines.ggml_types import gguf_file_types
from gpudesk.sizing.serve_awq_gemm import AWQ_QUANTIZATION_CHOICES
from gpudesk.sizing.serve_lengths import LENGTH_DISTRIBUTIONS
from gpudesk.sizing.serve_load import ENGINES, KV_DTYPES, SERVING_WEIGHT_FORMATS
from gpudesk.sizing.llamacpp_backends import LLAMACPP_BACKENDS
from gpudesk.sizing.serve_lmdeploy import LMDEPLOY_BACKENDS, lmdeploy_backend
from gpudesk.sizing.serve_wide_ep import fold_wide_expert_parallel

_FLAGS = {"engine": "--engine", "input_tokens": "--input-tokens", "output_tokens": "--output-tokens",
          "concurrency": "--concurrency", "request_rate_per_s": "--request-rate", "batch": "--batch",
          "weight_format": "--weight-format", "kv_dtype": "--kv-dtype",
          "gpu_memory_utilization": "--gpu-memory-utilization", "tp": "--tp", "replicas": "--replicas",
          "load": "--concurrency/--request-rate/--batch", "link": "--tp", "model": "--model", "gpu": "--gpu",
          "engine_version": "--engine-version", "gpus_per_node": "--server", "length_spread": "--length-spread",
          "length_distribution": "--length-distribution",
          "ttft_p99_limit_s": "--ttft-p99-limit", "tpot_p99_limit_s": "--tpot-p99-limit",
          "api_server_count": "--api-server-count", "pp": "--pp",
          "backend": "--trtllm-backend", "attention_dp": "--attention-dp", "kv_block_size": "--block-size",
          "rocm_aiter": "--rocm-aiter", "quantization": "--quantization",
          "scheduler_recv_interval": "--scheduler-recv-interval",
          "admit_interval_steps": "--admit-interval-steps", "admit_min_running": "--admit-min-running",
          "num_prompts": "--num-prompts", "max_num_seqs": "--max-batch-size",
          "max_num_batched_tokens": "--max-prefill-token-num",
          "expert_parallel": "--ep", "internode_network": "--internode-network"}


def _rate(text: str) -> float:
    value = text.strip().lower()
    if value in ("inf", "infinity"):
        return math.inf
    try:
        return float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(_("{text!r} is not a request rate; write e.g. 4 or inf.").format(
            text=text)) from None


def at_least_one(text: str) -> int:
    """argparse type of a GPU count or parallel degree: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(_("{text!r} is not a whole number.").format(text=text)) from None
    if value < 1:
        raise argparse.ArgumentTypeError(_("must be at least 1, got {value}.").format(value=value))
    return value


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    """The serving flags of ``gpudesk estimate speed`` (module docstring)."""
    parser.add_argument("--engine", choices=ENGINES, default="vllm",
                        help=_("inference engine of a serving estimate (the serving flags need it); without it, the "
                               "estimate is of training"))
    parser.add_argument("--input-tokens", type=int, default=None, metavar="N", help=_("prompt tokens per request"))
    parser.add_argument("--output-tokens", type=int, default=None, metavar="N", help=_("output tokens per request"))
    load = parser.add_mutually_exclusive_group()
    load.add_argument("--concurrency", type=int, metavar="N", help=_("closed loop: at most N requests in flight"))
    load.add_argument("--request-rate", type=_rate, metavar="R",
                      help=_("open loop: Poisson arrivals at R requests per second (inf: all at once)"))
    load.add_argument("--batch", type=int, metavar="N", help=_("offline: N requests submitted at once"))
    # GGUF file types (q4_k_m, q8_0 ...) for --engine llamacpp.
    formats = tuple(dict.fromkeys(WEIGHT_FORMAT_CHOICES + tuple(SERVING_WEIGHT_FORMATS) + gguf_file_types()))
    parser.add_argument("--weight-format", choices=formats, default="checkpoint",
                        help=_("stored weight format (default: the checkpoint's; with --engine llamacpp the GGUF "
                               "file type, e.g. q4_k_m)"))
    parser.add_argument("--kv-dtype", choices=KV_DTYPES, default="auto", help=_("KV-cache dtype (default auto)"))
    parser.add_argument("--gpu-memory-utilization", type=float, default=None, metavar="F",
                        help=_("engine memory fraction (vLLM gpu_memory_utilization, SGLang mem_fraction_static, "
                               "TensorRT-LLM free_gpu_memory_fraction); default: the engine's"))
    parser.add_argument("--tp", type=at_least_one, default=None, metavar="N", help=_("tensor-parallel GPUs per replica"))
    parser.add_argument("--replicas", type=at_least_one, default=None, metavar="N", help=_("data-parallel replicas"))
    parser.add_argument("--internode-network", default=None, metavar="NET",
                        help=_("network between the nodes when the tensor-parallel group spans more GPUs than one "
                               "--server holds: ethernet-25g / tcp (NCCL over TCP sockets, no RDMA; the rate in "
                               "Gb/s) or rdma (InfiniBand / RoCE); default rdma"))
    parser.add_argument("--length-spread", type=float, default=0.0, metavar="R",
                        help=_("prompt and output lengths vary uniformly within 1 +- R of the given ones (vLLM "
                               "--random-range-ratio); default 0"))
    parser.add_argument("--length-distribution", choices=LENGTH_DISTRIBUTIONS, default="fixed",
                        help=_("per-request lengths: fixed (every request at the given lengths) or sharegpt (ShareGPT "
                               "conversations' long-tailed lengths with the given means, as vLLM's benchmark sends "
                               "them); default fixed"))
    parser.add_argument("--ttft-p99-limit", type=float, default=None, metavar="S",
                        help=_("with --request-rate: the rate is the highest whose p99 time to first token stays "
                               "within S seconds (MLPerf Server); latencies are taken at that limit"))
    parser.add_argument("--tpot-p99-limit", type=float, default=None, metavar="S",
                        help=_("with --request-rate: the rate is the highest whose p99 time per output token stays "
                               "within S seconds (MLPerf Server); latencies are taken at that limit"))
    parser.add_argument("--api-server-count", type=at_least_one, default=None, metavar="N",
                        help=_("API-server processes in front of each replica (vLLM --api-server-count); default 1"))
    parser.add_argument("--num-prompts", type=at_least_one, default=None, metavar="N",
                        help=_("requests the benchmark sends in all (vllm bench serve --num-prompts); default: a run "
                               "long enough for the steady state"))
    parser.add_argument("--benchmark-warmup", action="store_true", default=False,
                        help=_("with --num-prompts: the benchmark client sends the first prompt once before measuring "
                               "(vllm bench serve); with vLLM's prefix cache on, the measured first request finds it "
                               "cached"))
    parser.add_argument("--prefix-caching", choices=("on", "off"), default=None,
                        help=_("the engine's prefix cache (off: vLLM --no-enable-prefix-caching, SGLang "
                               "--disable-radix-cache); default: the engine's (on in vLLM V1 and SGLang)"))
    parser.add_argument("--engine-version", default=None, metavar="X.Y",
                        help=_("engine release (e.g. 0.6.3); sets the defaults that changed between releases"))
    parser.add_argument("--trtllm-backend", choices=("pytorch", "tensorrt"), default=None,
                        help=_("TensorRT-LLM runtime: the PyTorch flow or the TensorRT-engine flow (trtllm-bench "
                               "--backend); default: the release's (PyTorch from 1.0)"))
    parser.add_argument("--lmdeploy-backend", choices=LMDEPLOY_BACKENDS, default=None,
                        help=_("LMDeploy engine: TurboMind or the PyTorch engine (lmdeploy serve api_server "
                               "--backend); default: turbomind"))
    parser.add_argument("--llamacpp-backend", choices=(*LLAMACPP_BACKENDS, "rocm"), default=None,
                        help=_("llama.cpp GPU backend the build uses (GGML_CUDA, GGML_VULKAN, GGML_HIP (rocm), "
                               "GGML_METAL, GGML_SYCL); every one is priced as CUDA; default: cuda"))
    parser.add_argument("--cache-max-entry-count", type=float, default=None, metavar="F",
                        help=_("LMDeploy KV-cache share: of the memory free after the weights (of the total before "
                               "0.2.2); default: the release's (0.8, 0.5 before 0.2.2)"))
    parser.add_argument("--max-batch-size", type=at_least_one, default=None, metavar="N",
                        help=_("LMDeploy requests running at once; default: the release's (by GPU from 0.6)"))
    parser.add_argument("--max-prefill-token-num", type=at_least_one, default=None, metavar="N",
                        help=_("LMDeploy prompt tokens per step; default: the release's (TurboMind 8192)"))
    parser.add_argument("--quant-policy", type=int, choices=(0, 4, 8), default=None,
                        help=_("LMDeploy KV-cache quantization: 8 int8, 4 int4 (from 0.4.0), 0 none (the "
                               "--kv-dtype int8 / int4 / auto of LMDeploy)"))
    parser.add_argument("--enable-dp-attention", action="store_true",
                        help=_("attention data-parallel across the replica's tensor-parallel GPUs, one group per GPU "
                               "(SGLang --enable-dp-attention, TensorRT-LLM enable_attention_dp)"))
    parser.add_argument("--attention-dp", type=at_least_one, default=None, metavar="D",
                        help=_("with --enable-dp-attention: attention groups per replica (SGLang --dp); default: --tp"))
    parser.add_argument("--quantization", choices=AWQ_QUANTIZATION_CHOICES, default=None,
                        help=_("vLLM --quantization for an AWQ checkpoint: awq forces vLLM's plain AWQ kernels, "
                               "awq_marlin / marlin (or none) let Marlin run where the release and GPU allow"))
    parser.add_argument("--rocm-aiter", choices=("on", "off"), default=None,
                        help=_("vLLM on AMD Instinct with AITER kernels (VLLM_ROCM_USE_AITER=1) or without; vLLM "
                               "and its vllm/vllm-openai-rocm image leave it off, AMD's recipes turn it on, so the "
                               "version does not tell: default on"))
    parser.add_argument("--block-size", type=at_least_one, default=None, metavar="N",
                        help=_("tokens per KV-cache block (vLLM --block-size); default: the engine's (16)"))
    parser.add_argument("--scheduler-recv-interval", type=at_least_one, default=1, metavar="N",
                        help=_("SGLang takes new requests every N decode steps (--scheduler-recv-interval); "
                               "default 1"))
    parser.add_argument("--admit-interval-steps", type=at_least_one, default=1, metavar="N",
                        help=_("vLLM builds whose scheduler admits waiting requests in only one step of every N once "
                               "--admit-min-running requests run (AMD's MLPerf build: VLLM_SUBSEQUENT_DECODE_STEPS = "
                               "N - 1); default 1: every step, as upstream vLLM"))
    parser.add_argument("--admit-min-running", type=int, default=0, metavar="M",
                        help=_("with --admit-interval-steps: the running requests from which admission waits for "
                               "every N-th step (AMD's VLLM_MIN_REQUEST_DECODE_STEP); default 0"))
    parser.add_argument("--overlap-scheduling", action=argparse.BooleanOptionalAction, default=None,
                        help=_("the engine prepares the next step on the CPU while the GPU runs this one (vLLM "
                               "--async-scheduling, SGLang overlap scheduler); default: the engine's"))


def _gpu(query: str):
    from gpudesk.catalog import AmbiguousItemError, UnknownItemError
    from gpudesk.cli.plan import _catalog

    try:
        return _catalog().find_gpu(query)
    except AmbiguousItemError as exc:
        raise CliError(_("--gpu {gpu!r} matches several GPUs: {ids}").format(
            gpu=query, ids=", ".join(g.id for g in exc.matches))) from exc
    except UnknownItemError as exc:
        raise CliError(_("{flag}: {problem}").format(flag=f"--gpu {query!r}", problem=exc.user_text())) from exc


def _interconnect(args: argparse.Namespace) -> str | None:
    """The replica's link: ``--server``'s interconnect (catalog id) when the common parser gave one."""
    server = getattr(args, "server", None)
    if not server:
        return getattr(args, "interconnect", None)
    from gpudesk.catalog import CatalogError
    from gpudesk.cli.plan import _catalog

    try:
        return str(_catalog().server(server).interconnect)
    except CatalogError as exc:
        raise CliError(_("{flag}: {problem}").format(flag=f"--server {server!r}", problem=exc.user_text())) from exc


def _gpus_per_node(args: argparse.Namespace) -> int | None:
    """GPUs one ``--server`` joins by its NVLink / Infinity Fabric (None without ``--server``)."""
    server = getattr(args, "server", None)
    if not server:
        return None
    from gpudesk.catalog import CatalogError
    from gpudesk.cli.plan import _catalog

    try:
        return int(_catalog().server(server).max_gpus)
    except CatalogError as exc:
        raise CliError(_("{flag}: {problem}").format(flag=f"--server {server!r}", problem=exc.user_text())) from exc


def _parallel(args: argparse.Namespace) -> tuple[int, int]:
    """(tp, replicas) from --tp, --pp, --replicas and --count (count = tp x pp x replicas)."""
    count = getattr(args, "count", None)
    tp, replicas = args.tp, args.replicas
    pp = int(getattr(args, "pp", 1) or 1)
    for flag, value in (("--tp", tp), ("--replicas", replicas)):
        if value is not None and value < 1:
            raise CliError(_("{flag} must be a whole number of at least 1, not {value}.").format(
                flag=flag, value=value))
    if tp is None:
        tp = max(1, count // (replicas * pp)) if count and replicas else 1
    if replicas is None:
        replicas = max(1, count // (tp * pp)) if count else 1
    if count is not None and count != tp * pp * replicas:
        raise CliError(_("--count {count} is not --tp {tp} x --pp {pp} x --replicas {replicas}.").format(
            count=count, tp=tp, pp=pp, replicas=replicas))
    return tp, replicas


def _aiter(value: str | None) -> bool | None:
    """An on/off flag (--rocm-aiter, --prefix-caching) as the load's switch (None: not given)."""
    return None if value is None else value == "on"


def _attention_dp(args: argparse.Namespace, tp: int) -> int:
    """Attention data-parallel groups from --enable-dp-attention and --attention-dp (1 without the switch)."""
    groups = getattr(args, "attention_dp", None)
    if not getattr(args, "enable_dp_attention", False):
        if groups is not None:
            raise CliError(_("--attention-dp needs --enable-dp-attention."))
        return 1
    return int(groups) if groups is not None else tp


def _engine_label(engine: str, backend: str | None) -> str:
    """The engine as the header names it: LMDeploy with its backend ("lmdeploy TurboMind"), the others as typed."""
    if engine != "lmdeploy":
        return engine
    return _("lmdeploy TurboMind") if lmdeploy_backend(backend) == "turbomind" else _("lmdeploy PyTorch engine")


_LMDEPLOY_FLAGS = (("--lmdeploy-backend", "lmdeploy_backend"), ("--cache-max-entry-count", "cache_max_entry_count"),
                   ("--max-batch-size", "max_batch_size"), ("--max-prefill-token-num", "max_prefill_token_num"),
                   ("--quant-policy", "quant_policy"))
_QUANT_POLICY_KV = {0: "auto", 4: "int4", 8: "int8"}


def _lmdeploy_settings(args: argparse.Namespace) -> tuple[str | None, float | None]:
    """(backend, memory fraction) from the LMDeploy flags, ``--trtllm-backend`` / ``--llamacpp-backend`` and
    ``--gpu-memory-utilization``.

    Raises:
        CliError: an LMDeploy flag with another engine (it would be dropped unseen), or both spellings of the
            memory fraction, or ``--llamacpp-backend`` with another engine than llama.cpp.
    """
    llamacpp = getattr(args, "llamacpp_backend", None)
    if llamacpp is not None and args.engine != "llamacpp":
        raise CliError(_("--llamacpp-backend is a llama.cpp setting: add --engine llamacpp, or leave "
                         "--llamacpp-backend out."))
    if args.engine != "lmdeploy":
        for flag, name in _LMDEPLOY_FLAGS:
            if getattr(args, name, None) is not None:
                raise CliError(_("{flag} is an LMDeploy setting: add --engine lmdeploy, or leave {flag} "
                                 "out.").format(flag=flag))
        return llamacpp if llamacpp is not None else getattr(args, "trtllm_backend", None), \
            args.gpu_memory_utilization
    if getattr(args, "trtllm_backend", None) is not None:
        raise CliError(_("--trtllm-backend is a TensorRT-LLM setting: use --lmdeploy-backend with --engine lmdeploy."))
    given = getattr(args, "cache_max_entry_count", None)
    if given is not None and args.gpu_memory_utilization is not None:
        raise CliError(_("--cache-max-entry-count and --gpu-memory-utilization set the same LMDeploy fraction: "
                         "give one."))
    return getattr(args, "lmdeploy_backend", None), given if given is not None else args.gpu_memory_utilization


def cmd_serve_speed(args: argparse.Namespace) -> int:
    """Print the serving speed of one option (module docstring). Returns the exit status."""
    from gpudesk.cli.plan import _spec
    from gpudesk.sizing.engines.fit import release_version
    from gpudesk.sizing.errors import SizingError
    from gpudesk.sizing.speed_serve import ServeLoad, serve_speed
    from gpudesk.sizing.speed_serve_cases import intra_link

    if not getattr(args, "gpu", None):
        raise CliError(_("--gpu is required for a serving estimate."))
    for flag, value in (("--input-tokens", args.input_tokens), ("--output-tokens", args.output_tokens)):
        if value is None:
            raise CliError(_("{flag} is required for a serving estimate.").format(flag=flag))
    if args.concurrency is None and args.request_rate is None and args.batch is None:
        raise CliError(_("give the load: --concurrency N, --request-rate R or --batch N."))
    if getattr(args, "benchmark_warmup", False) and getattr(args, "num_prompts", None) is None:
        # The warm-up prompt only weighs in a run of --num-prompts requests (gpudesk.sizing.serve_client); without one
        # the flag was dropped unseen.
        raise CliError(_("--benchmark-warmup applies to a benchmark run of --num-prompts requests: add "
                         "--num-prompts N, or leave --benchmark-warmup out."))
    if getattr(args, "admit_min_running", 0) and int(getattr(args, "admit_interval_steps", 1) or 1) <= 1:
        # The threshold only gates admission every n-th step (gpudesk.sizing.serve_sched); alone it changes nothing.
        raise CliError(_("--admit-min-running applies with --admit-interval-steps N above 1: add it, or leave "
                         "--admit-min-running out."))
    backend, fraction = _lmdeploy_settings(args)
    kv_dtype = args.kv_dtype
    policy = getattr(args, "quant_policy", None)
    if policy is not None:
        if kv_dtype != "auto":
            raise CliError(_("--quant-policy and --kv-dtype set the same LMDeploy KV cache: give one."))
        kv_dtype = _QUANT_POLICY_KV[policy]
    spec = _spec(argparse.Namespace(model=getattr(args, "model", None), config=getattr(args, "config", None),
                                    params=getattr(args, "params", None)))
    gpu = _gpu(args.gpu)
    tp, replicas = _parallel(args)
    load = ServeLoad(engine=args.engine, input_tokens=args.input_tokens, output_tokens=args.output_tokens,
                     concurrency=args.concurrency, request_rate_per_s=args.request_rate, batch=args.batch,
                     weight_format=args.weight_format, kv_dtype=kv_dtype,
                     gpu_memory_utilization=fraction, tp=tp, replicas=replicas,
                     max_num_seqs=getattr(args, "max_batch_size", None),
                     max_num_batched_tokens=getattr(args, "max_prefill_token_num", None),
                     engine_version=getattr(args, "engine_version", None),
                     length_spread=getattr(args, "length_spread", 0.0),
                     length_distribution=getattr(args, "length_distribution", "fixed"),
                     internode_network=getattr(args, "internode_network", None),
                     api_server_count=getattr(args, "api_server_count", None),
                     overlap_scheduling=getattr(args, "overlap_scheduling", None),
                     pp=int(getattr(args, "pp", 1) or 1), backend=backend,
                     attention_dp=_attention_dp(args, tp),
                     num_prompts=getattr(args, "num_prompts", None),
                     benchmark_warmup=bool(getattr(args, "benchmark_warmup", False)),
                     prefix_caching=_aiter(getattr(args, "prefix_caching", None)),
                     rocm_aiter=_aiter(getattr(args, "rocm_aiter", None)),
                     quantization=getattr(args, "quantization", None),
                     kv_block_size=getattr(args, "block_size", None),
                     scheduler_recv_interval=int(getattr(args, "scheduler_recv_interval", 1) or 1),
                     admit_interval_steps=int(getattr(args, "admit_interval_steps", 1) or 1),
                     admit_min_running=int(getattr(args, "admit_min_running", 0) or 0),
                     ttft_p99_limit_s=getattr(args, "ttft_p99_limit", None),
                     tpot_p99_limit_s=getattr(args, "tpot_p99_limit", None),
                     expert_parallel=int(getattr(args, "ep", 1) or 1))
    try:
        # the release spellings estimate serve takes (a pip freeze pin included), refused alike
        load = replace(load, engine_version=release_version(load.engine, load.engine_version))
        # --ep wider than --tp over --replicas: vLLM --data-parallel-size with --enable-expert-parallel, one replica
        # of ep GPUs with data-parallel attention (gpudesk.sizing.serve_wide_ep)
        load = fold_wide_expert_parallel(load)
        tp, replicas = load.tp, load.replicas
        link = intra_link(gpu, _interconnect(args), tp, load.pp) if tp * load.pp > 1 else None
        load = replace(load, gpus_per_node=_gpus_per_node(args))
        speed = serve_speed(spec, gpu, load, link)
    except SizingError as exc:
        field = str(getattr(exc, "field", ""))
        raise CliError(_("{flag}: {problem}").format(flag=_FLAGS.get(field, field),
                                                    problem=getattr(exc, "detail", None) or exc.user_text())) from exc
    if getattr(args, "json", False):
        print(dumps_json({"serve": speed.to_dict(), "assumptions": [a.to_dict() for a in speed.assumptions]},
                         indent=2, ensure_ascii=False))
        return 0
    lines = [
        _("{model} on {gpus} x {gpu} ({engine}, {dp} data-parallel ranks of TP {tp} sharing expert-parallel "
          "groups of {ep} GPUs, x {replicas})").format(
            model=spec.name, gpus=speed.gpus, gpu=gpu.name, engine=_engine_label(args.engine, load.backend),
            dp=load.attention_dp, tp=load.tp // load.attention_dp, ep=load.expert_parallel, replicas=replicas)
        if load.dense_per_attention_group else
        _("{model} on {gpus} x {gpu} ({engine}, TP {tp} x {replicas} replicas)").format(
            model=spec.name, gpus=speed.gpus, gpu=gpu.name, engine=_engine_label(args.engine, load.backend), tp=tp,
            replicas=replicas)
        if load.pp == 1 else _("{model} on {gpus} x {gpu} ({engine}, TP {tp} x PP {pp} x {replicas} replicas)").format(
            model=spec.name, gpus=speed.gpus, gpu=gpu.name, engine=_engine_label(args.engine, load.backend), tp=tp,
            pp=load.pp,
            replicas=replicas),
        _("output tokens/s: {value:,.0f} ({per_gpu:,.0f} per GPU)").format(
            value=speed.output_tokens_per_s, per_gpu=speed.output_tokens_per_s / speed.gpus),
        _("requests/s: {value:.2f}").format(value=speed.requests_per_s),
        _("time to first token: {ms:.0f} ms").format(ms=speed.ttft_s * 1e3),
        _("time per output token: {ms:.1f} ms").format(ms=speed.tpot_s * 1e3),
        _("mean running requests per replica: {batch:.1f}; KV capacity {tokens:,} tokens per replica").format(
            batch=speed.batch, tokens=speed.kv_capacity_tokens),
        "",
        _("assumptions:"),
    ]
    lines += [f"  {a.line()}  [{a.source}]" for a in speed.assumptions]
    print("\n".join(lines))
    return 0
