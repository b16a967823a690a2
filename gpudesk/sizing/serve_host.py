"""The engine's CPU time per step (host overhead) and whether it hides behind the GPU.

Every step a Python engine schedules the batch, prepares the inputs, samples and turns the sampled ids into text and
responses on the CPU. Without overlap the GPU waits for that work each step (vLLM RFC 6854, "Multi-Step
Scheduling": 5-13 ms of GPU bubble per decode step in vLLM V0, https://github.com/vllm-project/vllm/issues/6854);
with overlap the CPU prepares step n+1 while the GPU runs step n, so a step lasts the longer of the two.

- Per step: about 1.0 ms whatever the batch. vLLM V1 serving Llama-3.2-1B at batch 1 measures a 2.73 ms TPOT
  (vllm-project/vllm PR 17866, May 2025) whose GPU work is 1.4 ms on an H100 and 1.9 ms on an A100 by
  :mod:`gpudesk.sizing.serve_step` (the PR does not name the GPU): 0.8-1.3 ms of host time; the middle is taken.
- Per running request: 17.6 us. vLLM with asynchronous output processing leaves a 5-6 ms gap between two decode
  steps at batch 256 (Llama-2-7B, ShareGPT; vllm-project/vllm issue 10634): (5.5 - 1.0) ms / 256.
- Per running request before vLLM's asynchronous output processor (vLLM before v0.6.0): 0.103 ms. Until v0.6.0
  ``LLMEngine.step`` ran ``_process_model_outputs`` (detokenisation, stop checks, ``free_finished_seq_groups``, the
  ``RequestOutput`` objects streamed back) after the GPU step and before the next one, with the GPU idle. vLLM RFC
  6913 ("Asynchronous Output Processor", https://github.com/vllm-project/vllm/issues/6913, July 2024, Llama-3-70B
  FP8 on 4x H100, 128 input tokens) times that function at 0.2 ms at batch 1 and 3.4 ms at batch 32:
  (3.4 - 0.2) / 31 = 0.103 ms per running request per step (the batch-1 rest is inside the per-step figure).
  vllm-project/vllm PR 7049 (v0.6.0) moved it behind the next step ("most of the speedup in this PR comes from
  removing detokenization, free_finished_seq_groups and creating RequestOutputs"); what is left after it is the
  17.6 us above.
- Multi-step scheduling (vLLM V0 ``--num-scheduler-steps n``) pays the host work once per n steps (RFC 6854),
  except the serial output processing of vLLM before v0.6.0, which is per sampled token: at the end of a block
  ``MultiStepOutputProcessor._process_seq_outputs`` (``vllm/engine/output_processor/multi_step.py``) appends each
  request's n tokens one at a time, "as if we had only one new token", detokenizing and stop-checking each
  (``_process_decode_and_stop``), with the GPU idle; the block's n tokens cost n times the per-token work.
- Overlap defaults (the engines' own defaults, by version where it changed): SGLang's overlap scheduler is on since
  v0.4 (``server_args.py`` ``disable_overlap_schedule=False``; SGLang v0.4 blog "zero-overhead batch scheduler",
  Dec 2024); vLLM's asynchronous scheduling is on by default since v0.12 (``vllm/config/scheduler.py``
  ``async_scheduling: bool | None = None`` resolved to on in ``vllm/config/vllm.py``, PR 27614) and off before
  (V0 and V1 up to v0.11); TensorRT-LLM's runtime overlaps its scheduler (``disable_overlap_scheduler=False``,
  ``tensorrt_llm/llmapi/llm_args.py``; the PyTorch flow, from 0.20), while its TensorRT-engine flow (the 0.x
  default) does not (``enableTrtOverlap`` off: :data:`TRTLLM_BACKENDS`). With no version given, the current
  default.
- Output lag: vLLM V0's asynchronous output processor (on by default from v0.6.0, vllm-project/vllm PR 7049 and
  RFC 6913; off with ``--enforce-eager``, issue 10295) processes the outputs of step n (detokenisation, stop
  checks, the request outputs the API server streams) while step n + 1 runs, and ``LLMEngine.step`` returns them
  after step n + 1: every token reaches the client one step after the step that sampled it. The first token of a
  request therefore arrives after the step that follows its prefill (the tenstorrent vLLM fork documents this as the
  extra TTFT of batch 1, tenstorrent/vllm PR 116). It ends with V1 (v0.8, March 2025), whose engine core returns a
  step's outputs as soon as it is done. With no version given, V1.
- Front end (vLLM V1): the OpenAI API server runs in its own process in front of the engine core (vLLM V1 blog,
  "vLLM V1: A Major Upgrade to vLLM's Core Architecture", Jan 2025: tokenization, detokenization and streaming
  moved out of the engine core into the API-server process, linked to it over ZMQ). One process serves every
  request one at a time on its event loop (chat template and tokenization on one thread, ``ThreadPoolExecutor(
  max_workers=1)`` in ``vllm/entrypoints/openai/serving_engine.py``, vllm-project/vllm issue 25301), so it is a
  service stage of its own with a capacity of 1 / (cost per request + cost per streamed token x output tokens)
  requests/s per process; ``--api-server-count n`` (vllm-project/vllm PR 17546, v0.9) runs n of them.
  Figures: the V1 API server alone delivers 63.62 requests/s of ShareGPT (225 prompt / 202 output tokens per
  request) at concurrency 400 with Llama-3.2-1B on one A100 (vllm-project/vllm PR 12287, the "before" run, Jan
  2025), a model whose engine runs far faster at that batch: 1 / 63.62 = 15.7 ms per request. Its per-token share
  is taken as the output-processing cost per request per step above (17.6 us: detokenization and the output
  objects, the work V1 moved into this process), which leaves 15.7 - 202 x 0.0176 = 12.2 ms per request (HTTP,
  request parsing, chat template, tokenization, the hops to and from the engine core, the final response and the
  request's bookkeeping when it ends). That is what the process spends, so what caps its requests/s; it is not what
  a request waits for. Only the work ahead of the first token delays it (``AsyncLLM.generate``: the input
  processing and the hop to the engine core; the rest runs as its outputs stream back and after its last token).
  That share is taken from vllm-project/vllm PR 8092's serving-vs-offline table (Llama 3.1 8B, one H100,
  ShareGPT): streaming every token the API server costs 1 / 14.9 - 1 / 34.8 = 38.4 ms per request, streaming one
  token in eight (multi-step 8) 1 / 33.3 - 1 / 42.9 = 6.7 ms; per request + per token x n = 38.4 and per request
  + per token x n / 8 = 6.7 give 2.2 ms per request whatever it streams, 5.7 % of the whole (the PR: "the multistep
  performance on main is less-bad because we currently only stream 1/8 tokens"). A request's own front-end latency
  with the process idle is that share of PR 12287's 15.7 ms: 0.90 ms; it waits longer only behind the work of the
  requests ahead of it (first come first served), i.e. where the front end is loaded. V0 (before v0.8) and the
  other engines have no measured figure here and get no front-end stage.
  The process's cost per request depends on the release (:data:`FRONTEND_FIGURES`): from v0.9 it is the one API
  server of vllm-project/vllm PR 17546's "DP=2 before" run (May 2025, the v0.9 development line; 2x A100,
  Llama-3.2-1B, ShareGPT at 120 requests/s offered): 10000 requests in 130.74 s = 76.49 requests/s, 13.1 ms per
  request against PR 12287's 15.7 ms (whose own changes, GC freeze and the split output processing, shipped in
  v0.7). Two engines of a 1B model on A100s serve far more than that (one alone outran PR 12287's front end), so
  the single front-end process is what held the run to 76.5/s, the bottleneck the PR's ``--api-server-count``
  removes. Its output-token share is taken as PR 12287's ShareGPT run (202 tokens, same model and data set; the
  PR 17546 run stops at end of sequence, so at most that), and its share ahead of the first token as PR 8092's.
  With no version given, the current figure.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpudesk.i18n import _
from gpudesk.sizing.engine_version import version_triple
from gpudesk.sizing.errors import SizingError

HOST_STEP_S = 1.0e-3
HOST_REQUEST_S = (5.5e-3 - HOST_STEP_S) / 256
# vLLM before v0.6.0: _process_model_outputs per running request, serial with the GPU (module docstring).
SERIAL_OUTPUT_REQUEST_S = (3.4e-3 - 0.2e-3) / 31
SERIAL_OUTPUT_UNTIL = {"vllm": (0, 6)}
SERIAL_OUTPUT_SOURCE = ("vllm-project/vllm RFC 6913 (_process_model_outputs: 0.2 ms at batch 1, 3.4 ms at batch 32, "
                        "Llama-3-70B on 4x H100), overlapped from v0.6.0 by PR 7049")
MULTI_STEP_OUTPUT_SOURCE = ("vllm/engine/output_processor/multi_step.py MultiStepOutputProcessor._process_seq_outputs "
                            "(each of a block's n tokens appended, detokenized and stop-checked in turn: "
                            "_process_decode_and_stop)")
HOST_SOURCE = ("vllm-project/vllm PR 17866 (V1 TPOT at batch 1), issue 10634 (gap between decode steps at batch "
               "256), RFC 6854 (multi-step scheduling)")
# LMDeploy: TurboMind's step loop is C++ (src/turbomind/models/llama/LlamaBatch.cc, its own thread), and the Python
# front end turns its outputs into text in other threads, so the per-request output work is not on the step's path;
# its C++ loop does not schedule one batch ahead either. The PyTorch engine's step loop is Python
# (lmdeploy/pytorch/engine/engine.py): its host work is taken as adding to every step. No measured figure for
# either: the generic per-step cost above is kept (InternLM/lmdeploy, read at v0.2.6 and v0.16.0).
LMDEPLOY_HOST_SOURCE = ("lmdeploy src/turbomind/models/llama/LlamaBatch.cc (C++ step loop); lmdeploy/pytorch/engine/"
                        "engine.py (Python step loop) (https://github.com/InternLM/lmdeploy)")
# (engine, first version whose default overlaps the host work with the GPU); None: always overlapped.
OVERLAP_SINCE = {"vllm": (0, 12), "sglang": (0, 4), "trtllm": None, "lmdeploy": None}
OVERLAP_SOURCE = {
    "vllm": "vllm/config/scheduler.py async_scheduling, on by default since v0.12 (vllm-project/vllm PR 27614)",
    "sglang": "sglang server_args.py disable_overlap_schedule=False (overlap scheduler since v0.4)",
    "trtllm": "TensorRT-LLM llm_args.py disable_overlap_scheduler=False",
    "lmdeploy": LMDEPLOY_HOST_SOURCE,
}
# TensorRT-LLM runs a model through one of two runtimes ("backends"): the TensorRT-engine flow (C++ executor; the
# default path of the 0.x trtllm-bench, ``--backend`` default None, "Default is cpp path") and the PyTorch flow
# (the default from 1.0: ``--backend`` default "pytorch", tensorrt_llm/bench/benchmark/throughput.py). The PyTorch
# flow's executor overlaps its Python host work with the GPU only since NVIDIA/TensorRT-LLM PR 4174 ("Breaking change:
# perf: Enable scheduling overlap by default", May 2025: PyTorchConfig ``enable_overlap_scheduler`` default False
# renamed ``disable_overlap_scheduler`` default False), i.e. from release 0.20; before, its host work adds to every
# step. The TensorRT-engine flow's C++ executor overlaps two micro-batches (one's host work under the other's engine
# run) only with ``enableTrtOverlap`` (``TrtGptModelOptionalParams``), off by default: the MLPerf Inference v4.1
# NVIDIA harness that drives it declares ``DEFINE_bool(enable_trt_overlap, false, "Enable batches to overlap in TRT
# context execution")`` and passes it on unchanged (closed/NVIDIA/code/harness/harness_llm/main_llm.cc, llm_utils.hpp
# ``mEnableTrtOverlap = false``, llm_core.cc ``optionalParams.enableTrtOverlap``; mlcommons/inference_results_v4.1
# @198fc46, no llama2-70b or mixtral config sets it). So in that flow the host work adds to every step, as in the
# PyTorch flow before its overlap scheduler; its per-request figure is the generic one above (no C++-executor
# measurement was found).
TRTLLM_BACKENDS = ("pytorch", "tensorrt")
TRTLLM_PYTORCH_DEFAULT_SINCE = (1, 0)
TRTLLM_PYTORCH_OVERLAP_SINCE = (0, 20)
TRTLLM_BACKEND_SOURCE = ("TensorRT-LLM trtllm-bench --backend (cpp path by default in 0.x, pytorch from 1.0: "
                         "tensorrt_llm/bench/benchmark/throughput.py); PyTorch-flow overlap scheduler on by default "
                         "since NVIDIA/TensorRT-LLM PR 4174 (release 0.20); TensorRT-engine flow: enableTrtOverlap "
                         "off by default (mlcommons/inference_results_v4.1 @198fc46 closed/NVIDIA/code/harness/"
                         "harness_llm/main_llm.cc enable_trt_overlap=false)")
# Engines that run one static batch through a host generate loop (gpudesk.sizing.serve_static).
STATIC_HOST_ENGINES = ("optimum-habana",)
STATIC_HOST_SOURCE = ("transformers generate loop (optimum.habana.transformers.generation.utils): one host "
                      "iteration per token, no overlap scheduler, no per-request output processing; per-step "
                      "host figure of vllm-project/vllm PR 17866")
# vLLM versions whose engine delivers a step's outputs after the next step (V0 asynchronous output processor).
OUTPUT_LAG_VLLM_VERSIONS = ((0, 6), (0, 8))
VLLM_V1_SINCE = (0, 8)
OUTPUT_LAG_SOURCE = ("vLLM V0 asynchronous output processor: vllm-project/vllm PR 7049, RFC 6913 (v0.6.0 to V1 in "
                     "v0.8); off with --enforce-eager (issue 10295); first token after the next step: "
                     "tenstorrent/vllm PR 116")
# vLLM V1 API server (module docstring): seconds per request / per streamed output token, one process.
FRONTEND_BUSY_S = 1 / 63.62
FRONTEND_REQUEST_S = FRONTEND_BUSY_S - 202 * HOST_REQUEST_S
FRONTEND_TOKEN_S = HOST_REQUEST_S
# The share of the process's time per request that lies ahead of the request's first token (module docstring).
PR8092_STREAM_EVERY_S = 1 / 14.9 - 1 / 34.8  # API-server seconds per request, every token streamed
PR8092_STREAM_EIGHTH_S = 1 / 33.3 - 1 / 42.9  # the same, one token in eight streamed (multi-step 8)
FRONTEND_INTAKE_SHARE = (8 * PR8092_STREAM_EIGHTH_S - PR8092_STREAM_EVERY_S) / 7 / PR8092_STREAM_EVERY_S
FRONTEND_INTAKE_S = FRONTEND_BUSY_S * FRONTEND_INTAKE_SHARE
FRONTEND_SINCE = {"vllm": VLLM_V1_SINCE}
FRONTEND_SOURCE = ("vLLM V1 API-server process: vllm-project/vllm PR 12287 (63.62 req/s, Llama-3.2-1B on A100, "
                   "ShareGPT at concurrency 400), PR 8092 (the share of it ahead of the first token), issue 25301 "
                   "(one tokenizer thread), PR 17546 (--api-server-count)")
# From v0.9: one API server of vllm-project/vllm PR 17546's "DP=2 before" run, 10000 ShareGPT requests in 130.74 s
# (module docstring); per-token share as above, 202 tokens at most.
FRONTEND_V09_BUSY_S = 130.74 / 10000
FRONTEND_V09_SOURCE = ("vLLM API-server process from v0.9: vllm-project/vllm PR 17546 (one API server in front of "
                       "two Llama-3.2-1B engines on 2x A100: 10000 ShareGPT requests in 130.74 s = 76.49 req/s, "
                       "May 2025), PR 8092 (the share ahead of the first token), issue 25301 (one tokenizer "
                       "thread)")


@dataclass(frozen=True)
class FrontEndFigure:
    """One measured API-server cost: from ``since`` (major, minor) on, ``busy_s`` seconds of the process per
    request of ``output_tokens`` streamed tokens."""

    since: tuple[int, int]
    busy_s: float
    output_tokens: int
    source: str

    @property
    def request_s(self) -> float:
        """The process's seconds per request whatever it streams (the per-token share taken out)."""
        return self.busy_s - self.output_tokens * FRONTEND_TOKEN_S


