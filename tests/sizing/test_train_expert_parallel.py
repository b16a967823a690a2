"""Expert parallelism in the training estimate (``--expert-parallel``, row field ``expert_parallel``; memfix47)."""

from __future__ import annotations

import pytest

from gpudesk.cli import main
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.shapes import spec_from_hf_config
from gpudesk.sizing.memory_train import parallel_train_memory_bytes
from gpudesk.sizing.train_expert_parallel import expert_split, routed_expert_params

from expert_cases import CONFIGS, DENSE, MOE
from expert_cases import train_estimate as _estimate


def test_split_holds_experts_over_ep_and_shards_over_expert_data_parallel():
    split = expert_split(MOE, gpus=16, expert_parallel=16)
    assert split.total == routed_expert_params(MOE) > 0.8 * MOE.params
    assert split.rank_params == pytest.approx(split.total / 16)
    assert split.data_parallel == 1
    assert expert_split(MOE, gpus=64, expert_parallel=8, pipeline_parallel=2).data_parallel == 4


def test_experts_split_by_ep_dense_part_unchanged():
    plain, ep = _estimate().breakdown, _estimate(expert_parallel=16).breakdown
    experts = routed_expert_params(MOE)
    # 16-bit weights: the GPU keeps 1/16 of the experts beside the whole dense part.
    assert plain["weights"] - ep["weights"] == pytest.approx(2 * experts * 15 / 16, rel=1e-3)
    # ZeRO-1 states: the experts' shard is over the 1 GPU holding them, not the 16 data-parallel ranks.
    assert ep["optimizer_states"] == pytest.approx(plain["optimizer_states"], rel=1e-3)


def test_training_estimate_and_planner_layout_share_the_split():
    est = _estimate(expert_parallel=8, gpus=8).breakdown
    layout = parallel_train_memory_bytes(MOE, gpus=8, seq_len_tokens=2048, micro_batch_size=1, micro_batches=1,
                                         expert_parallel=8, optimizer="adam-16")
    assert est["weights"] == pytest.approx(layout["weights"], rel=1e-3)


@pytest.mark.parametrize(("spec", "kw"), [
    (DENSE, {"expert_parallel": 2}),                      # no experts
    (MOE, {"expert_parallel": 3, "gpus": 6}),             # 3 does not divide 128 experts
    (MOE, {"expert_parallel": 32}),                       # 32 does not divide 16 GPUs
    (MOE, {"expert_parallel": 0}),
])
def test_refused(spec, kw):
    with pytest.raises(SizingError) as exc:
        _estimate(spec, **kw)
    assert exc.value.field == "expert_parallel"


def test_lora_splits_the_frozen_experts():
    plain = _estimate(mode="lora", gpus=2, sharding="zero1").breakdown["weights"]
    ep = _estimate(mode="lora", gpus=2, sharding="zero1", expert_parallel=2).breakdown["weights"]
    assert plain - ep == pytest.approx(2 * routed_expert_params(MOE) / 2, rel=1e-3)


@pytest.mark.parametrize("kw", [{"mode": "qlora"}, {"mode": "lora", "sharding": "zero3"}])
def test_refused_outside_full_training_and_lora(kw):
    with pytest.raises(SizingError) as exc:
        _estimate(**{"gpus": 2, "expert_parallel": 2, **kw})
    assert exc.value.field == "expert_parallel"


def test_cli_flag(capsys):
    base = ["estimate", "memory", "--config", str(CONFIGS / "qwen3-30b-a3b.config.json"), "--mode", "train",
            "--seq", "2048", "--gpus", "16", "--sharding", "zero1"]
    assert main(base + ["--expert-parallel", "16"]) == 0
    assert main(base + ["--expert-parallel", "32"]) != 0
    assert "--expert-parallel" in capsys.readouterr().err


def test_planner_passes_it_for_full_training_and_lora_outside_zero3():
    from gpudesk.planner.requirement import ModelMemory, Requirement
    from gpudesk.planner.workload import memory_workload

    cfg = str(CONFIGS / "qwen3-30b-a3b.config.json")
    req = Requirement(model=ModelMemory(config_path=cfg, mode="train", sharding="zero1", expert_parallel=8))
    assert memory_workload(req, gpus=8, micro_batch_size=1).expert_parallel == 8
    req = Requirement(model=ModelMemory(config_path=cfg, mode="train", sharding="zero3", expert_parallel=8))
    assert memory_workload(req, gpus=8, micro_batch_size=1).expert_parallel == 8
    req = Requirement(model=ModelMemory(config_path=cfg, mode="lora", sharding="zero3", expert_parallel=8))
    assert memory_workload(req, gpus=8, micro_batch_size=1).expert_parallel == 1
    req = Requirement(model=ModelMemory(config_path=cfg, mode="lora", sharding="zero1", expert_parallel=8))
    assert memory_workload(req, gpus=8, micro_batch_size=1).expert_parallel == 8
    req = Requirement(model=ModelMemory(config_path=cfg, mode="qlora", expert_parallel=8))
    assert memory_workload(req, gpus=8, micro_batch_size=1).expert_parallel == 1


