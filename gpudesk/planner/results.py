"""Result types of the planner: :class:`Plan`, its ranked :class:`Candidate` list and :class:`Rejected` ones."""

from __future__ import annotations

from dataclasses import dataclass, field

from gpudesk.planner.binding_types import BindingConstraint
from gpudesk.planner.prices import GpuPrice
from gpudesk.planner.requirement import Requirement
from gpudesk.planner.tco import RentVsBuy, Tco
from gpudesk.sizing.estimate import MemoryEstimate
from gpudesk.sizing.shapes import ModelSpec
from gpudesk.sizing.speed_bands import ErrorBand

Rationale = tuple[str, str]  # (decision, rule or datasheet source)


@dataclass
class Candidate:
    """One GPU x count x interconnect x server option that can run the job.

    Memory (bytes, per GPU): ``memory`` (estimate with breakdown), ``per_gpu_memory_bytes``,
    ``usable_memory_bytes`` (reported total), ``safe_line_bytes``, ``headroom_bytes`` (safe line - need;
    negative = over), ``fits`` (need under the safe line).
    Time: ``step_time_s`` and ``comm_share`` (exposed collective time / step) for training,
    ``time_to_result_s`` (None for inference), ``meets_deadline`` (None without a deadline),
    ``deadline_miss_s`` (how late; 0 when on time). Inference: ``qps_capacity`` (all GPUs), ``meets_qps``.
    Data: ``data_rate_needed_bytes_per_s`` vs ``data_rate_available_bytes_per_s`` (None when unknown).
    Cost: ``tco`` (3-year TCO with breakdown in USD; total None when a price is missing), ``gpu_price`` (the
    price per GPU used and its origin: the profile, your price, the catalog, or unknown), and for an unknown
    price ``break_even_price_usd`` (per-GPU quote below which it would beat the best priced option of its tier, ranked ``break_even_rank``);
    for an unknown host price with a known GPU price ``break_even_host_price_usd`` (the quote per host, same rule).
    Ranking: ``rank_reason`` says why it sits where it does (gpudesk.planner.rank.explain_ranking);
    ``dominated_by`` labels an option of the same tier that is both cheaper and faster (None on the frontier).
    Serving latency: ``ttft_s`` (prefill of one prompt, no queueing), ``tpot_s`` (decode step at the chosen batch),
    ``meets_latency`` (None without targets).
    Rent vs buy: ``rent`` (the same GPUs rented at the lowest sourced on-demand rate; None without a rate).
    Search: ``micro_batch_size`` and ``gradient_accumulation`` (training: the global batch is kept),
    ``tensor_parallel`` (the degree chosen for this GPU); ``pipeline_parallel`` / ``expert_parallel`` where only a
    pipeline or expert-parallel layout fits (gpudesk.planner.train_parallel), else None. Serving: ``replicas`` of
    ``tensor_parallel`` GPUs, each running ``concurrent_sequences`` requests at once in ``engine`` (the engine whose
    scheduler and memory pool the speed model follows; None where the simple roofline model answered).
    """

    gpu_id: str
    gpu_name: str
    count: int
    servers: int
    server_id: str
    server_name: str
    interconnect: str
    interconnect_name: str
    network_link: str | None
    sharding: str | None
    recompute: str | None
    memory: MemoryEstimate
    usable_memory_bytes: int
    safe_line_bytes: int
    headroom_bytes: int
    fits: bool
    step_time_s: float | None = None
    comm_share: float | None = None
    time_to_result_s: float | None = None
    meets_deadline: bool | None = None
    deadline_miss_s: float | None = None
    qps_capacity: float | None = None
    meets_qps: bool | None = None
    data_rate_needed_bytes_per_s: float | None = None
    data_rate_available_bytes_per_s: float | None = None
    gpu_power_w: float = 0.0
    tco: Tco | None = None
    gpu_price: GpuPrice | None = None
    break_even_price_usd: float | None = None
    break_even_rank: int | None = None
    break_even_host_price_usd: float | None = None
    rank_reason: str | None = None
    micro_batch_size: int | None = None
    gradient_accumulation: int | None = None
    tensor_parallel: int | None = None
    pipeline_parallel: int | None = None
    expert_parallel: int | None = None
    replicas: int | None = None
    concurrent_sequences: int | None = None
    engine: str | None = None
    speed_error_band: ErrorBand | None = None
    flops_only_time_to_result_s: float | None = None
    dominated_by: str | None = None
    rent: RentVsBuy | None = None
    gpus_bought: int | None = None
    ttft_s: float | None = None
    tpot_s: float | None = None
    meets_latency: bool | None = None
    warnings: list[str] = field(default_factory=list)
    rationale: list[Rationale] = field(default_factory=list)

    @property
    def per_gpu_memory_bytes(self) -> int:
        """Memory needed on each GPU's card (bytes): the figure every fit and headroom uses
        (:attr:`gpudesk.sizing.MemoryEstimate.device_need_bytes`)."""
        return self.memory.device_need_bytes

    @property
    def tco_3y_usd(self) -> float | None:
        """Total cost over the TCO horizon (USD), None when a price is unknown."""
        return self.tco.total_usd if self.tco else None

    @property
    def tco_breakdown_usd(self) -> dict[str, float | None]:
        """TCO lines in USD (see gpudesk.planner.tco.TCO_LINES)."""
        return dict(self.tco.breakdown_usd) if self.tco else {}

    @property
    def price_known(self) -> bool:
        """Whether the GPU price is known (from the profile, your prices or the catalog)."""
        return self.gpu_price is not None and self.gpu_price.known

    @property
    def host_price_known(self) -> bool:
        """Whether the host (server) price is known: sourced in the catalog, included in an all-in GPU price, the
        profile's ``tco.host_price_overrides_usd``, a commodity PCIe class estimate, or an existing server."""
        return self.tco is not None and not any(item.startswith("host price") for item in self.tco.missing)

    @property
    def unpriced_items(self) -> list[str]:
        """What has no price (``"GPU"``, ``"host"``): the reasons the TCO is unknown."""
        out = [] if self.price_known else ["GPU"]
        return out + ([] if self.host_price_known else ["host"])

    @property
    def bought(self) -> int:
        """GPUs paid for: ``gpus_bought`` when the chassis is sold in larger units than ``count`` (an NVL72
        rack), else ``count``."""
        return self.gpus_bought or self.count

    @property
    def label(self) -> str:
        """Short label, e.g. ``"8 x NVIDIA A100 80GB SXM4 (nvlink3, hgx-a100)"``."""
        return f"{self.count} x {self.gpu_name} ({self.interconnect}, {self.server_id})"


