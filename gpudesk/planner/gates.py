"""Hard filters and warnings that depend on the GPU and the software stack, not on the count.

Each rejection reason and warning names the rule or datasheet behind it. Sources: the catalog's
precision_support and cuda_arch_support tables (catalog.md 1.4: architectures dropped by CUDA 13, Blackwell
needing CUDA 12.8), the source article's seven limits of consumer cards (section 5.3), NVIDIA's MIG supported-GPU
list (catalog.md 4f), and the requirement's compliance answers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpudesk.catalog.catalog import Catalog
from gpudesk.catalog.records import GPU, CudaArchSupport, PrecisionSupport, Server, SoftwareStack
from gpudesk.i18n import _
from gpudesk.planner.requirement import Requirement, parse_version
from gpudesk.planner.vendor_stack import stack_gates, stack_name, stacks_by_architecture
from gpudesk.sizing.dtypes import compute_precision_of

def consumer_card_warning() -> str:
    """The warning on every consumer card: the source article's seven limits in production (section 5.3)."""
    return _("Consumer card: the article's seven limits of consumer cards in production: no ECC (RTX 4090: soft ECC, "
             "off by default), PCIe saturation with several cards, no virtualisation, no vGPU, no enterprise support, "
             "power spikes, blower/thermal throttling in dense chassis")


@dataclass
class StackIndex:
    """Catalog lookups built once per plan: precision support and CUDA architecture rows."""

    precision: dict[tuple[str, str], PrecisionSupport]
    arch: dict[tuple[str, str], CudaArchSupport]
    arch_by_name: dict[str, list[CudaArchSupport]]
    stacks: dict[str, SoftwareStack] = field(default_factory=dict)

    @classmethod
    def from_catalog(cls, catalog: Catalog) -> StackIndex:
        precision = {(p.architecture, p.precision): p for p in catalog.precision_support()}
        arch: dict[tuple[str, str], CudaArchSupport] = {}
        by_name: dict[str, list[CudaArchSupport]] = {}
        for row in catalog.cuda_arch_support():
            arch[(row.architecture, row.sm)] = row
            by_name.setdefault(row.architecture, []).append(row)
        return cls(precision=precision, arch=arch, arch_by_name=by_name,
                   stacks=stacks_by_architecture(catalog.software_stacks()))


def requested_precision(req: Requirement) -> str:
    """The tensor-core precision the workload computes in (training precision, or from the weight format)."""
    if req.model.mode == "inference":
        return compute_precision_of(req.model.weight_format)
    return req.model.precision


def _older(have: tuple[int, ...] | None, need: str | None) -> bool:
    want = parse_version(need)
    return bool(have and want and have < want)


def market_name(market: str) -> str:
    """A market of :data:`gpudesk.planner.requirement.MARKETS` in the current language."""
    return {"global": _("global"), "china": _("China")}.get(market, market)


def market_statement(market: str) -> str:
    """What the plan's market (operations.market) means for the recommendation, for the sheet and rationale."""
    if market == "china":
        return _("China: China-market export-control SKUs (A800, H800, H20, L20, RTX 4090 D) may be recommended; "
                 "whether other SKUs may be exported to you is not checked")
    return _("global: SKUs made for the China market only (A800, H800, H20, L20, RTX 4090 D) are not recommended")


