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


def test_view_shows_headline_typical_error_and_rows(qtbot, report, speed_rows):
    view = EstimatorAccuracyView(method="lora")
    qtbot.addWidget(view)
    view.set_report(report)
    view.set_speed(speed_rows)
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
    # The speed table is computed over every published run (about 50 s on a busy 2-core machine): a generous bound.
    qtbot.waitUntil(lambda: dialog.view.speed_table.rowCount() > 0, timeout=300000)
    assert dialog.view.speed_headline.text().startswith("Speed model: training: within 20 %")
    dialog.close()


def test_error_is_shown_as_plain_text(qtbot):
    view = EstimatorAccuracyView()
    qtbot.addWidget(view)
    view.show_error("<b>cannot read</b>")
    assert "<b>cannot read</b>" in view.headline.text()


@pytest.fixture(scope="module")
def speed_rows():
    from gpudesk.sizing.speed_validation import load_speed_accuracy

    return load_speed_accuracy()


def test_speed_accuracy_by_class_with_misses(qtbot, speed_rows):
    view = EstimatorAccuracyView(method="full")
    qtbot.addWidget(view)
    view.set_speed(speed_rows)
    train = next(r for r in speed_rows if (r["set"], r["class"], r["value"]) == ("dev", "kind", "train"))
    within = round(train["within_20_share"] * train["answered"])
    headline = view.speed_headline.text()
    assert f"training: within 20 % on {within} of {train['rows']} published runs, {train['misses']} misses" in headline
    assert "serving: within 20 % on" in headline
    assert view.speed_table.rowCount() == len(speed_rows)
    # Every set is shown, each class with its misses; a class's misses are its runs > 50 % off or unanswered.
    sets = {view.speed_table.item(i, 0).text() for i in range(view.speed_table.rowCount())}
    assert sets == {"development", "later (collected after the model)", "fresh (collected after the model was frozen)",
                    "second fresh (collected after the model was frozen again)",
                    "third fresh (collected after the model was frozen a third time)",
                    "fourth fresh (collected after the model was frozen a fourth time)",
                    "fifth fresh (collected after the model was frozen a fifth time)",
                    "sixth fresh (collected after the model was frozen a sixth time)",
                    "seventh fresh (collected after the model was frozen a seventh time)",
                    "eighth fresh (collected after the model was frozen an eighth time)",
                    "ninth fresh (collected after the model was frozen a ninth time)",
                    "tenth fresh (collected after the model was frozen a tenth time)",
                    "eleventh fresh (collected after the model was frozen an eleventh time)",
                    "twelfth fresh (collected after the model was frozen a twelfth time)",
                    "thirteenth fresh (collected after the model was frozen a thirteenth time)",
                    "fourteenth fresh (collected after the model was frozen a fourteenth time)",
                    "fifteenth fresh (collected after the model was frozen a fifteenth time)",
                    "sixteenth fresh (collected after the model was frozen a sixteenth time)",
                    "seventeenth fresh (collected after the model was frozen a seventeenth time)",
                    "eighteenth fresh (collected after the model was frozen an eighteenth time)",
                    "nineteenth fresh (collected after the model was frozen a nineteenth time)",
                    "twentieth fresh (collected after the model was frozen a twentieth time)",
                    "twenty-first fresh (collected after the model was frozen a twenty-first time)",
                    "twenty-second fresh (collected after the model was frozen a twenty-second time)",
                    "twenty-third fresh (collected after the model was frozen a twenty-third time)",
                    "twenty-fourth fresh (collected after the model was frozen a twenty-fourth time)",
                    "twenty-fifth fresh (collected after the model was frozen a twenty-fifth time)",
                    "twenty-sixth fresh (collected after the model was frozen a twenty-sixth time)",
                    "twenty-seventh fresh (collected after the model was frozen a twenty-seventh time)",
                    "twenty-eighth fresh (collected after the model was frozen a twenty-eighth time)",
                    "twenty-ninth fresh (collected after the model was frozen a twenty-ninth time)",
                    "thirtieth fresh (collected after the model was frozen a thirtieth time)",
                    "thirty-first fresh (collected after the model was frozen a thirty-first time)",
                    "thirty-second fresh (collected after the model was frozen a thirty-second time)",
                    "thirty-third fresh (collected after the model was frozen a thirty-third time)",
                    "thirty-fourth fresh (collected after the model was frozen a thirty-fourth time)",
                    "thirty-fifth fresh (collected after the model was frozen a thirty-fifth time)",
                    "thirty-sixth fresh (collected after the model was frozen a thirty-sixth time)",
                    "thirty-seventh fresh (collected after the model was frozen a thirty-seventh time)",
                    "thirty-eighth fresh (collected after the model was frozen a thirty-eighth time)",
                    "thirty-ninth fresh (collected after the model was frozen a thirty-ninth time)",
                    "fortieth fresh (collected after the model was frozen a fortieth time)",
                    "forty-first fresh (collected after the model was frozen a forty-first time)",
                    "forty-second fresh (collected after the model was frozen a forty-second time)",
                    "forty-third fresh (collected after the model was frozen a forty-third time)",
                    "forty-fourth fresh (collected after the model was frozen a forty-fourth time)",
                    "forty-fifth fresh (collected after the model was frozen a forty-fifth time)",
                    "forty-sixth fresh (collected after the model was frozen a forty-sixth time)",
                    "forty-seventh fresh (collected after the model was frozen a forty-seventh time)",
                    "forty-eighth fresh (collected after the model was frozen a forty-eighth time)",
                    "forty-ninth fresh (collected after the model was frozen a forty-ninth time)",
                    "fiftieth fresh (collected after the model was frozen a fiftieth time)",
                    "fifty-first fresh (collected after the model was frozen a fifty-first time)",
                    "fifty-second fresh (collected after the model was frozen a fifty-second time)",
                    "fifty-third fresh (collected after the model was frozen a fifty-third time)",
                    "fifty-fourth fresh (collected after the model was frozen a fifty-fourth time)",
                    "fifty-fifth fresh (collected after the model was frozen a fifty-fifth time)",
                    "fifty-sixth fresh (collected after the model was frozen a fifty-sixth time)",
                    "fifty-seventh fresh (collected after the model was frozen a fifty-seventh time)",
                    "fifty-eighth fresh (collected after the model was frozen a fifty-eighth time)",
                    "fifty-ninth fresh (collected after the model was frozen a fifty-ninth time)",
                    "sixtieth fresh (collected after the model was frozen a sixtieth time)",
                    "sixty-first fresh (collected after the model was frozen a sixty-first time)",
                    "sixty-second fresh (collected after the model was frozen a sixty-second time)",
                    "sixty-third fresh (collected after the model was frozen a sixty-third time)",
                    "sixty-fourth fresh (collected after the model was frozen a sixty-fourth time)",
                    "sixty-fifth fresh (collected after the model was frozen a sixty-fifth time)",
                    "sixty-sixth fresh (collected after the model was frozen a sixty-sixth time)",
                    "sixty-seventh fresh (collected after the model was frozen a sixty-seventh time)",
                    "sixty-eighth fresh (collected after the model was frozen a sixty-eighth time)",
                    "sixty-ninth fresh (collected after the model was frozen a sixty-ninth time)",
                    "seventieth fresh (collected after the model was frozen a seventieth time)",
                    "seventy-first fresh (collected after the model was frozen a seventy-first time)",
                    "seventy-second fresh (collected after the model was frozen a seventy-second time)",
                    "seventy-third fresh (collected after the model was frozen a seventy-third time)",
                    "seventy-fourth fresh (collected after the model was frozen a seventy-fourth time)",
                    "seventy-fifth fresh (collected after the model was frozen a seventy-fifth time)",
                    "seventy-sixth fresh (collected after the model was frozen a seventy-sixth time)",
                    "seventy-seventh fresh (collected after the model was frozen a seventy-seventh time)",
                    "seventy-eighth fresh (collected after the model was frozen a seventy-eighth time)",
                    "seventy-ninth fresh (collected after the model was frozen a seventy-ninth time)",
                    "eightieth fresh (collected after the model was frozen an eightieth time)",
                    "eighty-first fresh (collected after the model was frozen an eighty-first time)",
                    "eighty-second fresh (collected after the model was frozen an eighty-second time)",
                    "eighty-third fresh (collected after the model was frozen an eighty-third time)",
                    "eighty-fourth fresh (collected after the model was frozen an eighty-fourth time)",
                    "eighty-fifth fresh (collected after the model was frozen an eighty-fifth time)",
                    "eighty-sixth fresh (collected after the model was frozen an eighty-sixth time)",
                    "eighty-seventh fresh (collected after the model was frozen an eighty-seventh time)",
                    "eighty-eighth fresh (collected after the model was frozen an eighty-eighth time)",
                    "eighty-ninth fresh (collected after the model was frozen an eighty-ninth time)",
                    "ninetieth fresh (collected after the model was frozen a ninetieth time)",
                    "ninety-first fresh (collected after the model was frozen a ninety-first time)",
                    "ninety-second fresh (collected after the model was frozen a ninety-second time)",
                    "ninety-third fresh (collected after the model was frozen a ninety-third time)",
                    "ninety-fourth fresh (collected after the model was frozen a ninety-fourth time)",
                    "ninety-fifth fresh (collected after the model was frozen a ninety-fifth time)",
                    "ninety-sixth fresh (collected after the model was frozen a ninety-sixth time)",
                    "ninety-seventh fresh (collected after the model was frozen a ninety-seventh time)",
                    "ninety-eighth fresh (collected after the model was frozen a ninety-eighth time)",
                    "ninety-ninth fresh (collected after the model was frozen a ninety-ninth time)",
                    "hundredth fresh (collected after the model was frozen a hundredth time)",
                    "hundred-and-first fresh (collected after the model was frozen a hundred-and-first time)",
                    "hundred-and-second fresh (collected after the model was frozen a hundred-and-second time)",
                    "hundred-and-third fresh (collected after the model was frozen a hundred-and-third time)",
                    "hundred-and-fourth fresh (collected after the model was frozen a hundred-and-fourth time)",
                    "hundred-and-fifth fresh (collected after the model was frozen a hundred-and-fifth time)",
                    "hundred-and-sixth fresh (collected after the model was frozen a hundred-and-sixth time)",
                    "hundred-and-seventh fresh (collected after the model was frozen a hundred-and-seventh time)",
                    "hundred-and-eighth fresh (collected after the model was frozen a hundred-and-eighth time)",
                    "hundred-and-ninth fresh (collected after the model was frozen a hundred-and-ninth time)",
                    "hundred-and-tenth fresh (collected after the model was frozen a hundred-and-tenth time)",
                    "hundred-and-eleventh fresh (collected after the model was frozen a hundred-and-eleventh time)",
                    "hundred-and-twelfth fresh (collected after the model was frozen a hundred-and-twelfth time)",
                    "hundred-and-thirteenth fresh (collected after the model was frozen a hundred-and-thirteenth time)",
                    "hundred-and-fourteenth fresh (collected after the model was frozen a hundred-and-fourteenth time)",
                    "hundred-and-fifteenth fresh (collected after the model was frozen a hundred-and-fifteenth time)",
                    "hundred-and-sixteenth fresh (collected after the model was frozen a hundred-and-sixteenth time)",
                    "hundred-and-seventeenth fresh (collected after the model was frozen a hundred-and-seventeenth time)",
                    "hundred-and-eighteenth fresh (collected after the model was frozen a hundred-and-eighteenth time)",
                    "hundred-and-nineteenth fresh (collected after the model was frozen a hundred-and-nineteenth time)",
                    "hundred-and-twentieth fresh (collected after the model was frozen a hundred-and-twentieth time)",
                    "hundred-and-twenty-first fresh (collected after the model was frozen a hundred-and-twenty-first time)",
                    "hundred-and-twenty-second fresh (collected after the model was frozen a hundred-and-twenty-second time)",
                    "hundred-and-twenty-third fresh (collected after the model was frozen a hundred-and-twenty-third time)",
                    "hundred-and-twenty-fourth fresh (collected after the model was frozen a hundred-and-twenty-fourth time)"}
    moe = next(i for i, r in enumerate(speed_rows) if (r["set"], r["class"], r["value"]) == ("dev", "moe", "ep>1"))
    r = speed_rows[moe]
    assert view.speed_table.item(moe, 1).text() == "moe: ep>1"
    assert view.speed_table.item(moe, 7).text() == str(r["misses"]) and r["misses"] > 0
    assert r["misses"] == r["rows"] - round(r["within_50_share"] * r["answered"])


def test_speed_error_is_shown_as_plain_text(qtbot):
    view = EstimatorAccuracyView()
    qtbot.addWidget(view)
    view.show_speed_error("<b>no rows</b>")
    assert "<b>no rows</b>" in view.speed_headline.text()
