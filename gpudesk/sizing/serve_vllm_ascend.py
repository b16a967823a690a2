"""vLLM on Huawei Ascend NPUs (the vLLM-Ascend platform plugin): the releases whose scheduler is prefill-first.

vLLM-Ascend's ``NPUPlatform.check_and_update_config`` (``vllm_ascend/platform.py``) turns chunked prefill off for
every model without multi-head latent attention ("Non-MLA LLMs forcibly disable the chunked prefill feature, as the
performance of operators supporting this feature functionality is currently suboptimal.") and switches the V1
engine to its ``AscendScheduler`` (``vllm_ascend/core/scheduler.py``: "extends vllm's original v1 scheduler with
prefill-first scheduling strategy": while requests wait, a step runs only prompts, up to the token budget; decode
steps run when none is admitted). The rule overrides the user's ``--enable-chunked-prefill``, and a budget below
the model's context is raised to it (``max_num_batched_tokens = max_model_len``), so a prompt step takes whole
prompts. Every admitted prompt pauses the running requests' decoding for a step of its own, as in vLLM V0 without
chunked prefill (:mod:`gpudesk.sizing.serve_vllm_v0`).

Releases that carry the rule (read at each tag of https://github.com/vllm-project/vllm-ascend):

- v0.9.1 (the final release of the v0.9.1-dev branch, 2025-09-03): vllm-project/vllm-ascend PR 2659; v0.9.1rc1 to
  rc3 do not have it.
- v0.10.2rc1 to v0.11.0rc3 (main from 2025-09-12, PR 2894) until PR 3967 "Restore scheduling logic under default
  configuration" (2025-11-10): v0.9.2rc1, v0.10.0rc1 and v0.10.1rc1 before it and v0.11.0 and v0.12.0rc1 after it
  keep vLLM's chunked prefill.

The plugin's release numbers follow the vLLM release they pair with, so the row's ``engine_version`` on an Ascend
NPU is the plugin's. No version given: the current plugin, which schedules as vLLM does.

Eager launches. Releases before v0.9.0 run every model eagerly: v0.7.3 and v0.8.4rc1 force
``CompilationLevel.NO_COMPILATION`` ("Compilation level %s is not supported on NPU now") and their V0 model runner
captures no graph; ACL graph capture is the default from v0.9.0rc1 (``docs/source/user_guide/feature_guide/
graph_mode.md``, vllm-project/vllm-ascend PR 1083). An eager operator on an Ascend NPU costs far more than on a GPU
(torch_npu dispatch through the CANN operator queue): the plugin's own v0.7.3 release benchmark (vllm-project/
vllm-ascend issue 776, Atlas A2 / 910B, Qwen2.5-7B-Instruct TP 1, ``benchmark_latency`` batch 8, 32 prompt and
128 output tokens, eager V0) takes 4274.96 ms per run; this model's step at that shape, with the 10 us CUDA eager
floor, gives 2473.7 ms for the 128 steps of 280 kernels, so each kernel costs (4274.96 - 2473.7) ms / (128 x 280)
= 50.3 us more: :data:`ASCEND_EAGER_KERNEL_S` = 60 us. The same table's online run at 1 request/s (median TPOT 36.5
ms) agrees.
"""

from __future__ import annotations

import re

from gpudesk.catalog.records import GPU
from gpudesk.sizing.serve_vllm_v0 import V0Scheduler
from gpudesk.sizing.shapes import ModelSpec

ASCEND_VENDOR = "Huawei"
# (major, minor, patch, pre-release) of the releases with the rule; "" is the final release, "rc" any candidate.
PREFILL_FIRST_RELEASES = {(0, 9, 1, ""), (0, 10, 2, "rc"), (0, 11, 0, "rc")}
SOURCE = ("vllm-ascend vllm_ascend/platform.py check_and_update_config ('Non-MLA LLMs forcibly disable the chunked "
          "prefill feature', PR 2659 in v0.9.1, PR 2894 in v0.10.2rc1-v0.11.0rc3, undone by PR 3967) and "
          "vllm_ascend/core/scheduler.py AscendScheduler (prefill-first) (https://github.com/vllm-project/vllm-ascend)")
GRAPHS_SINCE = (0, 9, 0)
ASCEND_EAGER_KERNEL_S = 60e-6
EAGER_SOURCE = ("vllm-ascend v0.7.3 release benchmark, latency_qwen2_5_7B_tp1 (vllm-project/vllm-ascend issue 776); "
                "eager before v0.9.0 (vllm_ascend/platform.py NO_COMPILATION, graph_mode.md) "
                "(https://github.com/vllm-project/vllm-ascend)")
# A release as users write it: "0.13.0rc1", "v0.9.1" or the X.Y form the CLI's help shows ("0.13" is 0.13.0).
_RELEASE = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?(rc\d*)?")


def _release(version: str | None) -> tuple[int, int, int, str] | None:
    match = _RELEASE.search(version) if version else None
    if match is None:
        return None
    return (int(match.group(1)), int(match.group(2)), int(match.group(3) or 0),
            "rc" if match.group(4) else "")


def plugin_release(version: str | None) -> tuple[int, int, int, str] | None:
    """(major, minor, patch, "rc" or "") of the vLLM-Ascend release ``version`` names; None where it names none."""
    return _release(version)


def prefill_first_release(version: str | None) -> bool:
    """Whether vLLM-Ascend ``version`` forces prefill-first scheduling on non-MLA models (module docstring)."""
    return _release(version) in PREFILL_FIRST_RELEASES


def vllm_ascend_scheduler(spec: ModelSpec, gpu: GPU, version: str | None, token_budget: int) -> V0Scheduler | None:
    """The prefill-first settings vLLM-Ascend ``version`` imposes for ``spec`` on ``gpu`` (module docstring): no
    chunked prefill and a budget of at least the model's context; None where vLLM's own scheduler runs (not an
    Ascend NPU, an MLA model, another release or none given)."""
    if gpu.vendor != ASCEND_VENDOR or spec.attention_kind == "mla" or not prefill_first_release(version):
        return None
    return V0Scheduler(chunked=False, token_budget=max(token_budget, spec.context_length or 0), source=SOURCE)


def runs_eager(gpu: GPU, engine: str, version: str | None) -> bool:
    """Whether vLLM on ``gpu`` launches every kernel eagerly whatever ``--enforce-eager`` says: an Ascend NPU with a
    plugin release before v0.9.0 (module docstring)."""
    release = _release(version)
    return (gpu.vendor == ASCEND_VENDOR and engine == "vllm" and release is not None
            and release[:3] < GRAPHS_SINCE)


def eager_kernel_s(gpu: GPU) -> float | None:
    """Fixed seconds of one eagerly launched kernel on ``gpu`` where this module has a measured figure (Ascend NPUs:
    :data:`ASCEND_EAGER_KERNEL_S`), else None."""
    return ASCEND_EAGER_KERNEL_S if gpu.vendor == ASCEND_VENDOR else None
