"""The all-to-all token dispatcher's saved tokens and expert tensor parallelism in the training estimate
(``--expert-tensor-parallel``, row field ``expert_tensor_parallel``; memfix48)."""

from __future__ import annotations

import pytest

from gpudesk.cli import main
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.memory_train import parallel_train_memory_bytes
from gpudesk.sizing.train_expert_parallel import (
    DISPATCH_INDEX_BYTES_PER_ROW,
    dispatch_activation_bytes,
    dispatch_saved_bytes,
    routed_expert_params,
)

from expert_cases import CONFIGS, DENSE, MOE
from expert_cases import train_estimate as _estimate


def test_saved_tokens_per_layer():
    # Qwen3-30B-A3B: h 2048, top-8. 4096 local tokens: 32768 rows received (balanced); less the counted input.
    h, k, s = 2048, 8, 4096
    assert dispatch_saved_bytes(MOE, seq_len_tokens=s, micro_batch_size=1) == pytest.approx(
        2 * h * (s * k - s) + DISPATCH_INDEX_BYTES_PER_ROW * s * k)
    # TP 2 with sequence parallelism, ETP 2: half the tokens sent, the gathered rows received.
    assert dispatch_saved_bytes(MOE, seq_len_tokens=s, micro_batch_size=1, tensor_parallel=2,
                                sequence_parallel=True) == pytest.approx(
        2 * h * (s * k - s / 2) + DISPATCH_INDEX_BYTES_PER_ROW * s * k / 2)
    # ETP 1 under TP 2: no gather over the expert-tensor-parallel ranks.
    assert dispatch_saved_bytes(MOE, seq_len_tokens=s, micro_batch_size=1, tensor_parallel=2, expert_tensor_parallel=1,
                                sequence_parallel=True) == pytest.approx(
        2 * h * (s * k / 2 - s / 2) + DISPATCH_INDEX_BYTES_PER_ROW * s * k / 2)
    assert dispatch_saved_bytes(DENSE, seq_len_tokens=s, micro_batch_size=1) == 0


def test_full_recompute_keeps_them_in_the_recomputed_layer_only():
    saved = dispatch_saved_bytes(MOE, seq_len_tokens=2048, micro_batch_size=1)
    assert dispatch_activation_bytes(MOE, seq_len_tokens=2048, micro_batch_size=1) == (pytest.approx(saved), 0.0)
    assert dispatch_activation_bytes(MOE, seq_len_tokens=2048, micro_batch_size=1, recompute="full") == (
        0.0, pytest.approx(saved))


def test_estimate_counts_them_with_expert_parallelism_only():
    kw = dict(seq_len_tokens=4096, micro_batch_size=8, gpus=16)
    plain = _estimate(**kw).breakdown["activations"]
    ep = _estimate(expert_parallel=16, **kw).breakdown["activations"]
    layers = MOE.transformer_dims.layers
    assert ep - plain == pytest.approx(layers * dispatch_saved_bytes(MOE, seq_len_tokens=4096, micro_batch_size=8),
                                       rel=1e-6)


def test_estimate_and_planner_layout_add_the_same_dispatch_bytes():
    def layout(ep):
        return parallel_train_memory_bytes(MOE, gpus=8, seq_len_tokens=4096, micro_batch_size=8, micro_batches=1,
                                           expert_parallel=ep, optimizer="adam-16")["activations"]

    def est(ep):
        return _estimate(gpus=8, seq_len_tokens=4096, micro_batch_size=8, expert_parallel=ep).breakdown["activations"]

    assert layout(8) - layout(1) == pytest.approx(est(8) - est(1), rel=1e-6)


def test_expert_tensor_parallel_splits_the_experts():
    experts = routed_expert_params(MOE)
    etp2 = _estimate(tensor_parallel=2, sequence_parallel=True, expert_parallel=8).breakdown["weights"]
    etp1 = _estimate(tensor_parallel=2, sequence_parallel=True, expert_parallel=8,
                     expert_tensor_parallel=1).breakdown["weights"]
    assert etp1 - etp2 == pytest.approx(2 * experts * (1 / 8 - 1 / 16), rel=1e-3)
    # The default is the tensor-parallel size.
    assert _estimate(tensor_parallel=2, sequence_parallel=True, expert_parallel=8,
                     expert_tensor_parallel=2).breakdown["weights"] == pytest.approx(etp2)


@pytest.mark.parametrize("kw", [
    {"expert_tensor_parallel": 1, "tensor_parallel": 2},                                  # no expert parallelism
    {"expert_tensor_parallel": 0, "expert_parallel": 8},
    {"expert_tensor_parallel": 2, "mode": "lora", "gpus": 2},                            # no expert parallelism
])
def test_expert_tensor_parallel_refused(kw):
    with pytest.raises(SizingError) as exc:
        _estimate(**kw)
    assert exc.value.field == "expert_tensor_parallel"


def test_lora_frozen_experts_follow_expert_tensor_parallel():
    # ms-swift's Megatron LoRA with --expert_tensor_parallel_size 1 under TP 4 and EP 4 (e.g. its glm4_5_106b.sh):
    # each GPU holds a quarter of the experts whole, not a sixteenth; the dense part is split by tp as before.
    experts = routed_expert_params(MOE)
    kw = dict(mode="lora", tensor_parallel=4, sequence_parallel=True, expert_parallel=4, sharding="zero1")
    whole = _estimate(expert_tensor_parallel=1, **{**kw, "gpus": 4}).breakdown["weights"]
    split = _estimate(**{**kw, "gpus": 16}).breakdown["weights"]  # etp = tp: the experts over ep x tp = 16 GPUs
    assert whole - split == pytest.approx(2 * experts * (1 / 4 - 1 / 16), rel=1e-3)


def test_cli_flag(capsys):
    base = ["estimate", "memory", "--config", str(CONFIGS / "qwen3-30b-a3b.config.json"), "--mode", "train",
            "--seq", "2048", "--gpus", "16", "--tp", "2", "--sp", "--sharding", "zero1"]
    assert main(base + ["--expert-parallel", "8", "--expert-tensor-parallel", "1"]) == 0
    assert main(base + ["--expert-tensor-parallel", "1"]) != 0
    assert "--expert-tensor-parallel" in capsys.readouterr().err


def test_planner_passes_it_with_expert_parallelism():
    from gpudesk.planner.requirement import ModelMemory, Requirement
    from gpudesk.planner.workload import memory_workload

    cfg = str(CONFIGS / "qwen3-30b-a3b.config.json")
    req = Requirement(model=ModelMemory(config_path=cfg, mode="train", sharding="zero1", expert_parallel=8,
                                        expert_tensor_parallel=1))
    assert memory_workload(req, gpus=8, micro_batch_size=1).expert_tensor_parallel == 1
    req = Requirement(model=ModelMemory(config_path=cfg, mode="train", sharding="zero1", expert_tensor_parallel=1))
    assert memory_workload(req, gpus=8, micro_batch_size=1).expert_tensor_parallel is None
