"""Setting a pyqtgraph ViewBox's time (x) range directly, without its signal chain (issue 15).

A followed Monitor view scrolls every plot by one sample a second. Through ``ViewBox.setXRange`` each of the seven
plots runs ``setRange`` and ``updateViewRange`` and emits ``sigXRangeChanged``, ``sigRangeChanged`` and
``sigStateChanged`` to about ten receivers (hidden axes, the context menu, the plot's relays, every item's no-op
``viewRangeChanged``): about 0.7 ms of a 1 Hz tick, measured. :func:`place_x_range` writes the same state those
functions write (pyqtgraph ``graphicsItems/ViewBox/ViewBox.py``: ``setRange``, ``updateViewRange``) and leaves the
rest to the caller, who tells the shown time axes. It applies only to a view in the plain state the Monitor keeps
(:func:`can_place_x_range`): no x auto-range, log scale, aspect lock or x range limit, x limits around the range,
and a y range as requested. Anything else goes through pyqtgraph's own path. ``tests/ui/monitor/test_view_range.py``
checks state, transforms, axes and pixels against ``setXRange`` itself.
"""

from __future__ import annotations

import math

import pyqtgraph as pg

# ViewBox.updateViewRange counts a range as changed when an end moved by more than this share of its width
CHANGE_SHARE = 1.0e-9
# ViewBox.setRange widens a range narrower than 2 x (mn + mx) x 1.5e-15 (double resolution): not handled here
QUANTIZATION_SHARE = 3.0e-15


def can_place_x_range(vb: pg.ViewBox, x1: float, x2: float) -> bool:
    """Whether :func:`place_x_range` gives ``vb`` exactly what ``vb.setXRange(x1, x2, padding=0)`` would."""
    state = vb.state
    limits = state["limits"]
    lo, hi = limits["xLimits"]
    return (math.isfinite(x1) and math.isfinite(x2) and x2 - x1 > QUANTIZATION_SHARE * abs(x1 + x2)
            and state["autoRange"][0] is False and state["aspectLocked"] is False and not state["logMode"][0]
            and limits["xRange"] == [None, None] and (lo is None or lo <= x1) and (hi is None or x2 <= hi)
            and state["viewRange"][1] == state["targetRange"][1])


def place_x_range(vb: pg.ViewBox, x1: float, x2: float) -> bool:
    """Show ``x1 .. x2`` in ``vb`` (see :func:`can_place_x_range`); True where the range changed, after which the
    view repaints and its matrix is rebuilt before the next paint (``ViewBox.prepareForPaint``). The view's range
    signals are not emitted: the caller updates the axes it shows (``AxisItem.linkedViewChanged``)."""
    state = vb.state
    old = state["viewRange"][0]
    state["targetRange"][0] = [x1, x2]
    state["viewRange"] = [[x1, x2], state["targetRange"][1][:]]
    vb._viewPixelSizeCache = None  # noqa: SLF001 - pyqtgraph's own step in setRange
    threshold = (x2 - x1) * CHANGE_SHARE
    if abs(x1 - old[0]) <= threshold and abs(x2 - old[1]) <= threshold:
        return False
    vb._matrixNeedsUpdate = True  # noqa: SLF001 - as updateViewRange
    vb.update()
    return True
