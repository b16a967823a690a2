"""A small discrete-event simulation of a continuous-batching engine scheduler with chunked prefill.

Method: Vidur (Agrawal et al. 2024, arXiv 2405.05465) simulates the engine's scheduler over per-operator step
times; here the step time is :meth:`gpudesk.sizing.serve_step.StepModel.step_s`. The scheduler is vLLM V1's
(``vllm/v1/core/sched/scheduler.py``) and Sarathi-Serve's (arXiv 2403.02310): every step first gives each
running request its next decode token, then fills the rest of the token budget (``max_num_batched_tokens``) with
prompt chunks, first of requests already being prefilled, then of waiting requests admitted first-come first-
served while fewer than ``max_num_seqs`` run and the KV pool has room. The prompt's last chunk yields the first
token (TTFT ends with that step); each later step yields one token (TPOT).

KV admission differs by engine. vLLM (V0 and V1) allocates blocks on demand: a waiting request is admitted when the
pool holds its prompt (``KVCacheManager.allocate_slots`` for the tokens computed now), each decode step takes one
more slot per running request, and when the next step does not fit the newest running request is preempted: its
blocks are freed, it goes back to the head of the waiting queue and later prefills its prompt and the tokens it
already produced again (recompute; ``vllm/v1/core/sched/scheduler.py`` ``schedule``, preemption of the last
running request, no admission in a step that preempted). Its first token keeps its time; its later tokens wait.
SGLang admits the same way, but also holds back the whole output of the request it admits and its new-token ratio
times the output the running requests may still produce (``schedule_policy.py`` PrefillAdder
``_get_running_request_total_token_offset``; the ratio's floor, :data:`gpudesk.sizing.serve_steady.
SGLANG_MIN_NEW_TOKEN_RATIO`), and retracts the newest running request when decoding runs out of KV
(``retract_decode``), as vLLM preempts, but appends it to the TAIL of the waiting queue: ``Scheduler.
update_running_batch`` hands the retracted requests to ``_extend_requests_to_queue`` (``waiting_queue.extend``) and
the default ``--schedule-policy fcfs`` leaves the queue in that order (``schedule_policy.py`` ``calc_priority``: FCFS
does not sort; LPM falls back to FCFS beyond 128 waiting requests, ``_determine_active_policy``), so a retracted
request waits behind every request queued before it: its later tokens, not its TTFT, carry that wait. TensorRT-LLM's
default capacity policy ``GUARANTEED_NO_EVICT``
(``tensorrt_llm/llmapi/llm_args.py`` CapacitySchedulerPolicy) is taken as reserving each request's prompt and output
whole.
Without mixing (SGLang's default, vLLM V0 without chunked prefill) a step runs either prompts or decode tokens,
prompts first, so a prefill pauses every running request (the TPOT interference Sarathi-Serve removes). With
``num_scheduler_steps`` n > 1 (vLLM V0 multi-step scheduling) decode steps run in blocks of n and waiting requests
are admitted only between blocks, which adds up to n steps to their TTFT. With chunked prefill on as well (V0's
multi-step chunked prefill) prompts are not chunked: a block's first step takes every running request's decode token,
then whole waiting prompts, first-come first-served, while the next one fits in what is left of the token budget; the
first that does not waits for a later block, and the prompts so admitted decode in the block's other n - 1 steps
(``vllm/core/scheduler.py`` ``_chunk_new_tokens_to_schedule``, v0.6.x: "The current multi-step + chunked prefill
capability does not actually support chunking prompts ... Prompts with more tokens than the current remaining budget
are postponed to future scheduler steps"). Admission is then bounded by about budget / prompt requests per block of
n steps. (A prompt longer than the whole budget, which vLLM refuses, is chunked here as without multi-step.)
TensorRT-LLM's in-flight batching without chunked context admits the same way in every step (``EngineBudget.
chunked_prompts`` False): each generation request's token first, then whole context requests in order until the next
one would pass ``max_num_tokens`` (``cpp/tensorrt_llm/batch_manager/microBatchScheduler.cpp``). With an
output lag of one step (vLLM V0's
asynchronous output processor, :func:`gpudesk.sizing.serve_host.output_lag_steps`) the client receives each
request's first and last tokens when the step after the one that sampled them ends (at once when no step follows),
so TTFT and the end-to-end latency include that next step and a closed-loop client sends its next request only then.

Scheduling one step ahead: where the engine overlaps its host work with the GPU in a scheduler loop that runs one
batch ahead (:func:`gpudesk.sizing.serve_host.schedules_ahead`: SGLang's overlap scheduler, vLLM's asynchronous
scheduling, TensorRT-LLM's PyTorch-flow overlap scheduler) the batch of step n + 1
is scheduled and launched when step n starts, before step n's outputs are processed (TensorRT-LLM docs, "Overlap
Scheduler": "At step n, the system launches GPU computation for step n+1 ... The optimization introduces one extra
decoding step", ``tensorrt_llm/_torch/pyexecutor/py_executor.py`` ``_executor_loop_overlap``; SGLang v0.4 blog,
"zero-overhead batch scheduler"; FuriosaAI's overlap-scheduling docs state the cost: "a newly arriving request
cannot join a batch that has already been prepared"). A request that arrives while step n runs therefore joins step
n + 2, not n + 1: one more step of TTFT, which at a large steady batch is most of the TTFT. An idle engine schedules
an arriving request at once.

Receiving every n decode steps (SGLang ``--scheduler-recv-interval`` n > 1): the scheduler takes new requests
from the tokenizer only when a counter, raised by 1 for each decode step (and for each idle turn of the loop) and
by 1000 for any other step, reaches n; it then resets (``python/sglang/srt/managers/scheduler_recv_skipper.py``
``SchedulerRecvSkipper.handle``: ``_WEIGHT_OF_FORWARD_MODE`` DECODE 1, None 1, default 1000; ``scheduler.py``
``recv_requests`` returns nothing until ``handle`` says so; the weights, hard-coded there, became the environment
variables ``SGLANG_SCHEDULER_RECV_SKIPPER_WEIGHT_*`` in sgl-project/sglang PR 13855, 2025-11). A request
that arrives while the engine decodes therefore waits for the next such receive, up to n decode steps, on average
about (n - 1) / 2 of them: TTFT rises by that many TPOTs, while an idle engine (the idle loop turns quickly) and the
step after a prompt's take new requests at once.

Admitting new requests only every n-th step (``admit_interval_steps`` n > 1, with ``admit_min_running`` m): a
scheduler that, once m or more requests run, takes waiting requests only in one step of every n, so that n - 1
steps in a row decode without new prompts and the prompts that arrived meanwhile are prefilled together. AMD's
vLLM build for MLPerf Inference v6.0 (gpt-oss-120b) adds it as the environment variables
``VLLM_SUBSEQUENT_DECODE_STEPS`` (n - 1) and ``VLLM_MIN_REQUEST_DECODE_STEP`` (m): in ``Scheduler.schedule`` the
loop over WAITING requests breaks while ``current_step != 0`` and ``len(self.running) >= m``, and
``current_step`` counts the scheduler's steps modulo n (patch ``closed/AMD/setup/gpt-oss-120b/patches/
gpt-oss-120b_vllm_v0.14.0_amd_dev.patch`` of the MLPerf Inference v6.0 results, ``vllm/v1/core/sched/
scheduler.py``; the Server yaml sets 10 and 128: n = 11). A request that arrives while m or more run waits for the
next admitting step, on average about (n - 1) / 2 steps, and its prompt shares that step with the others that
waited: TTFT rises by those steps and by the longer prefill step, and the decoding requests' TPOT carries that
step's prefill once in n steps. Upstream vLLM has no such gate (n = 1, the default).
LMDeploy's PyTorch engine (v0.4.0 to v0.7.1, :mod:`gpudesk.sizing.serve_lmdeploy`) has the same gate with n = 16: one
prompt step and a decode loop of n - 1 steps. With ``admit_scaled`` (its v0.6.0 to v0.7.1) the loop also ends, so that waiting requests join, once it
has run ceil(n x running / max_batches) + 1 steps (``lmdeploy/pytorch/engine/engine.py`` ``_check_finish``): a full
batch admits once per cycle, a half-full one after about half of it.

Loads (one replica; the load is split evenly over replicas):
- closed loop, ``concurrency`` C: C clients each send a request when their previous one finishes (vLLM
  ``benchmark_serving --max-concurrency``), ``num_prompts`` in all;
- open loop, ``request_rate_per_s`` R: Poisson arrivals (exponential gaps, seeded: the same answer every time);
- offline ``batch`` B: ``num_prompts`` (default B) requests arrive at once (``benchmark_throughput``).

What is measured: with a published ``num_prompts`` every request counts, as vLLM ``benchmark_serving`` and SGLang
``bench_serving`` average over all the prompts they send, the first wave of a closed loop included (its C prompts
arrive together and queue behind each other's prefill). Without one the estimate is the steady state the load
describes: a closed loop's first wave is left out of the latency statistics (TTFT, TPOT, end-to-end), as a
benchmark client with a warm-up phase does (NVIDIA AIPerf ``--warmup-request-count``: "the warmup phase runs before
your actual benchmark to prepare the system for steady-state measurement", docs.nvidia.com/aiperf, tutorials
"Warmup Phase Configuration"; GenAI-Perf's perf_analyzer measures in windows until they are stable). Throughput is
taken over the whole run either way. An open loop without one starts in its steady state
(:mod:`gpudesk.sizing.serve_steady`): the steady batch is already decoding, arrivals go on after the run's prompts
until the last of them is served, and the throughput is the arrival rate (what arrives is served); only where the
arrivals outrun the engine (no steady state) is the run simulated from an empty engine as it is.

How long that steady open loop runs: a thousand arrivals, the default, estimate the mean latencies; a high percentile
needs more. Near the engine's capacity the batch wanders with the Poisson arrivals over windows of many request
lifetimes (a run of a few more arrivals than average lengthens every running request's steps, which lets more
requests pile up), and a run of a thousand arrivals, shorter than one lifetime of a large steady batch, sees one such
window: its p99 TPOT is its mean. Where a percentile over a benchmark's run is asked for (the p99 limits of
:mod:`gpudesk.sizing.serve_slo`), ``steady_run_s`` gives that run's length: MLPerf Inference LoadGen issues Server
queries for at least ``min_duration`` 600 s (``loadgen/mlperf.conf`` ``*.*.min_duration = 600000``), i.e. ``rate x
600 s`` prompts per replica (a 600 s run of Llama 2 70B holds about 6,000 queries per MI300X, 27,000 per B200), at
least the default thousand, and for run time at most :data:`MAX_STEADY_PROMPTS` (a p99 over them still rests on the
200 slowest requests; 20,000 requests simulate in about half a second).

Request lengths: every request has the given prompt and output tokens, or with ``length_spread`` r each draws them
uniformly over [len (1 - r), len (1 + r)] (vLLM's benchmark random dataset, ``--random-range-ratio``,
``vllm/benchmarks/datasets.py`` RandomDataset), or with ``length_distribution`` ``sharegpt`` the long-tailed lengths
of ShareGPT conversations with the given means (:mod:`gpudesk.sizing.serve_lengths`): the run then lasts until its
longest requests are done. Identical lengths keep closed-loop clients in lock step (they all
finish in the same step and send again together, so their prompts share prefill steps); spread lengths let them
drift apart, as in a real sweep where outputs end at different steps.

Front end (:func:`gpudesk.sizing.serve_host.front_end`): where the engine has an API-server stage, every request
passes it first, first come first served over its ``servers`` processes: it reaches the engine's waiting queue
``intake_s`` after the process is free (the share of the request's work ahead of its first token), and the process
stays busy ``request_s`` + ``token_s`` per output token it will stream, which is what caps the requests/s it takes.
TTFT is counted from the request's arrival, so it includes the wait for and the time in the front end.

Runs of decode-only steps between events are taken in one jump (the KV read grows by one token per request per
step, so the mean step of the run is the step at its middle context), which keeps the simulation to a few
thousand events.
"""

