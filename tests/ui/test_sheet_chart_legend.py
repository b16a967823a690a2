"""The PDF sheet's chart legend is never cut at the image's right edge (qafix5's look at the memory chart: "Fragmentation
headro", "ZeRO-3 streams' cach", "ZeRO-2 gradient buffe")."""

from __future__ import annotations

from PySide6.QtGui import QColor

from gpudesk.ui.plan.sheet_charts import bar_chart

PARTS = ["Weights", "Fragmentation headroom", "ZeRO-3 streams' cache", "ZeRO-2 gradient buffers"]


def _rightmost_ink(image, top: int, bottom: int) -> int:
    """The largest x with a dark pixel between rows top and bottom (text is drawn in #222222)."""
    for x in range(image.width() - 1, -1, -1):
        for y in range(top, bottom):
            if QColor(image.pixel(x, y)).lightness() < 100:
                return x
    return -1


def test_long_legend_names_fit_inside_the_image(qapp) -> None:
    bars = [{"label": "#1 8x H100", "parts": [(name, 10.0 + i) for i, name in enumerate(PARTS)], "limit": 60.0,
             "chosen": True}]
    image = bar_chart("Memory per GPU against the safe line", "GiB", bars)
    # The legend's rows start at the plot's top (80 px), 44 px each, then the safe line's row.
    ink = _rightmost_ink(image, 80, 80 + 44 * (len(PARTS) + 1))
    assert 0 < ink < image.width() - 20  # the longest name ends with room to spare, not at the edge


def test_short_legend_keeps_the_plot_width(qapp) -> None:
    # A short legend keeps the 400 px the plot always left it: the bars do not move for plans without long names.
    bars = [{"label": "#1", "parts": [("Weights", 10.0)]}]
    image = bar_chart("t", "GiB", bars)
    assert _rightmost_ink(image, 80, 80 + 44) < image.width() - 100
