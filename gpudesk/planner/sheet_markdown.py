"""Markdown configuration sheet (GitHub-flavoured tables), also the source of the PDF export.

Text that comes from the user or the catalog (names, notes, warnings) is escaped so that it prints as typed:
Markdown punctuation and ``<`` cannot turn into formatting, links or HTML. Sizes are printed in GiB (binary,
as allocators report), money in whole US dollars, durations in hours or days. Qt-free.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from gpudesk import __version__
from gpudesk.i18n import _
from gpudesk.planner.classify import kind_label
from gpudesk.planner.gates import market_statement
from gpudesk.planner.memory_parts import memory_part_label
from gpudesk.planner.prices import price_unknown_text
from gpudesk.planner.sheet import (
    SHEET_VERSION,
    ConfigurationSheet,
    SheetError,
    answered_rows,
    build_sheet,
)
from gpudesk.planner.document import PlanDocument, PlanDocumentError, PlanOption, as_document
from gpudesk.planner.requirement import Requirement
from gpudesk.units import format_duration, format_gib, format_percent, format_rate, format_usd, not_available

# Inline-significant characters (GFM): emphasis, code, links/images, tables, HTML, strikethrough, escapes.
_ESCAPE = re.compile(r"([\\`*_\[\]|<>~])")


def md_escape(value: Any) -> str:
    """Escape Markdown punctuation and HTML brackets in outside text; newlines become spaces; None -> N/A."""
    if value is None:
        return not_available()
    text = str(value).replace("\r", " ").replace("\n", " ")
    return _ESCAPE.sub(r"\\\1", text)


def tco_text(value: float | int | None, option: PlanOption) -> str:
    """A TCO in dollars, or the "price unknown — enter your quote" mark when the GPU price is what is missing."""
    if value is None and (option.gpu_price_unknown or option.host_price_known is False):
        return price_unknown_text()
    return format_usd(value)


def yes_no_text(value: Any) -> str:
    """True/False as the sheet prints them ("yes"/"no"); anything else "N/A"."""
    return {True: _("yes"), False: _("no")}.get(value, not_available()) if isinstance(value, bool) else not_available()


def tco_line_label(name: str) -> str:
    """A TCO line (gpudesk.planner.tco.TCO_LINES) as the sheet, its PDF chart and the Plan page's TCO chart name it."""
    labels = {
        "gpus": _("GPU purchase"), "hosts": _("Servers (host share)"), "network_install": _("Network and installation"),
        "residual": _("Residual value"), "energy": _("Energy"), "cooling": _("Cooling (PUE)"),
        "operations": _("Operations labour"), "support": _("Support"), "opportunity": _("Opportunity cost"),
    }
    return labels.get(name, name.replace("_", " "))


def timing_label(name: str) -> str:
    """A timing row of the sheet (its English name is the JSON key's source, gpudesk.planner.sheet_json)."""
    labels = {
        "Step time": _("Step time"), "TTFT (time to first token)": _("TTFT (time to first token)"),
        "TPOT (time per output token)": _("TPOT (time per output token)"),
        "Exposed communication share of a step": _("Exposed communication share of a step"),
        "Time to result": _("Time to result"), "Deadline": _("Deadline"), "Late by": _("Late by"),
        "QPS the configuration sustains": _("QPS the configuration sustains"), "Target QPS": _("Target QPS"),
        "Data rate needed": _("Data rate needed"), "Data rate available": _("Data rate available"),
    }
    return labels.get(name, name)


def bom_category_label(category: str) -> str:
    """A bill-of-materials category (kept in English in the CSV and JSON) as the Markdown sheet prints it."""
    labels = {"GPU": "GPU", "Server": _("Server"), "Storage": _("Storage"), "Network": _("Network"),
              "Software": _("Software"), "Support": _("Support")}
    return labels.get(category, category)


