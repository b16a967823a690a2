"""One reading of a published engine version string for every engine rule (gpudesk.sizing.engine_version)."""

from __future__ import annotations

import pytest

from gpudesk.sizing.engine_version import version_triple
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.serve_host import engine_version_tuple
from gpudesk.sizing.serve_rates import block_fp8_triton_flops_share
from gpudesk.sizing.shapes import spec_from_params


@pytest.mark.parametrize(("published", "release"), [
    ("0.6.5.dev964+mlperf50", (0, 6, 5)),  # vLLM setuptools-scm build of an MLPerf submission
    ("v0.5.7", (0, 5, 7)),  # a git tag
    ("0.4.3.post2", (0, 4, 3)),  # a PEP 440 post-release
    ("vLLM 0.9.0.2.dev108+g71faa1880 (ROCm 6.4.1)", (0, 9, 0)),  # a start-up log line: the engine's, not ROCm's
    ("TensorRT-LLM 0.20.0", (0, 20, 0)),
    ("0.7", (0, 7, 0)),
])
def test_the_first_release_number_is_the_version(published, release):
    assert version_triple(published) == release
    assert engine_version_tuple(published) == release[:2]


@pytest.mark.parametrize("absent", [None, "", "   "])
def test_an_absent_version_is_none(absent):
    assert version_triple(absent) is None and engine_version_tuple(absent) is None


def test_a_version_without_a_release_number_is_refused_where_one_is_needed():
    assert version_triple("nightly") is None
    with pytest.raises(SizingError, match="major.minor"):
        engine_version_tuple("nightly")


def test_sglang_block_fp8_default_reads_a_log_line_version_like_a_bare_one():
    # SGLang's DeepGEMM default (from 0.4.6) is read from the same release whatever way the version was written;
    # a dense model's GEMMs are all on the slow Triton path before it and none after.
    spec = spec_from_params(7e9)
    assert block_fp8_triton_flops_share(spec, "sglang", "sglang 0.4.5.post3")[0] == 1.0
    assert block_fp8_triton_flops_share(spec, "sglang", "0.4.5")[0] == 1.0
    assert block_fp8_triton_flops_share(spec, "sglang", "v0.4.6")[0] == 0.0
