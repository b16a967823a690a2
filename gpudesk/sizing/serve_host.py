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
- Multi-step scheduling (vLLM V0 ``--num-scheduler-steps n``) pays the host work once per n steps (RFC 6854).
- Overlap defaults (the engines' own defaults, by version where it changed): SGLang's overlap scheduler is on since
  v0.4 (``server_args.py`` ``disable_overlap_schedule=False``; SGLang v0.4 blog "zero-overhead batch scheduler",
  Dec 2024); vLLM's asynchronous scheduling is on by default since v0.12 (``vllm/config/scheduler.py``
  ``async_scheduling: bool | None = None`` resolved to on in ``vllm/config/vllm.py``, PR 27614) and off before
  (V0 and V1 up to v0.11); TensorRT-LLM's runtime overlaps its scheduler (``disable_overlap_scheduler=False``,
  ``tensorrt_llm/llmapi/llm_args.py``). With no version given, the current default.
- Output lag: vLLM V0's asynchronous output processor (on by default from v0.6.0, vllm-project/vllm PR 7049 and
  RFC 6913; off with ``--enforce-eager``, issue 10295) processes the outputs of step n (detokenisation, stop
  checks, the request outputs the API server streams) while step n + 1 runs, and ``LLMEngine.step`` returns them
  after step n + 1: every token reaches the client one step after the step that sampled it. The first token of a
  request therefore arrives after the step that follows its prefill (the tenstorrent vLLM fork documents this as the
  extra TTFT of batch 1, tenstorrent/vllm PR 116). It ends with V1 (v0.8, March 2025), whose engine core returns a
  step's outputs as soon as it is done. With no version given, V1.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpudesk.i18n import _
from gpudesk.sizing.errors import SizingError

HOST_STEP_S = 1.0e-3
HOST_REQUEST_S = (5.5e-3 - HOST_STEP_S) / 256
HOST_SOURCE = ("vllm-project/vllm PR 17866 (V1 TPOT at batch 1), issue 10634 (gap between decode steps at batch "
               "256), RFC 6854 (multi-step scheduling)")
# (engine, first version whose default overlaps the host work with the GPU); None: always overlapped.
OVERLAP_SINCE = {"vllm": (0, 12), "sglang": (0, 4), "trtllm": None}
OVERLAP_SOURCE = {
    "vllm": "vllm/config/scheduler.py async_scheduling, on by default since v0.12 (vllm-project/vllm PR 27614)",
    "sglang": "sglang server_args.py disable_overlap_schedule=False (overlap scheduler since v0.4)",
    "trtllm": "TensorRT-LLM llm_args.py disable_overlap_scheduler=False",
}
# vLLM versions whose engine delivers a step's outputs after the next step (V0 asynchronous output processor).
OUTPUT_LAG_VLLM_VERSIONS = ((0, 6), (0, 8))
OUTPUT_LAG_SOURCE = ("vLLM V0 asynchronous output processor: vllm-project/vllm PR 7049, RFC 6913 (v0.6.0 to V1 in "
                     "v0.8); off with --enforce-eager (issue 10295); first token after the next step: "
                     "tenstorrent/vllm PR 116")
_VERSION = re.compile(r"(\d+)\.(\d+)")


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
    match = _VERSION.search(str(version))
    if match is None:
        raise SizingError("engine_version", _("{version!r} has no major.minor version number.").format(
            version=version))
    return int(match.group(1)), int(match.group(2))


def default_overlap(engine: str, version: str | None) -> bool:
    """Whether ``engine`` at ``version`` overlaps its host work with the GPU by default (module docstring)."""
    since = OVERLAP_SINCE.get(engine)
    parsed = engine_version_tuple(version)
    if since is None or parsed is None:
        return True
    return parsed >= since


def host_overhead(engine: str, version: str | None, overlap: bool | None, num_scheduler_steps: int) -> HostOverhead:
    """The host time of one step of ``engine`` (module docstring); ``overlap`` None: the engine's default."""
    resolved = default_overlap(engine, version) if overlap is None else overlap
    block = max(1, num_scheduler_steps)
    source = f"{HOST_SOURCE}; {OVERLAP_SOURCE.get(engine, '')}"
    return HostOverhead(step_s=HOST_STEP_S / block, request_s=HOST_REQUEST_S / block, overlap=resolved,
                        source=source)


def output_lag_steps(engine: str, version: str | None, cuda_graphs: bool) -> int:
    """Steps between the step that samples a token and the step after which the engine hands it to the client: 1
    for vLLM V0 with its asynchronous output processor (v0.6 up to v0.8, CUDA graphs on), else 0 (module
    docstring)."""
    parsed = engine_version_tuple(version)
    if engine != "vllm" or parsed is None or not cuda_graphs:
        return 0
    first, last = OUTPUT_LAG_VLLM_VERSIONS
    return 1 if first <= parsed < last else 0
