"""Enumerate GPU x count x interconnect x server options from the catalog, with the shared context.

Counts are powers of two up to ``operations.max_gpus`` for training; inference sizes the count from the QPS
target. One server holds up to ``server.max_gpus``; larger counts use whole servers joined by
``operations.network_link`` (workstations are not clustered). A PCIe card in a newer-generation slot runs at
its own generation (catalog.md 4d: the RTX 4090 is a Gen4 card).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpudesk.catalog.catalog import Catalog
from gpudesk.catalog.records import GPU, Link, Price, Server
from gpudesk.i18n import _
from gpudesk.planner.errors import PlanInputError
from gpudesk.planner.gates import StackIndex
from gpudesk.planner.packages import device_view
from gpudesk.planner.requirement import Requirement
from gpudesk.sizing.estimate import MemoryEstimate
from gpudesk.sizing.shapes import ModelSpec
from gpudesk.sizing.speed_serve import ServeSpeed
from gpudesk.sizing.time import StepTime


# (sharding, recompute, estimate, step time, total bytes per GPU, micro-batch): one timed training setting
TrainSetting = tuple[str, str, MemoryEstimate, StepTime, int, int]
# (the chosen setting or None when nothing fits, the smallest per-GPU total bytes seen)
TrainSearch = tuple[TrainSetting | None, int]


@dataclass
class PlanContext:
    """Catalog rows and caches for one planning run."""

    req: Requirement
    spec: ModelSpec
    gpus: list[GPU]
    servers: list[Server]
    links: dict[str, Link]
    network: Link
    index: StackIndex
    prices: list[Price] = field(default_factory=list)
    # ("serve", tensor-parallel degree, batch) -> estimate
    memory_cache: dict[tuple[str, int, int], MemoryEstimate] = field(default_factory=dict)
    # Serving speeds of one replica (gpudesk.planner.serve_eval): None where the engine's budget has no KV cache.
    serve_speed_cache: dict[tuple[object, ...], ServeSpeed | None] = field(default_factory=dict)
    # ("train", GPUs, sharding, recompute, micro-batch, accumulation steps) -> (estimate, total bytes)
    train_memory_cache: dict[tuple[str, int, str, str, int, int], tuple[MemoryEstimate, int]] = field(
        default_factory=dict)
    # (GPUs, data-parallel GPUs, global batch) -> (every (sharding, recompute, estimate, total bytes, micro-batch) the
    # training search tries, in its order; their smallest total bytes)
    train_rows_cache: dict[tuple[int, int, int], tuple[tuple[tuple[str, str, MemoryEstimate, int, int], ...], int]] = (
        field(default_factory=dict))
    # (total training FLOPs, samples, explanation, full-recompute factor): the same for every option of the plan
    train_work: tuple[float, float, str, float] | None = None
    # (GPUs, data-parallel GPUs, usable bytes, safe-line bytes, bridge GB/s, bottleneck GB/s, achievable FLOP/s,
    #  synced params) -> (chosen setting or None, smallest per-GPU total bytes)
    search_cache: dict[tuple[object, ...], TrainSearch] = field(
        default_factory=dict)

    @classmethod
    def build(cls, req: Requirement, spec: ModelSpec, catalog: Catalog) -> PlanContext:
        links = {link.id: link for link in catalog.links()}
        network = links.get(req.operations.network_link)
        if network is None or network.kind != "network":
            raise PlanInputError("operations.network_link", _("{link!r} is not a catalog link; use one of {links}.").format(
                link=req.operations.network_link, links=", ".join(k for k, v in links.items() if v.kind == "network")))
        servers = catalog.servers()
        if req.operations.existing_server and req.operations.existing_server not in {s.id for s in servers}:
            raise PlanInputError("operations.existing_server", _("{server!r} is not a catalog server; use one of "
                                                                 "{servers}.").format(
                server=req.operations.existing_server, servers=", ".join(s.id for s in servers)))
        gpus = catalog.gpus()
        known = {g.id for g in gpus}
        for gpu_id in req.tco.gpu_price_overrides_usd:
            if gpu_id not in known:
                close = sorted(k for k in known if k.startswith(str(gpu_id)[:4]))
                if close:
                    message = _("{gpu_id!r} is not a catalog GPU id; did you mean {close}?").format(
                        gpu_id=gpu_id, close=", ".join(close))
                else:
                    message = _("{gpu_id!r} is not a catalog GPU id; see `gpudesk catalog list`.").format(gpu_id=gpu_id)
                raise PlanInputError("tco.gpu_price_overrides_usd", message)
        prices = catalog.prices() if hasattr(catalog, "prices") else []
        gpus, servers = device_view(gpus, servers)  # a two-die package is two devices (MI250X, Ascend 910C)
        return cls(req=req, spec=spec, gpus=gpus, servers=servers, links=links, network=network,
                   index=StackIndex.from_catalog(catalog), prices=prices)


def accepts(server: Server, gpu: GPU) -> bool:
    """Whether ``gpu`` fits ``server`` (form factor, architectures / listed GPU ids)."""
    method = getattr(server, "accepts", None)
    if method is not None:
        return bool(method(gpu))
    if gpu.form_factor != server.gpu_form_factor:
        return False
    return not server.architectures or gpu.architecture in server.architectures


def intra_link(ctx: PlanContext, gpu: GPU, server: Server) -> Link:
    """The GPU-GPU link inside ``server`` for ``gpu``: NVLink/IF for SXM/OAM, else PCIe at the slower generation.

    Every server's interconnect is a catalog link (db/build_catalog.py checks it when building the catalog)."""
    link = ctx.links[server.interconnect]
    if link.kind == "pcie" and gpu.pcie_gen:
        gen = min(int(gpu.pcie_gen), int("".join(ch for ch in link.id.split("-")[0] if ch.isdigit()) or gpu.pcie_gen))
        link = ctx.links.get(f"pcie{gen}-x16", link)
    return link


