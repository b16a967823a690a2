"""JSON configuration sheet: the sheet's sections as one versioned document (units in the key names).

``{"format": "gpudesk-configuration-sheet", "version": 1, ...}`` with ``bill_of_materials`` (list of lines),
``memory_per_gpu`` (bytes), ``timing`` (seconds and rates), ``tco_usd``, ``risks``, ``checks_after_delivery``,
``rationale``, ``candidate`` (the option as the plan document writes it, gpudesk.planner.document) and
``alternatives``. Qt-free.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from gpudesk import __version__
from gpudesk.i18n import _
from gpudesk.planner.document import PlanDocument
from gpudesk.planner.requirement import Requirement
from gpudesk.planner.sheet import SHEET_FORMAT, SHEET_VERSION, ConfigurationSheet, SheetError, build_sheet

_TIMING_KEYS = {
    "Step time": "step_time_s",
    "TTFT (time to first token)": "ttft_s",
    "TPOT (time per output token)": "tpot_s",
    "Exposed communication share of a step": "comm_share",
    "Time to result": "time_to_result_s",
    "Deadline": "deadline_s",
    "Late by": "deadline_miss_s",
    "QPS the configuration sustains": "qps_capacity",
    "Target QPS": "target_qps",
    "Data rate needed": "data_rate_needed_bytes_per_s",
    "Data rate available": "data_rate_available_bytes_per_s",
}


def sheet_to_dict(sheet: ConfigurationSheet) -> dict[str, Any]:
    """The JSON-ready dictionary of a sheet (no NaN; None stays null)."""
    return {
        "format": SHEET_FORMAT,
        "version": SHEET_VERSION,
        "gpudesk_version": __version__,
        "title": sheet.title,
        "generated_at": sheet.generated_at,
        "workload_kind": sheet.workload_kind,
        "bill_of_materials": [asdict(line) for line in sheet.bom],
        "software": [{"component": k, "version": v} for k, v in sheet.software],
        "memory_per_gpu": {
            "breakdown_bytes": dict(sheet.memory_parts),
            "total_bytes": sheet.memory_total_bytes,
            "usable_bytes": sheet.usable_bytes,
            "safe_line_bytes": sheet.safe_line_bytes,
            "headroom_bytes": sheet.headroom_bytes,
        },
        "timing": {_TIMING_KEYS.get(name, name): value for name, value, _unit in sheet.timing},
        "meets_deadline": sheet.meets_deadline,
        "tco_usd": {"breakdown": dict(sheet.tco), "total_3y": sheet.tco_total_usd},
        "risks": list(sheet.risks),
        "checks_after_delivery": [asdict(check) for check in sheet.checks],
        "rationale": list(sheet.rationale),
        "assumptions": list(sheet.assumptions),
        "requirement": dict(sheet.requirement),
        "candidate": sheet.candidate.to_dict(),
        "alternatives": [a.to_dict() for a in sheet.alternatives],
    }


def sheet_to_json(sheet: ConfigurationSheet) -> str:
    """Pretty-printed JSON text.

    Raises:
        SheetError: a value is not representable in JSON (NaN or infinity in the plan).
    """
    try:
        return json.dumps(sheet_to_dict(sheet), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    except (TypeError, ValueError) as exc:
        raise SheetError(_("The sheet cannot be written as JSON: {reason}.").format(reason=exc)) from exc


def plan_to_json(plan: PlanDocument | dict[str, Any], candidate_index: int = 0, title: str | None = None,
                 profile: Requirement | dict[str, Any] | None = None, catalog: Any = None) -> str:
    """``sheet_to_json(build_sheet(plan, candidate_index, title, profile=profile, catalog=catalog))``."""
    return sheet_to_json(build_sheet(plan, candidate_index, title, profile=profile, catalog=catalog))


def write_json(plan: PlanDocument | dict[str, Any], path: str | Path, candidate_index: int = 0,
               title: str | None = None, profile: Requirement | dict[str, Any] | None = None,
               catalog: Any = None) -> Path:
    """Write the JSON sheet to ``path``.

    Raises:
        SheetError: no candidates, a non-JSON value, or the file cannot be written.
    """
    target = Path(path)
    text = plan_to_json(plan, candidate_index, title, profile, catalog)
    try:
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise SheetError(_("Cannot write {path}: {reason}.").format(path=target, reason=exc.strerror or exc)) from exc
    return target
