"""The "How accurate is this?" view: headline, typical error for the job kind, one row per published case."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudesk.sizing.validation import load_accuracy
from gpudesk.ui.plan.accuracy_view import (
    AccuracyDialog,
    AccuracyLink,
    EstimatorAccuracyView,
)

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "sizing" / "measured_peaks.jsonl"
SCREENSHOT = Path(__file__).resolve().parents[3] / "docs" / "screenshots" / "plan-estimator-accuracy.png"


@pytest.fixture(scope="module")
def report():
    return load_accuracy(CASES)


def test_view_shows_headline_typical_error_and_rows(qtbot, report):
    view = EstimatorAccuracyView(method="lora")
    qtbot.addWidget(view)
    view.set_report(report)
    s = report.summary
    within = round(s["within_15_share"] * s["cases"])
    assert view.headline.text().startswith(f"This estimator is within 15 % on {within} of {s['cases']} published")
    assert view.typical.text().startswith("For lora jobs: within 15 % on ")
    assert view.table.rowCount() == len(report.results)
    first = report.results[0]
    assert view.table.item(0, 0).text() == first.case_id
    # Shown without "https://" (elided in the middle by the table); the whole URL is the tooltip's first line.
    assert first.source_url.endswith(view.table.item(0, 7).text())
    assert view.table.item(0, 7).toolTip().split("\n")[0] == first.source_url
    unscored = [i for i, r in enumerate(report.results) if not r.supported]
    assert unscored and view.table.item(unscored[0], 6).text().endswith("(not scored)")
    view.resize(1100, 600)
    view.show()
    qtbot.waitExposed(view)
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    assert view.grab().save(str(SCREENSHOT))


def test_unknown_job_kind_says_unvalidated(qtbot, report):
    view = EstimatorAccuracyView(method="diffusion")
    qtbot.addWidget(view)
    view.set_report(report)
    assert "unvalidated" in view.typical.text()


def test_link_opens_dialog_and_loads_in_background(qtbot):
    link = AccuracyLink(method="full")
    qtbot.addWidget(link)
    assert link.text() == "How accurate is this?"
    link.click()
    dialog = link.dialog
    assert isinstance(dialog, AccuracyDialog)
    qtbot.waitUntil(lambda: dialog.view.table.rowCount() > 0, timeout=10000)
    assert dialog.view.typical.text().startswith("For full jobs")
    dialog.close()


def test_error_is_shown_as_plain_text(qtbot):
    view = EstimatorAccuracyView()
    qtbot.addWidget(view)
    view.show_error("<b>cannot read</b>")
    assert "<b>cannot read</b>" in view.headline.text()
