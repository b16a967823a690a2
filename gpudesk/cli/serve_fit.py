"""``gpudesk estimate serve``: will a model start in an engine on these GPUs, and with which flags.

``gpudesk estimate serve --engine vllm|sglang|trtllm|llamacpp|ollama [--engine-version V]
(--model M | --config F | --gguf F) --gpu ID [--gpus N] [--tp N] [--weight-format FMT]
[--engine-arg NAME=VALUE ...] [--concurrency N] [--ecc on|off] [--json]`` prints the engine's start-up memory per GPU
(weights, activation peak, non-torch and CUDA-graph memory, KV cache), the KV capacity in tokens and blocks, the
largest context at ``--concurrency`` and the largest concurrency at the context, the command line, and when it does
not fit the smallest changes that make it fit. ``--gpu`` takes a catalog GPU or a unified-memory device
(``apple-64gb``, ``m3-max-128``, ``gb10``). The model is sized by :mod:`gpudesk.sizing.engines.fit`.
"""

from __future__ import annotations

import argparse

from gpudesk.cli.json_text import dumps_json
from gpudesk.cli import CliError
from gpudesk.i18n import _, ngettext

from gpudesk.units import GIB
MAX_CONCURRENCY = 1_000_000  # far above any engine's max_num_seqs; a larger number is a typo


def _check_counts(args: argparse.Namespace) -> None:
    """Refuse GPU, TP, concurrency and wired-limit numbers no launch can have, naming the flag."""
    for flag, value in (("--gpus", args.gpus), ("--tp", args.tp), ("--wired-limit-mb", args.wired_limit_mb)):
        if value is not None and value < 1:
            raise CliError(_("{flag} must be a whole number of at least 1, not {value}.").format(
                flag=flag, value=value))
    if not 1 <= args.concurrency <= MAX_CONCURRENCY:
        raise CliError(_("--concurrency must be between 1 and {most:,} requests, not {value}.").format(
            most=MAX_CONCURRENCY, value=args.concurrency))
    if args.tp and args.gpus and args.gpus % args.tp:
        raise CliError(_("--tp {tp} does not divide --gpus {gpus}; give a tensor-parallel degree that "
                         "divides the GPU count.").format(tp=args.tp, gpus=args.gpus))


def add_serve_parser(esub) -> None:
    """Register ``estimate serve`` under the ``estimate`` sub-commands."""
    from gpudesk.sizing.engines.common import ENGINES

    s = esub.add_parser("serve", help=_("will a model start in vLLM, SGLang, TensorRT-LLM, llama.cpp or Ollama, "
                                        "and with which flags"))
    s.add_argument("--engine", required=True, type=str.lower, choices=ENGINES)
    s.add_argument("--engine-version", metavar="V", help=_("engine version or family (vLLM v0/v1 or 0.6.3 ...)"))
    src = s.add_mutually_exclusive_group(required=True)
    src.add_argument("--model", metavar="NAME", help=_("catalog model id or name fragment, e.g. llama-3-8b"))
    src.add_argument("--config", metavar="config.json", help=_("local Hugging Face config.json (read offline)"))
    src.add_argument("--gguf", metavar="FILE.gguf", help=_("local GGUF file (header read offline)"))
    s.add_argument("--gpu", required=True, metavar="ID",
                   help=_("catalog GPU, or a unified-memory device: apple-64gb, m3-max-128, gb10"))
    s.add_argument("--ecc", choices=("on", "off"), default=None,
                   help=_("ECC state of a GDDR card (on: the driver reports 1/16 less memory); default: as the card "
                          "ships, on for data-center cards such as T4, L4 and L40S"))
    s.add_argument("--wired-limit-mb", type=int, metavar="MB",
                   help=_("Apple silicon: the iogpu.wired_limit_mb you set (default: macOS's limit)"))
    s.add_argument("--gpus", type=int, default=None, metavar="N", help=_("GPUs (default: the --tp degree, else 1); vLLM, SGLang and TensorRT-LLM split the model "
                          "over them (--tp defaults to N)"))
    s.add_argument("--tp", type=int, default=None, metavar="N", help=_("tensor-parallel degree"))
    s.add_argument("--weight-format", default="checkpoint", metavar="FMT",
                   help=_("checkpoint, bf16, fp8, int4-g128, or a GGUF type: q4_k_m, q5_k_s, iq4_xs, q8_0 ..."))
    s.add_argument("--engine-arg", action="append", default=[], metavar="NAME=VALUE",
                   help=_("an engine setting as the engine spells it, e.g. gpu_memory_utilization=0.9, "
                          "max_model_len=8192, mem_fraction_static=0.88, n_gpu_layers=33, cache_type_k=q8_0"))
    s.add_argument("--concurrency", type=int, default=1, metavar="N",
                   help=_("concurrent requests for the largest-context answer (default 1)"))
    s.add_argument("--json", action="store_true", help=_("print a JSON object"))
    s.set_defaults(func=cmd_estimate_serve)


