"""Partial recompute (``--recompute-layers``) and the optimizer step's assumption lines (memfix46)."""

from __future__ import annotations

import pytest

from conftest import FIXTURES
from gpudesk.cli import main
from gpudesk.planner.requirement import ModelMemory, Requirement
from gpudesk.planner.workload import memory_workload
from gpudesk.sizing import MemoryWorkload, estimate_memory, spec_from_hf_config
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.memory_train import activation_terms
from gpudesk.sizing.recompute_layers import recomputed_share

CONFIG = FIXTURES / "sizing" / "configs" / "llama-2-7b.config.json"
SPEC = spec_from_hf_config(CONFIG)
LAYERS = 32


def _estimate(**kw):
    w = dict(mode="train", precision="bf16", optimizer="adamw", sharding="ddp", seq_len_tokens=2048,
             micro_batch_size=1, recompute="full")
    return estimate_memory(SPEC, MemoryWorkload(**{**w, **kw}))


def test_share_is_per_stage_and_capped():
    assert recomputed_share(None, 32) == 1.0
    assert recomputed_share(16, 32) == 0.5
    assert recomputed_share(6, 10) == 0.6
    assert recomputed_share(40, 32) == 1.0


def test_partial_recompute_weights_the_two_per_layer_counts():
    full = activation_terms(SPEC, 2048, 1, recompute="full")
    none = activation_terms(SPEC, 2048, 1, recompute="none")
    half = activation_terms(SPEC, 2048, 1, recompute="full", recomputed_share=0.5)
    assert half.per_layer == pytest.approx(0.5 * full.per_layer + 0.5 * none.per_layer)
    assert half.fixed == full.fixed  # the recomputed layer's working set, once
    assert half.logits == full.logits


def _acts(**kw) -> float:
    # Stepped in backward, 8 x 4096 tokens: backward, not the optimizer step, is the peak.
    return _estimate(precision="bf16-pure", optimizer_in_backward=True, seq_len_tokens=4096, micro_batch_size=8,
                     **kw).breakdown["activations"]


def test_all_layers_is_full_recompute_and_fewer_keep_more():
    full = _acts()
    assert _acts(recompute_layers=LAYERS) == full
    with pytest.raises(SizingError, match=f"has {LAYERS} layers"):  # more than the model has: refused (qa51 D3)
        _acts(recompute_layers=LAYERS * 2)
    half, quarter = _acts(recompute_layers=LAYERS // 2), _acts(recompute_layers=LAYERS // 4)
    assert full < half < quarter
    # Linear in the share kept: a quarter recomputed keeps 3/4 of the layers whole, half of them 1/2.
    assert quarter - full == pytest.approx(1.5 * (half - full))


def test_pipeline_counts_the_layers_of_each_stage():
    kw = dict(gpus=4, pipeline_parallel=4, micro_batch_size=16, seq_len_tokens=8192, sharding="zero1")
    # 8 layers a stage: all of them is full recompute; 4 keep more.
    assert _estimate(recompute_layers=8, **kw).breakdown == _estimate(**kw).breakdown
    partial = _estimate(recompute_layers=4, **kw)
    assert partial.total_bytes > _estimate(**kw).total_bytes
    assert "4 of the 8 layers of each pipeline stage" in _lines(partial)


@pytest.mark.parametrize("kw", [dict(recompute="none"), dict(recompute="selective"), dict(mode="lora"),
                                dict(recompute_layers=-1)])
def test_refused_where_nothing_reads_it(kw):
    with pytest.raises(SizingError) as exc:
        _estimate(**{"recompute_layers": 4, **kw})
    assert exc.value.field == "recompute_layers"


def test_cli_flag_and_assumption(capsys):
    flags = ["estimate", "memory", "--config", str(CONFIG), "--mode", "train", "--seq", "2048", "--recompute",
             "full", "--recompute-layers", "16"]
    assert main(flags) == 0
    assert "16 of the 32 layers of each pipeline stage" in capsys.readouterr().out


def test_planner_passes_it_for_full_recompute_only():

    req = Requirement(model=ModelMemory(config_path=str(CONFIG), mode="train", recompute="full", recompute_layers=8))
    assert memory_workload(req, gpus=1, micro_batch_size=1).recompute_layers == 8
    req = Requirement(model=ModelMemory(config_path=str(CONFIG), mode="train", recompute="none", recompute_layers=8))
    assert memory_workload(req, gpus=1, micro_batch_size=1).recompute_layers is None


# The optimizer step's lines follow the optimizer and its implementation (issue 27, memfix46).

FOREACH = "state-sized temporary for every parameter (foreach AdamW"
MASTER = "the optimizer step gives the fp32 master weights fp32 gradients"


def _lines(est) -> str:
    return "\n".join(text for text, _ in est.assumptions)


def _step_peak(**kw):
    # Batch 1 of 64 tokens: the optimizer step, not backward, is the peak.
    return _estimate(seq_len_tokens=64, **kw)


def test_foreach_line_gives_the_figure_it_adds():
    est = _step_peak(precision="bf16-pure")
    foreach = est.breakdown["optimizer_step_temporaries"]
    assert foreach == pytest.approx(SPEC.params * 2.0)  # one bf16 state a parameter
    assert f"(foreach AdamW, {foreach / 2**30:.2f} GiB)" in _lines(est)
    assert MASTER not in _lines(est)


@pytest.mark.parametrize("kw", [dict(optimizer_impl="fused"), dict(optimizer_impl="for-loop"),
                                dict(optimizer="sgd"), dict(optimizer="sgd-plain")])
def test_no_foreach_line_for_fused_for_loop_or_sgd(kw):
    est = _step_peak(**kw)
    lines = _lines(est)
    assert FOREACH not in lines
    # What the step still holds is the fp32 gradients of the master weights, named with the same figure.
    master = est.breakdown["optimizer_step_temporaries"]
    assert master == pytest.approx(SPEC.params * 4.0)
    assert f"{MASTER} ({master / 2**30:.2f} GiB)" in lines


def test_foreach_and_master_lines_add_up_to_the_part():
    est = _step_peak()
    lines = _lines(est)
    foreach, master = SPEC.params * 4.0, SPEC.params * 4.0
    assert est.breakdown["optimizer_step_temporaries"] == pytest.approx(foreach + master)
    assert f"(foreach AdamW, {foreach / 2**30:.2f} GiB)" in lines
    assert f"{MASTER} ({master / 2**30:.2f} GiB)" in lines
