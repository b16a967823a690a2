"""What the candidate search changed against the answers, said where the number is (issue 29: "one truth").

The search keeps the global batch and may cut the micro-batch, making up the difference with gradient
accumulation (gpudesk.planner.train_eval.micro_batches); it picks sharding, recomputation and a tensor-parallel
degree. Every view (table, live chart, header, sheet, CLI) prints a candidate's memory with these settings, so
the same sentence goes next to it: "micro-batch 4 → 1 x 4 accumulation to fit". Reads the plan dictionary
(``plan_to_dict``) and the requirement profile dictionary; Qt-free.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpudesk.i18n import _


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def answered_model(profile: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """The ``[model]`` answers of a requirement profile dictionary ({} when absent)."""
    model = (profile or {}).get("model")
    return model if isinstance(model, Mapping) else {}


def search_changes(candidate: Mapping[str, Any], profile: Mapping[str, Any] | None) -> list[str]:
    """Sentences naming each setting of ``candidate`` the search chose differently from the answers in
    ``profile``; [] when it kept them all (or the profile is unknown)."""
    model = answered_model(profile)
    if not model:
        return []
    out: list[str] = []
    asked = _int(model.get("micro_batch_size"))
    chosen = _int(candidate.get("micro_batch_size"))
    steps = _int(candidate.get("gradient_accumulation")) or 1
    if asked is not None and chosen is not None and chosen != asked:
        out.append(_("micro-batch {asked} → {chosen} x {steps} accumulation to fit").format(
            asked=asked, chosen=chosen, steps=steps))
    asked_tp = _int(model.get("tensor_parallel")) or 1
    chosen_tp = _int(candidate.get("tensor_parallel"))
    if chosen_tp is not None and chosen_tp != asked_tp:
        out.append(_("tensor parallel {asked} → {chosen}").format(asked=asked_tp, chosen=chosen_tp))
    if candidate.get("qps_capacity") is not None:
        return out  # a service's layout is its tensor-parallel degree (above); it has no sharding or recomputation
    for key, label in (("sharding", _("sharding")), ("recompute", _("recomputation"))):
        answer, value = model.get(key), candidate.get(key)
        if answer == "auto" and value:
            out.append(_("{setting} auto → {value}").format(setting=label, value=value))
        elif answer and value and answer != value:
            out.append(_("{setting} {asked} → {value}").format(setting=label, asked=answer, value=value))
    return out


def applied_settings(candidate: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The profile sections that make the answers match ``candidate`` ("Apply this option"): the micro-batch,
    sharding, recomputation and tensor-parallel degree the search chose (the global batch is kept)."""
    model: dict[str, Any] = {}
    for key in ("micro_batch_size", "tensor_parallel"):
        value = _int(candidate.get(key))
        if value is not None:
            model[key] = value
    if candidate.get("qps_capacity") is None:  # a service has no sharding / recomputation answers
        for key in ("sharding", "recompute"):
            if candidate.get(key):
                model[key] = candidate[key]
    return {"model": model} if model else {}
