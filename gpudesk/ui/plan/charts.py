"""Results charts (pyqtgraph): the 3-year TCO breakdown per candidate and cost against time to result.

Both take the options of the plan document (gpudesk.planner.document.PlanOption): ``tco_breakdown_usd`` (item ->
USD), ``tco_3y_usd``, ``time_to_result_s`` and ``meets_deadline``. Values that are None are left out, never drawn
as 0; the caption says how many candidates had no figure.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from gpudesk.planner.document import PlanOption
from gpudesk.planner.sheet_markdown import tco_line_label
from gpudesk.planner.tco import TCO_LINES
from gpudesk.ui.plan.memory_chart import ChartLegend, part_color

TCO_COLORS = {
    "gpus": "#1f5fa8",
    "hardware": "#1f5fa8",
    "host": "#6fa3e0",
    "hosts": "#6fa3e0",
    "network_install": "#a9c8ee",
    "server": "#6fa3e0",
    "network": "#a9c8ee",
    "energy": "#e08a1e",
    "power": "#e08a1e",
    "cooling": "#f2b56b",
    "facility": "#c9a36b",
    "operations": "#2e8b57",
    "ops_labour": "#2e8b57",
    "support": "#8fc9a3",
    "opportunity": "#b0413e",
    "residual": "#9e9e9e",
}
SECONDS_PER_DAY = 86400.0


def tco_item_names() -> dict[str, str]:
    """Translated names of the TCO lines (gpudesk.planner.tco.TCO_LINES): the sheet's own names, so the Plan page's
    chart, the comparison and the sheet (Markdown, PDF) read the same words."""
    return {name: tco_line_label(name) for name in TCO_LINES}


def candidate_label(candidate: PlanOption) -> str:
    """``8× H100 SXM5 80GB`` from an option (short NVIDIA prefix dropped); ``72× GB200 ... (runs on 5)`` when the
    chassis is sold whole and the option runs on fewer GPUs than it buys."""
    name = candidate.name or "?"
    for prefix in ("NVIDIA GeForce ", "NVIDIA Tesla ", "NVIDIA ", "AMD Instinct "):
        if name.startswith(prefix):
            name = name[len(prefix):]
            break
    if candidate.bought > candidate.count:  # a chassis sold whole (an NVL72 rack): what is bought, what runs
        return QCoreApplication.translate("PlanCharts", "{0}× {1} (runs on {2})").format(
            f"{candidate.bought:,}", name, f"{candidate.count:,}")
    return f"{candidate.count}× {name}"


def _style(plot: pg.PlotWidget) -> None:
    plot.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # nothing to do with the keys there: the caption says it in text
    plot.viewport().setFocusPolicy(Qt.FocusPolicy.NoFocus)
    plot.setMenuEnabled(False)
    plot.hideButtons()
    plot.showGrid(x=True, y=True, alpha=0.25)
    for axis in ("left", "bottom"):
        plot.getAxis(axis).setTextPen("#222222")
        plot.getAxis(axis).setPen("#666666")


class TcoChart(QWidget):
    """Stacked 3-year TCO bars (thousand USD), one per candidate, parts from ``tco_breakdown_usd``."""

    def __init__(self, parent: QWidget | None = None, item_names: dict[str, str] | None = None):
        super().__init__(parent)
        self._names = dict(item_names or {})
        self._order: list[str] = []
        self.plot = pg.PlotWidget(self, background="w")
        _style(self.plot)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.setLabel("left", self.tr("3-year TCO (thousand USD)"))
        self.legend = ChartLegend(self, columns=5)
        self.caption = QLabel(self)
        self.caption.setTextFormat(Qt.TextFormat.PlainText)
        self.caption.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot, 1)
        layout.addWidget(self.legend)
        layout.addWidget(self.caption)
        self.bar_count = 0
        self.unpriced_count = 0

    def set_candidates(self, candidates: list[PlanOption]) -> None:
        self.plot.clear()
        entries: list[tuple[str, str, str]] = []
        shown = [c for c in candidates if c.tco_breakdown_usd]
        keys: list[str] = []
        for c in shown:
            for key in c.tco_breakdown_usd:
                if key not in keys:
                    keys.append(key)
        xs = np.arange(len(shown), dtype=float)
        bottoms = np.zeros(len(shown))
        negatives = np.zeros(len(shown))
        # An option without a 3-year TCO is drawn as unpriced, never as a cheap bar: its known costs are only an
        # outline (no fill) and "price unknown" stands above it.
        priced = np.array([c.tco_3y_usd is not None for c in shown], dtype=bool)
        for key in keys:
            values = np.array([c.tco_breakdown_usd.get(key) or 0.0 for c in shown]) / 1000.0
            pos = np.clip(values, 0, None)
            neg = np.clip(values, None, 0)
            color = TCO_COLORS.get(key) or part_color(key, self._order)
            for mask, filled in ((priced, True), (~priced, False)):
                brush = color if filled else None
                pen = pg.mkPen("#ffffff", width=0.5) if filled else pg.mkPen("#9e9e9e", width=1, style=Qt.PenStyle.DashLine)
                if (pos * mask).any():
                    self.plot.addItem(pg.BarGraphItem(x=xs[mask], height=pos[mask], y0=bottoms[mask].copy(), width=0.6,
                                                      brush=brush, pen=pen))
                if (neg * mask).any():  # a residual value or credit lowers the total: drawn below zero
                    self.plot.addItem(pg.BarGraphItem(x=xs[mask], height=neg[mask], y0=negatives[mask].copy(), width=0.6,
                                                      brush=brush, pen=pen))
            if pos.any() or neg.any():
                entries.append((self._names.get(key, key.replace("_", " ")), color, "box"))
            bottoms += pos
            negatives += neg
        for x, top, ok in zip(xs, bottoms, priced):
            if not ok:
                mark = pg.TextItem(self.tr("price unknown"), color="#b0413e", anchor=(0.5, 1))
                mark.setPos(float(x), float(top))
                self.plot.addItem(mark)
        self.unpriced_count = int((~priced).sum())
        if self.unpriced_count:
            entries.append((self.tr("Unpriced: known costs only, outlined"), "#9e9e9e", "dash"))
        self.legend.set_entries(entries)
        self.plot.getAxis("bottom").setTicks([[(float(i), f"#{i + 1}" if len(shown) > 2 else candidate_label(c)) for i, c in enumerate(shown)]])
        self.plot.setXRange(-0.6, max(len(shown) - 0.4, 0.6), padding=0)
        if len(shown):
            self.plot.setYRange(float(min(negatives.min(), 0)) * 1.1, float(bottoms.max()) * 1.15 or 1.0, padding=0)
        missing = len(candidates) - len(shown)
        lines = [f"#{i + 1} {candidate_label(c)}: {c.tco_3y_usd / 1000:,.0f} k USD" if c.tco_3y_usd is not None
                 else f"#{i + 1} {candidate_label(c)}: " + self.unpriced_text(c) for i, c in enumerate(shown)]
        if missing:
            lines.append(self.tr("%n candidate(s) without a TCO figure are not drawn.", "", missing))
        self.caption.setText("\n".join(lines))
        self.bar_count = len(shown)

    def unpriced_text(self, c: PlanOption) -> str:
        """What the bar of a candidate without a 3-year TCO leaves out: the GPUs, the servers (host), or both."""
        gpu_known = c.price_known
        host_known = c.host_price_known is not False
        if gpu_known and not host_known:
            return self.tr("server (host) price unknown — the bar shows the known costs only, without the servers")
        if host_known and not gpu_known:
            return self.tr("GPU price unknown — the bar shows the known costs only, without the GPUs")
        return self.tr("GPU and server (host) prices unknown — the bar shows the known costs only, without the GPUs "
                       "and the servers")


class _LegendChart(QWidget):
    """A styled plot with its two axis labels (already translated), a legend and a plain-text caption below it."""

    def __init__(self, bottom: str, left: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.plot = pg.PlotWidget(self, background="w")
        _style(self.plot)
        self.plot.setLabel("bottom", bottom)
        self.plot.setLabel("left", left)
        self.legend = ChartLegend(self, columns=4)
        self.caption = QLabel(self)
        self.caption.setTextFormat(Qt.TextFormat.PlainText)
        self.caption.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot, 1)
        layout.addWidget(self.legend)
        layout.addWidget(self.caption)
        self.point_count = 0


class CostTimeScatter(_LegendChart):
    """3-year TCO (thousand USD) against time to result (days); the deadline as a vertical line."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(QCoreApplication.translate("CostTimeScatter", "Time to result (days)"),
                         QCoreApplication.translate("CostTimeScatter", "3-year TCO (thousand USD)"), parent)

    def set_candidates(self, candidates: list[PlanOption], deadline_s: float | None = None) -> None:
        self.plot.clear()
        entries: list[tuple[str, str, str]] = []
        points = [c for c in candidates if c.time_to_result_s is not None and c.tco_3y_usd is not None]
        groups = {
            True: (self.tr("Meets the deadline"), "#2e8b57", "o"),
            False: (self.tr("Misses the deadline"), "#c62828", "x"),
            None: (self.tr("No deadline given"), "#1f5fa8", "o"),
        }
        for flag, (name, color, symbol) in groups.items():
            chosen = [c for c in points if c.meets_deadline is flag]
            if not chosen:
                continue
            xs = np.array([(c.time_to_result_s or 0.0) / SECONDS_PER_DAY for c in chosen])
            ys = np.array([(c.tco_3y_usd or 0.0) / 1000.0 for c in chosen])
            item = pg.ScatterPlotItem(x=xs, y=ys, size=11, symbol=symbol, brush=pg.mkBrush(color), pen=pg.mkPen(color))
            self.plot.addItem(item)
            entries.append((name, color, "box"))
            for c, x, y in zip(chosen[:8], xs, ys):
                text = pg.TextItem(candidate_label(c), color="#222222", anchor=(0, 1))
                text.setPos(float(x), float(y))
                self.plot.addItem(text)
        self.legend.set_entries(entries + ([(self.tr("Deadline"), "#c62828", "dash")] if deadline_s else []))
        if points:
            right = max([c.time_to_result_s or 0.0 for c in points] + [float(deadline_s or 0)]) / SECONDS_PER_DAY
            top = max(c.tco_3y_usd or 0.0 for c in points) / 1000.0
            self.plot.setXRange(0, right * 1.1, padding=0)
            self.plot.setYRange(0, top * 1.12, padding=0)
        if deadline_s:
            line = pg.InfiniteLine(pos=deadline_s / SECONDS_PER_DAY, angle=90, pen=pg.mkPen("#c62828", width=1.5, style=Qt.PenStyle.DashLine))
            self.plot.addItem(line)
            self.caption.setText(self.tr("Dashed line: the deadline ({0:.1f} days).").format(deadline_s / SECONDS_PER_DAY))
        else:
            self.caption.setText("")
        if not points:
            self.caption.setText(self.tr("No candidate has both a time to result and a 3-year TCO (inference plans are "
                                         "sized by QPS, not by time; a missing price leaves the TCO unknown)."))
        self.point_count = len(points)


