"""The "Will it fit?" page: the same answer as ``gpudesk estimate serve``, bad settings said in the page, the
command copied, and the two ways in (Plan bar, Catalog GPU details)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from gpudesk.catalog import open_catalog
from gpudesk.sizing.engines.device import catalog_device
from gpudesk.sizing.engines.fit import engine_fit
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.ui.serve_fit import ServeFitPage, open_serve_fit_dialog

GIB = 1024**3


def _page(qtbot, gpu_id: str = "rtx3090") -> ServeFitPage:
    page = ServeFitPage(gpu_id=gpu_id)
    qtbot.addWidget(page)
    page.resize(720, 640)
    return page


def test_page_shows_the_core_answer_and_the_command(qtbot) -> None:
    page = _page(qtbot)
    page.set_engine("vllm")
    page.set_model("llama-3.1-8b")
    page.version.setText("0.6.4")
    page.weight_format.setCurrentText("bf16")
    page.settings.setText("gpu_memory_utilization=0.9 max_model_len=20000")
    qtbot.mouseClick(page.check_button, Qt.MouseButton.LeftButton)
    catalog = open_catalog()
    expected = engine_fit("vllm", spec_from_catalog(catalog.model("llama-3.1-8b")), catalog_device(catalog.gpu("rtx3090")),
                          ["gpu_memory_utilization=0.9", "max_model_len=20000"], version="0.6.4",
                          weight_format="bf16", gpus=1, tensor_parallel=1)
    assert page.result is not None and page.result.fits
    assert page.table.item(4, 1).text() == f"{expected.per_gpu.kv_cache_bytes / GIB:.2f}"
    assert page.table.item(0, 1).text() == f"{expected.per_gpu.weights_bytes / GIB:.2f}"
    assert f"{expected.kv_cache_tokens:,}" in page.capacity.text()
    assert page.command.text() == expected.command
    assert "--max-model-len 20000" in page.command.text()
    assert page.verdict.text().startswith("Fits: vLLM 0.6.4 (V0 engine) on 1 x")
    assert page.table.item(1, 0).text() == "activation peak (profile run)"
    qtbot.mouseClick(page.copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == expected.command


def test_a_launch_that_does_not_fit_says_why(qtbot) -> None:
    page = _page(qtbot, "rtx4090")
    page.set_engine("vllm")
    page.set_model("llama-3.1-70b")
    page.weight_format.setCurrentText("bf16")
    page.check()
    assert page.result is not None and not page.result.fits
    assert page.verdict.text().startswith("Does not fit")
    assert "nothing is left for the KV cache" in page.verdict.text()
    assert page.table.item(4, 1).text() == "0.00"


def test_unknown_setting_is_refused_in_the_page_with_the_engine_list(qtbot) -> None:
    page = _page(qtbot)
    page.set_engine("sglang")
    page.settings.setText("gpu_memory_utilization=0.9")
    page.check()
    assert page.result is None
    assert page.verdict.text().startswith("Cannot size this launch")
    assert "mem_fraction_static" in page.verdict.text()
    assert not page.copy_button.isEnabled() and page.command.text() == ""
    page.settings.setText("n_ctx='8192")
    page.check()
    assert "cannot be read" in page.verdict.text()


def test_ggml_engines_show_layers_and_quantised_weights(qtbot) -> None:
    page = _page(qtbot, "rtx4080")
    page.set_engine("llamacpp")
    page.set_model("llama-3.1-8b")
    page.weight_format.setCurrentText("q4_k_m")
    page.settings.setText("n_ctx=8192")
    page.check()
    assert page.result is not None and page.result.fits
    assert page.command.text().startswith("llama-server -m ") and "-c 8192" in page.command.text()
    assert "8,192 tokens" in page.capacity.text()


def test_plan_bar_and_catalog_details_open_the_page(qtbot) -> None:
    from gpudesk.ui.catalog.detail_pane import GpuDetailPane
    from gpudesk.ui.plan.bar import PlanBar

    bar = PlanBar()
    qtbot.addWidget(bar)
    qtbot.mouseClick(bar.serve_fit_button, Qt.MouseButton.LeftButton)
    dialog = bar.serve_fit_dialog
    assert dialog.isVisible() and isinstance(dialog.page, ServeFitPage)
    dialog.close()
    pane = GpuDetailPane()
    qtbot.addWidget(pane)
    assert not pane.serve_fit_button.isVisibleTo(pane)
    pane.show_gpu(open_catalog().gpu("h100-sxm5"))
    assert pane.serve_fit_button.isVisibleTo(pane)
    qtbot.mouseClick(pane.serve_fit_button, Qt.MouseButton.LeftButton)
    assert pane.serve_fit_dialog.page.gpu.currentData() == "h100-sxm5"
    pane.serve_fit_dialog.close()
    QApplication.processEvents()


def test_open_dialog_chooses_the_gpu(qtbot) -> None:
    dialog = open_serve_fit_dialog(None, "l40s")
    qtbot.addWidget(dialog)
    assert dialog.page.gpu.currentData() == "l40s"


def test_sglang_rows_are_in_sglang_terms(qtbot) -> None:
    page = _page(qtbot, "rtx4090")
    page.set_engine("sglang")
    page.set_model("llama-3.1-8b")
    page.version.setText("0.4.3")
    page.weight_format.setCurrentText("bf16")
    page.check()
    assert page.result is not None and page.result.fits
    labels = [page.table.item(i, 0).text() for i in range(page.table.rowCount())]
    assert "outside mem_fraction_static (activations, CUDA graphs)" in labels
    assert not any("activation peak" in label or "non-torch" in label for label in labels)
    assert page.verdict.text().startswith("Fits: SGLang 0.4.3 on 1 x")


def test_ecc_choice_changes_the_cards_total_like_the_cli(qtbot) -> None:
    """An L40S ships with ECC on (vllm-project/vllm#15815 logs 44.42 GiB); "Off" gives 1/16 back."""
    page = _page(qtbot, gpu_id="l40s")
    page.set_engine("vllm")
    page.set_model("llama-3.1-8b")
    page.settings.setText("max_model_len=8192")
    kv = {}
    for index in range(page.ecc.count()):
        page.ecc.setCurrentIndex(index)
        qtbot.mouseClick(page.check_button, Qt.MouseButton.LeftButton)
        assert page.result is not None
        kv[page.ecc.currentData()] = (page.result.gpu_total_bytes, page.result.per_gpu.kv_cache_bytes)
    l40s = open_catalog().gpu("l40s")
    assert kv[None] == kv[True] and kv[None][0] == catalog_device(l40s).total_bytes
    assert kv[False][0] > kv[True][0] and kv[False][1] > kv[True][1]


def test_the_gpu_count_field_is_named_where_the_window_sets_the_degree(qtbot) -> None:
    # Qwen3-Coder 480B has 96 attention heads: 5 GPUs is no tensor-parallel degree vLLM starts with. The window's
    # own control is the GPU count field, so the refusal names it rather than vLLM's tensor_parallel_size.
    page = _page(qtbot, "h200-sxm")
    page.set_engine("vllm")
    page.set_model("qwen3-coder-480b-a35b")
    page.gpus.setValue(5)
    page.check()
    assert page.verdict.text().startswith("Cannot size this launch: GPU count: the model's 96 attention heads")
    assert "tensor_parallel_size" not in page.verdict.text()
    # typed by the user in the settings field, the setting keeps its own name
    page.gpus.setValue(8)
    page.settings.setText("tensor_parallel_size=5")
    page.check()
    assert "tensor_parallel_size" in page.verdict.text() and "GPU count" not in page.verdict.text()


def test_a_change_of_the_degree_alone_is_offered_as_the_gpu_count(qtbot) -> None:
    # 2 x H200 cannot hold the bf16 480B model: vLLM's change is --tensor-parallel-size 16, the window's 16 GPUs.
    page = _page(qtbot, "h200-sxm")
    page.set_engine("vllm")
    page.set_model("qwen3-coder-480b-a35b")
    page.gpus.setValue(2)
    page.check()
    assert page.result is not None and not page.result.fits
    assert "• more GPUs (GPU count 16): vllm serve" in page.changes.text()
    assert "--tensor-parallel-size 16" in page.changes.text()  # the command keeps the engine's flag
    # the engine's reason starts its own sentence after the verdict
    assert "GiB each). Weights, activation peak" in page.verdict.text()


def test_sentence_start_leaves_names_and_settings_alone() -> None:
    from gpudesk.ui.serve_fit.page import sentence_start

    assert sentence_start("the model's max seq len") == "The model's max seq len"
    assert sentence_start("gpu_memory_utilization 0.9 leaves") == "gpu_memory_utilization 0.9 leaves"
    assert sentence_start("vLLM refuses") == "vLLM refuses"
    assert sentence_start("weights, activation peak") == "Weights, activation peak"


def test_fp8_weight_format_shows_the_cli_command_and_the_fp8_change_names_the_field(qtbot) -> None:
    page = _page(qtbot, "h100-sxm5")
    page.set_engine("vllm")
    page.set_model("llama-3.1-8b")
    page.weight_format.setCurrentText("fp8")
    page.check()
    catalog = open_catalog()
    expected = engine_fit("vllm", spec_from_catalog(catalog.model("llama-3.1-8b")),
                          catalog_device(catalog.gpu("h100-sxm5")), [], weight_format="fp8", gpus=1, tensor_parallel=1)
    assert page.command.text() == expected.command and "--quantization fp8" in expected.command
    page = _page(qtbot, "l40s")
    page.set_engine("vllm")
    page.set_model("qwen3-32b")
    page.weight_format.setCurrentText("checkpoint")
    page.check()
    change = next(c for c in page.result.changes if c.weight_format == "fp8")
    assert f"{change.text} (for the weights, Weight format fp8 does the same)" in page.changes.text()
    assert "--weight-format" not in page.changes.text()
