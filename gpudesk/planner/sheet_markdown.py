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
from gpudesk.planner.prices import PRICE_UNKNOWN_TEXT
from gpudesk.planner.sheet import GIB, SHEET_VERSION, ConfigurationSheet, SheetError, build_sheet, gpu_price_unknown

# Inline-significant characters (GFM): emphasis, code, links/images, tables, HTML, strikethrough, escapes.
_ESCAPE = re.compile(r"([\\`*_\[\]|<>~])")


def md_escape(value: Any) -> str:
    """Escape Markdown punctuation and HTML brackets in outside text; newlines become spaces; None -> N/A."""
    if value is None:
        return "N/A"
    text = str(value).replace("\r", " ").replace("\n", " ")
    return _ESCAPE.sub(r"\\\1", text)


def gib(value: float | int | None) -> str:
    return "N/A" if value is None else f"{value / GIB:.1f} GiB"


def usd(value: float | int | None) -> str:
    if value is None:
        return "N/A"
    sign = "−" if value < 0 else ""
    return f"{sign}${abs(value):,.0f}"


def tco_text(value: float | int | None, candidate: dict[str, Any]) -> str:
    """A TCO in dollars, or the "price unknown — enter your quote" mark when the GPU price is what is missing."""
    if value is None and (gpu_price_unknown(candidate) or candidate.get("host_price_known") is False):
        return PRICE_UNKNOWN_TEXT
    return usd(value)


def duration(seconds: float | int | None) -> str:
    if seconds is None:
        return "N/A"
    if seconds < 1:
        return f"{seconds * 1000:.3g} ms"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.1f} min" if seconds >= 120 else f"{seconds:.2f} s"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.2f} days"


def _value(value: float | None, unit: str) -> str:
    if value is None:
        return "N/A"
    if unit == "s":
        return duration(value)
    if unit == "fraction":
        return f"{value * 100:.1f} %"
    if unit == "bytes/s":
        return f"{value / 1e6:,.0f} MB/s"
    return f"{value:,.1f} {unit}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A GFM table; empty cells get an em dash (Qt's Markdown reader merges empty cells into their
    neighbour, which would shift the PDF's columns)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(cell if cell.strip() else "—" for cell in row) + " |" for row in rows]
    return lines + [""]


def parallelism_text(a: dict[str, Any]) -> str:
    """How an alternative splits the model: a service's tensor-parallel degree (``tp1`` when the model fits one GPU,
    whatever ``sharding`` says), a training job's sharding and recompute."""
    if a.get("qps_capacity") is not None:
        return f"tp{a.get('tensor_parallel') or 1}"
    sharding = a.get("sharding") or ("single GPU" if a.get("count") == 1 else "data parallel")
    return f"{sharding} / {a.get('recompute') or 'no recompute'}"


def _alternatives_table(alternatives: list[dict[str, Any]]) -> list[str]:
    """Alternatives, comparable on what the plan is judged by: latency (TTFT, TPOT) and QPS for a service, time
    to result for a training job."""
    serving = any(a.get("qps_capacity") is not None for a in alternatives)
    fits = {True: "yes", False: "no"}
    if serving:
        return _table(
            ["GPU", "GPUs", "Interconnect", "Parallelism", "Memory per GPU", "QPS capacity", "TTFT", "TPOT",
             "3-year TCO", "Fits", "Ranking"],
            [[md_escape(a.get("gpu_name") or a.get("gpu_id")), md_escape(a.get("count")), md_escape(a.get("interconnect")),
              md_escape(parallelism_text(a)), gib(a.get("per_gpu_memory_bytes")),
              "N/A" if a.get("qps_capacity") is None else f"{a['qps_capacity']:.3g} req/s",
              duration(a.get("ttft_s")), duration(a.get("tpot_s")), tco_text(a.get("tco_3y_usd"), a),
              fits.get(a.get("fits"), "N/A"), md_escape(a.get("rank_reason") or "N/A")]
             for a in alternatives])
    return _table(
        ["GPU", "GPUs", "Interconnect", "Sharding / recompute", "Memory per GPU", "Time to result", "3-year TCO",
         "Fits", "Ranking"],
        [[md_escape(a.get("gpu_name") or a.get("gpu_id")), md_escape(a.get("count")), md_escape(a.get("interconnect")),
          md_escape(parallelism_text(a)), gib(a.get("per_gpu_memory_bytes")), duration(a.get("time_to_result_s")),
          tco_text(a.get("tco_3y_usd"), a), fits.get(a.get("fits"), "N/A"), md_escape(a.get("rank_reason") or "N/A")]
         for a in alternatives])


