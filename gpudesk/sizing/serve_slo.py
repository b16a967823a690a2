"""An open loop run at the highest arrival rate whose p99 TTFT and TPOT stay within given limits.

MLPerf Inference's Server scenario: LoadGen issues queries with Poisson arrivals at the submitter's
``server_target_qps`` (mlcommons/inference ``loadgen/issue_query_controller.cc``, ``loadgen/test_settings.h``),
and a run is VALID only when the 99th percentile of its TTFT and of its TPOT stay within the benchmark's limits
(``loadgen/mlperf.conf``: ``*.Server.target_latency_percentile = 99``; ``llama2-70b.Server.ttft_latency = 2000``,
``tpot_latency = 200`` ms; Mixtral-8x7B the same; Llama 3.1 405B 6000 / 175 ms; Llama 3.1 8B 2000 / 100 ms; the
Interactive scenario of Llama 2 70B 450 / 40 ms and of Llama 3.1 8B 500 / 30 ms; rules: "MLPerf Inference Rules"
v4.1 / v5.0 section "Benchmarks", latency constraints of the LLM tasks). Each submitter raises the target rate until
one of the two p99s just meets its limit, so the published rate is where the system's constraint binds: near
saturation, where the latencies grow without bound as the load nears capacity (a decode step of ``a`` fixed time
plus ``b`` per token at utilisation ``u = rate x tokens x b`` lasts ``a / (1 - u)``). There a few per cent of error
in the modelled engine speed moves the latencies at the published rate several-fold, while the latencies at the
rate where the modelled engine meets the same limits do not depend on it.

So with limits given, the published rate is read as "the highest rate meeting them": the run's throughput is the
published rate (what arrives is served), and its latencies are those of the modelled engine at the highest rate it
sustains within the limits (bisection over the rate; a rate with no steady state, where the queue grows for as long
as the run lasts, fails them). Each latency the simulation reports at that rate (mean, median, percentiles) is the
answer; the limit itself is a p99, so the means come out below it by the spread of the requests' latencies.

LoadGen's p99 is taken over a run of at least ``min_duration`` 600 s (``loadgen/mlperf.conf`` ``*.*.min_duration =
600000``): each rate is simulated for as long (:data:`LOADGEN_MIN_DURATION_S`, ``steady_run_s`` of
:mod:`gpudesk.sizing.serve_sched`), so that the batch's slow wandering near capacity, which sets how far the p99
TPOT lies above the mean, is in the run. A published sample count (``num_prompts``: the queries LoadGen issued at
the published rate) only lengthens that run to the count's duration at the published rate; each trial rate is still
a steady run, not that many prompts from an empty engine (a load with a prompt count has no steady state, and
before this every trial failed: the DeepSeek-R1 and Llama 3.1 405B Server rows of MLPerf v5.1 / v6.0).
"""

from __future__ import annotations

import dataclasses
import functools
import math

from gpudesk.i18n import _
from gpudesk.sizing.serve_engine import EngineBudget
from gpudesk.sizing.serve_sched import Load, SimResult, has_steady_state, simulate
from gpudesk.sizing.serve_step import StepModel
from gpudesk.sizing.speed_common import Assumption, raw
from gpudesk.units import format_duration

BISECTION_STEPS = 12  # over a factor RATE_RANGE**2 = 16 of rates: the rate to 0.07 %
# Rates searched: this factor below and above the published one (a modelled engine off by more than that is a
# defect the step model shows elsewhere).
RATE_RANGE = 4.0
LOADGEN_MIN_DURATION_S = 600.0  # loadgen/mlperf.conf *.*.min_duration = 600000 (ms)
SLO_SOURCE = ("MLPerf Inference rules v4.1/v5.0 (LLM latency constraints); mlcommons/inference loadgen/mlperf.conf "
              "(target_latency_percentile 99, ttft_latency, tpot_latency) and loadgen/issue_query_controller.cc")


def _meets(result: SimResult, ttft_limit_s: float | None, tpot_limit_s: float | None) -> bool:
    for metric, limit in (("ttft_s", ttft_limit_s), ("tpot_s", tpot_limit_s)):
        if limit is not None and result.latency.get(metric, {}).get("p99", math.inf) > limit:
            return False
    return True


