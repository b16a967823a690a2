"""``gpudesk catalog list|show|compare``: the bundled GPU catalog from the command line.

GPU arguments are an id or a unique, case-insensitive fragment of the name ("a100 80gb sxm"); an
ambiguous fragment lists the matches and exits with status 2. ``--json`` prints keys with units in their
names (see :data:`gpudesk.catalog.fields.JSON_KEYS`); unsupported precisions are ``null``, and so are rates
the architecture has but nobody published, which ``show --json`` lists in ``unpublished_rates``.
"""

from __future__ import annotations

import argparse
import sys

from gpudesk.catalog import GPU, AmbiguousItemError, Catalog, CatalogError, UnknownItemError, open_catalog
from gpudesk.catalog.fields import FIELDS_BY_KEY, SPEC_FIELDS, differing_keys, gpu_json
from gpudesk.cli import CliError
from gpudesk.cli.json_text import dumps_json
from gpudesk.i18n import _, marked, ngettext

LIST_COLUMNS = (
    "id",
    "vendor",
    "architecture",
    "memory_gb",
    "memory_bandwidth_gbps",
    "bf16_dense_tflops",
    "fp8_dense_tflops",
    "tdp_w",
    "form_factor",
    "price_usd",
    "price_kind",
    "cloud_usd_per_gpu_hour",
    "market",
)


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("catalog", help=_("list, show and compare GPUs in the bundled catalog; list its models"))
    sub = parser.add_subparsers(dest="catalog_command", metavar="ACTION", required=True)

    p_list = sub.add_parser("list", help=_("all GPUs, one per line"))
    p_list.add_argument("--json", action="store_true", help=_("print a JSON array"))
    p_list.set_defaults(func=cmd_list)

    p_show = sub.add_parser("show", help=_("every spec of one GPU"))
    p_show.add_argument("gpu", metavar="GPU", help=_('id or unique part of the name, e.g. "h100 sxm"'))
    p_show.add_argument("--json", action="store_true", help=_("print a JSON object"))
    p_show.set_defaults(func=cmd_show)

    p_models = sub.add_parser("models", help=_("the model shapes the estimates and the planner know, one per line"))
    p_models.add_argument("--json", action="store_true", help=_("print a JSON array"))
    p_models.set_defaults(func=cmd_models)

    p_cmp = sub.add_parser("compare", help=_("GPUs side by side; differing rows are marked with *"))
    p_cmp.add_argument("gpus", metavar="GPU", nargs="+", help=_("two or more ids or name fragments"))
    p_cmp.add_argument("--json", action="store_true", help=_("print a JSON array"))
    p_cmp.set_defaults(func=cmd_compare)


def _open() -> Catalog:
    try:
        return open_catalog()
    except CatalogError as exc:
        raise CliError.from_error(exc, status=1) from exc


def _find(catalog: Catalog, query: str) -> GPU:
    try:
        return catalog.find_gpu(query)
    except AmbiguousItemError as exc:
        lines = [_("{query!r} matches {n} GPUs; use one of these ids or add words:").format(query=query,
                                                                                            n=len(exc.matches))]
        lines += [f"  {g.id:<14} {g.name}" for g in exc.matches]
        raise CliError("\n".join(lines), status=2) from exc
    except UnknownItemError as exc:
        raise CliError.from_error(exc, status=2) from exc


def _table(headers: list[str], rows: list[list[str]], right: set[int]) -> str:
    """Aligned columns, padded by terminal cells (a Chinese label or "未知" is two cells a character)."""
    from gpudesk.cli.columns import display_width, ljust_display

    widths = [max(display_width(h), *(display_width(r[i]) for r in rows)) if rows else display_width(h)
              for i, h in enumerate(headers)]

    def rjust(text: str, width: int) -> str:
        return " " * max(0, width - display_width(text)) + text

    def line(cells: list[str]) -> str:
        out = [rjust(c, w) if i in right else ljust_display(c, w) for i, (c, w) in enumerate(zip(cells, widths))]
        return "  ".join(out).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths])] + [line(r) for r in rows])


