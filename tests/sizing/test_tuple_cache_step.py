"""transformers <= 4.41 ``generate`` with tuple caches: the first decode step still holds the prefill's output (the
prompt's cache and its fp32 logits) while every layer concatenates a grown copy (tuple_cache_step)."""

from conftest import FIXTURES
from gpudesk.sizing import MemoryWorkload, estimate_memory, spec_from_hf_config
from gpudesk.sizing.tuple_cache_step import first_decode_step_bytes, leaked_prompt_logits_bytes

CONFIGS = FIXTURES / "sizing" / "configs"
QWEN_V1 = spec_from_hf_config(CONFIGS / "qwen-7b.config.json")  # 32 layers x 32 KV heads x 128, vocab 151936
KV_TOKEN_BYTES = 32 * 2 * 32 * 128 * 2  # 512 KiB a token in bf16


def _parts(impl: str, prompt: int, context: int, logits: str = "all", batch: int = 1) -> dict[str, int]:
    w = MemoryWorkload(mode="inference", precision="bf16", weight_format="bf16", kv_precision="bf16",
                       kv_cache_impl=impl, prompt_logits=logits, context_tokens=context, prompt_tokens=prompt,
                       concurrent_sequences=batch)
    return dict(estimate_memory(QWEN_V1, w).breakdown)


def test_leaked_logits_are_every_prompt_position_in_fp32_or_the_last_one():
    assert leaked_prompt_logits_bytes(151936, 30720, 2, "all") == 4 * 2 * 30720 * 151936
    assert leaked_prompt_logits_bytes(151936, 30720, 2, "last") == 4 * 2 * 151936
    assert first_decode_step_bytes(1.0, 2.0, 3.0) == 6.0


def test_the_first_decode_step_of_a_long_prompt_sets_the_peak():
    parts = _parts("legacy-tuple", 30720, 32768)
    step = (30720 + 30721) * KV_TOKEN_BYTES + 4 * 30720 * 151936
    # The cache term plus the larger of the prefill transient and the decode copies is the first step's holding.
    assert parts["kv_cache"] == 32768 * KV_TOKEN_BYTES
    assert parts["kv_cache"] + parts["kv_cache_workspace"] + parts["prefill_workspace"] == step
    assert step > 2 * parts["kv_cache"]  # more than the last step's two whole caches


def test_a_dynamic_cache_kept_by_generate_leaks_nothing():
    parts = _parts("dynamic", 30720, 32768)
    assert parts.get("kv_cache_workspace", 0) == 0  # one layer's copy is under the prefill transient
    assert sum(_parts("legacy-tuple", 30720, 32768).values()) > sum(parts.values())


def test_last_position_logits_leave_the_last_step_as_the_peak():
    parts = _parts("legacy-tuple", 30720, 32768, logits="last")
    assert parts["kv_cache_workspace"] + parts["prefill_workspace"] == parts["kv_cache"]


def test_a_short_prompt_keeps_the_whole_cache_twice_at_the_last_step():
    parts = _parts("legacy-tuple", 1, 2049)
    assert parts["kv_cache_workspace"] + parts["prefill_workspace"] == parts["kv_cache"]


def test_no_decode_step_no_leak():
    parts = _parts("legacy-tuple", 30720, 30721)
    assert "kv_cache_workspace" not in parts
