"""The plan document: the typed, versioned answer every reader of a plan shares.

``plan(req, catalog)`` returns a :class:`gpudesk.planner.results.Plan` (live objects: memory estimates, TCO
records, price records). :func:`PlanDocument.from_plan` turns it into plain typed data: the requirement, the
options the search evaluated (with the micro-batch, accumulation, TP/PP/EP and engine settings it chose), the
rejected options with their reasons, the prices used (kind, date, source), the assumptions and the warnings.
The results views, the configuration sheet (Markdown, PDF, JSON, CSV), the compare view, ``gpudesk plan --format
json`` and saved plans all read this one shape, so a number shown for an option is the same number everywhere.

JSON: :meth:`PlanDocument.to_dict` / :meth:`PlanDocument.from_dict` (and ``to_json`` / ``from_json``). Every
document carries ``"format": "gpudesk-plan"`` and ``"version"``; :func:`migrate` upgrades older saved shapes
(version 1 and the unversioned plans saved before it) one version at a time. The schema is documented in
docs/plan-document.md. Units are in the key names (bytes, seconds, USD); a value that is not known is null.

Qt-free.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
import dataclasses
from dataclasses import dataclass, field
from typing import Any

from gpudesk import __version__
from gpudesk.i18n import _
from gpudesk.planner.errors import PlannerError
from gpudesk.planner.profile import requirement_from_dict, requirement_to_dict
from gpudesk.planner.requirement import Requirement
from gpudesk.planner.results import Candidate, Plan, Rejected
from gpudesk.planner.text_language import writing_language
from gpudesk.sizing.estimate import device_need_of

PLAN_DOCUMENT_FORMAT = "gpudesk-plan"
PLAN_DOCUMENT_VERSION = 2


class PlanDocumentError(PlannerError):
    """A plan document cannot be read: not a JSON object, not a plan, or written by a newer gpudesk."""


# --- plain-value readers: a saved plan read back from disk may hold anything -----------------------------------


def _num(value: Any) -> float | None:
    """A finite number, else None (JSON has no NaN; a saved file may hold text where a number belongs)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _int(value: Any) -> int | None:
    number = _num(value)
    return None if number is None else int(number)


def _bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _texts(value: Any) -> list[str]:
    return [str(v) for v in _list(value) if v]


def _out(value: float | None) -> float | None:
    """A number for JSON (NaN and infinities become null)."""
    return value if value is None or math.isfinite(value) else None


# --- the tree ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sourced:
    """One decision or assumption and the rule, datasheet or source behind it."""

    text: str
    source: str = ""

    def line(self) -> str:
        """``"text [source]"`` (the sheet's one-line form)."""
        return f"{self.text} [{self.source}]" if self.source else self.text

    @staticmethod
    def read(value: Any, key: str) -> Sourced | None:
        """A ``{key: text, "source": ...}`` object, a ``[text, source]`` pair or a bare string (older plans)."""
        if isinstance(value, str):
            return Sourced(value) if value else None
        if isinstance(value, (list, tuple)) and value and isinstance(value[0], str):
            return Sourced(value[0], str(value[1]) if len(value) > 1 and value[1] else "")
        if isinstance(value, Mapping):
            text = next((value[k] for k in (key, "decision", "assumption", "text", "message") if _str(value.get(k))), None)
            if text is None:
                return None
            source = next((str(value[k]) for k in ("source", "rule", "because") if value.get(k)), "")
            return Sourced(str(text), source)
        return None

    @staticmethod
    def read_all(value: Any, key: str) -> list[Sourced]:
        return [s for s in (Sourced.read(v, key) for v in _list(value)) if s is not None]


@dataclass(frozen=True)
class PriceUsed:
    """The purchase price per GPU an option used: ``usd_per_gpu`` (None: unknown), ``origin`` ("requirement":
    the profile's override, "user": your price, "catalog"; None when unknown), the price's ``date`` and
    ``source``, and ``text``, the sentence the rationale prints."""

    usd_per_gpu: float | None = None
    origin: str | None = None
    date: str | None = None
    source: str | None = None
    text: str | None = None

    @property
    def known(self) -> bool:
        return self.usd_per_gpu is not None


@dataclass(frozen=True)
class RentUsed:
    """The same GPUs rented at the lowest sourced cloud rate (gpudesk.planner.tco.RentVsBuy as data)."""

    usd_per_gpu_hour: float
    kind: str
    provider: str | None
    date: str | None
    source_url: str | None
    job_rent_usd: float | None
    horizon_rent_usd: float | None
    owned_usd: float | None
    break_even_utilisation: float | None
    verdict: str | None
    break_even_gpu_hours_per_year: float | None
    job_gpu_hours: float | None
    basis: str | None
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"usd_per_gpu_hour": self.usd_per_gpu_hour, "kind": self.kind, "provider": self.provider,
                "date": self.date, "source_url": self.source_url, "job_rent_usd": _out(self.job_rent_usd),
                "horizon_rent_usd": _out(self.horizon_rent_usd), "owned_usd": _out(self.owned_usd),
                "break_even_utilisation": _out(self.break_even_utilisation), "verdict": self.verdict,
                "break_even_gpu_hours_per_year": _out(self.break_even_gpu_hours_per_year),
                "job_gpu_hours": _out(self.job_gpu_hours), "basis": self.basis, "text": self.text}

    @staticmethod
    def read(value: Any) -> RentUsed | None:
        d = _map(value)
        rate = _num(d.get("usd_per_gpu_hour"))
        if rate is None:
            return None
        return RentUsed(rate, str(d.get("kind") or "cloud-on-demand"), _str(d.get("provider")), _str(d.get("date")),
                        _str(d.get("source_url")), _num(d.get("job_rent_usd")), _num(d.get("horizon_rent_usd")),
                        _num(d.get("owned_usd")), _num(d.get("break_even_utilisation")), _str(d.get("verdict")),
                        _num(d.get("break_even_gpu_hours_per_year")), _num(d.get("job_gpu_hours")),
                        _str(d.get("basis")), str(d.get("text") or ""))


