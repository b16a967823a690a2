"""Real serving-engine, ROCm and Apple MPS OOM messages (tests/fixtures/oom/engine_cases.jsonl, each with its
public URL and the first cause recorded before the doctor was run on it): first-cause accuracy per family
and the knob value the fix names where the numbers allow it."""

from __future__ import annotations

import collections
import json
import re

import pytest
from oom_support import FIXTURES

from gpudesk.oom import diagnose_text

CASES = [json.loads(line) for line in (FIXTURES / "engine_cases.jsonl").read_text(encoding="utf-8").splitlines()
         if line.strip()]

# Measured when this suite was written: 53 of 56 (19 of 56 before issue 11). The three misses need a figure
# the message does not hold (the GPU's capacity for two single-allocation cases; the thread's "fraction 0.10 still fails" for the
# TensorRT-LLM not-capacity case). The floor sits just below, so a regression of one case fails CI.
FLOOR = 52
FAMILY_FLOOR = {"vllm": 21, "sglang": 3, "trtllm": 2, "tgi": 4, "llamacpp": 6, "rocm": 6, "mps": 11}


def _top(case: dict) -> str:
    return diagnose_text(case["message"]).causes[0].id


def test_cases_are_real_and_complete():
    assert len(CASES) >= 50
    for case in CASES:
        assert case["url"].startswith("https://github.com/")
        assert case["message"].strip() and case["expected_cause"] and case["family"] in FAMILY_FLOOR


def test_first_cause_accuracy(capsys):
    hits: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    for case in CASES:
        hits[case["family"]][0] += _top(case) == case["expected_cause"]
        hits[case["family"]][1] += 1
    total = sum(h[0] for h in hits.values())
    with capsys.disabled():
        print(f"\nEngine/platform cases: first cause right in {total}/{len(CASES)} ("
              + ", ".join(f"{k} {v[0]}/{v[1]}" for k, v in sorted(hits.items())) + ")")
    assert total >= FLOOR
    for family, floor in FAMILY_FLOOR.items():
        assert hits[family][0] >= floor, family


KNOBS = {
    "max_model_len": r"--max-model-len (\d+)",
    "max_num_seqs": r"--max-num-seqs (\d+)",
}


@pytest.mark.parametrize("case", [c for c in CASES if c["expected_knob"]], ids=lambda c: c["url"])
def test_fix_names_the_value_that_fits(case):
    fix = diagnose_text(case["message"]).causes[0].fix
    for knob, value in case["expected_knob"].items():
        if knob in KNOBS:
            m = re.search(KNOBS[knob], fix)
            assert m and int(m.group(1)) == value, fix
        elif knob == "max_model_len_at_most":
            m = re.search(KNOBS["max_model_len"], fix)
            assert m and value - 16 <= int(m.group(1)) <= value, fix
        elif knob == "max_batch_prefill_tokens_below":
            assert f"--max-batch-prefill-tokens below {value}" in fix


@pytest.mark.parametrize("case", [c for c in CASES if c["family"] == "mps"], ids=lambda c: c["url"])
def test_mps_gets_apple_advice_never_a_cuda_allocator_fix(case):
    d = diagnose_text(case["message"])
    assert d.report.platform == "mps"
    for cause in d.causes:
        text = cause.fix + " ".join(cause.more_fixes)
        assert "PYTORCH_ALLOC_CONF" not in text and "PYTORCH_CUDA_ALLOC_CONF" not in text and "cuda" not in text.lower()


def test_engine_and_platform_are_recognised():
    expected_engine = {"vllm": "vllm", "sglang": "sglang", "trtllm": "trtllm", "tgi": "tgi"}
    for case in CASES:
        d = diagnose_text(case["message"])
        if case["family"] in expected_engine:
            assert d.report.engine == expected_engine[case["family"]], case["url"]
        if case["family"] == "llamacpp":
            assert d.report.engine in ("llamacpp", "ollama"), case["url"]
        if case["family"] in ("rocm", "mps"):
            assert d.report.platform == case["platform"], case["url"]
        elif case["platform"] == "rocm":  # an engine's message that does not name the platform: unknown, not CUDA
            assert d.report.platform in ("rocm", None), case["url"]


def test_rocm_fragmentation_names_the_hip_variable():
    text = ("torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
            "63.98 GiB of which 1.50 GiB is free. Of the allocated memory 40.00 GiB is allocated by PyTorch, and "
            "20.00 GiB is reserved by PyTorch but unallocated.")
    d = diagnose_text(text)
    frag = next(c for c in d.causes if c.id == "fragmentation")
    assert "PYTORCH_HIP_ALLOC_CONF" in frag.fix


def test_sglang_fraction_from_the_load_line():
    # sglang#7691's load line: 21.73 GB free of 188.32 after the weights -> the KV pool needs a fraction > 0.89.
    case = next(c for c in CASES if c["url"].endswith("sglang/issues/7691"))
    cause = diagnose_text(case["message"]).causes[0]
    assert cause.evidence["mem_fraction_static_minimum_ratio"] == 0.89


def test_per_process_cap_names_the_fraction_that_fits():
    case = next(c for c in CASES if c["url"].endswith("TheRock/issues/2118"))
    cause = diagnose_text(case["message"]).causes[0]
    assert cause.id == "per_process_cap"
    # (1017.01 MiB + 54.99 MiB + 2 MiB) / 255.98 GiB -> 0.01 of the GPU
    assert "set_per_process_memory_fraction(0.01)" in cause.fix
