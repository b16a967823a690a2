"""The vision encoder of a multimodal checkpoint: its shape and parameters, from the config's ``vision_config``.

Serving engines load the whole checkpoint of a multimodal model (``Gemma3ForConditionalGeneration``,
``LlavaForConditionalGeneration``, ``Qwen2VLForConditionalGeneration``...): the language model and a ViT-style
vision tower with its projector into the language model's hidden size. gpudesk reads the language model through
``text_config``; this module counts what the tower adds (16-bit; quantisation configs leave it out of their
quantised modules, e.g. ``modules_to_not_convert``).

Parameters of one ViT encoder layer of width ``h`` and MLP width ``i`` (SigLIP/CLIP, transformers
``modeling_siglip.py`` ``SiglipEncoderLayer``: q, k, v, out projections with biases, fc1/fc2 with biases, two
LayerNorms): ``4 h^2 + 4 h + 2 h i + i + h + 4 h``; the patch embedding ``channels x patch^2 x h + h``, one position
embedding per patch (``(image_size / patch_size)^2 x h``), the post-LayerNorm ``2 h``, and a projector ``h x
text_hidden`` (Gemma 3's ``mm_input_projection_weight``; LLaVA's two-layer MLP is counted as one matrix, an
under-count of ``text_hidden^2``). Gemma 3's SigLIP-So400m (1,152 wide, 27 layers, MLP 4,304, 896 px / 14 px
patches): 420 M parameters with the projector (the model card's "400M vision encoder"). Qwen2-VL-style keys (``embed_dim``, ``depth``,
``mlp_ratio``) are read the same way.

Pixtral (``vision_config.model_type`` ``pixtral``: Mistral Small 3.1/3.2's ``Mistral3ForConditionalGeneration``;
transformers ``modeling_pixtral.py`` ``PixtralAttentionLayer``, vLLM ``model_executor/models/pixtral.py``) is a
different layer: q, k, v, out projections and a gated SiLU MLP (gate, up, down) without biases, two RMSNorms, so
``4 h^2 + 3 h i + 2 h`` per layer; a bias-free patch convolution, ``ln_pre`` and 2D RoPE instead of position
embeddings. Its projector (transformers ``modeling_mistral3.py`` ``Mistral3MultiModalProjector``): an RMSNorm, the
patch merger's ``(h m^2) x h`` linear over ``spatial_merge_size`` ``m``, then ``h x text_hidden`` and ``text_hidden x
text_hidden`` (``multimodal_projector_bias`` false). Mistral-Small-3.1-24B (1,024 wide, 24 layers, MLP 4,096, 1,540
px / 14 px patches, merge 2, text 5,120): 439 M parameters, 0.82 GiB in bf16.

Llama 4 (``llama4_vision_model``; transformers ``modeling_llama4.py`` ``Llama4VisionModel``) has the SigLIP layer,
a bias-free unfold patch embedding, a class embedding and one more position, LayerNorms before and after, then a
pixel-shuffle adapter (ratio ``r``: ``(h / r^2) x projector_input_dim`` and ``projector_input_dim x
projector_output_dim``, no biases) and a ``vision_output_dim x text_hidden`` projector: 1,408 wide, 34 layers, MLP
5,632, 336 px / 14 px tiles, r 0.5, 4,096: 871.9 M parameters, as a per-module count of Llama-4-Scout lists them
(fc1 23,068,672, fc2 16,777,216, linear_1 20,971,520). Its images are tiled (up to 16 tiles and a global one), so its
tokens per image are left unknown and vLLM's encoder profile is not estimated for it.

Qwen3-VL (``qwen3_vl``, ``qwen3_vl_moe``; transformers ``modeling_qwen3_vl.py`` ``Qwen3VLVisionModel``): SigLIP-style
blocks (fused qkv with bias, LayerNorms, a two-linear MLP with biases), a biased ``Conv3d`` patch embedding over
``temporal_patch_size`` frames, ``num_position_embeddings`` learned positions, and a patch merger (LayerNorm over
``h``, then ``4h x 4h`` and ``4h x out_hidden_size`` linears with biases for a 2 x 2 merge) plus one DeepStack merger
per ``deepstack_visual_indexes`` entry (the same, its LayerNorm over ``4h``). Qwen3-VL-8B (1,152 wide, 27 layers, MLP
4,304, 16 px patches, 2,304 positions, 3 DeepStack layers, out 4,096): 576 M parameters, the model card's 8.77 B
less the 8.19 B language model. Its images have no fixed size (the processor's pixel bounds), so tokens per image are
left unknown here.

Gemma 4 (``gemma4_vision``; transformers ``models/gemma4/modeling_gemma4.py`` ``Gemma4VisionEncoderLayer``) is
bias-free: q, k, v, out projections and a gated GELU MLP (gate, up, down), four RMSNorms (``4 h^2 + 3 h i + 4 h`` per
layer, plus a ``head_dim`` q and k norm each, not counted: the catalog keeps no vision head count); a bias-free
patch projection ``(channels x patch^2) x h``, a two-axis position table ``2 x position_embedding_size x h``, the
``std_bias``/``std_scale`` vectors, and the ``embed_vision`` projection ``h x text_hidden`` (its pre-projection
norm has no weight). gemma-4-31B-it (1,152 wide, 27 layers, MLP 4,304, 16 px patches, 10,240 positions, text
5,376): 575,739,648 parameters, the checkpoint's tensor list (575,743,536 with the 27 x 144 q/k norm weights). Its
images have a configurable token budget (``vision_soft_tokens_per_image``), so tokens per image are left unknown.

The catalog keeps these ``vision_config`` fields per model (``gpudesk/catalog`` ``ModelShape.vision_*``), so a
catalog model gets the same tower as its config file (:func:`vision_tower_from_fields`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class VisionTower:
    """A ViT-style vision encoder: ``layers`` of width ``hidden_size``, and its parameters with the projector;
    ``intermediate_size`` its MLP width (``gated``: gate and up projections), ``patches_per_image`` the patches of
    the largest image it takes and ``tokens_per_image`` the language-model tokens one such image becomes (0:
    unknown)."""

    layers: int
    hidden_size: int
    params: int
    intermediate_size: int = 0
    gated: bool = False
    patches_per_image: int = 0
    tokens_per_image: int = 0


def _int(cfg: dict[str, Any], *keys: str) -> int:
    for key in keys:
        value = cfg.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            return int(value)
    return 0


#: ``vision_config.model_type`` values with Pixtral's bias-free gated layers and Mistral 3's patch-merger projector.
PIXTRAL_MODEL_TYPES = frozenset({"pixtral"})
#: ``vision_config.model_type`` values with Qwen3-VL's Conv3d patches and DeepStack mergers.
QWEN3_VL_MODEL_TYPES = frozenset({"qwen3_vl", "qwen3_vl_moe"})
#: ``vision_config.model_type`` values with Llama 4's pixel-shuffle adapter.
LLAMA4_MODEL_TYPES = frozenset({"llama4_vision_model"})
#: ``vision_config.model_type`` values with Gemma 4's bias-free gated layers and two-axis position table.
GEMMA4_MODEL_TYPES = frozenset({"gemma4_vision"})


def _float(cfg: dict[str, Any], key: str) -> float:
    value = cfg.get(key)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else 0.0


def vision_tower_from_fields(model_type: str, hidden_size: int, layers: int, intermediate_size: int,
                             patch_size: int, image_size: int, text_hidden_size: int, *, channels: int = 3,
                             spatial_merge_size: int = 0, tokens_per_image: int = 0, output_dim: int = 0,
                             pixel_shuffle_ratio: float = 0.0, position_embeddings: int = 0,
                             deepstack_layers: int = 0, temporal_patch_size: int = 0) -> VisionTower:
    """The tower of ``layers`` ViT layers of width ``hidden_size`` and MLP ``intermediate_size`` (module docstring;
    ``image_size`` 0: no learned position embedding is counted). ``tokens_per_image``: the config's
    ``mm_tokens_per_image`` (Gemma 3: 256 after its 4x4 average pool); Pixtral's is counted from the image: one
    token per merged patch plus an image-break token per row, ``(s / m) x (s / m + 1)`` for ``s`` patches a side
    (vLLM ``models/pixtral.py`` ``get_num_image_tokens``: 3,080 for 1,540 px)."""
    h, inter, patch = hidden_size, intermediate_size, patch_size or 14
    side = image_size // patch if image_size else 0
    if model_type in PIXTRAL_MODEL_TYPES:
        merge = spatial_merge_size or 2
        per_layer = 4 * h * h + 3 * h * inter + 2 * h
        embed = channels * patch * patch * h + h  # patch_conv (no bias) and ln_pre
        projector = h + merge * merge * h * h + h * text_hidden_size + text_hidden_size * text_hidden_size
        merged = side // merge
        return VisionTower(layers, h, layers * per_layer + embed + projector, inter, True, side * side,
                           tokens_per_image or merged * (merged + 1))
    if model_type in GEMMA4_MODEL_TYPES:
        per_layer = 4 * h * h + 3 * h * inter + 4 * h
        embed = channels * patch * patch * h + 2 * position_embeddings * h + 2 * h
        return VisionTower(layers, h, layers * per_layer + embed + h * text_hidden_size, inter, True, 0, 0)
    per_layer = 4 * h * h + 4 * h + 2 * h * inter + inter + h + 4 * h
    if model_type in QWEN3_VL_MODEL_TYPES:
        merge = spatial_merge_size or 2
        wide = h * merge * merge
        out = output_dim or text_hidden_size
        merger = wide * wide + wide + wide * out + out
        embed = channels * (temporal_patch_size or 2) * patch * patch * h + h + position_embeddings * h
        mergers = (2 * h + merger) + deepstack_layers * (2 * wide + merger)
        return VisionTower(layers, h, layers * per_layer + embed + mergers, inter, False, 0, 0)
    if model_type in LLAMA4_MODEL_TYPES:
        out = output_dim or 4096
        ratio = pixel_shuffle_ratio or 0.5
        embed = channels * patch * patch * h + h + (side * side + 1) * h + 4 * h
        adapter = int(h / (ratio * ratio)) * out + out * out
        return VisionTower(layers, h, layers * per_layer + embed + adapter + out * text_hidden_size, inter, False,
                           side * side, 0)
    params = (layers * per_layer + channels * patch * patch * h + h + side * side * h + 2 * h + h * text_hidden_size)
    return VisionTower(layers, h, params, inter, False, side * side, tokens_per_image)


def vision_tower_from_config(cfg: dict[str, Any]) -> VisionTower | None:
    """The vision tower a top-level Hugging Face config describes (module docstring); None when the config has no
    ``vision_config`` or its width or depth is missing."""
    vision = cfg.get("vision_config")
    if not isinstance(vision, dict):
        return None
    h = _int(vision, "hidden_size", "embed_dim", "width")
    layers = _int(vision, "num_hidden_layers", "depth", "layers")
    if not (h and layers):
        return None
    mlp_ratio = vision.get("mlp_ratio")
    inter = _int(vision, "intermediate_size") or (int(h * mlp_ratio) if isinstance(mlp_ratio, (int, float)) else 4 * h)
    text_config = cfg.get("text_config")
    text: dict[str, Any] = text_config if isinstance(text_config, dict) else cfg
    text_hidden = _int(text, "hidden_size") or _int(vision, "out_hidden_size")
    return vision_tower_from_fields(
        str(vision.get("model_type") or ""), h, layers, inter, _int(vision, "patch_size"), _int(vision, "image_size"),
        text_hidden, channels=_int(vision, "num_channels", "in_channels", "in_chans") or 3,
        spatial_merge_size=_int(cfg, "spatial_merge_size") or _int(vision, "spatial_merge_size"), tokens_per_image=_int(cfg, "mm_tokens_per_image"),
        output_dim=_int(vision, "vision_output_dim", "projector_output_dim", "out_hidden_size"),
        pixel_shuffle_ratio=_float(vision, "pixel_shuffle_ratio"),
        position_embeddings=_int(vision, "num_position_embeddings", "position_embedding_size"),
        deepstack_layers=len(deepstack) if isinstance(deepstack := vision.get("deepstack_visual_indexes"), list) else 0,
        temporal_patch_size=_int(vision, "temporal_patch_size"))


def vision_tower_bytes(tower: VisionTower | None, tensor_parallel: int = 1, dtype_bytes: int = 2) -> float:
    """One rank's share of the vision tower's 16-bit weights (engines shard its linear layers like the language
    model's: vLLM's and SGLang's SigLIP use column/row-parallel linears); 0 without a tower.

    Quantised checkpoints keep the tower in 16 bits: llm-compressor's recipes for vision-language models list it in
    ``ignore`` (``["re:.*lm_head", "re:.*vision_tower.*", "re:.*multi_modal_projector.*"]``, "Most examples do not
    demonstrate quantizing separate vision encoder parameters",
    https://github.com/vllm-project/llm-compressor/blob/main/examples/multimodal_vision/README.md), as AutoAWQ and
    transformers' ``modules_to_not_convert`` do; RedHatAI's Mistral-Small-3.1 w8a8 printed 24.07 GiB where its
    INT8 text model is 23.2 GiB (llm-d-planner v0.19.0 log)."""
    if tower is None:
        return 0.0
    return tower.params * dtype_bytes / max(1, tensor_parallel)
