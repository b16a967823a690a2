"""qa16: counts in the Catalog's chart caption use Qt's plural tr (``self.tr(text, "", n)``): one GPU is not
"1 GPUs", and the zh_CN catalog fills in the count."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from gpudesk.catalog import open_catalog
from gpudesk.ui.app import install_translators
from gpudesk.ui.catalog.chart_view import ChartView


@pytest.fixture(scope="module")
def one_gpu():
    cat = open_catalog()
    gpu = cat.gpu("t4")
    yield gpu
    cat.close()


def _caption(qtbot, gpu) -> str:
    view = ChartView(lambda g, key: 1.0)
    qtbot.addWidget(view)
    view.set_gpus([gpu])
    view.redraw()
    return view._caption.text()


def test_one_plotted_gpu_is_not_plural(qtbot, one_gpu):
    text = _caption(qtbot, one_gpu)
    assert text.startswith("1 GPU(s) plotted"), text


def test_zh_cn_caption_counts_the_gpu(qtbot, one_gpu):
    app = QApplication.instance()
    translators = install_translators(app, "zh_CN")
    try:
        text = _caption(qtbot, one_gpu)
    finally:
        for tr in translators:
            app.removeTranslator(tr)
    assert text.startswith("已绘制 1 款 GPU"), text
