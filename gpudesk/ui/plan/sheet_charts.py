"""Charts for the printed configuration sheet: memory per GPU against the safe line, and the 3-year TCO, for the
chosen option and its alternatives. Painted with QPainter on a QImage (no widget), so the PDF job can draw them
in a worker thread or in the CLI's child process. Unpriced options are outlined and marked, never drawn as cheap.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QImage, QPainter, QPen

from gpudesk.planner.document import PlanDocument, PlanOption, as_document
from gpudesk.planner.memory_parts import memory_part_label
from gpudesk.planner.sheet_markdown import tco_line_label

from gpudesk.units import GIB
PALETTE = ("#1f5fa8", "#e08a1e", "#f2b56b", "#2e8b57", "#8fc9a3", "#6fa3e0", "#b0413e", "#9e9e9e", "#c9a36b",
           "#5b3f8c", "#a9c8ee", "#444444", "#d4d4d4")
#: Options drawn beside the chosen one.
CHART_OPTIONS = 6


def _label(c: PlanOption, number: int) -> str:
    name = (c.name or "?").replace("NVIDIA ", "")
    return f"#{number} {c.bought}× {name}"  # the TCO bar is for the GPUs bought


def nice_ticks(peak: float, most: int = 6) -> list[float]:
    """Axis ticks from 0 past ``peak`` in a round step (1, 2, 2.5 or 5 times a power of ten), at most ``most``
    intervals: 0, 40, 80, 120, 160 rather than a quarter of 1.1 x peak (0, 31, 61, 92, 122)."""
    import math

    peak = max(float(peak), 1e-9)
    raw = peak / (most - 1)
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power * most >= peak * 1.02)
    count = math.ceil(peak * 1.02 / step)
    return [step * i for i in range(count + 1)]


def _tick_text(value: float, step: float) -> str:
    """A tick's figure with the decimals its step needs (2.5 -> one, 0.25 -> two)."""
    decimals = 0
    while decimals < 6 and abs(round(step, decimals) - step) > step * 1e-6:
        decimals += 1
    return f"{value:,.{decimals}f}"


def legend_text_width(names: list[str], font: QFont) -> float:
    """The width in pixels the longest legend entry needs in ``font``: the plot gives the legend that much room, so no
    name is cut at the image's right edge (e.g. "Fragmentation headroom" at 30 px)."""
    metrics = QFontMetricsF(font)
    return max([metrics.horizontalAdvance(name) for name in names] + [0.0])


