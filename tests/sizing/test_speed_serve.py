"""Serving speed: ServeLoad checks, the step model against hand computation, the scheduler, the case mapping."""

from __future__ import annotations

import math

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad, serve_speed
from gpudesk.sizing.speed_serve_cases import predict_serve_case


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def _spec(catalog, model_id):
    return spec_from_catalog(catalog.model(model_id))


def test_load_needs_exactly_one_of_concurrency_rate_batch():
    with pytest.raises(SizingError) as err:
        ServeLoad(concurrency=4, batch=2).validated()
    assert err.value.field == "load"
    with pytest.raises(SizingError) as err:
        ServeLoad().validated()
    assert err.value.field == "load"
    with pytest.raises(SizingError) as err:
        ServeLoad(engine="tgi", concurrency=1).validated()
    assert err.value.field == "engine"


def test_batch_one_decode_is_weights_over_bandwidth_plus_layer_latency(catalog):
    """Batch 1, TP 1, short context: TPOT = weights / (bandwidth x efficiency) + layers x per-layer latency +
    the KV read, computed by hand from the cited formulas."""
    from gpudesk.sizing import serve_rates

    spec = _spec(catalog, "llama-3.1-8b")
    gpu = catalog.gpu("h100-sxm5")
    speed = serve_speed(spec, gpu, ServeLoad(input_tokens=128, output_tokens=128, batch=1))
    bw = gpu.memory_bandwidth_gbps * 1e9 * 2.90 / 3.35  # H100 STREAM copy 2.90 TB/s of 3.35 (Azure guide)
    weights = spec.params * 2
    kv_per_token = 2 * 32 * 8 * 128 * 2
    mean_context = 128 + 1 + 126 / 2  # context grows from 129 to 255 over the decode steps
    # GEMMs (weights) and attention (KV) run one after the other, each memory bound at batch 1; 6 short kernels of
    # 3.4 us per layer (CUDA graphs).
    hand = weights / bw + mean_context * kv_per_token / bw + 32 * 6 * 3.4e-6
    assert serve_rates.VENDOR_HBM_EFFICIENCY["NVIDIA"] == pytest.approx(2.90 / 3.35)
    assert speed.tpot_s == pytest.approx(hand, rel=0.01)
    assert speed.output_tokens_per_s == pytest.approx(128 / speed.e2e_latency_s, rel=0.01)


def test_tensor_parallel_adds_two_allreduces_per_layer(catalog):
    """At batch 1 a TP 8 replica is not 8x faster than TP 1: each layer pays two all-reduce latencies."""
    spec = _spec(catalog, "llama-3.1-70b")
    gpu = catalog.gpu("h100-sxm5")
    link = catalog.link("nvlink4")
    tp8 = serve_speed(spec, gpu, ServeLoad(input_tokens=128, output_tokens=128, batch=1, tp=8, weight_format="fp8"), link)
    tp4 = serve_speed(spec, gpu, ServeLoad(input_tokens=128, output_tokens=128, batch=1, tp=4, weight_format="fp8"), link)
    assert tp8.tpot_s < tp4.tpot_s < 2 * tp8.tpot_s
    with pytest.raises(SizingError) as err:
        serve_speed(spec, gpu, ServeLoad(input_tokens=128, output_tokens=128, batch=1, tp=8))
    assert err.value.field == "link"


def test_tpot_grows_and_ttft_queues_with_load(catalog):
    spec = _spec(catalog, "llama-3.1-8b")
    gpu = catalog.gpu("h100-sxm5")
    low = serve_speed(spec, gpu, ServeLoad(input_tokens=1000, output_tokens=500, concurrency=1))
    high = serve_speed(spec, gpu, ServeLoad(input_tokens=1000, output_tokens=500, concurrency=128))
    assert high.tpot_s > 1.5 * low.tpot_s
    assert high.output_tokens_per_s > 20 * low.output_tokens_per_s
    under = serve_speed(spec, gpu, ServeLoad(input_tokens=1000, output_tokens=500, request_rate_per_s=2.0))
    over = serve_speed(spec, gpu, ServeLoad(input_tokens=1000, output_tokens=500, request_rate_per_s=math.inf,
                                            num_prompts=1000))
    assert over.ttft_s > 10 * under.ttft_s


def test_weights_that_leave_no_kv_cache_are_an_error(catalog):
    spec = _spec(catalog, "llama-3.1-70b")
    with pytest.raises(SizingError) as err:
        serve_speed(spec, catalog.gpu("h100-sxm5"), ServeLoad(input_tokens=128, output_tokens=128, batch=1))
    assert err.value.field == "gpu_memory_utilization"


def test_case_prediction_in_the_rows_unit():
    row = {"kind": "serve", "model": "llama-3.1-8b", "gpu": "h100-sxm5", "engine": "vllm", "tp": 1,
           "input_tokens": 128, "output_tokens": 128, "batch": 1,
           "measured": {"metric": "tpot_s", "value": 7.0, "unit": "ms"}}
    ms, assumptions = predict_serve_case(row)
    seconds, _ = predict_serve_case(dict(row, measured={"metric": "tpot_s", "value": 0.007, "unit": "s"}))
    assert ms == pytest.approx(seconds * 1e3)
    assert any(a.name == "hbm_efficiency" for a in assumptions)
    with pytest.raises(SizingError) as err:
        predict_serve_case(dict(row, measured={"metric": "tpot_s", "value": 7, "unit": "tokens/s"}))
    assert err.value.field == "measured.unit"
    with pytest.raises(SizingError):
        predict_serve_case(dict(row, gpu="no-such-gpu"))
