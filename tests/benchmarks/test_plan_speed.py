"""Benchmarks of issue 3: planning over the whole catalog (aim < 50 ms) and one memory estimate (aim < 1 ms)."""

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.paths import examples_dir
from gpudesk.planner import load_profile, plan
from gpudesk.sizing import MemoryWorkload, estimate_memory, spec_from_params


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_plan_article_case_whole_catalog(benchmark, catalog):
    req = load_profile(examples_dir() / "article-13b-finetune.toml")
    result = benchmark(plan, req, catalog)
    assert result.top is not None and result.top.fits


def test_plan_inference_case_whole_catalog(benchmark, catalog):
    req = load_profile(examples_dir() / "chat-api-qps200.toml")
    result = benchmark(plan, req, catalog)
    assert result.top is not None


def test_one_memory_estimate(benchmark):
    spec = spec_from_params("13B")
    workload = MemoryWorkload(mode="train", seq_len_tokens=512, micro_batch_size=8, gpus=8, sharding="zero3")
    est = benchmark(estimate_memory, spec, workload)
    assert est.total_bytes > 0