from __future__ import annotations

import dataclasses
import functools
import heapq
import math
import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from operator import itemgetter

from gpudesk.i18n import _
from gpudesk.sizing.serve_client import cached_prompt_tokens
from gpudesk.sizing.serve_engine import EngineBudget
from gpudesk.sizing.serve_lengths import SHAREGPT_SOURCE, sharegpt_lengths
from gpudesk.sizing.serve_stats import summary, weighted_summary
from gpudesk.sizing.serve_steady import (
    ON_DEMAND_ENGINES,
    SGLANG_MIN_NEW_TOKEN_RATIO,
    STEADY_SOURCE,
    SteadyState,
    running_limit,
    steady_state,
)
from gpudesk.sizing.serve_step import StepModel
from gpudesk.sizing.speed_common import Assumption, raw
from gpudesk.units import format_count, format_duration

DEFAULT_PROMPTS_PER_CLIENT = 5
MIN_DEFAULT_PROMPTS = 100
MAX_DEFAULT_PROMPTS = 2000
MAX_STEADY_PROMPTS = 20_000  # prompts per replica of a steady open loop run for steady_run_s (module docstring)
SEED = 2405_05465
_ADMISSION_ORDER = itemgetter(1)  # a running entry's admission sequence number
ADMIT_INTERVAL_SOURCE = ("AMD vLLM build for MLPerf Inference v6.0 gpt-oss-120b: VLLM_SUBSEQUENT_DECODE_STEPS, "
                         "VLLM_MIN_REQUEST_DECODE_STEP in vllm/v1/core/sched/scheduler.py (closed/AMD/setup/"
                         "gpt-oss-120b/patches/gpt-oss-120b_vllm_v0.14.0_amd_dev.patch)")
