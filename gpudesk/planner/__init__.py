"""The planner: Requirement (the five questions) -> workload kind -> candidates -> ranked Plan. Qt-free.

API summary (stable; the Plan tab, sheets and saved plans build on it)::

    from gpudesk.planner import (
        Requirement, DataIO, ModelMemory, WorkloadMix, SoftwareStack, Operations, TcoAssumptions,
        load_profile, save_profile, dumps_profile, requirement_from_dict, requirement_to_dict,
        plan, plan_to_dict, resolve_model, memory_workload,
        Plan, Candidate, Rejected, Tco, WORKLOAD_KINDS,
        PlannerError, PlanInputError, ProfileError,
    )

    req = load_profile("resources/examples/article-13b-finetune.toml")   # or Requirement(...) from the wizard
    req.validate()                     # PlanInputError(field="model.params", ...) on bad input
    result = plan(req, open_catalog())  # -> Plan (catalog prices only)
    result = plan(req, catalog, price_overrides=gpudesk.store.prices.price_overrides(db))  # + your prices
    result.workload_kind               # "large-model-training", ...
    result.memory                      # MemoryEstimate of the job on one GPU (total_bytes, breakdown)
    result.top                         # best Candidate or None
    for c in result.candidates:        # ranked: fits the safe line, meets deadline/QPS, lowest TCO, fastest
        c.gpu_id, c.gpu_name, c.count, c.interconnect, c.server_id, c.sharding, c.recompute
        c.memory.breakdown             # bytes per GPU by component; c.per_gpu_memory_bytes
        c.usable_memory_bytes, c.safe_line_bytes, c.headroom_bytes, c.fits
        c.step_time_s, c.comm_share, c.time_to_result_s, c.meets_deadline, c.deadline_miss_s
        c.qps_capacity, c.meets_qps, c.tco_3y_usd, c.tco_breakdown_usd, c.warnings, c.rationale
        c.gpu_price                    # GpuPrice: price_usd (None = unknown), origin "requirement"|"user"|"catalog"
        c.price_known, c.break_even_price_usd, c.rank_reason   # why it ranks where it does
    result.rejected                    # [Rejected(gpu_id, count, server_id, interconnect, reasons)]
    result.deadline_met_by_any, result.closest   # when nobody meets the deadline
    doc = PlanDocument.from_plan(result)   # the typed, versioned plan document every view reads
    doc.to_dict() == plan_to_dict(result)  # the JSON of ``gpudesk plan --format json`` and of saved plans
    PlanDocument.from_dict(saved)      # any saved version, migrated (docs/plan-document.md)

The live memory chart: ``spec = resolve_model(req.model, catalog)`` then
``gpudesk.sizing.estimate_memory(spec, memory_workload(req, gpus=N, sharding="zero3"))``.

Prices (gpudesk.planner.prices): the profile's ``tco.gpu_price_overrides_usd`` wins, then the user's own prices
(Catalog tab, user store), then the catalog's dated price; none is ever invented. A candidate whose GPU price is
unknown has no TCO, ranks after the priced options of its tier (ordered by its known costs), is marked
``PRICE_UNKNOWN_TEXT`` ("price unknown — enter your quote in the Catalog tab") and carries the break-even quote
below which it would outrank the best priced option.

Requirement sections and units: see gpudesk.planner.requirement; TCO defaults and their sources:
``TcoAssumptions.SOURCES``. Errors: PlanInputError (``.field`` = "section.name"), ProfileError (TOML),
and gpudesk.sizing.SizingError from the formulas (``.field``).
"""

from gpudesk.planner.classify import WORKLOAD_KINDS, classify
from gpudesk.planner.errors import PlanInputError, PlannerError, ProfileError
from gpudesk.planner.document import PlanDocument, PlanDocumentError, PlanOption, as_document
from gpudesk.planner.export import plan_to_dict
from gpudesk.planner.plan import memory_workload, plan, resolve_model
from gpudesk.planner.profile import (dumps_profile, load_profile, parse_profile_text, requirement_from_dict,
                                     requirement_to_dict, save_profile)
from gpudesk.planner.requirement import DataIO, ModelMemory, Operations, Requirement, SoftwareStack, WorkloadMix
from gpudesk.planner.results import Candidate, Plan, Rejected
from gpudesk.planner.tco import Tco, TcoAssumptions

__all__ = [
    "Candidate", "DataIO", "ModelMemory", "Operations", "Plan", "PlanDocument", "PlanDocumentError", "PlanInputError",
    "PlanOption", "as_document", "PlannerError", "ProfileError",
    "Rejected", "Requirement", "SoftwareStack", "Tco", "TcoAssumptions", "WORKLOAD_KINDS", "WorkloadMix",
    "classify", "dumps_profile", "load_profile", "memory_workload", "parse_profile_text", "plan", "plan_to_dict",
    "requirement_from_dict",
    "requirement_to_dict", "resolve_model", "save_profile",
]