@dataclass(frozen=True)
class SpeedBand:
    """The training estimate's expected error (gpudesk.sizing.speed_bands.ErrorBand) and the ranges it implies."""

    klass: str
    rows: int
    ratio_p10: float
    ratio_p90: float
    within_20_share: float
    step_time_range_s: tuple[float, float] | None = None
    time_to_result_range_s: tuple[float, float] | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"class": self.klass, "rows": self.rows, "ratio_p10": self.ratio_p10,
                               "ratio_p90": self.ratio_p90, "within_20_share": self.within_20_share}
        if self.step_time_range_s:
            out["step_time_range_s"] = list(self.step_time_range_s)
        if self.time_to_result_range_s:
            out["time_to_result_range_s"] = list(self.time_to_result_range_s)
        return out

    @staticmethod
    def _range(value: Any) -> tuple[float, float] | None:
        items = [_num(v) for v in _list(value)]
        return (items[0], items[1]) if len(items) == 2 and items[0] is not None and items[1] is not None else None

    @staticmethod
    def read(value: Any) -> SpeedBand | None:
        d = _map(value)
        p10, p90 = _num(d.get("ratio_p10")), _num(d.get("ratio_p90"))
        if p10 is None or p90 is None:
            return None
        return SpeedBand(str(d.get("class") or ""), _int(d.get("rows")) or 0, p10, p90,
                         _num(d.get("within_20_share")) or 0.0, SpeedBand._range(d.get("step_time_range_s")),
                         SpeedBand._range(d.get("time_to_result_range_s")))


