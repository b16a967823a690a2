"""--prompt-logits all-16bit: a causal-LM forward that returns the LM head's 16-bit output over every prompt
position, with no fp32 upcast (transformers v4.45 OPTForCausalLM)."""

import json

from conftest import FIXTURES
from gpudesk.sizing import spec_from_hf_config
from gpudesk.sizing.memory_inference import prefill_workspace_bytes
from gpudesk.sizing.tuple_cache_step import leaked_prompt_logits_bytes
from gpudesk.sizing.validation import evaluate_case

SIZING = FIXTURES / "sizing"
OPT_350M = spec_from_hf_config(SIZING / "configs" / "opt-350m.config.json")  # vocab 50272


def test_the_16bit_logits_are_a_third_of_the_fp32_pair():
    # Fused attention and a short layer: the logits set the prefill transient.
    all_fp32 = prefill_workspace_bytes(OPT_350M, 1024, True, 8, "all")
    half = prefill_workspace_bytes(OPT_350M, 1024, True, 8, "all-16bit")
    assert all_fp32 == 6 * 8 * 1024 * 50272
    assert half == 2 * 8 * 1024 * 50272
    assert leaked_prompt_logits_bytes(50272, 1024, 8, "all-16bit") == 2 * 8 * 1024 * 50272
    assert leaked_prompt_logits_bytes(50272, 1024, 8, "all") == 4 * 8 * 1024 * 50272


def test_opt_350m_generation_rows_read_closer_with_16bit_logits():
    """transformers PR 33298's OPT-350m generate table (fp16, 100 new tokens): OPT's forward returns fp16 logits;
    typed so, every row's estimate drops and reads closer to the measurement than with the fp32 upcast."""
    rows = [json.loads(line) for line in (SIZING / "measured_peaks_fresh29.jsonl").read_text().splitlines()
            if "opt-350m-gen" in line]
    assert len(rows) == 4
    for row in rows:
        fp32 = evaluate_case(row, SIZING / "configs")
        half = evaluate_case({**row, "prompt_logits": "all-16bit"}, SIZING / "configs")
        assert half.ratio < fp32.ratio
        assert abs(half.ratio - 1) < abs(fp32.ratio - 1)