def _device(args):
    from gpudesk.catalog import AmbiguousItemError, CatalogError, UnknownItemError, open_catalog
    from gpudesk.sizing.engines.device import catalog_device, unified_device

    unified = unified_device(args.gpu, args.wired_limit_mb)
    if unified:
        return unified
    try:
        gpu = open_catalog().find_gpu(args.gpu)
    except AmbiguousItemError as exc:
        raise CliError(_("--gpu {gpu!r} matches several GPUs: {ids}").format(
            gpu=args.gpu, ids=", ".join(g.id for g in exc.matches))) from exc
    except (UnknownItemError, CatalogError) as exc:
        raise CliError(_("{flag}: {problem}").format(flag=f"--gpu {args.gpu!r}", problem=exc.user_text())) from exc
    return catalog_device(gpu, None if args.ecc is None else args.ecc == "on")


def _model(args):
    from gpudesk.cli.plan import _spec
    from gpudesk.sizing import SizingError
    from gpudesk.sizing.engines.gguf_file import read_gguf

    if args.gguf is not None and not args.gguf.strip():
        raise CliError(_("{flag}: the value is empty; give the path of a local GGUF file.").format(flag="--gguf"))
    if args.gguf is not None:
        try:
            return read_gguf(args.gguf)
        except SizingError as exc:
            raise CliError(_("{flag}: {problem}").format(flag="--gguf", problem=exc.detail or exc.user_text())) from exc
    args.params = None
    return _spec(args)


def cmd_estimate_serve(args: argparse.Namespace) -> int:
    from gpudesk.sizing import SizingError
    from gpudesk.sizing.engines.fit import TP_SETTING, engine_fit

    _check_counts(args)
    device = _device(args)
    model = _model(args)
    tp = args.tp
    if tp is None and args.gpus and args.engine in TP_SETTING:
        tp = args.gpus  # one model over the GPUs: these engines split it by tensor parallelism only
    gpus = args.gpus or tp or 1
    flags = {"engine_arg": "--engine-arg", "weight_format": "--weight-format", "engine": "--engine", "gguf": "--gguf",
             "engine_version": "--engine-version"}
    try:
        result = engine_fit(args.engine, model, device, args.engine_arg, version=args.engine_version,
                            weight_format=args.weight_format, gpus=gpus, tensor_parallel=tp,
                            concurrency=args.concurrency)
    except SizingError as exc:
        field = str(exc.field or "")
        if field == TP_SETTING.get(args.engine) and not any(a.split("=", 1)[0].strip() == field
                                                            for a in args.engine_arg or []):
            flags[field] = "--tp" if args.tp is not None else "--gpus"  # the degree came from these flags
        raise CliError(_("{flag}: {problem}").format(flag=flags.get(field, "--engine-arg " + field),
                                                    problem=exc.detail or exc.user_text())) from exc
    if args.json:
        print(dumps_json(result.to_dict(), indent=2))
        return 0
    print("\n".join(render(result)))
    return 0


