"""The drawing specifications of a horizontal bottom axis without grid lines, as pyqtgraph's
``AxisItem.generateDrawSpecs`` makes them (pyqtgraph 0.14, graphicsItems/AxisItem.py), with less work per call.

A followed live view moves its time axis on every refresh, so the axis is laid out again each time: in
AxisItem that is ~0.5 ms of Python per axis (a Point per tick end, a text measurement per label, the axis's
bounding rectangle once per label), ~12 % of the Monitor tab's CPU (issue 15). Here the same steps are taken in
the same order, with the same floating-point operations, but each label's size is measured once per text and
font, the bounding rectangle once per call, tick ends are plain QPointF and each level's pen is made once per
call. ``tests/ui/monitor/test_axis_specs.py`` checks the result against AxisItem's own for many views.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QPainter, QPen

_MEASURE_RECT = QRectF(0, 0, 100, 100)
_TEXT_FLAGS = Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextDontClip


def handles(axis: pg.AxisItem) -> bool:
    """Whether :func:`bottom_axis_specs` makes ``axis``'s specifications (else AxisItem's own code does)."""
    return (axis.orientation == "bottom" and axis.grid is False and axis._tickLevels is None
            and tuple(axis.style["stopAxisAtTick"]) == (False, False) and axis.style["tickAlpha"] is None)


def bottom_axis_specs(axis: pg.AxisItem, painter: QPainter, sizes: dict[tuple[str, str], tuple[float, float]]
                      ) -> tuple[Any, list, list] | None:
    """``(axisSpec, tickSpecs, textSpecs)`` for ``axis`` (see :func:`handles`) drawn with ``painter``'s font;
    ``sizes`` caches each label's measured (width, height) by (font, text)."""
    style = axis.style
    if style["tickFont"] is not None:
        painter.setFont(style["tickFont"])
    bounds = axis.mapRectFromParent(axis.geometry())
    span = (bounds.topLeft() + QPointF(-1.0, 1.0), bounds.topRight() + QPointF(1.0, 1.0))
    tick_start = tick_stop = bounds.top()
    points = [axis.mapToDevice(point) for point in span]
    if None in points:
        return None
    length_px = pg.Point(points[1] - points[0]).length()
    if length_px == 0:
        return None
    levels = axis.tickValues(axis.range[0], axis.range[1], length_px)
    dif = axis.range[1] - axis.range[0]
    if dif == 0:
        x_scale, offset = 1, 0
    else:
        x_scale = bounds.width() / dif
        offset = axis.range[0] * x_scale
    x_range = [x * x_scale - offset for x in axis.range]
    x_min, x_max = min(x_range), max(x_range)

    positions: list[list[float | None]] = []
    tick_specs = []
    base_pen = axis.tickPen()
    for i in range(len(levels)):
        positions.append([])
        tick_length = style["tickLength"] / ((i * 0.5) + 1.0)
        pen = base_pen
        if pen.brush().style() == Qt.BrushStyle.SolidPattern:
            pen = QPen(pen)
            color = pen.color()
            color.setAlpha(int(255 / (i + 1)))
            pen.setColor(color)
        for v in levels[i][1]:
            x = (v * x_scale) - offset
            if x < x_min or x > x_max:
                positions[i].append(None)
                continue
            positions[i].append(x)
            tick_specs.append((pen, QPointF(x, tick_start), QPointF(x, tick_stop + tick_length)))
    axis_spec = (axis.pen(), span[0], span[1])

    text_offset = style["tickTextOffset"][1]
    text_specs: list[tuple[QRectF, Any, str]] = []
    if not style["showValues"]:
        return axis_spec, tick_specs, text_specs
    font_key = painter.font().key()
    widths: list[float] = []
    heights: list[float] = []
    last_size2: float = 0
    br = axis.boundingRect()
    for i in range(min(len(levels), style["maxTextLevel"] + 1)):
        spacing, values = levels[i]
        strings: list[str | None] = list(axis.tickStrings(values, axis.autoSIPrefixScale * axis.scale, spacing))
        if len(strings) == 0:
            continue
        for j in range(len(strings)):
            if positions[i][j] is None:
                strings[j] = None
        level_sizes: list[tuple[float, float] | None] = []
        for s in strings:
            if s is None:
                level_sizes.append(None)
                continue
            size = sizes.get((font_key, s))
            if size is None:
                measured = painter.boundingRect(_MEASURE_RECT, Qt.AlignmentFlag.AlignCenter, s)
                measured.setHeight(measured.height() * 0.8)  # as AxisItem: boundingRect is a bit too large
                size = sizes[(font_key, s)] = (measured.width(), measured.height())
            level_sizes.append(size)
            widths.append(size[0])
            heights.append(size[1])
        if widths:
            text_size = np.sum(widths)
            text_size2 = np.max(heights)
        else:
            text_size = text_size2 = 0
        if i > 0:  # the first level always gets its texts; the others while there is room
            ratio = float(text_size) / length_px
            if any(len(text_specs) >= n and ratio >= limit for n, limit in style["textFillLimits"]):
                break
        last_size2 = text_size2
        for j in range(len(strings)):
            text = strings[j]
            x = positions[i][j]
            if text is None or x is None:
                continue
            width, height = level_sizes[j] or (0.0, 0.0)
            rect = QRectF(x - width / 2.0, tick_stop + max(0, style["tickLength"]) + text_offset, width, height)
            if br & rect != rect:
                continue
            text_specs.append((rect, _TEXT_FLAGS, text))
    axis._updateMaxTextSize(last_size2)
    return axis_spec, tick_specs, text_specs
