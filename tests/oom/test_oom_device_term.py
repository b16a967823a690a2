"""An OOM diagnosis of a Gaudi (HPU) or Ascend (NPU) message calls the device by its vendor's word in the causes'
prose, in English and zh_CN (qa50 D6; qafix4 item 2)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from gpudesk import i18n
from gpudesk.oom.diagnose import diagnose_text

# HabanaAI/Model-References#10: SynapseAI's graph helper refusing a 13.5 GB workspace on a Gaudi.
SYNHELPER = "MODULE:SYNHELPER workspace Allocation of size ::14493510400 failed!\n"
GPU_WORD = re.compile(r"(?<!NVIDIA )(?<!integrated )\bGPUs?\b")


@pytest.fixture(params=["en", "zh_CN"])
def language(request) -> Iterator[str]:
    before = i18n.current_language()
    i18n.set_language(request.param)
    yield request.param
    i18n.set_language(before)


def _prose(cause) -> list[str]:
    return [cause.title, cause.explanation, cause.fix, *cause.more_fixes, *cause.checks]


def test_gaudi_shortage_names_the_hpu(language: str) -> None:
    result = diagnose_text(SYNHELPER)
    assert result.report.platform == "hpu"
    first = result.causes[0]
    assert first.id == "genuine_shortage"
    assert "HPU" in first.fix and any("HPU" in m for m in first.more_fixes)
    for cause in result.causes:
        assert not [t for t in _prose(cause) if GPU_WORD.search(t)], cause.id
    if language == "en":
        assert first.title == "Not enough HPU memory for this job"
        assert "Use an HPU with more memory." in first.more_fixes


def test_a_cuda_message_keeps_the_gpu() -> None:
    text = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
            "79.15 GiB of which 1.02 GiB is free. Of the allocated memory 75.20 GiB is allocated by PyTorch, and "
            "1.30 GiB is reserved by PyTorch but unallocated.")
    result = diagnose_text(text)
    assert any("GPU" in " ".join(_prose(c)) for c in result.causes)
