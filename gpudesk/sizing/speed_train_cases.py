"""A published training run (one row of ``tests/fixtures/speed/*.jsonl``) mapped onto the speed model's inputs.

The row's fields are the configuration as published (README of that folder); this module only translates them:
the catalog GPU and its server's intra-node link, the published scale-out network, and the framework as the
user would select it (``--framework``). Nothing here depends on a row's id or source.
"""

from __future__ import annotations

import re
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
NETWORK_LINKS = {"ib-hdr": "ib-hdr", "ib-ndr": "ib-ndr", "ib-400g": "ib-ndr", "ib-xdr": "ib-xdr", "ib-800g": "ib-xdr",
                 "roce-400": "roce-400", "roce-200": "roce-200", "roce-100": "roce-100", "slingshot-11": "slingshot-11"}
# A single-node or NVL72 row names only its NVLink; its scale-out NIC is the DGX/HGX one: 400 Gb/s per GPU.
DEFAULT_NETWORK = "ib-ndr"
# A host's scale-out NICs published as a count and a rate: "roce-4x100g", "4x 200 Gb/s Cassini NICs per node",
# "8x 200G per VM", "2 x 200Gbe Ethernet" (a count, an "x", a rate in Gb/s). The speed model takes the network as one
# NIC per GPU (speed_parallel ring_link: a node's k GPUs send through k NICs at once, the node's aggregate NIC
# bandwidth, NCCL tests PERFORMANCE.md); a host with fewer NICs than GPUs shares them, so each GPU's share is the
# host's aggregate / its GPUs. InternLM's A100 cluster: "inter-machine bandwidth 4 * 100Gb RoCE" for 8 GPUs
# (github.com/InternLM/InternLM doc/en/train_performance.md at 20fe5ac), 6.25 GB/s per GPU, not the 50 of one NDR
# port per GPU. A count "per card" is an accelerator's own ports (Gaudi's on-chip RoCE), not the host's NICs.
NODE_NIC_PATTERN = re.compile(r"(\d+)\s*x\s*(\d+(?:\.\d+)?)\s*g", re.IGNORECASE)
# Intel Omni-Path links counted without a rate ("4 OPA links per node"): Omni-Path Architecture 100 Series,
# 100 Gb/s per port (Intel Omni-Path Host Fabric Interface Adapter 100 Series product brief).
OMNI_PATH_PATTERN = re.compile(r"(\d+)\s*(?:opa|omni-path)\s+links?", re.IGNORECASE)
OMNI_PATH_GBITS_PER_PORT = 100.0
# A host's NICs counted in words with the link rate written beside them: "ib-edr 100 Gb/s (one ConnectX-4 HCA per
# node)" (OneFlow DLPerf's V100 cluster, github.com/Oneflow-Inc/DLPerf Megatron-LM/README.md at c89430b: one
# Mellanox MT27700 100 Gb/s EDR HCA, mlx5_0, for the 8 GPUs of each server). The count is the number or word before
# an adapter noun ("HCA", "NIC", "adapter", "port") and "per node/host/server"; the rate is the text's "<n> Gb/s".
COUNTED_NIC_PATTERN = re.compile(r"\b(one|two|four|eight|\d+)\s+(?:[\w-]+\s+){0,3}?(?:hcas?|nics?|adapters?|ports?)\s+"
                                 r"per\s+(?:node|host|server)\b", re.IGNORECASE)
NIC_RATE_PATTERN = re.compile(r"(\d+(?:\.\d+)?)\s*(?:Gb/s|Gbps|Gbit/s)")
COUNT_WORDS = {"one": 1, "two": 2, "four": 4, "eight": 8}


