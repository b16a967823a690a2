"""Twentieth pass (issue 28): placement across GPUs and the serving engines' own budgets, read from the words.

* Placement said in words: the whole model on one card ("never uses the second one", "only load onto a single GPU",
  加载进了第一个显卡中), the other cards free or flat ("even if the other GPUs are free", 其他卡不动, 第二张卡并没使用),
  an automatic device map that fills the GPUs up, and a full copy of the model on every card (每一张卡都加载了一次模型):
  multi_gpu_imbalance first, with the device-map / tensor-parallel fix.
* The engines' budgets named beside an OOM with no figures: TGI's max_batch_total_tokens, an SGLang server
  (--mem-fraction-static), vLLM with gpu_memory_utilization said not to help (max_model_len), llama.cpp's own
  context lines (n_ctx, KV buffers), Ollama's num_batch: kv_cache_budget first.
* "GPU资源不足" and "CUDA-ooM" read as out-of-memory words.
* Growth that ends in the failure ("continued to increase ... until out of memory", "the more time ... the larger
  memory"): a leak. Memory growing with each dialogue turn: the history lengthens every prompt (genuine_shortage).
* A small vLLM gpu_memory_utilization named beside an OOM: the engine's cap. An OOM while CUDA graphs are captured:
  cuda_graph_pools. oMLX's "memory N exceeds ceiling M": the server's own cap.
* An nvidia-smi table with memory in use and no process listed: processes outside this view (other_process).

Every text is a real message quoted from the public thread named in its comment. Negative cases check that each
reading needs its own words."""

from __future__ import annotations

from gpudesk.oom import diagnose_text


def _top(text: str) -> tuple[str, bool, float]:
    d = diagnose_text(text)
    top = d.causes[0]
    return top.id, d.found_oom, top.confidence


# huggingface/accelerate#473.
OTHER_GPUS_FREE = ("model = AutoModelForCausalLM.from_pretrained(\"/opt-175b\", device_map=\"auto\", "
                   "torch_dtype=torch.float16)\nThis throws a CUDA OOM error simply because it is a very niche case "
                   "where the GPUs were maxed out just right on their capacity, even if the other GPUs are free.")
# huggingface/accelerate#608.
FILLS_UP = ("Currently, when using `device_map=\"auto\"` during instantiation of large language models in the "
            "transformers library, accelerate seems to essentially fill up GPUs' RAM such that, depending on the model "
            "and GPUs, a moderate batch size (e.g. 8) will cause a CUDA out of memory error.")
# zai-org/CogVLM2#179.
FIRST_CARD_ZH = ("两张A100（共80G显存）测试openai_api_demo.py时报错OOM\n我用watch -n 1 nvidia-smi命令查看GPU使用，发现当开启"
                 "openai_api_demo.py后，模型加载完毕暴露本地端口后，所有的模型文件依然被加载进了第一个显卡中")
# zai-org/CogVLM#109.
SECOND_UNUSED_ZH = "使用2*RTX 3090部署，报GPU资源不足，第一张卡显存用完了，但第二张卡并没使用"
# hiyouga/LLaMA-Factory#1766.
OTHERS_FLAT_ZH = ("在多卡8张推理qwen72b的时候，输入一个长文本，会发现0卡的显存突然飙升，其他卡不动。\n"
                  "0卡突然飙升导致了OOM，但如果用model.chat推理的话就不会oom")
# hiyouga/LLaMA-Factory#5589.
COPY_PER_CARD_ZH = ("我在尝试用llama-factory进行qwen2vl-72b的推理过程中，发现模型没有自动分配到8*a100上，而是每一张卡都加载了"
                    "一次模型导致加载模型期间出现oom错误")
# SciSharp/LLamaSharp#617.
SINGLE_GPU = ("In version `cuda12 v0.10.0`, the model will only load onto a single GPU, resulting in "
              "`cudaMalloc failed: out of memory`")
# ollama/ollama#1341.
NEVER_SECOND = ("MultiGPU: not splitting model to multiple GPUs - CUDA out of memory\nBecause of the big contect-size, I "
                "want to load the model on 2 GPUs, but it never uses the second one and fails, after reaching OOM at "
                "the first GPU.\nPARAMETER num_ctx 16384")

# huggingface/text-generation-inference#651.
TGI_TOKENS = ("auto max_batch_total_tokens OOM\nSince that PR is merged I am running OOM, even with small models.\n"
              "It seems like that for calculation the total Vram is used, not the free Vram.")
# allenai/olmocr#50.
SGLANG = ("CUDA-ooM with large PDFs\nEDIT: This only happens when SGLang is started standalone:\n"
          "python -m sglang.launch_server --model-path allenai/olmOCR-7B-0225-preview --port 30024")
