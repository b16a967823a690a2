"""Sizing fixes of an inference engine's OOM are the engine's knobs (new-user test: a llama.cpp cudaMalloc OOM
listed "halve the micro-batch", "ZeRO-3 / FSDP" and "bf16 instead of fp32"). Real logs from
tests/fixtures/oom/engine_cases.jsonl (each line has its issue URL)."""

from __future__ import annotations

import json
from pathlib import Path

from gpudesk.oom.diagnose import diagnose_text

FIXTURES = Path(__file__).parents[1] / "fixtures" / "oom"
CASES = {c["url"]: c for c in (json.loads(line) for line in (FIXTURES / "engine_cases.jsonl").read_text(
    encoding="utf-8").splitlines() if line.strip())}
MIB = 2**20
TRAINING_WORDS = ("micro-batch", "ZeRO", "FSDP", "bf16 mixed precision", "checkpointing")


def _shortage(url: str):  # type: ignore[no-untyped-def]
    diagnosis = diagnose_text(CASES[url]["message"])
    cause = next(c for c in diagnosis.causes if c.id == "genuine_shortage")
    return diagnosis.report, {e.fix.split(" (")[0]: e for e in cause.sizing}


def test_llama_cpp_model_buffer_gets_engine_fixes_and_the_exact_byte_count() -> None:
    # https://github.com/ggml-org/llama.cpp/issues/20431: "allocating 144817.04 MiB" then "buffer of size
    # 151851674624"; the size used to be rebuilt from the rounded MiB figure (151,851,672,535).
    report, effects = _shortage("https://github.com/ggml-org/llama.cpp/issues/20431")
    assert report.requested_bytes == 151_851_674_624
    assert not any(word in fix for fix in effects for word in TRAINING_WORDS)
    assert {"Offload fewer layers", "Halve the context", "Quantise the KV cache", "Halve the physical batch"} <= set(effects)
    assert "layer count" in effects["Offload fewer layers"].note  # no "offloaded N/M layers" line in this log
    assert "model buffer" in effects["Halve the physical batch"].note


def test_ollama_compute_buffer_with_its_kv_cache_size_gets_computed_savings() -> None:
    # https://github.com/ollama/ollama/issues/6860: "KV self size = 5120.00 MiB"; a 144 MiB compute buffer failed.
    report, effects = _shortage("https://github.com/ollama/ollama/issues/6860")
    assert report.engine == "llamacpp"  # the lines are llama.cpp's own (Ollama runs it)
    assert effects["Halve the context"].saved_bytes == 2560 * MIB
    assert effects["Quantise the KV cache"].saved_bytes == round(5120 * MIB * 30 / 64)  # f16 64 B -> q8_0 34 B / 32
    assert effects["Halve the physical batch"].saved_bytes == 150_995_968 // 2
