"""Evaluate one inference option: tensor-parallel degree, concurrent sequences, QPS per GPU, GPUs for the target.

Per replica of ``t`` GPUs (every t in 1, 2, 4, 8 that leaves room for at least one sequence under the safe
line): the memory view (the sheet's breakdown and the safe-line fit) is sized under the planning safe line, while
the speed is the engine's: :func:`gpudesk.sizing.speed_serve.serve_speed` runs ``workload.max_concurrent_sequences``
requests in flight (closed loop) within the engine's own memory budget (vLLM ``gpu_memory_utilization``, FP8 KV
when chosen), which gives the QPS per replica, the time to first token (with queueing and prefill interference)
and the time per output token; replicas = ceil(target QPS / QPS per replica). Models without a transformer shape
or without output tokens keep the compute-bound forward pass of :mod:`gpudesk.sizing.time`.
"""

from __future__ import annotations

import math

from gpudesk.catalog.records import GPU, Link, Server
from gpudesk.i18n import _, ngettext
from gpudesk.planner.candidates import PlanContext, intra_link, placements
from gpudesk.units import format_gib
from gpudesk.planner.gates import requested_precision
from gpudesk.planner.results import Candidate, Rejected
from gpudesk.planner.workload import memory_workload
from gpudesk.sizing import time as tm
from gpudesk.sizing.capacity import Fit, gpu_fit
from gpudesk.sizing.estimate import MemoryEstimate
from gpudesk.sizing.memory import estimate_memory
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.memory_inference import kv_sequence_bytes, weight_bytes
from gpudesk.sizing.speed_serve import ServeLoad, ServeSpeed, serve_speed

_PEAK_FIELD = {"bf16": "bf16_dense_tflops", "fp16": "fp16_dense_tflops", "fp8": "fp8_dense_tflops",
               "int8": "int8_dense_tops", "int4": "int8_dense_tops", "fp4": "fp4_dense_tflops", "fp32": "fp32_tflops"}
# (tensor-parallel degree, concurrent sequences per replica, memory estimate per GPU, fit against the card)
ReplicaShape = tuple[int, int, MemoryEstimate, Fit]
COMPUTE_EFFICIENCY = 0.5  # share of dense peak reached by serving kernels (gpudesk default, editable in code)


def _peak(gpu: GPU, precision: str) -> float | None:
    value = getattr(gpu, _PEAK_FIELD.get(precision, "bf16_dense_tflops"), None)
    if value is None and precision == "bf16":
        value = gpu.fp16_dense_tflops
    return value


TENSOR_PARALLEL_DEGREES = (1, 2, 4, 8)
SPEED_SERVE_SOURCE = "gpudesk.sizing.speed_serve"  # where an assumption without a source of its own comes from
LATENCY_PROMPTS = 200  # requests simulated for the latency a user sees at the target rate


