"""The command line a fit shows starts that engine: every flag exists in the engine's parser of that version, and
every setting given reaches the engine (gpudesk.sizing.engines.flags)."""

from __future__ import annotations

import shlex

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing import spec_from_catalog
from gpudesk.sizing.engines.device import DeviceMemory
from gpudesk.sizing.engines.fit import engine_fit
from gpudesk.sizing.engines.flags import PARSER_FLAGS, command_flags, fa_takes_value, unknown_flags

H100 = DeviceMemory("H100", 80 * 1024**3)

#: Every setting of each engine set away from its default (the engine's own spelling).
ALL_SETTINGS = {
    "vllm": ["gpu_memory_utilization=0.85", "max_model_len=8192", "max_num_seqs=64", "max_num_batched_tokens=4096",
             "block_size=32", "kv_cache_dtype=fp8", "dtype=float16", "tensor_parallel_size=2", "enforce_eager=true",
             "enable_chunked_prefill=true", "enable_lora=true", "max_lora_rank=32", "max_loras=2",
             "cpu_offload_gb=1", "swap_space=8", "num_gpu_blocks_override=1000", "enable_prefix_caching=true",
             "kv_transfer_config={\"kv_connector\":\"LMCacheConnectorV1\",\"kv_role\":\"kv_both\"}"],
    "sglang": ["mem_fraction_static=0.8", "context_length=8192", "max_running_requests=64", "max_total_tokens=100000",
               "chunked_prefill_size=4096", "kv_cache_dtype=fp8_e5m2", "dtype=float16", "tp_size=2", "page_size=16",
               "cuda_graph_max_bs=64", "disable_cuda_graph=true"],
    "trtllm": ["free_gpu_memory_fraction=0.8", "max_tokens=100000", "tokens_per_block=64", "max_batch_size=64",
               "max_num_tokens=4096", "max_seq_len=8192", "tp_size=2", "kv_cache_dtype=fp8"],
    "llamacpp": ["n_gpu_layers=20", "n_ctx=8192", "n_batch=1024", "n_ubatch=256", "cache_type_k=q8_0",
                 "cache_type_v=q8_0", "flash_attn=true", "no_kv_offload=true", "parallel=2", "swa_full=true"],
    "ollama": ["num_ctx=8192", "num_batch=256", "num_gpu=20", "num_parallel=2", "kv_cache_type=q8_0",
               "flash_attention=true", "gpu_overhead=1000000"],
}
#: The settings vLLM's parser had already in 0.2 (vllm/engine/arg_utils.py of December 2023).
VLLM_0_2_SETTINGS = ["gpu_memory_utilization=0.85", "max_model_len=8192", "max_num_seqs=64",
                     "max_num_batched_tokens=8192", "block_size=32", "dtype=float16", "tensor_parallel_size=2",
                     "swap_space=8"]
VERSIONS = {"vllm": ["0.6.5", "0.9.2", "v1"], "sglang": ["0.4.4", "0.5.3"], "trtllm": ["0.13.0", "0.19.0", "1.0"],
            "llamacpp": ["b5500", "b6000", "b6500"], "ollama": ["0.12"]}


def _fit(engine: str, version: str, args: list[str]):
    spec = spec_from_catalog(open_catalog().model("llama-3.1-8b"))
    fmt = "q4_k_m" if engine in ("llamacpp", "ollama") else "bf16"
    return engine_fit(engine, spec, H100, args, version=version, weight_format=fmt)


def _parser(engine: str, version: str, command: str) -> str:
    if engine == "trtllm" and command.startswith("python3 examples/run.py"):
        return "trtllm_run"
    return engine


@pytest.mark.parametrize("engine,version", [(e, v) for e, vs in VERSIONS.items() for v in vs])
def test_every_flag_of_the_command_exists_in_that_engine_version(engine: str, version: str) -> None:
    command = _fit(engine, version, ALL_SETTINGS[engine]).command
    assert command_flags(command), command
    assert unknown_flags(_parser(engine, version, command), command) == [], command