# Arrivals after the run's prompts in an open loop's steady state, in steady batches (serve_steady): the last prompt
# lives one request lifetime, in which about one steady batch of requests arrives; half as many again for margin.
STEADY_TAIL_LIFETIMES = 1.5


@dataclass(frozen=True)
class Load:
    """One replica's share of the load (see :class:`gpudesk.sizing.serve_load.ServeLoad`)."""

    input_tokens: int
    output_tokens: int
    concurrency: int | None = None
    request_rate_per_s: float | None = None
    batch: int | None = None
    num_prompts: int | None = None
    replicas: int = 1
    num_scheduler_steps: int = 1
    length_spread: float = 0.0
    length_distribution: str = "fixed"  # or a named dataset's lengths (serve_lengths)
    output_lag_steps: int = 0
    frontend_request_s: float = 0.0
    frontend_intake_s: float = 0.0  # the part of frontend_request_s ahead of the request's first token
    frontend_token_s: float = 0.0
    frontend_servers: int = 1
    first_prompt_cached: bool = False
    cached_prompts: int = 0  # the run's first prompts an earlier run left in the prefix cache (serve_client)
    prefix_block_tokens: int = 16  # the unit of a prefix-cache hit (serve_client.prefix_block_tokens)
    schedule_ahead: bool = False  # step n + 1 is scheduled when step n starts (serve_host.schedules_ahead)
    recv_interval_steps: int = 1  # new requests are taken every this many decode steps (module docstring)
    admit_interval_steps: int = 1  # waiting requests are admitted in one step of every this many (module docstring)
    admit_min_running: int = 0  # ... once at least this many requests run
    admit_scaled: bool = False  # ... or also once the cycle's share passed reaches the share of the slots in use
    steady_run_s: float = 0.0  # a steady open loop's arrivals last this long (0: the default run; module docstring)


