"""``plan_to_dict``: the JSON shape of a plan (keys carry units), shared by the CLI and the JSON sheet."""

from __future__ import annotations

import math
from typing import Any, TypeVar

from gpudesk import __version__
from gpudesk.planner.profile import requirement_to_dict
from gpudesk.planner.results import Candidate, Plan, Rejected

PLAN_JSON_VERSION = 1
T = TypeVar("T")


def _num(value: T) -> T | None:
    """``value``, with NaN and infinities as None (JSON has no such numbers)."""
    if value is None:
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def candidate_to_dict(c: Candidate) -> dict[str, Any]:
    """One candidate as JSON (bytes, seconds, USD).

    Price keys: ``gpu_price_usd`` (per GPU, null when unknown), ``gpu_price_origin`` ("requirement", "user",
    "catalog" or null), ``gpu_price_date``, ``gpu_price_source``, ``gpu_price_text`` (the rationale line),
    ``price_known``, ``break_even_price_usd`` (unknown price: the per-GPU quote below which it would beat the
    best priced option of its tier), ``rank_reason`` (why it ranks where it does). ``memory_assumptions``: the
    memory estimate's assumptions for this candidate's GPU count, sharding and recompute.
    """
    return {
        "gpu_id": c.gpu_id,
        "gpu_name": c.gpu_name,
        "count": c.count,
        "servers": c.servers,
        "server_id": c.server_id,
        "server_name": c.server_name,
        "interconnect": c.interconnect,
        "interconnect_name": c.interconnect_name,
        "network_link": c.network_link,
        "sharding": c.sharding,
        "recompute": c.recompute,
        "per_gpu_memory_bytes": c.per_gpu_memory_bytes,
        "per_gpu_memory_breakdown_bytes": dict(c.memory.breakdown),
        "memory_assumptions": [{"assumption": a, "source": s} for a, s in c.memory.assumptions],
        "usable_memory_bytes": c.usable_memory_bytes,
        "safe_line_bytes": c.safe_line_bytes,
        "headroom_to_safe_line_bytes": c.headroom_bytes,
        "fits": c.fits,
        "step_time_s": _num(c.step_time_s),
        "comm_share": _num(c.comm_share),
        "time_to_result_s": _num(c.time_to_result_s),
        "meets_deadline": c.meets_deadline,
        "deadline_miss_s": _num(c.deadline_miss_s),
        "qps_capacity": _num(c.qps_capacity),
        "qps_per_gpu": _num(c.qps_capacity / c.count) if c.qps_capacity is not None and c.count else None,
        "meets_qps": c.meets_qps,
        "data_rate_needed_bytes_per_s": _num(c.data_rate_needed_bytes_per_s),
        "data_rate_available_bytes_per_s": _num(c.data_rate_available_bytes_per_s),
        "gpu_power_w": c.gpu_power_w,
        "tco_3y_usd": _num(c.tco_3y_usd),
        "tco_breakdown_usd": {k: _num(v) for k, v in c.tco_breakdown_usd.items()},
        "gpu_price_usd": c.gpu_price.price_usd if c.gpu_price else None,
        "gpu_price_origin": c.gpu_price.origin if c.gpu_price else None,
        "gpu_price_date": c.gpu_price.date if c.gpu_price else None,
        "gpu_price_source": c.gpu_price.source if c.gpu_price else None,
        "gpu_price_text": c.gpu_price.describe() if c.gpu_price else None,
        "price_known": c.price_known,
        "host_price_known": c.host_price_known,
        "break_even_price_usd": _num(c.break_even_price_usd),
        "break_even_host_price_usd": _num(c.break_even_host_price_usd),
        "rank_reason": c.rank_reason,
        "micro_batch_size": c.micro_batch_size,
        "gradient_accumulation": c.gradient_accumulation,
        "tensor_parallel": c.tensor_parallel,
        "pipeline_parallel": c.pipeline_parallel,
        "expert_parallel": c.expert_parallel,
        "speed_error_band": _band(c),
        "flops_only_time_to_result_s": _num(c.flops_only_time_to_result_s),
        "dominated_by": c.dominated_by,
        "ttft_s": _num(c.ttft_s),
        "tpot_s": _num(c.tpot_s),
        "meets_latency": c.meets_latency,
        "rent": None if c.rent is None else {
            "usd_per_gpu_hour": c.rent.rate.usd_per_gpu_hour, "kind": c.rent.rate.kind, "provider": c.rent.rate.provider,
            "date": c.rent.rate.date, "source_url": c.rent.rate.source_url, "job_rent_usd": _num(c.rent.job_rent_usd),
            "horizon_rent_usd": _num(c.rent.horizon_rent_usd), "owned_usd": _num(c.rent.owned_usd),
            "break_even_utilisation": _num(c.rent.break_even_utilisation), "verdict": c.rent.verdict,
            "break_even_gpu_hours_per_year": _num(c.rent.break_even_gpu_hours_per_year),
            "job_gpu_hours": _num(c.rent.job_gpu_hours), "basis": c.rent.basis,
            "text": c.rent.describe(c.count)},
        "warnings": list(c.warnings),
        "rationale": [{"decision": d, "source": s} for d, s in c.rationale],
    }


