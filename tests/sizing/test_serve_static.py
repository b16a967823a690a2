"""Static-batch generation (gpudesk.sizing.serve_static): Optimum Habana's text-generation runs the published batch
at once, prefills every prompt in one step, pays host time per step only, and refuses an online load."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.serve_engine import engine_budget
from gpudesk.sizing.serve_host import HOST_STEP_S, host_overhead
from gpudesk.sizing.serve_static import is_static_batch, static_batch_limits
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad, serve_speed


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def _load(**kw):
    base = dict(engine="optimum-habana", input_tokens=128, output_tokens=128, batch=1536, weight_format="fp8",
                kv_dtype="fp8")
    base.update(kw)
    return ServeLoad(**base)


def test_static_batch_runs_the_whole_batch_in_one_prefill_step(catalog):
    spec = spec_from_catalog(catalog.model("llama-3.1-8b"))
    budget = engine_budget(spec, catalog.gpu("gaudi3"), _load())
    assert budget.max_running == 1536
    assert budget.token_budget == 1536 * 128
    assert budget.mixed_prefill is False
    assert static_batch_limits(_load(batch=64, input_tokens=2048)) == (64 * 2048, 64)
    assert is_static_batch("Optimum-Habana") and not is_static_batch("vllm")


def test_generate_loop_pays_host_time_per_step_not_per_request():
    host = host_overhead("optimum-habana", "1.14.0", None, 1)
    assert host.step_s == HOST_STEP_S and host.request_s == 0.0 and host.overlap is False
    assert host_overhead("vllm", "0.12.0", None, 1).request_s > 0.0


def test_online_load_is_refused_with_the_batch_field():
    with pytest.raises(SizingError) as err:
        static_batch_limits(_load(batch=None, concurrency=16))
    assert err.value.field == "batch"


def test_larger_static_batch_raises_throughput_until_compute_bound(catalog):
    """Llama 3.1 8B FP8 on one Gaudi 3, 128/128: a batch of 64 streams the weights for few tokens; 1536 shares
    each weight read among many more, so output tokens per second grow several-fold (but not 24x)."""
    spec = spec_from_catalog(catalog.model("llama-3.1-8b"))
    gpu = catalog.gpu("gaudi3")
    small = serve_speed(spec, gpu, _load(batch=64)).output_tokens_per_s
    large = serve_speed(spec, gpu, _load(batch=1536)).output_tokens_per_s
    assert 3 * small < large < 24 * small
