"""The configuration sheet: what purchasing, budget and operations sign, built from the plan document.

Input is the plan document (gpudesk.planner.document.PlanDocument; a plan dictionary of any saved version is read
as one), so a saved plan exports without being re-run. :func:`build_sheet` picks one candidate (the top one by default) and gathers the sections the source
article's worked case lists (seed/DIGEST.md §4): GPUs, server, storage, network, software versions, expected
memory per GPU against the safe line, expected step time and time to result, the 3-year TCO table
(catalog.md §5.1), risks, and the checks to run after delivery (a 72-hour burn-in recorded with the Monitor,
nccl-tests bus bandwidth against the link's datasheet figure). Renderers: :mod:`sheet_markdown`,
:mod:`sheet_json`, :mod:`sheet_csv`; the PDF is the Markdown laid out by Qt (``gpudesk.ui.plan.sheet_pdf``).

Qt-free. Values stay in bytes, seconds and US dollars; None means "not known" and is printed "N/A".
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Any

from gpudesk.errors import GpudeskError
from gpudesk.planner.decision import binding_constraint
from gpudesk.planner.document import PlanDocument, PlanDocumentError, PlanOption, Sourced, as_document
from gpudesk.planner.errors import PlannerError
from gpudesk.planner.profile import requirement_from_dict
from gpudesk.planner.requirement import Requirement
from gpudesk.planner.search_notes import search_changes
from gpudesk.planner.serving_cost import cost_per_million_tokens_usd
from gpudesk.i18n import _
from gpudesk.planner.prices import price_unknown_text
from gpudesk.planner.profile import requirement_to_dict

SHEET_FORMAT = "gpudesk-configuration-sheet"
SHEET_VERSION = 1


class SheetError(GpudeskError):
    """A configuration sheet cannot be built or written (empty plan, bad candidate index, unwritable file)."""


@dataclass(frozen=True)
class BomLine:
    """One line of the bill of materials.

    Attributes:
        category: "GPU", "Server", "Storage", "Network", "Software", "Support".
        item: what to buy or install.
        quantity: how many (None for a line without a count, e.g. a version requirement).
        unit_price_usd, total_usd: prices in US dollars, None when not known.
        notes: free text (why, constraints).
        source: where the price or spec comes from (datasheet URL, catalog row, rule).
    """

    category: str
    item: str
    quantity: float | None = None
    unit_price_usd: float | None = None
    total_usd: float | None = None
    notes: str = ""
    source: str = ""


@dataclass(frozen=True)
class Check:
    """A check to run after delivery: what, how (a command or procedure), and the pass criterion."""

    name: str
    how: str
    passes_when: str


@dataclass(frozen=True)
class ConfigurationSheet:
    """Everything the exporters print, in printing order. Sizes in bytes, times in seconds, money in USD."""

    title: str
    generated_at: str
    workload_kind: str | None
    requirement: list[tuple[str, str]]
    candidate: PlanOption
    bom: list[BomLine]
    software: list[tuple[str, str]]
    memory_parts: list[tuple[str, int]]
    memory_total_bytes: int | None
    usable_bytes: int | None
    safe_line_bytes: int | None
    timing: list[tuple[str, float | None, str]]
    meets_deadline: bool | None
    tco: list[tuple[str, float | None]]
    tco_total_usd: float | None
    risks: list[str]
    checks: list[Check]
    alternatives: list[PlanOption]
    rationale: list[str]
    assumptions: list[str] = field(default_factory=list)
    #: Which ranked candidate the sheet describes (1 = the recommended one) and how many the plan ranked.
    candidate_number: int = 1
    candidate_count: int = 1
    #: The plan's market (operations.market), None for a plan saved without its requirement.
    market: str | None = None
    #: What the search changed against the answers for this option (gpudesk.planner.search_notes).
    search_changes: list[str] = field(default_factory=list)
    #: A service's 3-year TCO per million output tokens at the target QPS (gpudesk.planner.serving_cost).
    cost_per_million_tokens_usd: float | None = None
    #: The limit the option comes closest to (gpudesk.planner.decision), None when the requirement sets none.
    binding_constraint: str | None = None
    #: The answers that differ from the Requirement's defaults (what the printed sheet lists; ``requirement`` has
    #: every answer).
    requirement_answers: list[tuple[str, str]] = field(default_factory=list)
    #: A mixed workload's serving side (gpudesk.planner.mixed): its best option, the QPS target and the option's
    #: 3-year TCO per million output tokens; None for a training-only or serving-only plan.
    serving_option: PlanOption | None = None
    serving_target_qps: float | None = None
    serving_cost_per_million_tokens_usd: float | None = None

    @property
    def headroom_bytes(self) -> int | None:
        """Safe line minus the per-GPU need (negative: over the line); None when either is unknown."""
        if self.safe_line_bytes is None or self.memory_total_bytes is None:
            return None
        return self.safe_line_bytes - self.memory_total_bytes


def _whole_job_only(assumption: Sourced) -> bool:
    """An assumption of the plan's whole-job estimate (one GPU, DDP) that says nothing about a candidate's layout."""
    text = assumption.text.lower()
    return "data-parallel gpus" in text or text.startswith("activations: recompute")


def pick_candidate(plan: PlanDocument, index: int = 0) -> PlanOption:
    """The option at ``index`` (0 = top).

    Raises:
        SheetError: the plan has no candidates, or the index is out of range.
    """
    found = plan.candidates
    if not found:
        raise SheetError(_(
            "The plan has no candidates to put on a sheet: no GPU configuration was found. Relax the "
            "requirement (budget, deadline, existing servers) and plan again."
        ))
    if not 0 <= index < len(found):
        raise SheetError(_("Candidate {number} does not exist; the plan has {count} candidates.").format(
            number=index + 1, count=len(found)))
    return found[index]


def requirement_rows(profile: dict[str, Any]) -> list[tuple[str, str]]:
    """The requirement profile (TOML shape) as ``(section.key, value)`` rows, values as entered."""
    rows: list[tuple[str, str]] = []

    def walk(prefix: str, node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                walk(f"{prefix}.{key}" if prefix else str(key), value)
        elif isinstance(node, (list, tuple)):
            rows.append((prefix, ", ".join(str(v) for v in node)))
        elif node is not None:
            rows.append((prefix, str(node)))

    walk("", profile)
    return rows


def answered_rows(req: Requirement) -> list[tuple[str, str]]:
    """The requirement's answers that differ from a new plan's defaults (``Requirement()``), as ``(section.key,
    value)`` rows: what the user actually decided, without the 70 default keys."""
    defaults = dict(requirement_rows(requirement_to_dict(Requirement())))
    return [(key, value) for key, value in requirement_rows(requirement_to_dict(req))
            if key not in ("version", "name") and defaults.get(key) != value]


# Minimum Linux driver for each CUDA major release under minor-version compatibility (CUDA Toolkit release
# notes, "CUDA Toolkit and Minimum Required Driver Version for CUDA Minor Version Compatibility").
MIN_DRIVER_FOR_CUDA = {11: "450.80.02", 12: "525.60.13", 13: "580.65.06"}


def _software_rows(req: Requirement | None) -> list[tuple[str, str]]:
    if req is None:
        return []
    software = req.software
    rows: list[tuple[str, str]] = []
    if software.framework:
        rows.append((software.framework, software.framework_version or _("any supported version")))
    cuda = software.cuda_version
    if cuda:
        rows.append(("CUDA", cuda))
        try:
            major = int(cuda.split(".")[0])
        except ValueError:
            major = None
        if major in MIN_DRIVER_FOR_CUDA:
            rows.append((_("NVIDIA driver (Linux)"), _(">= {driver} (CUDA {major}.x minor-version compatibility)").format(
                driver=MIN_DRIVER_FOR_CUDA[major], major=major)))
    for library in software.libraries:
        name, _sep, version = library.partition("==")
        rows.append((name, version or _("as tested")))
    if software.fips:
        rows.append(("FIPS 140", _("validated OS and driver crypto modules required")))
    return rows


def _host_note(option: PlanOption) -> str:
    """Where the host price comes from: the option's "host price ..." rationale line (catalog source, your quote,
    an all-in rack price, a class estimate, or the existing server); "price unknown" when there is none."""
    if option.host_price_known is False:
        return "; " + _("host {price_unknown} (no sourced price; set tco.host_price_overrides_usd)").format(
            price_unknown=price_unknown_text())
    # The host price lines of the rationale (gpudesk.planner.plan._host_price_text, gpudesk.planner.tco) start with
    # "host" in English and "主机" in Chinese.
    starts = ("host price", "host ", _("host price"), _("host") + " ")
    for item in option.rationale:
        if item.text.startswith(starts):
            return f"; {item.text}"
    return ""


def _bom(option: PlanOption, req: Requirement | None, software: list[tuple[str, str]]) -> list[BomLine]:
    """Bill of materials: GPUs and hosts priced from the option's TCO lines, then storage, network, software."""
    tco = option.tco_breakdown_usd
    count = float(option.bought) if option.bought else None  # GPUs paid for (a whole NVL72 rack)
    servers = float(option.servers or 1)
    gpus_usd = tco.get("gpus")
    hosts_usd = tco.get("hosts")
    gpu_notes = _("catalog id {gpu_id}; {power_w} W for all GPUs at TDP").format(
        gpu_id=option.gpu_id, power_w=int(option.gpu_power_w) if option.gpu_power_w else "N/A")
    if option.bought > option.count:  # a chassis sold whole (an NVL72 rack): the job runs on part of it
        gpu_notes = _("catalog id {gpu_id}; sold as whole units of the server: {bought} bought, the option runs on "
                      "{count} ({power_w} W at TDP)").format(
            gpu_id=option.gpu_id, bought=option.bought, count=option.count,
            power_w=int(option.gpu_power_w) if option.gpu_power_w else "N/A")
    if option.gpu_price_unknown:
        gpu_notes = f"{price_unknown_text()}; {gpu_notes}"
    lines = [
        BomLine(
            "GPU",
            option.name or "GPU",
            count,
            gpus_usd / count if gpus_usd is not None and count else None,
            gpus_usd,
            notes=gpu_notes,
            source=option.price.text or _("gpudesk catalog (price, date and source per GPU row); your prices"),
        )
    ]
    if option.server_name or option.server_id:
        lines.append(
            BomLine(
                "Server",
                str(option.server_name or option.server_id),
                servers,
                hosts_usd / servers if hosts_usd is not None else None,
                hosts_usd,
                notes=_("catalog id {server_id}; chassis, CPUs, RAM and local NVMe").format(
                    server_id=option.server_id) + _host_note(option),
                source=_("gpudesk catalog servers table"),
            )
        )
    if (option.interconnect or "").startswith("nvlink-bridge") and option.count:
        lines.append(
            BomLine(
                "Network",
                _("2-way NVLink bridge (one per pair of cards)"),
                option.count // 2,
                None,
                None,
                notes=_("the step time assumes bridged pairs; no price in the catalog, ask the vendor (not in the TCO)"),
                source="GPU product brief (NVLink bridge connector); gpudesk.planner.candidates.bridge_pair_gbps",
            )
        )
    needed = option.data_rate_needed_bytes_per_s
    available = option.data_rate_available_bytes_per_s
    dataset = req.data.dataset_bytes if req else None
    if dataset or needed:
        parts = []
        if dataset:
            parts.append(_("at least {dataset_tb:,.1f} TB usable for the dataset").format(dataset_tb=dataset / 1e12))
        if needed:
            parts.append(_("sustained read >= {needed_mbps:,.0f} MB/s to feed the GPUs").format(needed_mbps=needed / 1e6))
        if available:
            parts.append(_("planned path delivers {available_mbps:,.0f} MB/s").format(available_mbps=available / 1e6))
        if req is not None and req.data.decode_path == "gpu":
            parts.append(_("GPU-side decoding (DALI / nvJPEG)"))
        lines.append(BomLine("Storage", "; ".join(parts), None, notes=_("data rate from the planner's I/O check"),
                             source="article section 4.3 (DALI + GPUDirect Storage)"))
    link_name = option.interconnect_name or option.interconnect
    if (option.count or 1) > 1:
        lines.append(BomLine("Network", _("{link} between the GPUs of each server").format(link=link_name), servers,
                             notes=_("link id {link_id}").format(link_id=option.interconnect),
                             source=_("gpudesk catalog links table")))
    else:
        lines.append(BomLine("Network", _("{link} host link (one GPU: no GPU-to-GPU traffic)").format(link=link_name),
                             None, notes=_("link id {link_id}").format(link_id=option.interconnect),
                             source=_("gpudesk catalog links table")))
    if servers > 1 and option.network_link:
        lines.append(BomLine("Network", _("{link} between servers (NICs, cables, switch ports)").format(
            link=option.network_link), servers, source="requirement operations.network_link"))
    network_usd = tco.get("network_install")
    if network_usd:
        lines.append(BomLine("Network", _("Network, cabling, transceivers and installation"), None, None, network_usd,
                             notes=_("share of hardware price (TCO assumption tco.network_install_fraction)"),
                             source="catalog.md 5.2: +10-15 % of CapEx"))
    for component, version in software:
        lines.append(BomLine("Software", f"{component} {version}".strip(), None, notes=_("version fixed by the requirement")))
    return lines


