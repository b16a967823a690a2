"""Grouped-query attention: FlashAttention saves the keys and values at their own width (kv_heads x head_dim), not
at the hidden size Korthikanti et al.'s QK^T and V items assume (flash-attention v2.3.6 FlashAttnFunc.forward
saves q, k, v, out, softmax_lse); eager attention keeps the full count (repeat_kv)."""

import json

from conftest import FIXTURES
from gpudesk.cli import main
from gpudesk.sizing import MemoryWorkload, estimate_memory, spec_from_hf_config
from gpudesk.sizing.activations import activation_bytes_per_layer
from gpudesk.sizing.validation import UNIT_BYTES, case_workload

CONFIGS = FIXTURES / "sizing" / "configs"
TINYLLAMA = spec_from_hf_config(CONFIGS / "tinyllama-1.1b.config.json")  # h 2048, 32 q / 4 kv heads of 64
LLAMA2 = spec_from_hf_config(CONFIGS / "llama-2-7b.config.json")  # multi-head: kv width = h


def test_gqa_layer_keeps_k_and_v_at_their_width():
    tokens = 2048 * 4
    mha = activation_bytes_per_layer(2048, 4, 2048, 32, 5632, gated_mlp=True)
    gqa = activation_bytes_per_layer(2048, 4, 2048, 32, 5632, gated_mlp=True, kv_width=256)
    assert mha - gqa == tokens * 2 * 2 * (2048 - 256)
    # split by tensor parallelism like the other attention tensors
    tp = activation_bytes_per_layer(2048, 4, 2048, 32, 5632, gated_mlp=True, tensor_parallel=4, kv_width=256)
    assert activation_bytes_per_layer(2048, 4, 2048, 32, 5632, gated_mlp=True, tensor_parallel=4) - tp == (
        tokens * 2 * 2 * (2048 - 256) / 4)
    # eager attention (no FlashAttention) saves the repeated keys and values: nothing less
    assert activation_bytes_per_layer(2048, 4, 2048, 32, 5632, gated_mlp=True, flash_attention=False,
                                      kv_width=256) == activation_bytes_per_layer(2048, 4, 2048, 32, 5632,
                                                                                  gated_mlp=True,
                                                                                  flash_attention=False)


def test_estimate_keeps_kv_grouped_only_when_told():
    assert TINYLLAMA.kv_heads_resolved * TINYLLAMA.head_dim_resolved == 256
    base = dict(mode="train", precision="bf16-pure", seq_len_tokens=2048, micro_batch_size=4, compiled=False)
    repeated = estimate_memory(TINYLLAMA, MemoryWorkload(**base))
    grouped = estimate_memory(TINYLLAMA, MemoryWorkload(**base, grouped_kv_attention=True))
    # 22 layers x 8192 tokens x (2048 - 256) x 2 tensors x 2 bytes fewer at the start of backward
    assert repeated.breakdown["activations"] - grouped.breakdown["activations"] == 22 * 8192 * 1792 * 4
    # LoRA replaces the trained layer's count by its frozen-layer count, which already keeps k and v at their
    # width (activations_lora.frozen_layer_activation_bytes): the setting changes nothing there
    lora = dict(base, mode="lora", recompute="none")
    assert (estimate_memory(TINYLLAMA, MemoryWorkload(**lora)).breakdown["activations"]
            == estimate_memory(TINYLLAMA, MemoryWorkload(**lora, grouped_kv_attention=True)).breakdown["activations"])
    # a multi-head model is unchanged: kv width = h
    mha = activation_bytes_per_layer(2048, 1, 4096, 32, 11008, gated_mlp=True)
    assert mha == activation_bytes_per_layer(2048, 1, 4096, 32, 11008, gated_mlp=True,
                                             kv_width=LLAMA2.kv_heads_resolved * LLAMA2.head_dim_resolved)


def test_cli_flag(capsys):
    args = ["estimate", "memory", "--config", str(CONFIGS / "tinyllama-1.1b.config.json"), "--mode", "train",
            "--precision", "bf16", "--batch", "4", "--seq", "2048", "--json"]
    assert main(args) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(args + ["--grouped-kv-attention"]) == 0
    grouped = json.loads(capsys.readouterr().out)
    assert plain["per_gpu"]["total_bytes"] - grouped["per_gpu"]["total_bytes"] >= 22 * 8192 * 1792 * 4


def test_whynlp_tinyllama_accelerate_rows_within_15_percent():
    # whyNLP/tinyllama README @ a1ed8ec045: TinyLlama-1.1B (GQA 8:1) full training, flash-attn 2, fused RMSNorm.
    lines = (FIXTURES / "sizing" / "measured_peaks_fresh77.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [r for r in map(json.loads, filter(None, lines)) if "tinyllama-accel" in r["id"]]
    assert len(rows) == 9
    ratios = [estimate_memory(TINYLLAMA, case_workload(r)).device_bytes / (r["value"] * UNIT_BYTES[r["unit"]])
              for r in rows]
    assert all(abs(x - 1) <= 0.15 for x in ratios), ratios
