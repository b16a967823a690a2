"""Catalog multimodal models: the vision encoder from each config's ``vision_config``, loaded and profiled by vLLM.

Figures are vLLM 0.19.0's own start-up lines on one H100 80GB (79.19 GiB), from llm-d-planner's accuracy sweep
(https://github.com/llm-d-incubation/llm-d-planner/tree/d3121e059da88662db39a926a3ead964be97359b/accuracy/results/v0.19.0).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing import spec_from_catalog
from gpudesk.sizing.engines.device import DeviceMemory
from gpudesk.sizing.engines.fit import engine_fit
from gpudesk.sizing.engines.vllm_encoder import encoder_profile, image_limit, tower_loaded
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.shapes import ModelSpec
from gpudesk.sizing.vision_tower import vision_tower_from_config

GIB = 1024**3
H100 = DeviceMemory("H100 80GB", int(79.19 * GIB))
LLMD_ARGS = ["gpu_memory_utilization=0.95", "max_model_len=8192", "enable_prefix_caching=false"]
# google/gemma-3-27b-it config.json (https://huggingface.co/google/gemma-3-27b-it/blob/main/config.json), the keys
# the tower and the rotary tables are read from.
GEMMA3_27B_CONFIG = {
    "mm_tokens_per_image": 256,
    "text_config": {"hidden_size": 5376, "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
                    "rope_local_base_freq": 10000.0},
    "vision_config": {"hidden_size": 1152, "image_size": 896, "intermediate_size": 4304,
                      "model_type": "siglip_vision_model", "num_attention_heads": 16, "num_hidden_layers": 27,
                      "patch_size": 14},
}
# mistralai/Mistral-Small-3.1-24B-Instruct-2503 config.json
# (https://huggingface.co/mistralai/Mistral-Small-3.1-24B-Instruct-2503/blob/main/config.json).
MISTRAL_SMALL_31_CONFIG = {
    "multimodal_projector_bias": False, "spatial_merge_size": 2,
    "text_config": {"hidden_size": 5120},
    "vision_config": {"hidden_size": 1024, "image_size": 1540, "intermediate_size": 4096, "model_type": "pixtral",
                      "num_attention_heads": 16, "num_channels": 3, "num_hidden_layers": 24, "patch_size": 14},
}

# google/gemma-4-31B-it config.json (https://huggingface.co/google/gemma-4-31B-it/blob/main/config.json), the keys
# the tower is read from; its two safetensors files hold 575,743,536 vision parameters (27 x 144 of them q/k norms).
GEMMA4_VISION_CONFIG = {"hidden_size": 1152, "intermediate_size": 4304, "model_type": "gemma4_vision",
                        "num_attention_heads": 16, "num_hidden_layers": 27, "patch_size": 16,
                        "position_embedding_size": 10240}
GEMMA4_31B_CONFIG: dict[str, object] = {
    "text_config": {"hidden_size": 5376, "num_hidden_layers": 60},
    "vision_config": GEMMA4_VISION_CONFIG,
    "vision_soft_tokens_per_image": 280,
}


def _spec(model_id: str) -> ModelSpec:
    return spec_from_catalog(open_catalog().model(model_id))


def test_catalog_gemma3_tower_and_rope_tables_are_those_of_its_config() -> None:
    spec = _spec("gemma-3-27b")
    assert spec.vision_tower == vision_tower_from_config(GEMMA3_27B_CONFIG)
    assert spec.vision_tower is not None and 0.40e9 < spec.vision_tower.params < 0.43e9  # "400M vision encoder"
    assert (spec.vision_tower.patches_per_image, spec.vision_tower.tokens_per_image) == (4096, 256)
    # a linear x8 table for the global layers and an unscaled one for the local layers
    assert spec.rope_table_positions == (131072 * 8, 131072)
    assert _spec("gemma-3-12b").vision_tower is not None
    assert _spec("mistral-small-3").vision_tower is None  # the 2501 checkpoint is text only
    assert _spec("llama-3.1-8b").vision_tower is None and _spec("llama-3.1-8b").rope_table_positions == ()


def test_pixtral_tower_of_mistral_small_31_counts_its_gated_layers_and_patch_merger() -> None:
    tower = _spec("mistral-small-3.1").vision_tower
    assert tower == vision_tower_from_config(MISTRAL_SMALL_31_CONFIG)
    # 24 x (4 x 1024^2 + 3 x 1024 x 4096 + 2 x 1024) + 3 x 14^2 x 1024 + 1024
    # + 1024 + 4 x 1024^2 + 1024 x 5120 + 5120^2
    assert tower is not None and tower.params == 438_958_080
    # 110 patches a side, merged 2 x 2: 55 rows of 55 tokens and an image-break token each
    assert (tower.patches_per_image, tower.tokens_per_image, tower.gated) == (12100, 3080, True)


@pytest.mark.parametrize(("model_id", "weights", "kv_gib", "tokens", "concurrency"), [
    ("gemma-3-27b", 51.45, 19.53, 36_560, 4.46),  # google-gemma-3-27b-it--h100-80gb--tp1pp1dp1--8192.log
    ("gemma-3-12b", 23.31, 47.72, 130_304, 15.88),  # google-gemma-3-12b-it--h100-80gb--tp1pp1dp1--8192.log
])
def test_vllm_019_gemma3_it_loads_and_profiles_its_siglip_tower(model_id: str, weights: float, kv_gib: float,
                                                                 tokens: int, concurrency: float) -> None:
    r = engine_fit("vllm", _spec(model_id), H100, LLMD_ARGS, version="0.19.0", weight_format="bf16")
    assert r.per_gpu.weights_bytes / GIB == pytest.approx(weights, rel=0.03)
    assert r.per_gpu.kv_cache_bytes / GIB == pytest.approx(kv_gib, rel=0.05)
    assert r.kv_cache_tokens == pytest.approx(tokens, rel=0.05)
    assert r.max_concurrency == pytest.approx(concurrency, rel=0.05)
    text_only = engine_fit("vllm", replace(_spec(model_id), vision_tower=None), H100, LLMD_ARGS, version="0.19.0",
                           weight_format="bf16")
    assert r.per_gpu.weights_bytes - text_only.per_gpu.weights_bytes > 0.75 * GIB
    assert any("32 dummy images of 256 tokens" in a for a, _ in r.assumptions)


@pytest.mark.parametrize(("fmt", "args", "gpus", "weights", "kv_gib"), [
    # mistralai-mistral-small---h100-80gb--tp1pp1dp1--8192.json (Mistral-Small-3.1-24B-Instruct-2503, bf16)
    ("bf16", ["gpu_memory_utilization=0.95", "max_model_len=8192"], 1, 44.76, 28.19),
    # w8a8-mistral-small-24b--h100-80gb--tp1pp1dp1--8192.log (RedHatAI ...-quantized.w8a8: INT8 text, bf16 tower)
    ("int8", LLMD_ARGS, 1, 24.07, 48.73),
    # w8a8-mistral-small-24b--h100-80gb--tp2pp1dp1--8192.log
    ("int8", [*LLMD_ARGS, "tensor_parallel_size=2"], 2, 12.11, 59.02),
])
def test_vllm_019_mistral_small_31_loads_its_pixtral_tower_in_16_bits(fmt: str, args: list[str], gpus: int,
                                                                     weights: float, kv_gib: float) -> None:
    r = engine_fit("vllm", _spec("mistral-small-3.1"), H100, args, version="0.19.0", weight_format=fmt, gpus=gpus)
    assert r.per_gpu.weights_bytes / GIB == pytest.approx(weights, rel=0.03)
    assert r.per_gpu.kv_cache_bytes / GIB == pytest.approx(kv_gib, rel=0.05)


def test_encoder_budget_sets_the_dummy_images() -> None:
    gemma, pixtral = _spec("gemma-3-27b").vision_tower, _spec("mistral-small-3.1").vision_tower
    g = encoder_profile(gemma, 5376, 8192, 1024, 8192)
    assert g is not None and g.images == 32  # 8192 // 256
    assert g.cached_output_bytes == 32 * 256 * 5376 * 2
    p = encoder_profile(pixtral, 5120, 8192, 1024, 8192)
    assert p is not None and p.images == 2  # 8192 // 3080
    # the budget is at least one image; a 2,048-token context still takes one image per prompt
    one = encoder_profile(pixtral, 5120, 2048, 1, 2048)
    assert one is not None and one.images == 1
    assert encoder_profile(gemma, 5376, 8192, 1024, 8192, images_per_prompt=0) is None
    assert encoder_profile(None, 5376, 8192, 1024, 8192) is None


def test_images_off_drops_the_tower_from_017_and_the_encoder_profile_always() -> None:
    spec = _spec("gemma-3-27b")
    assert spec.vision_tower is not None
    on = engine_fit("vllm", spec, H100, LLMD_ARGS, version="0.19.0", weight_format="bf16")
    off = engine_fit("vllm", spec, H100, [*LLMD_ARGS, "limit_mm_per_prompt=image=0"], version="0.19.0",
                     weight_format="bf16")
    assert on.per_gpu.weights_bytes - off.per_gpu.weights_bytes == pytest.approx(spec.vision_tower.params * 2)
    assert off.per_gpu.activation_bytes < on.per_gpu.activation_bytes
    assert """--limit-mm-per-prompt '{"image": 0}'""" in off.command
    lm_only = engine_fit("vllm", spec, H100, [*LLMD_ARGS, "language_model_only=true"], version="0.19.0",
                         weight_format="bf16")
    assert lm_only.per_gpu.weights_bytes == off.per_gpu.weights_bytes
    assert "--language-model-only" in lm_only.command
    # 0.14: the tower is built whatever the limit; only the encoder profile goes
    old_on = engine_fit("vllm", spec, H100, LLMD_ARGS, version="0.14.1", weight_format="bf16")
    old_off = engine_fit("vllm", spec, H100, [*LLMD_ARGS, 'limit_mm_per_prompt={"image": 0}'], version="0.14.1",
                         weight_format="bf16")
    assert old_off.per_gpu.weights_bytes == old_on.per_gpu.weights_bytes
    assert old_off.per_gpu.activation_bytes < old_on.per_gpu.activation_bytes
    with pytest.raises(SizingError):
        engine_fit("vllm", spec, H100, [*LLMD_ARGS, "language_model_only=true"], version="0.14.1")
    skip = engine_fit("vllm", spec, H100, [*LLMD_ARGS, "skip_mm_profiling=true"], version="0.19.0",
                      weight_format="bf16")
    assert skip.per_gpu.weights_bytes == on.per_gpu.weights_bytes
    assert skip.per_gpu.activation_bytes < on.per_gpu.activation_bytes
    assert tower_loaded((0, 16), 0, False) and not tower_loaded((0, 17), 0, False) and tower_loaded(None, 3, False)


@pytest.mark.parametrize("text", ["video", "[1]", "image=-1", "image=two"])
def test_limit_mm_per_prompt_that_names_no_image_count_is_refused(text: str) -> None:
    with pytest.raises(SizingError) as err:
        image_limit(text)
    assert err.value.field == "limit_mm_per_prompt"


def test_limit_mm_per_prompt_reads_json_and_key_value_forms() -> None:
    assert image_limit('{"image": 2, "video": 0}') == 2
    assert image_limit("image=0,video=1") == 0
    assert image_limit('{"image": {"count": 1, "width": 512}}') == 1
    assert image_limit('{"video": 0}') is None and image_limit(None) is None


def test_llamacpp_leaves_the_projector_out_of_the_model_buffer() -> None:
    """llama.cpp loads the vision projector from its own mmproj file, not with the model's GGUF."""
    spec = _spec("gemma-3-27b")
    with_tower = engine_fit("llamacpp", spec, H100, ["n_ctx=4096"], weight_format="q4_k_m")
    text_only = engine_fit("llamacpp", replace(spec, vision_tower=None), H100, ["n_ctx=4096"], weight_format="q4_k_m")
    assert with_tower.per_gpu.weights_bytes == text_only.per_gpu.weights_bytes