def gpu_gates(gpu: GPU, req: Requirement, index: StackIndex) -> tuple[list[str], list[str], list[tuple[str, str]]]:
    """(rejection reasons, warnings, rationale) for ``gpu`` against the stack and compliance answers."""
    reasons: list[str] = []
    warnings: list[str] = []
    why: list[tuple[str, str]] = []
    s = req.software
    cuda = parse_version(s.cuda_version)
    torch = parse_version(s.framework_version) if s.framework.lower() == "pytorch" else None
    precision = requested_precision(req)
    # Only NVIDIA GPUs run CUDA: AMD Instinct runs ROCm, Intel Gaudi its own software (SynapseAI).
    amd = not gpu.vendor.upper().startswith("NVIDIA")
    vendor_stack = index.stacks.get(gpu.architecture)
    stack = stack_name(gpu, vendor_stack)

    if amd and cuda:
        reasons.append(_("{gpu} runs {stack}, not CUDA; the stack pins CUDA {cuda} (catalog: vendor {vendor})").format(
            gpu=gpu.name, stack=stack, cuda=s.cuda_version, vendor=gpu.vendor))
    support = index.precision.get((gpu.architecture, precision))
    if support is not None and not support.supported:
        what = "FP8" if precision == "fp8" else precision.upper()
        reasons.append(_("{precision} requested but {architecture} has no {precision} tensor cores: {notes}").format(
            precision=what, architecture=gpu.architecture, notes=support.notes or "catalog precision_support"))
    elif support is not None:
        if not amd and _older(cuda, support.min_cuda):
            reasons.append(_("{precision} on {architecture} needs CUDA >= {min_cuda}; the stack pins {cuda} (catalog "
                             "precision_support)").format(precision=precision.upper(), architecture=gpu.architecture,
                                                          min_cuda=support.min_cuda, cuda=s.cuda_version))
        if _older(torch, support.min_pytorch):
            reasons.append(_("{precision} on {architecture} needs PyTorch >= {min_pytorch}; the stack pins {version} "
                             "(catalog precision_support)").format(precision=precision.upper(),
                                                                   architecture=gpu.architecture,
                                                                   min_pytorch=support.min_pytorch,
                                                                   version=s.framework_version))
        if precision == "fp8" and support.notes:
            warnings.append(_("FP8 software risk on {architecture}: {notes}").format(architecture=gpu.architecture,
                                                                                    notes=support.notes))
    if not amd and gpu.compute_capability:
        sm = "sm_" + gpu.compute_capability.replace(".", "")
        row = index.arch.get((gpu.architecture, sm))
        if row is not None:
            if _older(cuda, row.first_cuda):
                reasons.append(_("{sm} ({architecture}) needs CUDA >= {first_cuda}; the stack pins {cuda} (catalog "
                                 "cuda_arch_support, {url})").format(sm=sm, architecture=gpu.architecture,
                                                                     first_cuda=row.first_cuda, cuda=s.cuda_version,
                                                                     url=row.source_url))
            if row.dropped_in_cuda:
                dropped = parse_version(row.dropped_in_cuda)
                if cuda and dropped is not None and cuda >= dropped:
                    reasons.append(_("{sm} was dropped in CUDA {dropped}; the stack pins {cuda} ({url})").format(
                        sm=sm, dropped=row.dropped_in_cuda, cuda=s.cuda_version, url=row.source_url))
                else:
                    risk = _("Software support risk: {sm} ({architecture}) is dropped by CUDA {dropped}.").format(
                        sm=sm, architecture=gpu.architecture, dropped=row.dropped_in_cuda)
                    # The catalog's note on PyTorch's last wheel is data (English), appended as it is.
                    warnings.append(f"{risk} {row.pytorch_last_wheel_note or ''}".strip())
    if s.require_ecc and not gpu.ecc:
        reasons.append(_("ECC required; {gpu} has no ECC (datasheet; catalog.md 4k)").format(gpu=gpu.name))
    elif s.require_ecc and gpu.consumer:
        warnings.append(_("ECC required: {gpu} has only a driver toggle (soft ECC, off by default, costs performance; "
                          "catalog.md 4k)").format(gpu=gpu.name))
    if s.require_vgpu and not gpu.vgpu:
        reasons.append(_("vGPU required; {gpu} is not supported by NVIDIA vGPU (consumer card)").format(gpu=gpu.name)
                       if gpu.consumer else _("vGPU required; {gpu} does not support vGPU (catalog)").format(gpu=gpu.name))
    if s.require_virtualisation and gpu.consumer:
        reasons.append(_("virtualisation required; consumer cards such as {gpu} are not supported by enterprise "
                         "hypervisors (article 5.3: VMware vSphere 7.0 does not support the 4090)").format(gpu=gpu.name))
    if s.require_mig and not gpu.mig_max_instances:
        reasons.append(_("MIG required; {gpu} has no MIG (NVIDIA MIG supported-GPU list; catalog.md 4f)").format(
            gpu=gpu.name))
    if s.fips:
        why.append((_("FIPS 140 is a property of the OS, driver and library crypto modules, not of the GPU; check the "
                      "validated builds"),
                    "requirement: software.fips"))
    stack_reasons, stack_warnings = stack_gates(gpu, req, vendor_stack)
    reasons.extend(stack_reasons)
    warnings.extend(stack_warnings)
    if gpu.consumer:
        warnings.append(consumer_card_warning())
    market = req.operations.market
    if gpu.market is not None and gpu.market != market:
        reasons.append(_("{gpu} is made for the {gpu_market} market only (an export-control variant, catalog "
                         "gpu_markets); this plan buys for the {market} market (operations.market)").format(
            gpu=gpu.name, gpu_market=market_name(gpu.market), market=market_name(market)))
    elif gpu.market is not None:
        warnings.append(_("{gpu} is a China-market export-control variant: sold mainly in China, with export licences "
                          "that changed several times in 2023-2025; check availability and support in your "
                          "region").format(gpu=gpu.name))
    if gpu.confidence and str(gpu.confidence).lower() not in ("high", "v", "verified"):
        warnings.append(_("Catalog confidence for {gpu} is {confidence}; re-check the datasheet ({url})").format(
            gpu=gpu.name, confidence=gpu.confidence, url=gpu.source_url))
    return reasons, warnings, why


