"""Hugging Face ``generate`` by era: the batch's prompts in one prefill, legacy tuple caches copied in decode steps,
logits of every prompt position (transformers <= 4.44), the gated MLP's prefill transient."""

import pytest

from conftest import FIXTURES
from gpudesk.cli import main
from gpudesk.sizing import MemoryWorkload, SizingError, estimate_memory, spec_from_hf_config
from gpudesk.sizing.memory_inference import prefill_workspace_bytes
from gpudesk.sizing.validation import case_workload

CONFIGS = FIXTURES / "sizing" / "configs"
L13 = spec_from_hf_config(CONFIGS / "llama-2-13b.config.json")
QWEN7 = spec_from_hf_config(CONFIGS / "qwen2.5-7b.config.json")


def _generate(**kw) -> dict[str, int]:
    base = dict(mode="inference", precision="fp16", weight_format="fp16", kv_precision="fp16",
                kv_cache_impl="legacy-tuple", flash_attention=False, context_tokens=1024, concurrent_sequences=16)
    return dict(estimate_memory(L13, MemoryWorkload(**{**base, **kw})).breakdown)


def test_legacy_tuple_cache_holds_the_old_and_new_cache_of_the_whole_batch():
    parts = _generate(prompt_tokens=512)
    # 16 sequences x 1024 tokens x 800 KiB (40 layers x 2 x 5120 x fp16).
    assert parts["kv_cache"] == 16 * 1024 * 2 * 40 * 5120 * 2
    # The decode step's copy: the whole cache again, less the prefill transient it never coexists with.
    assert parts["kv_cache_workspace"] + parts["prefill_workspace"] == parts["kv_cache"]
    one = _generate(prompt_tokens=512, concurrent_sequences=1)
    assert one["kv_cache"] * 16 == parts["kv_cache"]


def test_a_prompt_with_one_new_token_has_no_decode_step_to_copy_the_cache():
    prefill_only = _generate(context_tokens=513, prompt_tokens=512, concurrent_sequences=8)
    assert "kv_cache_workspace" not in prefill_only
    assert "kv_cache_workspace" in _generate(context_tokens=513, concurrent_sequences=8)  # prompt unknown: both


def test_prompt_logits_of_every_position_in_fp32_grow_with_batch_and_prompt():
    last = prefill_workspace_bytes(L13, 512, flash_attention=True, batch=8, prompt_logits="last")
    every = prefill_workspace_bytes(L13, 512, flash_attention=True, batch=8, prompt_logits="all")
    assert every == 8 * 512 * 32000 * (2 + 4)  # fp16 logits and their .float() copy
    assert last < every
    assert prefill_workspace_bytes(L13, 512, batch=16, prompt_logits="all") == 2 * every


def test_prefill_layer_transient_grows_with_batch_and_prompt():
    ws = prefill_workspace_bytes(QWEN7, 30720, flash_attention=True)
    assert ws == 2 * 30720 * (3584 + 18944)
    assert prefill_workspace_bytes(QWEN7, 30720, flash_attention=True, batch=2) == 2 * ws


def test_unfused_attention_scores_with_the_fp32_softmax():
    flash = prefill_workspace_bytes(L13, 4096, flash_attention=True)
    eager = prefill_workspace_bytes(L13, 4096, flash_attention=False)
    assert eager - flash == 8 * 40 * 4096**2  # 16-bit scores, fp32 softmax, 16-bit cast


def test_prompt_longer_than_the_context_is_refused():
    with pytest.raises(SizingError) as err:
        _generate(context_tokens=100, prompt_tokens=512)
    assert err.value.field == "prompt_tokens"


def test_harness_reads_batch_prompt_and_logits_as_typed():
    row = {"method": "inference", "micro_batch_size": 8, "prompt_tokens": 512, "prompt_logits": "all"}
    w = case_workload(row)
    assert (w.concurrent_sequences, w.prompt_tokens, w.prompt_logits) == (8, 512, "all")
    assert case_workload({"method": "inference"}).prompt_tokens is None


def test_cli_flags_and_their_errors(capsys):
    args = ["estimate", "memory", "--config", str(CONFIGS / "llama-2-13b.config.json"), "--mode", "inference",
            "--precision", "fp16", "--weight-format", "fp16", "--kv-cache-impl", "legacy-tuple", "--no-flash",
            "--seq", "1024", "--batch", "4", "--prompt-tokens", "512", "--prompt-logits", "all"]
    assert main(args) == 0
    assert "prefill of 4 x 512 prompt tokens" in capsys.readouterr().out
    assert main(args[:-4] + ["--prompt-tokens", "2048"]) == 2
    assert "--prompt-tokens" in capsys.readouterr().err
    assert main(["estimate", "memory", "--params", "7B", "--mode", "lora", "--prompt-tokens", "5"]) == 2
    assert "--prompt-tokens" in capsys.readouterr().err


def test_a_plain_pytorch_generate_has_no_serving_engine_pool_outside_the_allocator():
    # vLLM's CUDA-graph pool and non-torch buffers (0.75 GiB by default) belong to the paged engine only; HF generate
    # and gpt-fast run in a PyTorch process whose only memory outside the allocator is the CUDA context.
    for impl in ("legacy-tuple", "dynamic", "static"):
        est = estimate_memory(L13, MemoryWorkload(mode="inference", precision="fp16", weight_format="fp16",
                                                  kv_cache_impl=impl, context_tokens=1024))
        assert est.component("framework_overhead") == 0
        assert est.device_bytes == est.reserved_bytes + est.component("cuda_context")
        assert any("no serving-engine memory" in a for a, _ in est.assumptions)
    paged = estimate_memory(L13, MemoryWorkload(mode="inference", precision="fp16", weight_format="fp16",
                                                context_tokens=1024))
    assert paged.component("framework_overhead") == 3 * 2**30 // 4


def test_a_stated_long_prompt_holds_the_eager_gated_mlp_intermediates():
    # Qwen2.5-7B (h 3584, ffn 18944), a 30720-token prompt through transformers' Qwen2MLP: act_fn(gate), up and
    # their product (3 ffn) beside the layer input and the residual (2 h), 16-bit: 3.93 GB.
    base = dict(mode="inference", precision="bf16", weight_format="bf16", kv_precision="bf16",
                kv_cache_impl="dynamic", context_tokens=32768)
    stated = estimate_memory(QWEN7, MemoryWorkload(**base, prompt_tokens=30720)).component("prefill_workspace")
    assert stated == 2 * 30720 * (2 * 3584 + 3 * 18944)
    # Unknown prompt (the whole context, an upper bound on its length): the narrower per-token figure.
    unknown = estimate_memory(QWEN7, MemoryWorkload(**base)).component("prefill_workspace")
    assert unknown == 2 * 32768 * (3584 + 18944)
    # A paged serving engine bounds and fuses its prefill: the narrower figure even with the prompt stated.
    paged = estimate_memory(QWEN7, MemoryWorkload(**{**base, "kv_cache_impl": "paged"}, prompt_tokens=30720))
    assert paged.component("prefill_workspace") == 2 * 30720 * (3584 + 18944)
    assert prefill_workspace_bytes(QWEN7, 30720, eager_mlp=True) > prefill_workspace_bytes(QWEN7, 30720)