#: vLLM's API-server cost by release, oldest first (module docstring).
FRONTEND_FIGURES = (
    FrontEndFigure(VLLM_V1_SINCE, FRONTEND_BUSY_S, 202, FRONTEND_SOURCE),
    FrontEndFigure((0, 9), FRONTEND_V09_BUSY_S, 202, FRONTEND_V09_SOURCE),
)


def frontend_figure(version: tuple[int, int] | None) -> FrontEndFigure:
    """The measured API-server cost that applies to a vLLM release (None: the current one)."""
    if version is None:
        return FRONTEND_FIGURES[-1]
    return [f for f in FRONTEND_FIGURES if f.since <= version][-1]


@dataclass(frozen=True)
class HostOverhead:
    """CPU seconds per step (``step_s``) and per running request (``request_s``), already divided by the
    multi-step block, and whether they overlap the GPU's work (``overlap``)."""

    step_s: float
    request_s: float
    overlap: bool
    source: str


def engine_version_tuple(version: str | None) -> tuple[int, int] | None:
    """(major, minor) of a published engine version (``0.6.5.dev964+mlperf50`` -> (0, 6)); None when not given.

    Raises:
        SizingError: a version with no ``major.minor`` in it.
    """
    if version is None or not str(version).strip():
        return None
    release = version_triple(version)
    if release is None:
        raise SizingError("engine_version", _("{version!r} has no major.minor version number.").format(
            version=version))
    return release[0], release[1]


