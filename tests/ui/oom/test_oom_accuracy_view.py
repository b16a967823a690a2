"""The OOM doctor's "How accurate is this?" view: headline, per-family table and per-case table from the real
case sets, and the link in the results pane that opens it."""

from __future__ import annotations

import pytest

from gpudesk.oom.accuracy import load_accuracy
from gpudesk.ui.oom.accuracy_view import OomAccuracyDialog, OomAccuracyLink, OomAccuracyView
from gpudesk.ui.oom.results_view import ResultsView


@pytest.fixture(scope="module")
def accuracy():
    return load_accuracy()


def test_view_shows_headline_families_and_cases(qtbot, accuracy):
    view = OomAccuracyView()
    qtbot.addWidget(view)
    view.set_accuracy(accuracy)
    assert view.headline.text().startswith(f"The first cause is the one the public thread established in "
                                           f"{accuracy.right} of {accuracy.total} real messages")
    nc_right, nc_total = accuracy.not_capacity()
    assert f"in {nc_right} of {nc_total} such messages" in view.details.text()
    families = accuracy.families()
    assert view.families.rowCount() == len(families) and view.cases.rowCount() == accuracy.total
    first = families[0]
    assert [view.families.item(0, c).text() for c in range(4)] == [first.case_set, first.family, str(first.right),
                                                                    str(first.total)]
    wrong = next(i for i, o in enumerate(accuracy.outcomes) if not o.right)
    assert view.cases.item(wrong, 3).text() == accuracy.outcomes[wrong].top_cause
    assert view.cases.item(wrong, 4).toolTip() == accuracy.outcomes[wrong].case.url


def test_link_sits_in_the_results_pane_and_loads_in_background(qtbot):
    results = ResultsView()
    qtbot.addWidget(results)
    link = results.accuracy
    assert isinstance(link, OomAccuracyLink) and link.text() == "How accurate is this?"
    link.click()
    dialog = link.dialog
    assert isinstance(dialog, OomAccuracyDialog)
    qtbot.waitUntil(lambda: dialog.view.families.rowCount() > 0, timeout=20000)
    assert "platforms" in dialog.view.details.text()
    dialog.close()


def test_error_is_shown_as_plain_text(qtbot):
    view = OomAccuracyView()
    qtbot.addWidget(view)
    view.show_error("<b>cannot read</b>")
    assert view.headline.text() == "The accuracy check could not run: <b>cannot read</b>"