def timing_value(value: float | None, unit: str) -> str:
    """A timing row's value as the sheet prints it (unit "s", "fraction", "bytes/s" or a unit name such as "QPS")."""
    if value is None:
        return not_available()
    if unit == "s":
        return format_duration(value)
    if unit == "fraction":
        return format_percent(value, digits=1)
    if unit == "bytes/s":
        return format_rate(value)
    return f"{value:,.1f} {unit}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A GFM table; empty cells get an em dash (Qt's Markdown reader merges empty cells into their
    neighbour, which would shift the PDF's columns)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(cell if cell.strip() else "—" for cell in row) + " |" for row in rows]
    return lines + [""]


def replicas_text(c: PlanOption) -> str:
    """A service's layout, ``"2 x TP4"``: replicas of tensor-parallel groups."""
    tp = c.tensor_parallel or 1
    return f"{c.replicas or max(1, (c.count or 1) // tp)} x TP{tp}"


def _pairs_table(rows: list[tuple[str, str]]) -> list[str]:
    """``(answer, value)`` rows two pairs to a table row (half the height of a two-column table)."""
    cells = [[md_escape(k), md_escape(v)] for k, v in rows]
    if len(cells) % 2:
        cells.append(["", ""])
    half = len(cells) // 2
    return _table([_("Answer"), _("Value"), _("Answer"), _("Value")],
                  [cells[i] + cells[i + half] for i in range(half)])


def parallelism_text(a: PlanOption) -> str:
    """How an alternative splits the model: a service's tensor-parallel degree (``tp1`` when the model fits one GPU,
    whatever ``sharding`` says), a training job's sharding and recompute."""
    if a.serving:
        return f"tp{a.tensor_parallel or 1}"
    sharding = a.sharding or (_("single GPU") if a.count == 1 else _("data parallel"))
    return f"{sharding} / {recompute_text(a.recompute)}"


def recompute_text(value: str | None) -> str:
    """The activation recomputation the search chose, in the reader's language (``none``/``selective``/``full``
    are the profile's values, model.recompute)."""
    return {None: _("no recompute"), "none": _("no recompute"), "selective": _("selective recompute"),
            "full": _("full recompute")}.get(value, value or _("no recompute"))


def short_rank_reason(a: PlanOption) -> str:
    """The rank reason up to its first "; " (the break-even quote that follows is on the option's own sheet)."""
    return (a.rank_reason or not_available()).split("; ", 1)[0]


def _alternatives_table(alternatives: list[PlanOption]) -> list[str]:
    """Alternatives, comparable on what the plan is judged by: latency (TTFT, TPOT) and QPS for a service, time
    to result for a training job."""
    serving = any(a.serving for a in alternatives)
    if serving:
        return _table(
            ["GPU", _("GPUs"), _("Interconnect"), _("Parallelism"), _("Memory per GPU"), _("QPS capacity"), "TTFT", "TPOT",
             _("3-year TCO"), _("Fits"), _("Ranking")],
            [[md_escape(a.name), md_escape(a.count_text), md_escape(a.interconnect),
              md_escape(parallelism_text(a)), format_gib(a.per_gpu_memory_bytes),
              not_available() if a.qps_capacity is None else f"{a.qps_capacity:.3g} req/s",
              format_duration(a.ttft_s), format_duration(a.tpot_s), tco_text(a.tco_3y_usd, a),
              yes_no_text(a.fits), md_escape(short_rank_reason(a))]
             for a in alternatives])
    return _table(
        ["GPU", _("GPUs"), _("Interconnect"), _("Sharding / recompute"), _("Memory per GPU"), _("Time to result"),
         _("3-year TCO"), _("Fits"), _("Ranking")],
        [[md_escape(a.name), md_escape(a.count_text), md_escape(a.interconnect),
          md_escape(parallelism_text(a)), format_gib(a.per_gpu_memory_bytes), format_duration(a.time_to_result_s),
          tco_text(a.tco_3y_usd, a), yes_no_text(a.fits), md_escape(short_rank_reason(a))]
         for a in alternatives])