def host_nic_gbps_per_gpu(interconnect: str, host_gpus: int) -> float | None:
    """Each GPU's share (GB/s per direction) of the scale-out NICs a row's ``interconnect`` text counts for its
    host (:data:`NODE_NIC_PATTERN`, :data:`COUNTED_NIC_PATTERN` with :data:`NIC_RATE_PATTERN`,
    :data:`OMNI_PATH_PATTERN`); None when the text gives no count and rate."""
    if "per card" in interconnect.lower():
        return None
    match = NODE_NIC_PATTERN.search(interconnect)
    counted = COUNTED_NIC_PATTERN.search(interconnect)
    rate = NIC_RATE_PATTERN.search(interconnect)
    if match:
        gbits = int(match.group(1)) * float(match.group(2))
    elif counted and rate:
        word = counted.group(1).lower()
        gbits = (COUNT_WORDS[word] if word in COUNT_WORDS else int(word)) * float(rate.group(1))
    else:
        opa = OMNI_PATH_PATTERN.search(interconnect)
        if not opa:
            return None
        gbits = int(opa.group(1)) * OMNI_PATH_GBITS_PER_PORT
    return gbits / 8 / max(1, host_gpus) if gbits > 0 else None


# Published framework names -> the --framework profile a user would pick for that software.
FRAMEWORK_PROFILES = {"megatron-lm": "megatron-lm", "flagscale": "megatron-lm", "megatron-core": "megatron", "nemo": "nemo",
                      "megatron-bridge": "nemo", "deepspeed": "deepspeed", "hf-trainer": "hf-trainer",
                      "meta-internal": "megatron",
                      "llm-foundry": "llm-foundry",
                      # axolotl trains through the transformers Trainer with transformers' modeling files
                      # (github.com/axolotl-ai-cloud/axolotl src/axolotl/core/trainers/base.py at 9f986f5:
                      # AxolotlTrainer subclasses transformers.Trainer).
                      "axolotl": "hf-trainer"}
# Trainers built on the same PyTorch-native stack as torchtitan (FSDP2 ``fully_shard`` per block, DTensor tensor and
# sequence parallelism without async TP, the K/V heads repeated before ``F.scaled_dot_product_attention``,
# torch.compile optional): they take torchtitan's profiles, compiled or eager by the row's ``compile``.
# KempnerForge: kempnerforge/distributed/parallel.py (apply_fsdp2, default_mp_policy), distributed/tensor_parallel.py
# (ColwiseParallel / RowwiseParallel / SequenceParallel), model/attention.py (repeat_interleave then SDPA) at
# github.com/KempnerInstitute/KempnerForge abbbac3.
TORCHTITAN_STACK = ("torchtitan", "kempnerforge")
# Plain PyTorch training loops (the published name before any remark in parentheses): nn.Module layers run op by op
# unless the row says torch.compile, SDPA attention, torch DDP / FSDP, no tensor-parallel overlap: the same profiles,
# by the row's ``compile``. rasbt/LLMs-from-scratch ch05/10_llm-training-speed (a plain loop over GPTModel with
# F.scaled_dot_product_attention, torch.compile optional) and litgpt (Lightning Fabric over litgpt/model.py's
# nn.Modules, SDPA, ``--compiler`` optional; github.com/Lightning-AI/litgpt extensions/thunder/pretrain.py), and
# lit-llama, litgpt's predecessor (github.com/Lightning-AI/lit-llama: Fabric FSDP over lit_llama/model.py, SDPA).
PYTORCH_NATIVE_STACK = ("pytorch", "pytorch ddp", "pytorch lightning", "litgpt", "lit-llama")
# MaxText on AMD GPUs runs in AMD's JAX training images, whose baked XLA_FLAGS turn the latency-hiding scheduler on
# but not XLA's collective pipeliner (github.com/AMD-AGI/Primus .github/workflows/docker-release/Dockerfile.jax-v26.4,
# fd1eeab): the speed_train ``xla-unpipelined`` profile. (MaxText's own GPU launch scripts, which NVIDIA runs use,
# pass the pipeliner flags: the default profile.)
MAXTEXT_AMD_PROFILE = "xla-unpipelined"
# Published FP8 scaling recipe names -> the model's recipes (absent: the framework's default).
FP8_RECIPE_NAMES = {"delayed": "delayed", "current": "current", "tensorwise": "current", "mxfp8": "mxfp8",
                    "mx": "mxfp8", "rowwise": "rowwise", "rowwise_with_gw_hp": "rowwise_with_gw_hp"}
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
                    efficiency_source=source, architecture=gpu.architecture,
                    compute_capability=gpu.compute_capability or "", sm_count=gpu.sm_count or 0)


