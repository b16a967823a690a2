"""What the speed models (training and serving) share: the assumptions they state with their sources.

Every figure a speed estimate rests on (a matmul efficiency, a link efficiency, a framework factor, a pipeline
bubble, an engine's scheduler setting) is reported beside the answer as an :class:`Assumption`, so the CLI's
``--json``, the plan's trace and the sheet can show where a number came from.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Assumption:
    """One input of a speed estimate: a machine-readable ``name``, its ``value`` as text, and its ``source``
    (paper, datasheet, source file or measured table, with a URL where there is one)."""

    name: str
    value: str
    source: str

    def to_dict(self) -> dict[str, str]:
        """Plain dict for JSON output."""
        return {"name": self.name, "value": self.value, "source": self.source}
