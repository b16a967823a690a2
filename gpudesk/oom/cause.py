"""The result of a diagnosis: ranked :class:`Cause` objects inside a :class:`Diagnosis`.

Cause ids (issue 5): ``fragmentation``, ``genuine_shortage``, ``other_process``,
``single_allocation_exceeds_capacity``, ``cuda_graph_pools``, ``kv_cache_budget``,
``allocation_outside_allocator``, ``multi_gpu_imbalance``, ``host_memory_growth``, ``zombie_workers``,
``sysmem_fallback``, ``leak``, ``preallocation``, ``unparseable``; issue 11 adds ``not_capacity`` (the runtime
refused an allocation the free memory would allow) and ``per_process_cap`` (a memory-fraction cap set in the
process).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from gpudesk.oom.account import accounts_of
from gpudesk.oom.labels import label_for
from gpudesk.oom.report import MemoryReport
from gpudesk.i18n import _

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
    "not_capacity",
    "per_process_cap",
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
        evidence_labels: {evidence key: human-readable name} for every evidence key (see
            :func:`gpudesk.oom.labels.label_for`); the keys stay the machine names used in JSON. Filled at
            construction and by :meth:`refresh_labels` after evidence is added.
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
    evidence_labels: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.refresh_labels()

    def refresh_labels(self, framework: str | None = None) -> None:
        """Give every evidence key a label (drops labels of removed keys). With ``framework`` every label is
        recomputed in that framework's terms (diagnose() does this); without it, labels already set stay."""
        self.evidence_labels = {
            k: (label_for(k, framework) if framework else self.evidence_labels.get(k) or label_for(k))
            for k in self.evidence
        }

    def label(self, key: str) -> str:
        """The human-readable name of evidence ``key``."""
        return self.evidence_labels.get(key) or label_for(key)

    def evidence_items(self) -> list[tuple[str, str, Any]]:
        """``[(key, label, value)]`` in evidence order: what a view shows (label) next to the value (its unit
        comes from the key's suffix: ``_bytes``, ``_ratio``, ``_s``, ``_tokens``)."""
        return [(key, self.label(key), value) for key, value in self.evidence.items()]

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

    @property
    def found_oom(self) -> bool:
        """False when the input held no out-of-memory message at all (text of kind "unknown"): nothing
        was diagnosed, and the only cause is the ``unparseable`` stand-in cause."""
        return not (self.report.source == "text" and self.report.kind == "unknown")

    @property
    def diagnosed(self) -> bool:
        """True when at least one cause other than ``unparseable`` was found."""
        return any(c.id != "unparseable" for c in self.causes)

    def to_dict(self) -> dict[str, Any]:
        """The CLI's JSON shape: framework, kind, era, parsed, parsed_labels, oom_message_found (text
        input only; None otherwise), missing, notes, causes
        (each with ``evidence`` and ``evidence_labels``), report."""
        return {
            "framework": self.report.framework,
            "engine": self.report.engine,
            "platform": self.report.platform,
            "kind": self.report.kind,
            "era": self.report.era,
            "parsed": dict(self.report.parsed),
            "parsed_labels": {key: label_for(key, self.report.framework) for key in self.report.parsed},
            "oom_message_found": self.found_oom if self.report.source == "text" else None,
            "missing": list(self.report.missing),
            "notes": list(self.report.notes),
            "causes": [c.to_dict() for c in self.causes],
            "accounts": [a.to_dict() for a in accounts_of(self.report)],
            "report": self.report.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Diagnosis:
        """Inverse of :meth:`to_dict`.

        Raises:
            ValueError: the data does not have the shape to_dict() writes.
        """
        if not isinstance(data, dict):
            raise ValueError(_('A diagnosis must be a JSON object, got {type}.').format(type=type(data).__name__))
        try:
            causes = [Cause.from_dict(c) for c in data.get("causes") or []]
        except (AttributeError, TypeError) as exc:
            raise ValueError(_('A saved cause has the wrong shape: {exc}').format(exc=exc)) from exc
        return cls(report=MemoryReport.from_dict(data.get("report") or {}), causes=causes)