class LatencyThroughputChart(_LegendChart):
    """A serving plan's options: latency (TTFT and TPOT, ms) against the QPS each sustains, with the target QPS
    and latency targets as lines. One point per option (``qps_capacity``, ``ttft_s``, ``tpot_s``)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(QCoreApplication.translate("LatencyThroughputChart", "Sustained QPS (requests/s)"),
                         QCoreApplication.translate("LatencyThroughputChart", "Latency (ms)"), parent)

    def set_candidates(self, candidates: list[PlanOption], target_qps: float | None = None,
                       ttft_target_s: float | None = None, tpot_target_s: float | None = None) -> None:
        self.plot.clear()
        points = [c for c in candidates if c.qps_capacity is not None]
        entries: list[tuple[str, str, str]] = []
        series = ((lambda c: c.ttft_s, self.tr("Time to first token"), "#1f5fa8", "o"),
                  (lambda c: c.tpot_s, self.tr("Time per output token"), "#e08a1e", "t"))
        top = 0.0
        for value, name, color, symbol in series:
            chosen = [(c.qps_capacity or 0.0, v) for c in points if (v := value(c)) is not None]
            if not chosen:
                continue
            xs = np.array([x for x, _v in chosen])
            ys = np.array([v * 1000.0 for _x, v in chosen])
            top = max(top, float(ys.max()))
            self.plot.addItem(pg.ScatterPlotItem(x=xs, y=ys, size=11, symbol=symbol, brush=pg.mkBrush(color),
                                                 pen=pg.mkPen(color)))
            entries.append((name, color, "box"))
        for i, c in enumerate(points[:8]):  # the rank only: the options crowd near the target (names in the table)
            if c.ttft_s is not None and c.qps_capacity is not None:
                text = pg.TextItem(f"#{i + 1}", color="#222222", anchor=(0, 1))
                text.setPos(c.qps_capacity, c.ttft_s * 1000.0)
                self.plot.addItem(text)
        lines = []
        if target_qps:
            self.plot.addItem(pg.InfiniteLine(pos=float(target_qps), angle=90,
                                              pen=pg.mkPen("#c62828", width=1.5, style=Qt.PenStyle.DashLine)))
            entries.append((self.tr("Target QPS"), "#c62828", "dash"))
            lines.append(self.tr("Dashed red line: the target of {0:g} requests/s.").format(float(target_qps)))
        for target, name, color in ((ttft_target_s, self.tr("TTFT target"), "#1f5fa8"),
                                    (tpot_target_s, self.tr("TPOT target"), "#e08a1e")):
            if target:
                self.plot.addItem(pg.InfiniteLine(pos=float(target) * 1000.0, angle=0,
                                                  pen=pg.mkPen(color, width=1, style=Qt.PenStyle.DotLine)))
                entries.append((name, color, "dash"))
                top = max(top, float(target) * 1000.0)
        self.legend.set_entries(entries)
        if points:
            right = max([c.qps_capacity or 0.0 for c in points] + [float(target_qps or 0)])
            self.plot.setXRange(0, right * 1.15, padding=0)
            self.plot.setYRange(0, (top or 1.0) * 1.15, padding=0)
            lines.append(self.tr("Each option at the QPS it sustains: its time to first token (circles) and time "
                                 "per output token (triangles)."))
        else:
            lines.append(self.tr("No option has a sustained QPS (this is not a serving plan)."))
        self.caption.setText("\n".join(lines))
        self.point_count = len(points)
