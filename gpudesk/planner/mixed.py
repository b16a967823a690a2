"""Mixed workloads: GPUs that train part of the time and serve the rest (``workload.training_share`` below 1 with a
``workload.target_qps``). The plan document of such a requirement carries both answers: the training job's options
(time to result, cost against time) and, as ``serving_side``, the options that serve the same model at the target
QPS (replicas x TP, sustained QPS, TTFT/TPOT, cost per million tokens), so the results page and the sheet show both.

The serving side is a plan of its own (``plan()`` of the same model in inference mode, in the format its
checkpoint ships in), not a share of the training GPUs: the planner's serving model sizes replicas for a QPS
target, and the buyer compares buying for both with buying one set and sharing it. Qt-free.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from gpudesk.i18n import _
from gpudesk.planner.document import PlanDocument
from gpudesk.planner.errors import PlannerError
from gpudesk.planner.plan import plan
from gpudesk.planner.requirement import Requirement
from gpudesk.sizing.errors import SizingError


def is_mixed(req: Requirement) -> bool:
    """Training (or fine-tuning) that shares its GPUs with a service: a training share below 1 and a QPS target."""
    return req.model.mode != "inference" and req.workload.training_share < 1 and bool(req.workload.target_qps)


def serving_requirement(req: Requirement) -> Requirement:
    """The serving half of a mixed requirement: the same model, operations, software and TCO assumptions, served
    in inference mode at ``workload.target_qps`` (weights in the checkpoint's format, no training answers)."""
    return replace(
        req,
        name=_("{name} (serving side)").format(name=req.name),
        model=replace(req.model, mode="inference", weight_format="checkpoint"),
        workload=replace(req.workload, training_share=0.0, deadline_s=None, tokens_to_train=None),
    )


def plan_document(req: Requirement, catalog: Any, price_overrides: dict[str, Any] | None = None) -> PlanDocument:
    """``plan()`` as the plan document; for a mixed requirement with the serving side planned too.

    Raises:
        PlanInputError, SizingError: as :func:`gpudesk.planner.plan.plan` for the training side. A serving side
        that cannot be planned does not fail the plan: its reason becomes a plan warning.
    """
    document = PlanDocument.from_plan(plan(req, catalog, price_overrides))
    if not is_mixed(req):
        return document
    try:
        serving = PlanDocument.from_plan(plan(serving_requirement(req), catalog, price_overrides))
    except (PlannerError, SizingError) as exc:
        return replace(document, warnings=[*document.warnings, _(
            "The serving side ({qps:g} requests/s) could not be planned: {reason}").format(
            qps=req.workload.target_qps, reason=exc)])
    return replace(document, serving_side=serving)
