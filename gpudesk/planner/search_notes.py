"""What the candidate search changed against the answers, said where the number is (issue 29: "one truth").

The search keeps the global batch and may cut the micro-batch, making up the difference with gradient
accumulation (gpudesk.planner.train_eval.micro_batches); it picks sharding, recomputation and a tensor-parallel
degree. Every view (table, live chart, header, sheet, CLI) prints a candidate's memory with these settings, so
the same sentence goes next to it: "micro-batch 4 → 1 x 4 accumulation to fit". Reads the plan document's option
(gpudesk.planner.document.PlanOption) and the requirement; Qt-free.
"""

from __future__ import annotations

from typing import Any

from gpudesk.i18n import _
from gpudesk.sizing.activations import recompute_value_text
from gpudesk.planner.document import PlanOption
from gpudesk.planner.requirement import Requirement


def search_changes(option: PlanOption, req: Requirement | None) -> list[str]:
    """Sentences naming each setting of ``option`` the search chose differently from the answers in ``req``;
    [] when it kept them all (or the requirement is unknown)."""
    if req is None:
        return []
    model = req.model
    out: list[str] = []
    asked, chosen = model.micro_batch_size, option.micro_batch_size
    steps = option.gradient_accumulation or 1
    if chosen is not None and chosen != asked:
        out.append(_("micro-batch {asked} → {chosen} x {steps} accumulation to fit").format(
            asked=asked, chosen=chosen, steps=steps))
    asked_tp = model.tensor_parallel or 1
    chosen_tp = option.tensor_parallel
    if chosen_tp is not None and chosen_tp != asked_tp:
        out.append(_("tensor parallel {asked} → {chosen}").format(asked=asked_tp, chosen=chosen_tp))
    if option.serving:
        return out  # a service's layout is its tensor-parallel degree (above); it has no sharding or recomputation
    for answer, value, label in ((model.sharding, option.sharding, _("sharding")),
                                 (model.recompute, option.recompute, _("recomputation"))):
        if label == _("recomputation"):
            answer = recompute_value_text(answer) if answer and answer != "auto" else answer
            value = recompute_value_text(value) if value else value
        if answer == "auto" and value:
            out.append(_("{setting} auto → {value}").format(setting=label, value=value))
        elif answer and value and answer != value:
            out.append(_("{setting} {asked} → {value}").format(setting=label, asked=answer, value=value))
    return out


def applied_settings(option: PlanOption) -> dict[str, dict[str, Any]]:
    """The profile sections that make the answers match ``option`` ("Apply this option"): the micro-batch,
    sharding, recomputation and tensor-parallel degree the search chose (the global batch is kept)."""
    model: dict[str, Any] = {}
    if option.micro_batch_size is not None:
        model["micro_batch_size"] = option.micro_batch_size
    if option.tensor_parallel is not None:
        model["tensor_parallel"] = option.tensor_parallel
    if not option.serving:  # a service has no sharding / recomputation answers
        if option.sharding:
            model["sharding"] = option.sharding
        if option.recompute:
            model["recompute"] = option.recompute
    return {"model": model} if model else {}
