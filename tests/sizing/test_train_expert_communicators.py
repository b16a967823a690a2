"""Expert parallelism's own NCCL buffers (the all-to-all's peer connections, the expert optimizer's groups) in the
device view, and the expert width of a plain-MLP MoE config (memfix49)."""

from __future__ import annotations

import json

import pytest

from gpudesk.sizing import MemoryWorkload, estimate_memory, spec_from_hf_config
from gpudesk.sizing.overheads import Overheads, add_overheads
from gpudesk.sizing.train_expert_parallel import ALL_TO_ALL_PEER_BYTES, expert_communicators, expert_nccl_bytes
from gpudesk.units import GIB

from expert_cases import MOE
from expert_cases import train_estimate as _estimate

NCCL = Overheads().nccl_bytes_per_gpu


def test_communicator_count():
    # The expert optimizer's tp-ep-pp group; the expert-data-parallel group only with > 1 rank.
    assert expert_communicators(gpus=16, expert_parallel=1) == 0
    assert expert_communicators(gpus=16, expert_parallel=8, expert_tensor_parallel=2) == 1
    assert expert_communicators(gpus=16, expert_parallel=4) == 2
    assert expert_communicators(gpus=8, expert_parallel=2, pipeline_parallel=4) == 1
    # Frozen experts (LoRA): no expert optimizer.
    assert expert_communicators(gpus=16, expert_parallel=4, trains_experts=False) == 0


def test_all_to_all_peers():
    # NVIDIA/nccl#1685: 3.28 GB for the 7 peers of an 8-GPU all-to-all.
    peers_total = ALL_TO_ALL_PEER_BYTES * 7
    assert peers_total == pytest.approx(3.28e9)
    assert expert_nccl_bytes(gpus=8, expert_parallel=1, communicator_bytes=NCCL) == (0.0, [])
    extra, notes = expert_nccl_bytes(gpus=16, expert_parallel=4, communicator_bytes=NCCL)
    assert extra == pytest.approx(3 * ALL_TO_ALL_PEER_BYTES + 2 * NCCL)
    assert len(notes) == 2


def test_device_view_only():
    base, ep = _estimate(), _estimate(expert_parallel=4)  # 16 GPUs, tp 1: expert data parallel 4
    assert base.component("framework_overhead") == NCCL
    extra = 3 * ALL_TO_ALL_PEER_BYTES + 2 * NCCL
    assert ep.component("framework_overhead") == pytest.approx(NCCL + extra)
    # Outside the caching allocator: the device figure carries it, the reserved one does not.
    assert ep.device_bytes - ep.reserved_bytes == pytest.approx(base.device_bytes - base.reserved_bytes + extra, abs=2)
    assert any("all-to-all buffers of expert parallelism" in a for a, _ in ep.assumptions)


def test_lora_counts_the_all_to_all_only():
    w = dict(mode="lora", precision="bf16", optimizer="adamw", sharding="zero1", seq_len_tokens=2048,
             micro_batch_size=1, gpus=8)
    base = estimate_memory(MOE, MemoryWorkload(**w))  # type: ignore[arg-type]
    ep = estimate_memory(MOE, MemoryWorkload(**w, expert_parallel=4))  # type: ignore[arg-type]
    assert ep.component("framework_overhead") - base.component("framework_overhead") == pytest.approx(
        3 * ALL_TO_ALL_PEER_BYTES)


def test_add_overheads_single_gpu_adds_none():
    parts: dict[str, float] = {"weights": GIB}
    add_overheads(parts, Overheads(), 1, extra_nccl_bytes=GIB)
    assert parts["framework_overhead"] == 0


def test_planner_layout_counts_the_same_bytes():
    # One truth: the planner's Megatron layouts add them through the same function.
    import gpudesk.planner.train_parallel as tp
    assert tp.expert_nccl_bytes is expert_nccl_bytes


def test_plain_mlp_moe_expert_width(tmp_path):
    # A GELU Megatron GPT MoE whose dense width differs from the expert width: two matrices an expert, so the
    # active count matches the parameter count (memcol66's note on megatron-gpt-tiny-12x512-moe8x1024-top2).
    cfg = {"model_type": "megatron_gpt_moe", "hidden_size": 512, "num_hidden_layers": 12, "num_attention_heads": 8,
           "num_key_value_heads": 8, "intermediate_size": 2048, "moe_intermediate_size": 1024, "hidden_act": "gelu",
           "vocab_size": 50257, "max_position_embeddings": 1024, "tie_word_embeddings": True,
           "num_local_experts": 8, "num_experts_per_tok": 2}
    path = tmp_path / "moe.config.json"
    path.write_text(json.dumps(cfg))
    spec = spec_from_hf_config(path)
    assert spec.expert_params == 2 * 512 * 1024
    assert spec.params - spec.active_params == 12 * 6 * spec.expert_params
    # Gated (SwiGLU) experts keep three matrices.
    assert MOE.expert_params == 3 * MOE.hidden_size * (MOE.moe_ffn_size or MOE.ffn_size)
