"""Sixty-eighth pass of the OOM doctor (issue 28): held-out messages whose own words name the mechanism: a driver-API
error of PyTorch's expandable segments, a host memory monitor's kill at its threshold, and a continuous-batching
scheduler's request dropped for its KV-cache pool. Every positive text is the real message quoted from its public
thread; the negatives keep the neighbouring words of an ordinary log and must not be read so."""

from __future__ import annotations

import pytest

from gpudesk.oom import diagnose_text
from gpudesk.oom.signatures import expandable_segment_refused, memory_threshold_kill

# pytorch/pytorch#192330: WSL2's driver refused cuMemSetAccess for an expandable segment (fixed in a later driver).
VMM_UNKNOWN = ("PYTORCH_ALLOC_CONF=expandable_segments:True\nRuntimeError: CUDA driver error: unknown error\n\n"
               "The failure occurs inside `ExpandableSegment` when `cuMemSetAccess` returns `CUDA_ERROR_UNKNOWN (999)`.\n"
               "CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED = 1")
# Roblox/FAI-RL#66: every rank loaded the full checkpoint into host RAM; Ray killed the worker at 95 % of node memory.
THRESHOLD_KILL = ("Observed: every rank logs Loading weights: 882/882, each worker process holds ~230 GB RSS, node hits "
                  "the memory threshold and the worker is killed during RayTrainWorker.__init__.\n\n"
                  "  2 GPUs: 458.07GB / 482.00GB (95.0%) \u2192 OOM   (node = 482 GB)\n"
                  "  8 GPUs: 1834.71GB / 1928.00GB (95.2%) \u2192 OOM (node = 1928 GB)")
# aweussom/NoLlama#21: OpenVINO GenAI's default 2 GB KV pool could not hold one agent prompt.
UNFINISHED_STATUS = (
    "09:10:58 !! [GPU] LLM error: Check 'res.m_status == GenerationStatus::FINISHED || res.m_status == "
    "GenerationStatus::STOP || res.m_status == GenerationStatus::CANCEL' failed at C:\\Jenkins\\workspace\\private-ci"
    "\\ie\\build-windows-vs2022@2\\b\\repos\\openvino.genai\\src\\cpp\\src\\llm/pipeline_continuous_batching_adapter.hpp"
    ":175:\nGot unfinished GenerationStatus")


def _top(text: str):
    diagnosis = diagnose_text(text)
    assert diagnosis.found_oom, text
    return diagnosis.causes[0]


@pytest.mark.parametrize(("text", "check"), [(VMM_UNKNOWN, "expandable_segments"), (THRESHOLD_KILL, "host_ram")])
def test_message_names_a_not_capacity_check(text, check):
    top = _top(text)
    assert top.id == "not_capacity"
    assert top.evidence.get("deciding_check") == check


def test_unfinished_generation_status_is_the_kv_pool():
    assert _top(UNFINISHED_STATUS).id == "kv_cache_budget"


def test_dropped_by_scheduler_wording_is_the_kv_pool():
    text = ("RuntimeError: Request 0 was dropped by the scheduler because it did not fit in the available cache "
            "budget (out of memory). Increase cache_size / num_kv_blocks, reduce the prompt or generation length")
    assert _top(text).id == "kv_cache_budget"


@pytest.mark.parametrize("text", [
    # A driver error with no expandable segment named; expandable segments named with no driver error.
    "RuntimeError: CUDA driver error: unknown error\ncuModuleLoadData failed",
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\ntorch.OutOfMemoryError: CUDA out of memory.",
])
def test_expandable_segment_refusal_needs_both(text):
    assert not expandable_segment_refused(text)


@pytest.mark.parametrize("text", [
    # A threshold without a kill, a kill without a threshold, and a GPU memory threshold.
    "memory threshold set to 0.95 of node memory",
    "the worker is killed by SIGTERM after the timeout",
    "GPU memory threshold reached, process killed",
])
def test_threshold_kill_needs_host_memory_and_a_kill(text):
    assert not memory_threshold_kill(text)


def test_finished_generation_status_is_not_read():
    diagnosis = diagnose_text("Generation finished: GenerationStatus::FINISHED, 512 tokens")
    assert not any(c.id == "kv_cache_budget" for c in diagnosis.causes)