def _serving_side(sheet: ConfigurationSheet) -> list[str]:
    """A mixed plan's serving side: the best option that serves the model at the target QPS."""
    s = sheet.serving_option
    if s is None:
        return []
    qps = not_available() if sheet.serving_target_qps is None else f"{sheet.serving_target_qps:g}"
    out = ["## " + _("Serving side (the same model at {qps} requests/s)").format(qps=qps), ""]
    return out + _table(
        [_("Item"), _("Value")],
        [["GPU", md_escape(f"{s.count_text} x {s.name}")],
         [_("Replicas x tensor parallel"), replicas_text(s)],
         [_("Sustained QPS"), not_available() if s.qps_capacity is None else f"{s.qps_capacity:.1f} req/s"],
         ["TTFT / TPOT", f"{format_duration(s.ttft_s)} / {format_duration(s.tpot_s)}"],
         [_("3-year TCO"), tco_text(s.tco_3y_usd, s)],
         [_("Cost per million output tokens"), not_available() if sheet.serving_cost_per_million_tokens_usd is None
          else f"${sheet.serving_cost_per_million_tokens_usd:,.2f}"]])


def sheet_to_markdown(sheet: ConfigurationSheet) -> str:
    """Render the sheet. Sections: summary, bill of materials, software, memory, time, TCO, risks, checks,
    alternatives, rationale, assumptions."""
    c = sheet.candidate
    out: list[str] = [f"# {md_escape(sheet.title)}", ""]
    out += [
        _("Generated by gpudesk {version} on {generated_at} (UTC), sheet format {sheet_version}. Workload kind: "
          "**{workload_kind}**.").format(version=__version__, generated_at=md_escape(sheet.generated_at),
                                         sheet_version=SHEET_VERSION, workload_kind=md_escape(kind_label(sheet.workload_kind) if sheet.workload_kind else not_available())),
        "",
        "## " + (_("Recommended configuration") if sheet.candidate_number == 1 else
                 _("Configuration #{number} of {count} (selected; the recommended one is #1)").format(
                     number=sheet.candidate_number, count=sheet.candidate_count)),
        "",
    ]
    out += _table(
        [_("Item"), _("Value")],
        [
            ["GPU", md_escape(c.name)],
            [_("GPUs"), md_escape(c.count_text)],
            [_("Interconnect"), md_escape(c.interconnect_name or c.interconnect)],
            [_("Server"), md_escape(c.server_name or c.server_id)],
            [_("Fits under the safe line"), yes_no_text(c.fits)],
            [_("Binding constraint"), md_escape(sheet.binding_constraint or not_available())],
            ([_("Meets the QPS target"), yes_no_text(c.meets_qps)]
             if c.serving else
             [_("Meets the deadline"), yes_no_text(sheet.meets_deadline)]),
        ] + ([[_("Replicas x tensor parallel"), replicas_text(c)],
              [_("Sustained QPS"), f"{c.qps_capacity:.1f} req/s"],
              ["TTFT / TPOT", f"{format_duration(c.ttft_s)} / {format_duration(c.tpot_s)}"],
              [_("Cost per million output tokens"), not_available() if sheet.cost_per_million_tokens_usd is None
               else f"${sheet.cost_per_million_tokens_usd:,.2f}"]]
             if c.qps_capacity is not None else []) + [
            [_("3-year TCO"), tco_text(sheet.tco_total_usd, c)],
            [_("Price used"), md_escape(c.price.text or (price_unknown_text() if c.gpu_price_unknown else not_available()))],
            [_("Rank"), md_escape(c.rank_reason or not_available())],
        ] + ([[_("Settings the search chose"), md_escape("; ".join(sheet.search_changes))]] if sheet.search_changes else [])
          + ([[_("Market"), md_escape(market_statement(sheet.market))]] if sheet.market else []),
    )
    out += _serving_side(sheet)
    out += ["## " + _("Bill of materials"), ""]
    out += _table(
        [_("Category"), _("Item"), _("Quantity"), _("Unit price"), _("Total"), _("Notes")],
        [
            [md_escape(bom_category_label(b.category)), md_escape(b.item), "" if b.quantity is None else f"{b.quantity:g}",
             format_usd(b.unit_price_usd) if b.unit_price_usd is not None else "", format_usd(b.total_usd) if b.total_usd is not None else "",
             md_escape(b.notes)]
            for b in sheet.bom
        ],
    )
    if sheet.software:
        out += ["## " + _("Software versions"), ""]
        out += _table([_("Component"), _("Version")], [[md_escape(k), md_escape(v)] for k, v in sheet.software])
    rows = [[md_escape(memory_part_label(name)), format_gib(size)] for name, size in sheet.memory_parts]
    # The need on the card (MemoryEstimate.device_need_bytes) leaves out paged optimizer states (unified memory):
    # then the row says so, as the parts above it add up to more.
    total_label = (_("Total per GPU") if sheet.memory_total_bytes is None
                   or sheet.memory_total_bytes == sum(size for _name, size in sheet.memory_parts)
                   else _("Needed on the card per GPU (paged states in unified memory left out)"))
    rows.append(["**" + total_label + "**", f"**{format_gib(sheet.memory_total_bytes)}**"])
    rows.append([_("Usable capacity (reported by the driver)"), format_gib(sheet.usable_bytes)])
    rows.append([_("Safe line"), format_gib(sheet.safe_line_bytes)])
    headroom = sheet.headroom_bytes
    rows.append([_("Headroom to the safe line"), not_available() if headroom is None else (
        format_gib(headroom) if headroom >= 0 else _("over by {size}").format(size=format_gib(-headroom)))])
    timing = [[md_escape(timing_label(name)), timing_value(value, unit)] for name, value, unit in sheet.timing]
    tco_rows = [[md_escape(tco_line_label(k)), format_usd(v)] for k, v in sheet.tco]
    tco_rows.append(["**" + _("Total") + "**", f"**{tco_text(sheet.tco_total_usd, c)}**"])
    # Three short two-column tables side by side (one table of six columns): a third of the height.
    out += ["## " + _("Expected memory per GPU, time and 3-year TCO"), ""]
    depth = max(len(rows), len(timing), len(tco_rows))
    out += _table([_("Expected memory per GPU"), _("Size"), _("Expected time"), _("Value"),
                   _("Total cost of ownership (3 years)"), "USD"],
                  [(rows[i] if i < len(rows) else ["", ""]) + (timing[i] if i < len(timing) else ["", ""])
                   + (tco_rows[i] if i < len(tco_rows) else ["", ""]) for i in range(depth)])
    out += ["## " + _("Risks"), ""]
    out += [f"- {md_escape(r)}" for r in sheet.risks] or ["- " + _("None found by the planner's rules.")]
    out += ["", "## " + _("Checks after delivery"), ""]
    out += _table([_("Check"), _("How"), _("Passes when")],
                  [[md_escape(k.name), md_escape(k.how), md_escape(k.passes_when)] for k in sheet.checks])
    if sheet.alternatives:
        out += ["## " + _("Alternatives considered"), ""]
        out += _alternatives_table(sheet.alternatives)
    if sheet.rationale:
        out += ["## " + _("Rationale"), ""]
        out += [f"{i}. {md_escape(r)}" for i, r in enumerate(sheet.rationale, 1)] + [""]
    if sheet.assumptions:
        out += ["## " + _("Assumptions"), ""]
        out += [f"- {md_escape(a)}" for a in sheet.assumptions] + [""]
    if sheet.requirement_answers:
        out += ["## " + _("Requirement (as entered)"), ""]
        out += [_("The answers that differ from a new plan's defaults; the JSON sheet lists every answer."), ""]
        out += _pairs_table(sheet.requirement_answers)
    return "\n".join(out).rstrip() + "\n"


