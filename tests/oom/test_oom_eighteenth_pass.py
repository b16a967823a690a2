"""Eighteenth pass (issue 28): the misses of fresh-21 read as mechanisms.

* A program's own configured memory ceiling printed beside the size it refused ("Model 'NAME' (10.20GB) exceeds
  max-model-memory (8.00GB)"): recognised; the setting refused it (per_process_cap) when the size is within twice the
  ceiling, the job's own need (genuine_shortage) when it is far beyond.
* Windows' commit-limit code named alone ("Error 1455"): host RAM and page file (not_capacity, host_ram check).
* vLLM's gpu_memory_utilization set to the whole GPU (0.96 or more) named with the failure: kv_cache_budget.
* Ollama's context setting (num_ctx) named as what brings the failure on: kv_cache_budget.
* Memory one request leaves behind and the next adds to ("is not released", "continue to increase the GPU memory"):
  a leak.

Every text is a real message quoted from the public thread named in its comment; a variant is marked as such.
Negative cases check that each reading needs its own words."""

from __future__ import annotations

from gpudesk.oom import diagnose_text


def _top(text: str) -> tuple[str, bool, float, object]:
    d = diagnose_text(text)
    top = d.causes[0]
    return top.id, d.found_oom, top.confidence, top.evidence.get("deciding_check")


# jundot/omlx#113.
OMLX_CAP = "Model 'Qwen3.5-9B-8bit' (10.20GB) exceeds max-model-memory (8.00GB)"
# jundot/omlx#378.
OMLX_HUGE = ('Error: {"error":{"message":"Model \'Qwen3.5-397B-A17B-nvfp4\' (218.08GB) exceeds max-model-memory '
             '(25.00GB)","type":"server_error","param":null,"code":null}}')
# Comfy-Org/ComfyUI#8065.
ERROR_1455 = "Error 1455"
# vllm-project/vllm#1298.
VLLM_WHOLE = "[Bug]OOM occurs after setting gpu_memory_utilization to 1.0"
# ollama/ollama#1952.
OLLAMA_CTX = ("`CUDA out of memory` when using long prompts and context sizes\nWhen using a large context window (via "
              "`num_ctx`) and providing a large prompt, Ollama may run out of memory.")
# NVIDIA/TensorRT-LLM#252.
TRT_REQUESTS = ("Running out of GPU memory when I perform a stress test of througput to get the QPS value\nafter the "
                "previous request ends, the GPU memory is not released, and the next request will continue to "
                "increase the GPU memory until OOM")


def test_configured_ceiling_is_the_setting_or_the_model() -> None:
    cause, found, conf, _check = _top(OMLX_CAP)
    assert (cause, found) == ("per_process_cap", True) and conf >= 0.8
    d = diagnose_text(OMLX_CAP)
    assert d.causes[0].evidence["configured_limit_bytes"] == 8 * 2**30  # the tolerant layer reads a log's "GB" as GiB
    assert _top(OMLX_HUGE)[:2] == ("genuine_shortage", True)


def test_configured_ceiling_variants_and_negatives() -> None:
    # Variants: other units and another setting's name.
    assert _top("model (12 GiB) exceeds memory-limit (10 GiB)")[0] == "per_process_cap"
    assert _top("Model 'x' (100GB) exceeds max-model-memory (16GB)")[0] == "genuine_shortage"
    # A size within the ceiling, or no ceiling figure, is not the setting refusing it.
    assert _top("Model 'x' (6.00GB) exceeds max-model-memory (8.00GB)")[0] != "per_process_cap"
    assert not diagnose_text("Model 'x' (10.20GB) exceeds the expected download size").found_oom


def test_commit_limit_code_alone() -> None:
    assert _top(ERROR_1455) == ("not_capacity", True, 0.96, "host_ram")
    # Variant, and a longer number that is another code.
    assert _top("Windows error 1455 while loading the model")[3] == "host_ram"
    assert not diagnose_text("error 14550 in line 3").found_oom


