"""OOM doctor tab figures: time from a pasted message to the ranked causes and bars on screen.

Measure: ``QT_QPA_PLATFORM=offscreen .venv/bin/python -m pytest tests/benchmarks/test_oom_ui_render.py
--benchmark-enable -q``. The issue's aim for the diagnosis itself is under 50 ms; the UI adds the cards.
"""

from __future__ import annotations

import json
from pathlib import Path

from gpudesk.oom import diagnose_text
from gpudesk.ui.oom.results_view import ResultsView

CASES = {
    c["case"]: c
    for c in (
        json.loads(line)
        for line in (Path(__file__).resolve().parent.parent / "fixtures/oom_ui/cases.jsonl").read_text().splitlines()
        if line
    )
}


def test_show_diagnosis_render(benchmark, qtbot):
    view = ResultsView()
    qtbot.addWidget(view)
    view.resize(760, 700)
    view.show()
    diagnosis = diagnose_text(CASES[6]["message"])  # 15 "Process P has" lines, 4 causes

    def render():
        view.show_diagnosis(diagnosis, "pasted text")
        view.grab()  # lay out and paint once
        return len(view.cards)

    assert benchmark(render) == len(diagnosis.causes)


def test_paste_to_causes(benchmark, qtbot):
    view = ResultsView()
    qtbot.addWidget(view)
    view.resize(760, 700)
    view.show()
    message = CASES[10]["message"]

    def paste_and_show():
        view.show_diagnosis(diagnose_text(message), "pasted text")
        view.grab()
        return view.cause_ids()[0]

    assert benchmark(paste_and_show) == "fragmentation"