def test_old_vllm_gets_the_api_server_with_the_flags_it_had() -> None:
    command = _fit("vllm", "0.2.4", VLLM_0_2_SETTINGS).command
    assert command.startswith("python -m vllm.entrypoints.openai.api_server --model ")
    assert len(command_flags(command)) == len(VLLM_0_2_SETTINGS) + 1
    assert unknown_flags("vllm", command) == []


def test_a_flag_the_parser_lacks_is_reported() -> None:
    assert unknown_flags("vllm", "vllm serve m --max-model-len 8 --max-context-len 8") == ["--max-context-len"]
    assert unknown_flags("llamacpp", "llama-server -m x.gguf --flash-attention") == ["--flash-attention"]


def test_vllm_uses_the_api_server_module_before_vllm_serve_existed() -> None:
    old = _fit("vllm", "0.3.0", ["max_model_len=4096"]).command
    new = _fit("vllm", "0.9.2", ["max_model_len=4096"]).command
    assert old.startswith("python -m vllm.entrypoints.openai.api_server --model ")
    assert new.startswith("vllm serve meta-llama/")


def test_llama_cpp_flash_attention_is_spelled_as_that_build_parses_it() -> None:
    assert not fa_takes_value("b6000") and fa_takes_value("b6343") and fa_takes_value("latest")
    old_on = shlex.split(_fit("llamacpp", "b6000", ["flash_attn=true"]).command)
    old_off = shlex.split(_fit("llamacpp", "b6000", []).command)
    assert old_on[old_on.index("-fa") + 1] == "-ngl" and "-fa" not in old_off
    new_on = shlex.split(_fit("llamacpp", "b6500", ["flash_attn=true"]).command)
    new_off = shlex.split(_fit("llamacpp", "b6500", []).command)
    # from b6343 leaving -fa out means auto, so the checked configuration says on or off
    assert new_on[new_on.index("-fa") + 1] == "on" and new_off[new_off.index("-fa") + 1] == "off"


def test_trtllm_kv_cache_settings_without_a_flag_reach_the_engine_through_the_options_file() -> None:
    command = _fit("trtllm", "1.0", ["max_tokens=100000", "kv_cache_dtype=fp8", "tokens_per_block=64"]).command
    assert "--extra_llm_api_options extra_llm_api_options.yaml" in command
    assert "max_tokens: 100000" in command and "dtype: fp8" in command and "tokens_per_block: 64" in command
    plain = _fit("trtllm", "1.0", []).command
    assert plain.startswith("trtllm-serve ") and "--extra_llm_api_options" not in plain
    old = _fit("trtllm", "0.13.0", ["max_tokens=100000"]).command
    assert old.startswith("python3 examples/run.py") and "--max_tokens_in_paged_kv_cache 100000" in old
    # 0.18-0.21: trtllm-serve, but without --extra_llm_api_options (0.18.2 docs), so run.py carries max_tokens
    assert _fit("trtllm", "0.19.0", []).command.startswith("trtllm-serve ")
    capped = _fit("trtllm", "0.19.0", ["max_tokens=100000"]).command
    assert capped.startswith("python3 examples/run.py") and "--max_tokens_in_paged_kv_cache 100000" in capped


def test_ollama_server_settings_go_to_ollama_serve_and_model_options_to_the_modelfile() -> None:
    command = _fit("ollama", "0.12", ["num_ctx=8192", "num_gpu=20", "flash_attention=true",
                                      "kv_cache_type=q8_0"]).command
    serve, rest = command.split(" & ", 1)
    assert serve == "OLLAMA_FLASH_ATTENTION=1 OLLAMA_KV_CACHE_TYPE=q8_0 ollama serve"
    assert "PARAMETER num_ctx 8192" in rest and "PARAMETER num_gpu 20" in rest
    assert "ollama create " in rest and rest.split(" && ")[-1].startswith("ollama run ")
    assert set(PARSER_FLAGS["ollama"]) >= set(command_flags(command))


