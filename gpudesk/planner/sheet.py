"""The configuration sheet: what purchasing, budget and operations sign, built from a plan dictionary.

Input is the JSON shape of a plan (``gpudesk.planner.plan_to_dict``), so a saved plan exports without being
re-run. :func:`build_sheet` picks one candidate (the top one by default) and gathers the sections the source
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
from gpudesk.planner.search_notes import search_changes
from gpudesk.planner.serving_cost import cost_per_million_tokens_usd
from gpudesk.planner.tco import TcoAssumptions
from gpudesk.i18n import _
from gpudesk.planner.prices import price_unknown_text

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
    candidate: dict[str, Any]
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
    alternatives: list[dict[str, Any]]
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

    @property
    def headroom_bytes(self) -> int | None:
        """Safe line minus the per-GPU need (negative: over the line); None when either is unknown."""
        if self.safe_line_bytes is None or self.memory_total_bytes is None:
            return None
        return self.safe_line_bytes - self.memory_total_bytes


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    return None


def _mapping(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one (a plan read back from disk may lack a section)."""
    return value if isinstance(value, dict) else {}


def _sequence(value: Any) -> list[Any]:
    """``value`` when it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []


def _whole_job_only(assumption: Any) -> bool:
    """An assumption of the plan's whole-job estimate (one GPU, DDP) that says nothing about a candidate's layout."""
    text = _text(assumption).lower()
    return "data-parallel gpus" in text or text.startswith("activations: recompute")


def _int(value: Any) -> int | None:
    number = _num(value)
    return None if number is None else int(number)


def _text(value: Any) -> str:
    """One line of text from a rationale or warning entry (a string, or a dict with decision/rule)."""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)) and len(value) == 2 and all(isinstance(v, str) for v in value):
        return f"{value[0]} [{value[1]}]" if value[1] else value[0]
    if isinstance(value, dict):
        parts = [str(value[k]) for k in ("step", "decision", "assumption", "message", "text", "detail") if value.get(k)]
        sources = [str(value[k]) for k in ("rule", "source", "because", "reason") if value.get(k)]
        line = " — ".join(parts) if parts else ", ".join(f"{k}: {v}" for k, v in value.items())
        if sources:
            line += f" [{'; '.join(sources)}]"
        return line
    return str(value)


def gpu_price_unknown(candidate: dict[str, Any]) -> bool:
    """Whether the candidate's GPU price is unknown (``price_known`` false; older saved plans: no GPU line)."""
    if isinstance(candidate.get("price_known"), bool):
        return not candidate["price_known"]
    tco = candidate.get("tco_breakdown_usd")
    return isinstance(tco, dict) and bool(tco) and tco.get("gpus") is None


def candidates_of(plan: dict[str, Any]) -> list[dict[str, Any]]:
    """The plan's candidate dictionaries, best first (as the planner ranked them)."""
    found = plan.get("candidates")
    if not isinstance(found, list):
        return []
    return [c for c in found if isinstance(c, dict)]


def pick_candidate(plan: dict[str, Any], index: int = 0) -> dict[str, Any]:
    """The candidate at ``index`` (0 = top).

    Raises:
        SheetError: the plan has no candidates, or the index is out of range.
    """
    found = candidates_of(plan)
    if not found:
        raise SheetError(_(
            "The plan has no candidates to put on a sheet: no GPU configuration was found. Relax the "
            "requirement (budget, deadline, existing servers) and plan again."
        ))
    if not 0 <= index < len(found):
        raise SheetError(_("Candidate {number} does not exist; the plan has {count} candidates.").format(
            number=index + 1, count=len(found)))
    return found[index]