def test_llama4_tower_counts_its_pixel_shuffle_adapter_and_loads_sharded_at_tp4() -> None:
    """A per-module count of Llama-4-Scout (vision_model.*: 34 SigLIP-style layers of 23,807,872, embeddings
    1,647,168, LayerNorms 5,632; vision_adapter fc1 23,068,672 and fc2 16,777,216; multi_modal_projector 20,971,520)
    and vLLM 0.19.0's meta-llama-llama-4-scout--h100-80gb--tp4pp1dp1--8192.log: 'Model loading took 53.12 GiB',
    16.75 GiB of KV cache per rank."""
    spec = _spec("llama-4-scout")
    assert spec.vision_tower is not None and spec.vision_tower.params == 871_932_416
    assert spec.vision_tower.tokens_per_image == 0  # tiled images: no encoder profile estimated
    r = engine_fit("vllm", spec, H100, [*LLMD_ARGS, "tensor_parallel_size=4"], version="0.19.0",
                   weight_format="bf16", gpus=4)
    assert r.per_gpu.weights_bytes / GIB == pytest.approx(53.12, rel=0.03)
    assert r.per_gpu.kv_cache_bytes / GIB == pytest.approx(16.75, rel=0.05)


def test_qwen3_vl_tower_counts_its_deepstack_mergers() -> None:
    """Qwen/Qwen3-VL-8B-Instruct config.json (https://huggingface.co/Qwen/Qwen3-VL-8B-Instruct/blob/main/config.json):
    27 blocks of 15,239,504, Conv3d patches 1,770,624, 2,304 x 1,152 positions, the merger (40,119,040) and three
    DeepStack mergers (40,125,952 each): 576.4 M, the model card's 8.77 B less the 8.19 B language model."""
    config = {"text_config": {"hidden_size": 4096},
              "vision_config": {"deepstack_visual_indexes": [8, 16, 24], "depth": 27, "hidden_size": 1152,
                                "in_channels": 3, "intermediate_size": 4304, "model_type": "qwen3_vl",
                                "num_heads": 16, "num_position_embeddings": 2304, "out_hidden_size": 4096,
                                "patch_size": 16, "spatial_merge_size": 2, "temporal_patch_size": 2}}
    tower = _spec("qwen3-vl-8b").vision_tower
    assert tower == vision_tower_from_config(config)
    assert tower is not None and tower.params == 576_388_336