def _short(field_key: str, value, gpu: GPU | None = None) -> str:
    """Table cell: number without unit (the header carries it); for None "unknown" where it is a rate ``gpu``'s
    architecture has but nobody published, else "N/A" (the footer says why)."""
    if value is None:
        if gpu is not None and field_key in gpu.unpublished_rates:
            return _("unknown")
        return "" if field_key == "market" else "N/A"
    return FIELDS_BY_KEY[field_key].format(value, with_unit=False)


def _emit_json(data) -> None:
    sys.stdout.write(dumps_json(data, ensure_ascii=False) + "\n")


def cmd_list(args: argparse.Namespace) -> int:
    catalog = _open()
    gpus = catalog.gpus()
    if args.json:
        _emit_json([gpu_json(g) for g in gpus])
        return 0
    fields = [FIELDS_BY_KEY[k] for k in LIST_COLUMNS]
    headers = [f"{marked(f.label)} ({f.unit})" if f.unit else marked(f.label) for f in fields]
    rows = [[_short(f.key, f.value(g), g) for f in fields] for g in gpus]
    right = {i for i, f in enumerate(fields) if f.kind in ("number", "int", "money")}
    print(_table(headers, rows, right))
    print()
    print(ngettext("{n} GPU. Throughput is dense (no sparsity); N/A = not supported by the GPU, or no dated price; "
                   "unknown = a rate the GPU's architecture has but nobody published (`gpudesk catalog show GPU` "
                   "gives the reason).",
                   "{n} GPUs. Throughput is dense (no sparsity); N/A = not supported by the GPU, or no dated price; "
                   "unknown = a rate the GPU's architecture has but nobody published (`gpudesk catalog show GPU` "
                   "gives the reason).", len(gpus)).format(n=len(gpus)))
    print(_("Prices are the ones the planner uses (your own prices from the Catalog tab override them in a plan); "
            "a market is shown for SKUs made for one market only."))
    return 0


def _billions(count: int | None) -> str:
    return "" if count is None else f"{count / 1e9:,.1f}"


def model_json(m) -> dict:
    """One catalog model for ``catalog models --json``: ids in English, counts and token lengths as numbers."""
    return {"id": m.id, "name": m.name, "family": m.family, "kind": m.kind, "params": m.params,
            "active_params": m.active_params, "layers": m.layers, "context_length_tokens": m.context_length,
            "moe_experts": m.moe_experts, "moe_active_experts": m.moe_active_experts,
            "checkpoint_weight_format": m.checkpoint_weight_format, "base_model": m.base_model, "hf_repo": m.hf_repo,
            "source_url": m.source_url}


def _checkpoint_text(m) -> str:
    """The checkpoint column: its storage format, and the catalog model a quantized checkpoint was made from."""
    fmt = m.checkpoint_weight_format or _("16-bit")
    if m.base_model:
        # Translators: {format} is a weight format (fp8), {base} a catalog model id (qwen3-8b)
        return _("{format} of {base}").format(format=fmt, base=m.base_model)
    return fmt


