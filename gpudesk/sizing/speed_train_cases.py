"""A published training run (one row of ``tests/fixtures/speed/*.jsonl``) mapped onto the speed model's inputs.

The row's fields are the configuration as published (README of that folder); this module only translates them:
the catalog GPU and its server's intra-node link, the published scale-out network, and the framework as the
user would select it (``--framework``). Nothing here depends on a row's id or source.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from gpudesk.catalog.catalog import Catalog
from gpudesk.catalog.records import GPU
from gpudesk.i18n import _
from gpudesk.paths import bundle_root, catalog_path
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.shapes import ModelSpec, spec_from_catalog, spec_from_hf_config
from gpudesk.sizing.speed_train import GpuRates, TrainSetup, TrainSpeed, train_speed

# Published network names -> catalog network links (per-GPU NIC, GB/s per direction).
NETWORK_LINKS = {"ib-hdr": "ib-hdr", "ib-ndr": "ib-ndr", "ib-400g": "ib-ndr", "roce-400": "roce-400",
                 "roce-200": "roce-200", "roce-100": "roce-100"}
# A single-node or NVL72 row names only its NVLink; its scale-out NIC is the DGX/HGX one: 400 Gb/s per GPU.
DEFAULT_NETWORK = "ib-ndr"
# Published framework names -> the --framework profile a user would pick for that software.
FRAMEWORK_PROFILES = {"megatron-lm": "megatron", "megatron-core": "megatron", "nemo": "nemo",
                      "megatron-bridge": "nemo", "deepspeed": "deepspeed", "hf-trainer": "hf-trainer",
                      "meta-internal": "megatron"}
# Published FP8 scaling recipe names -> the model's recipes (absent: the framework's default).
FP8_RECIPE_NAMES = {"delayed": "delayed", "current": "current", "tensorwise": "current", "mxfp8": "mxfp8",
                    "mx": "mxfp8"}
# Published token dispatchers that send a token once per destination node (the rest: one copy per expert).
NODE_DEDUP_DISPATCHERS = ("deepep", "hybridep")
SHARDING = {"distributed-optimizer": "distributed-optimizer", "ddp": "ddp", "zero1": "zero1", "zero2": "zero2",
            "zero3": "zero3", "fsdp": "fsdp"}


def gpu_rates(gpu: GPU, peers: Iterable[GPU] | None = None) -> GpuRates:
    """The speed model's view of a catalog GPU (16-bit and FP8 dense peaks, MAMF efficiency, HBM bandwidth).

    A GPU without its own MAMF measurement takes the one measured on the same silicon at the same clocks and power
    (:func:`same_silicon_efficiency` over ``peers``, default the bundled catalog's GPUs)."""
    bf16 = gpu.bf16_dense_tflops or gpu.fp16_dense_tflops
    if not bf16:
        raise SizingError("gpu", _("{gpu} has no 16-bit tensor-core rate in the catalog.").format(gpu=gpu.name))
    efficiency, source = gpu.matmul_efficiency, gpu.matmul_efficiency_source or ""
    if efficiency is None:
        sibling = same_silicon_efficiency(gpu, _catalog_gpus() if peers is None else peers)
        if sibling is not None:
            efficiency, source = sibling
    return GpuRates(name=gpu.name, bf16_tflops=float(bf16), fp8_tflops=gpu.fp8_dense_tflops,
                    matmul_efficiency=efficiency, hbm_gbps=gpu.memory_bandwidth_gbps,
                    efficiency_source=source, architecture=gpu.architecture)


def same_silicon_efficiency(gpu: GPU, peers: Iterable[GPU]) -> tuple[float, str] | None:
    """(MAMF efficiency, its source) of a measured GPU on the same chip with the same dense 16-bit peak and the same
    board power as ``gpu``, else None.

    The achievable matmul rate is a property of the compute die at its clocks: the same chip at the same peak
    (the datasheet peak is SMs x tensor throughput x boost clock) and the same power limit runs the same GEMM
    kernels at the same sustained clocks (Stas Bekman, ML Engineering, compute/accelerator: MAMF measures the
    chip's sustained GEMM throughput; the SXM and PCIe A100 on one chip differ, 0.87 vs 0.81, only through their
    power limits). So the H200 SXM and the H800 SXM (GH100 at 989 TFLOPS, 700 W, different memory or NVLink) take
    the H100 SXM's measurement.
    """
    bf16 = gpu.bf16_dense_tflops or gpu.fp16_dense_tflops
    for peer in peers:
        if (peer.id != gpu.id and peer.matmul_efficiency is not None and gpu.chip and peer.chip == gpu.chip
                and (peer.bf16_dense_tflops or peer.fp16_dense_tflops) == bf16 and peer.tdp_w == gpu.tdp_w):
            return peer.matmul_efficiency, _("{source} (measured on the {peer}: same chip, peak and power)").format(
                source=peer.matmul_efficiency_source or "MAMF", peer=peer.name)
    return None


@lru_cache(maxsize=2)
def _catalog_gpus_at(path: str) -> tuple[GPU, ...]:
    from gpudesk.catalog import open_catalog

    return tuple(open_catalog(path).gpus())


def _catalog_gpus() -> tuple[GPU, ...]:
    return _catalog_gpus_at(str(catalog_path()))


def nvlink_domain(catalog: Catalog, gpu: GPU) -> tuple[int, float, str]:
    """(GPUs in one NVLink domain, per-GPU GB/s per direction inside it, link name) from the catalog server that
    takes ``gpu`` with the widest GPU-GPU link (an NVL72 rack: 72)."""
    best: tuple[int, float, str] | None = None
    for server in catalog.servers():
        if not server.accepts(gpu):
            continue
        link = catalog.link(server.interconnect)
        if link.kind == "network":
            continue
        entry = (server.max_gpus, link.bandwidth_gbps_per_direction, link.name)
        if best is None or (entry[1], entry[0]) > (best[1], best[0]):
            best = entry
    if best is None:
        raise SizingError("gpu", _("no catalog server takes {gpu}.").format(gpu=gpu.name))
    return best


def case_model(case: dict[str, Any], catalog: Catalog) -> ModelSpec:
    """The row's model: a catalog id, or a config.json path relative to the source checkout."""
    model = str(case.get("model") or "")
    if model.endswith(".json"):
        return spec_from_hf_config(bundle_root() / Path(model))
    return spec_from_catalog(catalog.find_model(model))


def case_setup(case: dict[str, Any], catalog: Catalog, gpu: GPU) -> TrainSetup:
    """The TrainSetup a user would type for this published configuration."""
    node, intra, intra_name = nvlink_domain(catalog, gpu)
    if str(case.get("interconnect", "")).startswith("pcie"):
        node, intra, intra_name = 1, 32.0, "PCIe"
    net = catalog.link(NETWORK_LINKS.get(str(case.get("interconnect")), DEFAULT_NETWORK))
    framework = str(case.get("framework", "megatron-lm"))
    if framework == "torchtitan":
        profile = "torchtitan-compile" if case.get("compile") else "torchtitan-eager"
    else:
        profile = FRAMEWORK_PROFILES.get(framework, "megatron")
    precision = str(case.get("precision", "bf16"))
    return TrainSetup(
        gpus=int(case["gpus"]), seq_len=int(case["seq_len"]), global_batch=int(case["global_batch"]),
        micro_batch=int(case.get("micro_batch") or 1), tp=int(case.get("tp") or 1), pp=int(case.get("pp") or 1),
        vp=int(case.get("vp") or 1), cp=int(case.get("cp") or 1), ep=int(case.get("ep") or 1),
        etp=int(case.get("etp") or 1), precision="bf16" if precision == "fp16" else precision,
        sharding=SHARDING.get(str(case.get("sharding")), "distributed-optimizer"),
        recompute=str(case.get("recompute") or "none"), framework=profile,
        gpus_per_node=min(node, int(case.get("gpus_per_node") or node)), intra_gbps=intra, intra_name=intra_name,
        inter_gbps=net.bandwidth_gbps_per_direction, inter_name=net.name,
        tokens=float(case["tokens"]) if case.get("tokens") else None, ep_comm_overlap=bool(case.get("ep_overlap")),
        ep_node_dedup=str(case.get("ep_dispatcher") or "alltoall") in NODE_DEDUP_DISPATCHERS,
        fp8_recipe=FP8_RECIPE_NAMES.get(str(case.get("fp8_recipe") or "")))


def predict_train_case(case: dict[str, Any], catalog: Catalog | None = None) -> tuple[float, TrainSpeed]:
    """(predicted value in the row's measured metric and unit, the full estimate).

    Metrics: ``tokens_per_s_per_gpu``; ``tflops_per_gpu`` and ``mfu`` through the row's own ``flops_per_token``
    (the publication's FLOP accounting) and, for ``mfu``, its ``peak_tflops``; ``step_time_s``; ``time_to_train_s``.

    Raises:
        SizingError: a metric the model does not answer, or a configuration it rejects.
    """
    if catalog is None:
        from gpudesk.catalog import open_catalog

        catalog = open_catalog()
    gpu = catalog.find_gpu(str(case["gpu"]))
    spec = case_model(case, catalog)
    setup = case_setup(case, catalog, gpu)
    measured = case.get("measured") or {}
    metric = measured.get("metric")
    if metric == "time_to_train_s" and not setup.tokens:
        raise SizingError("tokens", _("a time-to-train row needs its tokens."))
    speed = train_speed(spec, gpu_rates(gpu, catalog.gpus()), setup)
    if metric == "tokens_per_s_per_gpu":
        return speed.tokens_per_s_per_gpu, speed
    if metric == "tflops_per_gpu" and measured.get("flops_per_token"):
        return speed.tokens_per_s_per_gpu * float(measured["flops_per_token"]) / 1e12, speed
    if metric == "mfu" and measured.get("flops_per_token") and measured.get("peak_tflops"):
        return speed.tokens_per_s_per_gpu * float(measured["flops_per_token"]) / (float(measured["peak_tflops"]) * 1e12), speed
    if metric == "step_time_s":
        return speed.step_time_s, speed
    if metric == "time_to_train_s" and speed.time_to_result_s is not None:
        return speed.time_to_result_s, speed
    if metric == "samples_per_s":
        return speed.tokens_per_s_per_gpu * setup.gpus / setup.seq_len, speed
    raise SizingError("measured.metric", _("the training model does not answer {metric!r}.").format(metric=metric))


__all__ = ["case_model", "case_setup", "gpu_rates", "nvlink_domain", "predict_train_case", "replace",
           "same_silicon_efficiency"]
