"""LoRA targets typed as the model family's own module names (ChatGLM ``query_key_value``, Qwen v1 ``c_attn``,
Baichuan ``W_pack``) adapt the fused projections of the config's shape, as PEFT does."""

import pytest

from conftest import FIXTURES
from gpudesk.sizing import SizingError, lora_memory, lora_trainable_params, spec_from_hf_config
from gpudesk.sizing.activations_lora import frozen_layer_activation_bytes
from gpudesk.sizing.lora_modules import resolve_targets

CONFIGS = FIXTURES / "sizing" / "configs"
CHATGLM3 = spec_from_hf_config(CONFIGS / "chatglm3-6b.config.json")
QWEN_V1 = spec_from_hf_config(CONFIGS / "qwen-7b.config.json")
BAICHUAN2 = spec_from_hf_config(CONFIGS / "baichuan2-7b.config.json")
FALCON = spec_from_hf_config(CONFIGS / "falcon-7b.config.json")
LLAMA2 = spec_from_hf_config(CONFIGS / "llama-2-7b.config.json")


def test_chatglm_query_key_value_matches_peft_printout():
    # ChatGLM2/3-6B, r = 8 on query_key_value: PEFT prints "trainable params: 1,949,696 || all params:
    # 6,245,533,696" (e.g. ChatGLM fine-tuning notebooks): 28 layers x 8 x (4096 + (32 + 2 x 2) x 128).
    assert lora_trainable_params(CHATGLM3, 8, "query_key_value") == 1_949_696
    # One adapter over the fused Linear has fewer parameters than three over separate q, k and v.
    assert lora_trainable_params(CHATGLM3, 8, ["q_proj", "k_proj", "v_proj"]) == 28 * 8 * (3 * 4096 + 4608)


def test_chatglm_dense_h_to_4h_is_the_fused_swiglu_input():
    # ChatGLM2/3 GLU: dense_h_to_4h is hidden -> 2 x ffn_hidden_size (13696), split into gate and up.
    assert lora_trainable_params(CHATGLM3, 8, "dense_h_to_4h") == 28 * 8 * (4096 + 2 * 13696)
    assert resolve_targets("dense_h_to_4h", CHATGLM3) == ("gate_up_proj",)


def test_falcon_dense_h_to_4h_is_a_plain_up_projection():
    assert resolve_targets(["query_key_value", "dense", "dense_h_to_4h", "dense_4h_to_h"], FALCON) == (
        "qkv_proj", "o_proj", "up_proj", "down_proj")
    # Falcon-7B multi-query: 71 heads of 64 plus one K and one V head -> qkv out 4672.
    assert lora_trainable_params(FALCON, 16, "query_key_value") == 32 * 16 * (4544 + 4672)


def test_qwen_v1_finetune_default_targets():
    # Qwen v1 finetune.py: lora_target_modules c_attn, c_proj, w1, w2; c_proj is both attn.c_proj and mlp.c_proj,
    # w1 and w2 the two halves of the SwiGLU input (intermediate_size 22016 / 2 each).
    names = resolve_targets(["c_attn", "c_proj", "w1", "w2"], QWEN_V1)
    assert names == ("qkv_proj", "o_proj", "down_proj", "up_proj", "gate_proj")
    per_layer = (4096 + 3 * 4096) + (4096 + 4096) + 3 * (4096 + 11008)
    assert lora_trainable_params(QWEN_V1, 64, ["c_attn", "c_proj", "w1", "w2"]) == 32 * 64 * per_layer


def test_qwen_w2_is_the_gate_not_the_down_projection():
    # With dropout each adapter keeps its own input copy: Qwen's w2 reads the hidden state (4096 wide); a down
    # projection would read the 11008-wide MLP activation.
    w2 = frozen_layer_activation_bytes(QWEN_V1, 512, 1, resolve_targets(["w2"], QWEN_V1), lora_dropout=0.05)
    down = frozen_layer_activation_bytes(QWEN_V1, 512, 1, ("down_proj",), lora_dropout=0.05)
    assert down - w2 == pytest.approx(512 * 3 * (11008 - 4096))


def test_baichuan_w_pack_any_case_and_llama_names_unchanged():
    assert lora_trainable_params(BAICHUAN2, 8, "W_pack") == 32 * 8 * (4096 + 3 * 4096)
    assert lora_trainable_params(BAICHUAN2, 8, "w_pack") == lora_trainable_params(BAICHUAN2, 8, "W_pack")
    assert lora_trainable_params(LLAMA2, 8, ["q_proj", "v_proj"]) == 4_194_304


def test_family_names_run_through_the_memory_estimate():
    fused = lora_memory(CHATGLM3, mode="lora", rank=8, targets=("query_key_value",), precision="fp16",
                        optimizer="adamw", seq_len_tokens=385, recompute="none", lora_dropout=0.1)
    split = lora_memory(CHATGLM3, mode="lora", rank=8, targets=("q_proj", "k_proj", "v_proj"), precision="fp16",
                        optimizer="adamw", seq_len_tokens=385, recompute="none", lora_dropout=0.1)
    # One dropout output + mask over the fused input instead of three.
    assert split.component("activations") - fused.component("activations") == pytest.approx(
        28 * 385 * 3 * 4096 * 2)
    assert fused.component("lora_adapters") < split.component("lora_adapters")


def test_unknown_module_names_the_accepted_ones():
    with pytest.raises(SizingError) as info:
        lora_trainable_params(CHATGLM3, 8, ["qkv"])
    assert info.value.field == "lora_targets"
    assert "query_key_value" in str(info.value) and "c_attn" in str(info.value)


def test_all_linear_adapts_the_fused_projections_peft_finds():
    # PEFT's all-linear adapts every Linear of the blocks as the checkpoint has them: ChatGLM's four, Qwen v1's
    # fused c_attn with its separate w1/w2, Llama's seven.
    assert resolve_targets("all-linear", CHATGLM3) == ("qkv_proj", "o_proj", "gate_up_proj", "down_proj")
    assert lora_trainable_params(CHATGLM3, 8, "all-linear") == lora_trainable_params(
        CHATGLM3, 8, ["query_key_value", "dense", "dense_h_to_4h", "dense_4h_to_h"])
    assert lora_trainable_params(QWEN_V1, 64, "all-linear") == lora_trainable_params(
        QWEN_V1, 64, ["c_attn", "c_proj", "w1", "w2"])
    assert resolve_targets("attention", FALCON) == ("qkv_proj", "o_proj")
    assert resolve_targets("all-linear", LLAMA2) == (
        "q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
