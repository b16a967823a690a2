"""Catalog figures for issue 2: load, filter and full-text search over the whole shipped catalog (aim < 10 ms).

Measure: ``.venv/bin/python -m pytest tests/benchmarks/test_catalog_speed.py --benchmark-enable -q``.
"""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog


def _load():
    catalog = open_catalog()
    count = len(catalog.gpus())
    catalog.close()
    return count


def test_catalog_load(benchmark):
    assert benchmark(_load) == 43


@pytest.fixture(scope="module")
def catalog():
    cat = open_catalog()
    yield cat
    cat.close()


def test_catalog_full_text_search(benchmark, catalog):
    result = benchmark(catalog.search_gpus, "hopper mig")
    assert {g.id for g in result} == {"h100-sxm5", "h100-nvl", "h200-sxm"}


def test_catalog_find_gpu(benchmark, catalog):
    assert benchmark(catalog.find_gpu, "a100 80gb sxm").id == "a100-80-sxm4"


def test_catalog_tab_filter(benchmark, qapp, catalog):
    from gpudesk.ui.catalog.filter_proxy import GpuFilterProxy
    from gpudesk.ui.catalog.table_model import GpuTableModel

    model = GpuTableModel(catalog.gpus())
    proxy = GpuFilterProxy(lambda text: [g.id for g in catalog.search_gpus(text)])
    proxy.setSourceModel(model)

    def filter_once() -> int:
        proxy.set_filters(vendor="NVIDIA", fp8=True, memory_min_gb=40.0)
        proxy.set_text("sxm")
        shown = proxy.rowCount()
        proxy.set_text("")
        proxy.set_filters()
        return shown

    # H100 SXM5, H200, B200, B300, GB200, GB300, H800, H20, and the H200 NVL whose notes compare it with the SXM
    assert benchmark(filter_once) == 9
