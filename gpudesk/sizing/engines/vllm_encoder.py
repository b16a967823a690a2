"""vLLM V1's profile of a multimodal model's vision encoder, and the settings that switch the tower off.

Before the language model's dummy forward pass, V1's ``GPUModelRunner.profile_run`` runs the encoder on a batch of
dummy images and keeps their outputs in the encoder cache while the language model is profiled, then clears it
(``vllm/v1/worker/gpu_model_runner.py`` ``profile_run`` / ``_get_mm_dummy_batch``, read in the 0.19.0 wheel,
https://github.com/vllm-project/vllm/blob/v0.19.0/vllm/v1/worker/gpu_model_runner.py). The batch holds
``budget // tokens_per_image`` images of the largest size, where ``budget = max(max_num_batched_tokens,
tokens_per_image)`` (``vllm/v1/core/encoder_cache_manager.py`` ``compute_mm_encoder_budget``: the encoder compute
budget and cache size both default to ``max_num_batched_tokens``), capped by ``max_num_seqs`` x images per prompt
(``vllm/multimodal/encoder_budget.py`` ``MultiModalBudget._get_max_items``; images per prompt ``min(limit,
max_model_len // tokens_per_image)``, at least 1). So the profiled peak is the larger of

- the encoder's own run: per layer the residual stream and the MLP's widest moment (SigLIP: ``fc1``
  output and its activation, ``2 x intermediate``; Pixtral: the merged gate/up output and the product,
  ``3 x intermediate``) over every patch of the batch, 16-bit; attention runs per image with a fused kernel (no
  ``patches^2`` scores) and the pixels are left out (Gemma 3's 32 images: 154 MiB next to 2.1 GiB of MLP); and
- the language model's peak plus the cached outputs, ``images x tokens_per_image x text_hidden`` 16-bit values.

Gemma 3 at 8,192 batched tokens: 32 images of 256 tokens (4,096 patches each); Mistral Small 3.1: 2 images of
3,080 tokens (12,100 patches each).

Switches a user can type (``vllm serve`` flags): ``--limit-mm-per-prompt '{"image": 0}'`` sets the image limit;
with every modality at 0 the budget is 0 and nothing is profiled (``compute_mm_encoder_budget``: "All non-text
modalities supported by the model have been explicitly disabled via limit_mm_per_prompt"), and from 0.17 the tower
is not built either (``vllm/model_executor/models/interfaces.py`` ``_mark_tower_model``: "Tower model components
are automatically skipped when `--limit-mm-per-prompt` is set to zero for all of their modalities"; absent from
the 0.14.1 wheel, present in 0.17.0). ``--language-model-only`` (0.17 on; ``vllm/config/multimodal.py``: "disables
all multimodal inputs by setting all modality limits to 0") does the same. ``--skip-mm-profiling`` (0.10.1 on)
skips only the encoder profile ("shifts the responsibility to users for estimating the peak memory usage of the
activation of multimodal encoder and embedding cache").
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from gpudesk.i18n import _
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.vision_tower import VisionTower

#: First release whose tower is skipped when every modality's limit is 0 (``_mark_tower_model``, module docstring).
TOWER_SKIP_SINCE = (0, 17)
ACTIVATION_BYTES = 2


@dataclass(frozen=True)
class EncoderProfile:
    """What the encoder adds to V1's profile run: ``images`` of ``tokens_per_image``, the encoder run's own peak and
    the outputs the encoder cache holds through the language model's profile (bytes, one GPU)."""

    images: int
    tokens_per_image: int
    encoder_peak_bytes: float
    cached_output_bytes: float


def _not_a_limit(text: str) -> SizingError:
    return SizingError("limit_mm_per_prompt", _("{value!r} is neither a JSON object like {example} nor image=N.")
                       .format(value=text, example='{"image": 0}'))


def image_limit(value: object) -> int | None:
    """The image count of a ``limit_mm_per_prompt`` value as typed: JSON (``{"image": 0}``) or ``image=0``;
    None when not given or when it does not name images.

    Raises:
        SizingError: the value is neither form, or the count is not a whole number of 0 or more.
    """
    if value is None or value == "":
        return None
    text = str(value).strip()
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = dict(part.split("=", 1) for part in text.split(",") if "=" in part)
        if not parsed:
            raise _not_a_limit(text) from None
    if not isinstance(parsed, dict):
        raise _not_a_limit(text)
    count = parsed.get("image")
    if isinstance(count, dict):
        count = count.get("count")
    if count is None:
        return None
    try:
        number = int(str(count).strip())
    except ValueError:
        number = -1
    if number < 0:
        raise SizingError("limit_mm_per_prompt", _("the image count {count!r} is not a whole number of 0 or "
                                                   "more.").format(count=count))
    return number


def tower_loaded(release: tuple[int, int] | None, images: int | None, language_model_only: bool) -> bool:
    """Whether vLLM ``release`` (None: newest) builds the vision tower given the image limit (module docstring)."""
    disabled = language_model_only or images == 0
    return not (disabled and (release is None or release >= TOWER_SKIP_SINCE))


def encoder_profile(tower: VisionTower | None, text_hidden_size: int, batched_tokens: int, max_num_seqs: int,
                    max_model_len: int, images_per_prompt: int | None = None,
                    tensor_parallel: int = 1) -> EncoderProfile | None:
    """The encoder's part of V1's profile run (module docstring); None without a tower, with an image limit of 0
    or when the tower's tokens per image are unknown."""
    if tower is None or not tower.tokens_per_image or images_per_prompt == 0:
        return None
    per_item = tower.tokens_per_image
    budget = max(batched_tokens, per_item)
    limit = 999 if images_per_prompt is None else images_per_prompt
    per_prompt = max(1, min(limit, max_model_len // per_item))
    images = max(1, min(budget // per_item, max(1, max_num_seqs) * per_prompt))
    patches = images * tower.patches_per_image
    mlp = (3 if tower.gated else 2) * tower.intermediate_size
    tp = max(1, tensor_parallel)
    peak = patches * (2 * tower.hidden_size + mlp / tp) * ACTIVATION_BYTES
    cached = images * per_item * text_hidden_size * ACTIVATION_BYTES
    return EncoderProfile(images, per_item, float(peak), float(cached))
