"""Training memory against published figures: DeepSpeed's t5-3b table, the ZeRO paper, Korthikanti et al."""

import pytest

from conftest import FIXTURES
from gpudesk.sizing import SizingError, spec_from_hf_config, train_memory
from gpudesk.sizing.activations import activation_bytes_per_layer
from gpudesk.sizing.memory_train import OPTIMIZER_ACCOUNTING, model_state_bytes_per_param, sharded_model_states

GIB = 1024**3
T5 = spec_from_hf_config(FIXTURES / "plan" / "t5-3b.config.json")


def _states(opt, stage, offload):
    parts = sharded_model_states(T5.params, model_state_bytes_per_param(opt), 8, stage, offload, T5.largest_layer_params)
    return round(sum(parts.values()) / GIB, 2)


def test_deepspeed_t5_3b_zero3_table():
    # DeepSpeed memory docs, t5-3b on 1 node x 8 GPUs, per GPU: 6.10 / 0.79 / 0.12 GB.
    assert _states("adam-18", "zero3", "none") == 6.10
    assert _states("adam-18", "zero3", "optimizer") == 0.79
    assert _states("adam-18", "zero3", "all") == 0.12


def test_deepspeed_t5_3b_zero2():
    # Optimizer offload: 5.31 GB per GPU (2P). Without offload the current estimator is 2P + 18P/N
    # (DeepSpeed PR 5099); the docs table's 15.93 GB predates it (4P + 16P/N).
    assert _states("adam-20", "zero2", "optimizer") == 5.31
    expected = (2 * T5.params + 18 * T5.params / 8) / GIB
    assert _states("adam-20", "zero2", "none") == round(expected, 2)


def test_accountings_sum_to_published_bytes_per_param():
    sums = {k: sum(v) for k, v in OPTIMIZER_ACCOUNTING.items()}
    assert sums == {"adam-16": 16, "adam-18": 18, "adam-20": 20, "adamw-bf16": 8, "adam-8bit": 10, "sgd": 12}
    assert sum(model_state_bytes_per_param("adam-16", "fp32")) == 16
    with pytest.raises(SizingError) as info:
        model_state_bytes_per_param("adamw-bf16", "fp32")
    assert info.value.field == "optimizer"


def test_llama2_7b_full_finetune_erratum():
    # catalog.md erratum l: 16 B/param -> about 108 GB (100 GiB) before activations; not the article's 68 GB.
    spec = spec_from_hf_config(FIXTURES / "plan" / "llama-2-7b-hf.config.json")
    # With gradient accumulation the full gradient buffer coexists with the activations (all four terms at the peak).
    est = train_memory(spec, optimizer="adam-16", seq_len_tokens=2048, micro_batch_size=4, gradient_accumulation=True)
    states = sum(est.component(k) for k in ("weights", "master_weights", "gradients", "optimizer_states"))
    assert round(states / 1e9) == 108
    assert est.total_bytes > 80 * GIB  # does not fit one 80 GB card without sharding
    sharded = train_memory(spec, optimizer="adam-16", seq_len_tokens=2048, micro_batch_size=1, gpus=8,
                           sharding="zero3", recompute="full")
    assert sharded.total_bytes < 30 * GIB
    assert sharded.component("framework_overhead") > 0  # NCCL buffers counted on multi-GPU jobs


def test_korthikanti_table2():
    s, b, h, a = 2048, 1, 4096, 32
    no_flash = activation_bytes_per_layer(s, b, h, a, flash_attention=False)
    assert no_flash == s * b * h * (34 + 5 * a * s / h)
    tp = activation_bytes_per_layer(s, b, h, a, flash_attention=False, tensor_parallel=8)
    assert tp == pytest.approx(s * b * h * (10 + 24 / 8 + 5 * a * s / (h * 8)))
    sp = activation_bytes_per_layer(s, b, h, a, flash_attention=False, tensor_parallel=8, sequence_parallel=True)
    assert sp == pytest.approx(s * b * h * (34 / 8 + 5 * a * s / (h * 8)))
    selective = activation_bytes_per_layer(s, b, h, a, flash_attention=False, recompute="selective")
    assert selective == s * b * h * 34
    assert activation_bytes_per_layer(s, b, h, a, recompute="full") == 2 * s * b * h
    flash = activation_bytes_per_layer(s, b, h, a)
    assert selective < flash < no_flash / 3  # FlashAttention drops the 5as^2b term (s=2048: 70 % of the layer)


@pytest.mark.parametrize("kwargs,field", [
    ({"seq_len_tokens": 0}, "seq_len_tokens"),
    ({"micro_batch_size": -2}, "micro_batch_size"),
    ({"gpus": 10**9}, "gpus"),
    ({"seq_len_tokens": 1e12}, "seq_len_tokens"),
    ({"sharding": "zero9"}, "sharding"),
    ({"optimizer": "lion"}, "optimizer"),
    ({"offload": "all", "sharding": "zero2", "gpus": 2}, "offload"),
    ({"gpus": 6, "tensor_parallel": 4}, "tensor_parallel"),
])
def test_bad_input_names_the_field(kwargs, field):
    with pytest.raises(SizingError) as info:
        train_memory(T5, **kwargs)
    assert info.value.field == field