@dataclass(frozen=True)
class PlanOption:
    """One evaluated option (GPU x count x server x interconnect) with the settings the search chose for it.

    Memory is per GPU in bytes (``per_gpu_memory_bytes``, the need on the card that every fit uses:
    :attr:`gpudesk.sizing.MemoryEstimate.device_need_bytes`, so the breakdown adds up to more where it has paged
    optimizer states in unified memory; against ``safe_line_bytes``); times in
    seconds; money in USD. Chosen settings: ``micro_batch_size`` x ``gradient_accumulation`` (training keeps the
    global batch), ``sharding``, ``recompute``, ``tensor_parallel``, ``pipeline_parallel``, ``expert_parallel``;
    a service's ``replicas`` of ``tensor_parallel`` GPUs, each running ``concurrent_sequences`` requests in the
    ``engine`` whose memory pool sized them. ``memory_assumptions`` is None in plans saved before options carried
    their own (the sheet then leaves out the whole-job lines that would contradict the option).
    """

    gpu_id: str
    gpu_name: str
    count: int
    servers: int = 1
    server_id: str | None = None
    server_name: str | None = None
    interconnect: str | None = None
    interconnect_name: str | None = None
    network_link: str | None = None
    sharding: str | None = None
    recompute: str | None = None
    per_gpu_memory_bytes: int | None = None
    per_gpu_memory_breakdown_bytes: dict[str, int] = field(default_factory=dict)
    memory_assumptions: list[Sourced] | None = None
    usable_memory_bytes: int | None = None
    safe_line_bytes: int | None = None
    headroom_to_safe_line_bytes: int | None = None
    fits: bool | None = None
    step_time_s: float | None = None
    comm_share: float | None = None
    time_to_result_s: float | None = None
    meets_deadline: bool | None = None
    deadline_miss_s: float | None = None
    qps_capacity: float | None = None
    meets_qps: bool | None = None
    data_rate_needed_bytes_per_s: float | None = None
    data_rate_available_bytes_per_s: float | None = None
    gpu_power_w: float | None = None
    tco_3y_usd: float | None = None
    tco_breakdown_usd: dict[str, float | None] = field(default_factory=dict)
    price: PriceUsed = field(default_factory=PriceUsed)
    price_known: bool = False
    host_price_known: bool | None = None
    break_even_price_usd: float | None = None
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
    speed_error_band: SpeedBand | None = None
    flops_only_time_to_result_s: float | None = None
    dominated_by: str | None = None
    ttft_s: float | None = None
    tpot_s: float | None = None
    meets_latency: bool | None = None
    rent: RentUsed | None = None
    warnings: list[str] = field(default_factory=list)
    rationale: list[Sourced] = field(default_factory=list)
    gpus_bought: int | None = None

    @property
    def bought(self) -> int:
        """GPUs paid for: more than ``count`` when the chassis is sold whole (an NVL72 rack of 72); the price and
        TCO are for these."""
        return max(self.gpus_bought or 0, self.count)

    @property
    def count_text(self) -> str:
        """The GPU count as every view shows it: ``"5 of 72 bought"`` when more are bought than used, else
        ``"5"``."""
        if self.bought > self.count:
            return _("{count:,} of {bought:,} bought").format(count=self.count, bought=self.bought)
        return f"{self.count:,}"

    @property
    def serving(self) -> bool:
        """A serving option (it has a QPS capacity; a training option has a time to result instead)."""
        return self.qps_capacity is not None

    @property
    def name(self) -> str:
        """The GPU's name (its id when a saved plan lacks the name)."""
        return self.gpu_name or self.gpu_id

    @property
    def qps_per_gpu(self) -> float | None:
        return self.qps_capacity / self.count if self.qps_capacity is not None and self.count else None

    @property
    def gpu_price_unknown(self) -> bool:
        """Whether the option's GPU price is unknown."""
        return not self.price_known

    @property
    def label(self) -> str:
        """``"8 x NVIDIA H100 SXM5 80GB (nvlink4, hgx-h100)"``, the planner's label for the option."""
        return f"{self.count} x {self.name} ({self.interconnect}, {self.server_id})"

    def same_layout(self, other: PlanOption) -> bool:
        """The same GPU, count, server and interconnect."""
        return (self.gpu_id, self.count, self.server_id, self.interconnect) == (
            other.gpu_id, other.count, other.server_id, other.interconnect)

    @staticmethod
    def from_candidate(c: Candidate) -> PlanOption:
        band = None
        if c.speed_error_band is not None:
            b = c.speed_error_band
            band = SpeedBand(b.klass, b.rows, b.ratio_p10, b.ratio_p90, b.within_20_share,
                             b.time_range(c.step_time_s) if c.step_time_s else None,
                             b.time_range(c.time_to_result_s) if c.time_to_result_s else None)
        rent = None
        if c.rent is not None:
            r = c.rent
            rent = RentUsed(r.rate.usd_per_gpu_hour, r.rate.kind, r.rate.provider, r.rate.date, r.rate.source_url,
                            r.job_rent_usd, r.horizon_rent_usd, r.owned_usd, r.break_even_utilisation, r.verdict,
                            r.break_even_gpu_hours_per_year, r.job_gpu_hours, r.basis, r.describe(c.count))
        p = c.gpu_price
        price = PriceUsed() if p is None else PriceUsed(p.price_usd, p.origin, p.date, p.source, p.describe())
        return PlanOption(
            gpu_id=c.gpu_id, gpu_name=c.gpu_name, count=c.count, servers=c.servers, server_id=c.server_id,
            server_name=c.server_name, interconnect=c.interconnect, interconnect_name=c.interconnect_name,
            network_link=c.network_link, sharding=c.sharding, recompute=c.recompute,
            per_gpu_memory_bytes=c.per_gpu_memory_bytes, per_gpu_memory_breakdown_bytes=dict(c.memory.breakdown),
            memory_assumptions=[Sourced(a, s) for a, s in c.memory.assumptions],
            usable_memory_bytes=c.usable_memory_bytes, safe_line_bytes=c.safe_line_bytes,
            headroom_to_safe_line_bytes=c.headroom_bytes, fits=c.fits, step_time_s=_out(c.step_time_s),
            comm_share=_out(c.comm_share), time_to_result_s=_out(c.time_to_result_s), meets_deadline=c.meets_deadline,
            deadline_miss_s=_out(c.deadline_miss_s), qps_capacity=_out(c.qps_capacity), meets_qps=c.meets_qps,
            data_rate_needed_bytes_per_s=_out(c.data_rate_needed_bytes_per_s),
            data_rate_available_bytes_per_s=_out(c.data_rate_available_bytes_per_s), gpu_power_w=c.gpu_power_w,
            tco_3y_usd=_out(c.tco_3y_usd), tco_breakdown_usd={k: _out(v) for k, v in c.tco_breakdown_usd.items()},
            price=price, price_known=c.price_known, host_price_known=c.host_price_known,
            break_even_price_usd=_out(c.break_even_price_usd), break_even_host_price_usd=_out(c.break_even_host_price_usd),
            rank_reason=c.rank_reason, micro_batch_size=c.micro_batch_size, gradient_accumulation=c.gradient_accumulation,
            tensor_parallel=c.tensor_parallel, pipeline_parallel=c.pipeline_parallel, expert_parallel=c.expert_parallel,
            replicas=c.replicas, concurrent_sequences=c.concurrent_sequences, engine=c.engine,
            speed_error_band=band, flops_only_time_to_result_s=_out(c.flops_only_time_to_result_s),
            dominated_by=c.dominated_by, ttft_s=_out(c.ttft_s), tpot_s=_out(c.tpot_s), meets_latency=c.meets_latency,
            rent=rent, warnings=list(c.warnings), rationale=[Sourced(d, s) for d, s in c.rationale],
            gpus_bought=c.bought)

    def to_dict(self) -> dict[str, Any]:
        """The option as JSON (version 2 keeps every version-1 key; see docs/plan-document.md)."""
        return {
            "gpu_id": self.gpu_id, "gpu_name": self.gpu_name, "count": self.count, "gpus_bought": self.bought,
            "servers": self.servers, "server_id": self.server_id, "server_name": self.server_name, "interconnect": self.interconnect,
            "interconnect_name": self.interconnect_name, "network_link": self.network_link,
            "sharding": self.sharding, "recompute": self.recompute,
            "per_gpu_memory_bytes": self.per_gpu_memory_bytes,
            "per_gpu_memory_breakdown_bytes": dict(self.per_gpu_memory_breakdown_bytes),
            "memory_assumptions": None if self.memory_assumptions is None else [
                {"assumption": a.text, "source": a.source} for a in self.memory_assumptions],
            "usable_memory_bytes": self.usable_memory_bytes, "safe_line_bytes": self.safe_line_bytes,
            "headroom_to_safe_line_bytes": self.headroom_to_safe_line_bytes, "fits": self.fits,
            "step_time_s": self.step_time_s, "comm_share": self.comm_share, "time_to_result_s": self.time_to_result_s,
            "meets_deadline": self.meets_deadline, "deadline_miss_s": self.deadline_miss_s,
            "qps_capacity": self.qps_capacity, "qps_per_gpu": self.qps_per_gpu, "meets_qps": self.meets_qps,
            "data_rate_needed_bytes_per_s": self.data_rate_needed_bytes_per_s,
            "data_rate_available_bytes_per_s": self.data_rate_available_bytes_per_s, "gpu_power_w": self.gpu_power_w,
            "tco_3y_usd": self.tco_3y_usd, "tco_breakdown_usd": dict(self.tco_breakdown_usd),
            "gpu_price_usd": self.price.usd_per_gpu, "gpu_price_origin": self.price.origin,
            "gpu_price_date": self.price.date, "gpu_price_source": self.price.source,
            "gpu_price_text": self.price.text, "price_known": self.price_known,
            "host_price_known": self.host_price_known, "break_even_price_usd": self.break_even_price_usd,
            "break_even_host_price_usd": self.break_even_host_price_usd, "rank_reason": self.rank_reason,
            "micro_batch_size": self.micro_batch_size, "gradient_accumulation": self.gradient_accumulation,
            "tensor_parallel": self.tensor_parallel, "pipeline_parallel": self.pipeline_parallel,
            "expert_parallel": self.expert_parallel, "replicas": self.replicas,
            "concurrent_sequences": self.concurrent_sequences, "engine": self.engine,
            "speed_error_band": None if self.speed_error_band is None else self.speed_error_band.to_dict(),
            "flops_only_time_to_result_s": self.flops_only_time_to_result_s, "dominated_by": self.dominated_by,
            "ttft_s": self.ttft_s, "tpot_s": self.tpot_s, "meets_latency": self.meets_latency,
            "rent": None if self.rent is None else self.rent.to_dict(),
            "warnings": list(self.warnings),
            "rationale": [{"decision": r.text, "source": r.source} for r in self.rationale],
        }

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> PlanOption:
        """An option read from a (migrated) plan document; wrong-typed values read as unknown."""
        breakdown = {str(k): int(v) for k, v in _map(d.get("per_gpu_memory_breakdown_bytes")).items()
                     if _num(v) is not None}
        total = _int(d.get("per_gpu_memory_bytes"))
        own = d.get("memory_assumptions")
        return PlanOption(
            gpu_id=str(d.get("gpu_id") or ""), gpu_name=str(d.get("gpu_name") or d.get("gpu_id") or ""),
            count=_int(d.get("count")) or 0, servers=_int(d.get("servers")) or 1, server_id=_str(d.get("server_id")),
            server_name=_str(d.get("server_name")), interconnect=_str(d.get("interconnect")),
            interconnect_name=_str(d.get("interconnect_name")), network_link=_str(d.get("network_link")),
            sharding=_str(d.get("sharding")), recompute=_str(d.get("recompute")),
            per_gpu_memory_bytes=total if total is not None or not breakdown else int(device_need_of(breakdown)),
            per_gpu_memory_breakdown_bytes=breakdown,
            memory_assumptions=Sourced.read_all(own, "assumption") if isinstance(own, list) else None,
            usable_memory_bytes=_int(d.get("usable_memory_bytes")), safe_line_bytes=_int(d.get("safe_line_bytes")),
            headroom_to_safe_line_bytes=_int(d.get("headroom_to_safe_line_bytes")), fits=_bool(d.get("fits")),
            step_time_s=_num(d.get("step_time_s")), comm_share=_num(d.get("comm_share")),
            time_to_result_s=_num(d.get("time_to_result_s")), meets_deadline=_bool(d.get("meets_deadline")),
            deadline_miss_s=_num(d.get("deadline_miss_s")), qps_capacity=_num(d.get("qps_capacity")),
            meets_qps=_bool(d.get("meets_qps")),
            data_rate_needed_bytes_per_s=_num(d.get("data_rate_needed_bytes_per_s")),
            data_rate_available_bytes_per_s=_num(d.get("data_rate_available_bytes_per_s")),
            gpu_power_w=_num(d.get("gpu_power_w")), tco_3y_usd=_num(d.get("tco_3y_usd")),
            tco_breakdown_usd={str(k): _num(v) for k, v in _map(d.get("tco_breakdown_usd")).items()},
            price=PriceUsed(_num(d.get("gpu_price_usd")), _str(d.get("gpu_price_origin")), _str(d.get("gpu_price_date")),
                            _str(d.get("gpu_price_source")), _str(d.get("gpu_price_text"))),
            price_known=d.get("price_known") is True, host_price_known=_bool(d.get("host_price_known")),
            break_even_price_usd=_num(d.get("break_even_price_usd")),
            break_even_host_price_usd=_num(d.get("break_even_host_price_usd")), rank_reason=_str(d.get("rank_reason")),
            micro_batch_size=_int(d.get("micro_batch_size")), gradient_accumulation=_int(d.get("gradient_accumulation")),
            tensor_parallel=_int(d.get("tensor_parallel")), pipeline_parallel=_int(d.get("pipeline_parallel")),
            expert_parallel=_int(d.get("expert_parallel")), replicas=_int(d.get("replicas")),
            concurrent_sequences=_int(d.get("concurrent_sequences")), engine=_str(d.get("engine")),
            speed_error_band=SpeedBand.read(d.get("speed_error_band")),
            flops_only_time_to_result_s=_num(d.get("flops_only_time_to_result_s")),
            dominated_by=_str(d.get("dominated_by")), ttft_s=_num(d.get("ttft_s")), tpot_s=_num(d.get("tpot_s")),
            meets_latency=_bool(d.get("meets_latency")), rent=RentUsed.read(d.get("rent")),
            warnings=_texts(d.get("warnings")), rationale=Sourced.read_all(d.get("rationale"), "decision"),
            gpus_bought=_int(d.get("gpus_bought")))