def test_zero3_shards_the_experts_over_the_expert_data_parallel_ranks():
    """Megatron-FSDP builds the expert parameter groups on the expert-data-parallel group, the dense ones on the
    data-parallel group (megatron_fsdp/param_and_grad_buffer.py at d98e8a64dd): 16 GPUs with EP 8 keep 1/8 of the
    experts, their weights, gradients and states sharded over the 2 expert-data-parallel ranks."""
    plain = _estimate(sharding="zero3").breakdown
    ep = _estimate(sharding="zero3", expert_parallel=8).breakdown
    experts = routed_expert_params(MOE)
    dense = MOE.params - experts
    # bf16 weights: the dense part over 16 ranks, the experts' 1/8 over 2 ranks -> 1/16 of the experts either way.
    assert plain["weights"] == pytest.approx(2 * MOE.params / 16, rel=1e-3)
    assert ep["weights"] == pytest.approx(2 * (dense / 16 + experts / 8 / 2), rel=1e-3)
    # Same bytes for the sharded states as without EP on 16 GPUs (both are 1/16 of each expert), none replicated.
    for k in ("weights", "gradients", "optimizer_states"):
        assert ep[k] == pytest.approx(plain[k], rel=1e-3)
    # Expert data parallel 1 (EP 16 on 16 GPUs): the GPU keeps its sixteenth of the experts whole.
    whole = _estimate(sharding="zero3", expert_parallel=16).breakdown
    assert whole["weights"] == pytest.approx(2 * (dense / 16 + experts / 16), rel=1e-3)


def test_megatron_fsdp_row_is_estimated():
    """fresh-72's Megatron-FSDP MoE row (EP 2, ETP 2, TP 2, 8 GPUs, optim_grads_params -> zero3) was refused."""
    from gpudesk.sizing import validation as v

    path = v.default_cases_path().with_name("measured_peaks_fresh72.jsonl")
    rows = [v.evaluate_case(c, path.parent / "configs") for c in v.load_cases(path) if "megatronfsdp" in c["id"]]
    assert len(rows) == 2
    assert all(not r.error and r.estimated_bytes > 0 for r in rows)


def test_plain_activation_keeps_its_product_with_the_routing_probability():
    """TEGroupedMLP multiplies an unfused (non-gated) activation by the probabilities out of place; linear_fc2 keeps
    the product: fresh-72's tiny GELU MoE (TP 2 + SP, ETP 2, top-2, 4 x 1024 tokens) keeps 8,192 rows of 1,024
    more a layer (16 MiB in bf16); a SwiGLU MoE (fused weighted SwiGLU) keeps none."""
    from gpudesk.sizing.train_expert_parallel import dispatch_saved_bytes

    gelu = spec_from_hf_config(CONFIGS / "megatron-gpt-tiny-12x512-moe8-top2.config.json")
    assert not gelu.gated
    kw = dict(seq_len_tokens=1024, micro_batch_size=4, tensor_parallel=2, expert_tensor_parallel=2,
              sequence_parallel=True)
    tokens_local, k, etp, h, f = 4096 / 2, 2, 2, 512, 2048
    received = tokens_local * k * etp
    dispatch_only = 2 * h * (received - tokens_local) + 12 * tokens_local * k
    assert dispatch_saved_bytes(gelu, **kw) == pytest.approx(dispatch_only + 2 * received * f / etp)
    assert dispatch_saved_bytes(gelu, **kw) - dispatch_only == 16 * 2**20
    # SwiGLU (Qwen3-30B-A3B): the dispatcher's tokens only.
    sw = dispatch_saved_bytes(MOE, seq_len_tokens=1024, micro_batch_size=1)
    assert sw == pytest.approx(2 * MOE.hidden_size * (1024 * 8 - 1024) + 12 * 1024 * 8)


def test_megatron_gelu_moe_rows_within_band():
    """The Megatron-LM MoE functional-test rows the product moved into the 15 % band (fresh-66 A2A-overlap H100,
    fresh-67 TP2 CP2 H100, fresh-72 Megatron-FSDP A100)."""
    from gpudesk.sizing import validation as v

    ids = {"fresh66-mlm-moe-tiny-tp2sp-ep4-etp1-top2-a2a-overlap-ddp-h100": "measured_peaks_fresh66.jsonl",
           "fresh67-mlm-moe-tiny-tp2sp-cp2-pp2-ep2-etp2-top1-ddp-h100": "measured_peaks_fresh67.jsonl",
           "fresh72-mlm-moe-tiny-tp2sp-ep2-top2-megatronfsdp-zero3-a100": "measured_peaks_fresh72.jsonl"}
    for case_id, name in ids.items():
        path = v.default_cases_path().with_name(name)
        (case,) = [c for c in v.load_cases(path) if c["id"] == case_id]
        result = v.evaluate_case(case, path.parent / "configs")
        assert 0.85 <= result.ratio <= 1.15, (case_id, result.ratio)
