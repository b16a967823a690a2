"""The burn-in report as Markdown, HTML (self-contained, the heat map as inline SVG with the findings' spans
marked) or JSON. Text from outside (GPU names, file names, plan names) is escaped: HTML entities in HTML, table
pipes and line breaks in Markdown.
"""

from __future__ import annotations

import datetime as _dt
import html
import json
from pathlib import Path

import numpy as np

from gpudesk.i18n import _
from gpudesk.telemetry.core import timebase
from gpudesk.telemetry.recording.burnin import FAIL, INCOMPLETE, PASS, BurnInReport
from gpudesk.telemetry.core.model import TelemetryError
from gpudesk.telemetry.rules.base import CRITICAL, NOT_JUDGED, WARNING
from gpudesk.telemetry.rules.evidence_names import severity_name
from gpudesk.units import GIB, format_duration

FORMATS = ("md", "html", "json")
SHADES = " .:-=+*#%@"  # 10 levels of utilization for the text heat map, 0-100 %


def verdict_text(verdict: str) -> str:
    """A comparison's or check's verdict as the report says it (the JSON keeps the English id)."""
    names = {PASS: _("pass"), FAIL: _("fail"), INCOMPLETE: _("incomplete"), NOT_JUDGED: _("not judged")}
    return names.get(verdict, verdict)


def _severity(severity: str) -> str:
    """A finding's severity as the report says it (the JSON keeps the English id)."""
    return severity_name(severity)