def post_delivery_checks(option: PlanOption, req: Requirement | None = None,
                         link_gbps_per_direction: float | None = None,
                         network_gbps_per_direction: float | None = None) -> list[Check]:
    """The acceptance checks for a delivered configuration (article §5: 72-hour stress test recorded by the
    monitor; catalog.md §1 and errata g: verify NVLink/PCIe with nccl-tests, measured about 80-88 % of spec).

    Across several servers nccl-tests runs one process per GPU under MPI (``-g`` is GPUs per process), and the
    bus bandwidth is bounded by the slower of the GPU link and the network link between servers."""
    count = option.count or 1
    servers = option.servers or 1
    link = str(option.interconnect_name or option.interconnect or _("the GPU interconnect"))
    if servers > 1 and option.network_link:
        network = option.network_link
        if link_gbps_per_direction and network_gbps_per_direction and network_gbps_per_direction < link_gbps_per_direction:
            link, link_gbps_per_direction = network, network_gbps_per_direction
        elif not network_gbps_per_direction:
            link, link_gbps_per_direction = _("the slower of {link} and {network}").format(link=link, network=network), None
    if link_gbps_per_direction:
        expected = _("all-reduce bus bandwidth at least {expected_gbps:,.0f} GB/s (80 % of {link}'s {gbps:g} GB/s per "
                     "direction)").format(expected_gbps=0.8 * link_gbps_per_direction, link=link,
                                          gbps=link_gbps_per_direction)
    else:
        expected = _("all-reduce bus bandwidth at least 80 % of {link}'s datasheet figure per direction").format(link=link)
    if servers > 1:
        per_server = -(-count // servers)
        run = _("mpirun -np {count} -N {per_server} all_reduce_perf -b 8 -e 4G -f 2 -g 1 (nccl-tests built with MPI=1, "
                "one process per GPU over {servers} servers; github.com/NVIDIA/nccl-tests)").format(
            count=count, per_server=per_server, servers=servers)
    else:
        run = f"all_reduce_perf -b 8 -e 4G -f 2 -g {count} (github.com/NVIDIA/nccl-tests)"
    checks = [
        Check(
            _("72-hour burn-in on real data"),
            _("Run the real training or serving job for 72 h while gpudesk's Monitor records (Monitor tab, "
              "Record); review the utilisation heat map and the event log afterwards."),
            _("no Xid errors, no uncorrectable ECC errors, no thermal or power-brake throttling, utilisation "
              "steady (median u >= 60 % when p < 85 %, nvidia-smi dmon columns)"),
        ),
        Check(
            _("Peak memory against the safe line"),
            _("Log torch.cuda.max_memory_allocated() and memory_reserved() after the first steps of the real job."),
            _("peak reserved below the safe line on this sheet"),
        ),
        Check(
            _("Driver, CUDA and framework versions"),
            "nvidia-smi; python -c 'import torch; print(torch.__version__, torch.version.cuda)'",
            _("the versions listed in the software section"),
        ),
    ]
    if req is not None and req.software.require_ecc:
        checks.append(Check(_("ECC enabled"), "nvidia-smi -q -d ECC",
                            _("Current ECC mode: Enabled on every GPU, no volatile uncorrectable errors")))
    if req is not None and req.software.fips:
        checks.append(Check(_("FIPS 140 mode"), _("Check the OS crypto policy and the driver's FIPS documentation"),
                            _("the host runs validated crypto modules (a property of the OS and driver, not the GPU)")))
    if count > 1:
        checks.insert(
            1,
            Check(
                _("nccl-tests all-reduce bandwidth"),
                _("{run}; nvidia-smi topo -m and nvidia-smi nvlink --status to confirm the links are up").format(run=run),
                expected,
            ),
        )
    return checks


def _link_gbps(catalog: Any, link_id: str | None) -> float | None:
    """Per-direction bandwidth of a catalog link (GB/s), or None without a catalog or for an unknown id."""
    if catalog is None or not link_id:
        return None
    try:
        return float(catalog.link(link_id).bandwidth_gbps_per_direction)
    except LookupError:
        return None


def _requirement(doc: PlanDocument, profile: Requirement | dict[str, Any] | None) -> Requirement | None:
    """The requirement the sheet prints: ``profile`` when given (a Requirement or its TOML-shaped dictionary),
    else the plan's own."""
    if isinstance(profile, Requirement):
        return profile
    if isinstance(profile, dict) and profile:
        try:
            return requirement_from_dict(profile)
        except PlannerError:
            return doc.requirement  # a profile that no longer reads: the plan's own requirement
    return doc.requirement


def build_sheet(plan: PlanDocument | dict[str, Any], candidate_index: int = 0, title: str | None = None,
                generated_at: str | None = None, profile: Requirement | dict[str, Any] | None = None,
                catalog: Any = None) -> ConfigurationSheet:
    """Gather the sheet for one option of a plan.

    Args:
        plan: the plan document (or a plan dictionary of any saved version, read as one).
        candidate_index: 0 for the top option.
        title: sheet title; defaults to the plan's name or "Configuration sheet".
        generated_at: UTC ISO time stamp (default: now).
        profile: the requirement (or its TOML-shaped dictionary) for the software versions, storage, deadline and
            the "requirement as entered" table; None: the plan's own requirement, else those sections are left out.
        catalog: the opened catalog, to print the interconnect's datasheet bandwidth in the nccl-tests check.

    Raises:
        SheetError: not a plan, no candidates, or a bad index.
    """
    if not isinstance(plan, (PlanDocument, dict)):
        raise SheetError(_("A configuration sheet needs a plan dictionary, got {type}.").format(type=type(plan).__name__))
    try:
        doc = as_document(plan)
    except PlanDocumentError as exc:
        raise SheetError(str(exc)) from exc
    option = pick_candidate(doc, candidate_index)
    req = _requirement(doc, profile)
    inference = option.serving
    deadline = req.workload.deadline_s if req else None
    target_qps = req.workload.target_qps if req else None
    # A serving option's step is a decode step, one token per running request: its time is the TPOT; the first token
    # waits for the prefill (TTFT). Neither is a training step.
    steps = ([("TTFT (time to first token)", option.ttft_s, "s"), ("TPOT (time per output token)", option.tpot_s, "s")]
             if inference else [("Step time", option.step_time_s, "s")])
    timing = [
        *steps,
        ("Exposed communication share of a step", option.comm_share, "fraction"),
        ("Time to result", option.time_to_result_s, "s"),
        ("Deadline", deadline, "s"),
        ("Late by", option.deadline_miss_s or None, "s"),
        ("QPS the configuration sustains", option.qps_capacity, "QPS"),
        ("Target QPS", target_qps if inference else None, "QPS"),
        ("Data rate needed", option.data_rate_needed_bytes_per_s, "bytes/s"),
        ("Data rate available", option.data_rate_available_bytes_per_s, "bytes/s"),
    ]
    software = _software_rows(req)
    warnings = [w for w in doc.warnings if w] + [w for w in option.warnings if w]
    # The option's own memory assumptions (its GPU count, sharding, recompute); a plan saved before they were
    # exported only has the whole-job estimate's (one GPU, DDP), which would contradict the recommendation.
    if option.memory_assumptions is not None:
        assumptions = [a.line() for a in option.memory_assumptions]
    else:
        assumptions = [a.line() for a in (doc.memory.assumptions if doc.memory else []) if not _whole_job_only(a)]
    others = [c for i, c in enumerate(doc.candidates) if i != candidate_index][:5]
    years = req.tco.years if req else doc.tco_years
    side = doc.serving_side
    return ConfigurationSheet(
        title=title or doc.name or _("Configuration sheet"),
        generated_at=generated_at or _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        workload_kind=doc.workload_kind,
        requirement=requirement_rows(requirement_to_dict(req)) if req else [],
        requirement_answers=answered_rows(req) if req else [],
        serving_option=side.top if side is not None else None,
        serving_target_qps=side.target_qps if side is not None else None,
        serving_cost_per_million_tokens_usd=cost_per_million_tokens_usd(
            side.top.tco_3y_usd, side.target_qps, side.output_tokens, side.tco_years)
        if side is not None and side.top is not None else None,
        candidate=option,
        bom=_bom(option, req, software),
        software=software,
        memory_parts=list(option.per_gpu_memory_breakdown_bytes.items()),
        memory_total_bytes=option.per_gpu_memory_bytes,
        usable_bytes=option.usable_memory_bytes,
        safe_line_bytes=option.safe_line_bytes,
        timing=[row for row in timing if row[1] is not None or (row[0] == "Time to result" and not inference)],
        meets_deadline=option.meets_deadline,
        tco=list(option.tco_breakdown_usd.items()),
        tco_total_usd=option.tco_3y_usd,
        risks=warnings,
        checks=post_delivery_checks(option, req, _link_gbps(catalog, option.interconnect),
                                    _link_gbps(catalog, option.network_link)),
        alternatives=others,
        rationale=[r.line() for r in doc.rationale] + [r.line() for r in option.rationale],
        assumptions=assumptions,
        candidate_number=candidate_index + 1,
        candidate_count=len(doc.candidates),
        market=req.operations.market if req else None,
        search_changes=search_changes(option, req),
        binding_constraint=binding_constraint(option, req),
        cost_per_million_tokens_usd=cost_per_million_tokens_usd(
            option.tco_3y_usd, target_qps, req.workload.output_tokens if req else None, years) if inference else None,
    )
