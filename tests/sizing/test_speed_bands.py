"""Expected error bands of training estimates: the committed table is what the harness computes now, and an
option gets the band of its most specific class with enough published runs."""

import pytest

from gpudesk.sizing.speed_bands import (
    MIN_ROWS,
    TRAIN_BANDS,
    band_table,
    speed_ratio,
    train_band,
    train_band_class,
    train_rows,
)


@pytest.fixture(scope="module")
def rows():
    return train_rows()


def test_committed_bands_are_the_harness_bands(rows):
    # Regenerate with print_table() after a change of the speed model.
    assert band_table(rows) == TRAIN_BANDS


def test_band_brackets_its_rows(rows):
    for klass, band in TRAIN_BANDS.items():
        cls, value = klass.split(":", 1)
        ratios = sorted(speed_ratio(r.metric, r.ratio) for r in rows
                        if r.set_name == "dev" and r.ratio and r.classes.get(cls) == value)
        assert len(ratios) == band.rows
        inside = [x for x in ratios if band.ratio_p10 - 0.005 <= x <= band.ratio_p90 + 0.005]
        assert len(inside) >= len(ratios) - 2 * (len(ratios) // 10 + 1)  # all but the tails below p10, above p90
        assert band.ratio_p10 <= band.ratio_p90


def test_class_order():
    assert train_band_class("h100-sxm5", pp=4, ep=8) == "moe:ep>1"
    assert train_band_class("a100-80-sxm4", pp=1, ep=1) == "gpu:a100-80-sxm4"
    # A GPU with fewer than MIN_ROWS runs falls back to the pipeline class, then the dense runs.
    assert TRAIN_BANDS["gpu:h200-sxm"].rows < MIN_ROWS
    assert train_band_class("h200-sxm", pp=2, ep=1) == "pp:pp>1"
    assert train_band_class("rtx4090", pp=1, ep=1) == "moe:dense-or-ep=1"
    band = train_band("a100-80-sxm4")
    assert band is not None
    low, high = band.time_range(2.0)
    assert low == pytest.approx(2.0 * band.ratio_p10) and high == pytest.approx(2.0 * band.ratio_p90) and low < high
    assert speed_ratio("step_time_s", 2.0) == 0.5 and speed_ratio("tokens_per_s_per_gpu", 2.0) == 2.0
