"""Issue 32: an Ascend 910B and an MI300X are candidates for the article's 13B case and a 70B serving case once
the CUDA pin is gone, with the stack warnings a buyer needs; the CUDA-pinned article case still rules them out."""

from __future__ import annotations

import dataclasses

import pytest

from gpudesk import paths
from gpudesk.catalog import open_catalog
from gpudesk.planner.plan import plan
from gpudesk.planner.profile import load_profile


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def _plan(name, catalog):
    return plan(load_profile(paths.examples_dir() / name), catalog)


def _first(result, gpu_id):
    return next((c for c in result.candidates if c.gpu_id == gpu_id), None)


@pytest.mark.parametrize("profile", ["article-13b-finetune-any-vendor.toml", "serve-70b-any-vendor.toml"])
def test_ascend_and_mi300x_are_candidates_with_stack_warnings(profile, catalog):
    result = _plan(profile, catalog)
    ascend, mi300x = _first(result, "ascend-910b"), _first(result, "mi300x")
    assert ascend is not None and mi300x is not None
    text = " ".join(ascend.warnings)
    assert "torch_npu" in text and "CANN 8.0" in text
    assert "ROCm" in " ".join(mi300x.warnings)
    if profile.startswith("serve"):
        assert "vLLM-Ascend" in text
    else:
        assert "npu_fusion_attention" in text  # flash_attention = true: no Dao-AILab FlashAttention on Ascend


def test_the_cuda_pinned_article_case_rules_them_out(catalog):
    result = _plan("article-13b-finetune.toml", catalog)
    rejected = {r.gpu_id: r.reasons for r in result.rejected}
    assert any("CANN" in r and "CUDA 12.1" in r for r in rejected["ascend-910b"])
    assert _first(result, "ascend-910b") is None and _first(result, "mi300x") is None


def test_a_framework_without_a_backend_is_a_rejection(catalog):
    req = load_profile(paths.examples_dir() / "article-13b-finetune-any-vendor.toml")
    req = dataclasses.replace(req, software=dataclasses.replace(req.software, framework="jax"))
    result = plan(req, catalog)
    rejected = {r.gpu_id: r.reasons for r in result.rejected}
    assert any("no jax backend" in r for r in rejected["ascend-910b"])
    assert _first(result, "mi300x") is not None  # ROCm has JAX
