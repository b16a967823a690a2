"""The wizard's live preview with expert parallelism and partial recompute (qa51 D8, D2, D3): the preview runs on
the smallest GPU count the expert-parallel layout allows and names the expert split; a recomputed-layer count
outside the model's layers pauses it with the model's layer count."""

from __future__ import annotations

import pytest

from gpudesk.ui.context import AppContext
from gpudesk.ui.plan.wizard import PlanWizard

from helpers.plan_tab import catalog  # noqa: F401 - fixture

MOE = {"model": {"model": "qwen3-30b-a3b", "mode": "train", "expert_parallel": 8, "sharding": "zero1"},
       "workload": {"tokens_to_train": 2e9, "deadline_s": 604800}, "operations": {"max_gpus": 16}}


@pytest.fixture
def wizard(qtbot, catalog):  # noqa: F811 - the fixture
    widget = PlanWizard(AppContext(catalog=catalog, store=None, notify=lambda text, level="info": None))
    qtbot.addWidget(widget)
    widget.resize(1280, 800)
    widget.show()
    return widget


def test_preview_moves_to_the_expert_parallel_group_and_names_the_split(wizard):
    wizard.load_profile(MOE)
    wizard.preview.set_card("h100-sxm5", 1)
    preview = wizard.preview
    assert preview.last_estimate is not None, preview.message.text()
    assert preview.last_estimate.gpus == 8 and int(preview.count.currentData()) == 8
    assert "do not divide" not in preview.message.text()
    caption = preview.chart.caption.text()
    assert "8 × " in caption and "Routed experts: 16 of 128 per GPU (expert parallel 8)" in caption


def test_dense_model_preview_keeps_one_gpu(wizard):
    wizard.load_profile({"model": {"model": "llama-3-8b", "mode": "train"}})
    wizard.preview.set_card("h100-sxm5", 1)
    assert wizard.preview.last_estimate is not None and wizard.preview.last_estimate.gpus == 1
    assert wizard.preview.last_estimate.experts is None


@pytest.mark.parametrize("layers", [49, 0, -1])
def test_recompute_layers_outside_the_model_pause_the_preview_naming_its_layers(wizard, layers):
    wizard.load_profile({"model": {"model": "qwen3-30b-a3b", "mode": "train", "recompute": "full",
                                   "recompute_layers": layers}})
    wizard.preview.set_card("h100-sxm5", 8)
    assert wizard.preview.last_estimate is None
    text = wizard.preview.message.text()
    assert "Memory preview paused" in text and "has 48 layers" in text and "give 1 to 48" in text


def test_plan_tab_plans_the_expert_parallel_moe(qtbot, catalog, tmp_path):  # noqa: F811 - the fixture
    from PySide6.QtCore import Qt

    from gpudesk.ui.plan.tab import PlanTab

    path = tmp_path / "moe.toml"
    path.write_text('[model]\nmodel = "qwen3-30b-a3b"\nmode = "train"\nexpert_parallel = 8\n[workload]\n'
                    'tokens_to_train = 2e9\ndeadline_s = 604800\n[operations]\nmax_gpus = 16\n', encoding="utf-8")
    tab = PlanTab(AppContext(catalog=catalog, store=None, notify=lambda text, level="info": None))
    qtbot.addWidget(tab)
    tab.resize(1280, 800)
    tab.show()
    tab.load_example(path)
    with qtbot.waitSignal(tab.planReady, timeout=60000) as signal:
        qtbot.mouseClick(tab.pages.wizard.plan_button, Qt.MouseButton.LeftButton)
    doc = signal.args[0]
    assert doc.candidates and {c.count for c in doc.candidates} <= {8, 16}
    assert not tab.pages.wizard.problem.text()