def default_overlap(engine: str, version: str | None) -> bool:
    """Whether ``engine`` at ``version`` overlaps its host work with the GPU by default (module docstring)."""
    since = OVERLAP_SINCE.get(engine)
    parsed = engine_version_tuple(version)
    if since is None or parsed is None:
        return True
    return parsed >= since


def trtllm_backend(version: str | None, backend: str | None) -> str:
    """The TensorRT-LLM runtime a run uses: ``backend`` when given, else the default of ``version`` (PyTorch from
    1.0 and with no version, the TensorRT-engine flow before; see :data:`TRTLLM_BACKENDS`).

    Raises:
        SizingError: a backend that is not one of :data:`TRTLLM_BACKENDS`.
    """
    if backend is not None:
        if backend.lower() not in TRTLLM_BACKENDS:
            raise SizingError("backend", _("{backend!r} is not a TensorRT-LLM backend; use one of {names}.").format(
                backend=backend, names=", ".join(TRTLLM_BACKENDS)))
        return backend.lower()
    parsed = engine_version_tuple(version)
    return "pytorch" if parsed is None or parsed >= TRTLLM_PYTORCH_DEFAULT_SINCE else "tensorrt"


def host_overhead(engine: str, version: str | None, overlap: bool | None, num_scheduler_steps: int,
                  backend: str | None = None) -> HostOverhead:
    """The host time of one step of ``engine`` (module docstring); ``overlap`` None: the engine's default (for
    TensorRT-LLM that of its ``backend``, :func:`trtllm_backend`)."""
    if engine in STATIC_HOST_ENGINES:
        # a static batch's generate loop: per-step host work only, not overlapped (gpudesk.sizing.serve_static)
        return HostOverhead(step_s=HOST_STEP_S, request_s=0.0, overlap=bool(overlap), source=STATIC_HOST_SOURCE)
    resolved = default_overlap(engine, version) if overlap is None else overlap
    source = f"{HOST_SOURCE}; {OVERLAP_SOURCE.get(engine, '')}"
    if engine == "trtllm":
        runtime = trtllm_backend(version, backend)
        parsed = engine_version_tuple(version)
        if overlap is None and runtime == "pytorch" and parsed is not None and parsed < TRTLLM_PYTORCH_OVERLAP_SINCE:
            resolved = False
        if overlap is None and runtime == "tensorrt":
            resolved = False  # the C++ executor's enableTrtOverlap is off by default (TRTLLM_BACKENDS comment)
        source = f"{source}; {TRTLLM_BACKEND_SOURCE}"
    if engine == "lmdeploy" and overlap is None and backend is not None and backend.lower() == "pytorch":
        resolved = False  # the PyTorch engine's Python step loop (LMDEPLOY_HOST_SOURCE)
    block = max(1, num_scheduler_steps)
    request_s = HOST_REQUEST_S / block
    until = SERIAL_OUTPUT_UNTIL.get(engine)
    parsed = engine_version_tuple(version)
    if until is not None and parsed is not None and parsed < until:
        # serial output processing is per sampled token: a multi-step block hands the output processor all n tokens
        # of each request at its end, so it does not divide by the block (module docstring, MULTI_STEP_OUTPUT_SOURCE)
        request_s = SERIAL_OUTPUT_REQUEST_S
        source = f"{source}; {SERIAL_OUTPUT_SOURCE}" + (f"; {MULTI_STEP_OUTPUT_SOURCE}" if block > 1 else "")
    return HostOverhead(step_s=HOST_STEP_S / block, request_s=request_s, overlap=resolved, source=source)