def same_silicon_efficiency(gpu: GPU, peers: Iterable[GPU]) -> tuple[float, str] | None:
    """(MAMF efficiency, its source) carried from a measured GPU on the same die to ``gpu``, else None.

    The achievable matmul rate is a property of the compute die at the clock it sustains under a GEMM load: MAMF =
    units x ops per unit per clock x sustained clock x the kernels' efficiency, while the datasheet peak takes the
    boost clock (AMD ROCm blog, "Understanding Peak, Max-Achievable & Delivered FLOPs", parts 1 and 2, 2025:
    measured MAF tracks the median clock under load, which the power limit sets). So:

    - the same die at the same peak and board power runs the same GEMMs at the same rate: the H200 SXM and the
      H800 SXM (GH100 at 989 TFLOPS, 700 W) take the H100 SXM's measurement unchanged;
    - the same die at another board power sustains another clock. CMOS dynamic power is ``C V^2 f`` and the supply
      voltage scales with the clock along the DVFS curve, so a power-limited clock goes as the cube root of the power
      (Weste & Harris, CMOS VLSI Design, 4th ed., section 5.2: P_dynamic = alpha C V_DD^2 f): the measured TFLOPS
      times ``(P / P_measured)^(1/3)``, at most the measured share of ``gpu``'s own peak (a clock cannot pass its
      boost). Checked on the catalog's measured pairs: B200 -> GB200 (1000 -> 1200 W) gives 0.742 of peak against
      the measured 0.729; MI300X -> MI325X (750 -> 1000 W) 0.566 against 0.604; A100 SXM -> PCIe (400 -> 250 W) 0.744
      against 0.811. An own measurement always wins; among several measured siblings the one with the nearest board
      power per peak TFLOPS is used. The die is the catalog ``chip`` before any parenthesised package note (the
      GB300's "Blackwell Ultra (Grace Blackwell Ultra superchip)" is the B300's "Blackwell Ultra").
    """
    bf16 = float(gpu.bf16_dense_tflops or gpu.fp16_dense_tflops or 0.0)
    die = die_name(gpu.chip)
    if not die or not bf16:
        return None
    best: tuple[float, GPU] | None = None
    for peer in peers:
        peer_bf16 = float(peer.bf16_dense_tflops or peer.fp16_dense_tflops or 0.0)
        if peer.id == gpu.id or peer.matmul_efficiency is None or die_name(peer.chip) != die or not peer_bf16:
            continue
        if bool(peer.consumer) != bool(gpu.consumer):
            # GeForce boards run FP16/BF16 with FP32 accumulate at half the tensor rate per clock of the professional
            # boards on the same die (NVIDIA Ada whitepaper appendix table; RTX Blackwell whitepaper: RTX 5090 209.5
            # dense against the RTX PRO 6000's 500 on GB202), so their MAMF share is a share of another peak.
            continue
        if peer_bf16 == bf16 and peer.tdp_w == gpu.tdp_w:
            return peer.matmul_efficiency, _("{source} (measured on the {peer}: same chip, peak and power)").format(
                source=peer.matmul_efficiency_source or "MAMF", peer=peer.name)
        if not (gpu.tdp_w and peer.tdp_w):
            continue
        distance = abs(gpu.tdp_w / bf16 - peer.tdp_w / peer_bf16)
        if best is None or distance < best[0]:
            best = (distance, peer)
    if best is None:
        return None
    peer = best[1]
    peer_bf16 = float(peer.bf16_dense_tflops or peer.fp16_dense_tflops or 0.0)
    if peer.matmul_efficiency is None or not (peer.tdp_w and gpu.tdp_w):
        return None
    sustained_tflops = peer.matmul_efficiency * peer_bf16 * (gpu.tdp_w / peer.tdp_w) ** (1 / 3)
    efficiency = round(min(peer.matmul_efficiency, sustained_tflops / bf16), 3)
    return efficiency, _("{source} (measured on the {peer}, same die; carried to {power:g} W by the cube root of the "
                         "board power, CMOS dynamic power C V^2 f)").format(
        source=peer.matmul_efficiency_source or "MAMF", peer=peer.name, power=gpu.tdp_w)


