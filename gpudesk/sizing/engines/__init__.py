"""Engine memory models: what an inference engine allocates at start-up, term by term, from its own source.

Modules (import them directly; this package imports nothing so that :mod:`gpudesk.sizing.dtypes` can read the
GGML type table without a cycle):

- ``ggml_types``: GGML tensor types (block size, bytes per block), llama.cpp file types (q4_k_m ...) with their
  bits per weight, KV-cache types.
- ``ggml_mix``: the tensor type each llama.cpp file type gives each tensor (llama-quant.cpp rules).
- ``gguf_file``: a local .gguf header read offline (tensor types and shapes, context, rope, KV heads).
- ``device``: the memory a GPU can use (discrete VRAM, or unified memory the OS lets the GPU wire).
- ``common``: engine settings as the engine spells them, and the fit result every engine returns.
- ``vllm``, ``sglang``, ``trtllm``, ``llamacpp``, ``ollama``: one model per engine.
- ``fit``: one call for any engine; ``advice``: the smallest change that makes a launch fit.
- ``validation``: the models against real start-up logs (tests/fixtures/engines/startup_logs.jsonl).
"""
