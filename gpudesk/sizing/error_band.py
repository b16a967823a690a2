"""The expected error of a memory estimate, from the validation set: the spread of estimate / measured over the
published cases of the same class (mode x GPU count x framework).

A class is the most specific of (mode, GPU bucket, framework family), (mode, GPU bucket) and (mode) that holds at
least :data:`MIN_CASES` scored cases; the band is the 10th to 90th percentile of estimate / measured over them
(linear interpolation between order statistics, ``statistics.quantiles(method="inclusive")``), so four estimates
in five of that class fell inside it. The framework never changes the estimate, only which cases the band is
read from.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

from gpudesk.i18n import _
from gpudesk.sizing.validation import CaseResult, method_of_mode

MIN_CASES = 5
# Framework families (what ``--framework`` accepts) and the words that name them in a case's ``framework`` text.
FRAMEWORK_FAMILIES: dict[str, tuple[str, ...]] = {
    "torchtune": ("torchtune",),
    "torchtitan": ("torchtitan",),
    "hf": ("transformers", "peft", "trl", "accelerate", "fms-acceleration", "fsdp_qlora", "trainer"),
    "deepspeed": ("deepspeed",),
    "vllm": ("vllm",),
    "sglang": ("sglang",),
    "gpt-fast": ("gpt-fast", "torchao"),
    "litgpt": ("litgpt", "lit-gpt"),
}
FRAMEWORKS: tuple[str, ...] = tuple(FRAMEWORK_FAMILIES) + ("other",)


def framework_family(text: str) -> str:
    """The family of a framework description (``"vLLM 0.10.1"`` -> ``vllm``); ``other`` when none matches."""
    low = str(text or "").lower()
    for family, words in FRAMEWORK_FAMILIES.items():
        if any(w in low for w in words):
            return family
    return "other"


def gpu_class(gpus: int) -> str:
    """``1`` or ``2+``: one GPU or a job spread over several."""
    return "1" if gpus <= 1 else "2+"


@dataclass(frozen=True)
class ErrorBand:
    """Where estimate / measured fell for the class of an estimate.

    Attributes:
        label: the class the band was read from (e.g. ``qlora, 2+ GPUs, hf``).
        cases: scored cases in that class.
        low_ratio, high_ratio: 10th and 90th percentile of estimate / measured.
        median_abs_error: median of |estimate / measured - 1|.
        within_15_share: share of the class within 15 %.
    """

    label: str
    cases: int
    low_ratio: float
    high_ratio: float
    median_abs_error: float
    within_15_share: float

    def to_dict(self) -> dict[str, Any]:
        return {"class": self.label, "cases": self.cases, "low_ratio": round(self.low_ratio, 4),
                "high_ratio": round(self.high_ratio, 4), "median_abs_error": round(self.median_abs_error, 4),
                "within_15_share": round(self.within_15_share, 4)}

    def text(self) -> str:
        """One sentence for the CLI and the UI."""
        return _("expected error for {label}: {low:+.0%} to {high:+.0%} (4 in 5 of {cases} published cases; median "
                 "error {median:.0%})").format(label=self.label, low=self.low_ratio - 1, high=self.high_ratio - 1,
                                                cases=self.cases, median=self.median_abs_error)


def _band(label: str, rows: list[CaseResult]) -> ErrorBand:
    ratios = sorted(r.ratio for r in rows)
    if len(ratios) >= 2:
        cuts = statistics.quantiles(ratios, n=10, method="inclusive")
        low, high = cuts[0], cuts[-1]
    else:
        low = high = ratios[0]
    errors = [r.abs_error for r in rows]
    return ErrorBand(label=label, cases=len(rows), low_ratio=low, high_ratio=high,
                     median_abs_error=statistics.median(errors),
                     within_15_share=sum(e <= 0.15 for e in errors) / len(errors))


def error_band(results: list[CaseResult] | tuple[CaseResult, ...], mode: str, gpus: int,
               framework: str | None = None) -> ErrorBand | None:
    """The band of the most specific class with at least :data:`MIN_CASES` scored cases (None: no case at all).

    ``mode`` is a workload mode (``train``/``lora``/``qlora``/``inference``) or a case method (``full`` ...);
    ``framework`` a family of :data:`FRAMEWORKS` or a free description (None: any framework).
    """
    method = method_of_mode(mode)
    scored = [r for r in results if r.supported and not r.error and r.method == method]
    bucket = gpu_class(gpus)
    same_gpus = [r for r in scored if gpu_class(r.gpus) == bucket]
    gpu_text = _("1 GPU") if bucket == "1" else _("2+ GPUs")
    candidates: list[tuple[str, list[CaseResult]]] = []
    if framework:
        family = framework_family(framework) if framework not in FRAMEWORKS else framework
        candidates.append((f"{method}, {gpu_text}, {family}",
                           [r for r in same_gpus if framework_family(r.framework) == family]))
    candidates += [(f"{method}, {gpu_text}", same_gpus), (method, scored)]
    for label, rows in candidates:
        if len(rows) >= MIN_CASES:
            return _band(label, rows)
    return _band(method, scored) if scored else None


def bands_by_class(results: list[CaseResult] | tuple[CaseResult, ...]) -> dict[str, dict[str, Any]]:
    """Every (mode, GPU bucket, framework) class with its band, for the accuracy report (classes of any size)."""
    scored = [r for r in results if r.supported and not r.error]
    keys = sorted({(r.method, gpu_class(r.gpus), framework_family(r.framework)) for r in scored})
    out = {}
    for method, bucket, family in keys:
        rows = [r for r in scored if r.method == method and gpu_class(r.gpus) == bucket
                and framework_family(r.framework) == family]
        out[f"{method}/{bucket}/{family}"] = _band(f"{method}/{bucket}/{family}", rows).to_dict()
    return out


def bundled_error_band(mode: str, gpus: int, framework: str | None = None) -> ErrorBand | None:
    """:func:`error_band` over the bundled validation sets (None when they cannot be read: the estimate is then
    shown without a band rather than failing).
    """
    from gpudesk.sizing.errors import ConfigFileError
    from gpudesk.sizing.validation import evaluate

    try:
        results = _bundled_results(evaluate)
    except ConfigFileError:
        return None
    return error_band(results, mode, gpus, framework)


_CACHE: dict[str, tuple[CaseResult, ...]] = {}


def _bundled_results(evaluate: Any) -> tuple[CaseResult, ...]:
    if "bundled" not in _CACHE:
        _CACHE["bundled"] = tuple(evaluate())
    return _CACHE["bundled"]
