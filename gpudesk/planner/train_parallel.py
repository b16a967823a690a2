"""Training options that need pipeline or expert parallelism: tried when tensor parallelism and ZeRO alone do
not fit a GPU count (issue 24: Llama 3 70B at TP4/PP4, 405B, MoE models came back "does not fit").

For each pipeline degree (powers of two up to the layer count) and, for MoE models, each expert-parallel degree
(powers of two dividing the experts and the GPUs of a stage), the per-GPU memory comes from
:func:`gpudesk.sizing.memory_train.parallel_train_memory_bytes` (model states divided by tp x pp, experts by
ep x pp, the distributed optimizer over the data-parallel ranks, the first stage's in-flight micro-batches) and
the step from :func:`gpudesk.sizing.speed_train.train_speed`, the model ``gpudesk estimate speed`` answers with.
The fastest layout under the safe line wins; else the smallest that fits the usable memory.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpudesk.catalog.records import GPU, Server
from gpudesk.i18n import _
from gpudesk.planner.candidates import PlanContext, intra_link
from gpudesk.units import format_duration, format_gib
from gpudesk.planner.results import Candidate
from gpudesk.planner.train_step import attach_error_band, framework_profile
from gpudesk.sizing.capacity import gpu_fit
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.estimate import MemoryEstimate, ordered_breakdown
from gpudesk.sizing.memory_train import parallel_train_memory_bytes
from gpudesk.sizing.overheads import Overheads, add_overheads
from gpudesk.sizing.train_expert_parallel import expert_nccl_bytes
from gpudesk.sizing.speed_train import TrainSetup, TrainSpeed, train_speed
from gpudesk.sizing.speed_train_cases import gpu_rates

MAX_PIPELINE = 64


@dataclass(frozen=True)
class _Layout:
    pp: int
    ep: int
    micro_batch: int
    recompute: str
    global_batch: int
    memory: MemoryEstimate
    speed: TrainSpeed


def _powers(limit: int) -> list[int]:
    out, n = [], 2
    while n <= limit:
        out.append(n)
        n *= 2
    return out


def parallel_layouts(ctx: PlanContext, gpu: GPU, server: Server, count: int) -> list[_Layout]:
    """Every pipeline x expert layout of ``count`` GPUs that the model and the batch allow, with its memory
    and step (the search space of :func:`parallel_candidate`)."""
    m, spec = ctx.req.model, ctx.spec
    if m.mode != "train" or not spec.is_transformer or not spec.vocab_size or m.precision not in ("bf16", "fp16", "fp8"):
        return []
    t = max(1, m.tensor_parallel)
    layers = spec.layers or 0
    link = intra_link(ctx, gpu, server)
    rates = gpu_rates(gpu)
    eps = [1] + ([e for e in _powers(count) if spec.moe_experts and spec.moe_experts % e == 0] if spec.moe_experts else [])
    recomputes = ["none", "selective", "full"] if m.recompute == "auto" else [m.recompute]
    out: list[_Layout] = []
    for pp in [1] + _powers(min(MAX_PIPELINE, layers)):
        if count % (t * pp) or (pp == 1 and not spec.moe_experts):
            continue
        replicas = count // (t * pp)
        for ep in eps:
            if (count // pp) % ep or (pp == 1 and ep == 1):
                continue
            micro = max(1, m.micro_batch_size)
            # The requirement's global batch, else one micro-batch per replica per stage (enough to fill the pipe).
            global_batch = m.global_batch_size or micro * replicas * pp
            if global_batch % (micro * replicas):
                continue
            for recompute in recomputes:
                try:
                    parts = parallel_train_memory_bytes(
                        spec, gpus=count, seq_len_tokens=m.seq_len_tokens, micro_batch_size=micro,
                        micro_batches=global_batch // (micro * replicas), tensor_parallel=t, pipeline_parallel=pp,
                        expert_parallel=ep, sharding="zero1", recompute=recompute, optimizer="adam-16",
                        precision="bf16")
                    setup = TrainSetup(gpus=count, seq_len=m.seq_len_tokens, global_batch=global_batch,
                                       micro_batch=micro, tp=t, pp=pp, ep=ep,
                                       precision="bf16" if m.precision == "fp16" else m.precision,
                                       sharding="distributed-optimizer", recompute=recompute,
                                       framework=framework_profile(ctx), gpus_per_node=min(count, server.max_gpus),
                                       intra_gbps=link.bandwidth_gbps_per_direction, intra_name=link.name,
                                       intra_kind="pcie" if link.kind == "pcie" else "nvlink",
                                       inter_gbps=ctx.network.bandwidth_gbps_per_direction,
                                       inter_name=ctx.network.name, mtp_layers=m.mtp_layers, moe_permute_fusion=m.moe_permute_fusion,
                                       recompute_modules=tuple(m.recompute_modules) if recompute != "full" else ())
                    speed = train_speed(spec, rates, setup)
                except SizingError:
                    continue
                # Expert parallelism's NCCL buffers, as the training estimate counts them.
                nccl_extra, nccl_notes = expert_nccl_bytes(gpus=count, expert_parallel=ep,
                                                           communicator_bytes=Overheads().nccl_bytes_per_gpu,
                                                           pipeline_parallel=pp)
                notes = add_overheads(parts, Overheads(), count, extra_nccl_bytes=nccl_extra,
                                      extra_nccl_notes=nccl_notes)
                est = MemoryEstimate(breakdown=ordered_breakdown(parts), gpus=count, assumptions=tuple(notes))
                out.append(_Layout(pp, ep, micro, recompute, global_batch, est, speed))
    return out


def parallel_candidate(ctx: PlanContext, gpu: GPU, server: Server, count: int, servers: int) -> Candidate | None:
    """The best pipeline / expert-parallel option of ``count`` GPUs, or None when none fits the usable memory."""
    o, w = ctx.req.operations, ctx.req.workload
    usable_fit = [lay for lay in parallel_layouts(ctx, gpu, server, count)
                  if gpu_fit(lay.memory.device_need_bytes, gpu, o.safe_free_fraction).fits]
    if not usable_fit:
        return None
    safe = [lay for lay in usable_fit if gpu_fit(lay.memory.device_need_bytes, gpu,
                                             o.safe_free_fraction).under_safe_line]
    best = (min(safe, key=lambda lay: lay.speed.step_time_s / lay.global_batch) if safe
            else min(usable_fit, key=lambda lay: lay.memory.device_need_bytes))
    f = gpu_fit(best.memory.device_need_bytes, gpu, o.safe_free_fraction)
    link = intra_link(ctx, gpu, server)
    t = max(1, ctx.req.model.tensor_parallel)
    cand = Candidate(
        gpu_id=gpu.id, gpu_name=gpu.name, count=count, servers=servers, server_id=server.id, server_name=server.name,
        interconnect=link.id, interconnect_name=link.name, network_link=ctx.network.id if servers > 1 else None,
        sharding="zero1", recompute=best.recompute, memory=best.memory, usable_memory_bytes=f.usable_bytes,
        safe_line_bytes=f.safe_line_bytes, headroom_bytes=f.headroom_bytes, fits=f.under_safe_line,
        gpu_power_w=count * gpu.tdp_w, micro_batch_size=best.micro_batch, gradient_accumulation=1,
        tensor_parallel=t, pipeline_parallel=best.pp, expert_parallel=best.ep)
    tokens_per_step = best.global_batch * ctx.req.model.seq_len_tokens
    tokens = w.tokens_to_train or (ctx.req.data.sample_count or 0) * ctx.req.model.seq_len_tokens * (
        ctx.req.data.epochs or 1.0)
    steps = max(1.0, tokens / tokens_per_step)
    cand.step_time_s = best.speed.step_time_s
    cand.comm_share = best.speed.comm_share
    share = w.training_share if w.training_share and w.training_share < 1 else 1.0
    cand.time_to_result_s = steps * best.speed.step_time_s / share
    cand.rationale.append((
        _("pipeline parallel {pp} x expert parallel {ep} x tensor parallel {tp}: {memory} per GPU against {safe} "
          "safe line; {tps:,.0f} tokens/s per GPU, step {step:.2f} s, pipeline bubble {bubble:.1%}").format(
            pp=best.pp, ep=best.ep, tp=t, memory=format_gib(best.memory.device_need_bytes), safe=format_gib(f.safe_line_bytes),
            tps=best.speed.tokens_per_s_per_gpu, step=best.speed.step_time_s, bubble=best.speed.bubble_share),
        "Narayanan et al. 2021 (arXiv 2104.04473) 1F1B pipeline; Megatron-Core expert parallelism; "
        "gpudesk.sizing.speed_train"))
    if w.deadline_s:
        miss = cand.time_to_result_s - w.deadline_s
        cand.meets_deadline = miss <= 0
        cand.deadline_miss_s = max(0.0, miss)
        cand.rationale.append((_("time to result {time} vs deadline {deadline}").format(
            time=format_duration(cand.time_to_result_s), deadline=format_duration(w.deadline_s)),
            "requirement: workload.deadline_s"))
    attach_error_band(cand)
    if not cand.fits:
        cand.warnings.append(_("Over the safe line by {over}: expect allocator retries and OOMs under load (article 3.1: "
                               "keep 15-20 % free)").format(over=format_gib(-f.headroom_bytes)))
    return cand
