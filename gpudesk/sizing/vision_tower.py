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
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class VisionTower:
    """A ViT-style vision encoder: ``layers`` of width ``hidden_size``, and its parameters with the projector."""

    layers: int
    hidden_size: int
    params: int


def _int(cfg: dict[str, Any], *keys: str) -> int:
    for key in keys:
        value = cfg.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            return int(value)
    return 0


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
    per_layer = 4 * h * h + 4 * h + 2 * h * inter + inter + h + 4 * h
    patch = _int(vision, "patch_size") or 14
    channels = _int(vision, "num_channels", "in_channels", "in_chans") or 3
    image = _int(vision, "image_size")
    positions = (image // patch) ** 2 if image else 0
    text_config = cfg.get("text_config")
    text: dict[str, Any] = text_config if isinstance(text_config, dict) else cfg
    text_hidden = _int(text, "hidden_size") or _int(vision, "out_hidden_size")
    params = (layers * per_layer + channels * patch * patch * h + h + positions * h + 2 * h + h * text_hidden)
    return VisionTower(layers, h, params)


def vision_tower_bytes(tower: VisionTower | None, tensor_parallel: int = 1, dtype_bytes: int = 2) -> float:
    """One rank's share of the vision tower's 16-bit weights (engines shard its linear layers like the language
    model's: vLLM's and SGLang's SigLIP use column/row-parallel linears); 0 without a tower."""
    if tower is None:
        return 0.0
    return tower.params * dtype_bytes / max(1, tensor_parallel)