@dataclass(frozen=True)
class RejectedOption:
    """An option ruled out, with every reason (each names its rule or datasheet); ``count`` 0 = the GPU itself."""

    gpu_id: str
    gpu_name: str
    count: int
    server_id: str | None
    interconnect: str | None
    reasons: list[str]
    over_gpu_limit: bool = False

    @staticmethod
    def from_rejected(r: Rejected) -> RejectedOption:
        return RejectedOption(r.gpu_id, r.gpu_name, r.count, r.server_id, r.interconnect, list(r.reasons),
                              r.over_gpu_limit)

    def to_dict(self) -> dict[str, Any]:
        return {"gpu_id": self.gpu_id, "gpu_name": self.gpu_name, "count": self.count, "server_id": self.server_id,
                "interconnect": self.interconnect, "reasons": list(self.reasons), "over_gpu_limit": self.over_gpu_limit}

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> RejectedOption:
        return RejectedOption(str(d.get("gpu_id") or ""), str(d.get("gpu_name") or d.get("gpu_id") or ""),
                              _int(d.get("count")) or 0, _str(d.get("server_id")), _str(d.get("interconnect")),
                              _texts(d.get("reasons")), d.get("over_gpu_limit") is True)


@dataclass(frozen=True)
class ClosestOption:
    """An option that misses the deadline by the least (``deadline_miss_s`` late)."""

    gpu_id: str
    count: int
    interconnect: str | None
    deadline_miss_s: float | None
    time_to_result_s: float | None

    def to_dict(self) -> dict[str, Any]:
        return {"gpu_id": self.gpu_id, "count": self.count, "interconnect": self.interconnect,
                "deadline_miss_s": self.deadline_miss_s, "time_to_result_s": self.time_to_result_s}

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> ClosestOption:
        return ClosestOption(str(d.get("gpu_id") or ""), _int(d.get("count")) or 0, _str(d.get("interconnect")),
                             _num(d.get("deadline_miss_s")), _num(d.get("time_to_result_s")))


