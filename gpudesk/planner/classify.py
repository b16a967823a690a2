"""Workload kind: the source article's four kinds plus mid-size training (seed/DIGEST.md sections 2 and 4).

Rules, first match wins:
1. inference mode -> ``high-concurrency-inference`` (the article's serving kind: memory pooling, MIG/vGPU, low
   power, throughput per watt; it calls QPS > 100 "high concurrency", and smaller services follow the same
   rules, e.g. the 0.23B risk model at QPS 40).
2. video or 3D volumes, or sequences >= 32K tokens -> ``multimodal-long-sequence``.
3. full training of > 7 B parameters -> ``large-model-training`` (article: 13B full fine-tune, >= 40 GB, NVLink).
4. 1-7 B parameters, or LoRA/QLoRA of a larger model -> ``mid-size-training`` (article 4: "mid-size training
   (1-7B)").
5. below 1 B parameters -> ``small-model-iteration`` (Kaggle, teaching, prototypes: 8-12 GB, consumer cards).
"""

from __future__ import annotations

from gpudesk import i18n
from gpudesk.i18n import N_, _
from gpudesk.planner.requirement import Requirement
from gpudesk.sizing.shapes import ModelSpec

SMALL = "small-model-iteration"
MID = "mid-size-training"
LARGE = "large-model-training"
INFERENCE = "high-concurrency-inference"
MULTIMODAL = "multimodal-long-sequence"
WORKLOAD_KINDS = (SMALL, MID, LARGE, INFERENCE, MULTIMODAL)
#: The kinds as people read them; the English text is the id itself (plans and JSON keep the id).
KIND_LABELS = {
    # Translators: a workload kind (the id of the source article's kind); say it in words
    SMALL: N_("small-model-iteration"),
    # Translators: a workload kind (the id of the source article's kind); say it in words
    MID: N_("mid-size-training"),
    # Translators: a workload kind (the id of the source article's kind); say it in words
    LARGE: N_("large-model-training"),
    # Translators: a workload kind (the id of the source article's kind); say it in words
    INFERENCE: N_("high-concurrency-inference"),
    # Translators: a workload kind (the id of the source article's kind); say it in words
    MULTIMODAL: N_("multimodal-long-sequence"),
}

_ARTICLE = "source article section 2.2 (four workload kinds) and section 4 (conversion rules)"


def kind_label(kind: str) -> str:
    """A workload kind id as the current language says it (an unknown id is shown as it is)."""
    return i18n._(KIND_LABELS[kind]) if kind in KIND_LABELS else kind


def classify(req: Requirement, spec: ModelSpec) -> tuple[str, list[tuple[str, str]]]:
    """Return (workload kind, rationale entries) for a validated requirement and its model shape."""
    m, d, w = req.model, req.data, req.workload
    p = spec.params
    if m.mode == "inference":
        qps = w.target_qps or 0
        if qps > 100:
            text = _("Inference at QPS {qps:g} (above the article's high-concurrency threshold of 100): size for "
                     "throughput per watt and per dollar").format(qps=qps)
        else:
            text = _("Inference at QPS {qps:g} (at or below the article's high-concurrency threshold of 100): size for "
                     "throughput per watt and per dollar").format(qps=qps)
        return INFERENCE, [(text, _ARTICLE)]
    if d.modality in ("video", "3d-volume") or m.seq_len_tokens >= 32768:
        if d.modality in ("video", "3d-volume"):
            text = _("Multimodal / long-sequence work (modality {modality}): memory and bandwidth both under "
                     "pressure").format(modality=d.modality)
        else:
            text = _("Multimodal / long-sequence work (sequence of {tokens} tokens): memory and bandwidth both under "
                     "pressure").format(tokens=m.seq_len_tokens)
        return MULTIMODAL, [(text, _ARTICLE)]
    if m.mode == "train" and p > 7.7e9:
        return LARGE, [(_("Full training of {params_b:.1f} B parameters (> 7 B): large-model kind, multi-GPU with NVLink "
                          "preferred").format(params_b=p / 1e9), _ARTICLE)]
    if p >= 1e9 or m.mode in ("lora", "qlora"):
        return MID, [(_("{mode} of {params_b:.2f} B parameters: mid-size training (1-7 B or adapter "
                        "fine-tuning)").format(mode=m.mode, params_b=p / 1e9), _ARTICLE)]
    return SMALL, [(_("{params_m:.0f} M parameters: small-model fast iteration (8-12 GB, consumer cards "
                      "acceptable)").format(params_m=p / 1e6), _ARTICLE)]
