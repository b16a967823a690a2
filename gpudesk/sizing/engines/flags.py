"""The command-line flags each engine's own argument parser accepts, by release, and a check of a command line.

The command a fit shows must start that engine in the configuration it was sized for: every flag must exist in
the engine's parser of the version asked for, and every setting that changes memory must reach the engine.

Sources, per engine (the parser named is where each flag is declared):

- vLLM: ``vllm/engine/arg_utils.py`` ``EngineArgs.add_cli_args`` (https://github.com/vllm-project/vllm). The
  ``vllm serve`` console script is used from 0.5.2 on (``vllm/scripts.py``, later ``vllm/entrypoints/cli``); earlier
  releases start with ``python -m vllm.entrypoints.openai.api_server --model M`` (the form vLLM 0.3 logs show,
  QwenLM/Qwen3#16), which every release keeps.
  :data:`FLAG_SINCE` gives the first release whose parser declares each optional flag, read from
  ``vllm/engine/arg_utils.py`` of the 0.2.0-0.7.3 wheels on PyPI (the required ones are in 0.2.0 already);
  ``vllm/scripts.py``, the ``vllm`` console script, first ships in the 0.5.2 wheel. ``--kv-cache-dtype`` took
  ``auto|fp8_e5m2`` in 0.3.0-0.4.0, ``auto|fp8`` in 0.4.1-0.4.2 and ``fp8``, ``fp8_e5m2``, ``fp8_e4m3`` from 0.4.3.
- SGLang: ``python/sglang/srt/server_args.py`` ``ServerArgs.add_cli_args`` (https://github.com/sgl-project/sglang),
  started with ``python -m sglang.launch_server --model-path M``; read in the 0.3.0, 0.4.0, 0.4.3.post4, 0.4.4, 0.4.9
  and 0.5.3 wheels: ``--cuda-graph-max-bs`` from 0.4.0, ``--page-size`` from 0.4.4, ``--kv-cache-dtype fp8_e4m3``
  beside ``fp8_e5m2`` from 0.4.3.
- TensorRT-LLM: ``trtllm-serve`` (``tensorrt_llm/commands/serve.py``, click options, https://github.com/NVIDIA/
  TensorRT-LLM) takes ``--tp_size --max_batch_size --max_num_tokens --max_seq_len
  --kv_cache_free_gpu_memory_fraction`` and the rest of ``KvCacheConfig`` (``max_tokens``, ``dtype``,
  ``tokens_per_block``) through ``--extra_llm_api_options FILE.yaml``. The 0.18.2 documentation
  (nvidia.github.io/TensorRT-LLM/0.18.2/commands/trtllm-serve.html) is the oldest that lists ``trtllm-serve``, and it
  has no ``--extra_llm_api_options``; the 1.0.0 documentation uses it. Before 0.18, or before 1.0 when a
  ``KvCacheConfig`` setting besides the fraction is given, the command runs a built engine with ``examples/run.py``
  (``--engine_dir --max_output_len --kv_cache_free_gpu_memory_fraction --max_tokens_in_paged_kv_cache``); the KV
  cache type of a built engine is chosen when it is built (``trtllm-build``), not at run time.
- llama.cpp: ``common/arg.cpp`` ``common_params_parser_init`` (https://github.com/ggml-org/llama.cpp). ``-fa`` was a
  bare switch until ``--flash-attn`` took a value ``on|off|auto`` (default ``auto``) in builds around b6343
  (WasmEdge/WasmEdge#4343 "bump llama.cpp b6343: the type of flash attention is changed from bool to string";
  yazon/flexllama#15 shows the new parser refusing a bare ``--flash-attn``); from then the flag is always given a
  value, since leaving it out means ``auto``, not off. Older builds lack flags and the binary name:
  ``-fa`` came with ``ggml : add Flash Attention`` (PR #5021, merged 2024-04-30; b2797 has it, kherud/java-llama.cpp
  #60 "Upgrade to llama.cpp b2797 ... adds flash attention"); ``--swa-full`` with ``kv-cache : add SWA support``
  (PR #13194, May 2025; build 5439 takes it, ggml-org/llama.cpp#13683); the server binary was ``server`` until
  PR #7809 renamed it ``llama-server`` (merged June 2024, around b3140; ggml-org/llama.cpp#7933: "the server is
  now called llama-server"). :data:`LLAMACPP_FLAG_SINCE_BUILD` lists the first build known to take each.
- Ollama: server settings are environment variables of ``ollama serve`` (``envconfig/config.go``:
  ``OLLAMA_FLASH_ATTENTION``, ``OLLAMA_KV_CACHE_TYPE``, ``OLLAMA_NUM_PARALLEL``, ``OLLAMA_GPU_OVERHEAD``); model
  options are Modelfile ``PARAMETER`` lines (``docs/modelfile.md``: ``num_ctx``, ``num_gpu``, ``num_batch``), so the
  command writes a Modelfile, creates the model and runs it. The variables are read from these releases on (the
  first tag whose Go sources name them, ollama/ollama git tags): ``OLLAMA_NUM_PARALLEL`` 0.1.33,
  ``OLLAMA_FLASH_ATTENTION`` 0.1.39, ``OLLAMA_GPU_OVERHEAD`` 0.3.10, ``OLLAMA_KV_CACHE_TYPE`` 0.5.0; an older release
  ignores them silently, so a setting it cannot take is refused.
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
        "--swap-space", "--num-gpu-blocks-override", "--enable-prefix-caching", "--kv-transfer-config",
        "--disable-hybrid-kv-cache-manager"}),
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
#: First release whose parser has each optional flag (module docstring); a flag not listed is in every release.
FLAG_SINCE: dict[str, dict[str, tuple[int, ...]]] = {
    "vllm": {"--kv-cache-dtype": (0, 3, 0), "--enforce-eager": (0, 2, 6), "--enable-chunked-prefill": (0, 4, 0),
             "--enable-lora": (0, 3, 0), "--max-lora-rank": (0, 3, 0), "--max-loras": (0, 3, 0),
             "--cpu-offload-gb": (0, 5, 3), "--num-gpu-blocks-override": (0, 4, 1),
             "--enable-prefix-caching": (0, 4, 0), "--kv-transfer-config": (0, 6, 5),
             "--disable-hybrid-kv-cache-manager": (0, 10, 0), "--skip-mm-profiling": (0, 10, 1),
             "--language-model-only": (0, 17, 0)},
    "sglang": {"--cuda-graph-max-bs": (0, 4, 0), "--page-size": (0, 4, 4)},
    "ollama": {"OLLAMA_NUM_PARALLEL": (0, 1, 33), "OLLAMA_FLASH_ATTENTION": (0, 1, 39),
               "OLLAMA_GPU_OVERHEAD": (0, 3, 10), "OLLAMA_KV_CACHE_TYPE": (0, 5, 0)},
}
#: llama.cpp: first build known to take each optional flag (module docstring); flags not listed are older than b2000.
LLAMACPP_FLAG_SINCE_BUILD: dict[str, int] = {"-fa": 2797, "--swa-full": 5439}
#: llama.cpp build from which the server binary is ``llama-server`` (before: ``server``; PR #7809).
LLAMACPP_SERVER_RENAME_BUILD = 3140
#: Values of ``--kv-cache-dtype`` by release: (first release, accepted values), newest last (module docstring).
KV_CACHE_DTYPES: dict[str, tuple[tuple[tuple[int, ...], frozenset[str]], ...]] = {
    "vllm": (((0, 3, 0), frozenset({"auto", "fp8_e5m2"})), ((0, 4, 1), frozenset({"auto", "fp8"})),
             ((0, 4, 3), frozenset({"auto", "fp8", "fp8_e5m2", "fp8_e4m3"}))),
    "sglang": (((0, 3, 0), frozenset({"auto", "fp8_e5m2"})), ((0, 4, 3), frozenset({"auto", "fp8_e5m2", "fp8_e4m3"}))),
}
#: How the engines are named in messages.
ENGINE_NAMES = {"vllm": "vLLM", "sglang": "SGLang", "trtllm": "TensorRT-LLM", "llamacpp": "llama.cpp", "ollama": "Ollama"}
#: llama.cpp build from which ``-fa`` takes ``on|off|auto`` (module docstring).
LLAMACPP_FA_VALUE_BUILD = 6343
#: TensorRT-LLM release that ships ``trtllm-serve``.
TRTLLM_SERVE_RELEASE = (0, 18)
#: TensorRT-LLM release whose ``trtllm-serve`` takes ``--extra_llm_api_options`` (module docstring).
TRTLLM_EXTRA_OPTIONS_RELEASE = (1, 0)
#: vLLM release from which the command uses ``vllm serve``.
VLLM_SERVE_RELEASE = (0, 5, 2)


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


def llamacpp_server_binary(version: str) -> str:
    """``llama-server``, or ``server`` in builds before :data:`LLAMACPP_SERVER_RENAME_BUILD`."""
    build = llamacpp_build(version)
    return "server" if build is not None and build < LLAMACPP_SERVER_RENAME_BUILD else "llama-server"


def llamacpp_has_flag(version: str, flag: str) -> bool:
    """Whether llama.cpp ``version`` takes ``flag`` (:data:`LLAMACPP_FLAG_SINCE_BUILD`; unnumbered: newest)."""
    build, first = llamacpp_build(version), LLAMACPP_FLAG_SINCE_BUILD.get(flag)
    return build is None or first is None or build >= first


def fa_takes_value(version: str) -> bool:
    """True when llama.cpp's ``-fa`` takes ``on|off|auto`` (unknown builds: the newer parser)."""
    build = llamacpp_build(version)
    return build is None or build >= LLAMACPP_FA_VALUE_BUILD


