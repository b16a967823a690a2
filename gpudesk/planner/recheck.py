"""Recheck a saved plan: re-plan its saved profile with this gpudesk's models and say which headline figures of the
saved recommended option no longer read the same.

A saved plan is a record (the sheet purchasing signed) and is shown as saved; the memory and speed models improve
between releases while ``__version__`` may stay, so a reopened plan can show figures this gpudesk would no longer
give. :func:`recheck_saved_plan` plans the saved profile again through :func:`gpudesk.planner.mixed.plan_document`
(the one function the Plan button's worker and ``gpudesk plan`` call), finds the saved recommended option (same
GPU, count and server) among the new options and compares, as the configuration sheet prints them
(:mod:`gpudesk.planner.sheet_markdown`'s formatting, so "differs" means "differs beyond display rounding"): the
per-GPU peak memory, the step time and time to result (training) or the sustained QPS (a service), the GPU price
per GPU (the price the TCO was computed from: a catalog or user price that changed since), the 3-year TCO, the rent,
and whether it fits. Nothing is written: the saved plan stays as it was. Qt-free.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from gpudesk.i18n import _
from gpudesk.planner.document import PlanDocument, PlanDocumentError, PlanOption, RejectedOption
from gpudesk.planner.errors import PlannerError
from gpudesk.planner.mixed import plan_document
from gpudesk.planner.profile import parse_profile_text, requirement_from_dict
from gpudesk.planner.requirement import raise_problems
from gpudesk.planner.sheet_markdown import tco_text, timing_value, yes_no_text
from gpudesk.planner.workload import profile_problems
from gpudesk.sizing.errors import SizingError
from gpudesk.units import format_gib, format_usd

#: What happened to the saved recommended option in the recomputed plan.
RecheckStatus = Literal["same", "changed", "no-longer-fits", "gone", "no-saved-option"]
#: The compared figures, in the order they are listed.
FigureKey = Literal["per_gpu_memory", "step_time", "time_to_result", "qps_capacity", "gpu_price", "tco_3y", "rent",
                    "fits"]


class RecheckError(PlannerError):
    """A saved plan cannot be rechecked: its document or its profile does not read (nothing was changed)."""


@dataclass(frozen=True)
class FigureChange:
    """One headline figure that reads differently now. ``saved`` / ``recomputed``: the values in ``unit`` ("bytes",
    "s", "QPS", "USD" or "yes/no"); ``saved_text`` / ``recomputed_text``: as the sheet prints them."""

    key: FigureKey
    label: str
    unit: str
    saved: float | bool | None
    recomputed: float | bool | None
    saved_text: str
    recomputed_text: str

    def text(self) -> str:
        """``"per-GPU peak 61.20 GiB (saved 58.90 GiB)"``."""
        return _("{figure} {now} (saved {saved})").format(figure=self.label, now=self.recomputed_text,
                                                            saved=self.saved_text)

    def to_dict(self) -> dict[str, Any]:
        return {"figure": self.key, "unit": self.unit, "saved": self.saved, "recomputed": self.recomputed,
                "saved_text": self.saved_text, "recomputed_text": self.recomputed_text}


@dataclass(frozen=True)
class PlanRecheck:
    """A saved plan against this gpudesk: the saved and the recomputed documents, the saved recommended option
    (``option``), the same GPU x count x server among the new options (``match``, None when it is not one), the
    reasons it is now rejected (``rejected_reasons``), and the figures that read differently (``changes``)."""

    saved: PlanDocument
    recomputed: PlanDocument
    status: RecheckStatus
    option: PlanOption | None
    match: PlanOption | None
    changes: list[FigureChange] = field(default_factory=list)
    rejected_reasons: list[str] = field(default_factory=list)

    @property
    def differs(self) -> bool:
        """Whether anything the user relied on reads differently (False: the saved figures match)."""
        return self.status != "same"

    @property
    def recommended_now(self) -> PlanOption | None:
        """The recomputed plan's recommended option when it is no longer the saved one (else None)."""
        top = self.recomputed.top
        if top is None or (self.option is not None and _same_option(self.option, top)):
            return None
        return top

    def lines(self) -> list[str]:
        """The differences as sentences, most important first (empty when nothing differs)."""
        out: list[str] = []
        label = self.option.label if self.option is not None else ""
        if self.status == "gone":
            out.append(_("the saved option {option} is no longer among the options").format(option=label))
        elif self.status == "no-longer-fits":
            if self.rejected_reasons:
                out.append(_("the saved option {option} no longer fits: {reasons}").format(
                    option=label, reasons="; ".join(self.rejected_reasons)))
            else:
                out.append(_("the saved option {option} no longer fits").format(option=label))
        elif self.status == "no-saved-option" and self.recomputed.top is not None:
            out.append(_("the saved plan had no option; now {count} are possible").format(
                count=len(self.recomputed.candidates)))
        out += [c.text() for c in self.changes]
        now = self.recommended_now
        if now is not None and self.status != "no-saved-option":
            out.append(_("recommended now: {option}").format(option=now.label))
        return out

    def summary(self) -> str:
        """The differences in one line, ``"; "``-separated (empty when nothing differs)."""
        return "; ".join(self.lines())

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (ids in English; the figures in their units with the sheet's text beside them)."""
        now = self.recommended_now
        return {
            "status": self.status,
            "differs": self.differs,
            "saved_gpudesk_version": self.saved.gpudesk_version or None,
            "recomputed_gpudesk_version": self.recomputed.gpudesk_version,
            "option": None if self.option is None else self.option.label,
            "option_in_recomputed_plan": self.match is not None,
            "rejected_reasons": list(self.rejected_reasons),
            "changes": [c.to_dict() for c in self.changes],
            "recommended_now": None if now is None else now.label,
            "summary": self.summary(),
        }


def _same_option(a: PlanOption, b: PlanOption) -> bool:
    return (a.gpu_id, a.count, a.server_id) == (b.gpu_id, b.count, b.server_id)


def find_option(option: PlanOption, options: list[PlanOption]) -> PlanOption | None:
    """The same GPU, count and server among ``options`` (the same interconnect preferred), or None."""
    same = [o for o in options if _same_option(option, o)]
    return next((o for o in same if o.interconnect == option.interconnect), same[0] if same else None)


def _rejected_as(option: PlanOption, rejected: list[RejectedOption]) -> RejectedOption | None:
    return next((r for r in rejected if (r.gpu_id, r.count, r.server_id) == (option.gpu_id, option.count,
                                                                                option.server_id)), None)


def _rent_usd(o: PlanOption) -> float | None:
    if o.rent is None:
        return None
    return o.rent.job_rent_usd if o.rent.job_rent_usd is not None else o.rent.horizon_rent_usd


def _figures(serving: bool) -> list[tuple[FigureKey, str, str, Callable[[PlanOption], Any],
                                          Callable[[Any, PlanOption], str]]]:
    """(key, label, unit, read, format) of each compared figure; the formats are the configuration sheet's."""
    speed: list[tuple[FigureKey, str, str, Callable[[PlanOption], Any], Callable[[Any, PlanOption], str]]] = (
        [("qps_capacity", _("sustained QPS"), "QPS", lambda o: o.qps_capacity,
          lambda v, _o: timing_value(v, "QPS"))] if serving else
        [("step_time", _("step time"), "s", lambda o: o.step_time_s, lambda v, _o: timing_value(v, "s")),
         ("time_to_result", _("time to result"), "s", lambda o: o.time_to_result_s,
          lambda v, _o: timing_value(v, "s"))])
    return [
        ("per_gpu_memory", _("per-GPU peak"), "bytes", lambda o: o.per_gpu_memory_bytes, lambda v, _o: format_gib(v)),
        *speed,
        # The sheet's "GPU price $24,400 per GPU" (gpudesk.planner.prices), before the TCO it explains.
        ("gpu_price", _("GPU price"), "USD", lambda o: o.price.usd_per_gpu,
         lambda v, _o: _("{price} per GPU").format(price=format_usd(v))),
        ("tco_3y", _("3-year TCO"), "USD", lambda o: o.tco_3y_usd, lambda v, o: tco_text(v, o)),
        ("rent", _("rent"), "USD", _rent_usd, lambda v, _o: format_usd(v)),
        ("fits", _("fits under the safe line"), "yes/no", lambda o: o.fits, lambda v, _o: yes_no_text(v)),
    ]


def compare_options(saved: PlanOption, now: PlanOption, serving: bool) -> list[FigureChange]:
    """The headline figures of ``saved`` that print differently for ``now`` (a figure the saved plan did not record,
    an older document version's gap, is not compared)."""
    out = []
    for key, label, unit, read, text in _figures(serving):
        before, after = read(saved), read(now)
        if before is None:
            continue
        before_text, after_text = text(before, saved), text(after, now)
        if before_text != after_text:
            out.append(FigureChange(key, label, unit, before, after, before_text, after_text))
    return out


def compare_plans(saved: PlanDocument, recomputed: PlanDocument) -> PlanRecheck:
    """The saved plan's recommended option against the recomputed plan (see :class:`PlanRecheck`)."""
    option = saved.top
    if option is None:
        status: RecheckStatus = "same" if recomputed.top is None else "no-saved-option"
        return PlanRecheck(saved, recomputed, status, None, None)
    match = find_option(option, recomputed.candidates)
    if match is None:
        rejected = _rejected_as(option, recomputed.rejected)
        if rejected is not None:
            return PlanRecheck(saved, recomputed, "no-longer-fits", option, None, rejected_reasons=list(rejected.reasons))
        return PlanRecheck(saved, recomputed, "gone", option, None)
    changes = compare_options(option, match, saved.serving or option.serving)
    if option.fits is not False and match.fits is False:
        status = "no-longer-fits"
    else:
        status = "changed" if changes or not _same_option(option, recomputed.top or match) else "same"
    return PlanRecheck(saved, recomputed, status, option, match, changes)


def read_saved_profile(profile_text: str, profile_format: str = "toml") -> dict[str, Any]:
    """A saved profile's text (TOML or JSON) -> the profile dictionary.

    Raises:
        RecheckError: the text does not read as a profile.
    """
    try:
        if profile_format == "json":
            data = json.loads(profile_text)
        else:
            data = parse_profile_text(profile_text, _("The saved profile"))
    except PlannerError as exc:
        raise RecheckError(str(exc)) from exc
    except (ValueError, RecursionError) as exc:
        raise RecheckError(_("The saved profile is not valid JSON: {reason}.").format(reason=exc)) from exc
    if not isinstance(data, dict):
        raise RecheckError(_("The saved profile is not a table of sections."))
    return data


def recheck_saved_plan(profile_text: str, profile_format: str, plan: Mapping[str, Any] | PlanDocument, catalog: Any,
                       prices: dict[str, Any] | None = None, name: str | None = None) -> PlanRecheck:
    """Re-plan a saved plan's profile with this gpudesk and compare it with the saved document.

    Args:
        profile_text, profile_format: the saved requirement ("toml" or "json").
        plan: the saved plan document (its dictionary, any saved version, or the document itself).
        catalog: the open catalog. prices: the user's own GPU prices, as for planning.
        name: the saved plan's name (the recomputed plan carries it; renames change only the row's name).

    Raises:
        RecheckError: the saved document or profile does not read, or the profile no longer plans (the reason
            says which); the saved plan is not changed.
    """
    try:
        saved = plan if isinstance(plan, PlanDocument) else PlanDocument.from_dict(plan)
    except PlanDocumentError as exc:
        raise RecheckError(_("The saved plan document cannot be read, so it cannot be rechecked: {reason}").format(
            reason=exc), remedy=_("The saved plan is unchanged; open its answers in the wizard and plan again.")) from exc
    profile = read_saved_profile(profile_text, profile_format)
    if name:
        profile["name"] = name
    try:
        req = requirement_from_dict(profile)
        raise_problems(profile_problems(req, catalog))
        recomputed = plan_document(req, catalog, prices)
    except (PlannerError, SizingError) as exc:
        raise RecheckError(_("The saved answers no longer plan with this gpudesk: {reason}").format(reason=exc)) from exc
    return compare_plans(saved, recomputed)
