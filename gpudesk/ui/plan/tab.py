"""The Plan tab: quick mode, the five-question wizard, results, saved plans and comparison.

Flow: quick mode or wizard -> validated Requirement -> the :class:`PlanController` plans on the thread pool
(``run_task``) -> ``plan_to_dict`` -> results page -> saved in the store (profile TOML + plan JSON) -> reopened,
edited, duplicated, compared, exported.

Start-up: the tab opens on quick mode; the other pages are built on first use (:class:`PlanPages`). The tab can
be shown before the user store is open (``opens_before_store``): whatever needs the store first finishes the
window's start-up (:func:`gpudesk.ui.startup.finish_startup`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QStandardPaths, Qt, Signal
from PySide6.QtWidgets import QFileDialog, QLabel, QVBoxLayout, QWidget

from gpudesk.planner import PlanDocument, PlanInputError, PlannerError
from gpudesk.planner.profile import profile_file_text
from gpudesk.planner.recheck import PlanRecheck
from gpudesk.planner.requirement import Requirement
from gpudesk.planner.search_notes import search_changes
from gpudesk.sizing import SizingError
from gpudesk.ui.plan.bar import PlanBar, example_profiles, example_title
from gpudesk.ui.plan.controller import PlanController, read_profile_text, run_plan
from gpudesk.ui.plan.pages import COMPARE, PLANS, QUICK, RESULTS, WIZARD, PlanPages
from gpudesk.ui.startup import finish_startup
from gpudesk.ui.error_text import error_text

if TYPE_CHECKING:
    from gpudesk.store.plans import SavedPlan

__all__ = ["COMPARE", "PLANS", "QUICK", "RESULTS", "WIZARD", "PlanTab", "example_profiles", "example_title",
           "read_profile_text", "run_plan"]


class PlanTab(QWidget):
    """The Plan tab's views over a :class:`PlanController` (``ctl``).

    Signals: planReady(object): a plan finished (its PlanDocument) (tests and the main window can wait on it).
    """

    planReady = Signal(object)
    """A plan finished and is shown: its PlanDocument (tests and the main window wait on it)."""
    opens_before_store = True  # see gpudesk.ui.main_window: store_opened() is called once it is open

    def __init__(self, ctx: Any, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(self.tr("Plan"))
        self.ctx = ctx
        self.ctl = PlanController(ctx, lambda: store_now(ctx))
        self.bar = PlanBar(self)
        self.pages = PlanPages(ctx, self._wire, self)
        self._error_notice: str | None = None  # the plan error shown in the message bar, withdrawn when stale
        self.status = QLabel(self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        layout = QVBoxLayout(self)
        layout.addWidget(self.bar)
        layout.addWidget(self.pages, 1)
        layout.addWidget(self.status)
        self.bar.viewRequested.connect(self.show_view)
        self.bar.profileChosen.connect(self.load_example)
        self.bar.saveProfileRequested.connect(self.save_profile_to)
        self.bar.newRequested.connect(self.new_plan)
        self.pages.quick.fullRequested.connect(self.open_wizard_with)
        self.ctl.planStarted.connect(self._plan_started)
        self.ctl.planReady.connect(self._plan_done)
        self.ctl.planFailed.connect(self._plan_failed)
        self.ctl.planFinished.connect(self.bar.busy.hide)
        self.ctl.planFinished.connect(lambda: self.pages.wizard.plan_button.setEnabled(True))
        self.ctl.savedChanged.connect(lambda _id: self._update_save_button())
        self.ctl.recheckStarted.connect(self._recheck_started)
        self.ctl.recheckReady.connect(self._recheck_done)
        self.ctl.recheckFailed.connect(self._recheck_failed)
        self.ctl.recheckFinished.connect(self._recheck_finished)
        self._saved_at = ""  # when the reopened saved plan was saved, as the saved-plans list shows it
        self.show_view(QUICK)

    def _wire(self, index: int, page: Any) -> None:
        """Connect a page's signals once :class:`PlanPages` has built it."""
        if index == WIZARD:
            page.quickRequested.connect(lambda: self.show_view(QUICK))
            page.planRequested.connect(self.ctl.start_plan)
            for editor in page.editors.values():  # the answer that caused the error changed: it is stale
                editor.changed.connect(lambda *_args: self._retract_error())
        elif index == RESULTS:
            page.saveRequested.connect(self.save_current)
            page.editRequested.connect(lambda: self.show_view(WIZARD))
            page.priceEntered.connect(self.ctl.use_my_price)
            page.applyRequested.connect(self.apply_option)
            page.recheck_notice.useRecomputedRequested.connect(self.use_recomputed)
            page.recheck_notice.keepSavedRequested.connect(self.keep_saved)
        elif index == PLANS:
            page.openRequested.connect(self.open_saved)
            page.editRequested.connect(self.edit_saved)
            page.compareRequested.connect(lambda left, right: self.pages.compare.compare(left, right))
            page.compareRequested.connect(lambda _left, _right: self.show_view(COMPARE))
        elif index == COMPARE:
            page.backRequested.connect(lambda: self.show_view(PLANS))

    def store_opened(self) -> None:
        """Called by the main window when the user store has opened after the first paint."""
        plans = self.pages.built(PLANS)
        if plans is not None:
            plans.refresh()  # type: ignore[attr-defined]
        if self.pages.built(RESULTS) is not None:
            self._update_save_button()

    def show_view(self, index: int) -> None:
        if index == RESULTS and self.ctl.current_plan is None:
            self.status.setText(self.tr("No plan yet: answer the wizard's questions and press Plan."))
            index = WIZARD
        if index == PLANS:
            self.pages.plans.refresh()
        self.pages.page(index)
        self.pages.setCurrentIndex(index)
        self.bar.show_mode(index)

    def new_plan(self) -> None:
        """A blank plan: every answer at the Requirement's default (stated in the status line), nothing kept from
        an example or the previous case (its modality, dataset size, ECC or library pins)."""
        self.ctl.tie_to(None)
        self.pages.wizard.load_profile({"name": self.tr("Untitled plan")})
        self.show_view(WIZARD)
        self.status.setText(self.tr("New plan. Defaults: {0}. Enter the model and the amount of data, then press Plan.").format(
            default_answers_text()))

    def open_wizard_with(self, partial: dict[str, Any]) -> None:
        """Quick mode hand-over: a new plan with the quick answers on top of the defaults (an example loaded
        earlier never leaks into it)."""
        wizard = self.pages.wizard
        data: dict[str, Any] = {"name": self.tr("Untitled plan")}
        for section, values in partial.items():
            if isinstance(values, dict):
                data.setdefault(section, {}).update(values)
        self.ctl.tie_to(None)
        wizard.load_profile(data)
        wizard.go_to(1)
        self.show_view(WIZARD)

    def apply_option(self, settings: dict[str, Any]) -> None:
        """"Apply this option": write the chosen option's settings into the wizard's answers and show them."""
        wizard = self.pages.wizard
        data, _problems = wizard.profile()
        for section, values in settings.items():
            data.setdefault(section, {}).update(values)
        self.ctl.tie_to(None)
        wizard.load_profile(data)
        self.show_view(WIZARD)
        changed = ", ".join(f"{k} = {v}" for values in settings.values() for k, v in values.items())
        self.status.setText(self.tr("Applied to the answers: {0}. Press Plan to plan again with them.").format(
            changed or self.tr("nothing to change")))

    def save_profile_to(self, path: str | Path | None = None) -> bool:
        """Write the wizard's answers as a TOML profile (``path`` None: ask where); problems are shown on their
        field. Returns success."""
        req, _data = self.pages.wizard.requirement()
        if req is None:
            self.show_view(WIZARD)
            return False
        target = path if path is not None else ask_profile_path(self, req.name)
        return target is not None and self.ctl.save_profile_to(req, target)

    def load_example(self, path: str | Path) -> None:
        """Fill the wizard from an example or user profile (relative config.json paths resolved beside it)."""
        path = Path(path)
        try:
            data = read_profile_text(profile_file_text(path), "toml")
        except (OSError, PlannerError) as exc:
            self.ctx.notify(self.tr("Cannot load the profile {0}: {1}").format(path.name, error_text(exc)), "error")
            return
        config = data.get("model", {}).get("config_path") if isinstance(data.get("model"), dict) else None
        if config and not Path(config).is_absolute():
            data["model"]["config_path"] = str((path.parent / config).resolve())
        self.ctl.tie_to(None)
        self.pages.wizard.load_profile(data)
        self.show_view(WIZARD)
        self.status.setText(self.tr("Loaded “{0}” ({1}). Check the answers and press Plan.").format(
            data.get("name") or path.stem, path.name))

    def _plan_started(self) -> None:
        self.bar.busy.setFormat(self.tr("Planning…"))
        self.bar.busy.show()
        self.pages.wizard.plan_button.setEnabled(False)
        self.status.setText(self.tr("Planning over the whole catalog…"))

    def _retract_error(self) -> None:
        if self._error_notice is not None:
            self.ctx.retract(self._error_notice)
            if self.status.text() == self._error_notice:
                self.status.clear()  # the status line repeats it: stale there too
            self._error_notice = None

    def _plan_done(self, result: PlanDocument) -> None:
        self._retract_error()
        self.pages.results.recheck_notice.hide()  # a fresh plan: the notice was about the saved one
        self.pages.results.show_plan(result, result.name, self.ctl.current_profile)
        self._update_save_button()
        self.status.setText(self.tr("%n configuration(s) ranked, {0} rejected.", "", len(result.candidates)).format(
            len(result.rejected)))
        top = result.top
        if top is not None:
            self.pages.wizard.preview.show_option(top, search_changes(top, result.requirement))
        self.show_view(RESULTS)
        self.planReady.emit(result)

    def _plan_failed(self, exc: BaseException) -> None:
        wizard = self.pages.wizard
        if isinstance(exc, (PlanInputError, SizingError)):
            # The field's caption, not its internal key ("model.bnb_fp32_compute"), in the status line too.
            message = wizard.describe_error(exc)
            wizard.show_problem(wizard.field_key(exc), message)
            self.show_view(WIZARD)
        elif isinstance(exc, PlannerError):
            message = error_text(exc)
        else:
            message = self.tr("Planning failed: {0}").format(repr(exc))
        self.ctx.notify(message, "error")
        self._error_notice = message
        self.status.setText(message)

    def _update_save_button(self) -> None:
        button = self.pages.results.save_button
        button.setText(self.tr("&Save changes") if self.ctl.current_saved_id is not None else self.tr("&Save plan"))
        button.setEnabled(store_now(self.ctx) is not None and self.ctl.current_plan is not None)

    def save_current(self) -> int | None:
        """Save the shown plan (or update the saved plan it was edited from); returns its id."""
        plan_id = self.ctl.save_current()
        if plan_id is not None:
            self.pages.plans.refresh(select_id=plan_id)
        return plan_id

    def open_saved(self, saved: SavedPlan) -> None:
        """Show a saved plan's results as they were saved (not re-planned), then recheck them with this gpudesk in
        the background: a notice says which figures now differ (gpudesk.planner.recheck)."""
        if not self.ctl.open_saved(saved) or self.ctl.current_plan is None:
            return
        self.pages.results.show_plan(self.ctl.current_plan, saved.name, self.ctl.current_profile)
        if self.ctl.current_profile is not None:
            self.pages.wizard.load_profile(self.ctl.current_profile)
        self._update_save_button()
        self.show_view(RESULTS)
        self.pages.results.recheck_notice.hide()
        self._saved_at = saved.updated_at.replace("T", " ").replace("+00:00", "")[:16]
        self.ctl.start_recheck(saved)

    def _recheck_started(self) -> None:
        self.bar.busy.setFormat(self.tr("Rechecking…"))
        self.bar.busy.show()
        self.status.setText(self.tr("Recomputing the saved plan with this gpudesk to check its figures…"))

    def _recheck_done(self, result: PlanRecheck) -> None:
        notice = self.pages.results.recheck_notice
        notice.show_recheck(result, self._saved_at)
        if result.differs:
            self.status.setText(self.tr("Saved figures differ from this gpudesk's: see the notice above the results."))
        else:
            self.status.setText(self.tr("Saved figures match this gpudesk."))

    def _recheck_failed(self, exc: BaseException) -> None:
        message = self.tr("The saved plan could not be rechecked; its saved figures are shown: {0}").format(
            error_text(exc))
        self.ctx.notify(message, "warning")
        self.status.setText(message)

    def _recheck_finished(self) -> None:
        self.bar.busy.setFormat(self.tr("Planning…"))
        if self.ctl.task is None and not self.ctl.rechecking:
            self.bar.busy.hide()

    def use_recomputed(self) -> None:
        """The notice's "Show recomputed plan": the recomputed plan becomes the current one (unsaved; Save changes
        replaces the saved figures)."""
        notice = self.pages.results.recheck_notice
        notice.hide()
        if not self.ctl.use_recomputed() or self.ctl.current_plan is None:
            return
        plan = self.ctl.current_plan
        self.pages.results.show_plan(plan, plan.name, self.ctl.current_profile)
        self._update_save_button()
        self.status.setText(self.tr("Showing the plan recomputed with this gpudesk; it is not saved until you press "
                                    "Save changes."))
        self.pages.results.table.setFocus()

    def keep_saved(self) -> None:
        """The notice's "Keep saved plan": the saved figures stay, the notice goes."""
        self.pages.results.recheck_notice.hide()
        self.status.setText(self.tr("Showing the figures as they were saved on {0}.").format(self._saved_at))
        self.pages.results.table.setFocus()

    def edit_saved(self, saved: SavedPlan) -> None:
        """Load a saved plan's answers into the wizard; planning then saving updates that plan."""
        profile = self.ctl.profile_of(saved)
        if profile is None:
            return
        self.ctl.tie_to(saved.id)
        self.pages.wizard.load_profile(profile)
        self.show_view(WIZARD)
        self.status.setText(self.tr("Editing “{0}”: change the answers, press Plan, then Save changes.").format(saved.name))

    def shutdown(self) -> None:
        """Called on window close: stop the debounce timers (a planning task finishes on its own) and remove
        for good the plans deleted in this session (until now "Undo delete" could bring them back)."""
        wizard = self.pages.built(WIZARD)
        if wizard is not None:
            wizard.stop_timers()  # type: ignore[attr-defined]
        self.pages.quick.stop_timers()
        self.ctl.purge()


def default_answers_text() -> str:
    """The defaults a new plan starts from, read from the Requirement itself (so the sentence cannot drift)."""
    req = Requirement()
    translate = QCoreApplication.translate
    return translate("PlanTab", "mode {0}, precision {1}, {2} data, no dataset size, no library pins, ECC not required, "
                                "up to {3} GPUs, market {4}").format(
        req.model.mode, req.model.precision, req.data.modality, req.operations.max_gpus, req.operations.market)


def store_now(ctx: Any) -> Any:
    """The user store once the start-up has opened it (at once if it has not yet), or None."""
    finish_startup("store")
    return ctx.store


def ask_profile_path(parent: QWidget, name: str) -> str | None:
    """Ask where to save a requirement profile (in Documents, named after ``name``); None when cancelled."""
    from gpudesk.ui.plan.export_menu import safe_file_stem  # only when saving (start-up speed)

    folder = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation) or str(Path.home())
    path, _selected = QFileDialog.getSaveFileName(parent, QCoreApplication.translate("PlanTab", "Save requirement profile"),
                                                  str(Path(folder) / f"{safe_file_stem(name)}.toml"),
                                                  QCoreApplication.translate("PlanTab", "TOML profiles (*.toml)"))
    return path or None