@dataclass(frozen=True)
class SimResult:
    """Per replica: throughput, mean TTFT / TPOT / end-to-end latency (s), time-weighted mean running requests;
    ``latency``: for ``ttft_s``, ``tpot_s``, ``itl_s`` and ``e2e_latency_s`` the mean, median and percentiles of
    :data:`gpudesk.sizing.serve_stats.STATISTICS` as the benchmark clients compute them."""

    output_tokens_per_s: float
    requests_per_s: float
    ttft_s: float
    tpot_s: float
    e2e_latency_s: float
    mean_batch: float
    prompts: int
    assumptions: tuple[Assumption, ...]
    latency: dict[str, dict[str, float]] = field(default_factory=dict)


@dataclass
class _Request:
    arrival_s: float
    inp: int = 1
    out: int = 1
    prefilled: int = 0
    first_token_s: float = 0.0
    finish_s: float = 0.0
    out_total: int = 1
    resumed: bool = False
    last_token_s: float = 0.0
    joined_s: float = 0.0
    counted: bool = True
    warm: bool = False  # part of the steady batch the run starts with: neither counted nor one of the run's prompts


def _prompts(load: Load) -> int:
    if load.num_prompts is not None:
        return max(1, math.ceil(load.num_prompts / load.replicas))
    if load.batch is not None:
        return max(1, math.ceil(load.batch / load.replicas))
    if load.concurrency is not None:
        c = max(1, math.ceil(load.concurrency / load.replicas))
        return min(MAX_DEFAULT_PROMPTS, max(MIN_DEFAULT_PROMPTS, DEFAULT_PROMPTS_PER_CLIENT * c))
    return MAX_DEFAULT_PROMPTS // 2


def _arrivals(load: Load, prompts: int) -> list[float]:
    """Arrival times of an open-loop or offline load (closed loop arrives on completions)."""
    if load.request_rate_per_s is None or math.isinf(load.request_rate_per_s):
        return [0.0] * prompts
    rate = load.request_rate_per_s / load.replicas
    rng = random.Random(SEED)
    t, out = 0.0, []
    for _i in range(prompts):
        t += rng.expovariate(rate)
        out.append(t)
    return out


def _lengths(load: Load, prompts: int) -> Callable[[], tuple[int, int]]:
    """Draws (prompt, output) tokens of the next request: the given lengths, or with ``length_spread`` r uniform
    integers over [len (1 - r), len (1 + r)] as vLLM's random dataset samples them (seeded), or a named dataset's
    lengths for the run's ``prompts`` requests, in turn (:mod:`gpudesk.sizing.serve_lengths`)."""
    if load.length_distribution == "sharegpt":
        pairs = sharegpt_lengths(load.input_tokens, load.output_tokens, prompts, SEED + 1)
        turn = iter(range(1 << 62))
        return lambda: pairs[next(turn) % len(pairs)]
    spread = load.length_spread
    if spread <= 0:
        return lambda: (load.input_tokens, load.output_tokens)
    rng = random.Random(SEED + 1)

    def draw() -> tuple[int, int]:
        def one(mean: int) -> int:
            return max(1, rng.randint(math.floor(mean * (1 - spread)), math.ceil(mean * (1 + spread))))
        return one(load.input_tokens), one(load.output_tokens)
    return draw


class _FrontEnd:
    """The API-server processes: when each is free next (module docstring)."""

    def __init__(self, load: Load) -> None:
        self.intake_s = load.frontend_intake_s
        self.busy_s = load.frontend_request_s + load.frontend_token_s * load.output_tokens
        self.free = [0.0] * max(1, load.frontend_servers)

    def ready(self, arrival_s: float) -> tuple[float, float]:
        """(time the request reaches the engine, its arrival) for a request arriving at ``arrival_s``."""
        if self.busy_s <= 0:
            return arrival_s, arrival_s
        first = min(range(len(self.free)), key=self.free.__getitem__)
        start = max(arrival_s, self.free[first])
        self.free[first] = start + self.busy_s
        return start + self.intake_s, arrival_s


def _steady_start(steps: StepModel, budget: EngineBudget, load: Load) -> SteadyState | None:
    """The steady state an open loop without a published prompt count starts in (None: another load, or arrivals
    faster than the engine, which has no steady state: :mod:`gpudesk.sizing.serve_steady`)."""
    rate = load.request_rate_per_s
    if rate is None or math.isinf(rate) or load.num_prompts is not None:
        return None
    front_busy_s = load.frontend_request_s + load.frontend_token_s * load.output_tokens
    if rate / load.replicas * front_busy_s >= max(1, load.frontend_servers):
        return None  # the API servers cannot take the arrivals: their queue grows for as long as the run lasts
    return steady_state(steps, budget, rate / load.replicas, load.input_tokens, load.output_tokens,
                        max(1, load.num_scheduler_steps))


