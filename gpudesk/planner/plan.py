"""``plan(req, catalog) -> Plan``: classify the workload, enumerate and evaluate every catalog option, apply
the stack and operations gates, price each candidate over three years, and rank them."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from gpudesk.i18n import _, ngettext
from gpudesk.planner.binding import deadline_binding, gpu_limit_binding, over_gpu_limit_options
from gpudesk.planner.candidates import PlanContext, placements, servers_for, training_counts
from gpudesk.units import format_gib
from gpudesk.planner.classify import LARGE, MULTIMODAL, classify
from gpudesk.planner.errors import PlanInputError
from gpudesk.planner.gates import gpu_gates, kind_gates, market_statement, server_gates
from gpudesk.planner.packages import package_warning, per_device_price
from gpudesk.planner.prices import (
    GpuPrice,
    cloud_rate,
    normalise_user_prices,
    price_unknown_text,
    resolve_gpu_price,
)
from gpudesk.planner.rank import (
    closest_to_deadline,
    explain_ranking,
    hardware_usd,
    rank,
)
from gpudesk.planner.requirement import Requirement, raise_problems
from gpudesk.planner.results import Candidate, Plan, Rejected
from gpudesk.planner.serve_eval import evaluate_inference
from gpudesk.planner.train_step import ranking_change_notes
from gpudesk.planner.tco import compute_tco, gpu_dollar_multiplier, rent_vs_buy
from gpudesk.planner.train_eval import evaluate_training
from gpudesk.planner.workload import (
    expert_count_problem,
    gpu_count_step,
    memory_workload,
    profile_problems,
    resolve_model,
)
from gpudesk.catalog.catalog import Catalog
from gpudesk.catalog.device_terms import GPU_TERM, in_device_terms, vendor_device_term
from gpudesk.catalog.records import GPU, Price, Server
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.memory import estimate_memory
from gpudesk.sizing.memory_inference import resolve_weight_format
from gpudesk.sizing.shapes import ModelSpec

__all__ = ["memory_workload", "plan", "resolve_model"]


def _plan_warnings(req: Requirement, spec: ModelSpec) -> list[str]:
    d = req.data
    out = []
    if spec.shape_is_guess:
        out.append(_("Model shape inferred from {params:,} parameters (a guess): give a config.json for exact memory "
                     "figures").format(params=spec.params))
    if d.dataset_bytes and d.sample_count and d.sample_bytes:
        implied = d.sample_count * d.sample_bytes
        ratio = d.dataset_bytes / implied
        if ratio < 0.5 or ratio > 2:
            # Both answers are kept as entered (the seed article's case itself gives 20 M pairs of 2 MB images
            # and "12 TB"); the note says which one the checks use, what that changes and the one-line fix.
            out.append(_("Note on the data answers: {samples:,} samples x {sample_mb:g} MB make {implied_tb:.1f} TB, "
                         "while the dataset size is {dataset_tb:.1f} TB. The data-rate and storage checks use the "
                         "per-sample size ({sample_mb:g} MB, {rate_ratio:.1f}x the read rate of {dataset_tb:.1f} TB per "
                         "epoch). If {dataset_tb:.1f} TB is the size read per epoch, set data.sample_bytes to "
                         "{implied_sample_bytes:,} (its size per sample).").format(
                samples=d.sample_count, sample_mb=d.sample_bytes / 1e6, implied_tb=implied / 1e12,
                dataset_tb=d.dataset_bytes / 1e12, rate_ratio=implied / d.dataset_bytes,
                implied_sample_bytes=round(d.dataset_bytes / d.sample_count)))
    if req.model.mode != "inference" and d.modality in ("image-text", "video") and not req.model.train_flops_per_sample:
        out.append(_("Training FLOPs count the language model's {tokens} tokens per sample only; add the vision "
                     "encoder's work through model.train_flops_per_sample for a tighter time estimate").format(
            tokens=req.model.seq_len_tokens))
    if req.model.mode != "inference" and req.workload.target_qps and req.workload.training_share >= 1:
        out.append(_('workload.target_qps {qps:g} is not sized by this plan: it sizes the {mode} job (training share '
                     '{share:.0%}); plan the serving side separately with mode = "inference"').format(
            qps=req.workload.target_qps, mode=req.model.mode, share=req.workload.training_share))
    if req.model.moe_permute_fusion is not None and not spec.moe_experts:
        # The setting acts on the routed experts' token permutation only (gpudesk.sizing.speed_train); said, not
        # dropped unseen, as estimate speed refuses --moe-permute-fusion on a dense model.
        out.append(_("MoE token permutation (model.moe_permute_fusion) is set, but {model} has no experts: it does "
                     "not change this plan; leave it at the framework default").format(model=spec.name))
    if req.software.libraries:
        out.append(_("Pin and test the listed libraries on the delivered system: {libraries}").format(
            libraries=", ".join(req.software.libraries)))
    return out


def _dedupe_rejections(rejected: list[Rejected]) -> list[Rejected]:
    """One entry per (GPU, count, reasons): the same memory verdict in six chassis is one rejection."""
    seen: dict[tuple[str, int, tuple[str, ...]], Rejected] = {}
    for r in rejected:
        key = (r.gpu_id, r.count, tuple(r.reasons))
        if key not in seen:
            seen[key] = r
    return list(seen.values())


def _with_whole_units(counts: list[int], server: Server, max_gpus: int) -> list[int]:
    """Training counts for ``server``: ``counts`` plus every whole sale unit up to ``max_gpus`` when the chassis is
    sold as a rack of more GPUs than a board (a GB200 NVL72 rack: 72, 144, ...), so the job can use all it buys."""
    unit = server.sale_unit_gpus
    if server.sale_unit != "rack" or unit <= 1:
        return counts
    return sorted(set(counts) | set(range(unit, max_gpus + 1, unit)))


def _bought(c: Candidate, server: Server) -> None:
    """Record the GPUs paid for when the chassis is sold in larger units than the option runs on (a whole NVL72
    rack for 5 GPUs), and say so: the price and TCO are for what is bought."""
    bought = server.gpus_bought(c.count)
    if bought == c.count:
        return
    c.gpus_bought = bought
    units = bought // max(1, server.sale_unit_gpus)
    c.warnings.append(ngettext(
        "{server} is sold only as a whole rack of {unit} GPUs: the price and TCO are for the {bought} GPUs of {units} "
        "rack bought; this option runs on {count} of them ({spare} spare)",
        "{server} is sold only as a whole rack of {unit} GPUs: the price and TCO are for the {bought} GPUs of {units} "
        "racks bought; this option runs on {count} of them ({spare} spare)", units).format(
            server=server.name, unit=server.sale_unit_gpus, bought=bought, units=units, count=c.count,
            spare=bought - c.count))


def _price(c: Candidate, gpu: GPU, server: Server, req: Requirement, price: GpuPrice,
           prices: list[Price] | None = None) -> None:
    delay_days = (c.deadline_miss_s or 0.0) / 86400
    c.gpu_price = price
    _bought(c, server)
    c.tco = compute_tco(gpu_id=gpu.id, gpu_price_usd=price.price_usd, gpu_tdp_w=gpu.tdp_w, count=c.bought,
                        server_id=server.id, server_kind=server.kind, servers=c.servers,
                        host_price_usd=server.host_price_usd, server_power_w=server.power_w,
                        server_max_gpus=server.max_gpus, delay_days=delay_days, a=req.tco,
                        existing_host=bool(req.operations.existing_server) and server.id == req.operations.existing_server)
    rate = cloud_rate(gpu.id, prices or [])
    if rate is not None:
        job_hours = c.time_to_result_s / 3600 if c.time_to_result_s is not None else None
        # A service, or GPUs that also serve (training share < 1), are busy all the time; a training job's known
        # work is the job itself.
        ongoing = req.model.mode == "inference" or req.workload.training_share < 1
        c.rent = rent_vs_buy(rate, count=c.count, job_hours=job_hours, tco_total_usd=c.tco.total_usd, a=req.tco,
                             ongoing=ongoing)
        c.rationale.append((c.rent.describe(c.count), _("gpudesk catalog prices: {url}").format(url=rate.source_url)))
        growth = req.operations.growth_gpus_6_months
        if c.rent.basis == "job" and growth and c.rent.break_even_gpu_hours_per_year is not None:
            c.rationale.append((_("you plan {growth} more GPUs within 6 months: if that means ongoing work of at least "
                                  "{hours:,.0f} GPU-hours a year on these GPUs, buying wins; for this job alone, renting "
                                  "does").format(growth=growth, hours=c.rent.break_even_gpu_hours_per_year),
                                "requirement: operations.growth_gpus_6_months"))
    if not price.known:
        c.warnings.append(_("TCO unknown: {gpu} {price_unknown} (the catalog has no dated price; gpudesk does not "
                            "guess one)").format(gpu=gpu.name, price_unknown=price_unknown_text()))
    for item in c.tco.missing:
        if not item.startswith("GPU price"):  # Tco.missing: "host price of <server id>"
            c.warnings.append(_("TCO unknown: no sourced host price of {server_id} in the catalog ({server}: "
                                "{price_unknown}; gpudesk does not guess one); set tco.host_price_overrides_usd in the "
                                "profile").format(server_id=server.id, server=server.name,
                                                  price_unknown=price_unknown_text()))
    c.rationale.append((price.describe(), {"requirement": "requirement: tco.gpu_price_overrides_usd",
                                           "user": _("your prices (Catalog tab, user store)"),
                                           "catalog": "gpudesk catalog: gpus.price_usd, price_date, price_source"}.get(
                                               price.origin or "", "gpudesk catalog: no price")))
    c.rationale.extend(c.tco.assumptions)
    host_text = _host_price_text(server, req, existing=bool(req.operations.existing_server)
                                 and server.id == req.operations.existing_server)
    if host_text:
        c.rationale.append(host_text)
    if c.tco.total_usd is not None:
        c.rationale.append((_("{years:g}-year TCO ${total_usd:,.0f} (electricity ${usd_per_kwh:g}/kWh, PUE {pue:g}, "
                              "utilisation {utilisation:.0%})").format(
                                years=req.tco.years, total_usd=c.tco.total_usd, usd_per_kwh=req.tco.electricity_usd_per_kwh,
                                pue=req.tco.pue, utilisation=req.tco.utilisation),
                            "catalog.md 5.1 TCO model; TcoAssumptions.SOURCES"))
    hw = hardware_usd(c)
    if req.operations.budget_usd and hw is not None and hw > req.operations.budget_usd:
        c.warnings.append(_("Over budget: hardware ${hardware_usd:,.0f} > ${budget_usd:,.0f}").format(
            hardware_usd=hw, budget_usd=req.operations.budget_usd))
    growth = req.operations.growth_gpus_6_months
    if growth and c.count + growth > c.servers * server.max_gpus:
        c.warnings.append(_("No room for the {growth} GPUs planned within 6 months: {server} holds {max_gpus} per "
                            "server").format(growth=growth, server=server.name, max_gpus=server.max_gpus))


def _host_price_text(server: Any, req: Requirement, existing: bool) -> tuple[str, str] | None:
    """The host price used and where it comes from (rationale line; the sheet's server row shows it)."""
    if existing:
        return None  # compute_tco's own note says so
    override = req.tco.host_price_overrides_usd.get(server.id)
    if override is not None:
        return (_("host price ${price_usd:,.0f} per {server}: your quote").format(price_usd=override, server=server.name),
                "requirement: tco.host_price_overrides_usd")
    if server.host_price_usd is None:
        return None  # a class estimate (compute_tco's note) or unknown (a warning)
    source = server.host_price_source or _("no source given")
    return (_("host price ${price_usd:,.0f} per {server}: {source}").format(
                price_usd=server.host_price_usd, server=server.name, source=source),
            "gpudesk catalog: servers.host_price_usd, host_price_source")


def _unpriced_warning(ranked: list[Candidate]) -> str | None:
    """A plan warning naming the feasible options without a price (GPU or host), and the best break-even quote
    among them."""
    unpriced = [c for c in ranked if c.tco_3y_usd is None]
    if not unpriced:
        return None
    names = list(dict.fromkeys(c.gpu_name if not c.price_known else _("{server} (host)").format(server=c.server_name)
                               for c in unpriced))
    listed = ", ".join(names[:6]) + (", ..." if len(names) > 6 else "")
    text = ngettext("{n} option type among the candidates has no price ({names}): {price_unknown}; it ranks after the "
                    "priced options of its tier",
                    "{n} option types among the candidates have no price ({names}): {price_unknown}; they rank after "
                    "the priced options of their tier", len(names)).format(
        n=len(names), names=listed, price_unknown=price_unknown_text())
    best: dict[str, Candidate] = {}
    for c in unpriced:
        if c.break_even_rank == 1 and c.break_even_price_usd:
            if c.gpu_id not in best or c.break_even_price_usd > (best[c.gpu_id].break_even_price_usd or 0.0):
                best[c.gpu_id] = c
    contenders = sorted(best.values(), key=lambda c: -(c.break_even_price_usd or 0.0))[:3]
    if contenders:
        text = _("{text}. Would rank first with a quote per GPU below: {quotes}").format(text=text, quotes="; ".join(
            f"{c.bought} x {c.gpu_name} ${c.break_even_price_usd:,.0f}" for c in contenders))
    return text


def _name_the_device(c: Candidate, term: str) -> None:
    """The candidate's decisions, warnings and rank reason call its card what its vendor does ("HPU" for a Gaudi,
    "NPU" for an Ascend: :mod:`gpudesk.catalog.device_terms`); the sources are quoted as they are written."""
    if term == GPU_TERM:
        return
    if c.rank_reason:
        c.rank_reason = in_device_terms(c.rank_reason, term)
    c.warnings = [in_device_terms(w, term) for w in c.warnings]
    c.rationale = [(in_device_terms(decision, term), source) for decision, source in c.rationale]


def plan(req: Requirement, catalog: Catalog, price_overrides: dict[str, Any] | None = None) -> Plan:
    """Plan ``req`` against ``catalog`` (a gpudesk.catalog.Catalog).

    Args:
        price_overrides: the user's own GPU prices, as ``gpudesk.store.prices.price_overrides(db)`` returns them
            (``{gpu_id: {"price_usd", "note", "updated_at"}}``) or ``{gpu_id: usd}``; None uses catalog prices.
            The profile's ``tco.gpu_price_overrides_usd`` still wins (gpudesk.planner.prices).

    Returns:
        Plan with ranked candidates, rejections, the deadline verdict and rationale.

    Raises:
        PlanInputError: invalid or contradictory requirement (``.field`` names it).
        SizingError: a formula input out of range (``.field``).
    """
    raise_problems(profile_problems(req, catalog))
    user_prices = normalise_user_prices(price_overrides)
    spec = resolve_model(req.model, catalog)
    if req.model.mode == "inference":
        # "checkpoint": the format the published checkpoint ships in (gpt-oss MXFP4, DeepSeek-V3 FP8), so the
        # precision gates and compute rates see the real format.
        req = replace(req, model=replace(req.model, weight_format=resolve_weight_format(spec, req.model.weight_format)))
    kind, why = classify(req, spec)
    ctx = PlanContext.build(req, spec, catalog)
    rationale = [(_("model: {model}, {params:,} parameters").format(model=spec.name, params=spec.params),
                  spec.source or "requirement")] + why
    rationale.append((_("market {statement}").format(statement=market_statement(req.operations.market)),
                      "requirement: operations.market; gpudesk catalog: gpu_markets"))
    if req.model.tensor_parallel > 1:
        rationale.append((_("GPU counts are multiples of the tensor-parallel degree {tp}").format(tp=req.model.tensor_parallel),
                          "Megatron-LM tensor parallelism (Shoeybi et al. 2019, arXiv 1909.08053)"))
    if req.model.mode != "inference" and not spec.is_transformer and not req.model.train_flops_per_sample:
        raise PlanInputError("model.train_flops_per_sample", _("{model} is not a transformer with a known shape; give its "
                                                               "training FLOPs per sample (forward + backward)").format(
            model=spec.name))
    too_few = expert_count_problem(req)
    if too_few is not None:
        raise too_few
    if gpu_count_step(req) > req.model.tensor_parallel:
        rationale.append((_("GPU counts are multiples of expert parallel x tensor parallel = {step}").format(
            step=gpu_count_step(req)), "Megatron-Core parallel_state.initialize_model_parallel (expert layout)"))
    try:
        # The whole job on one GPU, unsharded: no tensor or expert parallelism (they need more GPUs; the search
        # tries only the counts their layout divides, gpu_count_step).
        whole = replace(req, model=replace(req.model, expert_parallel=1))
        job_memory = estimate_memory(spec, memory_workload(whole, gpus=1, sharding="ddp", tensor_parallel=1))
    except SizingError as exc:
        raise PlanInputError(f"model.{exc.field}", exc.reason) from exc
    candidates: list[Candidate] = []
    rejected: list[Rejected] = []
    inference = req.model.mode == "inference"
    open_gpus: list[tuple[Any, list[Any]]] = []  # GPUs past every gate, with their servers
    for gpu in ctx.gpus:
        reasons, warnings, gpu_why = gpu_gates(gpu, req, ctx.index)
        reasons += kind_gates(kind, gpu, req.operations.allow_consumer_cards)
        servers = servers_for(ctx, gpu)
        if not servers:
            reasons.append(_("no catalog server takes a {form_factor} {architecture} card").format(
                form_factor=gpu.form_factor, architecture=gpu.architecture))
        if reasons:
            rejected.append(Rejected(gpu.id, gpu.name, 0, None, None, reasons))
            continue
        if inference:
            results = evaluate_inference(ctx, gpu, servers)
        else:
            open_gpus.append((gpu, servers))
            results = []
            step = gpu_count_step(req)
            # Multiples of the layout's group (1, 2, 4, ... of it, and the largest under the limit).
            counts = ([step * n for n in training_counts(req.operations.max_gpus // step)]
                      if req.operations.max_gpus >= step else [])
            for server in servers:
                for count in _with_whole_units(counts, server, req.operations.max_gpus):
                    if count % step:
                        continue  # a tensor-parallel (x expert-parallel) group needs all its GPUs
                    n = placements(server, count)
                    if n is None:
                        continue
                    results.append(evaluate_training(ctx, gpu, server, count, n))
        by_id = {s.id: s for s in servers}
        for res in results:
            if isinstance(res, Rejected):
                rejected.append(res)
                continue
            server = by_id[res.server_id]
            blocked = server_gates(server, gpu, res.count, res.servers, req)
            if blocked:
                rejected.append(Rejected(gpu.id, gpu.name, res.count, server.id, res.interconnect, blocked))
                continue
            res.warnings.extend(warnings)
            res.rationale.extend(gpu_why)
            package = package_warning(gpu, res.count)
            if package:
                res.warnings.append(package)
            _price(res, gpu, server, req, per_device_price(
                resolve_gpu_price(gpu, req.tco.gpu_price_overrides_usd, user_prices, ctx.prices), gpu), ctx.prices)
            candidates.append(res)
    prefer_nvlink = kind in (LARGE, MULTIMODAL)
    ranked = rank(candidates, req.operations.budget_usd, prefer_nvlink=prefer_nvlink)
    explain_ranking(ranked, req.operations.budget_usd, prefer_nvlink, gpu_dollar_multiplier(req.tco))
    terms = {g.id: vendor_device_term(g.vendor, g.architecture) for g in ctx.gpus}
    for c in ranked:
        c.rationale.insert(0, (_("rank {reason}").format(reason=c.rank_reason), "gpudesk.planner.rank: fit, deadline/QPS, budget, NVLink for "
                                                        "large models, known 3-year TCO, TCO, time to result"))
        _name_the_device(c, terms.get(c.gpu_id, GPU_TERM))
    rejected = _dedupe_rejections(rejected)
    result = Plan(requirement=req, model=spec, workload_kind=kind, memory=job_memory, candidates=ranked,
                  rejected=rejected, warnings=_plan_warnings(req, spec), rationale=rationale)
    if not inference:
        result.rationale.extend(ranking_change_notes(ranked, req.workload.deadline_s))
    if user_prices:
        used = sorted({c.gpu_id for c in ranked if c.gpu_price and c.gpu_price.origin == "user"})
        result.rationale.append((ngettext("your prices used for {gpus} ({n} entered)",
                                          "your prices used for {gpus} ({n} entered)", len(user_prices)).format(
            gpus=", ".join(used) or _("no candidate GPU"), n=len(user_prices)), _("your prices (Catalog tab, user store)")))
    unpriced = _unpriced_warning(ranked)
    if unpriced:
        result.warnings.append(unpriced)
    over_limit: list[Candidate] = []
    if not inference and not any(c.fits for c in ranked):
        # Nothing fits within the GPU-count limit: which options would, and with how many GPUs.
        over_rejected, over_limit = over_gpu_limit_options(ctx, open_gpus)
        rejected = over_rejected + rejected
        result.rejected = rejected
        result.closest = over_limit[:3]
    if req.workload.deadline_s and not inference:
        result.deadline_met_by_any = any(c.meets_deadline and c.fits for c in ranked)
        if not result.deadline_met_by_any and not over_limit:
            result.closest = closest_to_deadline(ranked)
            if result.closest:
                best = result.closest[0]
                result.warnings.append(_("No candidate meets the deadline; the closest, {label}, misses it by "
                                         "{days:.1f} days").format(label=best.label,
                                                                   days=(best.deadline_miss_s or 0.0) / 86400))
                result.binding = deadline_binding(ctx, req, result.closest)
            else:
                result.warnings.append(_("No candidate fits under the safe line, so none can meet the deadline"))
    if not ranked or over_limit:
        result.binding = gpu_limit_binding(rejected, req.operations.max_gpus, inference,
                                           over_limit[0] if over_limit else None, req.workload.deadline_s)
        if result.binding is None and not ranked:
            result.warnings.append(_("Nothing in the catalog can run this job under the given constraints; see the "
                                     "rejections"))
    if ranked and not ranked[0].fits:
        result.warnings.append(_("No candidate stays under the safe line; the best uses {memory} per GPU").format(
            memory=format_gib(ranked[0].per_gpu_memory_bytes)))
    if result.binding is not None:
        result.warnings.append(result.binding.sentence())
        result.rationale.append((result.binding.text, "gpudesk.planner.binding: the control that rules every option out"))
        for change in result.binding.changes:
            result.rationale.append((change.text, f"gpudesk.planner.binding: smallest change of {change.field}"))
    return result
