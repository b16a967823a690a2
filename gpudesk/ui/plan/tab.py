"""The Plan tab: quick mode, the five-question wizard, results, saved plans and comparison.

Flow: quick mode or wizard -> validated Requirement -> ``planner.plan`` on the thread pool (``run_task``) ->
``plan_to_dict`` -> results page -> saved in the store (profile TOML + plan JSON) -> reopened, edited,
duplicated, compared, exported.

Start-up: the tab opens on quick mode, which is all that is built with it; the wizard, results, saved plans and
comparison pages (and their imports: pyqtgraph charts, the store modules) are built the first time they are
used. The tab can be shown before the user store is open (``opens_before_store``): whatever needs the store
first finishes the window's start-up (:func:`gpudesk.ui.startup.finish_startup`).
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QStandardPaths, Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from gpudesk import paths
from gpudesk.planner import PlanInputError, PlannerError, Requirement, dumps_profile, plan, plan_to_dict, save_profile
from gpudesk.sizing import SizingError
from gpudesk.ui.plan.quick import QuickMode
from gpudesk.ui.startup import finish_startup
from gpudesk.ui.workers import run_task

if TYPE_CHECKING:
    from gpudesk.store.plans import SavedPlan
    from gpudesk.ui.plan.compare import CompareView
    from gpudesk.ui.plan.plan_view import PlanView
    from gpudesk.ui.plan.plans_list import PlansList
    from gpudesk.ui.plan.wizard import PlanWizard

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

QUICK, WIZARD, RESULTS, PLANS, COMPARE = range(5)


def run_plan(req: Requirement, catalog: Any, prices: dict[str, Any] | None = None) -> dict[str, Any]:
    """Worker-thread job: plan (with the user's prices, read beforehand on the GUI thread) and convert to the
    JSON-shaped dictionary (no Qt)."""
    return plan_to_dict(plan(req, catalog, price_overrides=prices))


def read_profile_text(text: str, profile_format: str = "toml") -> dict[str, Any]:
    """A stored profile's text -> profile dictionary.

    Raises:
        PlannerError: the text is not valid TOML / JSON.
    """
    try:
        data = json.loads(text) if profile_format == "json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise PlannerError(QCoreApplication.translate("PlanTab", "The saved profile is not valid {0}: {1}.").format(
            profile_format.upper(), exc)) from exc
    if not isinstance(data, dict):
        raise PlannerError(QCoreApplication.translate("PlanTab", "The saved profile is not a table of sections."))
    return data


def example_profiles() -> list[Path]:
    """The bundled example profiles (resources/examples/*.toml), sorted by name."""
    folder = paths.examples_dir()
    return sorted(folder.glob("*.toml")) if folder.is_dir() else []


def example_title(path: Path) -> str:
    """The ``name`` inside an example profile, or its file name when the file cannot be read."""
    try:
        name = read_profile_text(path.read_text(encoding="utf-8"), "toml").get("name")
    except (OSError, UnicodeDecodeError, PlannerError):
        name = None
    return str(name) if isinstance(name, str) and name.strip() else path.stem.replace("-", " ")


class PlanTab(QWidget):
    """Signals: plan_ready(dict): a plan finished (tests and the main window can wait on it)."""

    plan_ready = Signal(dict)
    opens_before_store = True  # see gpudesk.ui.main_window: store_opened() is called once it is open

    def __init__(self, ctx: Any, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(self.tr("Plan"))
        self.ctx = ctx
        self.current_plan: dict[str, Any] | None = None
        self.current_profile: dict[str, Any] | None = None
        self.current_saved_id: int | None = None
        self.task = None

        self.quick = QuickMode(ctx, self)
        # The other pages are built when first used (see the properties below); until then an empty page
        # holds their place so that the stack's indexes stay QUICK .. COMPARE.
        self._wizard: PlanWizard | None = None
        self._results: PlanView | None = None
        self._plans: PlansList | None = None
        self._compare: CompareView | None = None
        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.quick)
        for _index in range(WIZARD, COMPARE + 1):
            self.stack.addWidget(QWidget(self.stack))

        self.mode_buttons = QButtonGroup(self)
        bar = QHBoxLayout()
        for index, (text, tip) in enumerate(
            [
                (self.tr("Quick mode"), self.tr("Model, method, sequence length and batch: does it fit?")),
                (self.tr("Wizard"), self.tr("The five questions, one page each")),
                (self.tr("Results"), self.tr("The ranked configurations of the last plan")),
                (self.tr("Saved plans"), self.tr("Reopen, duplicate, edit, compare, delete, export")),
            ]
        ):
            button = QPushButton(text, self)
            button.setCheckable(True)
            button.setToolTip(tip)
            self.mode_buttons.addButton(button, index)
            bar.addWidget(button)
        self.mode_buttons.idClicked.connect(self.show_view)
        bar.addStretch(1)
        self.examples = QComboBox(self)
        self.examples.setToolTip(self.tr("Load a bundled example requirement into the wizard"))
        self.examples.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.examples.setMinimumContentsLength(28)
        self.examples.addItem(self.tr("Start from example…"), None)
        for path in example_profiles():
            self.examples.addItem(example_title(path), str(path))
            self.examples.setItemData(self.examples.count() - 1, path.name, Qt.ItemDataRole.ToolTipRole)
        self.examples.activated.connect(self._example_chosen)
        bar.addWidget(self.examples)
        self.open_button = QPushButton(self.tr("Open profi&le…"), self)
        self.open_button.setToolTip(self.tr("Load a requirement profile (TOML, as used by gpudesk plan --profile) into the wizard"))
        self.open_button.clicked.connect(self._choose_profile)
        self.save_profile_button = QPushButton(self.tr("Sa&ve profile…"), self)
        self.save_profile_button.setToolTip(self.tr("Write the wizard's answers as a TOML profile (for gpudesk plan --profile)"))
        self.save_profile_button.clicked.connect(self._choose_profile_target)
        bar.addWidget(self.open_button)
        bar.addWidget(self.save_profile_button)
        self.busy = QProgressBar(self)
        self.busy.setRange(0, 0)
        self.busy.setMaximumWidth(140)
        self.busy.setFormat(self.tr("Planning…"))
        self.busy.setTextVisible(True)
        self.busy.hide()
        bar.addWidget(self.busy)
        self.status = QLabel(self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.status)

        self.quick.full_requested.connect(self.open_wizard_with)
        self.show_view(QUICK)

    # -- pages, built on first use ------------------------------------------------------------------------
    # Tab order: a page built later is appended to the window's focus chain, after the widgets above the
    # stack, which is where it sits; only one page is visible at a time, so the visible order is unchanged.
    def _place(self, index: int, view: QWidget) -> None:
        stand_in = self.stack.widget(index)
        current = self.stack.currentIndex()
        self.stack.insertWidget(index, view)
        self.stack.removeWidget(stand_in)
        stand_in.deleteLater()
        self.stack.setCurrentIndex(current)

    @property
    def wizard(self) -> PlanWizard:
        """The five-question wizard page."""
        if self._wizard is None:
            from gpudesk.ui.plan.wizard import PlanWizard

            self._wizard = PlanWizard(self.ctx, self)
            self._place(WIZARD, self._wizard)
            self._wizard.quick_requested.connect(lambda: self.show_view(QUICK))
            self._wizard.plan_requested.connect(self.start_plan)
        return self._wizard

    @property
    def results(self) -> PlanView:
        """The results page of the shown plan."""
        if self._results is None:
            from gpudesk.ui.plan.plan_view import PlanView

            self._results = PlanView(self.ctx, self)
            self._place(RESULTS, self._results)
            self._results.save_requested.connect(self.save_current)
            self._results.edit_requested.connect(lambda: self.show_view(WIZARD))
            self._results.price_entered.connect(self.use_my_price)
        return self._results

    @property
    def plans(self) -> PlansList:
        """The saved-plans page (reads the user store, so the start-up's store step runs first)."""
        if self._plans is None:
            finish_startup("store")
            from gpudesk.ui.plan.plans_list import PlansList

            self._plans = PlansList(self.ctx, self)
            self._place(PLANS, self._plans)
            self._plans.open_requested.connect(self.open_saved)
            self._plans.edit_requested.connect(self.edit_saved)
            self._plans.compare_requested.connect(self.compare_saved)
        return self._plans

    @property
    def compare(self) -> CompareView:
        """The side-by-side comparison of two saved plans."""
        if self._compare is None:
            from gpudesk.ui.plan.compare import CompareView

            self._compare = CompareView(self)
            self._place(COMPARE, self._compare)
            self._compare.back_requested.connect(lambda: self.show_view(PLANS))
        return self._compare

    def _view(self, index: int) -> QWidget:
        """The page at ``index``, built now if it was not yet."""
        name = ("quick", "wizard", "results", "plans", "compare")[index]
        return getattr(self, name)

    def _store(self) -> Any:
        """The user store once the start-up has opened it (at once if it has not yet), or None."""
        finish_startup("store")
        return self.ctx.store

    def store_opened(self) -> None:
        """Called by the main window when the user store has opened after the first paint."""
        if self._plans is not None:
            self._plans.refresh()
        if self._results is not None:
            self._update_save_button()

    # -- navigation ---------------------------------------------------------------------------------------
    def show_view(self, index: int) -> None:
        if index == RESULTS and self.current_plan is None:
            self.status.setText(self.tr("No plan yet: answer the wizard's questions and press Plan."))
            index = WIZARD
        if index == PLANS:
            self.plans.refresh()
        self._view(index)
        self.stack.setCurrentIndex(index)
        button = self.mode_buttons.button(min(index, PLANS))
        if button is not None:
            button.setChecked(True)

    def open_wizard_with(self, partial: dict[str, Any]) -> None:
        """Quick mode hand-over: keep the wizard's other answers, overwrite the quick ones."""
        data, _problems = self.wizard.profile()
        for section, values in partial.items():
            if isinstance(values, dict):
                data.setdefault(section, {}).update(values)
        quick_model = partial.get("model", {})
        for source in ("model", "params", "config_path"):  # the quick answer is the only model source
            if source not in quick_model:
                data.get("model", {}).pop(source, None)
        self.current_saved_id = None
        self.wizard.load_profile(data)
        self.wizard.go_to(1)
        self.show_view(WIZARD)

    def _choose_profile(self) -> None:
        path, _selected = QFileDialog.getOpenFileName(self, self.tr("Open requirement profile"), str(paths.examples_dir()),
                                                      self.tr("TOML profiles (*.toml)"))
        if path:
            self.load_example(path)

    def _choose_profile_target(self) -> None:
        req, _data = self.wizard.requirement()
        if req is None:
            self.show_view(WIZARD)
            return
        from gpudesk.ui.plan.export_menu import safe_file_stem

        folder = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation) or str(Path.home())
        path, _selected = QFileDialog.getSaveFileName(self, self.tr("Save requirement profile"),
                                                      str(Path(folder) / f"{safe_file_stem(req.name)}.toml"),
                                                      self.tr("TOML profiles (*.toml)"))
        if path:
            self.save_profile_to(path)

    def save_profile_to(self, path: str | Path) -> bool:
        """Write the wizard's answers as a TOML profile; problems are shown on their field. Returns success."""
        req, _data = self.wizard.requirement()
        if req is None:
            self.show_view(WIZARD)
            return False
        try:
            save_profile(req, path)
        except PlannerError as exc:
            self.ctx.notify(str(exc), "error")
            return False
        self.ctx.notify(self.tr("Profile written to {0}").format(str(path)), "info")
        return True

    def load_example(self, path: str | Path) -> None:
        """Fill the wizard from an example or user profile (relative config.json paths resolved beside it)."""
        path = Path(path)
        try:
            data = read_profile_text(path.read_text(encoding="utf-8"), "toml")
        except (OSError, PlannerError) as exc:
            self.ctx.notify(self.tr("Cannot load the profile {0}: {1}").format(path.name, str(exc)), "error")
            return
        config = data.get("model", {}).get("config_path") if isinstance(data.get("model"), dict) else None
        if config and not Path(config).is_absolute():
            data["model"]["config_path"] = str((path.parent / config).resolve())
        self.current_saved_id = None
        self.wizard.load_profile(data)
        self.show_view(WIZARD)
        self.status.setText(self.tr("Loaded “{0}” ({1}). Check the answers and press Plan.").format(
            data.get("name") or path.stem, path.name))

    def _example_chosen(self, index: int) -> None:
        path = self.examples.itemData(index)
        self.examples.setCurrentIndex(0)
        if path:
            self.load_example(path)

    # -- planning -----------------------------------------------------------------------------------------
    def start_plan(self, req: Requirement, data: dict[str, Any]) -> None:
        """Run the planner in the background; the results page opens when it is done."""
        if self.ctx.catalog is None:
            self.ctx.notify(self.tr("The GPU catalog is not available, so no plan can be made. See the message at start-up."), "error")
            return
        if self.task is not None:
            return
        self.current_profile = data
        prices = self.my_prices()
        self.busy.show()
        self.wizard.plan_button.setEnabled(False)
        self.status.setText(self.tr("Planning over the whole catalog…"))
        self.task = run_task(run_plan, req, self.ctx.catalog, prices, on_result=self._plan_done,
                             on_error=self._plan_failed, on_finished=self._plan_finished)

    def my_prices(self) -> dict[str, Any] | None:
        """The user's own GPU prices (Catalog tab) from the store; None without a store or when unreadable."""
        store = self._store()
        if store is None:
            return None
        from gpudesk.store import StoreError
        from gpudesk.store.prices import price_overrides

        try:
            return price_overrides(store)
        except (StoreError, sqlite3.Error) as exc:
            self.ctx.notify(self.tr("Your GPU prices could not be read, so catalog prices are used: {0}").format(exc), "warning")
            return None

    def use_my_price(self, gpu_id: str, price_usd: float) -> bool:
        """Keep ``price_usd`` as the user's price for ``gpu_id`` (same store as the Catalog tab) and plan again."""
        store = self._store()
        if store is None:
            self.ctx.notify(self.tr("Your price cannot be kept: the user database is not open."), "warning")
            return False
        if self.current_profile is None:
            return False
        from gpudesk.store import StoreError
        from gpudesk.store.prices import set_price

        try:
            from gpudesk.planner import requirement_from_dict

            req = requirement_from_dict(self.current_profile)
            set_price(store, gpu_id, price_usd, note=self.tr("from the Plan tab"))
        except (StoreError, sqlite3.Error, PlannerError) as exc:
            self.ctx.notify(self.tr("The price was not saved: {0}").format(exc), "error")
            return False
        if self.task is not None:
            self.ctx.notify(self.tr("Saved your price for {0}: {1} USD per GPU. A plan is already being made; "
                                    "press Plan again when it is done to use the price.").format(gpu_id, f"{price_usd:,.0f}"), "info")
            return True
        self.ctx.notify(self.tr("Saved your price for {0}: {1} USD per GPU. Planning again…").format(
            gpu_id, f"{price_usd:,.0f}"), "info")
        self.start_plan(req, self.current_profile)
        return True

    def _plan_done(self, result: dict[str, Any]) -> None:
        self.current_plan = result
        self.results.show_plan(result, str(result.get("name") or ""), self.current_profile)
        self._update_save_button()
        self.status.setText(self.tr("{0} configurations ranked, {1} rejected.").format(
            len(result.get("candidates") or []), len(result.get("rejected") or [])))
        top = (result.get("candidates") or [None])[0]
        if top:
            self.wizard.preview.set_card(top["gpu_id"], top["count"])
        self.show_view(RESULTS)
        self.plan_ready.emit(result)

    def _plan_failed(self, exc: BaseException) -> None:
        if isinstance(exc, (PlanInputError, SizingError)):
            self.wizard.show_problem(self.wizard.field_key(exc), self.wizard.describe_error(exc))
            self.show_view(WIZARD)
        message = str(exc) if isinstance(exc, (PlannerError, SizingError)) else self.tr("Planning failed: {0}").format(repr(exc))
        self.ctx.notify(message, "error")
        self.status.setText(message)

    def _plan_finished(self) -> None:
        self.task = None
        self.busy.hide()
        self.wizard.plan_button.setEnabled(True)

    # -- saved plans --------------------------------------------------------------------------------------
    def _update_save_button(self) -> None:
        if self.current_saved_id is not None:
            self.results.save_button.setText(self.tr("&Save changes"))
        else:
            self.results.save_button.setText(self.tr("&Save plan"))
        self.results.save_button.setEnabled(self._store() is not None and self.current_plan is not None)

    def save_current(self) -> int | None:
        """Save the shown plan (or update the saved plan it was edited from); returns its id."""
        store = self._store()
        if store is None or self.current_plan is None or self.current_profile is None:
            self.ctx.notify(self.tr("Nothing to save, or the user database is not available."), "warning")
            return None
        from gpudesk.store import StoreError
        from gpudesk.store.plans import save_plan, update_plan

        try:
            from gpudesk.planner import requirement_from_dict

            text = dumps_profile(requirement_from_dict(self.current_profile))
            name = str(self.current_profile.get("name") or self.tr("Untitled plan"))
            if self.current_saved_id is not None:
                update_plan(store, self.current_saved_id, name=name, profile_text=text, plan=self.current_plan, profile_format="toml")
                plan_id = self.current_saved_id
            else:
                plan_id = save_plan(store, name, text, self.current_plan, profile_format="toml")
        except (StoreError, PlannerError) as exc:
            self.ctx.notify(str(exc), "error")
            return None
        self.current_saved_id = plan_id
        self._update_save_button()
        self.plans.refresh(select_id=plan_id)
        self.ctx.notify(self.tr("Plan “{0}” saved.").format(name), "info")
        return plan_id

    def _profile_of(self, saved: SavedPlan) -> dict[str, Any] | None:
        """The saved requirement, named as the saved plan (renames and copies change only the row's name)."""
        try:
            profile = read_profile_text(saved.profile_text, saved.profile_format)
        except PlannerError as exc:
            self.ctx.notify(self.tr("{0}: {1}").format(saved.name, str(exc)), "error")
            return None
        profile["name"] = saved.name
        return profile

    def open_saved(self, saved: SavedPlan) -> None:
        """Show a saved plan's results as they were saved (not re-planned)."""
        self.current_plan = saved.plan
        self.current_profile = self._profile_of(saved)
        self.current_saved_id = saved.id
        self.results.show_plan(saved.plan, saved.name, self.current_profile)
        if self.current_profile is not None:
            self.wizard.load_profile(self.current_profile)
        self._update_save_button()
        self.show_view(RESULTS)

    def edit_saved(self, saved: SavedPlan) -> None:
        """Load a saved plan's answers into the wizard; planning then saving updates that plan."""
        profile = self._profile_of(saved)
        if profile is None:
            return
        self.current_saved_id = saved.id
        self.wizard.load_profile(profile)
        self.show_view(WIZARD)
        self.status.setText(self.tr("Editing “{0}”: change the answers, press Plan, then Save changes.").format(saved.name))

    def compare_saved(self, left: SavedPlan, right: SavedPlan) -> None:
        self.compare.compare(left, right)
        self.show_view(COMPARE)

    def shutdown(self) -> None:
        """Called on window close: stop the debounce timers (a planning task finishes on its own) and remove
        for good the plans deleted in this session (until now "Undo delete" could bring them back)."""
        if self._wizard is not None:
            self._wizard._timer.stop()  # noqa: SLF001 - the tab owns both views
        self.quick._timer.stop()  # noqa: SLF001
        if self.ctx.store is not None:  # not opened at all when the window closed during start-up
            from gpudesk.store import StoreError
            from gpudesk.store.plans import purge_deleted

            try:
                purge_deleted(self.ctx.store)
            except StoreError as exc:
                self.ctx.notify(str(exc), "error")
