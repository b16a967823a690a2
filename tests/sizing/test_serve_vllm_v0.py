"""vLLM V0's scheduler defaults: chunked prefill only above a 32K context (not on ROCm from v0.6.5), budget 512 /
2048 with it and the whole context without; a prompt step then pauses decoding (the TPOT a prefill costs)."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_engine import engine_budget
from gpudesk.sizing.engine_version import version_triple
from gpudesk.sizing.serve_vllm_v0 import vllm_v0_scheduler
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad, serve_speed


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_version_triple_reads_the_patch_level():
    assert version_triple("0.6.5.dev964+mlperf50") == (0, 6, 5)
    assert version_triple("0.7") == (0, 7, 0)
    assert version_triple(None) is None


def test_short_context_models_do_not_chunk_and_take_the_whole_context_per_step(catalog):
    """Llama 3 8B (8192-token context) on vLLM 0.6.3: no chunked prefill, budget max(8192, 2048)."""
    spec = spec_from_catalog(catalog.model("llama-3-8b"))
    v0 = vllm_v0_scheduler(spec, catalog.gpu("h100-sxm5"), "0.6.3", None, None)
    assert v0 is not None and not v0.chunked and v0.token_budget == 8192
    assert vllm_v0_scheduler(spec, catalog.gpu("h100-sxm5"), "0.8.0", None, None) is None
    assert vllm_v0_scheduler(spec, catalog.gpu("h100-sxm5"), None, None, None) is None


def test_long_context_models_chunk_with_the_budget_of_their_release(catalog):
    """Llama 3.1 (131072 tokens): chunked at 512 before v0.6.5 (PR 10544), 2048 from it; on ROCm not at all from
    v0.6.5 (PR 11146); the user's flags win."""
    spec = spec_from_catalog(catalog.model("llama-3.1-8b"))
    h100, mi300x = catalog.gpu("h100-sxm5"), catalog.gpu("mi300x")
    assert vllm_v0_scheduler(spec, h100, "0.6.3", None, None).token_budget == 512
    assert vllm_v0_scheduler(spec, h100, "0.6.5", None, None).token_budget == 2048
    assert vllm_v0_scheduler(spec, mi300x, "0.6.3", None, None).chunked
    rocm = vllm_v0_scheduler(spec, mi300x, "0.6.6", None, None)
    assert not rocm.chunked and rocm.token_budget == 131072
    mine = vllm_v0_scheduler(spec, h100, "0.6.3", False, 4096)
    assert not mine.chunked and mine.token_budget == 4096
    # Before auto-enabling (PR 6666, v0.5.4) long contexts did not chunk either.
    assert not vllm_v0_scheduler(spec, h100, "0.5.3", None, None).chunked


def test_an_unchunked_v0_server_pauses_decoding_for_every_new_prompt(catalog):
    """The same open-loop load on vLLM 0.6 with a short-context model: the engine budget says unmixed, and the
    TPOT under arrivals is longer than with chunked prefill asked for explicitly (prompt steps pause decoding)."""
    spec = spec_from_catalog(catalog.model("llama-3-8b"))
    gpu = catalog.gpu("a100-80-sxm4")
    load = ServeLoad(engine="vllm", engine_version="0.6.3", input_tokens=2000, output_tokens=200,
                     request_rate_per_s=4.0, num_prompts=300)
    assert not engine_budget(spec, gpu, load.validated()).mixed_prefill
    unmixed = serve_speed(spec, gpu, load)
    mixed = serve_speed(spec, gpu, ServeLoad(**{**load.__dict__, "mixed_prefill": True}))
    assert unmixed.tpot_s > 1.1 * mixed.tpot_s


def test_v1_default_releases_fall_back_to_v0_below_ampere_and_with_multi_step(catalog):
    """vLLM 0.8 to 0.10.1 start V0 where V1's oracle refuses the configuration (``EngineArgs.
    _is_v1_supported_oracle``): an NVIDIA GPU below compute capability 8.0 (T4, V100) and --num-scheduler-steps > 1;
    from 0.10.2 V1 runs below Ampere (vllm-project/vllm PRs 23614, 24022). AMD GPUs and Ampere or newer keep V1."""
    from gpudesk.sizing.serve_vllm_v0 import vllm_runs_v0, vllm_v0_fallback
    t4, h100, mi300x = catalog.gpu("t4"), catalog.gpu("h100-sxm5"), catalog.gpu("mi300x")
    assert vllm_v0_fallback("vllm", "0.8.4", t4)
    assert vllm_v0_fallback("vllm", "0.10.1", t4)
    assert not vllm_v0_fallback("vllm", "0.10.2", t4)
    assert not vllm_v0_fallback("vllm", "0.7.3", t4)  # V0 anyway, not a fallback
    assert vllm_runs_v0("vllm", "0.7.3", t4)
    assert not vllm_v0_fallback("vllm", "0.8.4", h100)
    assert not vllm_v0_fallback("vllm", "0.8.4", mi300x)
    assert not vllm_v0_fallback("vllm", None, t4)
    assert not vllm_v0_fallback("sglang", "0.8.4", t4)
    assert vllm_v0_fallback("vllm", "0.9.1", h100, num_scheduler_steps=8)
    assert not vllm_v0_fallback("vllm", "0.9.1", h100, num_scheduler_steps=1)
    spec = spec_from_catalog(catalog.model("llama-3-8b"))
    fallback = vllm_v0_scheduler(spec, t4, "0.8.4", None, None)
    assert fallback is not None and not fallback.chunked and fallback.token_budget == 8192
    assert vllm_v0_scheduler(spec, h100, "0.8.4", None, None) is None


def test_a_t4_on_a_v1_default_release_is_served_as_v0(catalog):
    """vLLM 0.8.4 on a T4 behaves as V0: the fallback is stated, prompts do not share decode steps (V0's scheduler
    for a 4K-context model), tokens arrive one step late (V0's asynchronous output processor), and no V1 API-server
    stage is added."""
    spec = spec_from_catalog(catalog.model("llama-2-7b"))
    t4 = catalog.gpu("t4")
    load = ServeLoad(engine="vllm", engine_version="0.8.4", input_tokens=500, output_tokens=100, concurrency=4,
                     weight_format="int4-awq", kv_dtype="fp16")
    assert not engine_budget(spec, t4, load.validated()).mixed_prefill
    names = {a.name for a in serve_speed(spec, t4, load).assumptions}
    assert {"vllm_v0_fallback", "output_lag_steps"} <= names
    assert "front_end" not in names
    v1 = serve_speed(spec, t4, ServeLoad(engine="vllm", engine_version="0.10.2", input_tokens=500, output_tokens=100,
                                         concurrency=4, weight_format="int4-awq", kv_dtype="fp16"))
    assert "vllm_v0_fallback" not in {a.name for a in v1.assumptions}
    assert "front_end" in {a.name for a in v1.assumptions}