def die_name(chip: str | None) -> str:
    """The compute die of a catalog ``chip`` text: the part before a parenthesised package note, stripped."""
    return (chip or "").split("(")[0].strip()


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


def nvlink_hosts_per_domain(catalog: Catalog, gpu: GPU, host_gpus: int) -> int:
    """GPUs that share one NVLink domain when a published run counts ``host_gpus`` GPUs per host.

    On a rack-scale NVLink system (catalog server sold as a whole ``rack``) a host is one compute tray
    (``min_gpus``: 4 on GB200/GB300 NVL72) and the NVLink switch trays join all trays of the rack into one domain, so a
    run that names "4 GPUs per host" still talks over NVLink to the whole rack (NVIDIA GB300 NVL72 page,
    https://www.nvidia.com/en-us/data-center/gb300-nvl72/: 18 compute trays of 4 GPUs, 72 GPUs in one NVLink domain).
    Elsewhere the host is the domain. As ``gpudesk estimate speed --gpu gb300`` takes the rack by default.
    """
    for server in catalog.servers():
        if (server.accepts(gpu) and server.sale_unit == "rack" and host_gpus <= server.min_gpus
                and catalog.link(server.interconnect).kind != "network"):
            return server.max_gpus
    return host_gpus


def named_network(interconnect: str) -> str:
    """The catalog network link a row's ``interconnect`` text names: the whole text, else the first
    :data:`NETWORK_LINKS` name written in it as a word ("nvlink (GH200 quad node) + slingshot-11 (4x 200 Gb/s ...)"
    -> slingshot-11); none named: :data:`DEFAULT_NETWORK`."""
    if interconnect in NETWORK_LINKS:
        return NETWORK_LINKS[interconnect]
    words = re.findall(r"[a-z0-9][a-z0-9-]*", interconnect.lower())
    for word in words:
        if word in NETWORK_LINKS:
            return NETWORK_LINKS[word]
    return DEFAULT_NETWORK


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
        # A PCIe-only server (no NVLink): its GPUs talk to each other over their own PCIe links, as
        # ``gpudesk estimate speed --server`` takes a PCIe server's link and GPU count (the catalog link of the GPU's
        # PCIe generation, x16; per direction).
        pcie = catalog.link(f"pcie{gpu.pcie_gen or 4}-x16")
        node, intra, intra_name = int(case.get("gpus_per_node") or 1), pcie.bandwidth_gbps_per_direction, pcie.name
        intra_kind = "pcie"
    else:
        intra_kind = "nvlink"
    net = catalog.link(named_network(str(case.get("interconnect") or "")))
    inter_gbps, inter_name = net.bandwidth_gbps_per_direction, net.name
    published = str(case.get("interconnect") or "")
    host_share = host_nic_gbps_per_gpu(published, int(case.get("gpus_per_node") or node))
    if host_share is not None:
        # The catalog link the text names (or the default) does not describe this host: the network is the
        # published one, at each GPU's share of the host's NICs.
        inter_gbps, inter_name = host_share, published
    framework = str(case.get("framework", "megatron-lm"))
    if framework in TORCHTITAN_STACK or framework.split(" (")[0] in PYTORCH_NATIVE_STACK:
        profile = "torchtitan-compile" if case.get("compile") else "torchtitan-eager"
    elif framework == "prime-rl":
        profile = "prime-rl" if case.get("compile") else "prime-rl-eager"
    elif framework == "maxtext" and gpu.vendor == "AMD":
        profile = MAXTEXT_AMD_PROFILE
    else:
        # A published name may carry a remark in parentheses ("llm-foundry (composer + pytorch fsdp)").
        profile = FRAMEWORK_PROFILES.get(framework.split(" (")[0], "megatron")
    precision = str(case.get("precision", "bf16"))
    return TrainSetup(
        gpus=int(case["gpus"]), seq_len=int(case["seq_len"]), global_batch=int(case["global_batch"]),
        micro_batch=int(case.get("micro_batch") or 1), tp=int(case.get("tp") or 1), pp=int(case.get("pp") or 1),
        vp=int(case.get("vp") or 1), cp=int(case.get("cp") or 1), ep=int(case.get("ep") or 1),
        etp=int(case.get("etp") or 1), precision="bf16" if precision == "fp16" else precision,
        sharding=SHARDING.get(str(case.get("sharding")), "distributed-optimizer"),
        recompute=str(case.get("recompute") or "none"), framework=profile,
        gpus_per_node=min(node, _host_domain(case, catalog, gpu, node, intra_kind)), intra_gbps=intra, intra_name=intra_name,
        inter_gbps=inter_gbps, inter_name=inter_name,
        tokens=float(case["tokens"]) if case.get("tokens") else None,
        adapter_params=float(case["adapter_params"]) if case.get("adapter_params") else None, ep_comm_overlap=bool(case.get("ep_overlap")),
        ep_node_dedup=str(case.get("ep_dispatcher") or "alltoall") in NODE_DEDUP_DISPATCHERS,
        fp8_recipe=FP8_RECIPE_NAMES.get(str(case.get("fp8_recipe") or "")),
        mtp_layers=int(case.get("mtp_layers") or 0), recompute_modules=_modules(case.get("recompute_modules")),
        intra_kind=intra_kind, moe_permute_fusion=_optional_bool(case, "moe_permute_fusion"),
        grouped_expert_gemm=_optional_bool(case, "grouped_expert_gemm"),
        flash_attention=_optional_bool(case, "flash_attention") is not False,
        moe_force_balance=_optional_bool(case, "moe_force_balance") is True)


