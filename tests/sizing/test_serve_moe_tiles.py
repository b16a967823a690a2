"""Row tiles of the Triton fused MoE (gpudesk.sizing.serve_moe_tiles): the engines' tile sizes by release and the
padded expert rows they cost a DeepSeek-R1 decode step on H200."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.serve_moe_tiles import fused_moe_tiles, padded_expert_rows
from gpudesk.sizing.serve_step import step_model
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad
from gpudesk.sizing.speed_serve_cases import intra_link


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_tile_rows_follow_the_shipped_configurations():
    old_vllm = fused_moe_tiles("vllm", "0.7.3")
    assert (old_vllm.rows(2), old_vllm.rows(4), old_vllm.rows(256)) == (16, 64, 64)
    new_vllm = fused_moe_tiles("vllm", "0.12.0")
    assert (new_vllm.rows(8), new_vllm.rows(512), new_vllm.rows(1024)) == (16, 16, 64)
    assert fused_moe_tiles("sglang", "0.4.3.post2").rows(1) == 64
    assert fused_moe_tiles("sglang", "0.4.8").rows(64) == 16
    assert fused_moe_tiles("vllm", None).rows(64) == 16
    with pytest.raises(SizingError):
        fused_moe_tiles("sglang", "nightly")


def test_eight_tokens_of_a_256_expert_model_pad_to_whole_tiles():
    padded, active = padded_expert_rows(8, 256, 8, 64)
    assert active == pytest.approx(256 * (1 - (1 - 8 / 256) ** 8))  # about 57 experts
    assert padded == pytest.approx(active * 64)  # one or two real rows each: one 64-row tile each
    assert padded_expert_rows(8, 256, 8, 16)[0] == pytest.approx(active * 16)
    # 4096 tokens: 128 rows per expert on average, exactly two 64-row tiles.
    assert padded_expert_rows(4096, 256, 8, 64)[0] == pytest.approx(256 * 128, rel=1e-6)


def test_64_row_tiles_make_small_decode_steps_of_deepseek_slower(catalog):
    """vLLM 0.7.3's 64-row tiles on H200: eight decoding requests compute 57 x 64 expert rows, more math than the
    expert weights take to stream; v0.12's 16-row tiles hide under the stream. One request: 16 rows either way.
    TensorRT-LLM's own MoE kernels are not charged."""
    spec = spec_from_catalog(catalog.model("deepseek-r1"))
    gpu = catalog.gpu("h200-sxm")
    link = intra_link(gpu, "nvlink")
    old = step_model(spec, gpu, ServeLoad(engine="vllm", tp=8, concurrency=8, engine_version="0.7.3"), link, "bf16")
    new = step_model(spec, gpu, ServeLoad(engine="vllm", tp=8, concurrency=8, engine_version="0.12.0"), link, "bf16")
    assert old.moe_tile_padding_s(8) > 2e-3
    assert new.moe_tile_padding_s(8) == 0.0
    assert old.step_s(8, 8 * 2000) > new.step_s(8, 8 * 2000) + 2e-3
    assert old.moe_tile_padding_s(1) == 0.0
    trt = step_model(spec, gpu, ServeLoad(engine="trtllm", tp=8, concurrency=8), link, "bf16")
    assert trt.moe_tiles is None and trt.moe_tile_padding_s(8) == 0.0
    assert any(a.name == "fused_moe_tile_rows" for a in old.assumptions)
