"""vLLM-Ascend's ACL graphs: PIECEWISE forced from v0.11.0rc0 to v0.20.x (vllm_ascend/platform.py), and a stop of the
NPU before every piecewise replay from v0.12.0rc1 to v0.19.x (vllm_ascend/compilation/acl_graph.py, PR 4233 / PR
9025; 'sync almost cost 250us', PR 5809)."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_ascend_aclgraph import (
    FIA_OUTPUT_COPY_KERNELS,
    PIECEWISE_SYNC_S,
    fia_output_copy_kernels,
    forces_piecewise,
    serial_layer_s,
    syncs_before_pieces,
)
from gpudesk.sizing.serve_load import ServeLoad
from gpudesk.sizing.serve_step import step_model
from gpudesk.sizing.serve_vllm_ascend import ASCEND_EAGER_KERNEL_S, plugin_release
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import serve_speed


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_release_ranges(catalog):
    npu, h100 = catalog.gpu("ascend-910b"), catalog.gpu("h100-sxm5")
    for version in ("0.11.0rc0", "0.11.0", "0.14.0rc1", "0.18.0", "0.20.2rc1"):
        assert forces_piecewise(npu, "vllm", version, True), version
    for version in ("0.9.1", "0.10.2rc1", "0.21.0rc1", "0.23.0", None):
        assert not forces_piecewise(npu, "vllm", version, True), version
    for version in ("0.12.0rc1", "0.13.0", "0.14.0rc1", "0.19.1rc1"):
        assert syncs_before_pieces(npu, "vllm", version, True), version
    for version in ("0.11.0", "0.20.2rc1", "0.21.0rc1", None):
        assert not syncs_before_pieces(npu, "vllm", version, True), version
    # only vLLM on an Ascend NPU with graphs on
    assert not syncs_before_pieces(h100, "vllm", "0.14.0rc1", True)
    assert not syncs_before_pieces(npu, "vllm", "0.14.0rc1", False)
    assert not forces_piecewise(npu, "sglang", "0.14.0rc1", True)


def test_a_release_written_as_x_y_is_that_release_point_zero(catalog):
    # The CLI's help shows the X.Y form; "0.13" must select the same paths as "0.13.0", not none.
    npu = catalog.gpu("ascend-910b")
    assert plugin_release("0.13") == plugin_release("0.13.0") == (0, 13, 0, "")
    assert plugin_release("v0.9.1rc2") == (0, 9, 1, "rc")
    for short, full in (("0.12", "0.12.0"), ("0.13", "0.13.0"), ("0.20", "0.20.0"), ("0.21", "0.21.0")):
        assert syncs_before_pieces(npu, "vllm", short, True) == syncs_before_pieces(npu, "vllm", full, True)
        assert fia_output_copy_kernels(npu, "vllm", short, True, False) == fia_output_copy_kernels(
            npu, "vllm", full, True, False)
    assert fia_output_copy_kernels(npu, "vllm", "0.13", True, False) > 0
    assert plugin_release("main (vllm-ascend main, 2025-07-03)") is None


def test_the_stop_adds_its_time_and_the_eager_attention_to_every_layer():
    assert serial_layer_s(2) == pytest.approx(PIECEWISE_SYNC_S + 2 * ASCEND_EAGER_KERNEL_S)


def test_qwen3_32b_tp4_on_910b_decodes_slower_on_the_releases_that_stop_before_each_piece(catalog):
    """vLLM-Ascend tutorial 'Suffix Speculative Decoding' baseline (v0.14.0rc1, Qwen3-32B BF16, 4x 910B TP4, one
    request): TPOT 53-55.5 ms. The stop before each of the 64 layers' pieces (250 us) and the eager issue of their
    attention (3 x 60 us: cache write, FIA, copy into the output) add 27.5 ms to a step; v0.20.2rc1 (no stop) and
    v0.21.0rc1 (full decode graphs) do not."""
    spec = spec_from_catalog(catalog.model("qwen3-32b"))
    npu = catalog.gpu("ascend-910b")
    link = catalog.link("hccs-910b")
    kw = dict(engine="vllm", input_tokens=67, output_tokens=1570, concurrency=1, num_prompts=100, tp=4)
    steps = {}
    for version in ("0.14.0rc1", "0.20.2rc1", "0.21.0rc1"):
        load = ServeLoad(engine_version=version, **kw).validated()
        steps[version] = step_model(spec, npu, load, link, "bf16")
    synced = steps["0.14.0rc1"]
    assert synced.serial_layer_s == pytest.approx(PIECEWISE_SYNC_S + 3 * ASCEND_EAGER_KERNEL_S)
    assert any(a.name == "ascend_piecewise_sync_s" for a in synced.assumptions)
    added = synced.gpu_s(1, 1000.0) - steps["0.21.0rc1"].gpu_s(1, 1000.0)
    assert added == pytest.approx(64 * (PIECEWISE_SYNC_S + 3 * ASCEND_EAGER_KERNEL_S), rel=0.01)
    assert steps["0.20.2rc1"].serial_layer_s == 0.0 and steps["0.21.0rc1"].serial_layer_s == 0.0
    tpot = serve_speed(spec, npu, ServeLoad(engine_version="0.14.0rc1", **kw), link).tpot_s
    assert 0.040 < tpot < 0.060


def test_mla_attention_between_pieces_costs_the_npu_eager_figure(catalog):
    """v0.20.2rc1 keeps PIECEWISE (no stop): an MLA model's 9 eager attention kernels per layer at 60 us each are a
    floor of every step (Kimi-K2-class, 61 layers: 32.9 ms)."""
    spec = spec_from_catalog(catalog.model("deepseek-r1"))
    npu = catalog.gpu("ascend-910b")
    load = ServeLoad(engine="vllm", engine_version="0.20.2rc1", input_tokens=1024, output_tokens=1024,
                     concurrency=1, tp=8, num_prompts=10).validated()
    model = step_model(spec, npu, load, catalog.link("hccs-910b"), "bf16")
    assert model.serial_layer_s == 0.0
    assert model.attention_launch_layer_s == pytest.approx(9 * ASCEND_EAGER_KERNEL_S)


def test_fia_output_copy_releases(catalog):
    """v0.13.0 .. v0.20.x decode GQA / MHA through npu_fused_infer_attention_score and copy the result into the output
    (vllm_ascend/attention/attention_v1.py); v0.12.0rc1 decodes through _npu_paged_attention into the output; MLA,
    other engines, GPUs and eager runs are not charged."""
    npu, h100 = catalog.gpu("ascend-910b"), catalog.gpu("h100-sxm5")
    for version in ("0.13.0", "0.14.0rc1", "0.18.0", "0.20.2rc1"):
        assert fia_output_copy_kernels(npu, "vllm", version, True, False) == FIA_OUTPUT_COPY_KERNELS, version
    for version in ("0.11.0", "0.12.0rc1", "0.21.0rc1", None):
        assert fia_output_copy_kernels(npu, "vllm", version, True, False) == 0, version
    assert fia_output_copy_kernels(npu, "vllm", "0.14.0rc1", True, True) == 0
    assert fia_output_copy_kernels(npu, "vllm", "0.14.0rc1", False, False) == 0
    assert fia_output_copy_kernels(h100, "vllm", "0.14.0rc1", True, False) == 0
    assert fia_output_copy_kernels(npu, "sglang", "0.14.0rc1", True, False) == 0