def test_sequence_parallel_splits_the_eager_norm_copies_and_fp8_saves_one_byte_per_gemm_input():
    from gpudesk.sizing.memory_train import eager_extra_bytes_per_layer, fp8_saved_input_savings_per_layer

    spec = spec_from_hf_config(FIXTURES / "sizing" / "configs" / "llama-3.1-70b.config.json")
    tokens = 4096
    # Llama 3 70B, TP 4: the two fp32 RMSNorm copies (8 h bytes a token) run on 1/4 of the sequence under SP.
    plain = eager_extra_bytes_per_layer(spec, tokens, 1, 4)
    split = eager_extra_bytes_per_layer(spec, tokens, 1, 4, sequence_parallel=True)
    assert plain - split == pytest.approx(tokens * 8 * 8192 * (1 - 1 / 4))
    # Transformer Engine FP8 keeps the FP8 cast of the qkv, o, gate/up and down inputs: h/t + h/t + (h + ffn)/t
    # bytes a token less than the 16-bit count (GQA 70B: 64 heads x 128 = h).
    saved = fp8_saved_input_savings_per_layer(spec, tokens, 1, 4, sequence_parallel=True)
    assert saved == pytest.approx(tokens * (2 * 8192 + 8192 + 28672) / 4)
    from gpudesk.sizing.memory_train import activation_terms

    common = dict(tensor_parallel=4, sequence_parallel=True, recompute="none", compiled=False)
    bf16 = activation_terms(spec, tokens, 1, precision="bf16", **common).activations
    fp8 = activation_terms(spec, tokens, 1, precision="fp8", **common).activations
    assert bf16 - fp8 == pytest.approx(80 * saved)


def test_selective_op_ac_counts_every_other_mm_per_layer_and_tp_partial_sums():
    # torchtitan at c233ecdd (issue #191's recipe): 'op' SAC saves the odd aten.mm calls of each block (wq, wv, w1, w2)
    # and the reduce-scatter outputs; w2's mm output is the rank's full-width partial sum under TP.
    from gpudesk.sizing.memory_train import selective_ac_bytes_per_layer
    spec = spec_from_hf_config(FIXTURES / "sizing" / "configs" / "llama-2-13b.config.json")
    tokens, h, t = 8 * 4096, 5120, 4
    kept = selective_ac_bytes_per_layer(spec, 4096, 8, tensor_parallel=t, sequence_parallel=True)
    # input, wq, wv, sdpa output, 2 reduce-scatter outputs (each h/t), w1 (13824/t), w2 partial sum (h); bf16.
    expected = 2 * tokens * (6 * h / t + 13824 / t + h) + 4 * 40 * tokens / t
    assert kept == pytest.approx(expected)


def test_torchtitan_issue_191_fsdp1_2d_row_is_within_15_percent():
    import json

    from gpudesk.sizing import estimate_memory
    from gpudesk.sizing.validation import UNIT_BYTES, case_workload
    path = FIXTURES / "sizing" / "measured_peaks_fresh12.jsonl"
    row = next(r for r in map(json.loads, filter(None, path.read_text(encoding="utf-8").splitlines()))
               if r["id"] == "fresh12-titan191-full-llama2-13b-8gpu-dp2tp4-fsdp1")
    est = estimate_memory(spec_from_hf_config(FIXTURES / "sizing" / "configs" / "llama-2-13b.config.json"),
                          case_workload(row))
    assert est.statistic_bytes(row["statistic"]) / (row["value"] * UNIT_BYTES[row["unit"]]) == pytest.approx(1, abs=0.15)


def test_deepspeed_zero_fp32_clones_the_master_partition_but_fsdp_and_offload_do_not():
    # DeepSpeed ZeRO steps its own fp32 clone of the rank's partition even when the model is fp32
    # (stage_1_and_2.py single_partition_of_fp32_groups, stage3.py _create_fp32_partitions before PR 7651).
    spec = spec_from_hf_config(FIXTURES / "plan" / "llama-2-7b-hf.config.json")
    common = {"optimizer": "adamw", "precision": "fp32", "seq_len_tokens": 512, "gpus": 4}
    for stage in ("zero1", "zero2", "zero3"):
        est = train_memory(spec, sharding=stage, **common)
        assert est.component("master_weights") == pytest.approx(4 * spec.params / 4, rel=1e-6)
    assert train_memory(spec, sharding="fsdp", **common).component("master_weights") == 0
    assert train_memory(spec, sharding="zero3", offload="optimizer", **common).component("master_weights") == 0
    # Mixed precision already counts the fp32 master once (4 B/param, sharded): no second copy.
    bf16 = train_memory(spec, sharding="zero3", **{**common, "precision": "bf16"})
    assert bf16.component("master_weights") == pytest.approx(4 * spec.params / 4, rel=1e-6)


def test_chatglm3_zero3_fp32_full_sft_row_is_within_15_percent():
    import json

    from gpudesk.sizing import estimate_memory
    from gpudesk.sizing.validation import UNIT_BYTES, case_workload
    path = FIXTURES / "sizing" / "measured_peaks_fresh17.jsonl"
    row = next(r for r in map(json.loads, filter(None, path.read_text(encoding="utf-8").splitlines()))
               if r["id"] == "fresh17-chatglm3-2401-sft-full-6b-zero3-4gpu")
    est = estimate_memory(spec_from_hf_config(FIXTURES / "sizing" / "configs" / "chatglm3-6b.config.json"),
                          case_workload(row))
    assert est.statistic_bytes(row["statistic"]) / (row["value"] * UNIT_BYTES[row["unit"]]) == pytest.approx(1, abs=0.15)