def cmd_models(args: argparse.Namespace) -> int:
    """``gpudesk catalog models``: the ids to give ``--model`` in ``estimate`` and ``plan``."""
    models = sorted(_open().models(), key=lambda m: m.id)
    if args.json:
        _emit_json([model_json(m) for m in models])
        return 0
    headers = [_("id"), _("name"), _("parameters (B)"), _("active (B)"), _("layers"), _("context (tokens)"),
               _("experts (routed / active)"), _("checkpoint")]
    rows = [[m.id, m.name, _billions(m.params), _billions(m.active_params), str(m.layers or ""),
             f"{m.context_length:,}" if m.context_length else "",
             f"{m.moe_experts} / {m.moe_active_experts}" if m.moe_experts else "",
             _checkpoint_text(m)] for m in models]
    print(_table(headers, rows, {2, 3, 4, 5}))
    print()
    print(ngettext("{n} model. Give its id to --model (gpudesk estimate, gpudesk plan); active = parameters a token "
                   "runs through in a mixture-of-experts model; B = 10^9.",
                   "{n} models. Give an id to --model (gpudesk estimate, gpudesk plan); active = parameters a token "
                   "runs through in a mixture-of-experts model; B = 10^9.", len(models)).format(n=len(models)))
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    catalog = _open()
    gpu = _find(catalog, args.gpu)
    if args.json:
        _emit_json(gpu_json(gpu, detailed=True))
        return 0
    from gpudesk.cli.columns import display_width, ljust_display

    sources = _("All sources:")
    width = max(display_width(sources), *(display_width(marked(f.label) + ":") for f in SPEC_FIELDS))
    for field in SPEC_FIELDS:
        print(f"{ljust_display(marked(field.label) + ':', width)} {_shown_value(field, field.value(gpu), gpu)}")
    mine = _your_price(gpu.id)
    if mine is not None:  # the planner uses it instead of the catalog price (gpudesk.planner.prices)
        label = _("Your price:")
        print(ljust_display(label, width) + " " + _("{price:,.0f} USD, entered {date}; plans use it instead of the "
                                                      "catalog price").format(price=mine["price_usd"],
                                                                              date=str(mine.get("updated_at") or "")[:10]))
    if gpu.source_refs and gpu.source_refs != gpu.source_url:
        print(f"{ljust_display(sources, width)} {gpu.source_refs}")
    return 0


def _your_price(gpu_id: str) -> dict | None:
    """The user's own price for ``gpu_id`` (Catalog tab, user store), None when none or unreadable."""
    from gpudesk.store.errors import StoreError
    from gpudesk.store.prices import read_price_overrides

    try:
        return read_price_overrides().get(gpu_id)
    except StoreError as exc:
        print(_("note: your prices could not be read: {exc}").format(exc=exc), file=sys.stderr)
        return None


def _shown_value(field, value, gpu: GPU | None = None) -> str:
    """``field.format(value)`` in the current language: the N/A reason (unknown or absent, for ``gpu``), "none"
    and yes/no translated."""
    if value is None:
        if field.none_is_value:  # "sold worldwide" is the answer, not a reason for a missing one
            return marked(field.none_reason(gpu))
        return _("N/A ({reason})").format(reason=marked(field.none_reason(gpu)))
    if field.zero_text is not None and value == 0:
        return marked(field.zero_text)
    if field.kind == "bool":
        return _("yes") if value else _("no")
    return field.format(value)


def cmd_compare(args: argparse.Namespace) -> int:
    if len(args.gpus) < 2:
        raise CliError(_("compare needs at least two GPUs, e.g. gpudesk catalog compare a100-80-sxm4 h100-sxm5"))
    catalog = _open()
    gpus: list[GPU] = []
    for query in args.gpus:  # the same GPU named twice ("h100-sxm5" and "h100 sxm5") is compared once
        gpu = _find(catalog, query)
        if all(g.id != gpu.id for g in gpus):
            gpus.append(gpu)
    if len(gpus) < 2:
        raise CliError(_("{queries} all name {gpu}; compare needs two different GPUs.").format(
            queries=", ".join(repr(q) for q in args.gpus), gpu=gpus[0].id))
    if args.json:
        _emit_json([gpu_json(g) for g in gpus])
        return 0
    shown = [f for f in SPEC_FIELDS if f.key not in ("name", "id", "notes", "price_source", "source_url", "accumulate_note")]
    diff = differing_keys(gpus, tuple(f.key for f in shown))
    headers = ["", _("Spec")] + [g.id for g in gpus]
    rows = []
    for f in shown:  # labels, yes/no and "none (PCIe only)" in the user's language, as in `catalog show`
        cells = [_shown_value(f, f.value(g), g) if f.value(g) is not None else _short(f.key, None, g) for g in gpus]
        rows.append(["*" if f.key in diff else "", marked(f.label)] + cells)
    print(_table(headers, rows, set(range(2, len(headers)))))
    print()
    print(_("* = values differ. Throughput is dense (no sparsity)."))
    return 0
