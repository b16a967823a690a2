"""AutoAWQ fuse_layers: fusing q/k/v after loading holds them twice, which can set the allocated peak."""

from conftest import FIXTURES
from gpudesk.sizing import spec_from_hf_config
from gpudesk.sizing.fused_load import fused_qkv_copy_bytes
from gpudesk.sizing.memory import MemoryWorkload, estimate_memory

GIB = 1024**3
CONFIGS = FIXTURES / "sizing" / "configs"
LLAMA_7B = spec_from_hf_config(CONFIGS / "llama-2-7b.config.json")
MISTRAL_7B = spec_from_hf_config(CONFIGS / "mistral-7b.config.json")


def _allocated(spec, tokens, fused, batch=1):
    workload = MemoryWorkload(mode="inference", precision="fp16", weight_format="int4-g128", kv_precision="fp16",
                              kv_cache_impl="static-linear-mask", context_tokens=tokens, concurrent_sequences=batch,
                              flash_attention=False, fused_qkv_load=fused)
    return estimate_memory(spec, workload)


def test_copy_is_every_layers_q_k_v_in_the_weight_format():
    # Llama-2-7B: 32 layers x 4096 x (32 + 2 x 32) heads x 128 at 4.156 bit; Mistral's 8 KV heads make it 6144 wide.
    assert fused_qkv_copy_bytes(LLAMA_7B, "int4-g128") == 32 * 4096 * 12288 * (4 + 20 / 128) / 8
    assert fused_qkv_copy_bytes(MISTRAL_7B, "int4-g128") == 32 * 4096 * 6144 * (4 + 20 / 128) / 8
    assert fused_qkv_copy_bytes(LLAMA_7B, "int4-g128", tensor_parallel=2) == 32 * 4096 * 12288 * (4 + 20 / 128) / 16


def test_short_run_peaks_at_the_fusing_moment():
    # AutoAWQ 0.1.6 README: Vicuna-7B (Llama-2-7B shape) GEMV, batch 1, 64 + 64 tokens: 4.50 GB allocated.
    plain, fused = _allocated(LLAMA_7B, 64, False), _allocated(LLAMA_7B, 64, True)
    copy = fused_qkv_copy_bytes(LLAMA_7B, "int4-g128")
    transients = plain.allocated_bytes - plain.breakdown["weights"]
    assert fused.breakdown["fused_load_copy"] == round(copy - transients)
    assert abs(fused.allocated_bytes / (4.50 * GIB) - 1) < 0.05
    assert any("fusing q, k and v" in text for text, _source in fused.assumptions)


def test_long_run_peak_is_unchanged_when_its_transients_are_larger():
    plain, fused = _allocated(MISTRAL_7B, 2048, False, batch=8), _allocated(MISTRAL_7B, 2048, True, batch=8)
    assert "fused_load_copy" not in fused.breakdown
    assert fused.allocated_bytes == plain.allocated_bytes