def _md(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ").replace("\r", " ")


def _fmt(value: float | None, scale: float = 1.0, unit: str = "", digits: int = 0) -> str:
    if value is None:
        return _("N/A")
    return f"{value / scale:.{digits}f}{(' ' + unit) if unit else ''}"


def _when(t: float, basis: str = timebase.LOCAL) -> str:
    """A time of the report: real epoch times in UTC, a dmon log's printed times as printed, undated ones as a
    time of day or "t+..." (gpudesk.telemetry.core.timebase)."""
    if basis == timebase.LOCAL:
        return _dt.datetime.fromtimestamp(t, _dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    return timebase.format_time(t, basis)


def _zone(basis: str) -> str:
    """What the report's times are, said once after them."""
    if basis == timebase.LOCAL:
        return _("UTC")
    if basis == timebase.PRINTED:
        return _("node-local time as printed, no zone in the log")
    if basis == timebase.TIME_OF_DAY:
        return _("node-local time of day, no date or zone in the log")
    return _("from the first row; the log has no time column")


def _run_line(report: BurnInReport) -> str:
    b = report.time_basis
    return _("Source: {source}. Run: {start} to {end} ({zone}; {length}). Generated {when}.").format(
        source=report.source, start=_when(report.span[0], b), end=_when(report.span[1], b), zone=_zone(b),
        length=format_duration(report.duration_s), when=report.generated_at)


def _gpu_table_rows(report: BurnInReport) -> list[list[str]]:
    return [[str(r.gpu), r.name or _("unknown"), _fmt(r.util_median_pct, unit="%"), _fmt(r.busy_share_pct, unit="%"),
             _fmt(r.mem_used_max_bytes, GIB, "GiB", 1), _fmt(r.mem_total_bytes, GIB, "GiB", 1),
             _fmt(r.power_median_w, unit="W"), _fmt(r.temp_max_c, unit="C"), _fmt(r.sm_clock_median_hz, 1e6, "MHz")]
            for r in report.gpus]


def _gpu_header() -> list[str]:
    return [_("GPU"), _("Model"), _("Utilization (median)"), _("Busy share"), _("Memory used (peak)"),
            _("Memory total"), _("Power (median)"), _("Temperature (max)"), _("SM clock (median)")]


def _text_heatmap(report: BurnInReport, width: int = 72) -> list[str]:
    hm = report.heatmap
    values = hm.values
    if values.shape[1] > width:
        # merge columns so that the text map fits a line
        k = int(np.ceil(values.shape[1] / width))
        pad = (-values.shape[1]) % k
        padded = np.concatenate([values, np.full((values.shape[0], pad), np.nan)], axis=1)
        with np.errstate(all="ignore"):
            values = np.nanmean(padded.reshape(values.shape[0], -1, k), axis=2)
    lines = []
    for g, row in zip(hm.gpus, values):
        cells = "".join("?" if np.isnan(v) else SHADES[min(9, int(v // 10))] for v in row)
        lines.append(f"GPU {g:>2} |{cells}|")
    return lines


def to_markdown(report: BurnInReport) -> str:
    a = report.analysis
    out = [f"# {_md(report.title)}", ""]
    out.append(_md(_run_line(report)))
    if report.plan_name:
        out.append("")
        out.append(_("Plan: {plan}, configuration {label}.").format(plan=_md(report.plan_name),
                                                                   label=_md(report.candidate_label or "")))
    out += ["", "## " + _("Summary"), "", _md(a.summary), ""]
    out += ["## " + _("Utilization heat map"), "",
            _("Each character is the mean GPU utilization of a time bin ({shades}: 0 to 100 %, ? no data).").format(
                shades=f"'{SHADES}'"), "", "```"]
    out += _text_heatmap(report)
    out += ["```", ""]
    out += ["## " + _("Per-GPU statistics"), ""]
    header = _gpu_header()
    out.append("| " + " | ".join(header) + " |")
    out.append("|" + "---|" * len(header))
    for row in _gpu_table_rows(report):
        out.append("| " + " | ".join(_md(c) for c in row) + " |")
    out.append("")
    if report.comparisons:
        out += ["## " + _("Plan against measurement"), "",
                "| " + " | ".join([_("Item"), _("Expected (plan)"), _("Measured"), _("Verdict"), _("Note")]) + " |",
                "|---|---|---|---|---|"]
        for c in report.comparisons:
            out.append("| " + " | ".join(_md(x) for x in (c.item, c.expected, c.measured, verdict_text(c.verdict), c.note)) + " |")
        out.append("")
    out += ["## " + _("Post-delivery checks"), "",
            "| " + " | ".join([_("Check"), _("Expected"), _("Verdict"), _("Evidence")]) + " |", "|---|---|---|---|"]
    for ch in report.checks:
        out.append("| " + " | ".join(_md(x) for x in (ch.name, ch.expected, verdict_text(ch.verdict), ch.evidence)) + " |")
    out += ["", "## " + _("Findings"), ""]
    for f in a.findings:
        scope = _("job") if f.gpu is None else _("GPU {gpu}").format(gpu=f.gpu)
        severity = _severity(f.severity)
        if f.span and f.severity in (WARNING, CRITICAL):
            b = report.time_basis
            # Translators: one Markdown list item; keep the ** and ` marks. {rule} is a rule id (stays English).
            line = _("- **{severity}** `{rule}` ({scope}) ({start} to {end}, {zone}): {summary}").format(
                severity=severity, rule=f.rule, scope=scope, start=_when(f.span[0], b), end=_when(f.span[1], b),
                zone=_zone(b), summary=_md(f.summary))
        else:
            # Translators: one Markdown list item; keep the ** and ` marks. {rule} is a rule id (stays English).
            line = _("- **{severity}** `{rule}` ({scope}): {summary}").format(
                severity=severity, rule=f.rule, scope=scope, summary=_md(f.summary))
        out.append(line)
    out += ["", _("Thresholds (version {v}): {values}").format(
        v=a.thresholds.to_dict()["version"],
        values=", ".join(f"{k}={v}" for k, v in a.thresholds.changed().items()) or _("defaults")), ""]
    return "\n".join(out)


_COLOURS = {CRITICAL: "#c0392b", WARNING: "#e67e22"}


def heatmap_svg(report: BurnInReport, width: int = 900, row_h: int = 22) -> str:
    """The heat map as SVG: one row per GPU, white (0 %) to dark blue (100 %), grey for no data; the spans of
    warning and critical findings outlined (orange, red), the whole row for a GPU's finding, every row for a job's."""
    hm = report.heatmap
    n_rows, n_bins = hm.values.shape
    left, top = 60, 10
    cell_w = width / max(n_bins, 1)
    height = top + n_rows * row_h + 30
    t0, t1 = float(hm.edges[0]), float(hm.edges[-1])
    parts = [(f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 10}" height="{height}" '
              f'font-family="sans-serif" font-size="11">')]
    for i, (g, row) in enumerate(zip(hm.gpus, hm.values)):
        y = top + i * row_h
        parts.append(f'<text x="4" y="{y + row_h * 0.7:.1f}">GPU {g}</text>')
        for j, v in enumerate(row):
            if np.isnan(v):
                fill = "#bbbbbb"
            else:
                level = max(0.0, min(1.0, float(v) / 100.0))
                r_, g_, b_ = (int(255 - level * (255 - c)) for c in (16, 60, 140))
                fill = f"rgb({r_},{g_},{b_})"
            parts.append(f'<rect x="{left + j * cell_w:.2f}" y="{y}" width="{cell_w + 0.3:.2f}" height="{row_h - 2}" '
                         f'fill="{fill}"/>')
    span_s = max(t1 - t0, 1e-9)
    for f in report.analysis.findings:
        if f.severity not in _COLOURS or not f.span:
            continue
        x0 = left + (f.span[0] - t0) / span_s * width
        x1 = left + (f.span[1] - t0) / span_s * width
        rows = range(n_rows) if f.gpu is None or f.gpu not in hm.gpus else [hm.gpus.index(f.gpu)]
        for i in rows:
            parts.append(f'<rect x="{x0:.2f}" y="{top + i * row_h}" width="{max(x1 - x0, 2):.2f}" '
                         f'height="{row_h - 2}" fill="none" stroke="{_COLOURS[f.severity]}" stroke-width="2">'
                         f'<title>{html.escape(f.summary)}</title></rect>')
    y_axis = top + n_rows * row_h + 14
    start = f"{_when(t0, report.time_basis)} ({_zone(report.time_basis)})"
    parts.append(f'<text x="{left}" y="{y_axis}">{html.escape(start)}</text>')
    parts.append(f'<text x="{left + width}" y="{y_axis}" text-anchor="end">{html.escape(format_duration(t1 - t0))}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def to_html(report: BurnInReport, svg: bool = True) -> str:
    """Self-contained HTML; ``svg=False`` leaves the heat map out (for renderers without SVG, e.g. Qt's rich text
    which the PDF export feeds with its own image)."""
    a = report.analysis
    esc = html.escape
    out = ["<!DOCTYPE html><html><head><meta charset='utf-8'>", f"<title>{esc(report.title)}</title>",
           ("<style>body{font-family:sans-serif;max-width:1000px;margin:1em auto}table{border-collapse:collapse}"
            "td,th{border:1px solid #ccc;padding:3px 6px;text-align:left}.fail{color:#c0392b}.pass{color:#1e8449}"
            "</style></head><body>"), f"<h1>{esc(report.title)}</h1>"]
    out.append("<p>" + esc(_run_line(report)) + "</p>")
    if report.plan_name:
        out.append("<p>" + esc(_("Plan: {plan}, configuration {label}.").format(
            plan=report.plan_name, label=report.candidate_label or "")) + "</p>")
    out.append(f"<h2>{esc(_('Summary'))}</h2><p>{esc(a.summary)}</p>")
    out.append(f"<h2>{esc(_('Utilization heat map'))}</h2>")
    if svg:
        out.append(heatmap_svg(report))
    else:
        out.append("<p><img src='heatmap.png'></p>")
    out.append(f"<h2>{esc(_('Per-GPU statistics'))}</h2>" + _table(_gpu_header(), _gpu_table_rows(report)))
    if report.comparisons:
        out.append(f"<h2>{esc(_('Plan against measurement'))}</h2>" + _table(
            [_("Item"), _("Expected (plan)"), _("Measured"), _("Verdict"), _("Note")],
            [[c.item, c.expected, c.measured, verdict_text(c.verdict), c.note] for c in report.comparisons]))
    out.append(f"<h2>{esc(_('Post-delivery checks'))}</h2>" + _table(
        [_("Check"), _("Expected"), _("Verdict"), _("Evidence")],
        [[c.name, c.expected, verdict_text(c.verdict), c.evidence] for c in report.checks]))
    out.append(f"<h2>{esc(_('Findings'))}</h2><ul>")
    for f in a.findings:
        if f.severity == NOT_JUDGED:
            cls = ""
        else:
            cls = " class='fail'" if f.severity in (WARNING, CRITICAL) else " class='pass'"
        scope = _("job") if f.gpu is None else _("GPU {gpu}").format(gpu=f.gpu)
        out.append(f"<li{cls}><b>{esc(_severity(f.severity))}</b> <code>{esc(f.rule)}</code> ({esc(scope)}): "
                   f"{esc(f.summary)}</li>")
    out.append("</ul></body></html>")
    return "\n".join(out)


def render(report: BurnInReport, fmt: str) -> str:
    if fmt == "md":
        return to_markdown(report)
    if fmt == "html":
        return to_html(report)
    if fmt == "json":
        return json.dumps(report.to_json(), indent=2)
    raise TelemetryError(_("Unknown report format {fmt!r}; use one of {formats}.").format(
        fmt=fmt, formats=", ".join(FORMATS)))


def format_for(path: Path) -> str:
    """The format a file name asks for: .md/.markdown, .html/.htm, .json."""
    suffix = path.suffix.lower().lstrip(".")
    mapping = {"md": "md", "markdown": "md", "html": "html", "htm": "html", "json": "json"}
    if suffix not in mapping:
        raise TelemetryError(_("Cannot tell the report format from {name!r}: end the file name in .md, .html or "
                               ".json (a PDF comes from the Monitor tab).").format(name=path.name))
    return mapping[suffix]


def write_report(report: BurnInReport, path: Path, fmt: str | None = None) -> Path:
    text = render(report, fmt or format_for(path))
    try:
        # a source file name that is not UTF-8 is in the text as lone surrogates: written as \udcff escapes
        path.write_text(text, encoding="utf-8", errors="backslashreplace")
    except OSError as exc:
        raise TelemetryError(_("Could not write the report to {path}: {error}").format(path=path, error=exc)) from exc
    return path
