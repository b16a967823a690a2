"""Serving speed of one fixed option: an engine serving a model on ``tp`` GPUs per replica under a given load.

``serve_speed(spec, gpu, load, link) -> ServeSpeed`` answers output tokens/s, requests/s, time to first token
(TTFT) and time per output token (TPOT) with every assumption and its source. The load is one of a closed-loop
``concurrency`` (at most N requests in flight, vLLM ``benchmark_serving --max-concurrency``), an open-loop
``request_rate_per_s`` (Poisson arrivals) or an offline static ``batch``.

The mechanisms live in small modules: the engine's memory budget and scheduler settings
(:mod:`gpudesk.sizing.serve_engine`), the time of one engine step (:mod:`gpudesk.sizing.serve_step`) and the
scheduler over time (:mod:`gpudesk.sizing.serve_sched`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpudesk.catalog.records import GPU, Link
from gpudesk.i18n import _
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.serve_client import SOURCE as WARMUP_SOURCE
from gpudesk.sizing.serve_client import (
    EARLIER_RUN_SOURCE,
    earlier_run_cached_prompts,
    prefix_block_tokens,
    warmup_caches_first_prompt,
)
from gpudesk.sizing.serve_engine import EngineBudget, engine_budget
from gpudesk.sizing.serve_host import OUTPUT_LAG_SOURCE, front_end, output_lag_steps, schedules_ahead
from gpudesk.sizing.serve_vllm_v0 import FALLBACK_SOURCE as V0_FALLBACK_SOURCE, vllm_v0_fallback
from gpudesk.sizing.serve_llamacpp import ENGINE as LLAMACPP, single_stream
from gpudesk.sizing.serve_lmdeploy import DECODE_LOOP_SOURCE, pytorch_prefill_interval
from gpudesk.sizing.serve_load import ServeLoad
from gpudesk.sizing.serve_sched import Load, simulate
from gpudesk.sizing.serve_slo import slo_assumption, slo_rate_per_s, slo_unmet_assumption
from gpudesk.sizing.serve_step import StepModel, step_model
from gpudesk.sizing.shapes import ModelSpec
from gpudesk.sizing.speed_common import Assumption, raw
from gpudesk.units import format_duration

__all__ = ["ServeLoad", "ServeSpeed", "serve_speed"]

@dataclass(frozen=True)
class ServeSpeed:
    """The answer: whole-system ``output_tokens_per_s`` and ``requests_per_s`` (all replicas), mean ``ttft_s``
    and ``tpot_s`` (seconds), ``batch`` (mean running requests per replica), ``kv_capacity_tokens`` (KV tokens
    one replica holds), mean ``e2e_latency_s``, ``gpus``, the ``assumptions`` and ``latency``: per latency metric
    (``ttft_s``, ``tpot_s``, ``itl_s``, ``e2e_latency_s``) its mean, median and percentiles
    (:mod:`gpudesk.sizing.serve_stats`)."""

    output_tokens_per_s: float
    requests_per_s: float
    ttft_s: float
    tpot_s: float
    batch: float
    kv_capacity_tokens: int
    e2e_latency_s: float
    gpus: int
    assumptions: tuple[Assumption, ...] = field(default=())
    latency: dict[str, dict[str, float]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for ``--json``: the figures (seconds, tokens/s) and the assumptions."""
        return {
            "output_tokens_per_s": self.output_tokens_per_s,
            "output_tokens_per_s_per_gpu": self.output_tokens_per_s / self.gpus,
            "requests_per_s": self.requests_per_s,
            "ttft_s": self.ttft_s,
            "tpot_s": self.tpot_s,
            "e2e_latency_s": self.e2e_latency_s,
            "batch": self.batch,
            "kv_capacity_tokens": self.kv_capacity_tokens,
            "gpus": self.gpus,
            "latency": {metric: dict(stats) for metric, stats in self.latency.items()},
        }


def busy_replicas(load: ServeLoad) -> int:
    """Replicas that get requests. The load is split evenly over the replicas (gpudesk.sizing.serve_sched, at least one
    request per replica); fewer requests in flight (closed loop) or submitted (offline) than replicas leave the rest
    idle: C clients keep at most C replicas busy, so the system's throughput is C replicas' worth, not all of them."""
    for count in (load.concurrency, load.batch):
        if count is not None:
            return max(1, min(load.replicas, count))
    return load.replicas