def schedules_ahead(engine: str, version: str | None, backend: str | None, overlapped: bool) -> bool:
    """Whether the engine schedules step n + 1 when step n starts, so that a request arriving during step n joins
    step n + 2 (:mod:`gpudesk.sizing.serve_sched`): where its host work is ``overlapped`` by the Python scheduler
    loop that runs one batch ahead (SGLang's overlap scheduler, vLLM's asynchronous scheduling, TensorRT-LLM's
    PyTorch-flow overlap scheduler: docs "Overlap Scheduler", ``_executor_loop_overlap``). TensorRT-LLM's
    TensorRT-engine flow (the C++ executor) has no such loop: it is not overlapped by default (enableTrtOverlap off,
    :data:`TRTLLM_BACKENDS`), and where the user types overlap its two micro-batches are not a batch scheduled ahead,
    so it is not counted as scheduling ahead."""
    if not overlapped or engine == "lmdeploy":  # TurboMind's C++ loop does not run a batch ahead
        return False
    return not (engine == "trtllm" and trtllm_backend(version, backend) == "tensorrt")


def output_lag_steps(engine: str, version: str | None, cuda_graphs: bool, v0: bool = False) -> int:
    """Steps between the step that samples a token and the step after which the engine hands it to the client: 1
    for vLLM V0 with its asynchronous output processor (v0.6 up to v0.8, CUDA graphs on; ``v0``: the V0 engine a
    V1-default release falls back to, :func:`gpudesk.sizing.serve_vllm_v0.vllm_v0_fallback`), else 0 (module
    docstring)."""
    parsed = engine_version_tuple(version)
    if engine != "vllm" or parsed is None or not cuda_graphs:
        return 0
    if v0:
        return 1
    first, last = OUTPUT_LAG_VLLM_VERSIONS
    return 1 if first <= parsed < last else 0


