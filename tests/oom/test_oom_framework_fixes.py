"""qa20: a TensorFlow, JAX or PaddlePaddle report's training fixes and sizing effects speak its framework's terms
(gpudesk.oom.framework_fixes), without changing which cause ranks first; a ROCm report's "Command to run" says
rocm-smi like its checks (gpudesk.oom.engine_advice). Real messages from tests/fixtures/oom."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gpudesk.oom import diagnose_text
from gpudesk.oom.cause import Cause, Diagnosis

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "oom"
PYTORCH_ONLY = re.compile(r"torch\.|autocast|FSDP|ZeRO", re.IGNORECASE)
HAN = re.compile(r"[\u4e00-\u9fff]")


def _message(file: str, url: str) -> str:
    for line in (FIXTURES / file).read_text(encoding="utf-8").splitlines():
        if line.strip() and json.loads(line)["url"] == url:
            return str(json.loads(line)["message"])
    raise AssertionError(f"{url} not in {file}")


# GoogleCloudPlatform/practical-ml-vision-book#6: TensorFlow's ResourceExhaustedError while training.
TF = _message("fresh_cases_14.jsonl", "https://github.com/GoogleCloudPlatform/practical-ml-vision-book/issues/6")
# google-deepmind/alphafold#223: JAX / XLA's RESOURCE_EXHAUSTED.
JAX = _message("fresh_cases.jsonl", "https://github.com/google-deepmind/alphafold/issues/223")
# PaddlePaddle/Paddle#29811: Paddle's ResourceExhaustedError.
PADDLE = _message("fresh_cases_5.jsonl", "https://github.com/PaddlePaddle/Paddle/issues/29811")
# googlecolab/colabtools#3439: PyTorch's own message.
TORCH = _message("cases.jsonl", "https://github.com/googlecolab/colabtools/issues/3439")
# ggml-org/llama.cpp#19764: a ROCm buffer allocation refused with memory free.
ROCM = _message("platform_cases.jsonl", "https://github.com/ggml-org/llama.cpp/issues/19764")


def _shortage(diagnosis: Diagnosis) -> Cause:
    return next(c for c in diagnosis.causes if c.id == "genuine_shortage")


def _fix_texts(cause: Cause) -> list[str]:
    return [cause.fix, *cause.more_fixes, *(e.fix for e in cause.sizing)]


@pytest.mark.parametrize("text,framework,first", [(TF, "tensorflow", "genuine_shortage"),
                                                  (JAX, "jax", "genuine_shortage"),
                                                  (PADDLE, "paddle", "genuine_shortage")],
                         ids=["tensorflow", "jax", "paddle"])
def test_no_pytorch_fix_for_another_framework(text: str, framework: str, first: str) -> None:
    diagnosis = diagnose_text(text)
    assert diagnosis.report.framework == framework
    assert diagnosis.top is not None and diagnosis.top.id == first
    cause = _shortage(diagnosis)
    assert cause.sizing, "the sizing effects are still listed"
    assert not [t for t in _fix_texts(cause) if PYTORCH_ONLY.search(t)], _fix_texts(cause)


def test_tensorflow_fixes_name_its_own_calls() -> None:
    cause = _shortage(diagnose_text(TF))
    assert any("tf.recompute_grad" in m for m in cause.more_fixes)
    assert any("mixed_precision.set_global_policy" in m for m in cause.more_fixes)
    assert not [e for e in cause.sizing if "Shard" in e.fix]  # no ZeRO-3 / FSDP equivalent: dropped


def test_jax_and_paddle_shard_with_their_own_calls() -> None:
    jax_cause, paddle_cause = _shortage(diagnose_text(JAX)), _shortage(diagnose_text(PADDLE))
    assert any("jax.sharding" in e.fix for e in jax_cause.sizing)
    assert any("group_sharded_parallel" in e.fix for e in paddle_cause.sizing)
    assert any("paddle.distributed.fleet.utils.recompute" in m for m in paddle_cause.more_fixes)
    assert any("paddle.amp.auto_cast" in m for m in paddle_cause.more_fixes)


def test_pytorch_keeps_its_fixes() -> None:
    cause = _shortage(diagnose_text(TORCH))
    assert any("torch.utils.checkpoint" in m for m in cause.more_fixes)
    assert any("ZeRO-3 / FSDP" in e.fix for e in cause.sizing)


def test_framework_fixes_are_translated(zh_cn) -> None:
    cause = _shortage(diagnose_text(TF))
    assert all(HAN.search(t) for t in _fix_texts(cause)), _fix_texts(cause)
    assert any("tf.recompute_grad" in m for m in cause.more_fixes)


def test_rocm_command_to_run_says_rocm_smi() -> None:
    diagnosis = diagnose_text(ROCM)
    assert diagnosis.report.platform == "rocm"
    cause = diagnosis.top
    assert cause is not None and cause.id == "not_capacity"
    assert cause.evidence["check_command"] == "rocm-smi --showmeminfo vram"
    assert any(c.startswith("rocm-smi --showmeminfo vram") for c in cause.checks)


def test_no_further_fix_names_pytorch_for_tensorflow() -> None:
    # The leak's "Run evaluation and inference loops under torch.no_grad() ..." has no one TensorFlow equivalent.
    further = [m for cause in diagnose_text(TF).causes for m in cause.more_fixes]
    assert further and not [m for m in further if "torch" in m], further


def test_ascend_command_to_run_says_npu_smi() -> None:
    # vllm-project/vllm-ascend#1670: another process holds the NPU; the checks said npu-smi, the evidence nvidia-smi.
    diagnosis = diagnose_text(_message("vendor_cases_2.jsonl", "https://github.com/vllm-project/vllm-ascend/issues/1670"))
    assert diagnosis.report.platform == "npu"
    cause = diagnosis.top
    assert cause is not None and cause.id == "other_process"
    assert cause.evidence["check_command"] == "npu-smi info"
