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
