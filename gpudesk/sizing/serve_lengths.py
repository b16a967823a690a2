"""Per-request prompt and output lengths of a benchmark dataset a user can name (``length_distribution``).

``fixed`` (the default): every request has the given lengths (or, with ``length_spread``, vLLM's random dataset,
:mod:`gpudesk.sizing.serve_sched`). ``sharegpt``: the lengths of conversations sampled from ShareGPT, as vLLM's
``benchmark_serving.py --dataset-name sharegpt`` sends them without ``--sharegpt-output-len``: each request's prompt
is a conversation's first turn and its output the reference reply's token count. The client keeps only pairs with a
prompt and an output of at least 4 tokens, a prompt of at most 1024 and both together at most 2048 tokens
(``is_valid_sequence`` in vLLM ``benchmarks/benchmark_dataset.py`` v0.8.5, whose defaults are those of
``sample_sharegpt_requests`` in ``benchmark_serving.py``).

Why it matters: ShareGPT's lengths are long-tailed (vLLM paper, Kwon et al. SOSP 2023, Fig. 11a: ShareGPT outputs
average 338 tokens with a tail past 1000). A request-rate run ends when its slowest request does: the last arrival
plus that request's remaining decode, which with a few hundred prompts is set by the longest outputs, several times
the mean. Output throughput (total output / duration) falls accordingly, and requests with long prompts and outputs
hold more of the batch than the mean request. With every request at the mean length the run ends one mean lifetime
after its last arrival.

Shape (an assumption, stated): within the client's bounds each length is exponential, the maximum-entropy law for a
positive length of known mean, so the row's published mean lengths (the run's totals / prompts) fix it. The
exponential's scale is solved so that the seeded sample of the run's prompt count has exactly the given means (the
bounds cut the tail, so the scale is above the mean).
"""

from __future__ import annotations

import functools
import math
import random

LENGTH_DISTRIBUTIONS = ("fixed", "sharegpt")
SHAREGPT_MIN_TOKENS = 4
SHAREGPT_MAX_PROMPT_TOKENS = 1024
SHAREGPT_MAX_TOTAL_TOKENS = 2048
SHAREGPT_SOURCE = ("vLLM benchmarks/benchmark_dataset.py is_valid_sequence (v0.8.5): 4 <= prompt <= 1024, "
                   "output >= 4, prompt + output <= 2048; long-tailed ShareGPT lengths (Kwon et al. SOSP 2023 "
                   "Fig. 11a); exponential within those bounds with the given means (gpudesk/sizing/serve_lengths.py)")


def sharegpt_mean_limits(input_tokens: int) -> tuple[int, int]:
    """(largest mean prompt, largest mean output for a mean prompt of ``input_tokens``) this shape reaches within the
    client's bounds: a length's density only falls, so its mean stays below the middle of its range (module
    docstring); ShareGPT's own means (about 200 prompt and 200 output tokens) are far inside."""
    prompt = (SHAREGPT_MIN_TOKENS + SHAREGPT_MAX_PROMPT_TOKENS) // 2
    output = (SHAREGPT_MIN_TOKENS + SHAREGPT_MAX_TOTAL_TOKENS - max(input_tokens, SHAREGPT_MIN_TOKENS)) // 2
    return prompt, output


def _truncated_exponential(u: float, scale: float, low: float, high: float) -> float:
    """The ``u`` quantile of an exponential of ``scale`` shifted to start at ``low`` and cut at ``high``."""
    span = max(0.0, high - low)
    if span <= 0:
        return low
    return low - scale * math.log(1.0 - u * (1.0 - math.exp(-span / scale)))


def _fit(quantiles: list[float], highs: list[float], low: float, mean: float) -> list[int]:
    """Lengths at ``quantiles`` (one per request, each cut at its ``highs``) whose mean is ``mean`` (bisection on
    the scale; where the bounds cannot reach the mean, the closest they reach)."""
    target = min(max(float(mean), low), max(highs))

    def sample(scale: float) -> list[float]:
        # _truncated_exponential of each (u, high), its factor 1 - exp(-span / scale) computed once per distinct
        # cut (the same operations in the same order, so the same floats): the bisection samples every request
        # 101 times, and the requests share a few hundred cuts.
        factors: dict[float, float | None] = {}
        for high in highs:
            if high not in factors:
                span = max(0.0, high - low)
                factors[high] = None if span <= 0 else 1.0 - math.exp(-span / scale)
        out = []
        for u, high in zip(quantiles, highs, strict=True):
            factor = factors[high]
            out.append(low if factor is None else low - scale * math.log(1.0 - u * factor))
        return out

    lo_scale, hi_scale = 1e-3, 1e7
    for _i in range(100):
        mid = math.sqrt(lo_scale * hi_scale)
        if sum(sample(mid)) / len(quantiles) < target:
            lo_scale = mid
        else:
            hi_scale = mid
    return [max(int(low), round(x)) for x in sample(math.sqrt(lo_scale * hi_scale))]


def sharegpt_lengths(input_tokens: int, output_tokens: int, count: int, seed: int) -> list[tuple[int, int]]:
    """``count`` (prompt, output) token pairs drawn (seeded) as vLLM's ShareGPT client sends them, with mean prompt
    ``input_tokens`` and mean output ``output_tokens`` (module docstring). The draw is kept per arguments (the
    scheduler asks for the same run's lengths again; each caller gets its own list)."""
    return list(_sharegpt_lengths(input_tokens, output_tokens, count, seed))


@functools.lru_cache(maxsize=64)
def _sharegpt_lengths(input_tokens: int, output_tokens: int, count: int, seed: int) -> tuple[tuple[int, int], ...]:
    count = max(1, count)
    rng = random.Random(seed)
    prompt_u = [rng.random() for _i in range(count)]
    output_u = [rng.random() for _i in range(count)]
    prompts = _fit(prompt_u, [float(SHAREGPT_MAX_PROMPT_TOKENS)] * count, SHAREGPT_MIN_TOKENS, input_tokens)
    output_highs = [float(SHAREGPT_MAX_TOTAL_TOKENS - p) for p in prompts]
    outputs = _fit(output_u, output_highs, SHAREGPT_MIN_TOKENS, output_tokens)
    return tuple(zip(prompts, outputs, strict=True))
