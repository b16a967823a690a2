"""vLLM V0's scheduler defaults (releases before 0.8): whether prompts share steps with decodes, and the step budget.

V0 has two schedulers (``vllm/core/scheduler.py``). Without chunked prefill (``_schedule_default``) a step runs
either the waiting prompts (up to ``max_num_batched_tokens`` tokens) or the running requests' decode tokens, prompts
first: every admitted prompt pauses decoding for a step of its own, the interference Sarathi-Serve removes
(arXiv 2403.02310). With chunked prefill (``_schedule_chunked_prefill``) a step takes every decode token first, then
prompt chunks up to the budget, as V1 does. Which one runs when the user sets neither flag:

- Chunked prefill is off unless the model's context is longer than 32K tokens (``max_model_len > 32768``), then on
  (``vllm/engine/arg_utils.py`` ``create_engine_config``: "Chunked prefill is enabled by default for models with
  max_model_len > 32K", vllm-project/vllm PR 6666, July 2024, v0.5.4), except for sliding-window models (the same
  condition) and, from v0.6.5, on ROCm (vllm-project/vllm PR 11146, Dec 2024: "chunked prefill is showing poor
  performance due to a suboptimal triton kernel"). Multi-head latent attention models never chunk in V0
  from v0.7.1, when vLLM first ran them as MLA ('MLA is enabled; forcing chunked prefill and prefix caching to be
  disabled', ``VllmConfig.__post_init__``; :func:`gpudesk.sizing.serve_engine.default_mixed_prefill`).
- The budget: with chunked prefill 512 tokens (V0 ``SchedulerConfig``: "the values that have the best balance
  between ITL and TTFT on A100"), 2048 from v0.6.5 (vllm-project/vllm PR 10544, Nov 2024: "512 is a very
  conservative value"); without, ``max(max_model_len, 2048)`` (the whole prompt in one step; the same
  ``SchedulerConfig``), whose multi-step variant (``--num-scheduler-steps`` > 1) keeps that budget with chunking on.

From v0.8 the V1 engine is the default and always chunks (:mod:`gpudesk.sizing.serve_engine`).
"""

from __future__ import annotations

from dataclasses import dataclass

from gpudesk.catalog.records import GPU
from gpudesk.sizing.engine_version import version_triple
from gpudesk.sizing.shapes import ModelSpec

V1_SINCE = (0, 8, 0)
MLA_NO_CHUNKED_SINCE = (0, 7, 1)
AUTO_CHUNKED_SINCE = (0, 5, 4)
ROCM_NO_AUTO_CHUNKED_SINCE = (0, 6, 5)
CHUNKED_BUDGET_2048_SINCE = (0, 6, 5)
LONG_CONTEXT_TOKENS = 32768
CHUNKED_BUDGET_OLD = 512
CHUNKED_BUDGET = 2048
MIN_UNCHUNKED_BUDGET = 2048
SOURCE = ("vllm/engine/arg_utils.py create_engine_config (chunked prefill on by default above 32K context, vllm PR "
          "6666; not on ROCm, PR 11146); vllm/config.py SchedulerConfig (budget 512 with chunked prefill, 2048 from "
          "PR 10544, else max(max_model_len, 2048)) (https://github.com/vllm-project/vllm)")
MLA_NO_CHUNKED_SOURCE = (
    "vllm/config.py VllmConfig.__post_init__ (v0.7.1-v0.7.3): 'MLA is enabled; forcing chunked prefill and prefix "
    "caching to be disabled.' (https://github.com/vllm-project/vllm); non-GPU platforms only from v0.8")
MLA_SOURCE = MLA_NO_CHUNKED_SOURCE + "; " + SOURCE


@dataclass(frozen=True)
class V0Scheduler:
    """vLLM V0's resolved prefill settings: ``chunked`` (prompt chunks ride in decode steps) and ``token_budget``."""

    chunked: bool
    token_budget: int
    source: str = SOURCE


def vllm_v0_scheduler(spec: ModelSpec, gpu: GPU, version: str | None, chunked: bool | None,
                      token_budget: int | None, num_scheduler_steps: int = 1) -> V0Scheduler | None:
    """The V0 scheduler settings of vLLM ``version`` for ``spec`` on ``gpu`` (module docstring), the user's
    ``chunked`` (``--enable-chunked-prefill``) and ``token_budget`` (``--max-num-batched-tokens``) kept where given;
    None for V1 (0.8 and later, or no version)."""
    parsed = version_triple(version)
    if parsed is None or parsed >= V1_SINCE:
        return None
    context = spec.context_length or 0
    source = SOURCE
    if chunked is None and spec.attention_kind == "mla" and parsed >= MLA_NO_CHUNKED_SINCE:
        chunked, source = False, MLA_SOURCE
    if chunked is None:
        rocm = gpu.vendor.upper() == "AMD"
        chunked = (parsed >= AUTO_CHUNKED_SINCE and context > LONG_CONTEXT_TOKENS and not spec.sliding_window
                   and not (rocm and parsed >= ROCM_NO_AUTO_CHUNKED_SINCE))
    if token_budget is None:
        if chunked and num_scheduler_steps <= 1:
            token_budget = CHUNKED_BUDGET if parsed >= CHUNKED_BUDGET_2048_SINCE else CHUNKED_BUDGET_OLD
        else:
            token_budget = max(context, MIN_UNCHUNKED_BUDGET)
    return V0Scheduler(chunked=chunked, token_budget=token_budget, source=source)
