"""The Plan tab's controller: the plan in view, its requirement, the saved plan it came from, planning on the
thread pool, and the store operations (your prices, save, update, purge). No widgets.

Signals:
    planStarted(): planning began. planReady(object): a plan finished (its
    :class:`gpudesk.planner.document.PlanDocument`). planFailed(object): the exception. planFinished(): planning ended
    either way. savedChanged(object): the saved plan's id the view is tied to (None: not saved yet).
    recheckStarted(): a reopened saved plan is being re-planned with this gpudesk. recheckReady(object): its
    :class:`gpudesk.planner.recheck.PlanRecheck` (only while that saved plan is still the one shown).
    recheckFailed(object): the exception. recheckFinished(): the recheck ended either way.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QObject, Signal

from gpudesk.planner import (
    PlanDocument,
    PlanDocumentError,
    PlannerError,
    Requirement,
    dumps_profile,
    parse_profile_text,
    requirement_from_dict,
    save_profile,
)
from gpudesk.planner.mixed import plan_document
from gpudesk.planner.recheck import PlanRecheck, recheck_saved_plan
from gpudesk.ui.workers import Task, run_task
from gpudesk.ui.error_text import error_text

if TYPE_CHECKING:
    from gpudesk.store.plans import SavedPlan


def run_plan(req: Requirement, catalog: Any, prices: dict[str, Any] | None = None) -> PlanDocument:
    """Worker-thread job: plan (with the user's prices, read beforehand on the GUI thread) and convert to the
    plan document (no Qt)."""
    return plan_document(req, catalog, prices)


def read_profile_text(text: str, profile_format: str = "toml") -> dict[str, Any]:
    """A stored profile's text -> profile dictionary.

    Raises:
        PlannerError: the text is not valid TOML / JSON.
    """
    if profile_format != "json":  # bounded: deep nesting and 4300+ digit numbers are a ProfileError too
        return parse_profile_text(text)
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError, ValueError) as exc:
        raise PlannerError(QCoreApplication.translate("PlanTab", "The saved profile is not valid {0}: {1}.").format(profile_format.upper(), error_text(exc))) from exc
    if not isinstance(data, dict):
        raise PlannerError(QCoreApplication.translate("PlanTab", "The saved profile is not a table of sections."))
    return data


class PlanController(QObject):
    """State and actions of the Plan tab. ``store()`` returns the user store once open (or None)."""

    planStarted = Signal()
    """Planning began. No arguments."""
    planReady = Signal(object)
    """A plan finished: its PlanDocument."""
    planFailed = Signal(object)
    """Planning failed: the exception."""
    planFinished = Signal()
    """Planning ended, with a plan or an error. No arguments."""
    savedChanged = Signal(object)
    """The saved plan the view is tied to changed: its id, or None (not saved yet)."""
    recheckStarted = Signal()
    """A reopened saved plan is being re-planned with this gpudesk. No arguments."""
    recheckReady = Signal(object)
    """The recheck of the saved plan still shown: its PlanRecheck."""
    recheckFailed = Signal(object)
    """The recheck failed: the exception."""
    recheckFinished = Signal()
    """A recheck ended, with a result or an error. No arguments."""

    def __init__(self, ctx: Any, store: Callable[[], Any]):
        super().__init__()
        self.ctx = ctx
        self.store = store
        self.current_plan: PlanDocument | None = None
        self.current_profile: dict[str, Any] | None = None
        self.current_saved_id: int | None = None
        self.task: Task | None = None
        self.recheck_tasks: list[Task] = []  # rechecks running (a stale one finishes unseen)
        self.last_recheck: PlanRecheck | None = None

    def tie_to(self, saved_id: int | None) -> None:
        """Planning then saving updates saved plan ``saved_id`` (None: saves a new plan)."""
        self.current_saved_id = saved_id
        self.savedChanged.emit(saved_id)

    def start_plan(self, req: Requirement, data: dict[str, Any]) -> bool:
        """Run the planner in the background; False when no catalog is open or a plan is already being made."""
        if self.ctx.catalog is None:
            self.ctx.notify(QCoreApplication.translate("PlanTab", "The GPU catalog is not available, so no plan can be made. See the message at "
                                "start-up."), "error")
            return False
        if self.task is not None:
            return False
        self.current_profile = data
        prices = self.my_prices()
        self.planStarted.emit()
        self.task = run_task(run_plan, req, self.ctx.catalog, prices, on_result=self._plan_done,
                             on_error=self.planFailed.emit, on_finished=self._plan_finished)
        return True

    def _plan_done(self, result: PlanDocument) -> None:
        self.current_plan = result
        self.planReady.emit(result)

    def _plan_finished(self) -> None:
        self.task = None
        self.planFinished.emit()

    def my_prices(self) -> dict[str, Any] | None:
        """The user's own GPU prices (Catalog tab) from the store; None without a store or when unreadable."""
        store = self.store()
        if store is None:
            return None
        # The store modules load after the window's first paint (gpudesk.ui.startup), so they are imported here.
        from gpudesk.store import StoreError
        from gpudesk.store.prices import price_overrides

        try:
            return price_overrides(store)
        except StoreError as exc:
            self.ctx.notify(QCoreApplication.translate("PlanTab", "Your GPU prices could not be read, so catalog prices are used: {0}").format(error_text(exc)),
                            "warning")
            return None

    def use_my_price(self, gpu_id: str, price_usd: float) -> bool:
        """Keep ``price_usd`` as the user's price for ``gpu_id`` (same store as the Catalog tab) and plan again."""
        store = self.store()
        if store is None:
            self.ctx.notify(QCoreApplication.translate("PlanTab", "Your price cannot be kept: the user database is not open."), "warning")
            return False
        if self.current_profile is None:
            return False
        from gpudesk.store import StoreError  # after the first paint, see my_prices
        from gpudesk.store.prices import set_price

        try:
            req = requirement_from_dict(self.current_profile)
            set_price(store, gpu_id, price_usd, note=QCoreApplication.translate("PlanTab", "from the Plan tab"))
        except (StoreError, PlannerError) as exc:
            self.ctx.notify(QCoreApplication.translate("PlanTab", "The price was not saved: {0}").format(error_text(exc)), "error")
            return False
        if self.task is not None:
            self.ctx.notify(QCoreApplication.translate("PlanTab", "Saved your price for {0}: {1} USD per GPU. A plan is already being made; "
                                "press Plan again when it is done to use the price.").format(gpu_id, f"{price_usd:,.0f}"),
                            "info")
            return True
        self.ctx.notify(QCoreApplication.translate("PlanTab", "Saved your price for {0}: {1} USD per GPU. Planning again…").format(
            gpu_id, f"{price_usd:,.0f}"), "info")
        self.start_plan(req, self.current_profile)
        return True

    def save_current(self) -> int | None:
        """Save the shown plan (or update the saved plan it was edited from); returns its id."""
        store = self.store()
        if store is None or self.current_plan is None or self.current_profile is None:
            self.ctx.notify(QCoreApplication.translate("PlanTab", "Nothing to save, or the user database is not available."), "warning")
            return None
        from gpudesk.store import StoreError  # after the first paint, see my_prices
        from gpudesk.store.plans import save_plan, update_plan

        try:
            text = dumps_profile(requirement_from_dict(self.current_profile))
            name = str(self.current_profile.get("name") or QCoreApplication.translate("PlanTab", "Untitled plan"))
            if self.current_saved_id is not None:
                update_plan(store, self.current_saved_id, name=name, profile_text=text, plan=self.current_plan.to_dict(),
                            profile_format="toml")
                plan_id = self.current_saved_id
            else:
                plan_id = save_plan(store, name, text, self.current_plan.to_dict(), profile_format="toml")
        except (StoreError, PlannerError) as exc:
            self.ctx.notify(error_text(exc), "error")
            return None
        self.tie_to(plan_id)
        self.ctx.notify(QCoreApplication.translate("PlanTab", "Plan “{0}” saved.").format(name), "info")
        return plan_id

    def profile_of(self, saved: SavedPlan) -> dict[str, Any] | None:
        """The saved requirement, named as the saved plan (renames and copies change only the row's name)."""
        try:
            profile = read_profile_text(saved.profile_text, saved.profile_format)
        except PlannerError as exc:
            self.ctx.notify(QCoreApplication.translate("PlanTab", "{0}: {1}").format(saved.name, error_text(exc)), "error")
            return None
        profile["name"] = saved.name
        return profile

    def open_saved(self, saved: SavedPlan) -> bool:
        """The saved plan's results (its plan document, migrated from the version it was saved in) and requirement
        become the current ones (not re-planned); False (with the reason shown) when the plan cannot be read."""
        try:
            document = PlanDocument.from_dict(saved.plan)
        except PlanDocumentError as exc:
            self.ctx.notify(QCoreApplication.translate("PlanTab", "{0}: {1}").format(saved.name, error_text(exc)), "error")
            return False
        self.current_plan = document
        self.current_profile = self.profile_of(saved)
        self.tie_to(saved.id)
        return True

    def start_recheck(self, saved: SavedPlan) -> bool:
        """Re-plan the saved plan just opened with this gpudesk's models in the background (the Plan button's
        worker mechanism) and compare it with the saved figures; False when no catalog is open or the plan shown is
        not that saved plan. The result arrives as recheckReady only while that saved plan is still shown."""
        document = self.current_plan
        if self.ctx.catalog is None or document is None or self.current_saved_id != saved.id:
            return False
        prices = self.my_prices()
        self.last_recheck = None
        self.recheckStarted.emit()
        task = run_task(recheck_saved_plan, saved.profile_text, saved.profile_format, document, self.ctx.catalog,
                        prices, saved.name, on_result=lambda result: self._recheck_done(saved.id, document, result),
                        on_error=lambda exc: self._recheck_failed(saved.id, document, exc),
                        on_finished=lambda: self._recheck_finished(task))
        self.recheck_tasks.append(task)
        return True

    def _still_shown(self, saved_id: int, document: PlanDocument) -> bool:
        return self.current_saved_id == saved_id and self.current_plan is document

    def _recheck_done(self, saved_id: int, document: PlanDocument, result: PlanRecheck) -> None:
        if self._still_shown(saved_id, document):
            self.last_recheck = result
            self.recheckReady.emit(result)

    def _recheck_failed(self, saved_id: int, document: PlanDocument, exc: BaseException) -> None:
        if self._still_shown(saved_id, document):
            self.recheckFailed.emit(exc)

    def _recheck_finished(self, task: Task) -> None:
        if task in self.recheck_tasks:
            self.recheck_tasks.remove(task)
        self.recheckFinished.emit()

    @property
    def rechecking(self) -> bool:
        """Whether a recheck is running."""
        return bool(self.recheck_tasks)

    def use_recomputed(self) -> bool:
        """The last recheck's recomputed plan becomes the one shown (still tied to its saved plan, so Save changes
        replaces the saved figures; nothing is written until then). False without a recheck of the plan shown."""
        result = self.last_recheck
        if result is None or self.current_plan is not result.saved:
            return False
        self.current_plan = result.recomputed
        self.last_recheck = None
        return True

    def save_profile_to(self, req: Requirement, path: str | Path) -> bool:
        """Write ``req`` as a TOML profile; returns success (a failure is shown)."""
        try:
            save_profile(req, path)
        except PlannerError as exc:
            self.ctx.notify(error_text(exc), "error")
            return False
        self.ctx.notify(QCoreApplication.translate("PlanTab", "Profile written to {0}").format(str(path)), "info")
        return True

    def purge(self) -> None:
        """Remove for good the plans deleted in this session (on window close)."""
        if self.ctx.store is None:  # not opened at all when the window closed during start-up
            return
        from gpudesk.store import StoreError  # after the first paint, see my_prices
        from gpudesk.store.plans import purge_deleted

        try:
            purge_deleted(self.ctx.store)
        except StoreError as exc:
            self.ctx.notify(error_text(exc), "error")
