"""``gpudesk estimate speed``: the speed of ONE fixed option, no search.

Training (the default): the model as in ``estimate memory`` (``--model`` / ``--config`` / ``--params``, or a
requirement ``--profile X.toml``), ``--gpu ID --count N [--server ID]`` and the layout
``--tp --pp --vp --cp --ep --micro-batch --global-batch --seq --precision --framework --tokens``; answered by
:func:`gpudesk.sizing.speed_train.train_speed`, the function the planner's training search uses.
Serving: when ``--engine`` is given, :func:`gpudesk.cli.speed_serve.cmd_serve_speed`.
``--json`` prints ``{"train": {...}, "assumptions": [...]}`` (or ``{"serve": ...}``).
"""

from __future__ import annotations

import argparse
from typing import Any

from gpudesk.cli import CliError
from gpudesk.cli.json_text import dumps_json
from gpudesk.cli.speed_serve import add_serve_arguments, at_least_one, cmd_serve_speed
from gpudesk.cli.columns import display_width, ljust_display
from gpudesk.i18n import N_, _, marked, ngettext
from gpudesk.units import format_duration

_FLAGS = {"gpus": "--count", "seq_len": "--seq", "tokens": "--tokens", "global_batch": "--global-batch",
          "micro_batch": "--micro-batch",
          "tp": "--tp", "pp": "--pp", "vp": "--vp", "cp": "--cp", "ep": "--ep", "etp": "--etp", "ep_etp": "--ep/--etp",
          "precision": "--precision", "sharding": "--sharding", "recompute": "--recompute",
          "framework": "--framework", "model": "--model", "gpu": "--gpu", "micro_batches": "--global-batch",
          "mtp_layers": "--mtp-layers", "recompute_modules": "--recompute-modules"}


