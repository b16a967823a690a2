"""qa51 D11: the "Framework:" line and the "Recognised:" line say one thing ("Framework: unknown" beside "Recognised:
TensorRT-LLM" did not)."""

from __future__ import annotations

import io

from gpudesk.cli.oom import print_diagnosis
from gpudesk.oom import diagnose_text
from tests.oom.test_oom_fiftyeighth_pass import DARKNET, TRTLLM_BLOCKS


def _head(text: str) -> str:
    out = io.StringIO()
    print_diagnosis(diagnose_text(text), out=out)
    return "\n".join(out.getvalue().splitlines()[:3])


def test_runtime_named_by_the_text_is_the_framework_line() -> None:
    head = _head(TRTLLM_BLOCKS)
    assert "Framework: TensorRT-LLM" in head and "Framework: unknown" not in head, head


def test_platform_alone_is_labelled_as_a_platform() -> None:
    head = _head(DARKNET)
    assert "Framework: unknown" in head and "Platform: NVIDIA CUDA" in head and "Recognised:" not in head, head
