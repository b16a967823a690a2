"""One measured serving run (a row of ``tests/fixtures/speed/serve_runs.jsonl``) mapped onto :func:`serve_speed`.

``predict_serve_case(case) -> (prediction in the row's unit, assumptions)``: the row's model, GPU, engine,
parallelism, formats, request shape and load become a :class:`ServeLoad`; the prediction is of the row's
``measured.metric`` in its ``measured.unit`` (format: ``tests/fixtures/speed/README.md``).
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from gpudesk.catalog import Catalog, CatalogError, open_catalog
from gpudesk.catalog.records import GPU, Link
from gpudesk.i18n import _
from gpudesk.paths import bundle_root
from gpudesk.sizing.checks import choice
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.serve_network import parse_internode_network
from gpudesk.sizing.shapes import ModelSpec, spec_from_catalog, spec_from_hf_config
from gpudesk.sizing.speed_common import Assumption
from gpudesk.sizing.serve_mesh import group_link
from gpudesk.sizing.serve_wide_ep import fold_wide_expert_parallel
from gpudesk.sizing.serve_stats import LATENCY_METRICS, check_statistic
from gpudesk.sizing.speed_serve import ServeLoad, ServeSpeed, serve_speed

# Unit -> factor from the model's base unit (seconds; tokens/s; requests/s).
_TIME_UNITS = {"s": 1.0, "ms": 1e3}
_RATE_UNITS = {"tokens/s": 1.0, "tok/s": 1.0, "tokens/s/gpu": 1.0, "tok/s/gpu": 1.0, "req/s": 1.0, "requests/s": 1.0}
METRICS = ("output_tokens_per_s", "output_tokens_per_s_per_gpu", "requests_per_s", "ttft_s", "tpot_s", "itl_s",
           "e2e_latency_s", "total_tokens_per_s")
# A release number in a published engine version (the same pattern as gpudesk.sizing.serve_host).
_RELEASE = re.compile(r"\d+\.\d+")
# Interconnect as published -> the catalog link kind it means.
_PCIE = ("pcie",)


@lru_cache(maxsize=1)
def _catalog() -> Catalog:
    return open_catalog()


def _spec(model: str) -> ModelSpec:
    if "/" in model and model.endswith(".json"):
        path = Path(model)
        if not path.is_absolute():
            path = bundle_root() / "tests" / "fixtures" / model
            if not path.exists():
                path = bundle_root() / model
        return spec_from_hf_config(path)
    try:
        return spec_from_catalog(_catalog().model(model))
    except CatalogError as exc:
        raise SizingError("model", str(exc)) from exc


def _gpu(gpu_id: str) -> GPU:
    try:
        return _catalog().gpu(gpu_id)
    except CatalogError as exc:
        raise SizingError("gpu", str(exc)) from exc


def intra_link(gpu: GPU, interconnect: str | None, tp: int = 1, pp: int = 1) -> Link:
    """The GPU-GPU link of a replica of ``tp`` x ``pp`` GPUs: the catalog link when ``interconnect`` is one's id
    (on a direct-mesh board the share that joins the replica's GPUs, :func:`gpudesk.sizing.serve_mesh.group_link`),
    PCIe of the GPU's generation when published as ``pcie`` or the GPU has no NVLink/Infinity Fabric board in the
    catalog, else the board's link (HGX NVLink, OAM Infinity Fabric)."""
    cat = _catalog()
    links = {link.id: link for link in cat.links()}
    pcie = links.get(f"pcie{gpu.pcie_gen}-x16") or links["pcie4-x16"]
    if interconnect and interconnect.lower().startswith(_PCIE):
        return pcie
    if interconnect and interconnect in links and links[interconnect].kind != "network":
        return group_link(links[interconnect], tp, pp)  # a catalog link id (a server's interconnect)
    for server in cat.servers():
        link = links.get(server.interconnect)
        if link is not None and link.kind != "pcie" and server.accepts(gpu):
            return link
    return pcie


def published_version(text: object) -> str | None:
    """The row's ``engine_version`` when it holds a release number (``0.4.3.post2``, ``v0.7.3``), None when it names
    the build otherwise (a commit hash, an image tag such as ``dev``): the release is then unknown and the engine's
    current defaults apply, as for a row that gives no version (README.md)."""
    if text is None or not str(text).strip():
        return None
    return str(text) if _RELEASE.search(str(text)) else None


def load_of_case(case: dict[str, Any]) -> ServeLoad:
    """The :class:`ServeLoad` a row describes (README.md's serving fields)."""
    rate = case.get("request_rate")
    tp = int(case.get("tp") or 1)
    # Replicas as published, else every GPU of the run serving: gpus / (tp x pp). With data-parallel attention
    # (SGLang --enable-dp-attention --dp D) the published dp is the attention groups inside the replica, not replicas.
    every_gpu = max(1, int(case.get("gpus") or tp) // (tp * int(case.get("pp") or 1)))
    attention_dp = attention_groups(case, tp)
    replicas = every_gpu if attention_dp > 1 else int(case.get("dp") or every_gpu)
    # An "ep" wider than "tp" spans dp replicas (vLLM --data-parallel-size with --enable-expert-parallel): folded
    # into one replica of ep GPUs with data-parallel attention (serve_wide_ep).
    return fold_wide_expert_parallel(ServeLoad(
        engine=str(case.get("engine") or case.get("framework") or "vllm").lower(),
        input_tokens=int(case["input_tokens"]), output_tokens=int(case["output_tokens"]),
        concurrency=case.get("concurrency"),
        request_rate_per_s=(math.inf if rate in ("inf", math.inf) else rate),
        batch=case.get("batch"),
        weight_format=str(case.get("weight_format") or "checkpoint"),
        kv_dtype=str(case.get("kv_dtype") or "auto"),
        gpu_memory_utilization=case.get("gpu_memory_utilization"),
        tp=tp, replicas=replicas,
        max_num_batched_tokens=case.get("max_num_batched_tokens"), max_num_seqs=case.get("max_num_seqs"),
        cuda_graphs=not bool(case.get("enforce_eager", False)), num_prompts=case.get("num_prompts"),
        mixed_prefill=case.get("enable_chunked_prefill"), num_scheduler_steps=int(case.get("num_scheduler_steps") or 1),
        gpus_per_node=int(case["gpus_per_node"]) if case.get("gpus_per_node") else None,
        internode_network=_internode_network(case),
        overlap_scheduling=case.get("overlap_scheduling"),
        engine_version=published_version(case.get("engine_version")),
        length_spread=float(case.get("length_spread") or 0.0),
        length_distribution=str(case.get("length_distribution") or "fixed"),
        api_server_count=int(case["api_server_count"]) if case.get("api_server_count") else None,
        pp=int(case.get("pp") or 1),
        backend=str(case["backend"]) if case.get("backend") else None,
        attention_dp=attention_dp, expert_parallel=int(case.get("ep") or 1),
        benchmark_warmup=bool(case.get("benchmark_warmup", False)),
        cached_prompts=int(case.get("cached_prompts", 0)),
        prefix_caching=_on_off(case.get("prefix_caching"), "prefix_caching"),
        rocm_aiter=_on_off(case.get("rocm_aiter")),
        quantization=str(case["quantization"]) if case.get("quantization") else None,
        kv_block_size=int(case["block_size"]) if case.get("block_size") is not None else None,
        scheduler_recv_interval=int(case.get("scheduler_recv_interval") or 1),
        admit_interval_steps=int(case.get("admit_interval_steps") or 1),
        admit_min_running=int(case.get("admit_min_running") or 0),
        ttft_p99_limit_s=_limit(case, "ttft_p99_limit_s"), tpot_p99_limit_s=_limit(case, "tpot_p99_limit_s"),
    ))


def _internode_network(case: dict[str, Any]) -> str | None:
    """The row's inter-node network: its ``internode_network`` field, else its published ``interconnect`` text
    where that names a network (``ethernet ...``: TCP sockets; ``... RoCE`` / ``infiniband``: RDMA), read by the
    parser a user's ``--internode-network`` goes through (:mod:`gpudesk.sizing.serve_network`)."""
    if case.get("internode_network"):
        return str(case["internode_network"])
    text = case.get("interconnect")
    return str(text) if text and parse_internode_network(str(text)) is not None else None


def _limit(case: dict[str, Any], key: str) -> float | None:
    """A p99 latency limit of the row (seconds), None where absent."""
    return float(case[key]) if case.get(key) is not None else None


_ON_WORDS = ("on", "true", "1", "yes")
_ON_OFF_WORDS = (*_ON_WORDS, "off", "false", "0", "no")


def _on_off(value: object, field: str = "rocm_aiter") -> bool | None:
    """A row's on/off switch (true/false, "on"/"off", 1/0); None where absent.

    Raises:
        SizingError: any other value (a misspelt "of" must not read as off).
    """
    if value is None or isinstance(value, bool):
        return value
    return choice(field, str(value).strip(), _ON_OFF_WORDS) in _ON_WORDS


def attention_groups(case: dict[str, Any], tp: int) -> int:
    """Data-parallel attention groups of a row (README.md): ``attention_dp`` where published, else ``dp`` (SGLang's
    ``--dp`` next to ``--enable-dp-attention``) or ``tp`` when ``enable_dp_attention`` is true; 1 without it."""
    if case.get("attention_dp"):
        return int(case["attention_dp"])
    if not case.get("enable_dp_attention"):
        return 1
    dp = int(case.get("dp") or 1)
    return dp if 1 < dp <= tp else tp


def metric_value(speed: ServeSpeed, metric: str, input_tokens: int, statistic: str = "mean") -> float:
    """The figure ``metric`` names, in base units (s, tokens/s, requests/s); for a latency the ``statistic`` of it
    the benchmark client reports (:mod:`gpudesk.sizing.serve_stats`; ``itl_s`` pools every streamed gap).

    Raises:
        SizingError: an unknown metric or statistic.
    """
    if metric in LATENCY_METRICS and speed.latency:
        return speed.latency[metric][check_statistic(statistic)]
    values = {
        "output_tokens_per_s": speed.output_tokens_per_s,
        "output_tokens_per_s_per_gpu": speed.output_tokens_per_s / speed.gpus,
        "requests_per_s": speed.requests_per_s,
        "ttft_s": speed.ttft_s,
        "tpot_s": speed.tpot_s,
        "itl_s": speed.tpot_s,
        "e2e_latency_s": speed.e2e_latency_s,
        "total_tokens_per_s": speed.requests_per_s * input_tokens + speed.output_tokens_per_s,
    }
    if metric not in values:
        raise SizingError("measured.metric", _("{metric!r} is not a serving metric; use one of {names}.").format(
            metric=metric, names=", ".join(METRICS)))
    return values[metric]


def to_unit(value: float, metric: str, unit: str) -> float:
    """``value`` (base unit of ``metric``) in ``unit``.

    Units are matched without case or spaces ("tokens/s/GPU", the README's spelling, is "tokens/s/gpu").

    Raises:
        SizingError: a unit that does not match the metric.
    """
    table = _TIME_UNITS if metric.endswith("_s") and not metric.endswith("per_s") else _RATE_UNITS
    factor = table.get(unit.replace(" ", "").lower()) if isinstance(unit, str) else None
    if factor is None:
        raise SizingError("measured.unit", _("{unit!r} is not a unit of {metric}; use one of {names}.").format(
            unit=unit, metric=metric, names=", ".join(table)))
    return value * factor


def predict_serve_case(case: dict[str, Any]) -> tuple[float, tuple[Assumption, ...]]:
    """The prediction of the row's measured metric in the row's unit, and the assumptions it rests on.

    Raises:
        SizingError: a row that cannot be answered (unknown model or GPU, missing field, a load the model does not
            fit, an unknown metric or unit), with the reason.
    """
    if case.get("kind", "serve") != "serve":
        raise SizingError("kind", _("not a serving row."))
    measured = case.get("measured") or {}
    metric, unit = measured.get("metric"), measured.get("unit")
    if not isinstance(metric, str) or not isinstance(unit, str):
        raise SizingError("measured", _("the row has no measured metric and unit."))
    for key in ("model", "gpu", "input_tokens", "output_tokens"):
        if case.get(key) in (None, ""):
            raise SizingError(key, _("the row has no {field}.").format(field=key))
    spec = _spec(str(case["model"]))
    gpu = _gpu(str(case["gpu"]))
    try:
        load = load_of_case(case)
    except (TypeError, ValueError) as exc:
        if isinstance(exc, SizingError):
            raise
        raise SizingError("case", _("a serving field is not a number: {error}").format(error=exc)) from exc
    link = intra_link(gpu, case.get("interconnect"), load.tp, load.pp) if load.tp * load.pp > 1 else None
    speed = serve_speed(spec, gpu, load, link)
    value = metric_value(speed, metric, load.input_tokens, str(measured.get("statistic") or "mean"))
    return to_unit(value, metric, unit), speed.assumptions