def no_fit_markdown(plan: PlanDocument, title: str | None = None, profile: Requirement | None = None) -> str:
    """The sheet of a plan with no candidate: why nothing fits (the binding constraint and the smallest change of
    each control, the closest options, every rejection with its reasons, the plan's warnings), so it can be shared."""
    req = profile if isinstance(profile, Requirement) else plan.requirement
    out: list[str] = [f"# {md_escape(title or plan.name or _('Configuration sheet'))}", ""]
    out += [_("Generated by gpudesk {version}. Workload kind: **{workload_kind}**.").format(
        version=__version__, workload_kind=md_escape(plan.workload_kind or not_available())), ""]
    out += ["## " + _("No configuration fits this requirement"), ""]
    binding = plan.binding
    if binding:
        out += [md_escape(binding.text), ""]
        out += [f"- {md_escape(c.text)}" for c in binding.changes] + [""]
    if plan.closest:
        out += ["## " + _("Closest options"), ""]
        out += _table(["GPU", _("GPUs"), _("Interconnect"), _("Time to result"), _("Late by")],
                      [[md_escape(c.gpu_id), md_escape(c.count), md_escape(c.interconnect),
                        format_duration(c.time_to_result_s), format_duration(c.deadline_miss_s or None)]
                       for c in plan.closest])
    said = binding.text if binding else ""
    warnings = [w for w in plan.warnings if w and not (said and w.startswith(said))]
    if warnings:
        out += ["## " + _("Risks"), ""] + [f"- {md_escape(w)}" for w in warnings] + [""]
    if plan.rejected:
        out += ["## " + _("Rejected configurations"), ""]
        out += _table(["GPU", _("GPUs"), _("Server"), _("Reasons")],
                      [[md_escape(r.gpu_name or r.gpu_id), md_escape(r.count or _("any")),
                        md_escape(r.server_id or ""), md_escape("; ".join(r.reasons))]
                       for r in plan.rejected])
    requirement = answered_rows(req) if req else []
    if requirement:
        out += ["## " + _("Requirement (as entered)"), ""]
        out += [_("The answers that differ from a new plan's defaults; the JSON sheet lists every answer."), ""]
        out += _pairs_table(requirement)
    return "\n".join(out).rstrip() + "\n"