def _band(c: Candidate) -> dict[str, Any] | None:
    """The training estimate's expected error band with the step time and time to result ranges it implies."""
    band = c.speed_error_band
    if band is None:
        return None
    out = band.to_dict()
    if c.step_time_s:
        out["step_time_range_s"] = list(band.time_range(c.step_time_s))
    if c.time_to_result_s:
        out["time_to_result_range_s"] = list(band.time_range(c.time_to_result_s))
    return out


def rejected_to_dict(r: Rejected) -> dict[str, Any]:
    """One rejected option as JSON."""
    return {"gpu_id": r.gpu_id, "gpu_name": r.gpu_name, "count": r.count, "server_id": r.server_id,
            "interconnect": r.interconnect, "reasons": list(r.reasons)}


def plan_to_dict(plan: Plan, max_rejected: int | None = None) -> dict[str, Any]:
    """The plan as a JSON-ready dict.

    Keys: ``version``, ``gpudesk_version``, ``name``, ``requirement`` (the TOML-shaped profile), ``workload_kind``, ``model`` (name, params, shape_is_guess,
    source), ``memory`` (``total_bytes``, ``breakdown_bytes``, ``assumptions``), ``candidates`` (ranked; see
    :func:`candidate_to_dict`), ``rejected``, ``deadline_met_by_any``, ``closest`` (candidates that miss the
    deadline by the least), ``binding`` (null, or what rules every option out: ``field``, ``label``, ``text`` and
    ``changes``, the smallest change of each control, each ``field``, ``label``, ``current``, ``value``, ``text``),
    ``warnings``, ``rationale``.
    """
    rejected = plan.rejected if max_rejected is None else plan.rejected[:max_rejected]
    spec = plan.model
    return {
        "version": PLAN_JSON_VERSION,
        "gpudesk_version": __version__,
        "name": plan.requirement.name,
        "requirement": requirement_to_dict(plan.requirement),
        "workload_kind": plan.workload_kind,
        "model": {"name": spec.name, "params": spec.params, "shape_is_guess": spec.shape_is_guess, "source": spec.source},
        "memory": {
            "total_bytes": plan.memory.total_bytes,
            "breakdown_bytes": dict(plan.memory.breakdown),
            "assumptions": [{"assumption": a, "source": s} for a, s in plan.memory.assumptions],
        },
        "candidates": [candidate_to_dict(c) for c in plan.candidates],
        "rejected": [rejected_to_dict(r) for r in rejected],
        "deadline_met_by_any": plan.deadline_met_by_any,
        "closest": [{"gpu_id": c.gpu_id, "count": c.count, "interconnect": c.interconnect,
                     "deadline_miss_s": _num(c.deadline_miss_s), "time_to_result_s": _num(c.time_to_result_s)}
                    for c in plan.closest],
        "binding": None if plan.binding is None else {
            "field": plan.binding.field, "label": plan.binding.label, "text": plan.binding.text,
            "changes": [{"field": c.field, "label": c.label, "current": _num(c.current), "value": _num(c.value),
                         "text": c.text} for c in plan.binding.changes]},
        "warnings": list(plan.warnings),
        "rationale": [{"decision": d, "source": s} for d, s in plan.rationale],
    }
