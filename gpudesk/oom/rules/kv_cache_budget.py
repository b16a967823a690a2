"""``kv_cache_budget``: the KV cache left after weights and activations cannot hold max_model_len tokens.

vLLM's start-up check (vllm#2418: 229 blocks × 16 = 3664 tokens < 4096). Evidence: max_model_len, KV
capacity in tokens, the shortfall; the fix names the exact flag value. KV bytes per token =
2 · layers · kv_heads · head_dim · bytes (oom.md §1.2) when the sizing code knows the model.
"""

from __future__ import annotations

from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, evidence


def check(f: Facts) -> Cause | None:
    r = f.report
    if r.kind != "vllm_kv_cache":
        return None
    cap, need = r.kv_cache_tokens, r.max_model_len_tokens
    block = int(r.parsed.get("kv_block_size_tokens", 16))
    util = r.parsed.get("gpu_memory_utilization_ratio")
    if cap is not None and cap > 0:
        fit = (cap // block) * block or cap
        fix = f"Start vLLM with --max-model-len {fit} (the KV cache holds {cap} tokens)"
    else:
        fix = "Free memory for the KV cache: raise --gpu-memory-utilization (e.g. 0.95) or use a smaller model"
    more = [
        "Raise --gpu-memory-utilization" + (f" above {util}" if util else " (default 0.9)") + " if nothing else uses the GPU.",
        "Store the KV cache in fp8: --kv-cache-dtype fp8.",
        "Shard the model over more GPUs (--tensor-parallel-size) or quantise the weights to leave room for KV.",
    ]
    return Cause(
        id="kv_cache_budget",
        title="KV cache too small for the maximum sequence length",
        confidence=0.9,
        evidence=evidence(
            max_model_len_tokens=need,
            kv_cache_tokens=cap,
            shortfall_tokens=(need - cap) if need is not None and cap is not None else None,
            kv_cache_blocks=r.parsed.get("kv_cache_blocks"),
            kv_cache_needed_bytes=r.parsed.get("kv_cache_needed_bytes"),
            kv_cache_available_bytes=r.parsed.get("kv_cache_available_bytes"),
            gpu_memory_utilization_ratio=util,
        ),
        explanation="After loading the weights and profiling activations, the memory left under "
                    "gpu_memory_utilization holds fewer KV-cache tokens than one max-length request needs.",
        fix=fix,
        more_fixes=more,
    )
