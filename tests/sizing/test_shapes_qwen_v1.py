"""Qwen v1 (``model_type`` ``qwen``, remote code ``modeling_qwen.py``): the config's ``intermediate_size`` is the sum
of the two SwiGLU input widths, ``kv_channels`` the head width, and its int8 KV cache keeps a 16-bit scale and zero
point per token and head beside K and V. Checked on the published Qwen/Qwen-7B config.json and the fresh-11 rows
of the QwenLM/Qwen README (e8e15962) mapped onto it."""

import json

from conftest import FIXTURES
from gpudesk.sizing import MemoryWorkload, estimate_memory, spec_from_hf_config
from gpudesk.sizing.memory_inference import kv_bytes_per_token, kv_layer_bytes_per_token
from gpudesk.sizing.validation import case_workload, evaluate_case, load_cases

CONFIGS = FIXTURES / "sizing" / "configs"
QWEN_V1 = spec_from_hf_config(CONFIGS / "qwen-7b.config.json")
FRESH11 = FIXTURES / "sizing" / "measured_peaks_fresh11.jsonl"


def test_qwen_v1_mlp_is_half_the_config_intermediate_size_and_gated():
    # QWenMLP: w1, w2 hidden x (22016 // 2), c_proj (22016 // 2) x hidden, output w1(x) * silu(w2(x)).
    assert QWEN_V1.ffn_size == 11008
    assert QWEN_V1.gated_mlp is True
    assert QWEN_V1.head_dim_resolved == 128 and QWEN_V1.kv_heads_resolved == 32


def test_qwen_v1_parameter_count_is_the_published_7_7_b():
    # Embedding + untied head 2 x 151936 x 4096, 32 blocks of c_attn 4096 x 12288, c_proj 4096^2 and a 3 x 4096 x
    # 11008 MLP: 7.72 B (model card: 7.7 B); reading 22016 as the gated width gave 9.16 B.
    assert 7.70e9 < QWEN_V1.params < 7.74e9


def test_a_config_that_only_names_kv_channels_takes_it_as_the_head_width(tmp_path):
    cfg = json.loads((CONFIGS / "qwen-7b.config.json").read_text(encoding="utf-8"))
    cfg.update(kv_channels=64, num_attention_heads=32)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg), encoding="utf-8")
    assert spec_from_hf_config(path).head_dim_resolved == 64


def test_int8_kv_cache_of_qwen_v1_stores_scale_and_zero_per_token_and_head():
    # quantize_cache_v: uint8 K and V plus a bf16 scale and zero per (token, head): 128 + 4 bytes per head.
    assert kv_layer_bytes_per_token(QWEN_V1, "int8") == 2 * 32 * (128 + 4)
    assert kv_bytes_per_token(QWEN_V1, "int8") == 32 * 2 * 32 * (128 + 4)
    # 16-bit caches and other architectures' int8 caches keep no such parameters.
    assert kv_bytes_per_token(QWEN_V1, "bf16") == 32 * 2 * 32 * 128 * 2
    llama = spec_from_hf_config(CONFIGS / "llama-2-13b.config.json")
    assert kv_layer_bytes_per_token(llama, "int8") == 2 * 40 * 128


def test_int8_kv_estimate_for_the_readme_batch_of_100_grows_by_the_scale_and_zero():
    w = MemoryWorkload(mode="inference", precision="bf16", weight_format="bf16", kv_precision="int8",
                       kv_cache_impl="legacy-tuple", flash_attention=False, context_tokens=1024,
                       concurrent_sequences=100, prompt_tokens=1)
    kv = estimate_memory(QWEN_V1, w).breakdown["kv_cache"]
    assert kv == 100 * 1024 * 32 * 2 * 32 * 132


def test_fresh11_qwen_training_rows_land_within_15_percent_on_the_7_7_b_model():
    # The full-parameter ZeRO-3 row at 1024 tokens read 1.23 and the 4-GPU LoRA rows 1.19-1.20 with the 9.2 B reading.
    cases = {c["id"]: c for c in load_cases(FRESH11)}
    rows = [c for i, c in cases.items() if i.startswith(("fresh11-qwen2311-lora-", "fresh11-qwen2312-lora-multinode"))]
    rows.append(cases["fresh11-qwen2311-full-qwen-7b-2xa100-zero3-seq1024"])
    assert len(rows) == 13
    for case in rows:
        assert case_workload(case).mode in ("lora", "train")
        result = evaluate_case(case, CONFIGS, "fresh-11")
        assert not result.error and abs(result.ratio - 1) <= 0.15, (case["id"], result.ratio)


def test_serving_context_is_the_trained_seq_length_not_the_ntk_position_count():
    # config: max_position_embeddings 32768, seq_length 8192; vLLM takes the smallest key, SGLang seq_length first.
    assert QWEN_V1.context_length == 8192
    llama = spec_from_hf_config(CONFIGS / "llama-2-13b.config.json")
    assert llama.context_length == 4096
