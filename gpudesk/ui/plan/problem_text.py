"""A planner error as the Plan forms show it: each field named by the caption its form shows ("Target QPS
(requests/s)"), never by its internal key ("workload.target_qps"), with the planner's sentence after it.

One key -> caption mapping (:func:`field_captions`, from the question pages) serves the wizard, quick mode and the
live preview; a requirement with several problems (:class:`~gpudesk.planner.PlanInputErrors`) lists each one
numbered, with its own field's caption.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from PySide6.QtCore import QCoreApplication

from gpudesk.errors import GpudeskError
from gpudesk.planner.errors import PlanInputErrors
from gpudesk.ui.error_text import error_text
from gpudesk.ui.plan.fields import PageSpec

# Spelled out at every call so that lupdate sees each source text.
translate = QCoreApplication.translate


def field_captions(pages: Iterable[PageSpec]) -> dict[str, str]:
    """``section.name`` -> the caption its form row shows (label and unit: ``Target QPS (requests/s)``)."""
    return {spec.key: spec.caption() for page in pages for spec in page.fields}


def field_key(exc: Exception, captions: Mapping[str, str]) -> str | None:
    """The form field an error names: PlanInputError uses ``section.name``; the sizing formulas name model
    fields without the section (``seq_len_tokens``). None when no form field matches."""
    raw = str(getattr(exc, "field", "") or "")
    if not raw:
        return None
    for key in (raw, f"model.{raw}", f"workload.{raw}"):
        if key in captions:
            return key
    return None


def _one(exc: Exception, captions: Mapping[str, str]) -> str:
    key = field_key(exc, captions)
    if key is None:
        return error_text(exc)
    detail = exc.reason if isinstance(exc, GpudeskError) else error_text(exc)
    return translate("PlanProblems", "{0}: {1}", "a form field's caption, then what is wrong with its answer").format(
        captions[key], detail)


def describe_error(exc: Exception, captions: Mapping[str, str]) -> str:
    """The planner's message with each field's caption in front of its sentence; several problems are numbered
    ("2 problems: (1) Target QPS (requests/s): ...; (2) Training share of GPU time: ...")."""
    if not isinstance(exc, PlanInputErrors):
        return _one(exc, captions)
    # Each problem loses its closing stop (ASCII or full-width); the list's own stop closes the sentence.
    items = [translate("PlanProblems", "({0}) {1}", "a problem's number, then the problem").format(
        index, _one(problem, captions).rstrip(".。")) for index, problem in enumerate(exc.problems, 1)]
    listed = translate("PlanProblems", "; ", "the separator between numbered problems").join(items)
    # PlanInputErrors holds two problems or more (gpudesk.planner.requirement.raise_problems): no singular form.
    return translate("PlanProblems", "{0} problems: {1}.", "how many problems, then the numbered list").format(
        len(exc.problems), listed)
