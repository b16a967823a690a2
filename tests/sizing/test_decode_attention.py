"""--decode-attention: an eager decode step on PyTorch's math SDPA backend copies one layer's K and V over the whole
context (gpt-fast / torchao generate.py), in fp32 from PyTorch 2.5."""

import json

import pytest

from conftest import FIXTURES
from gpudesk.cli import main
from gpudesk.sizing import MemoryWorkload, estimate_memory, spec_from_hf_config
from gpudesk.sizing.decode_attention import decode_attention_bytes
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.validation import UNIT_BYTES, case_workload

CONFIGS = FIXTURES / "sizing" / "configs"
LLAMA31 = spec_from_hf_config(CONFIGS / "llama-3.1-8b.config.json")  # 32 query heads of 128, 8 KV heads
LLAMA2 = spec_from_hf_config(CONFIGS / "llama-2-7b.config.json")  # 32 heads, no grouping
TOKENS = 131072


def _rows(prefix: str) -> list[dict]:
    lines = (FIXTURES / "sizing" / "measured_peaks_fresh23.jsonl").read_text(encoding="utf-8").splitlines()
    return [r for r in map(json.loads, filter(None, lines)) if r["id"].startswith(prefix)]


def test_grouped_heads_fp32_math_is_sixteen_bytes_an_element():
    # repeat_interleave'd K and V (2 + 2 bytes) and the fp32 K, V and scaled K of the upcast math backend (12).
    elements = 32 * 128 * TOKENS
    assert decode_attention_bytes(LLAMA31, "math-fp32", TOKENS) == 16 * elements
    assert decode_attention_bytes(LLAMA31, "math-16bit", TOKENS) == 6 * elements
    assert decode_attention_bytes(LLAMA31, "fused", TOKENS) == 0
    assert decode_attention_bytes(LLAMA31, "math-fp32", TOKENS, batch=2, tensor_parallel=2) == 16 * elements


def test_multi_head_16bit_cache_is_read_in_place_a_quantised_one_is_dequantised():
    elements = 32 * 128 * 4096
    assert decode_attention_bytes(LLAMA2, "math-16bit", 4096) == 2 * elements
    assert decode_attention_bytes(LLAMA2, "math-16bit", 4096, kv_precision="int8") == 6 * elements


def test_needs_a_contiguous_cache_and_a_known_mode():
    base = dict(mode="inference", precision="bf16", weight_format="bf16", context_tokens=4096, prompt_tokens=6)
    with pytest.raises(SizingError) as err:
        estimate_memory(LLAMA31, MemoryWorkload(**base, decode_attention="math-fp32"))
    assert err.value.field == "decode_attention"
    with pytest.raises(SizingError) as err:
        estimate_memory(LLAMA31, MemoryWorkload(**base, kv_cache_impl="static", decode_attention="flash"))
    assert err.value.field == "decode_attention"
    # An unknown mode is named as unknown, with the choices, whatever the cache (not told to change the cache).
    with pytest.raises(SizingError) as err:
        estimate_memory(LLAMA31, MemoryWorkload(**base, decode_attention="flash"))
    assert err.value.field == "decode_attention" and "math-16bit" in str(err.value)
    # Modes are read case-insensitively, as every other choice: FUSED on a paged cache is the default, no copies.
    fused = estimate_memory(LLAMA31, MemoryWorkload(**base, decode_attention="FUSED")).breakdown
    assert "decode_attention" not in fused


def test_torchao_pr738_long_context_rows_with_the_math_backend():
    # torchao PR 738 (86c7b0d1d, Aug 2024): eager generate.py, decode forced to the math backend, static caches of
    # 8k-128k tokens. The estimate without the setting falls from 1.0 to 0.76 as the cache grows; with it the ratio
    # stays flat.
    rows = _rows("fresh23-torchao738-")
    assert len(rows) == 15
    for row in rows:
        measured = row["value"] * UNIT_BYTES[row["unit"]]
        w = case_workload({**row, "decode_attention": "math-fp32"})
        ratio = estimate_memory(LLAMA31, w).reserved_bytes / measured
        assert 0.98 <= ratio <= 1.06, (row["id"], ratio)
    longest = next(r for r in rows if r["id"].endswith("ctx131072-int8kv-linmask"))
    without = estimate_memory(LLAMA31, case_workload(longest)).reserved_bytes
    assert without / (longest["value"] * UNIT_BYTES[longest["unit"]]) < 0.8


def test_cli_flag_adds_the_part(capsys):
    args = ["estimate", "memory", "--config", str(CONFIGS / "llama-3.1-8b.config.json"), "--mode", "inference",
            "--weight-format", "bf16", "--kv-cache-impl", "static-linear-mask", "--kv-precision", "int8",
            "--seq", "131072", "--prompt-tokens", "6", "--json"]
    assert main(args) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(args + ["--decode-attention", "math-fp32"]) == 0
    math = json.loads(capsys.readouterr().out)
    assert "decode_attention" not in plain["per_gpu"]["breakdown_bytes"]
    assert math["per_gpu"]["breakdown_bytes"]["decode_attention"] == 16 * 32 * 128 * TOKENS - plain["per_gpu"]["breakdown_bytes"]["prefill_workspace"]
    assert main(["estimate", "memory", "--config", str(CONFIGS / "llama-3.1-8b.config.json"), "--mode", "inference",
                 "--seq", "4096", "--decode-attention", "math-fp32"]) != 0
    assert "--decode-attention" in capsys.readouterr().err


def test_refusal_on_the_default_paged_cache_names_the_setting_to_change(capsys):
    # A new user adds --decode-attention math-fp32 to a plain inference estimate: the cache is paged by default,
    # so the refusal must say that and which cache kinds to choose, not only "a contiguous cache".
    base = ["estimate", "memory", "--config", str(CONFIGS / "llama-3.1-8b.config.json"), "--mode", "inference",
            "--seq", "4096", "--decode-attention", "math-fp32"]
    assert main(base) != 0
    err = capsys.readouterr().err
    assert "paged" in err and "static, dynamic or legacy-tuple" in err
    assert main(base + ["--no-kv-cache"]) != 0
    err = capsys.readouterr().err
    assert "without a KV cache" in err and "paged" not in err
    assert main(["--lang", "zh_CN"] + base) != 0
    assert "分页" in capsys.readouterr().err
    assert main(base + ["--kv-cache-impl", "dynamic"]) == 0
