"""The command-line flags each engine's own argument parser accepts, by release, and a check of a command line.

The command a fit shows must start that engine in the configuration it was sized for: every flag must exist in
the engine's parser of the version asked for, and every setting that changes memory must reach the engine.

Sources, per engine (the parser named is where each flag is declared):

- vLLM: ``vllm/engine/arg_utils.py`` ``EngineArgs.add_cli_args`` (https://github.com/vllm-project/vllm). The
  ``vllm serve`` console script is used from 0.6 on (``vllm/scripts.py``, later ``vllm/entrypoints/cli``); earlier
  releases start with ``python -m vllm.entrypoints.openai.api_server --model M`` (the form vLLM 0.3 logs show,
  QwenLM/Qwen3#16), which every release keeps.
  Which release added each optional flag is not tabulated here (only the command's form changes by release).
- SGLang: ``python/sglang/srt/server_args.py`` ``ServerArgs.add_cli_args`` (https://github.com/sgl-project/sglang),
  started with ``python -m sglang.launch_server --model-path M``.
- TensorRT-LLM: ``trtllm-serve`` (``tensorrt_llm/commands/serve.py``, click options, https://github.com/NVIDIA/
  TensorRT-LLM) takes ``--tp_size --max_batch_size --max_num_tokens --max_seq_len
  --kv_cache_free_gpu_memory_fraction`` and the rest of ``KvCacheConfig`` (``max_tokens``, ``dtype``,
  ``tokens_per_block``) through ``--extra_llm_api_options FILE.yaml``; it ships from 0.16 (release notes). Earlier
  releases run a built engine with ``examples/run.py`` (``--engine_dir --max_output_len
  --kv_cache_free_gpu_memory_fraction --max_tokens_in_paged_kv_cache``).
- llama.cpp: ``common/arg.cpp`` ``common_params_parser_init`` (https://github.com/ggml-org/llama.cpp). ``-fa`` was a
  bare switch until ``--flash-attn`` took a value ``on|off|auto`` (default ``auto``) in builds around b6343
  (WasmEdge/WasmEdge#4343 "bump llama.cpp b6343: the type of flash attention is changed from bool to string";
  yazon/flexllama#15 shows the new parser refusing a bare ``--flash-attn``); from then the flag is always given a
  value, since leaving it out means ``auto``, not off.
- Ollama: server settings are environment variables of ``ollama serve`` (``envconfig/config.go``:
  ``OLLAMA_FLASH_ATTENTION``, ``OLLAMA_KV_CACHE_TYPE``, ``OLLAMA_NUM_PARALLEL``, ``OLLAMA_GPU_OVERHEAD``); model
  options are Modelfile ``PARAMETER`` lines (``docs/modelfile.md``: ``num_ctx``, ``num_gpu``, ``num_batch``), so the
  command writes a Modelfile, creates the model and runs it.
"""

from __future__ import annotations

import re
import shlex

#: Flags of each engine's parser (module docstring), as the commands here spell them.
PARSER_FLAGS: dict[str, frozenset[str]] = {
    "vllm": frozenset({
        "--model", "--gpu-memory-utilization", "--max-model-len", "--max-num-seqs", "--max-num-batched-tokens",
        "--block-size", "--kv-cache-dtype", "--dtype", "--quantization", "--tensor-parallel-size", "--enforce-eager",
        "--enable-chunked-prefill", "--enable-lora", "--max-lora-rank", "--max-loras", "--cpu-offload-gb",
        "--swap-space", "--num-gpu-blocks-override", "--enable-prefix-caching", "--kv-transfer-config"}),
    "sglang": frozenset({
        "--model-path", "--mem-fraction-static", "--context-length", "--max-running-requests", "--max-total-tokens",
        "--chunked-prefill-size", "--kv-cache-dtype", "--dtype", "--quantization", "--tp-size", "--page-size",
        "--cuda-graph-max-bs", "--disable-cuda-graph"}),
    "trtllm": frozenset({
        "--tp_size", "--max_batch_size", "--max_num_tokens", "--max_seq_len", "--kv_cache_free_gpu_memory_fraction",
        "--extra_llm_api_options"}),
    "trtllm_run": frozenset({
        "--engine_dir", "--max_output_len", "--kv_cache_free_gpu_memory_fraction", "--max_tokens_in_paged_kv_cache"}),
    "llamacpp": frozenset({
        "-m", "-ngl", "-c", "-b", "-ub", "--cache-type-k", "--cache-type-v", "-fa", "--tensor-split",
        "--no-kv-offload", "-np", "--swa-full"}),
    "ollama": frozenset({"-f"}),
}
#: llama.cpp build from which ``-fa`` takes ``on|off|auto`` (module docstring).
LLAMACPP_FA_VALUE_BUILD = 6343
#: TensorRT-LLM release that ships ``trtllm-serve``.
TRTLLM_SERVE_RELEASE = (0, 16)
#: vLLM release from which the command uses ``vllm serve``.
VLLM_SERVE_RELEASE = (0, 6)


def release_tuple(version: str) -> tuple[int, ...] | None:
    """``0.6.3.post1`` -> (0, 6, 3); ``v0.10`` -> (0, 10); None for a family name (``v0``, ``v1``, ``latest``)."""
    parts = version.strip().lower().lstrip("v").split(".")
    nums: list[int] = []
    for p in parts[:3]:
        digits = re.match(r"\d+", p)
        if not digits:
            break
        nums.append(int(digits.group()))
    return tuple(nums) if len(nums) >= 2 else None


def llamacpp_build(version: str) -> int | None:
    """``b6343`` -> 6343; None when the version is not a build number."""
    m = re.fullmatch(r"b(\d+)", version.strip().lower())
    return int(m.group(1)) if m else None


def fa_takes_value(version: str) -> bool:
    """True when llama.cpp's ``-fa`` takes ``on|off|auto`` (unknown builds: the newer parser)."""
    build = llamacpp_build(version)
    return build is None or build >= LLAMACPP_FA_VALUE_BUILD


def uses_vllm_serve(version: str) -> bool:
    release = release_tuple(version)
    return release is None or release[:2] >= VLLM_SERVE_RELEASE


def uses_trtllm_serve(version: str) -> bool:
    release = release_tuple(version)
    return release is None or release[:2] >= TRTLLM_SERVE_RELEASE


def command_flags(command: str) -> list[str]:
    """The engine's flags in a command line (``-x``/``--name`` words, across ``&&``-joined steps), leaving out the
    interpreter's ``python -m MODULE``."""
    words = shlex.split(command, comments=False)
    out: list[str] = []
    skip = 0
    for i, w in enumerate(words):
        if skip:
            skip -= 1
            continue
        if w in ("python", "python3") and i + 1 < len(words) and words[i + 1] == "-m":
            skip = 2
            continue
        if re.fullmatch(r"--?[A-Za-z][\w-]*", w):
            out.append(w)
    return out


def unknown_flags(parser: str, command: str) -> list[str]:
    """Flags of ``command`` that ``parser`` (a key of :data:`PARSER_FLAGS`) does not declare."""
    known = PARSER_FLAGS[parser]
    return [f for f in command_flags(command) if f not in known]


__all__ = ["PARSER_FLAGS", "command_flags", "fa_takes_value", "llamacpp_build", "release_tuple", "unknown_flags",
           "uses_trtllm_serve", "uses_vllm_serve"]