@dataclass
class Rejected:
    """A GPU x count x server option ruled out, with every reason (each names its rule or datasheet)."""

    gpu_id: str
    gpu_name: str
    count: int
    server_id: str | None
    interconnect: str | None
    reasons: list[str]
    #: Ruled out by the GPU-count limit (operations.max_gpus) alone: what gpudesk.planner.binding looks for.
    over_gpu_limit: bool = False


@dataclass
class Plan:
    """The planner's answer for one requirement.

    Attributes:
        requirement: the validated input.
        model: the model shape used (``shape_is_guess`` when inferred).
        workload_kind: see gpudesk.planner.classify.WORKLOAD_KINDS.
        memory: the job's memory on a single GPU without sharding (the total the job needs).
        candidates: feasible options, best first (rank.py).
        rejected: ruled-out options with reasons.
        deadline_met_by_any: False when a deadline is set and no candidate meets it (None: no deadline).
        closest: when no candidate meets the deadline, the closest ones (smallest ``deadline_miss_s``).
        warnings: plan-level warnings (e.g. data size inconsistent with sample size x count).
        rationale: plan-level decisions (classification, model source, auto choices) with sources.
        binding: when nothing meets the requirement, the constraint that binds (named by its control) and the
            smallest change of each control that gives an answer (gpudesk.planner.binding); None otherwise.
    """

    requirement: Requirement
    model: ModelSpec
    workload_kind: str
    memory: MemoryEstimate
    candidates: list[Candidate]
    rejected: list[Rejected]
    deadline_met_by_any: bool | None = None
    closest: list[Candidate] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    rationale: list[Rationale] = field(default_factory=list)
    binding: BindingConstraint | None = None

    @property
    def top(self) -> Candidate | None:
        """The best candidate, or None when nothing fits."""
        return self.candidates[0] if self.candidates else None
