"""TPU reports name the TPU's own tools in their checks and "Command to run" (stack_terms, TPU): the process that
holds the chips (``sudo lsof -w /dev/accel*``) and the framework's memory query, never nvidia-smi."""

from __future__ import annotations

import pytest

from gpudesk import i18n
from gpudesk.oom import diagnose_text
from gpudesk.oom.stack_terms import JAX_TPU_MEMORY, TORCH_XLA_TPU_MEMORY, _tpu_terms

# pytorch/xla#2569 (tests/fixtures/oom/platform_cases.jsonl): a v2-32 TPU's HBM.
XLA_TPU = ("(1) Resource exhausted: Attempting to allocate 180.59M. That was not possible. There are 142.58M free.; "
           "(0x3x0_HBM1)\nv2-32 TPU; halving the batch size fixed it.")


@pytest.fixture(params=["en", "zh_CN"])
def language(request):
    before = i18n.current_language()
    i18n.set_language(request.param)
    yield request.param
    i18n.set_language(before)


def test_tpu_command_to_run_is_no_nvidia_smi(language) -> None:
    diagnosis = diagnose_text(XLA_TPU)
    assert diagnosis.report.platform == "tpu"
    other = next(c for c in diagnosis.causes if c.id == "other_process")
    assert other.evidence["check_command"] == "sudo lsof -w /dev/accel*"
    shown = " ".join(c.evidence.get("check_command", "") + " " + " ".join(c.checks) for c in diagnosis.causes)
    assert "nvidia-smi" not in shown and "CUDA_VISIBLE_DEVICES" not in shown
    assert "TPU_VISIBLE_CHIPS" in " ".join(other.checks)


def test_tpu_memory_query_follows_the_framework() -> None:
    query = "nvidia-smi --query-gpu=memory.total,memory.used --format=csv"
    assert dict(_tpu_terms("jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED"))[query] == JAX_TPU_MEMORY
    assert dict(_tpu_terms("import torch_xla.core.xla_model as xm"))[query] == TORCH_XLA_TPU_MEMORY


def test_gpu_reports_keep_nvidia_smi() -> None:
    diagnosis = diagnose_text("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a "
                              "total capacity of 23.64 GiB of which 1.10 GiB is free. Process 4242 has 12.00 GiB "
                              "memory in use. Including non-PyTorch memory, this process has 10.00 GiB "
                              "memory in use. Of the allocated memory 9.80 GiB is allocated by PyTorch, and 0.20 GiB "
                              "is reserved by PyTorch but unallocated.")
    commands = [c.evidence.get("check_command") for c in diagnosis.causes]
    assert any(isinstance(c, str) and c.startswith("nvidia-smi") for c in commands)
