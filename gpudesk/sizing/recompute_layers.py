"""Partial activation recompute: full recompute (checkpointing) of only some of the layers.

A run may checkpoint only part of its transformer layers and keep every activation of the others:

- Megatron-LM ``--recompute-granularity full --recompute-method block --recompute-num-layers N``: "block will
  recompute the input activations for only a set number of transformer layers per pipeline stage. The rest of the
  layers in the pipeline stage will not have any activations recomputed"; ``recompute_num_layers`` is "the number
  of transformer layers to recompute within each pipeline stage" (Megatron-LM d98e8a64dd, 2026-08-22,
  ``megatron/core/transformer/transformer_config.py`` ``recompute_method`` / ``recompute_num_layers``). The loop is
  ``megatron/core/recompute.py`` (last changed acc7e64457): under ``block`` layer ``layer_idx`` of the rank's
  ``num_layers_per_pipeline_rank`` runs under ``tensor_parallel.checkpoint`` when ``layer_idx <
  recompute_num_layers`` (past any FP8 slots skipped), plainly otherwise. ``--recompute-method uniform`` checkpoints
  every layer (in groups of N), which is ``recompute full``.
- torchtitan ``activation_checkpoint.mode = "selective"`` with a number ``k`` as ``selective_ac_option``:
  "Checkpoint every `ac_freq` of the modules passed to this function" (``ptd_checkpoint_wrapper._count += 1``;
  ``if not ac_freq or ptd_checkpoint_wrapper._count % ac_freq == 0``: wrapped, else returned as is; torchtitan
  d9898423e, 2025-01-16, ``torchtitan/parallelisms/parallelize_llama.py`` lines 277-285), so ``layers // k`` of the
  blocks are recomputed: type ``--recompute full --recompute-layers (layers // k)``.

Per layer, a checkpointed layer keeps its input (``2 s b h`` bytes, Korthikanti et al. 2022, arXiv 2205.05198,
section 5: full recompute), a kept layer Korthikanti's whole no-recompute set (``s b h (34 + 5 a s / h)`` for the
paper's MLP, :func:`gpudesk.sizing.activations.activation_bytes_per_layer`). The stage's activations are the sum over
its layers; the working set of the one layer being recomputed in backward is still counted once (an upper bound when
the recomputed layers are the stage's first ones, Megatron's ``block``: their backward comes after the kept layers'
activations are freed).

The setting is the number of layers of each pipeline stage that are recomputed (the whole model's without pipeline
parallelism; each model chunk's under an interleaved schedule, where Megatron builds one ``TransformerBlock`` a
chunk), as Megatron's flag counts them; it is read with ``recompute full`` only, in full training.
"""

from __future__ import annotations

from gpudesk.i18n import _, ngettext
from gpudesk.sizing.errors import SizingError

RECOMPUTE_LAYERS_SOURCE = ("Megatron-LM megatron/core/transformer/transformer_config.py recompute_method block, "
                           "recompute_num_layers; megatron/core/recompute.py; torchtitan parallelize_llama.py "
                           "selective_ac_option (every k-th block); Korthikanti et al. 2022 (arXiv 2205.05198) "
                           "Table 2")


def check_recompute_layers(value: int | None, *, mode: str, recompute: str) -> int | None:
    """``value`` checked: a whole number, given with full training and ``recompute full`` only (its range, 1 to the
    layers of a stage, needs the model: :func:`check_recompute_layers_count`).

    Raises:
        SizingError: a value that is not a whole number, or one given where nothing reads it.
    """
    if value is None:
        return None
    if type(value) is not int:
        raise SizingError("recompute_layers", _(
            "must be a whole number of layers, got {value}.").format(value=value))
    if mode != "train" or recompute != "full":
        raise SizingError("recompute_layers", _(
            "the number of recomputed layers applies to full training with recompute full; leave it out."))
    return value


def check_recompute_layers_count(value: int | None, *, model: str, stage_layers: float, stages: int) -> None:
    """Refuse a count of recomputed layers outside 1 to the layers of a pipeline stage (qa51 D3).

    Megatron-LM's ``recompute_num_layers`` counts layers within each pipeline stage (module doc), so more than the
    stage holds names layers that do not exist; 0 recomputes none, which is recompute off, not full.

    Raises:
        SizingError: field ``recompute_layers``, naming the model's layers (per stage with pipeline stages).
    """
    if value is None or stage_layers <= 0 or 1 <= value <= stage_layers:
        return
    if stages > 1:
        text = _("{model} has {layers:g} layers in each of its {stages} pipeline stages, got {value}: give 1 to "
                 "{layers:g} (0 recomputes no layer: that is recompute off).")
    else:
        text = ngettext("{model} has {layers:g} layer, got {value}: give 1 to {layers:g} (0 recomputes no layer: "
                        "that is recompute off).",
                        "{model} has {layers:g} layers, got {value}: give 1 to {layers:g} (0 recomputes no layer: "
                        "that is recompute off).", int(stage_layers))
    raise SizingError("recompute_layers", text.format(model=model, layers=stage_layers, stages=stages, value=value))


def recomputed_share(recompute_layers: int | None, stage_layers: float) -> float:
    """The share of a stage's ``stage_layers`` layers that are recomputed (1.0: all of them, None given)."""
    if recompute_layers is None or stage_layers <= 0:
        return 1.0
    return min(1.0, recompute_layers / stage_layers)


def recompute_layers_note(recompute_layers: int, stage_layers: float) -> tuple[str, str]:
    """The assumption line of a partial recompute."""
    recomputed = min(float(recompute_layers), stage_layers)
    return (_("activations: {recomputed:g} of the {layers:g} layers of each pipeline stage (of the model without "
              "pipeline parallelism) are recomputed and keep only their input; the other {kept:g} keep every "
              "activation").format(recomputed=recomputed, layers=stage_layers, kept=stage_layers - recomputed),
            RECOMPUTE_LAYERS_SOURCE)