# vllm-project/vllm#5993.
VLLM_UTIL = ("[Bug]: OOM when loading Qwen2 GPTQ 8bit and modify gpu_memory_utilization didn't help\n"
             "INFO 06-30 18:37:30 model_runner.py:160] Loading model weights took 17.9828 GB")
# ollama/ollama#2706.
LLAMACPP_LOG = ("CUDA error: out of memory with llava:7b-v1.6 when providing an image\n"
                "llm_load_tensors: offloaded 6/33 layers to GPU\n"
                "llama_new_context_with_model: n_ctx      = 2048\n"
                "llama_kv_cache_init:      CUDA0 KV buffer size =    48.00 MiB\n"
                "llama_new_context_with_model:      CUDA0 compute buffer size =   164.01 MiB")
# ollama/ollama#1800.
NUM_BATCH = ("OOM errors for large context models can be solved by reducing 'num_batch' down from the default of 512\n"
             "I've been having endless problems with OOM errors when I try to run models with a context length of 16k")


def test_placement_said_in_words_ranks_first() -> None:
    for text in (OTHER_GPUS_FREE, FILLS_UP, FIRST_CARD_ZH, SECOND_UNUSED_ZH, OTHERS_FLAT_ZH, COPY_PER_CARD_ZH,
                 SINGLE_GPU, NEVER_SECOND):
        cause, found, confidence = _top(text)
        assert (cause, found) == ("multi_gpu_imbalance", True), text
        assert confidence >= 0.7


def test_placement_fix_names_the_split() -> None:
    top = diagnose_text(SINGLE_GPU).causes[0]
    assert "max_memory" in top.fix and "tensor-parallel-size" in top.fix
    assert top.evidence["described_as"] == "only load onto a single GPU"


def test_placement_needs_its_words() -> None:
    # One GPU, no word about the others: not placement.
    for text in ("CUDA out of memory. The other processes are idle.",
                 "RuntimeError: CUDA out of memory. I only use one GPU for training.",
                 "CUDA out of memory while loading the model onto the GPU"):
        assert _top(text)[0] != "multi_gpu_imbalance", text


def test_engine_budgets_named_rank_kv_first() -> None:
    for text in (TGI_TOKENS, SGLANG, VLLM_UTIL, LLAMACPP_LOG, NUM_BATCH):
        cause, found, _confidence = _top(text)
        assert (cause, found) == ("kv_cache_budget", True), text


def test_engine_fixes_name_the_engines_flag() -> None:
    assert "--max-batch-total-tokens" in diagnose_text(TGI_TOKENS).causes[0].fix
    assert "--mem-fraction-static" in diagnose_text(SGLANG).causes[0].fix
    assert "max_model_len" in diagnose_text(VLLM_UTIL).causes[0].fix
    llama = diagnose_text(LLAMACPP_LOG).causes[0]
    assert llama.evidence["n_ctx_tokens"] == 2048 and "-ngl" in llama.fix


def test_engine_budgets_need_the_engine_and_the_failure() -> None:
    # The engine or flag without an out-of-memory failure, and an OOM without the engine's words.
    assert _top("python -m sglang.launch_server --model-path x --port 30024")[0] != "kv_cache_budget"
    assert _top("max_batch_total_tokens is inferred at warm-up")[0] != "kv_cache_budget"
    assert _top("OOM when loading Qwen2 and modify the batch size didn't help")[0] != "kv_cache_budget"
    assert _top("llama_new_context_with_model: n_ctx = 2048\nllama_new_context_with_model: graph splits: 5")[0] \
        != "kv_cache_budget"


def test_new_oom_words() -> None:
    assert diagnose_text("CUDA-ooM with large PDFs").found_oom
    assert diagnose_text("部署时报GPU资源不足").found_oom
    # "oom" inside a word is not the abbreviation.
    assert not diagnose_text("CUDA-oomph benchmark results").found_oom


# researchmm/VOT2019#1.
GROWS_UNTIL_OOM = ("CUDA out of memory\nWhen I tested, the GPU continued to increase with the tracking process,until out "
                   "of memory.Any help will be appreciated.")
# mks0601/TF-SimpleHumanPose#9.
THE_MORE_THE_LARGER = ("OOM while training\nI encounter an OOM issue while training the model that The more time I "
                       "utilize to train the model the larger memory is occupied.")
# zai-org/ChatGLM-6B#64 and #71.
DIALOGUE_ZH = "推理是显存会不断增加\nrt，在使用web进行推理时，模型的占用显存刚开始为13GB，随着不断交互，显存逐步增加直至OOM。"
DIALOGUE_TURN_ZH = "显存占用增加\n每次对话显存占用都会增加几百Mb，请问除了重启程序有别的解决办法吗？"
# vllm-project/vllm#9630.
VLLM_SMALL_SHARE = ("[Bug]: Llama-3.2-11B-Vision gives OOM error on 96GB H100\nI am running server like `vllm serve "
                    "/models/LLM/Llama-3.2-11B-Vision  --disable-log-requests --gpu-memory-utilization 0.2`")