def test_whole_gpu_budget() -> None:
    assert _top(VLLM_WHOLE)[:2] == ("kv_cache_budget", True)
    # Variant: the flag form.
    assert _top("CUDA out of memory with --gpu-memory-utilization 0.98")[0] == "kv_cache_budget"
    # The default share is not the cause by itself.
    assert _top("CUDA out of memory with gpu_memory_utilization=0.9")[0] != "kv_cache_budget"


def test_ollama_context() -> None:
    assert _top(OLLAMA_CTX)[:2] == ("kv_cache_budget", True)
    # Variant: the environment variable.
    assert _top("ollama: CUDA out of memory after raising OLLAMA_CONTEXT_LENGTH to 32768 (context length)")[0] \
        == "kv_cache_budget"
    # A context named without Ollama, or Ollama without a context, is not this reading.
    assert _top("CUDA out of memory with a long context window in llama.cpp")[0] != "kv_cache_budget"
    assert _top("ollama: CUDA out of memory")[0] != "kv_cache_budget"


def test_memory_kept_across_requests_is_a_leak() -> None:
    assert _top(TRT_REQUESTS)[:2] == ("leak", True)
    # Variant.
    assert _top("after the previous request the memory isn't released, then CUDA out of memory")[0] == "leak"
    # Memory said to be freed is not kept.
    assert _top("The previous request's memory is freed correctly but CUDA out of memory")[0] != "leak"


# apax-hub/apax#111.
APAX = "Double allocation of memory causes xla GPU-compiler error"
# InternLM/lmdeploy#1651.
LMDEPLOY = "[Feature] 跑vlm多卡时，显存不太均匀，0号卡特别高，容易oom"


def test_pool_taken_twice_in_jax() -> None:
    assert _top(APAX)[:2] == ("preallocation", True)
    # Variant.
    assert _top("jaxlib: memory was allocated twice, XLA compile failed")[0] == "preallocation"
    # Outside JAX/XLA it is no preallocation; counting allocations is no failure.
    assert _top("double allocation of memory in my C code")[0] != "preallocation"
    assert not diagnose_text("Two allocations of memory in the loop").found_oom


def test_card_zero_far_above_the_rest() -> None:
    assert _top(LMDEPLOY)[:2] == ("multi_gpu_imbalance", True)
    # Variant.
    assert _top("多卡推理显存不太平衡，容易爆显存")[0] == "multi_gpu_imbalance"
    # Memory short on its own, or another card number, is not the imbalance.
    assert _top("显存不够，oom")[0] != "multi_gpu_imbalance"
    assert _top("10号卡特别高，显存不足")[0] != "multi_gpu_imbalance"


# megvii-research/tf-tutorials#69.
TF_TUTORIALS = "请问一下为什么会out memory？"


def test_out_memory_beside_cjk_is_recognised() -> None:
    assert diagnose_text(TF_TUTORIALS).found_oom
    # Variant; and an English phrase that only contains the words is not a failure.
    assert diagnose_text("训练时out of memory了").found_oom
    assert not diagnose_text("we carry out memory tests every night").found_oom


def test_more_wordings_of_the_same_mechanisms() -> None:
    # Variants: the page file in shorter words; JAX's pool named by the user; a ceiling named in two words.
    assert _top("page file too small")[3] == "host_ram"
    assert _top("JAX preallocates 75% of GPU memory and my second process OOMs")[0] == "preallocation"
    assert _top("Model (30GB) exceeds the memory limit (24GB)")[0] == "per_process_cap"
    # Negatives: the pool already off is not the pool; PyTorch is no JAX; XLA's "preallocated temp allocation"
    # statistic is the program's own temporaries (a 14.44 GiB program on a 12 GB card is its need).
    assert _top("torch preallocates memory, CUDA out of memory")[0] != "preallocation"
    off = diagnose_text("jax: memory allocated twice? XLA_PYTHON_CLIENT_PREALLOCATE=false is set, still out of memory")
    assert off.found_oom and all(c.title != "JAX/XLA's memory pool was taken twice" for c in off.causes)
    xla = ("jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate "
           "4770354232 bytes.\nBufferAssignment OOM Debugging.\nBufferAssignment stats:\n"
           "     preallocated temp allocation:    4.44GiB\n                 total allocation:   14.44GiB")
    assert diagnose_text(xla).causes[0].title != "JAX/XLA's memory pool was taken twice"
