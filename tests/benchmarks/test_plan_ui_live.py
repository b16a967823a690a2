"""Benchmark: the wizard's live memory update per keystroke (aim: under 16 ms, one frame at 60 Hz).

One round = one keystroke in the micro-batch field (parse + validation of the field), the preview update
the debounce timer would run (profile from all fields, one memory estimate, chart redraw) and the repaint.
"""

from __future__ import annotations

import sys

import pytest
from PySide6.QtWidgets import QApplication

from gpudesk import paths
from gpudesk.catalog import open_catalog
from gpudesk.ui.context import AppContext
from gpudesk.ui.plan.wizard import PlanWizard

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


@pytest.fixture
def wizard(qtbot):
    catalog = open_catalog()
    widget = PlanWizard(AppContext(catalog=catalog))
    qtbot.addWidget(widget)
    widget.resize(1280, 800)
    widget.show()
    widget.load_profile(tomllib.loads((paths.examples_dir() / "article-13b-finetune.toml").read_text(encoding="utf-8")))
    widget.preview.set_card("a100-80-sxm4", 8)
    widget.go_to(1)
    yield widget
    catalog.close()


def test_live_update_per_keystroke(benchmark, qtbot, wizard):
    editor = wizard.editors["model.micro_batch_size"]
    editor.widget.setFocus()
    digits = iter("123456789" * 10000)

    def keystroke() -> int:
        editor.widget.setText("")
        qtbot.keyClick(editor.widget, next(digits))
        wizard._timer.stop()  # run the debounced update now instead of 120 ms later
        wizard.update_preview()
        QApplication.processEvents()
        return wizard.preview.chart.update_count

    before = wizard.preview.chart.update_count
    count = benchmark(keystroke)
    assert count > before  # every round redrew the chart
    typed = int(editor.widget.text())
    assert wizard.profile()[0]["model"]["micro_batch_size"] == typed
    assert wizard.preview.last_estimate is not None


def test_live_update_per_keystroke_when_it_does_not_fit(benchmark, qtbot):
    """Worst case: Llama-3-70B full training on one T4, so every update also searches for a GPU count."""
    from gpudesk.ui.plan.quick import QuickMode

    catalog = open_catalog()
    quick = QuickMode(AppContext(catalog=catalog))
    qtbot.addWidget(quick)
    quick.resize(1280, 800)
    quick.show()
    quick.editors["model.model"].set_value("llama-3-70b")
    quick.preview.set_card("t4", 1)
    editor = quick.editors["model.seq_len_tokens"]
    lengths = iter([str(n) for n in (1024, 2048, 4096)] * 10000)

    def keystroke() -> float:
        editor.widget.setText("")
        qtbot.keyClicks(editor.widget, next(lengths))
        quick._timer.stop()  # noqa: SLF001 - run the debounced update now
        quick.update_preview()
        QApplication.processEvents()
        return quick.preview.last_fit.utilisation

    assert benchmark(keystroke) > 1.0  # far over the card: the hint search ran
    assert "Does not fit up to 64 of these cards" in quick.preview.chart.caption.text()
    catalog.close()
