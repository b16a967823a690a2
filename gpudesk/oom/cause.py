"""The result of a diagnosis: ranked :class:`Cause` objects inside a :class:`Diagnosis`.

Cause ids (issue 5): ``fragmentation``, ``genuine_shortage``, ``other_process``,
``single_allocation_exceeds_capacity``, ``cuda_graph_pools``, ``kv_cache_budget``,
``allocation_outside_allocator``, ``multi_gpu_imbalance``, ``host_memory_growth``, ``zombie_workers``,
``sysmem_fallback``, ``leak``, ``preallocation``, ``unparseable``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from gpudesk.oom.report import MemoryReport

CAUSE_IDS = (
    "fragmentation",
    "genuine_shortage",
    "other_process",
    "single_allocation_exceeds_capacity",
    "cuda_graph_pools",
    "kv_cache_budget",
    "allocation_outside_allocator",
    "multi_gpu_imbalance",
    "host_memory_growth",
    "zombie_workers",
    "sysmem_fallback",
    "leak",
    "preallocation",
    "unparseable",
)


@dataclass
class SizingEffect:
    """What one sizing fix would save, computed with gpudesk.sizing when the model is known.

    ``saved_bytes`` is None when the saving depends on numbers the report does not have; ``note`` then says
    which (e.g. "needs the model's parameter count").
    """

    fix: str
    saved_bytes: int | None
    note: str = ""


@dataclass
class Cause:
    """One ranked explanation of the OOM.

    Attributes:
        id: one of :data:`CAUSE_IDS`.
        title: a short name for the cause.
        confidence: 0..1, how strongly the evidence supports it (rules document their thresholds).
        evidence: the numbers behind it; keys carry units (``*_bytes``, ``*_ratio``, ``*_s``, counts).
        explanation: one or two sentences linking the evidence to the cause.
        fix: the exact setting or code change to try first.
        more_fixes: further fixes, best first.
        checks: things to look at that the evidence cannot settle (the "enough memory but OOM" list).
        sizing: effects of sizing fixes for a genuine shortage.
    """

    id: str
    title: str
    confidence: float
    evidence: dict[str, Any] = field(default_factory=dict)
    explanation: str = ""
    fix: str = ""
    more_fixes: list[str] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)
    sizing: list[SizingEffect] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Cause:
        names = {f.name for f in dataclasses.fields(cls)}
        kwargs = {k: v for k, v in data.items() if k in names}
        kwargs["sizing"] = [SizingEffect(**s) for s in kwargs.get("sizing") or []]
        return cls(**kwargs)


@dataclass
class Diagnosis:
    """A report and its causes, best first (highest confidence; ties keep rule order)."""

    report: MemoryReport
    causes: list[Cause]
    elapsed_s: float | None = None

    @property
    def top(self) -> Cause | None:
        return self.causes[0] if self.causes else None

    def to_dict(self) -> dict[str, Any]:
        """The CLI's JSON shape: framework, kind, parsed, missing, notes, causes, report."""
        return {
            "framework": self.report.framework,
            "kind": self.report.kind,
            "era": self.report.era,
            "parsed": dict(self.report.parsed),
            "missing": list(self.report.missing),
            "notes": list(self.report.notes),
            "causes": [c.to_dict() for c in self.causes],
            "report": self.report.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Diagnosis:
        """Inverse of :meth:`to_dict`.

        Raises:
            ValueError: the data does not have the shape to_dict() writes.
        """
        if not isinstance(data, dict):
            raise ValueError(f"A diagnosis must be a JSON object, got {type(data).__name__}.")
        try:
            causes = [Cause.from_dict(c) for c in data.get("causes") or []]
        except (AttributeError, TypeError) as exc:
            raise ValueError(f"A saved cause has the wrong shape: {exc}") from exc
        return cls(report=MemoryReport.from_dict(data.get("report") or {}), causes=causes)
