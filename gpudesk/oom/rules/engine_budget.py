"""Serving engines whose memory error is a shortage at the configured budget (``genuine_shortage``), each with
the engine's own knob:

* TGI warm-up "Not enough memory to handle N prefill tokens" → ``--max-batch-prefill-tokens`` below N
  (TGI's warm-up runs one prefill of that many tokens; ``flash_causal_lm.py`` warmup); 0.8.
* llama.cpp / Ollama buffer allocation (``ggml_backend_cuda_buffer_type_alloc_buffer``): the model buffer
  scales with the offloaded layers (``-ngl`` / Ollama ``num_gpu``), the compute buffer with
  ``--ubatch-size`` × ``--ctx-size``, the KV cache with ``--ctx-size``. With the free memory and the model
  buffer known, the layers that fit = offloaded × free / model buffer (rounded down); 0.8.
* TensorRT-LLM runtime buffers (``cudaMallocAsync`` in tllmBuffers.h): the engine's ``max_batch_size`` /
  ``max_num_tokens`` buffers do not fit next to the KV cache; 0.7. TensorRT's builder request alone (no
  capacity known) reads as a shortage during the build; 0.5.
"""

from __future__ import annotations

from gpudesk.oom.cause import Cause
from gpudesk.oom.parsers.units import format_bytes
from gpudesk.oom.rules.base import Facts, evidence


def check(f: Facts) -> Cause | None:
    r = f.report
    if r.kind == "tgi_prefill":
        n = int(r.parsed.get("max_batch_prefill_tokens", 0))
        return Cause(
            id="genuine_shortage",
            title="TGI cannot fit one prefill batch after loading the model",
            confidence=0.8,
            evidence=evidence(max_batch_prefill_tokens=n or None,
                              max_batch_total_tokens=r.parsed.get("max_batch_total_tokens")),
            explanation=(f"TGI's warm-up runs a prefill of {n} tokens; the memory left after the weights cannot hold "
                         "its activations." if n else "TGI's warm-up prefill does not fit next to the weights."),
            fix=(f"Start TGI with --max-batch-prefill-tokens below {n} (try {max(1, n // 2)}) and --max-input-tokens "
                 "no larger than it" if n > 1 else "Lower --max-batch-prefill-tokens and --max-input-tokens"),
            more_fixes=[("Quantise the weights (--quantize awq/gptq/eetq/bitsandbytes) or shard over more GPUs "
                        "(--num-shard) to leave room."),
                        "If this happens even at a few hundred tokens, the weights alone fill the GPU."],
        )
    if r.kind == "ggml_alloc_failed":
        return _ggml(f)
    if r.kind == "trtllm_runtime_alloc":
        return Cause(
            id="genuine_shortage",
            title="TensorRT-LLM's runtime buffers do not fit next to the KV cache",
            confidence=0.7,
            evidence=evidence(cuda_call=r.parsed.get("cuda_call"),
                              kv_cache_free_gpu_mem_fraction_ratio=r.parsed.get("kv_cache_free_gpu_mem_fraction_ratio")),
            explanation="A runtime buffer (sized by the engine's max_batch_size × max sequence length) could not be "
                        "allocated: the KV cache and the weights took the memory first.",
            fix="Rebuild the engine with a smaller --max_batch_size / --max_num_tokens, or lower "
                "kv_cache_free_gpu_mem_fraction (default 0.9) to leave room for the runtime buffers",
            more_fixes=["Cap the KV cache in bytes: KvCacheConfig.max_gpu_total_bytes.",
                        "Use tensor parallelism to spread the weights."],
        )
    if r.kind == "tensorrt_build_alloc" and f.total is None:
        return Cause(
            id="genuine_shortage",
            title="TensorRT could not allocate memory while building the engine",
            confidence=0.5,
            evidence=evidence(requested_bytes=f.requested),
            explanation=(f"The builder asked for {format_bytes(f.requested)} for a tactic or weights; compare it with "
                         "the GPU's capacity (not in the message)."),
            fix="Build with a smaller max_batch_size / max_input_len / max_seq_len, or on a GPU with more memory; "
                "limit the builder's workspace (--workspace / builder_config memory pool limit)",
        )
    return None


def _ggml(f: Facts) -> Cause:
    r = f.report
    buffer = str(r.parsed.get("ggml_buffer", "compute"))
    ollama = r.engine == "ollama"
    fits: int | None = None
    model_buf, layers = r.parsed.get("model_buffer_bytes"), r.parsed.get("offloaded_layers")
    if buffer == "model" and f.free is not None and isinstance(model_buf, int) and isinstance(layers, int) and model_buf:
        fits = max(0, int(layers * f.free / model_buf))
    if buffer == "model":
        title = "The model's offloaded layers do not fit on the GPU"
        knob = "num_gpu" if ollama else "-ngl / --n-gpu-layers"
        fix = (f"Offload fewer layers: {knob} {fits} (the free memory holds about {fits} of {layers})" if fits is not None
               else f"Offload fewer layers ({knob} below the current value) or use a smaller quantisation (e.g. Q4_K_M)")
        why = "The weights placed on this GPU need more memory than it has free."
    elif buffer == "kv_cache":
        title = "The KV cache for this context does not fit"
        fix = ("Lower the context: num_ctx / OLLAMA_CONTEXT_LENGTH" if ollama else
               "Lower --ctx-size (-c), or store the KV cache quantised: --cache-type-k q8_0 --cache-type-v q8_0")
        why = "The KV cache grows with the context size."
    else:
        title = "The compute buffer does not fit next to the model"
        fix = ("Lower the context (num_ctx / OLLAMA_CONTEXT_LENGTH) or offload fewer layers (num_gpu)" if ollama else
               "Lower --ubatch-size (-ub, e.g. 512) and --ctx-size (-c): the compute buffer scales with both; or offload "
               "fewer layers (-ngl) to leave room")
        why = "The compute (scratch) buffer is sized for the largest micro-batch and context; the layers on this GPU left too little."
    return Cause(
        id="genuine_shortage",
        title=title,
        confidence=0.8,
        evidence=evidence(requested_bytes=f.requested, device_index=r.device_index, ggml_buffer=buffer,
                          free_bytes=f.free, model_buffer_bytes=model_buf, offloaded_layers=layers,
                          layers_that_fit=fits, kv_cache_bytes=r.parsed.get("kv_cache_bytes")),
        explanation=why + (f" It asked for {format_bytes(f.requested)} on device {r.device_index}."
                           if f.requested is not None else ""),
        fix=fix,
        more_fixes=[("With several GPUs, shift layers away from the full one: --tensor-split (e.g. 3,1) or "
                    "CUDA_VISIBLE_DEVICES to exclude a small card."),
                    ("A buffer far larger than the GPU (hundreds of GiB) points to a sizing bug: try without "
                    "pipeline parallelism or a smaller --ubatch-size.")],
    )
