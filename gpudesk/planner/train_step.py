"""The step time of one planner training option, from the same model ``gpudesk estimate speed`` answers with.

Issue 24 item 1: one performance model for the planner, the wizard and the CLI. Every transformer training
option (full, LoRA, QLoRA; any sharding, recompute and micro-batch the search tries) is timed by
:func:`gpudesk.sizing.speed_train.train_speed`: GEMMs at the GPU's measured matmul efficiency, attention, the
memory-bound kernels, tensor-parallel and data-parallel / ZeRO traffic on the real links with their overlap, and
the optimizer update. The option's hardware maps onto the model's inputs as a user would type them:

- the NVLink (or PCIe) domain is one server's GPUs (``gpus_per_node``) at the server's GPU-GPU link; across
  servers, the plan's network link;
- NVLink-bridged PCIe pairs (H100 NVL, A100 PCIe) are a domain of 2 at the bridge's rate with PCIe (or the
  network) between pairs: the ring then crosses the slower link once per pair (:func:`speed_train.ring_link`),
  the two-level all-reduce of the bridged pairs;
- the software stack picks the framework profile (:func:`framework_profile`).

Models without a transformer shape (CNNs given by FLOPs per sample) keep the FLOPs-per-sample path of
:mod:`gpudesk.sizing.time`: the speed model needs layers, widths and a vocabulary to count its terms.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpudesk.catalog.records import GPU, Link
from gpudesk.i18n import _
from gpudesk.planner.candidates import PlanContext
from gpudesk.units import format_duration
from gpudesk.planner.results import Candidate
from gpudesk.sizing import time as tm
from gpudesk.sizing.speed_bands import train_band
from gpudesk.sizing.speed_train import TrainSetup, TrainSpeed, train_speed
from gpudesk.sizing.speed_train_cases import gpu_rates

SHARDINGS = {"ddp": "ddp", "zero1": "zero1", "zero2": "zero2", "zero3": "zero3", "fsdp": "fsdp"}


def framework_profile(ctx: PlanContext) -> str:
    """The speed model's framework profile for the requirement's software (``--framework`` of estimate speed):
    Megatron / NeMo by name, DeepSpeed by its library, torch.compile or fused kernels as ``torchtitan-compile``,
    else eager PyTorch modules (``hf-trainer``)."""
    names = " ".join([ctx.req.software.framework or ""] + list(ctx.req.software.libraries)).lower()
    if "nemo" in names:
        return "nemo"
    if "megatron" in names:
        return "megatron"
    if "deepspeed" in names:
        return "deepspeed"
    return "torchtitan-compile" if ctx.req.model.compiled else "hf-trainer"


def uses_speed_model(ctx: PlanContext) -> bool:
    """True when the requirement's model has the shape the speed model needs (a transformer with a vocabulary,
    no FLOPs-per-sample override)."""
    spec, m = ctx.spec, ctx.req.model
    return bool(spec.is_transformer and spec.vocab_size and spec.layers and spec.hidden_size
                and not m.train_flops_per_sample)


@dataclass(frozen=True)
class OptionLinks:
    """Where one option's collectives run: GPUs per NVLink/PCIe domain, its per-direction GB/s and name, and the
    link between domains."""

    gpus_per_domain: int
    domain_gbps: float
    domain_name: str
    between_gbps: float
    between_name: str


def option_links(ctx: PlanContext, link: Link, count: int, servers: int, bridge_gbps: float | None) -> OptionLinks:
    """The links of ``count`` GPUs in ``servers`` servers joined by ``link`` inside a server (``bridge_gbps``: the
    NVLink bridge of PCIe pairs, else None)."""
    per_server = max(1, count // max(1, servers))
    between_gbps = ctx.network.bandwidth_gbps_per_direction if servers > 1 else link.bandwidth_gbps_per_direction
    between_name = ctx.network.name if servers > 1 else link.name
    if bridge_gbps:
        if servers > 1:
            between_gbps = min(between_gbps, link.bandwidth_gbps_per_direction)
        return OptionLinks(2, bridge_gbps, "NVLink bridge", between_gbps, between_name)
    return OptionLinks(per_server, link.bandwidth_gbps_per_direction, link.name,
                       ctx.network.bandwidth_gbps_per_direction if servers > 1 else link.bandwidth_gbps_per_direction,
                       ctx.network.name if servers > 1 else link.name)


def option_speed(ctx: PlanContext, gpu: GPU, links: OptionLinks, count: int, sharding: str, recompute: str,
                 micro_batch: int, global_batch: int, adapter_params: float | None) -> TrainSpeed:
    """The speed model's estimate for one option (``global_batch`` sequences per optimizer step).

    Raises:
        SizingError: a layout the model rejects (the caller reports it like a memory rejection).
    """
    m = ctx.req.model
    precision = "bf16" if m.precision == "fp16" else m.precision
    setup = TrainSetup(gpus=count, seq_len=m.seq_len_tokens, global_batch=global_batch, micro_batch=micro_batch,
                       tp=max(1, m.tensor_parallel), precision=precision,
                       sharding=SHARDINGS.get(sharding, "distributed-optimizer"),
                       recompute=recompute if recompute in ("none", "selective", "full") else "none",
                       framework=framework_profile(ctx), gpus_per_node=min(count, links.gpus_per_domain),
                       intra_gbps=links.domain_gbps, intra_name=links.domain_name,
                       inter_gbps=links.between_gbps, inter_name=links.between_name,
                       adapter_params=adapter_params, mtp_layers=m.mtp_layers, moe_permute_fusion=m.moe_permute_fusion,
                       recompute_modules=tuple(m.recompute_modules) if recompute != "full" else ())
    return train_speed(ctx.spec, gpu_rates(gpu), setup)


def step_of(speed: TrainSpeed) -> tm.StepTime:
    """The planner's step record from the speed model's estimate: compute = the step less its exposed
    communication; ``comm_s`` = the exposed part (what the step waits for)."""
    exposed = speed.comm_share * speed.step_time_s
    return tm.StepTime(compute_s=speed.step_time_s - exposed, comm_s=exposed, exposed_comm_s=exposed,
                       step_s=speed.step_time_s, comm_share=speed.comm_share)


def flops_only_step_s(ctx: PlanContext, gpu: GPU, peak_tflops: float, count: int, global_batch: int,
                      full_recompute: bool) -> float:
    """The step the FLOPs-only rule gives (``6 x active params x tokens`` at the ``peak_tflops`` x MAMF efficiency
    x 0.66, no communication): shown beside the speed model's step in the trace so a ranking it changes can be
    read."""
    per_token = 4.0 if ctx.req.model.mode in ("lora", "qlora") else 6.0
    flops = (per_token + (2 if full_recompute else 0)) * ctx.spec.active_params * global_batch * ctx.req.model.seq_len_tokens
    return flops / (count * tm.achievable_flops_per_gpu(peak_tflops, gpu.matmul_efficiency))


def attach_error_band(cand: Candidate) -> None:
    """Set the candidate's expected error band (:mod:`gpudesk.sizing.speed_bands`) and say it in the trace: the
    range the measured time to result falls in for 80 % of the published runs of its class."""
    band = train_band(cand.gpu_id, cand.pipeline_parallel or 1, cand.expert_parallel or 1)
    cand.speed_error_band = band
    if band is None or not cand.time_to_result_s:
        return
    low, high = band.time_range(cand.time_to_result_s)
    cand.rationale.append((
        _("expected error: on {rows} published runs of its class ({klass}) the model's speed was {p10:.2f}-{p90:.2f}x "
          "the measured one (10th-90th percentile), within 20 % on {share:.0%} of them; so the time to result is "
          "likely {low} to {high}").format(rows=band.rows, klass=band.klass, p10=band.ratio_p10, p90=band.ratio_p90,
                                           share=band.within_20_share, low=format_duration(low), high=format_duration(high)),
        "gpudesk estimate accuracy (tests/fixtures/speed/train_runs.jsonl); gpudesk.sizing.speed_bands"))


def ranking_change_notes(ranked: list[Candidate], deadline_s: float | None) -> list[tuple[str, str]]:
    """Plan-level trace lines saying where the speed model changes what the FLOPs-only rule would have said
    (issue 24 item 4): the fastest option, and the options whose deadline verdict flips. Empty when nothing
    changes or no candidate was timed by the speed model."""
    timed = [c for c in ranked if c.flops_only_time_to_result_s and c.time_to_result_s]
    if not timed:
        return []
    source = "gpudesk.sizing.speed_train (one model for plan and estimate speed); gpudesk.planner.train_step"
    notes = []
    fastest = min(timed, key=lambda c: c.time_to_result_s or 0.0)
    fastest_flops = min(timed, key=lambda c: c.flops_only_time_to_result_s or 0.0)
    # A tie under the FLOPs-only rule (same peak and efficiency) is no change of ranking.
    if (fastest.flops_only_time_to_result_s or 0.0) > 1.01 * (fastest_flops.flops_only_time_to_result_s or 0.0):
        notes.append((_("the speed model makes {model_fastest} the fastest option ({model_time}); the FLOPs-only rule "
                        "would have picked {flops_fastest} ({flops_time}): attention, memory-bound kernels and "
                        "communication on the real links weigh differently on them").format(
            model_fastest=fastest.label, model_time=format_duration(fastest.time_to_result_s),
            flops_fastest=fastest_flops.label, flops_time=format_duration(fastest_flops.flops_only_time_to_result_s)),
            source))
    if deadline_s:
        flipped = [c for c in timed if (c.time_to_result_s or 0.0) > deadline_s >= (c.flops_only_time_to_result_s or 0.0)]
        if flipped:
            notes.append((_("{count} option(s) meet the deadline under the FLOPs-only rule but miss it under the speed "
                            "model, e.g. {label}: {model_time} vs {flops_time}").format(
                count=len(flipped), label=flipped[0].label, model_time=format_duration(flipped[0].time_to_result_s),
                flops_time=format_duration(flipped[0].flops_only_time_to_result_s)), source))
    return notes