def bridge_pair_gbps(gpu: GPU, count: int, servers: int = 1) -> float | None:
    """Per-direction GB/s of the NVLink bridge joining ``gpu`` cards in pairs, or None when there is none.

    A PCIe card with an NVLink connector (catalog ``nvlink_gbps`` > 0, bidirectional: H100 NVL and H100 PCIe
    600 GB/s, A100 PCIe 600 GB/s) takes a 2-way bridge to one partner only (H100 NVL product brief PB-11773;
    catalog links.csv nvlink3/nvlink4 notes); traffic between pairs still crosses PCIe. Needs an even number of
    cards in each server.
    """
    if gpu.form_factor != "PCIe" or not getattr(gpu, "nvlink_gbps", None) or gpu.nvlink_gbps <= 0:
        return None
    if count < 2 or servers < 1 or count % servers or (count // servers) % 2:
        return None
    return float(gpu.nvlink_gbps) / 2


def training_counts(max_gpus: int) -> list[int]:
    """1, 2, 4, ... up to ``max_gpus`` (and ``max_gpus`` itself)."""
    counts: list[int] = []
    n = 1
    while n <= max_gpus:
        counts.append(n)
        n *= 2
    if counts[-1] != max_gpus:
        counts.append(max_gpus)
    return counts


def placements(server: Server, count: int) -> int | None:
    """Servers needed for ``count`` GPUs (None when this chassis cannot take that count).

    A chassis built of trays (``min_gpus`` > 1: an HGX board of 8, a GB200/GB300 NVL72 rack of 18 trays of 4 GPUs,
    NVIDIA GB200 NVL72 reference architecture) takes any whole number of trays: 256 GB200 are three full racks and
    one of 40 GPUs. Other chassis beyond one server need whole servers.
    """
    if count < server.min_gpus:
        return None
    if count <= server.max_gpus:
        return 1
    if server.kind == "workstation":
        return None
    if server.min_gpus > 1 and count % server.min_gpus == 0:
        return -(-count // server.max_gpus)
    if count % server.max_gpus:
        return None
    return count // server.max_gpus


def servers_for(ctx: PlanContext, gpu: GPU) -> list[Server]:
    """Catalog servers that take ``gpu``."""
    return [s for s in ctx.servers if accepts(s, gpu)]