def sheet_to_markdown(sheet: ConfigurationSheet) -> str:
    """Render the sheet. Sections: summary, bill of materials, software, memory, time, TCO, risks, checks,
    alternatives, rationale, assumptions."""
    c = sheet.candidate
    out: list[str] = [f"# {md_escape(sheet.title)}", ""]
    out += [
        f"Generated by gpudesk {__version__} on {md_escape(sheet.generated_at)} (UTC), sheet format "
        f"{SHEET_VERSION}. Workload kind: "
        f"**{md_escape(sheet.workload_kind or 'N/A')}**.",
        "",
        "## Recommended configuration",
        "",
    ]
    out += _table(
        ["Item", "Value"],
        [
            ["GPU", md_escape(c.get("gpu_name") or c.get("gpu_id"))],
            ["GPUs", md_escape(c.get("count"))],
            ["Interconnect", md_escape(c.get("interconnect_name") or c.get("interconnect"))],
            ["Server", md_escape(c.get("server_name") or c.get("server") or c.get("server_id"))],
            ["Fits under the safe line", {True: "yes", False: "no"}.get(c.get("fits"), "N/A")],
            (["Meets the QPS target", {True: "yes", False: "no"}.get(c.get("meets_qps"), "N/A")]
             if c.get("qps_capacity") is not None else
             ["Meets the deadline", {True: "yes", False: "no", None: "N/A"}[sheet.meets_deadline]]),
            ["3-year TCO", tco_text(sheet.tco_total_usd, c)],
            ["Price used", md_escape(c.get("gpu_price_text") or (PRICE_UNKNOWN_TEXT if gpu_price_unknown(c) else "N/A"))],
            ["Rank", md_escape(c.get("rank_reason") or "N/A")],
        ],
    )
    out += ["## Bill of materials", ""]
    out += _table(
        ["Category", "Item", "Quantity", "Unit price", "Total", "Notes"],
        [
            [md_escape(b.category), md_escape(b.item), "" if b.quantity is None else f"{b.quantity:g}",
             usd(b.unit_price_usd) if b.unit_price_usd is not None else "", usd(b.total_usd) if b.total_usd is not None else "",
             md_escape(b.notes)]
            for b in sheet.bom
        ],
    )
    if sheet.software:
        out += ["## Software versions", ""]
        out += _table(["Component", "Version"], [[md_escape(k), md_escape(v)] for k, v in sheet.software])
    out += ["## Expected memory per GPU", ""]
    rows = [[md_escape(name.replace("_", " ")), gib(size)] for name, size in sheet.memory_parts]
    rows.append(["**Total per GPU**", f"**{gib(sheet.memory_total_bytes)}**"])
    rows.append(["Usable capacity (reported by the driver)", gib(sheet.usable_bytes)])
    rows.append(["Safe line", gib(sheet.safe_line_bytes)])
    headroom = sheet.headroom_bytes
    rows.append(["Headroom to the safe line", "N/A" if headroom is None else (gib(headroom) if headroom >= 0 else f"over by {gib(-headroom)}")])
    out += _table(["Part", "Size"], rows)
    out += ["## Expected time", ""]
    out += _table(["Figure", "Value"], [[md_escape(name), _value(value, unit)] for name, value, unit in sheet.timing])
    out += ["## Total cost of ownership (3 years)", ""]
    tco_rows = [[md_escape(k.replace("_", " ")), usd(v)] for k, v in sheet.tco]
    tco_rows.append(["**Total**", f"**{tco_text(sheet.tco_total_usd, c)}**"])
    out += _table(["Item", "USD"], tco_rows)
    out += ["## Risks", ""]
    out += [f"- {md_escape(r)}" for r in sheet.risks] or ["- None found by the planner's rules."]
    out += ["", "## Checks after delivery", ""]
    out += _table(["Check", "How", "Passes when"], [[md_escape(k.name), md_escape(k.how), md_escape(k.passes_when)] for k in sheet.checks])
    if sheet.alternatives:
        out += ["## Alternatives considered", ""]
        out += _alternatives_table(sheet.alternatives)
    if sheet.rationale:
        out += ["## Rationale", ""]
        out += [f"{i}. {md_escape(r)}" for i, r in enumerate(sheet.rationale, 1)] + [""]
    if sheet.assumptions:
        out += ["## Assumptions", ""]
        out += [f"- {md_escape(a)}" for a in sheet.assumptions] + [""]
    if sheet.requirement:
        out += ["## Requirement (as entered)", ""]
        out += _table(["Answer", "Value"], [[md_escape(k), md_escape(v)] for k, v in sheet.requirement])
    return "\n".join(out).rstrip() + "\n"


def plan_to_markdown(plan: dict[str, Any], candidate_index: int = 0, title: str | None = None,
                     profile: dict[str, Any] | None = None, catalog: Any = None) -> str:
    """``sheet_to_markdown(build_sheet(plan, candidate_index, title, profile=profile, catalog=catalog))``."""
    return sheet_to_markdown(build_sheet(plan, candidate_index, title, profile=profile, catalog=catalog))


def write_markdown(plan: dict[str, Any], path: str | Path, candidate_index: int = 0, title: str | None = None,
                  profile: dict[str, Any] | None = None, catalog: Any = None) -> Path:
    """Write the Markdown sheet to ``path``.

    Raises:
        SheetError: no candidates, or the file cannot be written.
    """
    target = Path(path)
    text = plan_to_markdown(plan, candidate_index, title, profile, catalog)
    try:
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise SheetError(f"Cannot write {target}: {exc.strerror or exc}.") from exc
    return target
