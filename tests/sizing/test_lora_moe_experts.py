"""LoRA MLP targets on an MoE model: one adapter pair per routed expert, split by expert parallelism (memfix50)."""

from __future__ import annotations

import json

import pytest

from gpudesk.sizing import MemoryWorkload, estimate_memory
from gpudesk.sizing.lora_modules import mlp_copies
from gpudesk.sizing.memory_train import model_state_bytes_per_param
from gpudesk.sizing.memory_lora import adapter_params_per_rank, lora_params_per_tp_rank, lora_trainable_params
from gpudesk.sizing.shapes import spec_from_hf_config

from expert_cases import CONFIGS, DENSE, MOE

ALL_LINEAR = "all-linear"


def _lora(**kw: object) -> dict[str, float]:
    w: dict[str, object] = dict(mode="lora", precision="bf16", optimizer="adamw", sharding="zero1", lora_rank=32,
                                lora_targets=ALL_LINEAR, seq_len_tokens=2048, micro_batch_size=1, gpus=4)
    return estimate_memory(MOE, MemoryWorkload(**{**w, **kw})).breakdown  # type: ignore[arg-type]


def test_dense_model_count_unchanged():
    # Llama-2-7B, r = 8, q_proj + v_proj: the PEFT figure of the docstring.
    assert lora_trainable_params(DENSE, 8, ("q_proj", "v_proj")) == 4_194_304
    assert mlp_copies(DENSE) == ((32, DENSE.ffn_size, False),)


def test_each_routed_expert_carries_its_own_adapters():
    # Qwen3-30B-A3B: 48 MoE layers x 128 experts of width 768, hidden 2048, no shared expert.
    assert mlp_copies(MOE) == ((48 * 128, 768, True),)
    mlp = lora_trainable_params(MOE, 32, ("gate_proj", "up_proj", "down_proj"))
    assert mlp == 48 * 128 * 3 * 32 * (2048 + 768)
    attention_only = lora_trainable_params(MOE, 32, ("q_proj", "k_proj", "v_proj", "o_proj"))
    assert lora_trainable_params(MOE, 32, ALL_LINEAR) == mlp + attention_only


def test_expert_parallel_splits_only_the_expert_adapters():
    dense1, routed1 = adapter_params_per_rank(MOE, 32, ALL_LINEAR)
    dense4, routed4 = adapter_params_per_rank(MOE, 32, ALL_LINEAR, expert_parallel=4)
    assert dense4 == dense1
    assert routed4 == pytest.approx(routed1 / 4)
    assert lora_params_per_tp_rank(MOE, 32, ALL_LINEAR, 1, expert_parallel=4) == int(dense4 + routed4)


def test_shared_expert_and_dense_layers_are_mlp_blocks_of_their_width(tmp_path):
    data = json.loads((CONFIGS / "qwen3-30b-a3b.config.json").read_text())
    data.update(shared_expert_intermediate_size=4096, mlp_only_layers=[0, 1])
    path = tmp_path / "moe-shared.config.json"
    path.write_text(json.dumps(data))
    spec = spec_from_hf_config(path)
    assert mlp_copies(spec) == ((46 * 128, 768, True), (46, 4096, False), (2, spec.ffn_size, False))


def test_expert_adapter_states_shard_over_expert_data_parallel_gpus():
    # EP 4 on 4 GPUs: the expert-data-parallel group is 1 GPU, so the expert adapters' states are not divided by the
    # 4 data-parallel GPUs as the attention adapters' are.
    ep = _lora(expert_parallel=4)["lora_adapters"]
    dense, routed = adapter_params_per_rank(MOE, 32, ALL_LINEAR, expert_parallel=4)
    # ZeRO-1: weights and gradients whole on each GPU, master weights and optimizer states sharded.
    weight, master, grad, states = model_state_bytes_per_param("adamw", "bf16")
    kept, sharded = weight + grad, master + states
    assert ep == pytest.approx(dense * (kept + sharded / 4) + routed * (kept + sharded), rel=1e-3)


def test_planner_sync_count_is_the_same_function():
    from gpudesk.planner import train_eval
    assert train_eval.lora_trainable_params is lora_trainable_params