def _optional_bool(case: dict[str, Any], field: str) -> bool | None:
    """A row's true/false field; absent (or null): None, the framework's default.

    Raises:
        SizingError: a value other than true or false.
    """
    value = case.get(field)
    if value is None or isinstance(value, bool):
        return value
    raise SizingError(field, _("must be true or false, not {value!r}.").format(value=value))


def _host_domain(case: dict[str, Any], catalog: Catalog, gpu: GPU, node: int, intra_kind: str) -> int:
    """The row's GPUs per NVLink domain: its ``gpus_per_node``, widened to the rack for a tray of an NVL rack."""
    host = int(case.get("gpus_per_node") or node)
    return nvlink_hosts_per_domain(catalog, gpu, host) if intra_kind == "nvlink" else host


def _modules(value: Any) -> tuple[str, ...]:
    """A row's ``recompute_modules``: a list of module names (or one space- or comma-separated string)."""
    if not value:
        return ()
    items = value.replace(",", " ").split() if isinstance(value, str) else value
    return tuple(str(item).strip().lower() for item in items)


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


__all__ = ["case_model", "case_setup", "gpu_rates", "host_nic_gbps_per_gpu", "nvlink_domain", "nvlink_hosts_per_domain", "predict_train_case", "replace",
           "same_silicon_efficiency"]