@dataclass(frozen=True)
class Change:
    """The smallest change of one control that gives an answer (gpudesk.planner.binding_types.PlanChange)."""

    field: str
    label: str
    current: float | None
    value: float | None
    text: str


@dataclass(frozen=True)
class Binding:
    """The constraint that rules every option out, named by its control, and the smallest change of each."""

    field: str
    label: str
    text: str
    changes: list[Change] = dataclasses.field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"field": self.field, "label": self.label, "text": self.text,
                "changes": [{"field": c.field, "label": c.label, "current": _out(c.current), "value": _out(c.value),
                             "text": c.text} for c in self.changes]}

    @staticmethod
    def read(value: Any) -> Binding | None:
        d = _map(value)
        if not d.get("text"):
            return None
        changes = [Change(str(c.get("field") or ""), str(c.get("label") or c.get("field") or ""), _num(c.get("current")),
                          _num(c.get("value")), str(c.get("text") or ""))
                   for c in _list(d.get("changes")) if isinstance(c, Mapping)]
        return Binding(str(d.get("field") or ""), str(d.get("label") or d.get("field") or ""), str(d["text"]), changes)


@dataclass(frozen=True)
class ModelUsed:
    """The model shape the plan used (``shape_is_guess`` when inferred from the parameter count)."""

    name: str
    params: int | None
    shape_is_guess: bool = False
    source: str | None = None


@dataclass(frozen=True)
class JobMemory:
    """The job's memory on one GPU without sharding (what the whole job holds), with its assumptions."""

    total_bytes: int | None
    breakdown_bytes: dict[str, int]
    assumptions: list[Sourced]

    @property
    def need_bytes(self) -> int | None:
        """What the job needs on the card (:attr:`gpudesk.sizing.MemoryEstimate.device_need_bytes`): the breakdown
        less the parts outside the card's reported total, or the saved total where no breakdown was saved."""
        return int(device_need_of(self.breakdown_bytes)) if self.breakdown_bytes else self.total_bytes