def uses_vllm_serve(version: str) -> bool:
    release = release_tuple(version)
    return release is None or _padded(release) >= VLLM_SERVE_RELEASE


def _padded(release: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(release) + (0,) * (3 - len(release))


def missing_in_release(engine: str, version: str, flags: dict[str, object]) -> list[tuple[str, str]]:
    """(flag, sentence) for each of ``flags`` (flag -> value) that the engine's parser of ``version`` does not take:
    a flag added later, or a ``--kv-cache-dtype`` value it does not accept. A family name (``v0``, ``v1``) or an
    unnumbered build is the newest parser, so nothing is missing."""
    from gpudesk.i18n import _

    if engine == "llamacpp":
        build = llamacpp_build(version)
        return [] if build is None else [
            (flag, _("{flag} first appears in {engine} {first}; {version} does not take it.").format(
                flag=flag, engine="llama.cpp", first=f"b{since_build}", version=version))
            for flag in flags if (since_build := LLAMACPP_FLAG_SINCE_BUILD.get(flag)) is not None
            and build < since_build]
    release = release_tuple(version)
    if release is None:
        return []
    release = _padded(release)
    out = []
    since = FLAG_SINCE.get(engine, {})
    name = ENGINE_NAMES.get(engine, engine)
    for flag, value in flags.items():
        first = since.get(flag)
        if first is not None and release < first:
            out.append((flag, _("{flag} first appears in {engine} {first}; {version} does not take it.").format(
                flag=flag, engine=name, first=".".join(map(str, first)), version=version)))
        elif flag == "--kv-cache-dtype":
            accepted = kv_cache_dtypes(engine, release)
            if accepted is not None and str(value) not in accepted:
                out.append((flag, _("{engine} {version} takes --kv-cache-dtype {values}, not {value}.").format(
                    engine=name, version=version, values="|".join(sorted(accepted)), value=value)))
    return out


def kv_cache_dtypes(engine: str, release: tuple[int, ...]) -> frozenset[str] | None:
    """The ``--kv-cache-dtype`` values of ``engine`` at ``release`` (None: not tabulated)."""
    table = KV_CACHE_DTYPES.get(engine)
    if not table:
        return None
    accepted: frozenset[str] | None = None
    for first, values in table:
        if _padded(release) >= first:
            accepted = values
    return accepted


def fp8_kv_value(engine: str, version: str) -> str | None:
    """The ``--kv-cache-dtype`` an fp8 KV cache is spelled with in ``engine`` ``version`` (None: none there)."""
    release = release_tuple(version)
    if engine not in KV_CACHE_DTYPES or release is None:
        return {"vllm": "fp8", "sglang": "fp8_e5m2"}.get(engine)
    accepted = kv_cache_dtypes(engine, release) or frozenset()
    for value in ("fp8", "fp8_e5m2"):
        if value in accepted:
            return value
    return None


def uses_trtllm_serve(version: str) -> bool:
    release = release_tuple(version)
    return release is None or release[:2] >= TRTLLM_SERVE_RELEASE


def trtllm_serve_takes_extra_options(version: str) -> bool:
    release = release_tuple(version)
    return release is None or release[:2] >= TRTLLM_EXTRA_OPTIONS_RELEASE


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


__all__ = ["FLAG_SINCE", "KV_CACHE_DTYPES", "LLAMACPP_FLAG_SINCE_BUILD", "llamacpp_has_flag", "llamacpp_server_binary", "PARSER_FLAGS", "command_flags", "fa_takes_value", "fp8_kv_value",
           "kv_cache_dtypes", "llamacpp_build", "missing_in_release", "release_tuple", "unknown_flags",
           "trtllm_serve_takes_extra_options", "uses_trtllm_serve", "uses_vllm_serve"]
