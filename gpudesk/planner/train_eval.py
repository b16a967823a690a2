"""Evaluate one training option (GPU x count x server): memory fit, step time, time to result, data rate.

Sharding and recompute set to ``auto`` are chosen here: every (sharding, recompute) pair whose per-GPU memory
stays under the safe line is timed, and the fastest wins (ZeRO paper: ZeRO-3 moves 1.5x the data of DDP;
full recompute costs 8 instead of 6 FLOPs per parameter per token).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from gpudesk.catalog.records import GPU, Server
from gpudesk.i18n import _
from gpudesk.planner.candidates import (
    PlanContext,
    TrainSearch,
    TrainSetting,
    bridge_pair_gbps,
    intra_link,
)
from gpudesk.sizing.activations import recompute_value_text
from gpudesk.units import format_duration, format_gib
from gpudesk.planner.results import Candidate, Rejected
from gpudesk.planner.train_step import attach_error_band, flops_only_step_s, option_links, option_speed, step_of, uses_speed_model
from gpudesk.planner.workload import accumulation_steps, memory_workload
from gpudesk.sizing import time as tm
from gpudesk.sizing.capacity import gpu_fit, gpu_reported_total_bytes
from gpudesk.sizing.estimate import MemoryEstimate
from gpudesk.sizing.memory import estimate_memory
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.memory_lora import lora_trainable_params
from gpudesk.sizing.speed_train import TrainSpeed

# The article's worked case: DALI + GPUDirect Storage raised I/O from 850 MB/s to 2.1 GB/s on one node.
DECODE_DEFAULT_BYTES_PER_S = {"cpu": 850e6, "gpu": 2.1e9}
# Step times closer than this are a tie: the speed model's error band is tens of percent (gpudesk estimate
# accuracy), so a 0.3 % difference (selective recompute's extra attention forward) must not pick the layout. On a
# tie the larger micro-batch wins: fewer accumulation passes and larger GEMMs, which the model does not credit.
STEP_TIE_SHARE = 0.005
SPEED_TRAIN_SOURCE = "gpudesk.sizing.speed_train"  # where an assumption without a source of its own comes from
_PEAK_FIELD = {"bf16": "bf16_dense_tflops", "fp16": "fp16_dense_tflops", "fp8": "fp8_dense_tflops", "fp32": "fp32_tflops"}


def peak_tflops(gpu: GPU, precision: str) -> float | None:
    """Dense datasheet peak for ``precision`` (FP32-accumulate rate on GeForce), None when not supported."""
    peak: float | None = getattr(gpu, _PEAK_FIELD.get(precision, "bf16_dense_tflops"), None)
    return peak


def _options(ctx: PlanContext, count: int) -> list[tuple[str, str]]:
    m = ctx.req.model
    if m.mode in ("lora", "qlora") or count == 1:
        shardings = ["ddp"] if m.sharding in ("auto",) or count == 1 else [m.sharding]
    else:
        shardings = ["ddp", "zero1", "zero2", "zero3"] if m.sharding == "auto" else [m.sharding]
    transformer = ctx.spec.is_transformer and m.activation_bytes_per_sample is None
    recomputes = (["none", "selective", "full"] if transformer else ["none"]) if m.recompute == "auto" else [m.recompute]
    return [(s, r) for s in shardings for r in recomputes]


def micro_batches(requested: int) -> list[int]:
    """Micro-batch sizes to try, largest first: the requested one, then halvings down to 1.

    A smaller micro-batch with more gradient-accumulation steps keeps the global batch (and so the optimisation)
    unchanged while cutting activation memory in proportion (Megatron-LM / DeepSpeed ``gradient_accumulation_steps``;
    Korthikanti et al. 2022, arXiv 2205.05198, activations scale with the micro-batch).
    """
    sizes, mb = [], max(1, requested)
    while mb > 1:
        sizes.append(mb)
        mb //= 2
    sizes.append(1)
    return sizes


def _memory(ctx: PlanContext, count: int, sharding: str, recompute: str, micro_batch: int,
            accumulation: int) -> tuple[MemoryEstimate, int]:
    """(estimate, bytes needed on the card: ``MemoryEstimate.device_need_bytes``) for this count, setting,
    micro-batch and accumulation steps, computed once per plan.

    With more than one accumulation step the earlier micro-batches' gradients are alive during the later ones'
    forward and backward, and the sizing layer counts them (:func:`gpudesk.sizing.memory_train.train_memory`).
    """
    key = ("train", count, sharding, recompute, micro_batch, accumulation)
    hit = ctx.train_memory_cache.get(key)
    if hit is None:
        est = estimate_memory(ctx.spec, memory_workload(ctx.req, gpus=count, sharding=sharding, recompute=recompute,
                                                        micro_batch_size=micro_batch,
                                                        gradient_accumulation_steps=accumulation))
        hit = ctx.train_memory_cache[key] = (est, est.device_need_bytes)
    return hit


def _rows(ctx: PlanContext, count: int, dp: int, global_batch: int) -> Iterator[tuple[str, str, MemoryEstimate, int, int]]:
    """``(sharding, recompute, estimate, total bytes, micro-batch)`` for every micro-batch x (sharding, recompute) of
    ``count`` GPUs (``dp`` data-parallel), in the order :func:`_search` visits them: micro-batches largest first, then
    :func:`_options` order. They depend on nothing else (the model, data and work are fixed for the plan), so the
    first search for a count records them in ``ctx.train_rows_cache`` and the searches for other GPUs and links of
    that count read them back; the estimates come from :func:`_memory` either way, in the same order, so an invalid
    input raises the same error at the same point.
    """
    key = (count, dp, global_batch)
    done = ctx.train_rows_cache.get(key)
    if done is not None:
        yield from done[0]
        return
    m = ctx.req.model
    options = _options(ctx, count)
    rows: list[tuple[str, str, MemoryEstimate, int, int]] = []
    for micro_batch in micro_batches(min(m.micro_batch_size, global_batch // dp or 1)):
        accumulation = accumulation_steps(ctx.req, micro_batch, dp)
        for sharding, recompute in options:
            est, total = _memory(ctx, count, sharding, recompute, micro_batch, accumulation)
            row = (sharding, recompute, est, total, micro_batch)
            rows.append(row)
            yield row
    assert rows, "every count tries at least one micro-batch and one memory option"
    ctx.train_rows_cache[key] = (tuple(rows), min(row[3] for row in rows))


def _search(ctx: PlanContext, count: int, dp: int, global_batch: int, usable: int, safe: int,
            timing: Callable[[str, str, int], tm.StepTime]) -> TrainSearch:
    """(chosen setting or None, smallest per-GPU total) over micro-batches x (sharding, recompute).

    The chosen setting is ``(sharding, recompute, estimate, step time, total bytes, micro-batch)``: the fastest
    under the safe line, else the smallest footprint that still fits the usable memory. Only settings under the
    safe line are timed. The settings and their memory come from :func:`_rows` (computed once per GPU count); the
    smallest total is the minimum over all of them, whatever the GPU's memory.
    """
    fitting: list[TrainSetting] = []
    fallback: tuple[str, str, MemoryEstimate, int, int] | None = None
    for sharding, recompute, est, total, micro_batch in _rows(ctx, count, dp, global_batch):
        if total > usable:
            continue
        if total > safe:
            if fallback is None or total < fallback[3]:
                fallback = (sharding, recompute, est, total, micro_batch)
            continue
        fitting.append((sharding, recompute, est, timing(sharding, recompute, micro_batch), total, micro_batch))
    smallest = ctx.train_rows_cache[(count, dp, global_batch)][1]
    if fitting:
        # Fastest; among the settings within STEP_TIE_SHARE of it, the larger micro-batch, then the first in the
        # search order (less sharding traffic).
        fastest = min(e[3].step_s for e in fitting)
        near = [e for e in fitting if e[3].step_s <= fastest * (1 + STEP_TIE_SHARE)]
        return max(near, key=lambda e: e[5]), smallest
    if fallback is not None:
        sharding, recompute, est, total, micro_batch = fallback
        return (sharding, recompute, est, timing(sharding, recompute, micro_batch), total, micro_batch), smallest
    return None, smallest


def work(ctx: PlanContext) -> tuple[float, float, str, float]:
    """(total training FLOPs, samples to process, explanation, factor for full recompute) for the requirement.

    Full training: 6 FLOPs per parameter per token (2 forward, 2 activation gradients, 2 weight gradients;
    Kaplan et al. 2020). LoRA/QLoRA skip the frozen weights' gradients: 4 (the adapters add < 1 %). Full
    recomputation adds one forward: 8/6 or 6/4. Non-transformers use the given FLOPs per sample (already
    forward + backward); recomputation is not offered for them.
    """
    req, spec = ctx.req, ctx.spec
    m, d, w = req.model, req.data, req.workload
    epochs = d.epochs or 1.0
    if m.train_flops_per_sample:
        samples = (d.sample_count or 0) * epochs
        return (m.train_flops_per_sample * samples, samples,
                _("{flops:.3g} FLOPs/sample x {samples:,.0f} samples").format(flops=m.train_flops_per_sample,
                                                                                samples=samples), 4 / 3)
    tokens = w.tokens_to_train or (d.sample_count or 0) * m.seq_len_tokens * epochs
    samples = tokens / m.seq_len_tokens
    per_token = 4.0 if m.mode in ("lora", "qlora") else 6.0
    return (per_token * spec.active_params * tokens, samples,
            _("{per_token:g} x {params_b:.2f} B params x {tokens:.3g} tokens").format(
                per_token=per_token, params_b=spec.active_params / 1e9, tokens=tokens), (per_token + 2) / per_token)


def evaluate_training(ctx: PlanContext, gpu: GPU, server: Server, count: int, servers: int) -> Candidate | Rejected:
    """A Candidate (possibly over the safe line, ``fits=False``) or a Rejected with the memory reason."""
    req, spec = ctx.req, ctx.spec
    m, d, w, o = req.model, req.data, req.workload, req.operations
    link = intra_link(ctx, gpu, server)
    bottleneck_gbps = link.bandwidth_gbps_per_direction
    if servers > 1:
        bottleneck_gbps = min(bottleneck_gbps, ctx.network.bandwidth_gbps_per_direction)
    t = m.tensor_parallel
    if count % t:
        return Rejected(gpu.id, gpu.name, count, server.id, link.id, [_("{count} GPUs are not a multiple of tensor_parallel {t}").format(count=count, t=t)])
    dp = count // t
    # NVLink-bridged pairs of PCIe cards (H100 NVL): hierarchical all-reduce, bridge inside a pair, PCIe (or the
    # network) between pairs. Not used with tensor parallelism (its groups would span the pairs).
    bridge = bridge_pair_gbps(gpu, count, servers) if link.kind == "pcie" and t == 1 else None
    link_id, link_name = link.id, link.name
    if bridge:
        pair = _("NVLink bridge pairs ({gbps:g} GB/s bidirectional per pair)").format(gbps=gpu.nvlink_gbps)
        link_id = "nvlink-bridge" if count == 2 else f"nvlink-bridge+{link.id}"
        link_name = pair if count == 2 else _("{pair} + {link} between pairs").format(pair=pair, link=link.name)
    if m.global_batch_size and dp > m.global_batch_size:
        return Rejected(gpu.id, gpu.name, count, server.id, link.id,
                        [_("{dp} data-parallel GPUs exceed the global batch {global_batch} even at micro-batch 1").format(
                            dp=dp, global_batch=m.global_batch_size)])
    peak = peak_tflops(gpu, m.precision)
    if not peak:
        return Rejected(gpu.id, gpu.name, count, server.id, link.id, [_("no dense {precision} rate for {gpu} in the catalog").format(
            precision=m.precision.upper(), gpu=gpu.name)])
    eff = gpu.matmul_efficiency
    achievable = tm.achievable_flops_per_gpu(peak, eff)
    work_done = ctx.train_work
    if work_done is None:  # the same for every option of the plan
        work_done = ctx.train_work = work(ctx)
    total_flops, samples, work_note, recompute_factor = work_done
    # The global batch the user's answers imply is kept whatever micro-batch the search picks.
    global_batch = m.global_batch_size or m.micro_batch_size * dp

    def accumulation_for(micro_batch: int) -> int:
        return accumulation_steps(req, micro_batch, dp)

    def steps_for(micro_batch: int) -> float:
        return max(1.0, samples / (accumulation_for(micro_batch) * micro_batch * dp))
    if m.mode in ("lora", "qlora"):
        sync_params = lora_trainable_params(spec, m.lora_rank, tuple(m.lora_targets))
    else:
        sync_params = spec.params // t
    usable = gpu_reported_total_bytes(gpu)
    safe = int(usable * (1 - o.safe_free_fraction))

    comm_cache: dict[tuple[str, int], float] = {}
    speed_model = uses_speed_model(ctx)
    option_link = option_links(ctx, link, count, servers, bridge)
    adapter = float(sync_params) if m.mode in ("lora", "qlora") else None
    speeds: dict[tuple[str, str, int], TrainSpeed] = {}
    # The FLOPs-per-sample path (non-transformers) depends on the recompute setting only through "full or not"
    # (no recompute and selective recompute do the same FLOPs); the speed model also times selective recompute.
    step_cache: dict[tuple[str, str, int], tm.StepTime] = {}

    def timing(sharding: str, recompute: str, micro_batch: int) -> tm.StepTime:
        key = (sharding, recompute if speed_model else str(recompute == "full"), micro_batch)
        st = step_cache.get(key)
        if st is None:
            st = step_cache[key] = time_step(sharding, recompute, micro_batch)
        return st

    def time_step(sharding: str, recompute: str, micro_batch: int) -> tm.StepTime:
        if speed_model:
            speed = speeds[(sharding, recompute, micro_batch)] = option_speed(
                ctx, gpu, option_link, count, sharding, recompute, micro_batch,
                accumulation_for(micro_batch) * micro_batch * dp, adapter)
            return step_of(speed)
        flops = total_flops * (recompute_factor if recompute == "full" else 1.0)
        # ZeRO-3 gathers the weights again for every micro-batch (ZeRO paper section 7.2.2).
        accumulation = accumulation_for(micro_batch) if sharding == "zero3" else 1
        comm_s = comm_cache.get((sharding, accumulation))
        if comm_s is None:  # the same for every recompute setting and, outside ZeRO-3, every micro-batch
            comm_bytes = tm.gradient_sync_bytes_per_gpu(sync_params, sharding, dp) * accumulation
            comm_s = comm_cache[(sharding, accumulation)] = (
                tm.paired_collective_time_s(comm_bytes, dp, bridge, bottleneck_gbps) if bridge
                else tm.collective_time_s(comm_bytes, bottleneck_gbps, dp))
        return tm.step_time(flops / steps_for(micro_batch) / (count * achievable), comm_s)

    # The search below depends only on these (the model, data and work are fixed for the plan): computed once per
    # plan for each, so servers sharing a link and GPUs sharing a memory size and rates reuse it.
    gpu_rates = (gpu.bf16_dense_tflops, gpu.fp16_dense_tflops, gpu.fp8_dense_tflops, gpu.memory_bandwidth_gbps,
             gpu.architecture) if speed_model else ()
    search_key = (count, dp, usable, safe, bridge, bottleneck_gbps, achievable, sync_params, gpu_rates, option_link)
    found = ctx.search_cache.get(search_key)
    if found is None:
        try:
            found = _search(ctx, count, dp, global_batch, usable, safe, timing)
        except SizingError as exc:
            return Rejected(gpu.id, gpu.name, count, server.id, link.id, [exc.message])
        ctx.search_cache[search_key] = found
    chosen, smallest = found
    if chosen is None:
        from gpudesk.planner.train_parallel import parallel_candidate

        staged = parallel_candidate(ctx, gpu, server, count, servers)
        if staged is not None:
            return staged
        return Rejected(gpu.id, gpu.name, count, server.id, link.id,
                        [_("does not fit: at least {need} per GPU needed even at micro-batch 1, {gpu} reports {usable} "
                           "usable").format(need=format_gib(smallest), gpu=gpu.name, usable=format_gib(usable))])
    sharding, recompute, est, st, total, micro_batch = chosen
    accumulation = accumulation_for(micro_batch)
    samples_per_step = accumulation * micro_batch * dp
    steps = steps_for(micro_batch)
    f = gpu_fit(total, gpu, o.safe_free_fraction)
    cand = Candidate(
        gpu_id=gpu.id, gpu_name=gpu.name, count=count, servers=servers, server_id=server.id, server_name=server.name,
        interconnect=link_id, interconnect_name=link_name, network_link=ctx.network.id if servers > 1 else None,
        sharding=sharding if count > 1 or sharding != "ddp" else None, recompute=recompute, memory=est,
        usable_memory_bytes=f.usable_bytes, safe_line_bytes=f.safe_line_bytes, headroom_bytes=f.headroom_bytes,
        fits=f.under_safe_line, gpu_power_w=count * gpu.tdp_w, micro_batch_size=micro_batch,
        gradient_accumulation=accumulation, tensor_parallel=t,
        # The expert-parallel size where the estimate split the experts (not LoRA under ZeRO-3 / FSDP: memory_workload).
        expert_parallel=est.experts.expert_parallel if est.experts else None,
    )
    why = cand.rationale
    batch_values = dict(micro_batch=micro_batch, accumulation=accumulation, dp=dp, global_batch=samples_per_step,
                        asked=m.micro_batch_size)
    if micro_batch != m.micro_batch_size:
        batch_text = _("micro-batch {micro_batch} x {accumulation} gradient-accumulation step(s) x {dp} data-parallel "
                       "GPU(s) = global batch {global_batch} (micro-batch {asked} asked: the smaller one fits or is "
                       "faster, the global batch is kept)").format(**batch_values)
    else:
        batch_text = _("micro-batch {micro_batch} x {accumulation} gradient-accumulation step(s) x {dp} data-parallel "
                       "GPU(s) = global batch {global_batch}").format(**batch_values)
    why.append((batch_text,
                "gradient accumulation keeps the optimisation unchanged (Megatron-LM / DeepSpeed gradient_accumulation_steps); "
                "activations scale with the micro-batch (Korthikanti et al. 2022, arXiv 2205.05198)"))
    layout = sharding if count > 1 else _("single GPU")
    if cand.fits:
        layout_text = _("{layout}, recompute {recompute}: the fastest setting under the safe line").format(
            layout=layout, recompute=recompute_value_text(recompute))
    else:
        layout_text = _("{layout}, recompute {recompute}: the smallest footprint; still over the safe line").format(
            layout=layout, recompute=recompute_value_text(recompute))
    why.append((layout_text,
                "ZeRO paper (arXiv 1910.02054) sections 5 and 7; Korthikanti et al. 2022 Table 2"))
    why.append((_("{memory} per GPU against {safe_line} safe line ({share:.0%} of {usable} usable)").format(
                    memory=format_gib(total), safe_line=format_gib(f.safe_line_bytes), share=1 - o.safe_free_fraction,
                    usable=format_gib(f.usable_bytes)),
                "article 3.1 (keep 15-20 % free); reported totals from public OOM messages (oom.md 3.4)"))
    speed = speeds.get((sharding, recompute, micro_batch)) if speed_model else None
    if speed is not None:
        flops_only = flops_only_step_s(ctx, gpu, peak, count, samples_per_step, recompute == "full")
        parts = speed.breakdown
        why.append((_("step {step:.3f} s from the speed model: GEMMs {gemm:.3f} s, attention {attention:.3f} s, "
                      "memory-bound kernels {other:.3f} s, exposed communication {comm:.3f} s, optimizer {opt:.3f} s; "
                      "{tps:,.0f} tokens/s per GPU, MFU {mfu:.1%}").format(
                        step=speed.step_time_s, gemm=parts["gemm_s"], attention=parts["attention_s"],
                        other=parts["other_kernels_s"], comm=speed.comm_share * speed.step_time_s,
                        opt=parts["optimizer_s"], tps=speed.tokens_per_s_per_gpu, mfu=speed.mfu),
                    "gpudesk.sizing.speed_train (the model of gpudesk estimate speed); its assumptions close this "
                    "rationale, each with its own source"))
        why.append((_("ranking uses this step; the FLOPs-only rule (6 x params x tokens at {tflops:.0f} sustained "
                      "TFLOPS, no attention, memory-bound kernels or communication) would give {flops_only:.3f} s, "
                      "{ratio:.2f}x of it").format(tflops=achievable / 1e12, flops_only=flops_only,
                                                    ratio=flops_only / speed.step_time_s),
                    "Kaplan et al. 2020 (6 FLOPs/param/token); issue 24: one performance model for plan and estimate"))
    else:
        eff_src = getattr(gpu, "matmul_efficiency_source", None) or (
            "Stas Bekman MAMF table" if eff else "gpudesk default 0.75 (no measurement)")
        why.append((_("{tflops:.0f} TFLOPS per GPU sustained = {peak:g} dense {precision} x matmul efficiency "
                      "{efficiency:g} x {mfu_of_mamf:g}").format(
                        tflops=achievable / 1e12, peak=peak, precision=m.precision.upper(),
                        efficiency=eff if eff is not None else tm.DEFAULT_MATMUL_EFFICIENCY,
                        mfu_of_mamf=tm.DEFAULT_MFU_OF_MAMF), f"{gpu.source_url}; {eff_src}"))
        if recompute == "full":
            work_text = _("work: {work} x {factor:.3g} for full recompute").format(work=work_note,
                                                                                  factor=recompute_factor)
        else:
            work_text = _("work: {work}").format(work=work_note)
        why.append((work_text,
                    "Kaplan et al. 2020 (6 FLOPs/param/token); Narayanan et al. 2021 (8 with recompute)"))
    if count > 1 and bridge:
        links = f"{link_name} + {ctx.network.name}" if servers > 1 else link_name
        why.append((_("{links}: {bridge_gbps:g} GB/s per direction inside a pair, {between_gbps:g} GB/s between pairs; "
                      "gradient sync {comm_s:.3f} s per step, {comm_share:.1%} of the step exposed").format(
                        links=links, bridge_gbps=bridge, between_gbps=bottleneck_gbps, comm_s=st.comm_s,
                        comm_share=st.comm_share),
                    "hierarchical all-reduce (reduce-scatter in the pair, ring between pairs, all-gather); NVLink bridge "
                    "from the GPU's catalog nvlink_gbps (product brief), 80 % achievable (Stas Bekman)"))
    elif count > 1 and speed is not None:
        links = f"{link.name} + {ctx.network.name}" if servers > 1 else link.name
        values = dict(links=links, gbps=link.bandwidth_gbps_per_direction, between=option_link.between_gbps,
                      comm_s=st.exposed_comm_s, comm_share=st.comm_share)
        if servers > 1:
            link_text = _("{links}: {gbps:g} GB/s per direction inside a server, {between:g} GB/s between servers; "
                          "communication left exposed after overlap {comm_s:.3f} s per step ({comm_share:.1%})").format(
                **values)
        else:
            link_text = _("{links}: {gbps:g} GB/s per direction; communication left exposed after overlap {comm_s:.3f} s "
                          "per step ({comm_share:.1%})").format(**values)
        why.append((link_text,
                    "gpudesk.sizing.speed_parallel: ring collectives on the real links, each node's NICs carrying "
                    "the ring (NCCL), overlap as the framework does it"))
    elif count > 1:
        links = f"{link.name} + {ctx.network.name}" if servers > 1 else link.name
        why.append((_("{links}: {gbps:g} GB/s per direction; gradient sync {comm_s:.3f} s per step, {comm_share:.1%} of "
                      "the step exposed").format(links=links, gbps=bottleneck_gbps, comm_s=st.comm_s,
                                                 comm_share=st.comm_share),
                    "ring all-reduce (Patarasuk & Yuan 2009); link spec from the catalog, 80 % achievable (Stas Bekman)"))
    step = st.step_s
    rate_needed = None
    if d.sample_bytes:
        rate_needed = tm.data_rate_needed_bytes_per_s(samples_per_step / step, d.sample_bytes)
        decode = d.decode_bytes_per_s or DECODE_DEFAULT_BYTES_PER_S[d.decode_path]
        available = decode * servers
        if d.storage_read_bytes_per_s:
            available = min(available, d.storage_read_bytes_per_s)
        cand.data_rate_available_bytes_per_s = available
        if rate_needed > available:
            step = samples_per_step * d.sample_bytes / available
            cand.warnings.append(_("Data-bound: the GPUs need {needed_gbps:.2f} GB/s of decoded samples but storage and "
                                   "the {decode_path} decode path deliver {available_gbps:.2f} GB/s; fix the data pipeline "
                                   "(GPU decoding, direct storage), not the card (article 2.1)").format(
                needed_gbps=rate_needed / 1e9, decode_path=d.decode_path, available_gbps=available / 1e9))
            rate_needed = samples_per_step * d.sample_bytes / step if step else rate_needed
        rates = dict(needed_mbps=rate_needed / 1e6, available_mbps=available / 1e6, decode_path=d.decode_path)
        if d.storage_read_bytes_per_s:
            rate_text = _("data rate needed {needed_mbps:,.0f} MB/s vs {available_mbps:,.0f} MB/s available "
                          "({decode_path} decode, storage)").format(**rates)
        else:
            rate_text = _("data rate needed {needed_mbps:,.0f} MB/s vs {available_mbps:,.0f} MB/s available "
                          "({decode_path} decode)").format(**rates)
        why.append((rate_text,
                    "article 4.3: DALI + GPUDirect Storage raised I/O from 850 MB/s to 2.1 GB/s"))
    cand.data_rate_needed_bytes_per_s = rate_needed
    cand.step_time_s = step
    cand.comm_share = st.exposed_comm_s / step if step else 0.0
    share = w.training_share if w.training_share and w.training_share < 1 else 1.0
    cand.time_to_result_s = steps * step / share
    if share < 1:
        why.append((_("training share {share:.0%} of GPU time: time to result = {training} of training / {share:g} = "
                      "{time}").format(share=share, training=format_duration(steps * step),
                                       time=format_duration(cand.time_to_result_s)), "requirement: workload.training_share"))
    if w.deadline_s:
        miss = cand.time_to_result_s - w.deadline_s
        cand.meets_deadline = miss <= 0
        cand.deadline_miss_s = max(0.0, miss)
        times = dict(time=format_duration(cand.time_to_result_s), deadline=format_duration(w.deadline_s),
                     miss=format_duration(miss))
        if cand.meets_deadline:
            deadline_text = _("time to result {time} vs deadline {deadline}").format(**times)
        else:
            deadline_text = _("time to result {time} vs deadline {deadline}: misses by {miss}").format(**times)
        why.append((deadline_text, "requirement: workload.deadline_s"))
    if speed is not None:  # the training model's assumptions, one step each with its own source
        why.extend((a.line(), a.source or SPEED_TRAIN_SOURCE) for a in speed.assumptions)
        attach_error_band(cand)
        cand.flops_only_time_to_result_s = steps * flops_only / share
    if not cand.fits:
        cand.warnings.append(_("Over the safe line by {over}: expect allocator retries and OOMs under load (article 3.1: "
                               "keep 15-20 % free)").format(over=format_gib(-f.headroom_bytes)))
    if count > 2 and bridge:
        cand.warnings.append(_("PCIe between pairs: NVLink bridges join the {count} GPUs in pairs only; gradient sync "
                               "between pairs crosses {link} ({gbps:g} GB/s per direction) and is {comm_share:.0%} of the "
                               "step").format(count=count, link=link.name, gbps=link.bandwidth_gbps_per_direction,
                                              comm_share=cand.comm_share))
    elif count > 1 and link.kind == "pcie" and not bridge:
        cand.warnings.append(_("PCIe contention: {count} GPUs exchange gradients over {link} ({gbps:g} GB/s per "
                               "direction, no NVLink); gradient sync is {comm_share:.0%} of the step (article 2.1: two "
                               "PCIe cards ran slower than one until the batch grew)").format(
            count=count, link=link.name, gbps=link.bandwidth_gbps_per_direction, comm_share=cand.comm_share))
    elif cand.comm_share > 0.3:
        cand.warnings.append(_("Communication-bound: {comm_share:.0%} of each step waits for gradient sync over "
                               "{link}").format(comm_share=cand.comm_share, link=link_name))
    if t > 1 and link.kind == "pcie":
        cand.warnings.append(_("Tensor parallelism {t} over {link}: every layer all-reduces activations on PCIe (not "
                               "modelled in the step time; Megatron-LM keeps tensor parallelism inside an NVLink "
                               "domain)").format(t=t, link=link.name))
    return cand
