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

V0 fallback (:func:`vllm_v0_fallback`): from v0.8 vLLM starts V1 only where ``EngineArgs._is_v1_supported_oracle``
(``vllm/engine/arg_utils.py``) accepts the configuration, and otherwise falls back to the V0 engine of the same
release ("Falling back to V0", ``_raise_or_fallback``). Two of its refusals are settings a user types here: an NVIDIA
GPU of compute capability below 8.0 ("Need at least Ampere for now (FA support required)": T4, V100, Turing and Volta
cards; vLLM V1 maintainers, vllm-project/vllm issue 12568: "V1 does not support T4 or older-generation GPUs since the
kernel libraries used in V1 (e.g., flash-attn) do not support them"), which V1 accepts from v0.10.2 (vllm-project/
vllm PRs 23614 and 24022, "Enable V1 for compute capability < 8.0"), and ``--num-scheduler-steps`` above 1 (multi-step
scheduling exists in V0 only; the same oracle). Such a run is served by V0 in every respect this package models: its
scheduler (above), its asynchronous output processor, its eager prompt steps and its default of no prefix cache.
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
# V0 fallback (module docstring): V1 accepts NVIDIA GPUs below compute capability 8.0 from this release on.
V1_PRE_AMPERE_SINCE = (0, 10, 2)
V1_MIN_COMPUTE_CAPABILITY = (8, 0)
FALLBACK_SOURCE = ("vllm/engine/arg_utils.py EngineArgs._is_v1_supported_oracle: 'Compute Capability < 8.0' and "
                   "'--num-scheduler-steps' fall back to V0 (v0.8 to v0.10.1); V1 on compute capability < 8.0 from "
                   "v0.10.2 (vllm-project/vllm PRs 23614, 24022) (https://github.com/vllm-project/vllm)")


def _below_ampere(gpu: GPU | None) -> bool:
    """Whether ``gpu`` is an NVIDIA GPU whose catalog compute capability is below 8.0 (a capability not given as
    "major.minor" is not counted)."""
    if gpu is None or gpu.vendor.upper() != "NVIDIA" or not gpu.compute_capability:
        return False
    try:
        major, minor = (int(part) for part in str(gpu.compute_capability).split(".")[:2])
    except ValueError:
        return False
    return (major, minor) < V1_MIN_COMPUTE_CAPABILITY


def vllm_v0_fallback(engine: str, version: str | None, gpu: GPU | None, num_scheduler_steps: int = 1) -> bool:
    """Whether vLLM ``version`` (0.8 or later, where V1 is the default) runs its V0 engine for this configuration
    (module docstring): on an NVIDIA GPU below compute capability 8.0 before v0.10.2, or with multi-step scheduling
    (``num_scheduler_steps`` > 1) before v0.10.2. False for another engine, releases before 0.8 (V0 anyway) and no
    version (the current defaults)."""
    parsed = version_triple(version)
    if engine.lower() != "vllm" or parsed is None or parsed < V1_SINCE or parsed >= V1_PRE_AMPERE_SINCE:
        return False
    return _below_ampere(gpu) or num_scheduler_steps > 1


def vllm_runs_v0(engine: str, version: str | None, gpu: GPU | None, num_scheduler_steps: int = 1) -> bool:
    """Whether vLLM ``version`` serves with its V0 engine: a release before 0.8, or a V0 fallback
    (:func:`vllm_v0_fallback`)."""
    parsed = version_triple(version)
    if engine.lower() != "vllm" or parsed is None:
        return False
    return parsed < V1_SINCE or vllm_v0_fallback(engine, version, gpu, num_scheduler_steps)


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
    None for V1 (0.8 and later, or no version, unless :func:`vllm_v0_fallback`)."""
    parsed = version_triple(version)
    if parsed is None or not vllm_runs_v0("vllm", version, gpu, num_scheduler_steps):
        return None
    context = spec.context_length or 0
    source = SOURCE
    if chunked is None and spec.attention_kind == "mla" and MLA_NO_CHUNKED_SINCE <= parsed < V1_SINCE:
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
