"""New plan (issue 29): a blank plan with stated defaults; an example's answers (image-text modality, a 12 TB
dataset, ECC required, deepspeed==0.8.3 pins) never leak into the next case, by New plan or by quick mode."""

from __future__ import annotations

from gpudesk.planner.requirement import Requirement
from gpudesk.ui.plan.tab import WIZARD

from helpers.plan_tab import ARTICLE, Notes, catalog, ctx, tab  # noqa: F401 - fixtures


def _leaks(answers: dict) -> list[str]:
    data, software = answers.get("data", {}), answers.get("software", {})
    out = []
    if data.get("modality") not in (None, "text"):
        out.append("modality")
    if data.get("dataset_bytes"):
        out.append("dataset_bytes")
    if software.get("require_ecc"):
        out.append("require_ecc")
    if software.get("libraries"):
        out.append("libraries")
    return out


def test_new_plan_starts_blank_with_stated_defaults(qtbot, tab) -> None:  # type: ignore[no-untyped-def]
    tab.load_example(ARTICLE)
    answers, _problems = tab.pages.wizard.profile()
    assert set(_leaks(answers)) == {"modality", "dataset_bytes", "require_ecc", "libraries"}  # the example's answers
    tab.bar.new_button.click()
    assert tab.pages.currentIndex() == WIZARD
    answers, _problems = tab.pages.wizard.profile()
    assert _leaks(answers) == []
    defaults = Requirement()
    assert answers["model"]["mode"] == defaults.model.mode and answers["operations"]["max_gpus"] == defaults.operations.max_gpus
    assert "New plan. Defaults: mode train, precision bf16, text data" in tab.status.text()
    tab.pages.wizard.update_preview()
    assert tab.pages.wizard.preview.chart.specs() == []  # no bar of the previous case stays on the live chart


def test_quick_mode_after_an_example_keeps_nothing_of_it(qtbot, tab) -> None:  # type: ignore[no-untyped-def]
    tab.load_example(ARTICLE)
    tab.open_wizard_with({"model": {"model": "llama-2-13b", "mode": "lora", "seq_len_tokens": 4096}})
    answers, _problems = tab.pages.wizard.profile()
    assert answers["model"]["model"] == "llama-2-13b" and answers["model"]["mode"] == "lora"
    assert _leaks(answers) == []