def plan_to_markdown(plan: PlanDocument | dict[str, Any], candidate_index: int = 0, title: str | None = None,
                     profile: Requirement | dict[str, Any] | None = None, catalog: Any = None) -> str:
    """``sheet_to_markdown(build_sheet(plan, candidate_index, title, profile=profile, catalog=catalog))``; a plan
    with no candidate gives the sheet of why nothing fits (:func:`no_fit_markdown`).

    Raises:
        SheetError: not a plan, or a bad candidate index.
    """
    try:
        doc = as_document(plan) if isinstance(plan, (PlanDocument, dict)) else None
    except PlanDocumentError as exc:
        raise SheetError(str(exc)) from exc
    if doc is not None and not doc.candidates:
        return no_fit_markdown(doc, title, profile if isinstance(profile, Requirement) else None)
    return sheet_to_markdown(build_sheet(doc if doc is not None else plan, candidate_index, title, profile=profile,
                                         catalog=catalog))


def write_markdown(plan: PlanDocument | dict[str, Any], path: str | Path, candidate_index: int = 0,
                   title: str | None = None, profile: Requirement | dict[str, Any] | None = None,
                   catalog: Any = None) -> Path:
    """Write the Markdown sheet to ``path``.

    Raises:
        SheetError: no candidates, or the file cannot be written.
    """
    target = Path(path)
    text = plan_to_markdown(plan, candidate_index, title, profile, catalog)
    try:
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise SheetError(_("Cannot write {path}: {reason}.").format(path=target, reason=exc.strerror or exc)) from exc
    return target
