"""``gpudesk plan`` and ``gpudesk estimate memory``: the planner and the memory estimator from the command line.

``gpudesk plan --profile FILE.toml [--format md|json|csv] [--candidate N] [--output FILE] [--no-my-prices]``
plans a TOML profile (see resources/examples) against the bundled catalog: ``json`` prints ``plan_to_dict``
(keys with units), ``md`` the configuration sheet of the chosen candidate, ``csv`` its bill of materials.
Your own GPU prices (Catalog tab, user store) are used when the user store opens, unless ``--no-my-prices``.

``gpudesk estimate memory --model NAME | --params N | --config config.json --mode train|lora|qlora|inference``
prints the per-GPU memory breakdown in GiB and bytes (``--json`` for a JSON object); ``--gpu NAME`` adds the
fit against that card's usable memory and safe line.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from gpudesk.cli import CliError

GIB = 1024**3


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("plan", help="plan GPUs for a requirement profile (TOML)")
    p.add_argument("--profile", required=True, metavar="FILE.toml", help="requirement profile, e.g. resources/examples/article-13b-finetune.toml")
    p.add_argument("--format", choices=("md", "json", "csv"), default="md", help="md: configuration sheet; json: the whole plan; csv: bill of materials")
    p.add_argument("--candidate", type=int, default=1, metavar="N", help="which ranked candidate the sheet describes (1 = top)")
    p.add_argument("--output", metavar="FILE", help="write to FILE instead of standard output")
    p.add_argument("--no-my-prices", action="store_true",
                   help="ignore your own GPU prices (entered in the Catalog tab) and use the catalog's only")
    p.set_defaults(func=cmd_plan)

    e = subparsers.add_parser("estimate", help="estimate GPU memory for a model and workload")
    esub = e.add_subparsers(dest="estimate_command", metavar="WHAT", required=True)
    m = esub.add_parser("memory", help="per-GPU memory breakdown (weights, gradients, optimizer, activations, KV ...)")
    src = m.add_mutually_exclusive_group(required=True)
    src.add_argument("--model", metavar="NAME", help="catalog model id or name fragment, e.g. llama-3-8b")
    src.add_argument("--params", metavar="N", help="parameter count, e.g. 13B, 350M, 6.7e9 (shape is guessed)")
    src.add_argument("--config", metavar="config.json", help="local Hugging Face config.json (read offline)")
    m.add_argument("--mode", choices=("train", "lora", "qlora", "inference"), default="train")
    m.add_argument("--precision", default="bf16", choices=("bf16", "fp16", "fp32", "fp8"), help="training compute precision")
    m.add_argument("--optimizer", default="adam-18", choices=("adam-16", "adam-18", "adam-20", "adamw-bf16", "adam-8bit", "sgd"),
                   help="optimizer accounting (16 ZeRO paper, 18 Megatron/DeepSpeed, 20 MT-NLG)")
    m.add_argument("--seq", type=int, default=2048, metavar="TOKENS", help="sequence length (training) or context (inference)")
    m.add_argument("--batch", type=int, default=1, metavar="N", help="micro-batch (training) or concurrent sequences (inference)")
    m.add_argument("--gpus", type=int, default=None, metavar="N", help="GPUs the job is spread over (default: the --tp degree, else 1)")
    m.add_argument("--sharding", default="ddp", choices=("ddp", "zero1", "zero2", "zero3", "fsdp", "fsdp-grad-op"))
    m.add_argument("--offload", default="none", choices=("none", "optimizer", "all"))
    m.add_argument("--recompute", default="none", choices=("none", "selective", "full"))
    m.add_argument("--no-flash", action="store_true", help="attention without FlashAttention (stores the s x s scores)")
    m.add_argument("--tp", type=int, default=1, metavar="N", help="tensor-parallel degree")
    m.add_argument("--lora-rank", type=int, default=16, metavar="R")
    m.add_argument("--lora-targets", default="all-linear", metavar="LIST", help="comma-separated modules or all-linear/attention/mlp")
    m.add_argument("--weight-format", default="bf16", metavar="FMT", help="inference weights: bf16, fp8, int8, int4-g128, nf4-dq ...")
    m.add_argument("--kv-precision", default="bf16", metavar="P", help="KV-cache precision (bf16, fp16, fp8)")
    m.add_argument("--activation-bytes-per-sample", type=int, metavar="BYTES",
                   help="activations per sample for non-transformer models (CNN, 3D U-Net), measured or derived")
    m.add_argument("--gpu", metavar="NAME", help="compare with this catalog GPU's usable memory and safe line")
    m.add_argument("--safe-free", type=float, default=0.20, metavar="F", help="share of usable memory to keep free (default 0.20)")
    m.add_argument("--json", action="store_true", help="print a JSON object")
    m.set_defaults(func=cmd_estimate_memory)


def _catalog():
    from gpudesk.catalog import CatalogError, open_catalog

    try:
        return open_catalog()
    except CatalogError as exc:
        raise CliError(str(exc), status=1) from exc


def _emit(text: str, output: str | None) -> None:
    if output:
        try:
            Path(output).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise CliError(f"cannot write {output}: {exc.strerror or exc}") from exc
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")


def _render(fmt: str, data: dict, profile: dict, index: int, catalog) -> str:
    """Markdown sheet / CSV bill of materials through the configuration-sheet renderers."""
    from gpudesk.planner.sheet import SheetError
    from gpudesk.planner.sheet_csv import plan_to_csv
    from gpudesk.planner.sheet_markdown import plan_to_markdown

    try:
        if fmt == "csv":
            return plan_to_csv(data, index, profile=profile, catalog=catalog)
        return plan_to_markdown(data, index, profile=profile, catalog=catalog)
    except SheetError as exc:
        raise CliError(str(exc), status=1) from exc


def my_prices() -> dict | None:
    """The user's own GPU prices from the user store, or None when they cannot be read (a note goes to stderr;
    the plan then uses catalog prices only). Read-only and without sqlite-utils: planning starts fast."""
    from gpudesk.store.errors import StoreError
    from gpudesk.store.prices import read_price_overrides

    try:
        return read_price_overrides()
    except StoreError as exc:
        print(f"note: your prices are not used, they could not be read: {exc}", file=sys.stderr)
        return None


def deciding_reasons(rejected, limit: int = 5) -> str:
    """The rejections that say the most: one per distinct reason (the same rule over many GPUs is one entry)."""
    import re

    seen: dict[str, str] = {}
    for r in rejected:
        for reason in r.reasons:
            # Numbers and names differ between GPUs; the rule's wording does not.
            rule = re.sub(r"[\d.,]+|\b[A-Z][\w-]*\b", "#", reason)[:60]
            if rule not in seen:
                seen[rule] = f"{r.gpu_id}: {reason}"
    return "; ".join(list(seen.values())[:limit])


def cmd_plan(args: argparse.Namespace) -> int:
    from gpudesk.planner import (
        PlanInputError,
        load_profile,
        plan,
        plan_to_dict,
        requirement_to_dict,
    )
    from gpudesk.sizing import SizingError

    try:
        req = load_profile(args.profile)
    except PlanInputError as exc:
        what = exc.detail if exc.field == "profile" else str(exc)  # no "profile x: profile: ..." stutter
        raise CliError(f"profile {args.profile}: {what}") from exc
    catalog = _catalog()
    prices = None if args.no_my_prices else my_prices()
    try:
        result = plan(req, catalog, price_overrides=prices)
    except PlanInputError as exc:
        if exc.field.startswith("price_overrides."):
            raise CliError(f"your price for {exc.field.split('.', 1)[1]}: {exc.detail} (or use --no-my-prices)") from exc
        raise CliError(f"profile {args.profile}: {exc}") from exc
    except SizingError as exc:
        raise CliError(f"profile {args.profile}: {exc}") from exc
    data = plan_to_dict(result)
    if args.format == "json":
        _emit(json.dumps(data, indent=2, ensure_ascii=False), args.output)
    else:
        if not result.candidates:
            raise CliError(f"no GPU configuration can run this requirement ({deciding_reasons(result.rejected)}). "
                           "Use --format json for every rejection.", status=1)
        if not 1 <= args.candidate <= len(result.candidates):
            raise CliError(f"--candidate must be between 1 and {len(result.candidates)}")
        _emit(_render(args.format, data, requirement_to_dict(req), args.candidate - 1, catalog), args.output)
    return 0


def _norm(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9.]+", text.lower()))


def _say_how_model_matched(query: str, found) -> None:
    """Tell the user (on stderr) which catalog model ``--model`` became, unless the text was its id or name."""
    if _norm(query) in (_norm(found.id), _norm(found.name)):
        return
    print(f"--model {query!r} matched catalog model {found.name} (id {found.id}); pass --model {found.id} to "
          "silence this note", file=sys.stderr)


def _spec(args):
    from gpudesk.planner import PlanInputError
    from gpudesk.planner.requirement import ModelMemory
    from gpudesk.planner.workload import resolve_model
    from gpudesk.sizing import ShapeError, parse_param_count

    try:
        if args.model:
            spec = resolve_model(ModelMemory(model=args.model), _catalog())
            _say_how_model_matched(args.model, _catalog().find_model(args.model))
            return spec
        if args.config:
            return resolve_model(ModelMemory(config_path=args.config))
        return resolve_model(ModelMemory(params=parse_param_count(args.params)))
    except (PlanInputError, ShapeError) as exc:
        flag = {"model.model": "--model", "model.config_path": "--config", "model.params": "--params", "params": "--params"}
        field = getattr(exc, "field", "")
        detail = getattr(exc, "detail", None) or str(exc).split(": ", 1)[-1]
        raise CliError(f"{flag.get(field, field)}: {detail}") from exc


def cmd_estimate_memory(args: argparse.Namespace) -> int:
    from gpudesk.sizing import MemoryWorkload, SizingError, estimate_memory, fit

    spec = _spec(args)
    inference = args.mode == "inference"
    if args.gpus is None:
        args.gpus = args.tp if args.tp and args.tp > 0 else 1
    workload = MemoryWorkload(
        mode=args.mode, precision=args.precision, optimizer=args.optimizer, seq_len_tokens=args.seq,
        micro_batch_size=args.batch, gpus=args.gpus, sharding=args.sharding, offload=args.offload,
        recompute=args.recompute, flash_attention=not args.no_flash, tensor_parallel=args.tp,
        lora_rank=args.lora_rank, lora_targets=tuple(t.strip() for t in args.lora_targets.split(",") if t.strip()),
        weight_format=args.weight_format, kv_precision=args.kv_precision, context_tokens=args.seq,
        concurrent_sequences=args.batch, activation_bytes_per_sample=args.activation_bytes_per_sample,
    )
    try:
        est = estimate_memory(spec, workload)
    except SizingError as exc:
        flag = {"seq_len_tokens": "--seq", "context_tokens": "--seq", "micro_batch_size": "--batch",
                "concurrent_sequences": "--batch", "gpus": "--gpus", "tensor_parallel": "--tp", "lora_rank": "--lora-rank",
                "lora_targets": "--lora-targets", "weight_format": "--weight-format", "kv_precision": "--kv-precision",
                "activation_bytes_per_sample": "--activation-bytes-per-sample", "precision": "--precision"}
        raise CliError(f"{flag.get(exc.field, exc.field)}: {str(exc).split(': ', 1)[-1]}") from exc
    verdict = None
    if args.gpu:
        from gpudesk.catalog import AmbiguousItemError, UnknownItemError

        try:
            gpu = _catalog().find_gpu(args.gpu)
        except AmbiguousItemError as exc:
            raise CliError(f"--gpu {args.gpu!r} matches several GPUs: {', '.join(g.id for g in exc.matches)}") from exc
        except UnknownItemError as exc:
            raise CliError(f"--gpu {args.gpu!r}: {exc}") from exc
        try:
            verdict = (gpu, fit(est.total_bytes, gpu.memory_bytes, gpu.memory_type, args.safe_free))
        except SizingError as exc:
            raise CliError(f"--safe-free: {str(exc).split(': ', 1)[-1]}") from exc
    if args.json:
        out = {"model": {"name": spec.name, "params": spec.params, "shape_is_guess": spec.shape_is_guess, "source": spec.source},
               "mode": args.mode, "per_gpu": est.to_dict()}
        if verdict:
            gpu, f = verdict
            out["gpu"] = {"gpu_id": gpu.id, "usable_memory_bytes": f.usable_bytes, "safe_line_bytes": f.safe_line_bytes,
                          "headroom_to_safe_line_bytes": f.headroom_bytes, "fits_usable": f.fits, "under_safe_line": f.under_safe_line}
        _emit(json.dumps(out, indent=2), None)
        return 0
    lines = [f"{spec.name}: {spec.params:,} parameters" + (" (shape guessed from the count)" if spec.shape_is_guess else ""),
             f"mode {args.mode}" + ("" if inference else f", {args.precision}, {args.optimizer}") +
             f", {'context' if inference else 'sequence'} {args.seq}, {'concurrency' if inference else 'micro-batch'} {args.batch}"
             + (f", {args.gpus} GPUs {args.sharding}" if args.gpus > 1 and not inference else ""),
             "", f"{'component':<22}{'GiB':>10}{'bytes':>18}"]
    for name, value in est.breakdown.items():
        lines.append(f"{name:<22}{value / GIB:>10.2f}{value:>18,}")
    lines.append(f"{'total per GPU':<22}{est.total_bytes / GIB:>10.2f}{est.total_bytes:>18,}")
    if verdict:
        gpu, f = verdict
        state = "under the safe line" if f.under_safe_line else ("over the safe line" if f.fits else "does NOT fit")
        lines += ["", f"{gpu.name}: {f.usable_bytes / GIB:.2f} GiB usable, safe line {f.safe_line_bytes / GIB:.2f} GiB: "
                  f"{state} ({f.headroom_bytes / GIB:+.2f} GiB headroom)"]
    lines += ["", "assumptions:"] + [f"  - {a} [{s}]" for a, s in est.assumptions]
    _emit("\n".join(lines), None)
    return 0
