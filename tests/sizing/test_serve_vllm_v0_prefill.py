"""vLLM V0's prefill defaults (gpudesk.sizing.serve_vllm_v0.vllm_v0_scheduler): chunked prefill of 512 tokens per step
for models over 32K context, prompt-only steps of up to the context length otherwise; V1 releases untouched."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_engine import engine_budget
from gpudesk.sizing.serve_vllm_v0 import vllm_v0_scheduler
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def vllm_v0_prefill(spec, version, chunked):
    """(chunked, token budget, source) on an H100, or None for V1."""
    v0 = vllm_v0_scheduler(spec, open_catalog().gpu("h100-sxm5"), version, chunked, None)
    return None if v0 is None else (v0.chunked, v0.token_budget, v0.source)


def test_long_context_models_get_512_token_chunks_in_v0(catalog):
    llama31 = spec_from_catalog(catalog.model("llama-3.1-8b"))  # 131072 tokens of context
    assert vllm_v0_prefill(llama31, "0.6.3.post1", None)[:2] == (True, 512)
    budget = engine_budget(llama31, catalog.gpu("h100-sxm5"), ServeLoad(concurrency=8, engine_version="0.6.3"))
    assert (budget.mixed_prefill, budget.token_budget) == (True, 512)
    # A published budget wins; V1 and unversioned runs keep the V1 defaults.
    assert engine_budget(llama31, catalog.gpu("h100-sxm5"), ServeLoad(
        concurrency=8, engine_version="0.6.3", max_num_batched_tokens=4096)).token_budget == 4096
    assert vllm_v0_prefill(llama31, "0.8.0", None) is None and vllm_v0_prefill(llama31, None, None) is None
    assert engine_budget(llama31, catalog.gpu("h100-sxm5"), ServeLoad(concurrency=8)).token_budget == 8192


def test_short_context_and_sliding_window_models_prefill_in_steps_of_their_own(catalog):
    llama2 = spec_from_catalog(catalog.model("llama-2-7b"))  # 4096 tokens
    assert vllm_v0_prefill(llama2, "0.6.0", None)[:2] == (False, 4096)
    mistral = spec_from_catalog(catalog.model("mistral-7b"))  # 32768 tokens, sliding window
    assert vllm_v0_prefill(mistral, "0.5.5", None)[:2] == (False, 32768)
    # --enable-chunked-prefill published: 512-token chunks whatever the context.
    assert vllm_v0_prefill(llama2, "0.6.0", True)[:2] == (True, 512)
    budget = engine_budget(llama2, catalog.gpu("a100-80-sxm4"), ServeLoad(concurrency=8, engine_version="0.6.0"))
    assert (budget.mixed_prefill, budget.token_budget) == (False, 4096)


def test_mla_models_of_vllm_07_run_unchunked_with_the_whole_context_as_budget(catalog):
    r1 = spec_from_catalog(catalog.model("deepseek-r1"))
    mixed, tokens, source = vllm_v0_prefill(r1, "0.7.3", None)
    assert (mixed, tokens) == (False, r1.context_length) and "MLA" in source