def has_steady_state(steps: StepModel, budget: EngineBudget, load: Load) -> bool:
    """Whether the open loop ``load`` (no published prompt count) has a steady state: the engine and its API servers
    keep up with the arrivals (:mod:`gpudesk.sizing.serve_steady`)."""
    return _steady_start(steps, budget, load) is not None


def _steady_prompts(load: Load) -> int:
    """Prompts per replica of an open loop measured in its steady state: its arrivals over ``steady_run_s``, at
    least the default run's, at most :data:`MAX_STEADY_PROMPTS` (module docstring)."""
    rate = (load.request_rate_per_s or 0.0) / load.replicas
    return min(MAX_STEADY_PROMPTS, max(_prompts(load), math.ceil(rate * load.steady_run_s)))


def simulate(steps: StepModel, budget: EngineBudget, load: Load) -> SimResult:
    """Run ``load`` through the scheduler of one replica and measure it like the engine's benchmark client.

    The run is deterministic (seeded) and its inputs are frozen, so the result of the same inputs is kept: a
    published run gives several rows (throughput, TTFT, TPOT) and the p99 search (serve_slo) asks for the same
    rates again. Each caller gets its own ``latency`` dicts."""
    try:
        hash((steps, budget, load))
    except TypeError:  # an input with an unhashable part: run it without keeping it
        result = _simulate(steps, budget, load)
    else:  # (a TypeError the run itself raises is not taken for an unhashable input and run a second time)
        result = _simulate_kept(steps, budget, load)
    return dataclasses.replace(result, latency={name: dict(stats) for name, stats in result.latency.items()})


@functools.lru_cache(maxsize=256)
def _simulate_kept(steps: StepModel, budget: EngineBudget, load: Load) -> SimResult:
    return _simulate(steps, budget, load)


