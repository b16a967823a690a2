"""LMDeploy's serving defaults by release and backend, read in InternLM/lmdeploy at each tag
(:mod:`gpudesk.sizing.serve_lmdeploy`), and what they do to the KV pool, the scheduler and the step."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.capacity import gpu_reported_total_bytes
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.serve_engine import engine_budget
from gpudesk.sizing.serve_host import host_overhead, schedules_ahead
from gpudesk.sizing.serve_lmdeploy import (
    default_cache_max_entry_count,
    default_max_batch_size,
    default_prefill_tokens,
    uses_cuda_graphs,
)
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad, serve_speed


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def _load(**kw) -> ServeLoad:
    return ServeLoad(engine="lmdeploy", input_tokens=1024, output_tokens=256, concurrency=64, **kw)


def test_max_batch_size_default_by_release_and_device(catalog):
    """64 in v0.1 (target_model/base.py), 128 in v0.2-v0.5 (messages.py), by device name from v0.6
    (utils.get_max_batch_size: A100 256 / H100 512), raised in v0.10 (A100 384 / H100 1024); 128 elsewhere."""
    a100, h100, l40s = catalog.gpu("a100-80-sxm4"), catalog.gpu("h100-sxm5"), catalog.gpu("l40s")
    assert default_max_batch_size(a100, "0.1.0") == 64
    assert default_max_batch_size(h100, "0.2.6") == 128
    assert (default_max_batch_size(a100, "0.6.0"), default_max_batch_size(h100, "0.9.2")) == (256, 512)
    assert (default_max_batch_size(a100, "0.10.0"), default_max_batch_size(h100, None)) == (384, 1024)
    assert default_max_batch_size(l40s, "0.10.0") == 128


def test_cache_share_is_of_the_total_until_0_2_1_and_of_the_free_memory_after(catalog):
    """BlockManager.cc GetBlockCount: total x 0.5 in v0.1.0-v0.2.1, free x 0.8 from v0.2.2. Llama 2 7B on an A100
    80 GB: half the card's total, against 0.8 of what the weights leave free."""
    spec, gpu = spec_from_catalog(catalog.model("llama-2-7b")), catalog.gpu("a100-80-sxm4")
    assert default_cache_max_entry_count("0.2.0", None) == 0.5
    assert default_cache_max_entry_count("0.2.2", None) == 0.8
    total = gpu_reported_total_bytes(gpu)
    old = engine_budget(spec, gpu, _load(engine_version="0.1.0"))
    assert old.kv_bytes == pytest.approx(0.5 * total)
    new = engine_budget(spec, gpu, _load(engine_version="0.2.6"))
    assert new.kv_bytes < 0.8 * (total - new.weights_bytes)  # the CUDA context and runtime come off the free memory
    assert new.kv_bytes > 0.7 * (total - new.weights_bytes)
    assert new.max_running == 128 and old.max_running == 64


def test_turbomind_chunks_prompts_from_0_2_5_and_mixes_them_into_decode_steps(catalog):
    """TurboMind before v0.2.5 runs a prompt whole (max_context_token_num = session_len); from v0.2.5
    max_prefill_token_num 8192. Its persistent batch mixes prompt and decode tokens; the PyTorch engine does not."""
    spec, gpu = spec_from_catalog(catalog.model("llama-2-7b")), catalog.gpu("a100-80-sxm4")
    assert default_prefill_tokens("0.2.0", None, 4096) == (4096, False)
    assert default_prefill_tokens("0.2.5", None, 4096) == (8192, True)
    assert [default_prefill_tokens(v, "pytorch", 0)[0] for v in ("0.2.0", "0.2.4", "0.2.6", "0.12.3", "0.13.0")] == [
        16384, 8192, 4096, 4096, 8192]
    old = engine_budget(spec, gpu, _load(engine_version="0.2.0"))
    assert old.mixed_prefill and not old.chunked_prompts and old.token_budget == spec.context_length
    turbomind = engine_budget(spec, gpu, _load(engine_version="0.16.0"))
    assert turbomind.mixed_prefill and turbomind.chunked_prompts and turbomind.token_budget == 8192
    pytorch = engine_budget(spec, gpu, _load(engine_version="0.16.0", backend="pytorch"))
    assert not pytorch.mixed_prefill


def test_turbomind_decodes_without_cuda_graphs_and_the_pytorch_engine_with_them_from_0_6(catalog):
    """No graph capture under src/turbomind at any tag; PytorchEngineConfig.eager_mode=False from v0.6.0. Eager
    kernel launches make TurboMind's small-batch step slower than the PyTorch engine's graph replay."""
    assert not uses_cuda_graphs("0.16.0", None)
    assert not uses_cuda_graphs("0.5.0", "pytorch") and uses_cuda_graphs("0.6.0", "pytorch")
    spec, gpu = spec_from_catalog(catalog.model("llama-2-7b")), catalog.gpu("a100-80-sxm4")
    one = dict(input_tokens=128, output_tokens=128, batch=1, engine="lmdeploy", engine_version="0.16.0")
    turbomind = serve_speed(spec, gpu, ServeLoad(**one))
    pytorch = serve_speed(spec, gpu, ServeLoad(**one, backend="pytorch"))
    floors = [next(a.value for a in r.assumptions if a.name == "kernel_floor_s") for r in (turbomind, pytorch)]
    assert floors[0] != floors[1]
    assert turbomind.tpot_s > pytorch.tpot_s  # 10 us against 3.4 us a kernel on an A100, 320 kernels a step


def test_host_work_of_each_backend():
    """TurboMind's C++ loop hides the host work but schedules no batch ahead; the PyTorch engine's Python loop
    adds it to every step."""
    assert host_overhead("lmdeploy", "0.16.0", None, 1).overlap
    assert not host_overhead("lmdeploy", "0.16.0", None, 1, "pytorch").overlap
    assert not schedules_ahead("lmdeploy", "0.16.0", None, True)


def test_an_unknown_backend_is_refused():
    with pytest.raises(SizingError) as err:
        _load(backend="tensorrt").validated()
    assert err.value.field == "backend"
    with pytest.raises(SizingError):
        ServeLoad(engine="vllm", input_tokens=8, output_tokens=8, batch=1, backend="turbomind").validated()


def test_the_pytorch_engine_keeps_a_logits_reserve_out_of_the_free_memory(catalog):
    """model_agent.py __get_runtime_size (v0.6.0): max_prefill_token_num x vocab x 7 bytes come off the free memory
    before the 0.8 share; Llama 2 7B (32,000 tokens) at 4096 prompt tokens: 0.92 GB, 0.73 GB less KV. TurboMind
    takes its share before its own buffers, so it keeps no such reserve."""
    spec, gpu = spec_from_catalog(catalog.model("llama-2-7b")), catalog.gpu("a100-80-sxm4")
    turbomind = engine_budget(spec, gpu, _load(engine_version="0.6.0"))
    pytorch = engine_budget(spec, gpu, _load(engine_version="0.6.0", backend="pytorch"))
    assert pytorch.token_budget == 4096
    assert turbomind.kv_bytes - pytorch.kv_bytes == pytest.approx(0.8 * 4096 * 32000 * 7)
