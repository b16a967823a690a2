"""AutoAWQ fused attention inside transformers' Llama model: the prefill keeps every layer's returned keys and
values beside the static cache (``--prefill-kv-kept``)."""

import json

import pytest

from conftest import FIXTURES
from gpudesk.sizing.errors import SizingError
from gpudesk.cli import main
from gpudesk.sizing import spec_from_hf_config
from gpudesk.sizing.memory import MemoryWorkload, estimate_memory
from gpudesk.sizing.prefill_kv_kept import prefill_kv_kept_bytes
from gpudesk.sizing.validation import case_workload

GIB = 1024**3
CONFIGS = FIXTURES / "sizing" / "configs"
LLAMA_7B = spec_from_hf_config(CONFIGS / "llama-2-7b.config.json")
MISTRAL_7B = spec_from_hf_config(CONFIGS / "mistral-7b.config.json")


def _estimate(tokens, kept, impl="static-linear-mask", fused=False):
    workload = MemoryWorkload(mode="inference", precision="fp16", weight_format="int4-g128", kv_precision="fp16",
                              kv_cache_impl=impl, context_tokens=tokens, flash_attention=False,
                              prompt_logits="all", prefill_kv_kept=kept, fused_qkv_load=fused)
    return estimate_memory(LLAMA_7B, workload)


def test_kept_bytes_are_the_fused_qkv_output_and_the_rotated_keys_of_every_layer():
    # Llama-2-7B: xqkv (32 + 2 x 32 heads) plus the rotated xk (32 heads), x 128 x 2 bytes, 32 layers: 1 MiB a token.
    assert prefill_kv_kept_bytes(LLAMA_7B, 2048, 1) == 2 * GIB
    # Mistral-7B's 8 KV heads: (32 + 3 x 8) x 128 x 2 bytes a layer and token; batch and TP scale it.
    assert prefill_kv_kept_bytes(MISTRAL_7B, 100, 3) == 32 * 56 * 128 * 2 * 100 * 3
    assert prefill_kv_kept_bytes(MISTRAL_7B, 100, 3, tensor_parallel=2) == 32 * 56 * 128 * 100 * 3
    assert prefill_kv_kept_bytes(LLAMA_7B, 10, 1, layers=4) == 4 * 32 * 1024 * 10


def test_estimate_adds_the_kept_keys_and_values_beside_the_static_cache():
    plain, kept = _estimate(2048, False), _estimate(2048, True)
    assert kept.breakdown["prefill_kv_kept"] == 2 * GIB
    assert kept.allocated_bytes - plain.allocated_bytes == pytest.approx(2 * GIB, abs=1)
    assert kept.breakdown["kv_cache"] == plain.breakdown["kv_cache"]
    assert any("returned keys and values" in text for text, _source in kept.assumptions)


def test_refused_without_a_static_cache():
    with pytest.raises(SizingError) as err:
        _estimate(512, True, impl="dynamic")
    assert err.value.field == "prefill_kv_kept"


def test_refused_without_a_kv_cache():
    # Generation without a cache (--no-kv-cache) keeps no prompt keys and values: the kept copy cannot be silently
    # dropped from the estimate.
    workload = MemoryWorkload(mode="inference", precision="fp16", weight_format="int4-g128", kv_precision="fp16",
                              kv_cache_impl="static", context_tokens=512, prefill_kv_kept=True, no_kv_cache=True)
    with pytest.raises(SizingError) as err:
        estimate_memory(LLAMA_7B, workload)
    assert err.value.field == "prefill_kv_kept"


def _row(case_id):
    path = FIXTURES / "sizing" / "measured_peaks_fresh16.jsonl"
    return next(r for r in map(json.loads, path.read_text(encoding="utf-8").splitlines()) if r["id"] == case_id)


@pytest.mark.parametrize("tokens", [512, 1024, 2048])
def test_autoawq_0_0_2_readme_rows_with_the_settings_of_their_loader(tokens):
    # AutoAWQ README at 7cf3c79 (Sept 2023), Vicuna-7B GEMV on an RTX 3090, prefill n + decode n tokens,
    # torch.cuda.max_memory_allocated: 4.80 / 5.56 / 8.08 GiB. The rows type neither setting (what-if, row unedited):
    # from_quantized(fuse_layers=True) fuses q/k/v after loading and runs the fused attention inside LlamaModel.
    row = _row(f"fresh16-autoawq2309-vicuna-7b-gemv-b1-ctx{tokens}")
    workload = case_workload(dict(row, prefill_kv_kept=True, fused_qkv_load=True))
    plain = estimate_memory(LLAMA_7B, case_workload(row))
    estimate = estimate_memory(LLAMA_7B, workload)
    assert abs(estimate.allocated_bytes / (row["value"] * GIB) - 1) <= 0.08
    assert plain.allocated_bytes / (row["value"] * GIB) < estimate.allocated_bytes / (row["value"] * GIB)


def test_cli_flag_adds_the_part(capsys):
    flags = ["estimate", "memory", "--config", str(CONFIGS / "llama-2-7b.config.json"), "--mode", "inference",
             "--precision", "fp16", "--weight-format", "int4-g128", "--kv-precision", "fp16",
             "--kv-cache-impl", "static", "--seq", "1024", "--json"]
    assert main(flags + ["--prefill-kv-kept"]) == 0
    assert json.loads(capsys.readouterr().out)["per_gpu"]["breakdown_bytes"]["prefill_kv_kept"] == GIB
    assert main(flags) == 0
    assert "prefill_kv_kept" not in json.loads(capsys.readouterr().out)["per_gpu"]["breakdown_bytes"]
