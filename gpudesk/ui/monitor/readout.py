"""The crosshair read-out under the plots: the values of every shown GPU at the sample nearest the mouse.

Values that could not be read say "N/A" with the reason; PCIe reads as a share of the link when the link is
known. Plain text only.
"""

from __future__ import annotations

from PySide6.QtWidgets import QPlainTextEdit, QWidget

from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core.ring_buffer import HistoryBuffer
from gpudesk.ui.monitor.display import fmt, shown, when
from gpudesk.ui.monitor.plots import PLOTTED, LinkInfo

MAX_GPUS = 8


class Readout(QPlainTextEdit):
    """Read-only text box; :meth:`show_at` fills it for time ``t``."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setReadOnly(True)
        self.setMaximumHeight(70)
        self.setPlaceholderText(self.tr("Move the mouse over a plot to read the values at that moment."))

    def show_at(self, buffer: HistoryBuffer | None, t: float, columns: list[int], names: dict[int, str],
                links: dict[int, LinkInfo]) -> None:
        """Values of the GPU ``columns`` (at most 8) at the sample nearest to ``t``."""
        if buffer is None:
            return
        lines = []
        stamp = None
        for col in columns[:MAX_GPUS]:
            parts = []
            for metric in PLOTTED + (m.MEM_CLOCK,):
                hit = buffer.value_at(metric, col, t)
                if hit is None:
                    continue
                stamp, value = hit
                link = links.get(col)
                if metric in (m.PCIE_RX, m.PCIE_TX) and value is not None and link is not None and link.bytes_per_s:
                    text = self.tr("{v} % of link").format(v=f"{value / link.bytes_per_s * 100:.0f}")
                else:
                    text = fmt(metric, value)
                if value is None:
                    why = buffer.reasons.get((col, metric))
                    text += f" ({why})" if why else ""
                parts.append(f"{shown(metric).label}: {text}")
            lines.append(f"{names.get(col, str(col))}: " + ", ".join(parts))
        if stamp is not None:
            self.setPlainText(f"{when(stamp)}\n" + "\n".join(lines))