def requirement_rows(plan: dict[str, Any]) -> list[tuple[str, str]]:
    req = plan.get("requirement")
    rows: list[tuple[str, str]] = []
    if not isinstance(req, dict):
        return rows

    def walk(prefix: str, node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                walk(f"{prefix}.{key}" if prefix else str(key), value)
        elif isinstance(node, (list, tuple)):
            rows.append((prefix, ", ".join(str(v) for v in node)))
        elif node is not None:
            rows.append((prefix, str(node)))

    walk("", req)
    return rows


# Minimum Linux driver for each CUDA major release under minor-version compatibility (CUDA Toolkit release
# notes, "CUDA Toolkit and Minimum Required Driver Version for CUDA Minor Version Compatibility").
MIN_DRIVER_FOR_CUDA = {11: "450.80.02", 12: "525.60.13", 13: "580.65.06"}


def _software_rows(profile: dict[str, Any]) -> list[tuple[str, str]]:
    software = _mapping(profile.get("software"))
    rows: list[tuple[str, str]] = []
    framework = software.get("framework")
    if framework:
        rows.append((str(framework), str(software.get("framework_version") or _("any supported version"))))
    cuda = software.get("cuda_version")
    if cuda:
        rows.append(("CUDA", str(cuda)))
        try:
            major = int(str(cuda).split(".")[0])
        except ValueError:
            major = None
        if major in MIN_DRIVER_FOR_CUDA:
            rows.append((_("NVIDIA driver (Linux)"), _(">= {driver} (CUDA {major}.x minor-version compatibility)").format(
                driver=MIN_DRIVER_FOR_CUDA[major], major=major)))
    for library in software.get("libraries") or []:
        name, _sep, version = str(library).partition("==")
        rows.append((name, version or _("as tested")))
    if software.get("fips"):
        rows.append(("FIPS 140", _("validated OS and driver crypto modules required")))
    return rows


def _host_note(candidate: dict[str, Any]) -> str:
    """Where the host price comes from: the candidate's "host price ..." rationale line (catalog source, your quote,
    an all-in rack price, a class estimate, or the existing server); "price unknown" when there is none."""
    if candidate.get("host_price_known") is False:
        return "; " + _("host {price_unknown} (no sourced price; set tco.host_price_overrides_usd)").format(
            price_unknown=price_unknown_text())
    # The host price lines of the rationale (gpudesk.planner.plan._host_price_text, gpudesk.planner.tco) start with
    # "host" in English and "主机" in Chinese.
    starts = ("host price", "host ", _("host price"), _("host") + " ")
    for item in candidate.get("rationale") or []:
        text = item.get("decision") if isinstance(item, dict) else (item[0] if isinstance(item, (list, tuple)) and item else None)
        if isinstance(text, str) and text.startswith(starts):
            return f"; {text}"
    return ""


def _bom(candidate: dict[str, Any], profile: dict[str, Any], software: list[tuple[str, str]]) -> list[BomLine]:
    """Bill of materials: GPUs and hosts priced from the candidate's TCO lines, then storage, network, software."""
    tco = _mapping(candidate.get("tco_breakdown_usd"))
    count = _num(candidate.get("count"))
    servers = _num(candidate.get("servers")) or 1.0
    gpus_usd = _num(tco.get("gpus"))
    hosts_usd = _num(tco.get("hosts"))
    gpu_notes = _("catalog id {gpu_id}; {power_w} W for all GPUs at TDP").format(
        gpu_id=candidate.get("gpu_id"), power_w=_int(candidate.get("gpu_power_w")) or "N/A")
    if gpu_price_unknown(candidate):
        gpu_notes = f"{price_unknown_text()}; {gpu_notes}"
    lines = [
        BomLine(
            "GPU",
            str(candidate.get("gpu_name") or candidate.get("gpu_id") or "GPU"),
            count,
            gpus_usd / count if gpus_usd is not None and count else None,
            gpus_usd,
            notes=gpu_notes,
            source=str(candidate.get("gpu_price_text") or _("gpudesk catalog (price, date and source per GPU row); your "
                                                             "prices")),
        )
    ]
    if candidate.get("server_name") or candidate.get("server_id"):
        lines.append(
            BomLine(
                "Server",
                str(candidate.get("server_name") or candidate.get("server_id")),
                servers,
                hosts_usd / servers if hosts_usd is not None else None,
                hosts_usd,
                notes=_("catalog id {server_id}; chassis, CPUs, RAM and local NVMe").format(
                    server_id=candidate.get("server_id")) + _host_note(candidate),
                source=_("gpudesk catalog servers table"),
            )
        )
    if str(candidate.get("interconnect") or "").startswith("nvlink-bridge") and count:
        lines.append(
            BomLine(
                "Network",
                _("2-way NVLink bridge (one per pair of cards)"),
                count // 2,
                None,
                None,
                notes=_("the step time assumes bridged pairs; no price in the catalog, ask the vendor (not in the TCO)"),
                source="GPU product brief (NVLink bridge connector); gpudesk.planner.candidates.bridge_pair_gbps",
            )
        )
    data = _mapping(profile.get("data"))
    needed = _num(candidate.get("data_rate_needed_bytes_per_s"))
    available = _num(candidate.get("data_rate_available_bytes_per_s"))
    dataset = _num(data.get("dataset_bytes"))
    if dataset or needed:
        parts = []
        if dataset:
            parts.append(_("at least {dataset_tb:,.1f} TB usable for the dataset").format(dataset_tb=dataset / 1e12))
        if needed:
            parts.append(_("sustained read >= {needed_mbps:,.0f} MB/s to feed the GPUs").format(needed_mbps=needed / 1e6))
        if available:
            parts.append(_("planned path delivers {available_mbps:,.0f} MB/s").format(available_mbps=available / 1e6))
        if data.get("decode_path") == "gpu":
            parts.append(_("GPU-side decoding (DALI / nvJPEG)"))
        lines.append(BomLine("Storage", "; ".join(parts), None, notes=_("data rate from the planner's I/O check"),
                             source="article section 4.3 (DALI + GPUDirect Storage)"))
    link_name = candidate.get("interconnect_name") or candidate.get("interconnect")
    if (count or 1) > 1:
        lines.append(BomLine("Network", _("{link} between the GPUs of each server").format(link=link_name), servers,
                             notes=_("link id {link_id}").format(link_id=candidate.get("interconnect")),
                             source=_("gpudesk catalog links table")))
    else:
        lines.append(BomLine("Network", _("{link} host link (one GPU: no GPU-to-GPU traffic)").format(link=link_name),
                             None, notes=_("link id {link_id}").format(link_id=candidate.get("interconnect")),
                             source=_("gpudesk catalog links table")))
    if servers > 1 and candidate.get("network_link"):
        lines.append(BomLine("Network", _("{link} between servers (NICs, cables, switch ports)").format(
            link=candidate["network_link"]), servers, source="requirement operations.network_link"))
    network_usd = _num(tco.get("network_install"))
    if network_usd:
        lines.append(BomLine("Network", _("Network, cabling, transceivers and installation"), None, None, network_usd,
                             notes=_("share of hardware price (TCO assumption tco.network_install_fraction)"),
                             source="catalog.md 5.2: +10-15 % of CapEx"))
    for component, version in software:
        lines.append(BomLine("Software", f"{component} {version}".strip(), None, notes=_("version fixed by the requirement")))
    return lines


def post_delivery_checks(candidate: dict[str, Any], profile: dict[str, Any] | None = None,
                         link_gbps_per_direction: float | None = None,
                         network_gbps_per_direction: float | None = None) -> list[Check]:
    """The acceptance checks for a delivered configuration (article §5: 72-hour stress test recorded by the
    monitor; catalog.md §1 and errata g: verify NVLink/PCIe with nccl-tests, measured about 80-88 % of spec).

    Across several servers nccl-tests runs one process per GPU under MPI (``-g`` is GPUs per process), and the
    bus bandwidth is bounded by the slower of the GPU link and the network link between servers."""
    profile = profile or {}
    software = _mapping(profile.get("software"))
    count = _int(candidate.get("count")) or 1
    servers = _int(candidate.get("servers")) or 1
    link = str(candidate.get("interconnect_name") or candidate.get("interconnect") or _("the GPU interconnect"))
    if servers > 1 and candidate.get("network_link"):
        network = str(candidate["network_link"])
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
    if software.get("require_ecc"):
        checks.append(Check(_("ECC enabled"), "nvidia-smi -q -d ECC",
                            _("Current ECC mode: Enabled on every GPU, no volatile uncorrectable errors")))
    if software.get("fips"):
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


def _link_gbps(catalog: Any, link_id: Any) -> float | None:
    """Per-direction bandwidth of a catalog link (GB/s), or None without a catalog or for an unknown id."""
    if catalog is None or not link_id:
        return None
    try:
        return float(catalog.link(str(link_id)).bandwidth_gbps_per_direction)
    except LookupError:
        return None


def build_sheet(plan: dict[str, Any], candidate_index: int = 0, title: str | None = None,
                generated_at: str | None = None, profile: dict[str, Any] | None = None,
                catalog: Any = None) -> ConfigurationSheet:
    """Gather the sheet for one candidate of a plan dictionary.

    Args:
        plan: ``plan_to_dict`` output (or a saved plan's JSON).
        candidate_index: 0 for the top candidate.
        title: sheet title; defaults to the plan's name or "Configuration sheet".
        generated_at: UTC ISO time stamp (default: now).
        profile: the requirement profile dictionary (``requirement_to_dict`` / TOML shape) for the software
            versions, storage, deadline and the "requirement as entered" table; None: the plan's own
            ``requirement`` entry when it has one, else those sections are left out.
        catalog: the opened catalog, to print the interconnect's datasheet bandwidth in the nccl-tests check.

    Raises:
        SheetError: not a plan dictionary, no candidates, or a bad index.
    """
    if not isinstance(plan, dict):
        raise SheetError(_("A configuration sheet needs a plan dictionary, got {type}.").format(type=type(plan).__name__))
    candidate = pick_candidate(plan, candidate_index)
    if not isinstance(profile, dict):
        profile = _mapping(plan.get("requirement"))
    memory = _mapping(plan.get("memory"))
    breakdown = candidate.get("per_gpu_memory_breakdown_bytes")
    if not isinstance(breakdown, dict):
        breakdown = {}
    parts = [(str(k), int(v)) for k, v in breakdown.items() if _num(v) is not None]
    total = _int(candidate.get("per_gpu_memory_bytes"))
    if total is None and parts:
        total = sum(v for _, v in parts)
    workload = _mapping(profile.get("workload"))
    inference = candidate.get("qps_capacity") is not None
    timing = [
        ("Step time", _num(candidate.get("step_time_s")), "s"),
        ("Exposed communication share of a step", _num(candidate.get("comm_share")), "fraction"),
        ("Time to result", _num(candidate.get("time_to_result_s")), "s"),
        ("Deadline", _num(workload.get("deadline_s")), "s"),
        ("Late by", _num(candidate.get("deadline_miss_s")) or None, "s"),
        ("QPS the configuration sustains", _num(candidate.get("qps_capacity")), "QPS"),
        ("Target QPS", _num(workload.get("target_qps")) if inference else None, "QPS"),
        ("Data rate needed", _num(candidate.get("data_rate_needed_bytes_per_s")), "bytes/s"),
        ("Data rate available", _num(candidate.get("data_rate_available_bytes_per_s")), "bytes/s"),
    ]
    tco_items = _mapping(candidate.get("tco_breakdown_usd"))
    software = _software_rows(profile)
    warnings = [w for w in (plan.get("warnings") or []) if w] + [w for w in (candidate.get("warnings") or []) if w]
    rationale = _sequence(candidate.get("rationale"))
    plan_rationale = _sequence(plan.get("rationale"))
    # The candidate's own memory assumptions (its GPU count, sharding, recompute); a plan saved before they were
    # exported only has the whole-job estimate's (one GPU, DDP), which would contradict the recommendation.
    own = candidate.get("memory_assumptions")
    assumptions = [_text(a) for a in (own if isinstance(own, list) else memory.get("assumptions") or [])
                   if own is not None or not _whole_job_only(a)]
    others = [c for i, c in enumerate(candidates_of(plan)) if i != candidate_index][:5]
    requirement = requirement_rows({"requirement": profile}) if profile else []
    return ConfigurationSheet(
        title=title or str(plan.get("name") or _("Configuration sheet")),
        generated_at=generated_at or _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        workload_kind=plan.get("workload_kind"),
        requirement=requirement,
        candidate=candidate,
        bom=_bom(candidate, profile, software),
        software=software,
        memory_parts=parts,
        memory_total_bytes=total,
        usable_bytes=_int(candidate.get("usable_memory_bytes")),
        safe_line_bytes=_int(candidate.get("safe_line_bytes")),
        timing=[row for row in timing if row[1] is not None or (row[0] == "Time to result" and not inference)],
        meets_deadline=candidate.get("meets_deadline") if isinstance(candidate.get("meets_deadline"), bool) else None,
        tco=[(str(k), _num(v)) for k, v in tco_items.items()],
        tco_total_usd=_num(candidate.get("tco_3y_usd")),
        risks=[_text(w) for w in warnings],
        checks=post_delivery_checks(candidate, profile, _link_gbps(catalog, candidate.get("interconnect")),
                                    _link_gbps(catalog, candidate.get("network_link"))),
        alternatives=others,
        rationale=[_text(r) for r in plan_rationale] + [_text(r) for r in rationale],
        assumptions=assumptions,
        candidate_number=candidate_index + 1,
        candidate_count=len(candidates_of(plan)),
        market=str(_mapping(profile.get("operations")).get("market") or "global") if profile else None,
        search_changes=search_changes(candidate, profile),
        binding_constraint=binding_constraint(candidate, profile),
        cost_per_million_tokens_usd=cost_per_million_tokens_usd(
            _num(candidate.get("tco_3y_usd")), _num(workload.get("target_qps")), _int(workload.get("output_tokens")),
            _num(_mapping(profile.get("tco")).get("years")) or TcoAssumptions().years) if inference else None,
    )