def render(r) -> list[str]:
    """The fit as text lines (GiB per term in the engine's terms, capacity, command, changes)."""
    from gpudesk.cli.columns import display_width, ljust_display
    from gpudesk.sizing.engines.terms import engine_title, memory_rows

    lines = [_("{engine} on {gpus} x {gpu} ({total:.2f} GiB each)").format(
        engine=engine_title(r), gpus=r.gpus, gpu=r.gpu_name, total=r.gpu_total_bytes / GIB), ""]
    rows = memory_rows(r)
    host = _("host (CPU) memory")
    width = max(22, *(display_width(label) + 2 for label in [host] + [label for label, _value in rows]))
    for label, value in rows:
        lines.append(f"  {ljust_display(label, width)}{value / GIB:>10.2f} GiB")
    if r.host_bytes:
        lines.append(f"  {ljust_display(host, width)}{r.host_bytes / GIB:>10.2f} GiB")
    for buf in r.extra.get("buffers", []):
        lines.append(_("  {label:<8} model {model:.2f} GiB, KV {kv:.2f} GiB, compute {compute:.2f} GiB, {layers} "
                       "layers").format(label=buf["label"], model=buf["model_bytes"] / GIB, kv=buf["kv_bytes"] / GIB,
                                        compute=buf["compute_bytes"] / GIB, layers=buf["layers"]))
    if "layers_offload" in r.extra:
        lines.append(_("  layers offloaded {offload}/{layers}, memory required {need:.2f} GiB").format(
            offload=r.extra["layers_offload"], layers=r.extra["layers_model"],
            need=r.extra["memory_required_full_bytes"] / GIB))
    lines += ["", _("KV cache: {tokens:,} tokens in {blocks:,} blocks of {block}").format(
        tokens=r.kv_cache_tokens, blocks=r.kv_cache_blocks, block=r.block_tokens),
        _("maximum concurrency for {context:,} tokens per request: {conc:.2f}x").format(
            context=r.context_tokens, conc=r.max_concurrency),
        ngettext("longest context at {n} concurrent request: {tokens:,} tokens",
                 "longest context at {n} concurrent requests: {tokens:,} tokens", r.concurrency).format(
            n=r.concurrency, tokens=r.max_context_tokens),
        "", (_("fits: yes") if r.fits else _("fits: NO - {reason}").format(reason=r.reason)), "", _("command:"),
        "  " + r.command]
    if r.changes:
        lines += ["", _("smallest changes that make it fit:")]
        for c in r.changes:
            text = _("{change} (for the weights, --weight-format {format} does the same)").format(change=c.text, format=c.weight_format) \
                if c.weight_format else c.text
            lines += [f"  - {text}", f"    {c.command}"]
    lines += ["", _("assumptions:")] + [f"  - {a} [{s}]" for a, s in r.assumptions]
    return lines


def engines_accuracy() -> dict:
    """The engine start-up log set scored (``estimate accuracy --json`` key ``engines``)."""
    from gpudesk.sizing import SizingError
    from gpudesk.sizing.engines.validation import evaluate, summarize

    try:
        results = evaluate()
    except SizingError as exc:
        raise CliError(_("{flag}: {problem}").format(flag="engines", problem=exc.detail or exc.user_text())) from exc
    return {"summary": summarize(results).to_dict(), "logs": [r.to_dict() for r in results]}


def engines_accuracy_lines() -> list[str]:
    """The same as text: one line per category and the refused logs with their reasons."""
    data = engines_accuracy()
    s = data["summary"]
    lines = [_("engine start-up logs: {logs} ({predicted} predicted, {refused} refused)").format(
        logs=s["logs"], predicted=s["predicted"], refused=s["refused"])]
    for cat, v in s["categories"].items():
        if v["logs"]:
            lines.append(_("  {category:<12} within {tolerance:.0%}: {within}/{logs} logs ({share:.0%})").format(
                category=cat, tolerance=v["tolerance"], within=v["within"], logs=v["logs"], share=v["share"]))
    held = s.get("held_out")
    if held:
        lines.append(_("  logs added after the models were last changed: {logs}").format(logs=held["logs"]))
        for cat, v in held["categories"].items():
            if v["logs"]:
                lines.append(_("    {category:<12} within {tolerance:.0%}: {within}/{logs} logs ({share:.0%})").format(
                    category=cat, tolerance=v["tolerance"], within=v["within"], logs=v["logs"], share=v["share"]))
    for log in data["logs"]:
        if log["refused"]:
            lines.append(_("  refused {id}: {reason}").format(id=log["id"], reason=log["refused"]))
    return lines