def test_a_multimodal_model_that_does_not_fit_is_offered_text_only() -> None:
    """Gemma 3 27B in bf16 on a 56 GiB device: the 0.8 GiB tower and the encoder profile are what the KV cache lacks
    for one 2,048-token sequence."""
    spec = _spec("gemma-3-27b")
    card = DeviceMemory("56 GiB device", int(56 * GIB))
    r = engine_fit("vllm", spec, card, ["gpu_memory_utilization=0.95", "max_model_len=2048"], version="0.19.0",
                   weight_format="bf16")
    assert not r.fits
    texts = [c.text for c in r.changes]
    assert any("--limit-mm-per-prompt" in t for t in texts)
    change = next(c for c in r.changes if "--limit-mm-per-prompt" in c.text)
    assert """--limit-mm-per-prompt '{"image": 0}'""" in change.command


def test_catalog_gemma4_tower_is_the_bias_free_gated_one_of_its_checkpoint() -> None:
    spec = _spec("gemma-4-31b")
    assert spec.vision_tower == vision_tower_from_config(GEMMA4_31B_CONFIG)
    assert spec.vision_tower is not None and spec.vision_tower.gated
    assert spec.vision_tower.params == 575_743_536 - 27 * 144
    # the SigLIP layer (biases, two-matrix MLP, no position table) would count 418.5 M
    siglip = vision_tower_from_config({**GEMMA4_31B_CONFIG,
                                       "vision_config": {**GEMMA4_VISION_CONFIG, "model_type": "siglip_vision_model"}})
    assert siglip is not None and siglip.params < 0.42e9
    # the token budget per image is configurable (70 to 1120): unknown, so no encoder profile is estimated
    assert spec.vision_tower.tokens_per_image == 0
    assert spec.sliding_window == 1024 and spec.sliding_window_layers == 50 and spec.tied_embeddings
