"""``plan_to_dict``: the JSON shape of a plan, which is the plan document's (gpudesk.planner.document)."""

from __future__ import annotations

from typing import Any

from gpudesk.planner.document import PLAN_DOCUMENT_VERSION, PlanDocument
from gpudesk.planner.results import Plan

PLAN_JSON_VERSION = PLAN_DOCUMENT_VERSION


def plan_to_dict(plan: Plan, max_rejected: int | None = None) -> dict[str, Any]:
    """``PlanDocument.from_plan(plan).to_dict(max_rejected)``: the plan as JSON-ready data (keys carry units).

    Keys (docs/plan-document.md): ``format`` ("gpudesk-plan"), ``version``, ``gpudesk_version``, ``name``,
    ``requirement`` (the TOML-shaped profile), ``workload_kind``, ``model``, ``memory``, ``candidates`` (ranked,
    with the settings the search chose), ``rejected``, ``deadline_met_by_any``, ``closest``, ``binding``,
    ``prices_used``, ``assumptions``, ``warnings``, ``rationale``.
    """
    return PlanDocument.from_plan(plan).to_dict(max_rejected)
