"""Pipeline-parallel timing beyond the bubble: the stage that holds the output head, and the stage-to-stage sends.

Two mechanisms of a pipelined step that the stage mean does not show:

- **The last stage holds the output head and the loss.** A pipeline runs at the pace of its slowest stage (every
  stage waits for its neighbours' sends each micro-batch; Narayanan et al. 2021, arXiv 2104.04473, section 2.2), and
  the output projection (vocabulary x hidden), the logits and the cross entropy all run on the last stage
  (Megatron-Core ``GPTModel`` builds ``output_layer`` only where ``post_process`` is set, i.e. on the last pipeline
  stage: megatron/core/models/gpt/gpt_model.py, github.com/NVIDIA/Megatron-LM; torchtitan's pipeline split puts
  ``norm`` and ``output`` on the last stage: torchtitan/distributed/pipeline_parallel.py). Layers are split in whole
  layers, and the balancing the frameworks offer counts the head as ONE layer: Megatron-Core
  ``account_for_loss_in_pipeline_split`` ("the loss layer will be treated as a standard transformer layer in the
  context of partition and placement for pipeline parallelism", megatron/core/transformer/transformer_config.py;
  with ``account_for_embedding_in_pipeline_split`` and ``--decoder-last-pipeline-num-layers`` for the same end).
  So the last stage runs ``layers/p - 1`` layers plus the head while the others run ``(layers + 1)/p`` layers:
  :func:`last_stage_extra_seconds`. A dense model's head costs about one layer (Llama 3 70B: 1.05 B head against
  0.86 B per layer) and the split stays balanced; a fine-grained MoE's head is several layers' worth of its active
  GEMMs (Qwen3-235B-A22B: 0.62 B head against 0.22 B active per layer, 2.8 layers; Qwen3-30B-A3B: 5.5), and the
  last stage paces the pipeline.
- **Interleaved schedules overlap the stage-to-stage sends with compute.** Megatron-Core posts the activation and
  gradient sends of the interleaved 1F1B schedule asynchronously and runs the next model chunk meanwhile
  (``--overlap-p2p-communication`` is on by default, ``--no-overlap-p2p-communication`` turns it off, and the
  plain 1F1B schedule turns it off: "Overlap P2P communication is disabled if not using the interleaved schedule",
  megatron/training/arguments.py, github.com/NVIDIA/Megatron-LM). So with ``vp > 1`` only the part of the sends
  longer than the compute they run under is exposed (:func:`exposed_pipeline_p2p_seconds`); with ``vp = 1`` they
  are all exposed.
"""

from __future__ import annotations

from gpudesk.sizing.checks import positive_float, positive_int


def _non_negative(name: str, value: float) -> float:
    return positive_float(name, value, allow_zero=True)


def last_stage_extra_seconds(head_s: float, layer_s: float, stages: int, head_units: int = 1) -> float:
    """Seconds per micro-batch the slowest pipeline stage runs beyond the stage mean when the last stage holds the
    output head (``head_s``: its GEMMs, logits and loss for one micro-batch) and the layers (``layer_s`` each) are
    split in whole layers with each of the ``head_units`` head passes counted as one layer (module docstring; a
    multi-token-prediction depth runs the head once more on the same stage: ``head_units = 1 + depths``).

    With ``u = head_units x layer``: stage mean ``L/p`` layers + ``head/p``; last stage ``(L+u)/p - u`` + head; the
    others ``(L+u)/p``. The slowest of the two less the mean is ``max(0, head - u) - (head - u)/p``: zero for one
    stage, ``(1 - 1/p)(head - u)`` when the head is the heavier, ``(u - head)/p`` when the layers are.

    Raises:
        SizingError: a negative time or a non-positive stage count.
    """
    p = positive_int("pp", stages)
    head = _non_negative("head_s", head_s)
    unit = _non_negative("layer_s", layer_s) * positive_int("head_units", head_units)
    if p == 1:
        return 0.0
    return max(0.0, head - unit) - (head - unit) / p


def exposed_pipeline_p2p_seconds(p2p_s: float, compute_s: float, virtual_stages: int, overlaps: bool) -> float:
    """The part of one micro-batch's stage-to-stage send time ``p2p_s`` not hidden under its ``compute_s``.

    With an interleaved schedule (``virtual_stages > 1``) on a framework that overlaps its sends (Megatron-Core's
    default, module docstring) only the excess over the compute is exposed; otherwise all of it.

    Raises:
        SizingError: a negative time or a non-positive virtual stage count.
    """
    v = positive_int("vp", virtual_stages)
    p2p = _non_negative("p2p_s", p2p_s)
    compute = _non_negative("compute_s", compute_s)
    if overlaps and v > 1:
        return max(0.0, p2p - compute)
    return p2p


__all__ = ["exposed_pipeline_p2p_seconds", "last_stage_extra_seconds"]
