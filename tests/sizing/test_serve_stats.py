"""Latency statistics as the benchmark clients compute them: mean, median and percentiles over requests (TTFT,
TPOT) or over every streamed gap pooled (ITL), and a measured row naming its statistic."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.serve_stats import summary, weighted_summary
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad, serve_speed
from gpudesk.sizing.speed_serve_cases import predict_serve_case


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_percentiles_interpolate_between_order_statistics_like_numpy():
    stats = summary([4.0, 1.0, 3.0, 2.0])
    assert stats["mean"] == pytest.approx(2.5)
    assert stats["median"] == pytest.approx(2.5)
    assert stats["p90"] == pytest.approx(3.7)  # np.percentile([1, 2, 3, 4], 90)
    assert stats["p99"] == pytest.approx(3.97)
    assert summary([])["median"] == 0.0


def test_counted_values_are_the_expanded_list():
    pairs = [(0.02, 98), (0.5, 2)]
    expanded = [0.02] * 98 + [0.5] * 2
    assert weighted_summary(pairs) == pytest.approx(summary(expanded))
    assert weighted_summary(pairs)["median"] == pytest.approx(0.02)
    assert weighted_summary(pairs)["p99"] == pytest.approx(0.5)


def test_prompt_steps_that_pause_decoding_stretch_the_tail_of_itl_not_its_median(catalog):
    """SGLang runs each prompt in a step of its own: under Poisson arrivals some gaps of every running request
    contain a prefill step. The median gap is a decode step, the p99 much longer; the pooled mean equals the mean
    TPOT weighted by tokens (fixed lengths: the plain mean TPOT)."""
    spec = spec_from_catalog(catalog.model("llama-3.1-8b"))
    gpu = catalog.gpu("h100-sxm5")
    load = ServeLoad(engine="sglang", engine_version="0.4.0", input_tokens=2048, output_tokens=256,
                     request_rate_per_s=4.0, num_prompts=200)
    itl = serve_speed(spec, gpu, load).latency["itl_s"]
    tpot = serve_speed(spec, gpu, load).latency["tpot_s"]
    assert itl["p99"] > 2 * itl["median"]
    assert itl["median"] < itl["mean"]
    assert itl["mean"] == pytest.approx(tpot["mean"], rel=0.02)


def _row(statistic: str | None) -> dict:
    measured = {"metric": "itl_s", "value": 0.0136, "unit": "s"}
    if statistic is not None:
        measured["statistic"] = statistic
    return {"kind": "serve", "model": "llama-3.1-8b", "gpu": "h100-sxm5", "engine": "sglang",
            "engine_version": "0.4.0", "tp": 1, "input_tokens": 2048, "output_tokens": 256, "request_rate": 4.0,
            "num_prompts": 200, "measured": measured}


def test_a_row_naming_its_statistic_is_predicted_as_that_statistic():
    mean, _ = predict_serve_case(_row(None))
    median, _ = predict_serve_case(_row("median"))
    p99, _ = predict_serve_case(_row("p99"))
    assert median < mean < p99
    with pytest.raises(SizingError) as err:
        predict_serve_case(_row("p42"))
    assert err.value.field == "measured.statistic"