def _simulate(steps: StepModel, budget: EngineBudget, load: Load) -> SimResult:
    """:func:`simulate`, run."""
    closed = load.concurrency is not None
    clients = max(1, math.ceil(load.concurrency / load.replicas)) if load.concurrency is not None else 0
    front = _FrontEnd(load)
    warm = _steady_start(steps, budget, load)
    prompts = _steady_prompts(load) if warm is not None else _prompts(load)
    # In the steady state arrivals go on while the run's last prompts are served: as many again as the steady batch
    # (one lifetime of arrivals), neither counted nor awaited.
    tail = math.ceil(STEADY_TAIL_LIFETIMES * warm.decode_requests) if warm is not None else 0
    first_arrivals = _arrivals(load, prompts + tail) if not closed else [0.0] * min(clients, prompts)
    arrivals = deque(front.ready(t) for t in first_arrivals)  # (reaches the engine, arrived)
    issued = len(arrivals)
    inp, out = load.input_tokens, load.output_tokens
    lengths = _lengths(load, prompts)
    waiting: deque[_Request] = deque()
    prefilling: list[_Request] = []
    # running: heap of (decode step index at which the request is done, seq, request)
    running: list[tuple[int, int, _Request]] = []
    decode_steps = 0  # decode steps taken so far (a request's context grows by one per step)
    context_base = 0  # sum over running of (context at join - decode_steps at join)
    done: list[_Request] = []
    now = 0.0
    busy_batch_time = 0.0
    seq = 0
    block = max(1, load.num_scheduler_steps)
    block_left = 0
    capacity = budget.kv_capacity_tokens
    on_demand = budget.engine in ON_DEMAND_ENGINES
    # SGLang also holds back the output its running requests may still produce, scaled by its new-token ratio, and
    # the whole output of the request it admits (module docstring).
    future_share = SGLANG_MIN_NEW_TOKEN_RATIO if budget.engine == "sglang" else 0.0
    # SGLang re-queues a retracted request behind the waiting ones, vLLM in front of them (module docstring).
    retract_to_tail = budget.engine == "sglang"
    done_sum = 0  # sum over running requests of the decode step at which each is done
    prefill_outputs = 0  # output tokens of the requests being prefilled
    # vLLM V0 multi-step with chunked prefill, and TensorRT-LLM without chunked context: whole prompts only, in a
    # block's first step (module docstring).
    whole_prompts = budget.mixed_prefill and (block > 1 or not budget.chunked_prompts)
    # At most this many run; below one request's KV the engine runs one at a time, preempts and recomputes (counted
    # as if it fit).
    limit = running_limit(budget, inp, out)
    prefill_reserved = 0  # KV tokens of the prompts being prefilled (on-demand admission)
    prefill_left = 0  # prompt tokens the requests being prefilled still have to prefill (kept as they change)

    if warm is not None:
        # The open loop's steady batch is already decoding when the run starts (module docstring).
        count = round(warm.decode_requests)
        for i in range(count):
            left = 1 + i * (out - 1) // count  # decode steps it still needs, spread over 1 .. out - 1
            req = _Request(arrival_s=0.0, inp=inp + out - 1 - left, out=left + 1, out_total=left + 1, counted=False,
                           warm=True)
            seq += 1
            heapq.heappush(running, (left, seq, req))
            done_sum += left
            context_base += req.inp + 1

    lag = load.output_lag_steps > 0
    # With the host overlapped the next step's batch is scheduled when the current step starts (module docstring):
    # waiting requests join a step only if they arrived before the previous step began.
    lookahead = load.schedule_ahead
    scheduled_s = 0.0
    created = 0
    steady = closed and load.num_prompts is None  # leave the first wave out (module docstring)
    gaps: list[tuple[float, int]] = []  # (gap between two streamed tokens, how many such gaps), counted requests
    # Counted running requests by the time of their last token: every request running at the last emission got
    # its token then (``settled``); those that joined since got their first token when they joined (``joined``).
    last_emit_s = -math.inf
    settled = 0
    joined: dict[float, int] = {}

    def emit(at_s: float, steps_run: int = 1) -> None:
        """Every running request receives ``steps_run`` tokens, the last at ``at_s``, evenly spaced over the run
        from the end of the previous step: record the gaps since each one's previous token (ITL)."""
        nonlocal last_emit_s, settled
        each = (at_s - now) / steps_run
        if settled:
            gaps.append((now + each - last_emit_s, settled))
        for at, count in joined.items():
            gaps.append((now + each - at, count))
            settled += count
        joined.clear()
        if steps_run > 1 and settled:
            gaps.append((each, settled * (steps_run - 1)))
        last_emit_s = at_s

    def join(req: _Request) -> None:
        """``req`` starts decoding, its last token the one its prompt step produced (now)."""
        nonlocal settled
        req.joined_s = now
        if not req.counted:
            return
        if now > last_emit_s:
            joined[now] = joined.get(now, 0) + 1
        else:
            settled += 1  # its first token came with the last emission

    def leave(req: _Request) -> None:
        """``req`` stops decoding (done or preempted): drop it from its group and keep its last token's time."""
        nonlocal settled
        req.last_token_s = req.joined_s if req.joined_s > last_emit_s else last_emit_s
        if not req.counted:
            return
        if req.joined_s > last_emit_s:
            joined[req.joined_s] -= 1
            if not joined[req.joined_s]:
                del joined[req.joined_s]
        else:
            settled -= 1
    lagged_first: list[_Request] = []  # first token sampled, handed to the client when the next step ends
    lagged_done: list[_Request] = []  # last token sampled, likewise

    def finish(req: _Request) -> None:
        nonlocal issued
        if req.warm:
            return
        done.append(req)
        if closed and issued < prompts:
            arrivals.append(front.ready(req.finish_s))
            issued += 1

    def deliver(at_s: float) -> None:
        """Hand the lagged outputs to the client at ``at_s`` (the end of the step after the one that sampled them)."""
        for req in lagged_first:
            req.first_token_s = at_s
        for req in lagged_done:
            req.finish_s = max(at_s, req.first_token_s)
            finish(req)
        lagged_first.clear()
        lagged_done.clear()

    def preempt(base: int) -> int:
        """vLLM's recompute preemption (SGLang's retraction alike): while the running requests' next tokens overflow
        the KV pool, the newest one gives its blocks back and returns to the head of the waiting queue (SGLang: its
        tail) to prefill its prompt and the tokens it produced again (module docstring). Returns the new
        ``context_base``."""
        nonlocal done_sum
        def overflows() -> bool:
            return len(running) > 1 and prefill_reserved + base + len(running) * (decode_steps + 1) > capacity

        if not overflows():
            return base
        running.sort(key=_ADMISSION_ORDER)  # by admission order: the newest last
        while overflows():
            done_step, _s, victim = running.pop()
            done_sum -= done_step
            leave(victim)
            join = done_step - victim.out + 1
            produced = 1 + decode_steps - join
            base -= victim.inp + 1 - join
            victim.inp += produced
            victim.out -= produced
            victim.prefilled = 0
            victim.resumed = True
            if retract_to_tail:
                waiting.append(victim)
            else:
                waiting.appendleft(victim)
        heapq.heapify(running)
        return base

    recv_every = max(1, load.recv_interval_steps)
    admit_every = max(1, load.admit_interval_steps)
    gate_step = 0  # the scheduler's steps since its last admitting step, modulo admit_every (module docstring)

    def gate_open(position: int, live: int) -> bool:
        """Whether the step at ``position`` of the admission cycle may admit: its first step, or with
        ``admit_scaled`` (LMDeploy's PyTorch engine, module docstring) any step once the decode loop has run
        ceil(n x live / limit) + 1 steps past its prompt step."""
        if position == 0:
            return True
        return load.admit_scaled and position >= min(admit_every, math.ceil(admit_every * live / max(1, limit)) + 2)

    def gated() -> bool:
        """Whether this step may not admit waiting requests (module docstring, admission every n-th step)."""
        live = len(running) + len(prefilling)
        return admit_every > 1 and live > 0 and live >= load.admit_min_running and not gate_open(gate_step, live)

    def steps_to_gate(at_least: int, live: int) -> int:
        """Decode steps, at least ``at_least`` (and 1), until a step that may admit."""
        j = max(1, at_least)
        while not gate_open((gate_step + j) % admit_every, live):
            j += 1
        return j

    recv_counter = recv_every  # decode steps since the scheduler last took new requests (module docstring)

    while len(done) < prompts:
        receive = recv_counter >= recv_every
        if receive:
            recv_counter = 0  # the receive resets the counter whether or not anything arrived
        while receive and arrivals and arrivals[0][0] <= scheduled_s + 1e-12:
            req_inp, req_out = lengths()
            arrived = arrivals.popleft()[1]
            after = created >= prompts  # one of the steady state's later arrivals
            waiting.append(_Request(arrival_s=arrived, inp=req_inp, out=req_out, out_total=req_out,
                                    counted=not (steady and arrived <= 0.0) and not after, warm=after))
            if created < load.cached_prompts or (created == 0 and load.first_prompt_cached):
                # sent before: by an earlier run of the client, or as its warm-up request (serve_client)
                waiting[-1].prefilled = cached_prompt_tokens(req_inp, load.prefix_block_tokens)
            created += 1
        # Admit waiting requests (FCFS) while the KV pool and max_num_seqs allow, between multi-step blocks.
        preempted = False
        if on_demand:
            before = len(running)
            context_base = preempt(context_base)
            preempted = len(running) < before
        room = budget.token_budget - len(running) - prefill_left
        while block_left == 0 and waiting and len(running) + len(prefilling) < limit and not preempted \
                and not gated():
            if on_demand and (running or prefilling) and (
                    prefill_reserved + context_base + len(running) * (decode_steps + 1) + waiting[0].inp
                    + (waiting[0].out + future_share * (done_sum - len(running) * decode_steps + prefill_outputs)
                       if future_share else 0) > capacity):
                break
            if whole_prompts and (running or prefilling) and room < waiting[0].inp - waiting[0].prefilled <= \
                    budget.token_budget:
                break  # multi-step chunked prefill: whole prompts only, the rest wait for a later block
            room -= waiting[0].inp - waiting[0].prefilled
            req = waiting.popleft()
            prefill_reserved += req.inp
            prefill_left += req.inp - req.prefilled
            prefill_outputs += req.out
            prefilling.append(req)
        d = len(running)
        if not prefilling and d == 0:
            if lagged_first or lagged_done:
                deliver(now)  # nothing left to run: the engine hands over the pending outputs at once
                continue
            if not arrivals:
                break
            now = max(now, arrivals[0][0])
            scheduled_s = now  # an idle engine schedules an arriving request at once
            recv_counter = recv_every  # and its idle loop reaches the receive interval at once
            continue
        if prefilling and (block_left == 0 or budget.mixed_prefill):
            # One step with prompt chunks: mixed with every decode token (decode first, then chunks up to the
            # token budget), or prompts alone while the decoding requests wait.
            if not budget.mixed_prefill:
                d = 0
            room = max(0, budget.token_budget - d)
            chunk_total, attention = 0, 0.0
            completed: list[_Request] = []
            for req in prefilling:
                if room <= 0:
                    break
                take = min(room, req.inp - req.prefilled)
                attention += take * (req.prefilled + take / 2)
                req.prefilled += take
                prefill_left -= take
                room -= take
                chunk_total += take
                if req.prefilled >= req.inp:
                    completed.append(req)
            context = context_base + d * decode_steps
            dt = steps.step_s(d, context, chunk_total, attention)
            if lagged_first or lagged_done:
                deliver(now + dt)
            if d:
                emit(now + dt)
            scheduled_s = now if lookahead else now + dt
            now += dt
            busy_batch_time += (d + len(prefilling)) * dt
            if d:
                decode_steps += 1
            recv_counter = recv_every  # a step with prompts weighs 1000: the next turn receives
            # LMDeploy's decode loop starts after its prompt step (admit_scaled, module docstring)
            gate_step = 1 % admit_every if load.admit_scaled else (gate_step + 1) % admit_every
            # every prompt being prefilled finished in this step (``completed`` holds each of them at most once)
            if whole_prompts and len(completed) == len(prefilling):
                block_left = block - 1  # the prompts' step is the block's first; its other steps decode
            for req in completed:
                prefilling.remove(req)
                prefill_reserved -= req.inp
                prefill_outputs -= req.out
                if req.resumed and req.counted:
                    gaps.append((now - req.last_token_s, 1))
                if not req.resumed:
                    req.first_token_s = now
                    if lag:
                        lagged_first.append(req)
                if req.out <= 1:
                    req.finish_s = now
                    if lag:
                        lagged_done.append(req)
                    else:
                        finish(req)
                else:
                    seq += 1
                    heapq.heappush(running, (decode_steps + req.out - 1, seq, req))
                    done_sum += decode_steps + req.out - 1
                    join(req)
                    context_base += req.inp + 1 - decode_steps
        else:
            # Decode-only run until the next completion or the next arrival, in one jump.
            next_done = running[0][0]
            k = max(1, next_done - decode_steps)
            context = context_base + d * decode_steps
            if lagged_first or lagged_done:
                deliver(now + steps.step_s(d, context))
            if block > 1:
                block_left = block_left or block
                k = min(k, block_left)
            elif arrivals and len(running) < limit:
                first = steps.step_s(d, context)
                reach = max(1, math.ceil((arrivals[0][0] - now) / first))
                if recv_every > 1:
                    # The arrival is taken at the first receive at or after it (module docstring).
                    to_recv = max(1, recv_every - recv_counter)
                    reach = to_recv if reach <= to_recv else to_recv + math.ceil((reach - to_recv) / recv_every) * \
                        recv_every
                k = max(1, min(k, reach))
            if admit_every > 1 and (waiting or arrivals) and d >= load.admit_min_running:
                # stop at the next admitting step, where the waiting requests (or the next arrival) may join
                if waiting:
                    k = min(k, steps_to_gate(1, d))
                else:
                    reach = max(1, math.ceil((arrivals[0][0] - now) / steps.step_s(d, context)))
                    k = min(k, steps_to_gate(reach, d))
            if on_demand:
                free = capacity - prefill_reserved - context
                k = max(1, min(k, free // max(1, d)))
            mid = context + d * (k - 1) / 2
            dt = k * steps.step_s(d, mid)
            emit(now + dt, k)
            scheduled_s = now + dt * (k - 1) / k if lookahead else now + dt
            now += dt
            busy_batch_time += d * dt
            decode_steps += k
            recv_counter += k
            gate_step = (gate_step + k) % admit_every
            if recv_counter > recv_every:
                recv_counter = recv_every if recv_every <= 1 else recv_counter % recv_every or recv_every
            if block > 1:
                block_left -= k
        while running and running[0][0] <= decode_steps:
            _step, _s, req = heapq.heappop(running)
            done_sum -= _step
            leave(req)
            context_base -= req.inp + 1 - (_step - req.out + 1)
            req.finish_s = now
            if lag:
                lagged_done.append(req)
            else:
                finish(req)
    duration = max(now, 1e-12)
    n = len(done)
    generated = sum(r.out_total for r in done)
    measured = [r for r in done if r.counted] or done
    latency = {
        "ttft_s": summary([r.first_token_s - r.arrival_s for r in measured]),
        "tpot_s": summary([(r.finish_s - r.first_token_s) / (r.out_total - 1) for r in measured if r.out_total > 1]),
        "itl_s": weighted_summary(gaps),
        "e2e_latency_s": summary([r.finish_s - r.arrival_s for r in measured]),
    }
    ttft, tpot, e2e = latency["ttft_s"]["mean"], latency["tpot_s"]["mean"], latency["e2e_latency_s"]["mean"]
    throughput = generated / duration, n / duration
    if warm is not None and load.request_rate_per_s is not None:
        rate = load.request_rate_per_s / load.replicas
        throughput = rate * load.output_tokens, rate  # steady: what arrives is served
    assumptions: tuple[Assumption, ...] = (
        Assumption("scheduler", _("continuous batching, chunked prefill: {budget} tokens per step, at most {limit} "
                                  "running requests, {prompts} requests simulated").format(
            budget=format_count(budget.token_budget), limit=format_count(limit), prompts=format_count(prompts)),
            "Vidur arXiv 2405.05465; Sarathi-Serve arXiv 2403.02310; vllm/v1/core/sched/scheduler.py",
            raw(tokens_per_step=budget.token_budget, max_running_requests=limit, requests_simulated=prompts)),
    )
    if load.length_distribution == "sharegpt":
        longest_output = max((r.out_total for r in done), default=load.output_tokens)
        assumptions += (Assumption("length_distribution", _(
            "ShareGPT request lengths: {prompt} prompt and {output} output tokens on average, the longest output "
            "{longest} tokens; the run lasts until its longest requests are done").format(
            prompt=format_count(load.input_tokens), output=format_count(load.output_tokens),
            longest=format_count(longest_output)), SHAREGPT_SOURCE,
            raw(mean_input_tokens=load.input_tokens, mean_output_tokens=load.output_tokens,
                longest_output_tokens=longest_output)),)
    if admit_every > 1:
        assumptions += (Assumption("admit_interval", _(
            "once {running} requests run, waiting requests join in one step of every {steps}").format(
            running=format_count(load.admit_min_running), steps=admit_every), ADMIT_INTERVAL_SOURCE,
            raw(admit_interval_steps=admit_every, admit_min_running=load.admit_min_running)),)
    if warm is not None:
        assumptions += (Assumption("steady_state", _(
            "open loop in its steady state: {requests} requests already decoding when the run starts, {tpot} "
            "per output token (Little's law)").format(requests=format_count(warm.decode_requests),
                                                      tpot=format_duration(warm.tpot_s)), STEADY_SOURCE,
            raw(decoding_requests=warm.decode_requests, tpot_s=warm.tpot_s)),)
    return SimResult(output_tokens_per_s=throughput[0], requests_per_s=throughput[1], ttft_s=ttft, tpot_s=tpot,
                     e2e_latency_s=e2e, mean_batch=busy_batch_time / duration, prompts=n, assumptions=assumptions,
                     latency=latency)