def _llamacpp_speed(spec: ModelSpec, gpu: GPU, load: ServeLoad) -> ServeSpeed:
    """One llama.cpp sequence (:mod:`gpudesk.sizing.serve_llamacpp`): the first token, then one per ``tpot_s``."""
    run = single_stream(spec, gpu, load)
    e2e = run.ttft_s + (load.output_tokens - 1) * run.tpot_s
    busy = busy_replicas(load)
    return ServeSpeed(output_tokens_per_s=load.output_tokens / e2e * busy, requests_per_s=busy / e2e,
                      ttft_s=run.ttft_s, tpot_s=run.tpot_s, batch=1.0, kv_capacity_tokens=run.kv_tokens,
                      e2e_latency_s=e2e, gpus=load.tp * load.pp * load.replicas, assumptions=run.assumptions)


def serve_speed(spec: ModelSpec, gpu: GPU, load: ServeLoad, link: Link | None = None) -> ServeSpeed:
    """Serving speed of ``spec`` on ``load.tp`` x ``load.pp`` x ``load.replicas`` ``gpu``s under ``load``.

    ``link`` is the GPU-GPU link inside a replica (NVLink, Infinity Fabric or PCIe; needed when ``tp > 1`` or
    ``pp > 1``).

    Raises:
        SizingError: a bad load field, a model without a transformer shape, no link for ``tp > 1``, or a model
            whose weights leave no KV cache under the engine's memory budget.
    """
    load = load.validated()
    heads = spec.num_attention_heads
    if load.tp > 1 and heads and heads % load.tp:
        # vLLM ModelConfig.verify_with_parallel_config (vllm/config/model.py) refuses it ("Total number of attention
        # heads must be divisible by tensor parallel size"); SGLang's ModelConfig and TensorRT-LLM's mapping alike:
        # each rank holds a whole number of heads. The planner offers only dividing degrees (planner/serve_eval.py).
        raise SizingError("tp", _("the model's {heads} attention heads do not split evenly over {tp} tensor-parallel "
                                  "GPUs; the engines refuse it: use a degree that divides {heads}.").format(
            heads=heads, tp=load.tp))
    if load.engine.lower() == LLAMACPP:
        return _llamacpp_speed(spec, gpu, load)
    budget: EngineBudget = engine_budget(spec, gpu, load)
    steps: StepModel = step_model(spec, gpu, load, link, budget.kv_dtype)
    # vLLM V1-default releases that serve this configuration with their V0 engine (serve_vllm_v0.vllm_v0_fallback):
    # V0's output lag, no API-server stage of V1's, and V0's default of no prefix cache.
    v0_fallback = vllm_v0_fallback(load.engine, load.engine_version, gpu, load.num_scheduler_steps)
    prefix_caching = load.prefix_caching if load.prefix_caching is not None or not v0_fallback else False
    lag = output_lag_steps(load.engine.lower(), load.engine_version, load.cuda_graphs, v0_fallback)
    # Offline batches go through the engine's Python API (vLLM ``LLM``), not the API server.
    front = None if load.batch is not None else front_end(load.engine.lower(), load.engine_version,
                                                            load.api_server_count, v0_fallback)
    warmup = warmup_caches_first_prompt(load.engine.lower(), load.engine_version, load.batch is not None,
                                        load.num_prompts, load.benchmark_warmup, prefix_caching)
    live = load.concurrency if load.concurrency is not None else budget.max_running
    cached = earlier_run_cached_prompts(load.engine.lower(), load.engine_version, load.batch is not None,
                                        load.cached_prompts, load.num_prompts,
                                        load.input_tokens + load.output_tokens,
                                        min(live, load.num_prompts or live, budget.max_running),
                                        budget.kv_capacity_tokens, prefix_caching,
                                        prompt_tokens=load.input_tokens)
    # LMDeploy's PyTorch engine prefills only between decode loops (serve_lmdeploy, dynamic prefill interval).
    decode_loop, loop_scaled = pytorch_prefill_interval(load.engine_version, load.backend) \
        if load.engine.lower() == "lmdeploy" else (1, False)
    sim_load = Load(input_tokens=load.input_tokens, output_tokens=load.output_tokens,
                                          concurrency=load.concurrency, request_rate_per_s=load.request_rate_per_s,
                                          batch=load.batch, num_prompts=load.num_prompts, replicas=load.replicas,
                                          num_scheduler_steps=load.num_scheduler_steps,
                                          length_spread=load.length_spread, output_lag_steps=lag,
                                          length_distribution=load.length_distribution,
                                          frontend_request_s=front.request_s if front else 0.0,
                                          frontend_intake_s=front.intake_s if front else 0.0,
                                          frontend_token_s=front.token_s if front else 0.0,
                                          frontend_servers=front.servers if front else 1,
                                          first_prompt_cached=warmup, cached_prompts=cached,
                                          prefix_block_tokens=prefix_block_tokens(load.engine.lower(),
                                                                                  load.kv_block_size),
                                          recv_interval_steps=load.scheduler_recv_interval,
                                          admit_interval_steps=decode_loop if decode_loop > 1
                                          else load.admit_interval_steps,
                                          admit_min_running=load.admit_min_running, admit_scaled=loop_scaled,
                                          schedule_ahead=schedules_ahead(load.engine.lower(), load.engine_version,
                                                                         load.backend, steps.host_overlap))
    result = simulate(steps, budget, sim_load)
    assumptions = budget.assumptions + steps.assumptions + result.assumptions
    latency_run = result
    if load.ttft_p99_limit_s is not None or load.tpot_p99_limit_s is not None:
        # The published rate is the highest meeting the p99 limits (MLPerf Server): latencies where the modelled
        # engine meets them (serve_slo module docstring).
        found = slo_rate_per_s(steps, budget, sim_load, load.ttft_p99_limit_s, load.tpot_p99_limit_s)
        if found is not None:
            latency_run = found[1]
            assumptions += (slo_assumption(found[0], float(load.request_rate_per_s or 0.0), load.ttft_p99_limit_s,
                                           load.tpot_p99_limit_s),)
        else:  # no rate searched meets them: say so, the limits are not dropped in silence
            assumptions += (slo_unmet_assumption(float(load.request_rate_per_s or 0.0), load.ttft_p99_limit_s,
                                                 load.tpot_p99_limit_s),)
    if decode_loop > 1:
        text = _("prompts join between decode loops of up to {steps} steps, which end early once the loop has run the "
                 "share of {interval} steps that the running requests fill of the batch") if loop_scaled else _(
            "prompts join between decode loops of {steps} steps")
        assumptions += (Assumption("decode_loop", text.format(steps=decode_loop - 1, interval=decode_loop),
                                   DECODE_LOOP_SOURCE, raw(prefill_interval=decode_loop, scaled=loop_scaled)),)
    if front is not None:
        assumptions += (Assumption("front_end", _(
            "{servers} API-server process(es): {request} per request + {token} per streamed token, of which "
            "{intake} lie ahead of the request's first token").format(
            servers=front.servers, request=format_duration(front.request_s), token=format_duration(front.token_s),
            intake=format_duration(front.intake_s)),
            front.source, raw(servers=front.servers, request_s=front.request_s, token_s=front.token_s,
                              intake_s=front.intake_s)),)
    if warmup:
        assumptions += (Assumption("warmup_request", _(
            "the benchmark client sends the first prompt once before the run: the run's first request finds it in "
            "the prefix cache"), WARMUP_SOURCE),)
    if cached:
        assumptions += (Assumption("cached_prompts", _(
            "the run's first {count} prompts were sent by an earlier run: the engine finds them in its prefix "
            "cache").format(count=cached), EARLIER_RUN_SOURCE, raw(cached_prompts=cached)),)
    if v0_fallback:
        assumptions += (Assumption("vllm_v0_fallback", _(
            "vLLM {version} does not run its V1 engine on this configuration (a GPU below compute capability 8.0, "
            "or multi-step scheduling) and falls back to its V0 engine: V0's scheduler, output processing and "
            "defaults").format(version=load.engine_version), V0_FALLBACK_SOURCE),)
    if lag:
        assumptions += (Assumption("output_lag_steps", _(
            "the engine hands each token to the client one step after the step that sampled it"),
            OUTPUT_LAG_SOURCE),)
    busy = busy_replicas(load)
    return ServeSpeed(
        output_tokens_per_s=result.output_tokens_per_s * busy,
        requests_per_s=result.requests_per_s * busy,
        ttft_s=latency_run.ttft_s,
        tpot_s=latency_run.tpot_s,
        batch=latency_run.mean_batch,
        kv_capacity_tokens=budget.kv_capacity_tokens,
        e2e_latency_s=latency_run.e2e_latency_s,
        gpus=load.tp * load.pp * load.replicas,
        assumptions=assumptions,
        latency=latency_run.latency,
    )