@dataclass(frozen=True)
class PriceRecord:
    """A price a plan used for one GPU type: the purchase price (``purchase``) and the lowest sourced rental rate
    (``rent_usd_per_gpu_hour`` of ``rent_kind`` from ``rent_provider``, dated and sourced), None where unknown."""

    gpu_id: str
    gpu_name: str
    purchase: PriceUsed
    rent_usd_per_gpu_hour: float | None = None
    rent_kind: str | None = None
    rent_provider: str | None = None
    rent_date: str | None = None
    rent_source_url: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"gpu_id": self.gpu_id, "gpu_name": self.gpu_name, "purchase_usd_per_gpu": self.purchase.usd_per_gpu,
                "purchase_origin": self.purchase.origin, "purchase_date": self.purchase.date,
                "purchase_source": self.purchase.source, "rent_usd_per_gpu_hour": self.rent_usd_per_gpu_hour,
                "rent_kind": self.rent_kind, "rent_provider": self.rent_provider, "rent_date": self.rent_date,
                "rent_source_url": self.rent_source_url}


def prices_used(options: list[PlanOption]) -> list[PriceRecord]:
    """One record per GPU type among ``options``, in rank order (the first option of each type carries them)."""
    out: dict[str, PriceRecord] = {}
    for o in options:
        if o.gpu_id in out:
            continue
        r = o.rent
        out[o.gpu_id] = PriceRecord(o.gpu_id, o.name, o.price, r.usd_per_gpu_hour if r else None, r.kind if r else None,
                                    r.provider if r else None, r.date if r else None, r.source_url if r else None)
    return list(out.values())


