"""vLLM on AMD Instinct with AITER off decodes with the unsplit Triton paged-attention kernel where the custom HIP
kernel does not apply, and its KV stream reaches only its workgroups' share of the compute units
(gpudesk/sizing/serve_rocm_attention.py)."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.serve_rocm_attention import uses_unsplit_decode
from gpudesk.sizing.serve_step import step_model
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad, serve_speed


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


@pytest.mark.parametrize("engine, gpu, vendor, aiter, head, gqa, block, context, expected", [
    ("vllm", "mi355x", "AMD", False, 128, 8, 128, 20_000, True),     # llm-d: --block-size 128, AITER off
    ("vllm", "mi355x", "AMD", False, 128, 8, None, 20_000, False),   # default block 16: the custom HIP kernel
    ("vllm", "mi355x", "AMD", False, 128, 8, 32, 20_000, False),
    ("vllm", "mi300x", "AMD", False, 256, 8, 16, 20_000, True),      # head size 256: no custom kernel
    ("vllm", "mi300x", "AMD", False, 128, 8, 16, 200_000, True),     # past 128 Ki context
    ("vllm", "mi355x", "AMD", True, 128, 8, 128, 20_000, False),     # AITER on
    ("vllm", "mi355x", "AMD", None, 128, 8, 128, 20_000, False),     # unset: AITER kernels, as before
    ("sglang", "mi355x", "AMD", False, 128, 8, 128, 20_000, False),
    ("vllm", "h100-sxm5", "NVIDIA", False, 128, 8, 128, 20_000, False),
])
def test_the_unsplit_kernel_runs_only_where_vllm_would_choose_it(engine, gpu, vendor, aiter, head, gqa, block,
                                                                 context, expected):
    assert uses_unsplit_decode(engine, gpu, vendor, aiter, head, gqa, block, context) is expected


@pytest.mark.parametrize("aiter, release, expected", [
    (None, (0, 8, 5), True),    # the V1 Triton backend's paged decode: no custom kernel on gfx908
    (False, (0, 8, 5), True),
    (True, (0, 8, 5), False),   # AITER on (the MI100 images' TRITON_ATTN): not the paged kernel
    (None, (0, 11, 1), False),  # from 0.9: unified_attention splits decode-only steps (PR 16828)
    (None, None, False),        # release unknown: not charged
])
def test_cdna1_never_takes_the_custom_kernel_before_unified_attention(aiter, release, expected):
    # Qwen3-32B on MI100 (gfx908): head size 128, 8 query heads per KV head, block 16: the custom HIP kernel's
    # conditions hold, but vllm/platforms/rocm.py offers it only ON_GFX9 (gfx90a, gfx942, gfx950).
    assert uses_unsplit_decode("vllm", "mi100", "AMD", aiter, 128, 8, None, 2048, "CDNA", release) is expected
    assert not uses_unsplit_decode("vllm", "mi210", "AMD", aiter, 128, 8, None, 2048, "CDNA 2", release)


def test_mi100_decode_under_vllm_085_streams_the_kv_cache_at_its_workgroups_share(catalog):
    # btbtyler09/mi100-llm-testing 'VLLM Benchmarks.md' at 985b37a: Qwen3-32B, 4 x MI100, TP 4, vLLM 0.8.5 V1,
    # 1024 in / 128 out at concurrency 5 (TPOT mean 83.03 ms). 8 KV heads over TP 4: 2 workgroups per sequence.
    spec = spec_from_catalog(catalog.model("qwen3-32b"))
    gpu = catalog.gpu("mi100")
    link = catalog.link("pcie4-x16")
    load = dict(engine="vllm", input_tokens=1024, output_tokens=128, concurrency=5, weight_format="bf16", tp=4,
                gpus_per_node=4)
    old = serve_speed(spec, gpu, ServeLoad(engine_version="0.8.5", **load), link)
    new = serve_speed(spec, gpu, ServeLoad(engine_version="0.11.1", **load), link)
    assert old.tpot_s > 1.05 * new.tpot_s
    assert any(a.name == "rocm_decode_attention" for a in old.assumptions)
    assert step_model(spec, gpu, ServeLoad(engine_version="0.8.5", **load), link, "bf16").decode_kv_share(
        5) == pytest.approx(10 / 120)


def _load(**kw):
    base = dict(engine="vllm", input_tokens=16384, output_tokens=2048, concurrency=4, weight_format="fp8", tp=8,
                engine_version="0.15.1", gpus_per_node=8)
    base.update(kw)
    return ServeLoad(**base)


def test_aiter_off_with_large_blocks_slows_long_context_decode_on_mi355x(catalog):
    spec = spec_from_catalog(catalog.model("llama-3.3-70b"))
    gpu = catalog.gpu("mi355x")
    link = catalog.link("amd-if-mi355x")
    on = serve_speed(spec, gpu, _load(), link)
    off = serve_speed(spec, gpu, _load(rocm_aiter=False, kv_block_size=128), link)
    small_blocks = serve_speed(spec, gpu, _load(rocm_aiter=False, kv_block_size=16), link)
    assert off.tpot_s > 1.5 * on.tpot_s
    assert small_blocks.tpot_s == pytest.approx(on.tpot_s)
    assert any(a.name == "rocm_decode_attention" for a in off.assumptions)
    assert not any(a.name == "rocm_decode_attention" for a in on.assumptions)


def test_the_share_grows_with_the_decoding_sequences_up_to_the_full_rate(catalog):
    spec = spec_from_catalog(catalog.model("llama-3.3-70b"))
    model = step_model(spec, catalog.gpu("mi355x"), _load(rocm_aiter=False, kv_block_size=128),
                       catalog.link("amd-if-mi355x"), "bf16")
    # Llama 3.3 70B: 8 KV heads over TP 8 = one workgroup per sequence; MI355X has 256 compute units.
    assert model.decode_kv_share(4) == pytest.approx(4 / 256)
    assert model.decode_kv_share(128) == pytest.approx(0.5)
    assert model.decode_kv_share(1000) == 1.0


def test_nvidia_is_unchanged_by_the_switch(catalog):
    spec = spec_from_catalog(catalog.model("llama-3.3-70b"))
    gpu = catalog.gpu("h100-sxm5")
    link = catalog.link("nvlink4")
    load = _load(weight_format="fp8", engine_version="0.15.1")
    assert serve_speed(spec, gpu, load, link).tpot_s == pytest.approx(
        serve_speed(spec, gpu, _load(rocm_aiter=False, kv_block_size=128), link).tpot_s)


def test_a_block_size_of_zero_is_refused():
    with pytest.raises(SizingError):
        _load(kv_block_size=0).validated()
