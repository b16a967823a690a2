"""The Plan tab's stack of pages, each built the first time it is used.

The tab opens on quick mode, which is all that is built with it; the wizard, results, saved plans and
comparison pages (and their imports: pyqtgraph charts, the store modules) are built on first use. Until then an
empty page holds their place so that the stack's indexes stay QUICK .. COMPARE. ``on_built(index, page)`` lets
the tab connect a page's signals once it exists.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QStackedWidget, QWidget

from gpudesk.ui.plan.quick import QuickMode
from gpudesk.ui.startup import finish_startup

if TYPE_CHECKING:
    from gpudesk.ui.plan.compare import CompareView
    from gpudesk.ui.plan.plan_view import PlanView
    from gpudesk.ui.plan.plans_list import PlansList
    from gpudesk.ui.plan.wizard import PlanWizard

QUICK, WIZARD, RESULTS, PLANS, COMPARE = range(5)


class PlanPages(QStackedWidget):
    """The five pages; ``quick`` exists at once, the others are built by their property on first use."""

    def __init__(self, ctx: Any, on_built: Callable[[int, QWidget], None], parent: QWidget | None = None):
        super().__init__(parent)
        self.ctx = ctx
        self._on_built = on_built
        self.quick = QuickMode(ctx, self)
        self._wizard: PlanWizard | None = None
        self._results: PlanView | None = None
        self._plans: PlansList | None = None
        self._compare: CompareView | None = None
        self.addWidget(self.quick)
        for _index in range(WIZARD, COMPARE + 1):
            self.addWidget(QWidget(self))

    # Tab order: a page built later is appended to the window's focus chain, after the widgets above the
    # stack, which is where it sits; only one page is visible at a time, so the visible order is unchanged.
    def _place(self, index: int, view: QWidget) -> None:
        stand_in = self.widget(index)
        current = self.currentIndex()
        self.insertWidget(index, view)
        if stand_in is not None:
            self.removeWidget(stand_in)
            stand_in.deleteLater()
        self.setCurrentIndex(current)
        self._on_built(index, view)

    @property
    def wizard(self) -> PlanWizard:
        """The five-question wizard page."""
        if self._wizard is None:
            from gpudesk.ui.plan.wizard import PlanWizard  # built on first use (start-up speed)

            self._wizard = PlanWizard(self.ctx, self)
            self._place(WIZARD, self._wizard)
        return self._wizard

    @property
    def results(self) -> PlanView:
        """The results page of the shown plan."""
        if self._results is None:
            from gpudesk.ui.plan.plan_view import PlanView  # built on first use (start-up speed: pyqtgraph)

            self._results = PlanView(self.ctx, self)
            self._place(RESULTS, self._results)
        return self._results

    @property
    def plans(self) -> PlansList:
        """The saved-plans page (reads the user store, so the start-up's store step runs first)."""
        if self._plans is None:
            finish_startup("store")
            from gpudesk.ui.plan.plans_list import PlansList  # built on first use (start-up speed: the store)

            self._plans = PlansList(self.ctx, self)
            self._place(PLANS, self._plans)
        return self._plans

    @property
    def compare(self) -> CompareView:
        """The side-by-side comparison of two saved plans."""
        if self._compare is None:
            from gpudesk.ui.plan.compare import CompareView  # built on first use (start-up speed)

            self._compare = CompareView(self)
            self._place(COMPARE, self._compare)
        return self._compare

    def built(self, index: int) -> QWidget | None:
        """The page at ``index`` if it was built (quick mode always is), else None."""
        return (self.quick, self._wizard, self._results, self._plans, self._compare)[index]

    def page(self, index: int) -> QWidget:
        """The page at ``index``, built now if it was not yet."""
        name = ("quick", "wizard", "results", "plans", "compare")[index]
        page: QWidget = getattr(self, name)
        return page