def server_gates(server: Server, gpu: GPU, count: int, servers: int, req: Requirement) -> list[str]:
    """Reasons an existing-server, power or cooling answer rules this option out (empty: allowed)."""
    o = req.operations
    reasons: list[str] = []
    if o.existing_server:
        if server.id != o.existing_server:
            reasons.append(_("the plan reuses server {server}").format(server=o.existing_server))
        elif servers > 1:
            reasons.append(_("{count} GPUs need {servers} servers; only the existing {server} is available").format(
                count=count, servers=servers, server=server.id))
        # a slot takes a package: a two-die MI250X / 910C fills one slot with two devices
        elif o.free_slots is not None and -(-count // getattr(gpu, "devices_per_package", 1)) > o.free_slots:
            reasons.append(_("{count} GPUs exceed the {free_slots} free slots of {server}").format(
                count=count, free_slots=o.free_slots, server=server.id))
    if o.power_budget_w is not None and count * gpu.tdp_w > o.power_budget_w:
        reasons.append(_("{count} x {tdp_w:.0f} W TDP = {total_w:,.0f} W exceeds the power budget of {budget_w:,.0f} W "
                         "(datasheet TDP)").format(count=count, tdp_w=gpu.tdp_w, total_w=count * gpu.tdp_w,
                                                   budget_w=o.power_budget_w))
    if o.cooling == "air" and server.cooling == "liquid":
        reasons.append(_("{server} needs liquid cooling; the site has air cooling only").format(server=server.name))
    return reasons


def kind_gates(kind: str, gpu: GPU, allow_consumer_cards: bool | None = None) -> list[str]:
    """Rejections from the article's conversion rules for the workload kind (article 2.2 and 5.3).

    Large-model training and multimodal long-sequence work need >= 40 GB per card. Consumer cards are for
    personal development, Kaggle and teaching; "once in a CI/CD pipeline or customer delivery, switch to
    A100/A10" (article 5.3), so by default they are ruled out for every kind but small-model iteration.
    ``allow_consumer_cards`` (operations) overrides that default either way.
    """
    from gpudesk.planner.classify import LARGE, MULTIMODAL, SMALL

    reasons = []
    if kind in (LARGE, MULTIMODAL) and gpu.memory_gb < 40:
        reasons.append(_("{kind} needs >= 40 GB per card; {gpu} has {memory_gb:g} GB (article 2.2)").format(
            kind=kind, gpu=gpu.name, memory_gb=gpu.memory_gb))
    consumer_ok = (kind == SMALL) if allow_consumer_cards is None else allow_consumer_cards
    if gpu.consumer and not consumer_ok:
        why = _("operations.allow_consumer_cards is false") if allow_consumer_cards is False else _(
            "{kind}: consumer cards are for personal development, Kaggle and teaching; production pipelines and "
            "customer delivery use data-center cards (article 5.3; set operations.allow_consumer_cards to "
            "override)").format(kind=kind)
        reasons.append(why)
    return reasons