class _OneCount(argparse.Action):
    """--count and --gpus are one flag: given twice with different values, the second must not silently win."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        previous = getattr(namespace, self.dest, None)
        if previous is not None and previous != values:
            parser.error(_("{flag} {value}: the GPU count was already given as {previous} (--count and --gpus are the "
                           "same flag); give it once.").format(flag=option_string, value=values, previous=previous))
        setattr(namespace, self.dest, values)


def add_speed_parser(esub: Any, tokens_type: Any) -> None:
    """Register ``estimate speed`` on the ``estimate`` sub-parsers."""
    from gpudesk.sizing.speed_train import (
        FP8_RECIPES,
        FRAMEWORKS,
        RECOMPUTE_MODULES,
        RECOMPUTES,
        SHARDINGS,
        TRAIN_PRECISIONS,
    )

    p = esub.add_parser("speed", allow_abbrev=False, help=_("training or serving speed of one fixed option (tokens/s, step time, MFU; "
                                        "TTFT, TPOT with --engine)"))
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--model", metavar="NAME", help=_("catalog model id or name fragment, e.g. llama-3-8b"))
    src.add_argument("--params", metavar="N", help=_("parameter count, e.g. 13B, 350M, 6.7e9 (shape is guessed)"))
    src.add_argument("--config", metavar="config.json", help=_("local Hugging Face config.json (read offline)"))
    src.add_argument("--profile", metavar="FILE.toml", help=_("requirement profile: model, sequence, batch, precision "
                                                             "and tokens to train"))
    p.add_argument("--gpu", required=True, metavar="NAME", help=_("catalog GPU id"))
    p.add_argument("--count", "--gpus", dest="count", type=at_least_one, default=None, metavar="N", action=_OneCount,
                   help=_("GPUs in all (--gpus is the same flag, as in estimate memory and serve-fit)"))
    p.add_argument("--server", metavar="ID", help=_("catalog server (its GPU-GPU link and NVLink domain); default: "
                                                    "the widest that takes the GPU"))
    p.add_argument("--network", default="ib-ndr", metavar="LINK", help=_("catalog network link between servers "
                                                                         "(default ib-ndr)"))
    p.add_argument("--json", action="store_true", help=_("print a JSON object"))
    add_serve_arguments(p)
    p.set_defaults(engine=None)  # serving only when --engine is given
    p.add_argument("--pp", type=at_least_one, default=1, metavar="N", help=_("pipeline-parallel stages"))
    p.add_argument("--vp", type=at_least_one, default=1, metavar="N", help=_("virtual stages per rank (interleaved schedule)"))
    p.add_argument("--cp", type=at_least_one, default=1, metavar="N", help=_("context-parallel degree"))
    p.add_argument("--ep", type=at_least_one, default=1, metavar="N", help=_("expert-parallel degree (MoE)"))
    p.add_argument("--etp", type=at_least_one, default=1, metavar="N", help=_("expert tensor-parallel degree (MoE)"))
    p.add_argument("--ep-overlap", action="store_true",
                   help=_("the expert all-to-all overlaps another micro-batch's compute (Megatron "
                          "--overlap-moe-expert-parallel-comm, DualPipe)"))
    p.add_argument("--fp8-recipe", default=None, choices=FP8_RECIPES,
                   help=_("FP8 scaling recipe (default: the framework's own)"))
    p.add_argument("--ep-node-dedup", action="store_true",
                   help=_("the MoE dispatcher sends each token once per destination GPU and once per remote node "
                          "(DeepEP, HybridEP)"))
    p.add_argument("--moe-permute-fusion", default=None, choices=("on", "off"),
                   help=_("MoE token permutation with fused kernels (Megatron --moe-permute-fusion) or not "
                          "(default: the framework's own)"))
    p.add_argument("--grouped-expert-gemm", default=None, choices=("on", "off"),
                   help=_("each expert linear runs as one grouped GEMM over the local experts (torchtitan "
                          "use_grouped_mm) or as one GEMM per expert (default: the framework's own)"))
    p.add_argument("--no-flash-attention", action="store_true",
                   help=_("attention without a fused (flash) kernel: the score matrix goes through memory (Megatron "
                          "without --use-flash-attn, transformers eager)"))
    p.add_argument("--micro-batch", type=at_least_one, default=None, metavar="N", help=_("sequences per micro-batch"))
    p.add_argument("--global-batch", type=at_least_one, default=None, metavar="N", help=_("sequences per optimizer step"))
    p.add_argument("--seq", type=tokens_type, default=None, metavar="TOKENS", help=_("sequence length, e.g. 8k"))
    p.add_argument("--precision", default=None, choices=TRAIN_PRECISIONS, help=_("GEMM precision (fp8: GEMMs only)"))
    p.add_argument("--sharding", default="distributed-optimizer", choices=SHARDINGS)
    p.add_argument("--recompute", default="none", choices=RECOMPUTES)
    p.add_argument("--recompute-modules", nargs="+", default=None, choices=RECOMPUTE_MODULES, metavar="MODULE",
                   help=_("submodules selective recompute redoes in backward (Megatron --recompute-modules): {names}"
                          ).format(names=", ".join(RECOMPUTE_MODULES)))
    p.add_argument("--mtp-layers", type=at_least_one, default=0, metavar="N",
                   help=_("multi-token-prediction depths trained with the model (Megatron --mtp-num-layers)"))
    p.add_argument("--framework", default="megatron", choices=tuple(FRAMEWORKS),
                   help=_("implementation: kernel fusion and communication overlap differ (see assumptions)"))
    p.add_argument("--tokens", type=float, default=None, metavar="N", help=_("tokens to train, for time to result"))
    p.set_defaults(func=cmd_estimate_speed)


def _training_inputs(args: argparse.Namespace) -> tuple[Any, dict[str, Any]]:
    """(model spec, defaults from the profile or the flags' own defaults)."""
    from gpudesk.cli.plan import _catalog, _spec

    base: dict[str, Any] = {"seq_len": 2048, "micro_batch": 1, "global_batch": None, "precision": "bf16", "tp": 1,
                            "tokens": None, "mtp_layers": 0, "recompute_modules": (),
                            "moe_permute_fusion": None, "grouped_expert_gemm": None}
    if args.profile:
        from gpudesk.planner import PlanInputError, load_profile
        from gpudesk.planner.workload import resolve_model

        try:
            req = load_profile(args.profile, _catalog())
            spec = resolve_model(req.model, _catalog())
        except PlanInputError as exc:
            raise CliError(_("profile {profile}: {error}").format(profile=args.profile, error=exc)) from exc
        m = req.model
        base.update(seq_len=m.seq_len_tokens, micro_batch=m.micro_batch_size, global_batch=m.global_batch_size,
                    precision="fp8" if m.precision == "fp8" else "bf16", tp=m.tensor_parallel,
                    mtp_layers=m.mtp_layers, recompute_modules=tuple(m.recompute_modules),
                    moe_permute_fusion=m.moe_permute_fusion,
                    tokens=req.workload.tokens_to_train or (
                        (req.data.sample_count or 0) * m.seq_len_tokens * (req.data.epochs or 1.0)) or None)
        return spec, base
    return _spec(args), base


# Training-only flags and their defaults: a serving estimate (--engine) that met one would drop it unseen (--ep is
# both: a serving replica's expert-parallel size, gpudesk.sizing.serve_expert_parallel).
_TRAINING_ONLY = (("--vp", "vp", 1), ("--cp", "cp", 1), ("--etp", "etp", 1),
                  ("--ep-overlap", "ep_overlap", False), ("--fp8-recipe", "fp8_recipe", None),
                  ("--ep-node-dedup", "ep_node_dedup", False), ("--moe-permute-fusion", "moe_permute_fusion", None),
                  ("--grouped-expert-gemm", "grouped_expert_gemm", None), ("--micro-batch", "micro_batch", None),
                  ("--global-batch", "global_batch", None), ("--seq", "seq", None), ("--precision", "precision", None),
                  ("--sharding", "sharding", "distributed-optimizer"), ("--recompute", "recompute", "none"),
                  ("--recompute-modules", "recompute_modules", None), ("--mtp-layers", "mtp_layers", 0),
                  ("--framework", "framework", "megatron"), ("--tokens", "tokens", None),
                  ("--no-flash-attention", "no_flash_attention", False))


# Flags that act only on the routed experts of an MoE layer (their help says how); on a dense model they would be
# dropped unseen, as --ep is refused there by the model (gpudesk.sizing.speed_train).
_MOE_ONLY = (("--moe-permute-fusion", "moe_permute_fusion", None), ("--ep-overlap", "ep_overlap", False),
             ("--ep-node-dedup", "ep_node_dedup", False), ("--grouped-expert-gemm", "grouped_expert_gemm", None))


def _refuse_moe_flags_on_a_dense_model(args: argparse.Namespace, spec: Any) -> None:
    if spec.moe_experts:
        return
    for flag, name, default in _MOE_ONLY:
        if getattr(args, name, default) != default:
            raise CliError(_("{flag} acts on the experts of an MoE model; {model} has no experts, so leave {flag} "
                             "out.").format(flag=flag, model=spec.name))


def _server_refusal(server: Any, gpu: Any) -> str:
    """Why ``server`` does not take ``gpu``, with what it does take (:meth:`Server.accepts`: the catalog's GPU ids,
    else its GPU form factor; no bundled server gives architectures without ids), so the user can pick a --gpu."""
    if server.gpu_ids:
        return _("--server {server} does not take {gpu}; it takes only {gpus}: pass one of them as --gpu, or choose "
                 "another --server.").format(server=server.id, gpu=gpu.name, gpus=", ".join(server.gpu_ids))
    return _("--server {server} does not take {gpu}; it takes {form} GPUs: choose such a --gpu, or another "
             "--server.").format(server=server.id, gpu=gpu.name, form=server.gpu_form_factor)


def cmd_estimate_speed(args: argparse.Namespace) -> int:
    """Print the speed of one option (module docstring). Returns the exit status."""
    if args.engine is not None:
        for flag, name, default in _TRAINING_ONLY:
            if getattr(args, name, default) != default:
                raise CliError(_("{flag} is a training flag: drop --engine for a training estimate, or drop {flag} "
                                 "for a serving one.").format(flag=flag))
        return cmd_serve_speed(args)
    for flag, value in (("--input-tokens", args.input_tokens), ("--output-tokens", args.output_tokens),
                        ("--concurrency", args.concurrency), ("--request-rate", args.request_rate),
                        ("--batch", args.batch),
                        ("--lmdeploy-backend", getattr(args, "lmdeploy_backend", None)),
                        ("--llamacpp-backend", getattr(args, "llamacpp_backend", None)),
                        ("--cache-max-entry-count", getattr(args, "cache_max_entry_count", None)),
                        ("--max-batch-size", getattr(args, "max_batch_size", None)),
                        ("--max-prefill-token-num", getattr(args, "max_prefill_token_num", None)),
                        ("--quant-policy", getattr(args, "quant_policy", None))):
        if value is not None:
            raise CliError(_("{flag} is a serving flag: add --engine vllm|sglang|trtllm|lmdeploy for a serving estimate.").format(
                flag=flag))
    from gpudesk.cli.plan import _catalog
    from gpudesk.sizing.errors import SizingError
    from gpudesk.sizing.speed_train import TrainSetup, train_speed
    from gpudesk.sizing.speed_train_cases import gpu_rates, nvlink_domain

    spec, base = _training_inputs(args)
    _refuse_moe_flags_on_a_dense_model(args, spec)
    catalog = _catalog()
    gpu = catalog.find_gpu(args.gpu) if args.gpu else None
    if gpu is None:
        raise CliError(_("--gpu is required."))
    try:
        node, intra, intra_name = nvlink_domain(catalog, gpu)
        intra_kind = "nvlink"
        if args.server:
            server = catalog.server(args.server)
            if not server.accepts(gpu):
                raise CliError(_server_refusal(server, gpu))
            link = catalog.link(server.interconnect)
            node, intra, intra_name = server.max_gpus, link.bandwidth_gbps_per_direction, link.name
            intra_kind = "pcie" if link.kind == "pcie" else "nvlink"
        network = catalog.link(args.network)
    except (KeyError, LookupError) as exc:
        raise CliError(_("unknown catalog item: {error}").format(error=exc)) from exc
    tp = args.tp or base["tp"]
    count = args.count or tp * args.pp * args.cp
    micro = args.micro_batch or base["micro_batch"]
    replicas = max(1, count // max(1, tp * args.pp * args.cp))
    setup_values = dict(gpus=count, seq_len=base["seq_len"] if args.seq is None else args.seq,
                        global_batch=args.global_batch or base["global_batch"] or micro * replicas,
                        micro_batch=micro, tp=tp, pp=args.pp, vp=args.vp, cp=args.cp, ep=args.ep, etp=args.etp,
                        precision=args.precision or base["precision"], sharding=args.sharding,
                        recompute=args.recompute, framework=args.framework, gpus_per_node=node, intra_gbps=intra,
                        intra_name=intra_name, inter_gbps=network.bandwidth_gbps_per_direction,
                        inter_name=network.name, tokens=base["tokens"] if args.tokens is None else args.tokens,
                        ep_comm_overlap=bool(args.ep_overlap), ep_node_dedup=bool(args.ep_node_dedup),
                        fp8_recipe=args.fp8_recipe, mtp_layers=args.mtp_layers or base["mtp_layers"],
                        recompute_modules=tuple(args.recompute_modules or base["recompute_modules"]),
                        intra_kind=intra_kind,
                        moe_permute_fusion=base["moe_permute_fusion"] if args.moe_permute_fusion is None
                        else args.moe_permute_fusion == "on",
                        grouped_expert_gemm=base["grouped_expert_gemm"] if args.grouped_expert_gemm is None
                        else args.grouped_expert_gemm == "on", flash_attention=not args.no_flash_attention)
    try:
        speed = train_speed(spec, gpu_rates(gpu), TrainSetup(**setup_values))
    except SizingError as exc:
        field = str(getattr(exc, "field", ""))
        raise CliError(_("{flag}: {problem}").format(flag=_FLAGS.get(field, field),
                                                    problem=getattr(exc, "detail", None) or exc.user_text())) from exc
    from gpudesk.sizing.speed_bands import train_band

    band = train_band(gpu.id, args.pp, args.ep)
    if args.json:
        train = speed.to_dict()
        train["expected_error_band"] = None if band is None else dict(
            band.to_dict(), step_time_range_s=list(band.time_range(speed.step_time_s)))
        print(dumps_json({"train": train, "assumptions": [a.to_dict() for a in speed.assumptions]},
                         indent=2, ensure_ascii=False))
        return 0
    s = setup_values
    lines = [
        _("{model} on {count} x {gpu}: TP {tp} PP {pp} (VP {vp}) CP {cp} EP {ep}, micro-batch {mb}, global batch {gb} "
          "x {seq} tokens, {precision}, {framework}").format(
            model=spec.name, count=count, gpu=gpu.name, tp=s["tp"], pp=s["pp"], vp=s["vp"], cp=s["cp"],
            ep=f"{s['ep']} ETP {s['etp']}" if s["etp"] > 1 else s["ep"],  # the expert TP degree, when it splits experts
            mb=s["micro_batch"], gb=s["global_batch"], seq=s["seq_len"], precision=s["precision"],
            framework=s["framework"]),
        _("tokens/s per GPU: {tps:,.0f}").format(tps=speed.tokens_per_s_per_gpu),
        ngettext("step time: {step:.3f} s ({mbs} micro-batch per replica)",
                 "step time: {step:.3f} s ({mbs} micro-batches per replica)", speed.micro_batches).format(
                     step=speed.step_time_s, mbs=speed.micro_batches),
        _("MFU (model FLOPs / BF16 dense peak): {mfu:.1%}").format(mfu=speed.mfu),
        _("exposed communication: {comm:.1%} of the step; pipeline bubble: {bubble:.1%}").format(
            comm=speed.comm_share, bubble=speed.bubble_share),
    ]
    if speed.time_to_result_s is not None:
        lines.append(_("time to result: {time}").format(time=format_duration(speed.time_to_result_s)))
    if band is not None:
        low, high = band.time_range(speed.step_time_s)
        lines.append(_("expected error: on {rows} published runs of its class ({klass}) the model's speed was "
                       "{p10:.2f}-{p90:.2f}x the measured one (10th-90th percentile; within 20 % on {share:.0%}, the "
                       "rest are misses); measured step likely {low:.3f}-{high:.3f} s (gpudesk estimate accuracy)").format(
            rows=band.rows, klass=band.klass, p10=band.ratio_p10, p90=band.ratio_p90, share=band.within_20_share,
            low=low, high=high))
    lines += ["", _("per step:")] + _breakdown_lines(speed.breakdown)
    lines += ["", _("assumptions:")] + [f"  {a.line()}  [{a.source}]" for a in speed.assumptions]
    print("\n".join(lines))
    return 0


# The training step's parts (keys of TrainSpeed.breakdown, as --json prints them), in words.
_BREAKDOWN_LABELS = {
    "gemm_s": N_("matrix multiplies (GEMM)"),
    "attention_s": N_("attention kernels"),
    "other_kernels_s": N_("other kernels (norms, activations, ...)"),
    "tensor_parallel_exposed_s": N_("tensor-parallel communication, exposed"),
    "context_parallel_exposed_s": N_("context-parallel communication, exposed"),
    "expert_all_to_all_s": N_("expert all-to-all (MoE)"),
    "pipeline_p2p_s": N_("pipeline send/receive"),
    "pipeline_last_stage_s": N_("pipeline last-stage extra work"),
    "pipeline_bubble_s": N_("pipeline bubble"),
    "data_parallel_exposed_s": N_("data-parallel gradient sync, exposed"),
    "optimizer_s": N_("optimizer step"),
    "host_issue_bound_s": N_("host launch overhead beyond the GPU"),
}


def _breakdown_lines(breakdown: dict[str, float]) -> list[str]:
    """One line per part of the step: its label and seconds, the numbers aligned by display width."""
    labels = {key: marked(_BREAKDOWN_LABELS[key]) if key in _BREAKDOWN_LABELS else key for key in breakdown}
    times = {key: _("{seconds} s").format(seconds=f"{seconds:.3f}") for key, seconds in breakdown.items()}
    label_width = max((display_width(text) for text in labels.values()), default=0) + 2
    time_width = max((display_width(text) for text in times.values()), default=0)
    return ["  " + ljust_display(labels[key], label_width) + " " * (time_width - display_width(times[key]))
            + times[key] for key in breakdown]