@dataclass(frozen=True)
class PlanDocument:
    """The plan as every view reads it. See the module docstring and docs/plan-document.md.

    Attributes:
        name: the plan's name (the requirement's).
        requirement: the requirement as typed data (None for a saved plan whose requirement no longer reads:
            its ``requirement_problem`` says why).
        workload_kind: gpudesk.planner.classify.WORKLOAD_KINDS.
        model: the model shape used. memory: the whole job on one GPU without sharding.
        candidates: the feasible options, best first. rejected: the options ruled out, with reasons.
        deadline_met_by_any: None without a deadline. closest: the options that miss it by the least.
        binding: what rules every option out (None when something fits).
        warnings, rationale: plan-level (the options carry their own).
        gpudesk_version: the gpudesk that wrote the plan. version: the document version it was read from.
        serving_side: for a mixed workload (training share below 1 with a QPS target), the plan that serves the
            same model at the target QPS (gpudesk.planner.mixed); None otherwise.
    """

    name: str
    requirement: Requirement | None
    workload_kind: str | None
    model: ModelUsed | None
    memory: JobMemory | None
    candidates: list[PlanOption]
    rejected: list[RejectedOption] = field(default_factory=list)
    deadline_met_by_any: bool | None = None
    closest: list[ClosestOption] = field(default_factory=list)
    binding: Binding | None = None
    warnings: list[str] = field(default_factory=list)
    rationale: list[Sourced] = field(default_factory=list)
    gpudesk_version: str = __version__
    version: int = PLAN_DOCUMENT_VERSION
    requirement_problem: str | None = None
    #: A mixed workload's serving half (gpudesk.planner.mixed): the same model served at the target QPS.
    serving_side: PlanDocument | None = None
    #: The language its prose (rank reasons, warnings, rationale, price texts) is written in
    #: (gpudesk.planner.text_language); None for plans saved before gpudesk recorded it.
    text_language: str | None = None

    # --- typed reads of the requirement (None when the plan has none) ---------------------------------------
    @property
    def top(self) -> PlanOption | None:
        return self.candidates[0] if self.candidates else None

    @property
    def mode(self) -> str | None:
        return self.requirement.model.mode if self.requirement else None

    @property
    def serving(self) -> bool:
        """A serving plan (inference mode, or options that carry a QPS capacity)."""
        if self.requirement is not None:
            return self.requirement.model.mode == "inference"
        return bool(self.candidates) and self.candidates[0].serving

    @property
    def mixed(self) -> bool:
        """Training that also serves: a training share below 1 with a QPS target (the mixed results page)."""
        r = self.requirement
        return self.serving_side is not None or (r is not None and r.model.mode != "inference"
                                                  and r.workload.training_share < 1 and bool(r.workload.target_qps))

    @property
    def deadline_s(self) -> float | None:
        return self.requirement.workload.deadline_s if self.requirement else None

    @property
    def target_qps(self) -> float | None:
        return self.requirement.workload.target_qps if self.requirement else None

    @property
    def output_tokens(self) -> int | None:
        return self.requirement.workload.output_tokens if self.requirement else None

    @property
    def budget_usd(self) -> float | None:
        return self.requirement.operations.budget_usd if self.requirement else None

    @property
    def market(self) -> str | None:
        return self.requirement.operations.market if self.requirement else None

    @property
    def tco_years(self) -> float:
        return self.requirement.tco.years if self.requirement else 3.0

    @property
    def prices_used(self) -> list[PriceRecord]:
        """The purchase price and rental rate used for each GPU type among the options (rank order)."""
        return prices_used(self.candidates)

    @property
    def assumptions(self) -> list[Sourced]:
        """The plan-level assumptions: the whole-job memory estimate's, then the TCO's settings."""
        out = list(self.memory.assumptions) if self.memory else []
        if self.requirement is not None:
            t = self.requirement.tco
            out.append(Sourced(_("{years:g}-year TCO at ${usd_per_kwh:g}/kWh, PUE {pue:g}, utilisation {utilisation:.0%}, "
                                 "support {support:.0%} of hardware a year, network and installation {network:.0%}, "
                                 "residual {residual:.0%}").format(
                years=t.years, usd_per_kwh=t.electricity_usd_per_kwh, pue=t.pue, utilisation=t.utilisation,
                support=t.support_fraction_per_year, network=t.network_install_fraction, residual=t.residual_fraction),
                "requirement: [tco]; TcoAssumptions.SOURCES"))
        return out

    def profile(self) -> dict[str, Any]:
        """The requirement as the TOML-shaped profile dictionary ({} when the plan has none)."""
        return requirement_to_dict(self.requirement) if self.requirement is not None else {}

    def option(self, index: int) -> PlanOption | None:
        return self.candidates[index] if 0 <= index < len(self.candidates) else None

    # --- conversion ------------------------------------------------------------------------------------------
    @staticmethod
    def from_plan(plan: Plan) -> PlanDocument:
        """The document of a fresh plan."""
        spec = plan.model
        return PlanDocument(
            name=plan.requirement.name, requirement=plan.requirement, workload_kind=plan.workload_kind,
            model=ModelUsed(spec.name, spec.params, spec.shape_is_guess, spec.source),
            memory=JobMemory(plan.memory.total_bytes, dict(plan.memory.breakdown),
                             [Sourced(a, s) for a, s in plan.memory.assumptions]),
            candidates=[PlanOption.from_candidate(c) for c in plan.candidates],
            rejected=[RejectedOption.from_rejected(r) for r in plan.rejected],
            deadline_met_by_any=plan.deadline_met_by_any,
            closest=[ClosestOption(c.gpu_id, c.count, c.interconnect, _out(c.deadline_miss_s), _out(c.time_to_result_s))
                     for c in plan.closest],
            binding=None if plan.binding is None else Binding(
                plan.binding.field, plan.binding.label, plan.binding.text,
                [Change(c.field, c.label, c.current, c.value, c.text) for c in plan.binding.changes]),
            warnings=list(plan.warnings), rationale=[Sourced(d, s) for d, s in plan.rationale],
            text_language=writing_language())

    def to_dict(self, max_rejected: int | None = None) -> dict[str, Any]:
        """The document as JSON-ready data (the current version; ``max_rejected`` caps the rejected list)."""
        rejected = self.rejected if max_rejected is None else self.rejected[:max_rejected]
        m = self.model
        return {
            "format": PLAN_DOCUMENT_FORMAT,
            "version": PLAN_DOCUMENT_VERSION,
            "gpudesk_version": self.gpudesk_version,
            "name": self.name,
            "requirement": self.profile(),
            "workload_kind": self.workload_kind,
            "model": None if m is None else {"name": m.name, "params": m.params, "shape_is_guess": m.shape_is_guess,
                                             "source": m.source},
            "memory": None if self.memory is None else {
                "total_bytes": self.memory.total_bytes, "breakdown_bytes": dict(self.memory.breakdown_bytes),
                "assumptions": [{"assumption": a.text, "source": a.source} for a in self.memory.assumptions]},
            "candidates": [c.to_dict() for c in self.candidates],
            "rejected": [r.to_dict() for r in rejected],
            "deadline_met_by_any": self.deadline_met_by_any,
            "closest": [c.to_dict() for c in self.closest],
            "binding": None if self.binding is None else self.binding.to_dict(),
            "prices_used": [p.to_dict() for p in self.prices_used],
            "assumptions": [{"assumption": a.text, "source": a.source} for a in self.assumptions],
            "warnings": list(self.warnings),
            "rationale": [{"decision": r.text, "source": r.source} for r in self.rationale],
            "serving_side": None if self.serving_side is None else self.serving_side.to_dict(max_rejected),
            "text_language": self.text_language,
        }

    def to_json(self, max_rejected: int | None = None) -> str:
        """Pretty-printed JSON text (UTF-8 kept as is)."""
        return json.dumps(self.to_dict(max_rejected), indent=2, ensure_ascii=False, allow_nan=False) + "\n"

    @staticmethod
    def from_dict(data: Any) -> PlanDocument:
        """Read a plan document of any version this gpudesk knows (migrated to the current one first).

        Raises:
            PlanDocumentError: not a JSON object, or a version newer than this gpudesk reads.
        """
        d = migrate(data)
        problem = None
        requirement = None
        profile = d.get("requirement")
        if isinstance(profile, dict) and profile:
            try:
                requirement = requirement_from_dict(profile)
            except PlannerError as exc:
                problem = str(exc)
        model = _map(d.get("model"))
        memory = _map(d.get("memory"))
        return PlanDocument(
            name=str(d.get("name") or (requirement.name if requirement else "") or ""),
            requirement=requirement, requirement_problem=problem, workload_kind=_str(d.get("workload_kind")),
            model=ModelUsed(str(model.get("name") or ""), _int(model.get("params")), model.get("shape_is_guess") is True,
                            _str(model.get("source"))) if model else None,
            memory=JobMemory(_int(memory.get("total_bytes")),
                             {str(k): int(v) for k, v in _map(memory.get("breakdown_bytes")).items() if _num(v) is not None},
                             Sourced.read_all(memory.get("assumptions"), "assumption")) if memory else None,
            candidates=[PlanOption.from_dict(c) for c in _list(d.get("candidates")) if isinstance(c, Mapping)],
            rejected=[RejectedOption.from_dict(r) for r in _list(d.get("rejected")) if isinstance(r, Mapping)],
            deadline_met_by_any=_bool(d.get("deadline_met_by_any")),
            closest=[ClosestOption.from_dict(c) for c in _list(d.get("closest")) if isinstance(c, Mapping)],
            binding=Binding.read(d.get("binding")), warnings=_texts(d.get("warnings")),
            rationale=Sourced.read_all(d.get("rationale"), "decision"),
            gpudesk_version=str(d.get("gpudesk_version") or ""), version=int(d["version"]),
            serving_side=PlanDocument.from_dict(d["serving_side"]) if isinstance(d.get("serving_side"), Mapping) else None,
            text_language=_str(d.get("text_language")))

    @staticmethod
    def from_json(text: str) -> PlanDocument:
        """:meth:`from_dict` of JSON text.

        Raises:
            PlanDocumentError: not JSON, not a plan, or too new.
        """
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise PlanDocumentError(_("The plan is not valid JSON: {reason}.").format(reason=exc)) from exc
        return PlanDocument.from_dict(data)