def slo_rate_per_s(steps: StepModel, budget: EngineBudget, load: Load, ttft_limit_s: float | None,
                   tpot_limit_s: float | None) -> tuple[float, SimResult] | None:
    """The highest whole-system request rate meeting the limits and the simulation at it (:func:`_search`); the
    TTFT, TPOT and throughput figures of one run search the same rates, so the answer is kept for the next."""
    args = (steps, budget, load, ttft_limit_s, tpot_limit_s)
    try:
        hash(args)
    except TypeError:  # a step model holding a mutable field: search without keeping the answer
        return _search(*args)
    return _search_kept(*args)


def _search(steps: StepModel, budget: EngineBudget, load: Load, ttft_limit_s: float | None,
            tpot_limit_s: float | None) -> tuple[float, SimResult] | None:
    """The highest whole-system request rate within ``RATE_RANGE`` of ``load``'s at which the modelled engine keeps
    a steady state and its p99 TTFT / TPOT within the limits, and the simulation at that rate; None where even the
    lowest rate searched misses a limit (a limit below one request's own prefill or decode step)."""
    rate = load.request_rate_per_s
    if rate is None or not math.isfinite(rate):
        return None  # no rate to search around (ServeLoad.validated refuses limits without one)
    found: tuple[float, SimResult] | None = None
    low, high = math.log(rate / RATE_RANGE), math.log(rate * RATE_RANGE)
    # Each trial rate is LoadGen's run at that rate: a steady open loop (serve_sched) as long as the published run
    # lasted, its sample count at the published rate, and at least min_duration. A published count is not kept as
    # the trial's prompt count: a run of that many prompts from an empty engine is not the run LoadGen measures at
    # another rate, and a load with a prompt count has no steady state to search (has_steady_state).
    run_s = max(LOADGEN_MIN_DURATION_S, (load.num_prompts or 0) / rate)
    for _i in range(BISECTION_STEPS):
        mid = (low + high) / 2
        trial = dataclasses.replace(load, request_rate_per_s=math.exp(mid), num_prompts=None, steady_run_s=run_s)
        result = simulate(steps, budget, trial) if has_steady_state(steps, budget, trial) else None
        if result is not None and _meets(result, ttft_limit_s, tpot_limit_s):
            found, low = (math.exp(mid), result), mid
        else:
            high = mid
    return found


_search_kept = functools.lru_cache(maxsize=64)(_search)


def _limits_text(ttft_limit_s: float | None, tpot_limit_s: float | None) -> str:
    return ", ".join(f"{name} <= {format_duration(value)}" for name, value in (("p99 TTFT", ttft_limit_s),
                                                                           ("p99 TPOT", tpot_limit_s))
                     if value is not None)


def slo_unmet_assumption(published_per_s: float, ttft_limit_s: float | None,
                         tpot_limit_s: float | None) -> Assumption:
    """The limits given, and no rate searched (``RATE_RANGE`` either side of the published one) meets them: the
    answer is the run at the published rate, and says that the limits were not met rather than dropping them."""
    return Assumption("latency_limits", _(
        "no rate from {lowest} to {highest} requests/s meets {limits} in the modelled engine (a limit below one "
        "request's own prefill or decode step cannot be met at any rate): latencies and throughput at the "
        "published rate {published} requests/s").format(
        lowest=f"{published_per_s / RATE_RANGE:.3g}", highest=f"{published_per_s * RATE_RANGE:.3g}",
        limits=_limits_text(ttft_limit_s, tpot_limit_s), published=f"{published_per_s:.3g}"), SLO_SOURCE,
        raw(published_rate_per_s=published_per_s, limits_met=False, ttft_p99_limit_s=ttft_limit_s or 0.0,
            tpot_p99_limit_s=tpot_limit_s or 0.0))


def slo_assumption(rate_per_s: float, published_per_s: float, ttft_limit_s: float | None,
                   tpot_limit_s: float | None) -> Assumption:
    """What the answer assumed: the latencies at the highest rate meeting the limits, the throughput at the
    published rate."""
    limits = _limits_text(ttft_limit_s, tpot_limit_s)
    return Assumption("latency_limits", _(
        "the published rate {published} requests/s is the highest meeting {limits}: latencies taken where the "
        "modelled engine meets them, at {rate} requests/s; throughput at the published rate").format(
        published=f"{published_per_s:.3g}", limits=limits, rate=f"{rate_per_s:.3g}"), SLO_SOURCE,
        raw(published_rate_per_s=published_per_s, rate_per_s=rate_per_s, ttft_p99_limit_s=ttft_limit_s or 0.0,
            tpot_p99_limit_s=tpot_limit_s or 0.0))