def test_a_setting_the_release_has_no_flag_for_is_refused_by_name() -> None:
    """FLAG_SINCE / KV_CACHE_DTYPES as read in the vLLM 0.2.0-0.7.3 and SGLang 0.3.0-0.5.3 wheels."""
    from gpudesk.sizing import SizingError

    with pytest.raises(SizingError, match=r"--kv-transfer-config first appears in vLLM 0\.6\.5"):
        _fit("vllm", "0.5.4", ["kv_transfer_config={}"])
    with pytest.raises(SizingError, match=r"takes --kv-cache-dtype auto\|fp8_e5m2, not fp8"):
        _fit("vllm", "0.4.0", ["kv_cache_dtype=fp8"])
    with pytest.raises(SizingError, match=r"--page-size first appears in SGLang 0\.4\.4"):
        _fit("sglang", "0.4.3.post4", ["page_size=16"])
    assert "--kv-cache-dtype fp8_e4m3" in _fit("vllm", "0.4.3", ["kv_cache_dtype=fp8_e4m3"]).command
    assert _fit("vllm", "v0", ["kv_transfer_config={}"]).command  # a family name is the newest parser


def test_the_fp8_kv_suggestion_uses_the_release_spelling() -> None:
    from gpudesk.sizing.engines.flags import fp8_kv_value

    assert [fp8_kv_value("vllm", v) for v in ("0.2.7", "0.3.0", "0.4.1", "0.11.0", "v1")] == [
        None, "fp8_e5m2", "fp8", "fp8", "fp8"]
    spec = spec_from_catalog(open_catalog().model("llama-3.1-70b"))
    small = DeviceMemory("RTX 3090", int(23.6 * 1024**3))
    old = engine_fit("vllm", spec, small, ["max_model_len=8192"], version="0.3.0", weight_format="int4-g128")
    assert all("--kv-cache-dtype fp8 " not in c.command + " " for c in old.changes)


def test_old_llama_cpp_builds_get_the_server_binary_and_no_flag_they_lack() -> None:
    """flags.LLAMACPP_FLAG_SINCE_BUILD / LLAMACPP_SERVER_RENAME_BUILD: -fa from b2797 (PR #5021), --swa-full from
    b5439 (PR #13194), ``server`` renamed ``llama-server`` by PR #7809 (June 2024)."""
    from gpudesk.sizing import SizingError

    old = shlex.split(_fit("llamacpp", "b2000", ["n_ctx=2048"]).command)
    assert old[0] == "server" and "-fa" not in old and "-c" in old
    assert shlex.split(_fit("llamacpp", "b3400", []).command)[0] == "llama-server"
    with pytest.raises(SizingError, match=r"-fa first appears in llama.cpp b2797; b2000 does not take it"):
        _fit("llamacpp", "b2000", ["flash_attn=true"])
    with pytest.raises(SizingError, match=r"--swa-full first appears in llama.cpp b5439"):
        _fit("llamacpp", "b3400", ["swa_full=true"])
    spec = spec_from_catalog(open_catalog().model("llama-3.1-70b"))
    small = DeviceMemory("RTX 3090", int(23.6 * 1024**3))
    tight = engine_fit("llamacpp", spec, small, ["n_ctx=32768"], version="b2000", weight_format="q4_k_m")
    assert tight.changes and all("-fa" not in shlex.split(c.command) for c in tight.changes)


def test_ollama_settings_older_releases_ignore_are_refused() -> None:
    """flags.FLAG_SINCE['ollama']: the first ollama tag whose sources read each environment variable."""
    from gpudesk.sizing import SizingError

    with pytest.raises(SizingError, match=r"OLLAMA_KV_CACHE_TYPE first appears in Ollama 0\.5\.0; 0\.4\.7"):
        _fit("ollama", "0.4.7", ["kv_cache_type=q8_0", "flash_attention=true"])
    with pytest.raises(SizingError, match=r"OLLAMA_GPU_OVERHEAD first appears in Ollama 0\.3\.10"):
        _fit("ollama", "0.3.9", ["gpu_overhead=1000000"])
    assert "OLLAMA_KV_CACHE_TYPE=q8_0" in _fit("ollama", "0.5.0", ["kv_cache_type=q8_0", "flash_attention=true"]).command