def test_growth_until_the_failure_is_a_leak() -> None:
    for text in (GROWS_UNTIL_OOM, THE_MORE_THE_LARGER):
        assert _top(text)[0] == "leak", text
    # Growth that does not end in the failure, and "the more" with no memory after it.
    assert _top("CUDA out of memory. The learning rate continued to increase until the warm-up ended.")[0] != "leak"
    assert _top("CUDA out of memory. The more layers I add the larger the model.")[0] != "leak"


def test_memory_growing_with_dialogue_turns_is_the_history() -> None:
    for text in (DIALOGUE_ZH, DIALOGUE_TURN_ZH):
        top = diagnose_text(text).causes[0]
        assert top.id == "genuine_shortage", text
        assert "history" in top.fix
    # Growth with training steps stays a leak.
    assert _top("训练时显存不断增加，直到OOM")[0] == "leak"


def test_small_vllm_share_is_the_cap() -> None:
    top = diagnose_text(VLLM_SMALL_SHARE).causes[0]
    assert (top.id, top.evidence["gpu_memory_utilization_ratio"]) == ("per_process_cap", 0.2)
    assert "--gpu-memory-utilization" in top.fix
    # A usual share is not a cap that is too small.
    assert _top(VLLM_SMALL_SHARE.replace("0.2`", "0.9`"))[0] != "per_process_cap"


# zwhong714/PSFT#13.
CAPTURING_GRAPHS = "OOM\nI found that during multi-node training, the OOM occurs during the process of capturing CUDA graphs."


def test_oom_while_capturing_cuda_graphs() -> None:
    top = diagnose_text(CAPTURING_GRAPHS).causes[0]
    assert top.id == "cuda_graph_pools" and "enforce-eager" in top.fix
    # CUDA graphs named with no failure during their capture.
    assert _top("CUDA out of memory. I use CUDA graphs for inference.")[0] != "cuda_graph_pools"


# jundot/omlx#1522.
RUNNING_CEILING = ("omlx.scheduler - WARNING - Prefill force-stopped at 1441 tokens: memory 42.8GB exceeds ceiling 42.0GB\n"
                   "omlx.scheduler - ERROR   - Prefill failed for <id>: Memory limit exceeded during prefill")


def test_process_memory_over_the_servers_own_ceiling() -> None:
    d = diagnose_text(RUNNING_CEILING)
    top = d.causes[0]
    assert d.found_oom and top.id == "per_process_cap"
    assert top.evidence["configured_limit_bytes"] == 42 * 1024**3
    # A ceiling that the memory does not exceed is not read.
    assert not diagnose_text("memory 24.6GB is below ceiling 42.0GB").found_oom


# wencolani/CrossE#2.
SMI_HEAD = ("OOM Problems\n\n"
            "+-----------------------------------------------------------------------------+\n"
            "| NVIDIA-SMI 410.48                 Driver Version: 410.48                    |\n"
            "|-------------------------------+----------------------+----------------------+\n"
            "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
            "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |\n"
            "|===============================+======================+======================|\n"
            "|   0  Tesla P100-SXM2...  Off  | 00000000:05:00.0 Off |                    0 |\n")
SMI_ROW = "| N/A   36C    P0    41W / 300W |  {used}MiB / 16280MiB |      0%      Default |\n"
SMI_PROCESSES = ("+-------------------------------+----------------------+----------------------+\n"
                 "                                                                               \n"
                 "+-----------------------------------------------------------------------------+\n"
                 "| Processes:                                                       GPU Memory |\n"
                 "|  GPU       PID   Type   Process name                             Usage      |\n"
                 "|=============================================================================|\n")
SMI_EMPTY_END = "+-----------------------------------------------------------------------------+\n"
SMI_ONE_PROCESS = ("|    0     12345      C   python                                     12789MiB |\n" + SMI_EMPTY_END)


def test_memory_in_use_with_no_process_listed_is_another_process() -> None:
    hidden = SMI_HEAD + SMI_ROW.format(used=12799) + SMI_PROCESSES + SMI_EMPTY_END
    assert _top(hidden)[0] == "other_process"
    # The same table listing the job's own process, and an empty list with little memory in use.
    assert _top(SMI_HEAD + SMI_ROW.format(used=12799) + SMI_PROCESSES + SMI_ONE_PROCESS)[0] != "other_process"
    assert _top(SMI_HEAD + SMI_ROW.format(used=2799) + SMI_PROCESSES + SMI_EMPTY_END)[0] != "other_process"