def as_document(plan: PlanDocument | Mapping[str, Any]) -> PlanDocument:
    """``plan`` itself, or the document a plan dictionary (any saved version) reads as."""
    return plan if isinstance(plan, PlanDocument) else PlanDocument.from_dict(plan)


def top_option(data: Mapping[str, Any]) -> PlanOption | None:
    """The best option of a saved plan dictionary without reading the rest (the saved-plans list); None when it
    has none or cannot be read."""
    try:
        first = next((c for c in _list(migrate(data).get("candidates")) if isinstance(c, Mapping)), None)
    except PlanDocumentError:
        return None
    return PlanOption.from_dict(first) if first is not None else None


# --- migration --------------------------------------------------------------------------------------------------


def _v1_to_v2(d: dict[str, Any]) -> dict[str, Any]:
    """Version 1 (and the unversioned plans saved before it) -> 2: ``format`` added; options saved before
    ``price_known`` existed get it from their TCO's GPU line (a GPU line of null = no price); rationale entries
    written as ``[decision, source]`` pairs or bare strings become objects. Options gain ``replicas``,
    ``concurrent_sequences`` and ``engine`` (null: not recorded); ``prices_used`` and ``assumptions`` are derived
    on reading, so nothing else is needed."""
    out = dict(d)
    out["format"] = PLAN_DOCUMENT_FORMAT
    candidates = []
    for c in _list(d.get("candidates")):
        if not isinstance(c, Mapping):
            continue
        c = dict(c)
        if not isinstance(c.get("price_known"), bool):
            tco = _map(c.get("tco_breakdown_usd"))
            c["price_known"] = not (bool(tco) and tco.get("gpus") is None) and (
                c.get("gpu_price_usd") is not None or _num(tco.get("gpus")) is not None)
        c["rationale"] = [{"decision": s.text, "source": s.source}
                          for s in Sourced.read_all(c.get("rationale"), "decision")]
        candidates.append(c)
    out["candidates"] = candidates
    out["rationale"] = [{"decision": s.text, "source": s.source} for s in Sourced.read_all(d.get("rationale"), "decision")]
    out["version"] = 2
    return out


#: version -> the function that lifts a document of that version to the next one.
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {1: _v1_to_v2}


def migrate(data: Any) -> dict[str, Any]:
    """``data`` (a plan dictionary of any known version) upgraded to :data:`PLAN_DOCUMENT_VERSION`.

    Raises:
        PlanDocumentError: not an object, not a plan, or a version newer than this gpudesk reads.
    """
    if not isinstance(data, Mapping):
        raise PlanDocumentError(_("A plan must be a JSON object, got {type}.").format(type=type(data).__name__))
    fmt = data.get("format")
    if fmt is not None and fmt != PLAN_DOCUMENT_FORMAT:
        raise PlanDocumentError(_("This file is a {found}, not a gpudesk plan.").format(found=fmt))
    version = data.get("version", 1)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise PlanDocumentError(_("The plan's version {version!r} is not a whole number from 1.").format(version=version))
    if version > PLAN_DOCUMENT_VERSION:
        raise PlanDocumentError(_("The plan was written by a newer gpudesk (plan version {version}; this one reads up "
                                  "to {supported}); update gpudesk to open it.").format(
            version=version, supported=PLAN_DOCUMENT_VERSION))
    out = dict(data)
    while version < PLAN_DOCUMENT_VERSION:
        out = MIGRATIONS[version](out)
        version = int(out["version"])
    out["version"] = version
    return out
