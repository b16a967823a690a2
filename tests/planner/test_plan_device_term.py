"""A plan's Ascend and Gaudi candidates say NPU / HPU in their decisions, warnings and rank reason; NVIDIA and AMD
candidates keep GPU (qafix4 item 2)."""

from __future__ import annotations

import re

import pytest

from gpudesk import paths
from gpudesk.catalog import open_catalog
from gpudesk.planner.plan import plan
from gpudesk.planner.profile import load_profile

GPU_WORD = re.compile(r"(?<!NVIDIA )(?<!AMD )(?<!Intel )(?<!integrated )(?<!discrete )\bGPUs?\b")


@pytest.fixture(scope="module")
def result():
    return plan(load_profile(paths.examples_dir() / "article-13b-finetune-any-vendor.toml"), open_catalog())


def _texts(c) -> list[str]:
    return [c.rank_reason or "", *c.warnings, *(decision for decision, _source in c.rationale)]


def test_ascend_candidates_say_npu(result) -> None:
    ascend = [c for c in result.candidates if c.gpu_id.startswith("ascend")]
    assert ascend
    for c in ascend:
        texts = _texts(c)
        assert not [t for t in texts if GPU_WORD.search(t)]
        assert any(re.search(r"\bNPUs?\b", t) for t in texts)


def test_gaudi_candidates_say_hpu(result) -> None:
    gaudi = [c for c in result.candidates if c.gpu_id.startswith("gaudi")]
    for c in gaudi:
        assert not [t for t in _texts(c) if GPU_WORD.search(t)]


def test_nvidia_candidates_keep_gpu(result) -> None:
    h100 = next(c for c in result.candidates if c.gpu_id == "h100-sxm5")
    assert any(re.search(r"\bGPUs?\b", t) for t in _texts(h100))
    assert not any(re.search(r"\b[NH]PUs?\b", t) for t in _texts(h100))