def bar_chart(title: str, unit: str, bars: list[dict[str, Any]], width: int = 1500, height: int = 680) -> QImage:
    """A stacked bar chart. ``bars``: dicts with ``label``, ``parts`` [(name, value)], optional ``limit`` (a
    dashed red line over the bar, e.g. the safe line), ``unpriced`` (outline only, marked) and ``chosen``."""
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    font = QFont()
    font.setPixelSize(30)
    painter.setFont(font)
    names: list[str] = []
    for b in bars:
        for name, _v in b["parts"]:
            if name not in names:
                names.append(name)
    safe_line = QCoreApplication.translate("SheetCharts", "Safe line")
    legend_text = legend_text_width(names + [safe_line], font)
    left, top, right, bottom = 130, 80, width - max(400.0, legend_text + 90), height - 190
    painter.drawText(QRectF(0, 10, width, 60), Qt.AlignmentFlag.AlignHCenter, title)
    peak = max([sum(max(v, 0.0) for _n, v in b["parts"]) for b in bars] + [b.get("limit") or 0.0 for b in bars] + [1e-9])
    ticks = nice_ticks(peak)
    scale = (bottom - top) / ticks[-1]
    painter.setPen(QPen(QColor("#666666"), 2))
    painter.drawLine(QPointF(left, bottom), QPointF(right, bottom))
    painter.drawLine(QPointF(left, top), QPointF(left, bottom))
    for value in ticks:
        y = bottom - value * scale
        painter.setPen(QPen(QColor("#dddddd"), 1))
        painter.drawLine(QPointF(left, y), QPointF(right, y))
        painter.setPen(QColor("#222222"))
        painter.drawText(QRectF(0, y - 20, left - 12, 40), Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                         _tick_text(value, ticks[1]))
    painter.drawText(QRectF(10, top - 60, 600, 40), Qt.AlignmentFlag.AlignLeft, unit)
    colors = {name: QColor(PALETTE[i % len(PALETTE)]) for i, name in enumerate(names)}
    slot = (right - left) / max(len(bars), 1)
    for i, b in enumerate(bars):
        x = left + slot * i + slot * 0.18
        w = slot * 0.64
        y = float(bottom)
        for name, value in b["parts"]:
            if value <= 0:
                continue
            h = value * scale
            rect = QRectF(x, y - h, w, h)
            if b.get("unpriced"):
                painter.setPen(QPen(QColor("#9e9e9e"), 2, Qt.PenStyle.DashLine))
                painter.setBrush(Qt.BrushStyle.NoBrush)
            else:
                painter.setPen(QPen(QColor("white"), 1))
                painter.setBrush(colors[name])
            painter.drawRect(rect)
            y -= h
        if b.get("unpriced"):  # two short lines within the bar's slot, so neighbours' marks never overlap
            painter.setPen(QColor("#b0413e"))
            mark_font = QFont(font)
            mark_font.setPixelSize(19)
            painter.setFont(mark_font)
            painter.drawText(QRectF(left + slot * i, y - 64, slot, 60),
                             Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom | Qt.TextFlag.TextWordWrap,
                             QCoreApplication.translate("SheetCharts", "price unknown"))
            painter.setFont(font)
        if b.get("limit"):
            ly = bottom - b["limit"] * scale
            painter.setPen(QPen(QColor("#c62828"), 4, Qt.PenStyle.DashLine))
            painter.drawLine(QPointF(x - 10, ly), QPointF(x + w + 10, ly))
        painter.setPen(QColor("#000000" if b.get("chosen") else "#222222"))
        label_font = QFont(font)
        label_font.setBold(bool(b.get("chosen")))
        label_font.setPixelSize(24)
        painter.setFont(label_font)
        painter.drawText(QRectF(left + slot * i, bottom + 10, slot, 180),
                         Qt.AlignmentFlag.AlignHCenter | Qt.TextFlag.TextWordWrap, b["label"])
        painter.setFont(font)
    legend_y = top
    for name in names:
        painter.setBrush(colors[name])
        painter.setPen(Qt.PenStyle.NoPen)
        painter.drawRect(QRectF(right + 30, legend_y + 6, 28, 28))
        painter.setPen(QColor("#222222"))
        painter.drawText(QRectF(right + 70, legend_y, legend_text + 10, 40), Qt.AlignmentFlag.AlignVCenter, name)
        legend_y += 44
    if any(b.get("limit") for b in bars):
        painter.setPen(QPen(QColor("#c62828"), 4, Qt.PenStyle.DashLine))
        painter.drawLine(QPointF(right + 30, legend_y + 20), QPointF(right + 58, legend_y + 20))
        painter.setPen(QColor("#222222"))
        painter.drawText(QRectF(right + 70, legend_y, legend_text + 10, 40), Qt.AlignmentFlag.AlignVCenter, safe_line)
    painter.end()
    return image


def sheet_chart_images(plan: PlanDocument | dict[str, Any], index: int = 0) -> list[tuple[str, QImage]]:
    """(title, image) of the sheet's charts: memory per GPU and 3-year TCO of the chosen option and the next ones."""
    candidates = as_document(plan).candidates
    if not candidates:
        return []
    order = [index] + [i for i in range(len(candidates)) if i != index][:CHART_OPTIONS - 1]
    chosen = [(i, candidates[i]) for i in order if 0 <= i < len(candidates)]
    memory_bars = [{"label": _label(c, i + 1), "chosen": i == index,
                    "parts": [(memory_part_label(k), float(v) / GIB) for k, v in c.per_gpu_memory_breakdown_bytes.items()],
                    "limit": (float(c.safe_line_bytes) / GIB) if c.safe_line_bytes else None}
                   for i, c in chosen]
    tco_bars = [{"label": _label(c, i + 1), "chosen": i == index, "unpriced": c.tco_3y_usd is None,
                 "parts": [(tco_line_label(k), float(v) / 1000) for k, v in c.tco_breakdown_usd.items() if v is not None]}
                for i, c in chosen]
    memory_title = QCoreApplication.translate("SheetCharts", "Memory per GPU against the safe line")
    tco_title = QCoreApplication.translate("SheetCharts", "3-year TCO")
    return [(memory_title, bar_chart(memory_title, "GiB", memory_bars)),
            (tco_title, bar_chart(tco_title, QCoreApplication.translate("SheetCharts", "thousand USD"), tco_bars))]