@dataclass(frozen=True)
class FrontEnd:
    """The API-server stage in front of the engine: ``servers`` processes, each spending ``request_s`` on one
    request and ``token_s`` per output token it streams; ``intake_s`` of the request's own time lies ahead of its
    first token (module docstring)."""

    request_s: float
    token_s: float
    servers: int
    source: str
    intake_s: float = FRONTEND_INTAKE_S


def front_end(engine: str, version: str | None, api_server_count: int | None, v0: bool = False) -> FrontEnd | None:
    """The front-end stage of ``engine`` at ``version`` with ``api_server_count`` processes (None: one), or None
    where no measured figure applies (module docstring; ``v0``: vLLM's V0 fallback of a V1-default release,
    :func:`gpudesk.sizing.serve_vllm_v0.vllm_v0_fallback`, has V0's front end)."""
    since = FRONTEND_SINCE.get(engine)
    parsed = engine_version_tuple(version)
    if since is None or v0 or (parsed is not None and parsed < since):
        return None
    figure = frontend_figure(parsed)
    return FrontEnd(request_s=figure.request_s, token_s=FRONTEND_TOKEN_S, servers=max(1, api_server_count or 1),
                    source=figure.source, intake_s=figure.busy_s * FRONTEND_INTAKE_SHARE)
