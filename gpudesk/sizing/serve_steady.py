"""The steady state of an open-loop serving load: how many requests an engine decodes at once at a given arrival rate.

Under Poisson arrivals at ``rate`` requests/s (per replica) below the engine's capacity, every request spends its
prefill step and ``output - 1`` decode steps in the running batch, so by Little's law (Little 1961, "A proof for the
queuing formula L = lambda W", Operations Research 9(3)) the mean number of requests decoding is

    d = rate x (output - 1) x TPOT

and the TPOT is the step time of that batch. With the prompts mixed into the decode steps (vLLM V1 chunked prefill,
TensorRT-LLM in-flight batching; the scheduler of ``vllm/v1/core/sched/scheduler.py``, Sarathi-Serve arXiv
2403.02310) every step also carries the prompt tokens that arrived during the previous one, ``rate x TPOT x input``
on average, so

    TPOT = step(d decode requests with their contexts, rate x TPOT x input prompt tokens).

Without mixing (SGLang's default, vLLM V0) the prompts run in steps of their own that pause decoding: the arrivals of
one cycle (a decode step, or a block of ``--num-scheduler-steps`` of them, and the prefill step after it) are
prefilled together, and TPOT = decode step / (1 - share of the time spent in prefill steps).

The step grows with the batch, the batch with the step: the steady TPOT is the smallest fixed point of that map,
found by bisection between 0 and the largest TPOT the engine's limits allow (the batch reaching ``max_num_seqs`` or
the KV pool, or with mixing the decode and prompt tokens filling the step's token budget). Where the map stays
above the identity up to that limit the arrivals outrun the engine: there is no steady state, the waiting queue
grows for as long as the run lasts, and the caller simulates the run as it is.

Used by :func:`gpudesk.sizing.serve_sched.simulate` to start an open-loop run without a published prompt count in its
steady state (the running batch already there, as in a benchmark that runs for minutes, MLPerf Inference Server at
least 600 s: ``mlperf.conf`` ``*.*.min_duration = 600000``), instead of from an empty engine whose batch is still
filling when a thousand simulated arrivals are over.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpudesk.sizing.serve_engine import EngineBudget
from gpudesk.sizing.serve_step import StepModel

BISECTION_STEPS = 48
# Engines that admit a request once its prompt fits in the free KV pool and preempt (vLLM) or retract (SGLang) a running
# request when the pool runs out, instead of reserving every request's whole output up front (TensorRT-LLM's
# GUARANTEED_NO_EVICT). SGLang's PrefillAdder does reserve part of the running requests' remaining output, the
# new-token ratio times it (sglang python/sglang/srt/managers/schedule_policy.py
# _get_running_request_total_token_offset), a ratio that starts at SGLANG_INIT_NEW_TOKEN_RATIO 0.7 and decays over
# SGLANG_NEW_TOKEN_RATIO_DECAY_STEPS 600 decode steps to 0.7 x SGLANG_MIN_NEW_TOKEN_RATIO_FACTOR 0.14
# (python/sglang/srt/environ.py; scheduler.py init_new_token_ratio / min_new_token_ratio); a benchmark of thousands of
# steps runs at that floor, which is taken here (a retraction raises it again for a while: not modelled).
# LMDeploy alike: TurboMind's SequenceManager::Materialize gives each running sequence the blocks its next step needs
# and swaps out or drops the lowest-priority ones when the pool runs short (src/turbomind/models/llama/
# SequenceManager.cc), the PyTorch engine's scheduler evicts (lmdeploy/pytorch/paging/scheduler.py,
# eviction_helper; InternLM/lmdeploy v0.2.6).
ON_DEMAND_ENGINES = ("vllm", "sglang", "lmdeploy")
SGLANG_MIN_NEW_TOKEN_RATIO = 0.7 * 0.14
PREFILL_CYCLE_ROUNDS = 8  # rounds of the cycle <-> prompts-per-prefill-step fixed point (unmixed prefill)
STEADY_SOURCE = ("Little's law (Little 1961, Operations Research 9(3)); scheduler of vllm/v1/core/sched/scheduler.py "
                 "and Sarathi-Serve arXiv 2403.02310; MLPerf Inference mlperf.conf min_duration 600 s")


@dataclass(frozen=True)
class SteadyState:
    """One replica's steady state: ``tpot_s`` (seconds per decode token), ``decode_requests`` (mean requests
    decoding), ``prefill_tokens_per_step`` (mean prompt tokens per mixed step; 0 without mixing)."""

    tpot_s: float
    decode_requests: float
    prefill_tokens_per_step: float


def running_limit(budget: EngineBudget, input_tokens: int, output_tokens: int) -> int:
    """Most requests the engine runs at once: ``max_num_seqs``, and where it reserves each request's prompt and
    output whole (TensorRT-LLM, SGLang) the requests the KV pool holds (:mod:`gpudesk.sizing.serve_sched`)."""
    if budget.engine in ON_DEMAND_ENGINES:
        return budget.max_running
    return max(1, min(budget.max_running, budget.kv_capacity_tokens // max(1, input_tokens + output_tokens)))


def steady_state(steps: StepModel, budget: EngineBudget, rate_per_s: float, input_tokens: int,
                 output_tokens: int, block_steps: int = 1) -> SteadyState | None:
    """The steady state of Poisson arrivals at ``rate_per_s`` (one replica) of ``input_tokens`` / ``output_tokens``
    requests, or None where the engine cannot keep up (module docstring). ``block_steps``: decode steps scheduled
    at once (vLLM V0 ``--num-scheduler-steps``), between which prompts are admitted."""
    if rate_per_s <= 0 or output_tokens < 2:
        return None
    decode_per_s = rate_per_s * (output_tokens - 1)  # decode requests per second of TPOT (Little's law)
    context = input_tokens + output_tokens / 2  # mean context of a decoding request
    limit = running_limit(budget, input_tokens, output_tokens)
    caps = [limit / decode_per_s]
    if budget.engine in ON_DEMAND_ENGINES:
        caps.append(budget.kv_capacity_tokens / (decode_per_s * context))
    if budget.mixed_prefill:
        caps.append(budget.token_budget / (decode_per_s + rate_per_s * input_tokens))
    top = min(caps)

    def tpot(s: float) -> float:
        d = decode_per_s * s
        if budget.mixed_prefill:
            prompt_tokens = rate_per_s * s * input_tokens
            return steps.step_s(max(1, round(d)), d * context, round(prompt_tokens),
                                prompt_tokens * input_tokens / 2)
        decode = steps.step_s(max(1, round(d)), d * context)
        # The prompts that arrived during one cycle (a block of decode steps and the prefill step after it) are
        # prefilled together: at least one, at most the token budget's worth.
        most = max(1.0, budget.token_budget / input_tokens)
        cycle_s = block_steps * decode
        for _i in range(PREFILL_CYCLE_ROUNDS):
            together = min(max(1.0, rate_per_s * cycle_s), most)
            prefill_s = steps.step_s(0, 0.0, round(together * input_tokens), together * input_tokens ** 2 / 2)
            prefill_share = rate_per_s * prefill_s / together  # share of the time spent in prefill steps
            if prefill_share >= 1:
                return float("inf")
            cycle_s = block_steps * decode / (1 - prefill_share)
        return cycle_s / block_steps

    if tpot(top) > top:
        return None
    low, high = 0.0, top
    for _i in range(BISECTION_STEPS):
        mid = (low + high) / 2
        if tpot(mid) > mid:
            low = mid
        else:
            high = mid
    prefill = rate_per_s * high * input_tokens if budget.mixed_prefill else 0.0
    return SteadyState(tpot_s=high, decode_requests=decode_per_s * high, prefill_tokens_per_step=prefill)