def replica_shapes(ctx: PlanContext, gpu: GPU) -> list[ReplicaShape]:
    """(tensor_parallel, batch, memory estimate, fit) for every degree in 1, 2, 4, 8 that holds one sequence.

    A larger degree splits the weights over more GPUs and leaves more KV cache per GPU, so the batch per replica
    can grow faster than the GPU count (vLLM ``--tensor-parallel-size``); the caller keeps the degree that needs
    the fewest GPUs for the target.
    """
    req, spec = ctx.req, ctx.spec
    w = req.workload
    transformer = spec.is_transformer and req.model.activation_bytes_per_sample is None
    shapes: list[ReplicaShape] = []
    for t in TENSOR_PARALLEL_DEGREES:
        if t > 1 and (not transformer or spec.transformer_dims.num_attention_heads % t):
            break
        key = ("serve", t, 1)
        est1 = ctx.memory_cache.get(key)
        if est1 is None:
            est1 = estimate_memory(spec, memory_workload(req, gpus=t, tensor_parallel=t, concurrent_sequences=1))
            ctx.memory_cache[key] = est1
        f1 = gpu_fit(est1.device_need_bytes, gpu, req.operations.safe_free_fraction)
        if not f1.under_safe_line:
            continue
        if transformer:
            # Per GPU: KV heads split by t but never below one head, MLA latent whole on every rank, sliding-window
            # layers capped (gpudesk.sizing.memory_inference.kv_sequence_bytes).
            per_seq = kv_sequence_bytes(spec, w.prompt_tokens + w.output_tokens, req.model.kv_precision, t)
        else:
            activation_bytes = req.model.activation_bytes_per_sample
            assert activation_bytes is not None, "not a transformer here means the activation bytes were given"
            per_seq = activation_bytes / t
        extra = int(f1.headroom_bytes // (per_seq * 1.05)) if per_seq else w.max_concurrent_sequences
        batch = max(1, min(w.max_concurrent_sequences, 1 + extra))
        key = ("serve", t, batch)
        est = ctx.memory_cache.get(key)
        if est is None:
            est = estimate_memory(spec, memory_workload(req, gpus=t, tensor_parallel=t, concurrent_sequences=batch))
            ctx.memory_cache[key] = est
        shapes.append((t, batch, est, gpu_fit(est.device_need_bytes, gpu,
                                          req.operations.safe_free_fraction)))
    return shapes


def replica_shape(ctx: PlanContext, gpu: GPU) -> ReplicaShape | None:
    """The smallest replica that holds one sequence (first of :func:`replica_shapes`), or None."""
    shapes = replica_shapes(ctx, gpu)
    return shapes[0] if shapes else None


def _uses_serve_speed(ctx: PlanContext) -> bool:
    """Whether the option is an LLM service the serving speed model answers (transformer shape, output tokens)."""
    return bool(ctx.spec.is_transformer and ctx.req.model.activation_bytes_per_sample is None
                and ctx.req.workload.output_tokens)


def serve_load(ctx: PlanContext, t: int, concurrency: int) -> ServeLoad:
    """The engine load one replica of ``t`` GPUs runs: ``concurrency`` requests in flight of the workload's shape."""
    w, m = ctx.req.workload, ctx.req.model
    return ServeLoad(engine="vllm", input_tokens=w.prompt_tokens, output_tokens=w.output_tokens,
                     concurrency=concurrency, weight_format=m.weight_format,
                     kv_dtype="fp8" if m.kv_precision == "fp8" else "auto", tp=t)


def replica_speed(ctx: PlanContext, gpu: GPU, t: int, concurrency: int, link: Link | None) -> ServeSpeed | None:
    """:func:`serve_speed` of one replica (cached per plan), or None when the engine's budget leaves no KV cache."""
    key = ("serve_speed", gpu.id, t, concurrency, link.id if link else None)
    if key not in ctx.serve_speed_cache:
        try:
            ctx.serve_speed_cache[key] = serve_speed(ctx.spec, gpu, serve_load(ctx, t, concurrency), link)
        except SizingError:
            ctx.serve_speed_cache[key] = None
    return ctx.serve_speed_cache[key]


def replica_latency(ctx: PlanContext, gpu: GPU, t: int, max_running: int, rate_per_s: float,
                    link: Link | None) -> ServeSpeed | None:
    """What a user of one replica sees when requests arrive at ``rate_per_s`` (Poisson), at most ``max_running`` in
    flight: :func:`serve_speed` open loop (200 requests), or None when it cannot answer."""
    key = ("serve_latency", gpu.id, t, max_running, round(rate_per_s, 9), link.id if link else None)
    if key not in ctx.serve_speed_cache:
        w, m = ctx.req.workload, ctx.req.model
        load = ServeLoad(engine="vllm", input_tokens=w.prompt_tokens, output_tokens=w.output_tokens,
                         request_rate_per_s=rate_per_s, weight_format=m.weight_format,
                         kv_dtype="fp8" if m.kv_precision == "fp8" else "auto", tp=t, max_num_seqs=max_running,
                         num_prompts=LATENCY_PROMPTS)
        try:
            ctx.serve_speed_cache[key] = serve_speed(ctx.spec, gpu, load, link)
        except SizingError:
            ctx.serve_speed_cache[key] = None
    return ctx.serve_speed_cache[key]


def _replica_rate(ctx: PlanContext, gpu: GPU, t: int, batch: int, precision: str, peak: float,
                  link: Link | None = None) -> tuple[float, float, float, float, float]:
    """(TTFT s, TPOT s, QPS per replica, weights bytes per GPU, attention FLOPs per token per GPU)."""
    req, spec = ctx.req, ctx.spec
    w = req.workload
    flops_per_token = 2.0 * spec.active_params / t
    weights = weight_bytes(spec, req.model.weight_format) / t
    transformer = spec.is_transformer and req.model.activation_bytes_per_sample is None
    attention = 0.0
    if transformer and spec.layers and spec.num_attention_heads:
        attention = tm.attention_flops_per_token(spec.layers, spec.num_attention_heads * spec.head_dim_resolved,
                                                 w.prompt_tokens) / t
    if _uses_serve_speed(ctx):
        speed = replica_speed(ctx, gpu, t, batch, link)
        if speed is not None:
            return speed.ttft_s, speed.tpot_s, speed.requests_per_s, weights, attention
    # Bytes of KV one decode step reads per sequence on one GPU, at the mean context (prompt + half the output).
    mean_context = max(1, int(w.prompt_tokens + w.output_tokens / 2))
    kv_seq = kv_sequence_bytes(spec, mean_context, req.model.kv_precision, t, block_tokens=None) if transformer else 0.0
    pre = tm.prefill_s(w.prompt_tokens, flops_per_token + attention, peak * 1e12, COMPUTE_EFFICIENCY)
    step = tm.decode_step_s(weights, kv_seq, batch, gpu.memory_bandwidth_gbps, flops_per_token, peak * 1e12,
                            compute_efficiency=COMPUTE_EFFICIENCY) if w.output_tokens else 0.0
    if w.output_tokens:
        qps_replica = tm.qps_per_gpu(pre, step, batch, w.output_tokens)
    else:
        qps_replica = batch / (batch * pre) if pre > 0 else math.inf
    return pre, step, qps_replica, weights, attention


def whole_boards(server: Server, count: int, t: int) -> int:
    """GPUs to buy for ``count`` needed in ``server``: a fixed board (HGX, OAM platform: min = max GPUs) is bought
    whole, so the count rounds up to whole boards; otherwise at least the chassis minimum; always a multiple of
    the tensor-parallel degree ``t``."""
    if server.min_gpus == server.max_gpus:
        count = math.ceil(count / server.max_gpus) * server.max_gpus
    else:
        count = max(count, server.min_gpus)
    return math.ceil(count / t) * t


def _ms(seconds: float | None) -> str:
    return _("no target") if not seconds else f"{seconds * 1e3:g} ms"


def _batch_for_tpot(ctx: PlanContext, gpu: GPU, t: int, batch: int, precision: str, peak: float,
                    link: Link | None = None) -> int:
    """The largest batch (<= the memory's) whose decode step meets ``workload.tpot_target_s`` (the step time grows
    with the batch: more KV read and, past the ridge point, more compute); the memory's batch without a target,
    and 1 when even one sequence misses it."""
    target = ctx.req.workload.tpot_target_s
    if not target or not ctx.req.workload.output_tokens:
        return batch
    lo, hi = 1, batch
    if _replica_rate(ctx, gpu, t, hi, precision, peak, link)[1] <= target:
        return hi
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _replica_rate(ctx, gpu, t, mid, precision, peak, link)[1] <= target:
            lo = mid
        else:
            hi = mid - 1
    return lo


def evaluate_inference(ctx: PlanContext, gpu: GPU, servers_list: list[Server]) -> list[Candidate | Rejected]:
    """Candidates (one per accepting server) sized to the QPS target, or Rejected with the reason."""
    req, spec = ctx.req, ctx.spec
    w, o = req.workload, req.operations
    shapes = replica_shapes(ctx, gpu)
    if not shapes:
        est = ctx.memory_cache.get(("serve", 1, 1))
        usable = gpu_fit(0, gpu).usable_bytes
        if est:
            reason = _("does not fit: {need} per GPU for one sequence, over the safe line of {gpu} ({usable} usable) even "
                       "with 8-way tensor parallelism").format(need=format_gib(est.device_need_bytes), gpu=gpu.name, usable=format_gib(usable))
        else:
            reason = _("does not fit: one sequence needs more than the safe line of {gpu} ({usable} usable) even with "
                       "8-way tensor parallelism").format(gpu=gpu.name, usable=format_gib(usable))
        return [Rejected(gpu.id, gpu.name, 1, None, None, [reason])]
    precision = requested_precision(req)
    peak = _peak(gpu, precision)
    if not peak:
        return [Rejected(gpu.id, gpu.name, shapes[0][0], None, None, [_("no dense {precision} rate for {gpu} in the catalog").format(
            precision=precision.upper(), gpu=gpu.name)])]
    # Every degree that fits is sized for the target; the one needing the fewest GPUs wins (ties: the smaller
    # degree, less all-reduce traffic per layer).
    sized = []
    latency: dict[int, bool | None] = {}
    target_qps = w.target_qps
    assert target_qps is not None, "an inference requirement has a QPS target (the requirement's problems say so)"
    # The replica's GPU link for the tensor-parallel all-reduces: the fastest among the servers that take the GPU.
    links = [intra_link(ctx, gpu, sv) for sv in servers_list]
    sizing_link = max(links, key=lambda lk: lk.bandwidth_gbps_per_direction) if links else None
    for t, mem_batch, est, f in shapes:
        # The engine runs up to max_concurrent_sequences requests within its own memory budget (not the planning
        # safe line, which sized ``mem_batch`` for the memory view).
        batch = w.max_concurrent_sequences if _uses_serve_speed(ctx) else mem_batch
        batch = _batch_for_tpot(ctx, gpu, t, batch, precision, peak, sizing_link)
        pre, step, qps_replica, weights, attention = _replica_rate(ctx, gpu, t, batch, precision, peak, sizing_link)
        replicas = max(1, math.ceil(target_qps / qps_replica))
        if _uses_serve_speed(ctx):
            # Capacity at saturation sized the replicas; the latency is what a user sees at the target rate.
            seen = replica_latency(ctx, gpu, t, batch, target_qps / replicas, sizing_link)
            if seen is not None:
                pre, step = seen.ttft_s, seen.tpot_s
        ok = None
        if w.ttft_target_s or w.tpot_target_s:
            ok = (not w.ttft_target_s or pre <= w.ttft_target_s) and (not w.tpot_target_s or not w.output_tokens
                                                                          or step <= w.tpot_target_s)
        latency[t] = ok
        sized.append((replicas * t, t, batch, est, f, pre, step, qps_replica, weights, attention, replicas, mem_batch))
    # Degrees that meet the latency targets first, then the fewest GPUs, then the smaller degree.
    best = min(sized, key=lambda e: (latency[e[1]] is False, e[0], e[1]))
    tried = ", ".join(_("TP{t}: {count} GPUs").format(t=e[1], count=e[0]) for e in sized)
    out: list[Candidate | Rejected] = []
    if best[0] > o.max_gpus:
        count, t, qps_replica = best[0], best[1], best[7]
        boards = [whole_boards(sv, count, t) for sv in servers_list if t <= sv.max_gpus]
        count = min(boards) if boards else count
        return [Rejected(gpu.id, gpu.name, count, None, None,
                         [_("{count} GPUs needed for QPS {qps:g} ({qps_replica:.1f} QPS per {t}-GPU replica, the best "
                            "tensor-parallel degree of {tried}) exceed the GPU-count limit of {max_gpus}").format(
                             count=count, qps=w.target_qps, qps_replica=qps_replica, t=t, tried=tried,
                             max_gpus=o.max_gpus)],
                         over_gpu_limit=True)]
    for server in servers_list:
        # A tensor-parallel group stays inside one server (Megatron-LM keeps it in the NVLink domain).
        inside = [e for e in sized if e[1] <= server.max_gpus and e[0] <= o.max_gpus]
        if not inside:
            out.append(Rejected(gpu.id, gpu.name, best[0], server.id, server.interconnect,
                                [_("{server} holds {max_gpus} GPUs, fewer than the {t}-way tensor-parallel replica "
                                   "this model needs").format(server=server.name, max_gpus=server.max_gpus, t=best[1])]))
            continue
        count, t, batch, est, f, pre, step, qps_replica, weights, attention, replicas, mem_batch = min(
            inside, key=lambda e: (latency[e[1]] is False, e[0], e[1]))
        flops_per_token = 2.0 * spec.active_params / t
        needed = count
        count = whole_boards(server, count, t)
        if count > o.max_gpus:
            out.append(Rejected(gpu.id, gpu.name, count, server.id, server.interconnect,
                                [_("{server} comes with {max_gpus} GPUs per board: {needed} needed round up to "
                                   "{count}, over the GPU-count limit of {limit}").format(
                                    server=server.name, max_gpus=server.max_gpus, needed=needed, count=count,
                                    limit=o.max_gpus)], over_gpu_limit=True))
            continue
        replicas = count // t
        speed = replica_speed(ctx, gpu, t, batch, sizing_link) if _uses_serve_speed(ctx) else None
        if speed is not None:
            seen = replica_latency(ctx, gpu, t, batch, target_qps / replicas, sizing_link)
            if seen is not None:
                pre, step = seen.ttft_s, seen.tpot_s
        met = latency[t]
        if met is not None:
            met = (not w.ttft_target_s or pre <= w.ttft_target_s) and (not w.tpot_target_s or not w.output_tokens
                                                                        or step <= w.tpot_target_s)
        n_servers = placements(server, count)
        if n_servers is None and count > server.max_gpus and server.kind != "workstation":
            n_servers = math.ceil(count / server.max_gpus)
        if n_servers is None:
            out.append(Rejected(gpu.id, gpu.name, count, server.id, server.interconnect,
                                [_("{server} takes {min_gpus}-{max_gpus} GPUs, not {count}").format(
                                    server=server.name, min_gpus=server.min_gpus, max_gpus=server.max_gpus,
                                    count=count)]))
            continue
        link = intra_link(ctx, gpu, server)
        cand = Candidate(
            gpu_id=gpu.id, gpu_name=gpu.name, count=count, servers=n_servers, server_id=server.id, server_name=server.name,
            interconnect=link.id, interconnect_name=link.name, network_link=None, sharding=f"tp{t}" if t > 1 else None,
            recompute=None, memory=est, usable_memory_bytes=f.usable_bytes, safe_line_bytes=f.safe_line_bytes,
            headroom_bytes=f.headroom_bytes, fits=f.under_safe_line, qps_capacity=replicas * qps_replica,
            meets_qps=replicas * qps_replica >= target_qps, gpu_power_w=count * gpu.tdp_w, tensor_parallel=t,
        )
        cand.step_time_s = step or pre
        # The engine settings the search chose: replicas of t GPUs, each running `batch` requests at once; the
        # speed model is vLLM's scheduler and memory pool (gpudesk.sizing.speed_serve) where it applies.
        cand.replicas, cand.concurrent_sequences = replicas, batch
        cand.engine = "vllm" if speed is not None else None
        if count != needed:
            cand.rationale.append((_("{needed} GPUs needed, {count} bought: {server} takes {min_gpus}-{max_gpus} GPUs per "
                                     "server; the extra replicas add capacity").format(
                                       needed=needed, count=count, server=server.name, min_gpus=server.min_gpus,
                                       max_gpus=server.max_gpus),
                                   "catalog servers.min_gpus / max_gpus (an HGX or OAM baseboard is sold with all its GPUs)"))
        cand.ttft_s, cand.tpot_s, cand.meets_latency = pre, (step or None), met
        if met is not None:
            values = dict(ttft_ms=pre * 1e3, prompt_tokens=w.prompt_tokens, ttft_target=_ms(w.ttft_target_s),
                          tpot_ms=step * 1e3, batch=batch, tpot_target=_ms(w.tpot_target_s))
            if speed is not None:
                values["rate"] = target_qps / replicas
                latency_text = (_("latency: time to first token {ttft_ms:.0f} ms at {rate:.2f} requests/s per replica "
                                  "({prompt_tokens}-token prompts, queueing and prefill interference included) against "
                                  "{ttft_target}; time per output token {tpot_ms:.1f} ms against {tpot_target}: met")
                                if met else
                                _("latency: time to first token {ttft_ms:.0f} ms at {rate:.2f} requests/s per replica "
                                  "({prompt_tokens}-token prompts, queueing and prefill interference included) against "
                                  "{ttft_target}; time per output token {tpot_ms:.1f} ms against {tpot_target}: missed")
                                ).format(**values)
            elif met:
                latency_text = _("latency: time to first token {ttft_ms:.0f} ms (prefill of one {prompt_tokens}-token "
                                 "prompt, no queueing) against {ttft_target}; time per output token {tpot_ms:.1f} ms at "
                                 "batch {batch} against {tpot_target}: met").format(**values)
            else:
                latency_text = _("latency: time to first token {ttft_ms:.0f} ms (prefill of one {prompt_tokens}-token "
                                 "prompt, no queueing) against {ttft_target}; time per output token {tpot_ms:.1f} ms at "
                                 "batch {batch} against {tpot_target}: missed").format(**values)
            cand.rationale.append((
                latency_text,
                "prefill compute-bound, decode bandwidth-bound (catalog.md 6); batch cut until the decode step meets "
                "the time-per-output-token target"))
        why = cand.rationale
        why.append((ngettext("replica of {t} GPU serving {batch} concurrent sequences: {memory} per GPU under the "
                             "{safe_line} safe line",
                             "replica of {t} GPUs serving {batch} concurrent sequences: {memory} per GPU under the "
                             "{safe_line} safe line", t).format(
                        t=t, batch=mem_batch, memory=format_gib(est.device_need_bytes), safe_line=format_gib(f.safe_line_bytes)), "article 3.1; PagedAttention KV blocks (arXiv 2309.06180)"))
        if speed is not None:
            why.append((_("engine at {batch} requests in flight: {tokens_per_s:,.0f} output tokens/s and {qps:.2f} "
                          "requests/s per replica, time to first token {ttft_ms:.0f} ms, time per output token "
                          "{tpot_ms:.1f} ms; the engine's KV pool holds {kv_tokens:,} tokens (its own memory budget, "
                          "not the safe line)").format(
                            batch=batch, tokens_per_s=speed.output_tokens_per_s, qps=speed.requests_per_s,
                            ttft_ms=speed.ttft_s * 1e3, tpot_ms=speed.tpot_s * 1e3,
                            kv_tokens=speed.kv_capacity_tokens),
                        "gpudesk.sizing.speed_serve (the model of gpudesk estimate speed); its assumptions close this "
                        "rationale, each with its own source"))
        elif w.output_tokens:
            why.append((_("decode step {step_ms:.1f} ms for {batch} sequences = {tokens_per_s:,.0f} tokens/s per replica "
                          "(weights {weights} + KV read at {bandwidth_gbps:g} GB/s x {hbm_efficiency:g}); prefill "
                          "{prefill_ms:.1f} ms for {prompt_tokens} tokens (2 x active params + causal attention "
                          "{attention_share:.0%} more per token) at {peak:g} dense {precision} x "
                          "{compute_efficiency:g}").format(
                            step_ms=step * 1e3, batch=batch, tokens_per_s=tm.decode_tokens_per_s(batch, step),
                            weights=format_gib(weights), bandwidth_gbps=gpu.memory_bandwidth_gbps,
                            hbm_efficiency=tm.DEFAULT_HBM_EFFICIENCY, prefill_ms=pre * 1e3,
                            prompt_tokens=w.prompt_tokens, attention_share=attention / max(flops_per_token, 1),
                            peak=peak, precision=precision.upper(), compute_efficiency=COMPUTE_EFFICIENCY),
                        f"decode memory-bound, prefill compute-bound (catalog.md 6); attention FLOPs: PaLM (arXiv "
                        f"2204.02311) appendix B; {gpu.source_url}"))
        else:
            why.append((_("forward pass {forward_ms:.2f} ms per request ({prompt_tokens} tokens x 2 x params) at {peak:g} "
                          "dense {precision} x {compute_efficiency:g}").format(
                            forward_ms=pre * 1e3, prompt_tokens=w.prompt_tokens, peak=peak, precision=precision.upper(),
                            compute_efficiency=COMPUTE_EFFICIENCY), f"Kaplan et al. 2020; {gpu.source_url}"))
        why.append((_("{qps_replica:,.1f} QPS per replica -> {replicas} replica(s), {count} GPU(s) for QPS "
                      "{qps:g}").format(qps_replica=qps_replica, replicas=replicas, count=count, qps=w.target_qps),
                    "requirement: workload.target_qps"))
        if len(sized) > 1:
            why.append((_("tensor-parallel degrees tried ({tried}): TP{t} needs the fewest GPUs").format(tried=tried, t=t),
                        "vLLM --tensor-parallel-size; a larger degree leaves more KV cache per GPU for a larger batch"))
        if t > 1 and link.kind == "pcie":
            cand.warnings.append(_("Tensor parallelism over {link} without NVLink: every layer exchanges activations on "
                                   "PCIe").format(link=link.name))
        if speed is not None:  # the serving model's assumptions, one step each with its own source
            why.extend((a.line(), a.source or SPEED_SERVE_SOURCE) for a in speed.assumptions)
        out.append(cand)
    return out
