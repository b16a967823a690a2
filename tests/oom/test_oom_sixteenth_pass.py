"""Sixteenth pass (issue 28): the misses of fresh-18 and fresh-19 read as mechanisms.

* A text that reports memory in use without a failure ("the GPU memory gets immediately filled up", "uses around 70%
  of the GPU memory", 显存占用21GB) is recognised (kind "memory_report"), not answered "not found"; the runtime that
  reserves memory up front by design is named with its own knob: TGI's --cuda-memory-fraction, TensorRT-LLM's
  kv_cache_free_gpu_mem_fraction, JAX's XLA_PYTHON_CLIENT_PREALLOCATE (also when the share of the GPU the text names
  is JAX's default 75 %, whatever names the text gives), a serving engine's KV pool for a GPU 85 % full or more.
* Memory growth in users' own words ("GPU memory increasing with training iterations", "more and more gpu memory",
  "ram keep increasing until", "each forward would use new memory") is a leak, and recognised with no failure word.

Every text is a real message quoted from the public thread named in its comment; a variant is marked as such.
Negative cases check that each reading needs its own figures or words."""

from __future__ import annotations

from gpudesk.oom import diagnose_text


def _top(text: str) -> tuple[str, bool, str]:
    d = diagnose_text(text)
    top = d.causes[0]
    return top.id, d.found_oom, top.fix


# huggingface/text-generation-inference#1599 (the maintainer: TGI always uses all available memory for its cache).
TGI_FILLED = ("docker run -ti --runtime nvidia --shm-size 1g -p 8080:80 ghcr.io/huggingface/text-generation-inference:1.4 "
              "--model-id mistralai/Mixtral-8x7B-Instruct-v0.1 --quantize bitsandbytes\n\nThe server downloads (or reuse) "
              "weights and starts up shards. As soon as the shards are set up, the GPU memory gets immediately filled up "
              "(all 4 cards for a total of >190Gbyte). Same behaviour with smaller models too - i.e. does not depend on "
              "Mixtral.")
# NVIDIA/TensorRT-LLM#732 (the Triton backend's paged KV pool, kv_cache_free_gpu_mem_fraction).
TRTLLM_FOOTPRINT = ("Triton's gpumemory footprint is twice that of Tensorrt-LLM\nIn my test of qwen-72b, "
                    "weight_only_precision int4 is used for loading with four cards, each occupying about 12G. However, "
                    "when Triton conducts reasoning, each card can occupy about 28G. May I ask why the gap is so big?")
# MichaelTMatthews/Craftax#28 (JAX's default 75 % pool; the text names no JAX).
CRAFTAX_IMPORT = ("High GPU memory on simple import\nWhen importing craftax functions such as the one below, my GPU memory "
                  "immediately fills up for a large part. E.g. when I run the single line below\n```\nfrom "
                  "craftax.craftax_env import make_craftax_env_from_name\n```\nand then check the gpu memory, I get that "
                  "60GB is already taken up on a H100 machine:")
# ShaneFlandermeyer/bmpc-jax#2.
BMPC_SHARE = ("When running bmpc-jax, I noticed that the training process consistently uses around 70% of the GPU memory, "
              "regardless of the total available memory.\n\nHere are some of my test results:\n\nRTX 2080 Ti: 8G/11G\n"
              "RTX 4090: 18G/24G\nRTX 3090: 18G/24G\nA800: 60G/80G")
# InternLM/InternLM#760 (LMDeploy's KV pool: cache_max_entry_count).
INTERNLM_4BIT = ("[QA] 7B-4bit量化显存占用21GB多，是正常的吗？\n使用的是官方给的四行4bit推理代码，确实非常精简。\n"
                 "使用的GPU是RTX4090，推理时占用GPU21.4GB左右。速度还比较快吧，但感觉并没有降低显存占用。这是正常的吗？")


def test_a_usage_report_of_an_engine_is_its_reservation_in_its_own_terms():
    for text, knob in ((TGI_FILLED, "--cuda-memory-fraction"), (TRTLLM_FOOTPRINT, "kv_cache_free_gpu_mem_fraction")):
        cause, found, fix = _top(text)
        assert (cause, found) == ("preallocation", True), text
        assert knob in fix


def test_a_share_at_jaxs_default_pool_is_the_pool_whatever_the_text_names():
    for text in (CRAFTAX_IMPORT, BMPC_SHARE):
        cause, found, fix = _top(text)
        assert (cause, found) == ("preallocation", True), text
        assert "XLA_PYTHON_CLIENT_PREALLOCATE=false" in fix


def test_a_gpu_nearly_full_with_a_quantised_model_is_an_engines_kv_pool():
    cause, found, fix = _top(INTERNLM_4BIT)
    assert (cause, found) == ("preallocation", True)
    assert "cache_max_entry_count" in fix
    assert diagnose_text(INTERNLM_4BIT).causes[0].confidence >= 0.55


def test_a_usage_report_with_a_share_of_neither_pool_stays_a_weak_reading():
    # Negative (variant): 10 GB of a H100 is neither JAX's 75 % nor an engine's pool.
    d = diagnose_text("my GPU memory gets filled up: 10GB is already taken up on a H100 machine")
    assert d.found_oom and d.causes[0].id == "preallocation" and d.causes[0].confidence < 0.5


def test_a_text_with_no_memory_words_is_still_not_found():
    # Negative: a kernel restart with no memory figure or word is not a memory report.
    d = diagnose_text("gpu-jupyter kernel restarts for no apparent reason")
    assert not d.found_oom


# WangFeng18/3d-gaussian-splatting#5, pytorch/pytorch#4932, dmlc/dgl#745, pai4451/ML2021#2.
GS_GROWTH = ("CUDA out of memory with training iterations\nWith the latest version of the code，I notice the GPU memory "
             "increasing with training iterations and eventually overflowing. I'm wondering how to fix it, thanks.")
EVAL_GROWTH = ("Model.eval() get more and more gpu memory\nI use this example "
               "https://github.com/pytorch/examples/blob/master/imagenet/main.py\nbut I found in validation phase, the "
               "gpu get more and more memory.")
DGL_FORWARD = ("Validation out of memory\nI implement GAT in this repo with little change(I send different graph for each "
               "data rather than a unique graph in the __init__). However, training if good, the validation would meet "
               "out of memory problem. I check every single step. In validation, each forward would use new memory.")
RAM_GROWTH = ("When i run the HW7 TA example code, my cpu ram keep increasing until out of my 64G ram.I think this problem "
              "is coming from the training process. \n`train_loss += output.loss` # store the complete compution graph "
              "leading to out of memory")


def test_memory_growth_in_users_words_is_a_leak_found_without_a_failure_word():
    for text in (GS_GROWTH, EVAL_GROWTH, DGL_FORWARD, RAM_GROWTH):
        cause, found, _fix = _top(text)
        assert (cause, found) == ("leak", True), text


def test_growth_words_need_growth():
    # Negative (variant): memory named beside "increasing" the batch is no growth over the run.
    cause, _found, _fix = _top("CUDA out of memory after increasing the batch size to 64")
    assert cause != "leak"


# AUTOMATIC1111/stable-diffusion-webui#42 ("OOMs" as a verb; the web UI's own flag as the fix).
WEBUI_MEDVRAM = ("--medvram OOMs\nMy video card is GTX 1650 4GB and I am running the script with\n\n`python "
                 "stable-diffusion-webui/webui.py --medvram --precision full --no-half`\n\nI have noticed that the new "
                 "`--medvram` option is not equivalent to the old `--lowvram` option. In this new implementation, I am "
                 "unable to generate txt2img with 512x512 or 448x448 resolutions like I could before.")
# hiyouga/LlamaFactory#24 (lower-case "oom" against Chinese text; one card already held 15 GB).
LLAMAFACTORY_HELD = ("用两张4090微调13b的belle出现oom，单卡则不会\n我单卡微调没有出现这个情况，多卡出现了，但是我有一张卡已经被占用了"
                     "15G显存，还剩8g左右，相当于我是8+24g进行多卡微调，这样微调会确实会出现问题？还是我没配置好的问题？")


def test_oom_as_a_verb_is_found_and_the_web_ui_gets_its_own_flag():
    cause, found, fix = _top(WEBUI_MEDVRAM)
    assert (cause, found) == ("genuine_shortage", True)
    assert "--lowvram" in fix and "micro-batch" not in fix


def test_a_card_the_user_says_is_already_occupied_is_another_holder():
    cause, found, fix = _top(LLAMAFACTORY_HELD)
    assert (cause, found) == ("other_process", True)
    assert "CUDA_VISIBLE_DEVICES" in fix


def test_a_runtimes_own_question_about_other_processes_is_no_finding():
    # Negative: PaddlePaddle's hint (PaddlePaddle/Paddle#26892) names other processes as a question.
    text = ("Out of memory error on GPU 0. Cannot allocate 1.531250GB memory on GPU 0, available memory is only "
            "416.625000MB.\n\nPlease check whether there is any other process using GPU 0.")
    assert _top(text)[0] == "genuine_shortage"


def test_lower_case_oom_inside_latin_words_is_not_the_abbreviation():
    # Negative (variant): "room" and "zoom" hold the letters but are no out-of-memory.
    assert not diagnose_text("the room was too small to zoom in").found_oom


# ml-explore/mlx#63 (title), exo-explore/exo#1048, PaddlePaddle/PaddleOCR#17955 (title), innnky/so-vits-svc#129.
MLX_TITLE = ("malloc error \"Unable to allocate\" on 8GB RAM Mac\nI kept encountering the below error while trying the "
             "stable diffusion sample in [mlx-examples](https://github.com/ml-explore/mlx-examples) on an 8GB M2 Mac "
             "Mini here.")
EXO_BUFFER = ("Metal buffer limit exceeded on long prompts with large prefill_step_size (Apple Silicon)\nI'm running into "
              "OOM crashes with long prompts (~24K tokens) on a Mac mini M4 Pro with 48 GB unified memory. In generate.py, "
              "prefill_step_size is currently set to 65536, which causes MLX to attempt allocating a very large attention "
              "matrix (~37 GB) as a single Metal buffer during prefill.")
PADDLEOCR_KILL = "PaddleOCR 3.x CPU inference allocates ~43 GB RAM (OOM kill) with German/Latin model"
SOVITS_STATED = "CUDA out of memory. Tried to allocate 7.41 GiB\n但我只有6G显存..."


def test_mlxs_allocator_limit_quoted_without_its_prefix_is_its_cap():
    assert _top(MLX_TITLE)[0] == "per_process_cap"


def test_metals_per_buffer_limit_in_words_is_not_capacity_with_mlxs_own_fix():
    d = diagnose_text(EXO_BUFFER)
    assert d.causes[0].id == "not_capacity" and d.causes[0].evidence["deciding_check"] == "buffer_limit"
    assert "prefill_step_size" in d.causes[0].fix


def test_the_oom_killer_named_with_a_space_is_host_ram():
    d = diagnose_text(PADDLEOCR_KILL)
    assert d.causes[0].id == "not_capacity" and d.causes[0].evidence["deciding_check"] == "host_ram"


def test_a_request_above_the_gpu_the_user_states_is_one_allocation_too_large():
    assert _top(SOVITS_STATED)[0] == "single_allocation_exceeds_capacity"
    # Negative (variant): the same request on a card the user says has 8 GB can fit.
    assert _top("CUDA out of memory. Tried to allocate 7.41 GiB\n但我只有8G显存...")[0] != \
        "single_allocation_exceeds_capacity"


# znxlwm/UGATIT-pytorch#23 (title prepended; the log's bracketed counter stops at step 1000, its sampling pass).
UGATIT_STEP = ("CUDA out of memory (with light flag)\n[  997/1000000] time: 582.6236 d_loss: 0.00474171, g_loss: 1344.68078613\n"
               "[  998/1000000] time: 583.2094 d_loss: 0.00624988, g_loss: 1328.24572754\n"
               "[  999/1000000] time: 583.7950 d_loss: 0.00641153, g_loss: 1374.71826172\n"
               "[ 1000/1000000] time: 584.3810 d_loss: 0.00178387, g_loss: 1280.08032227\n"
               "Traceback (most recent call last):\n  File \"main.py\", line 83, in <module>\n    main()\n"
               "  File \"/home/p0wx/prj/UGATIT-pytorch/UGATIT.py\", line 209, in train\n"
               "    fake_B2B, fake_B2B_cam_logit, _ = self.genA2B(real_B)\n")
# AlexHex7/Non-local_pytorch#9.
NONLOCAL_04 = ("python demo_MNIST.py can run in pytorch0.3.0, but out of memory in pytorch 0.4.0\nRuntimeError: cuda "
               "runtime error (2) : out of memory at /opt/conda/conda-bld/pytorch_1525812548180/work/aten/src/THC/"
               "generic/THCStorage.cu:58")


def test_a_failure_at_a_round_step_after_it_fitted_is_the_periodic_pass():
    d = diagnose_text(UGATIT_STEP)
    assert d.causes[0].id == "leak" and "no_grad" in d.causes[0].fix
    # Negative (variant): the same log stopping at step 997 is steps that ran, not the periodic pass.
    odd = UGATIT_STEP.replace("[ 1000/1000000] time: 584.3810 d_loss: 0.00178387, g_loss: 1280.08032227\n", "")
    assert diagnose_text(odd).causes[0].id != "leak" or diagnose_text(odd).causes[0].confidence < 0.5
    # Negative (variant): a log printed every 100 steps shows a round counter wherever it fails.
    sparse = "iter 3100, loss 0.22\niter 3200, loss 0.21\nCUDA out of memory. Tried to allocate 20.00 MiB"
    assert diagnose_text(sparse).causes[0].id != "leak"


def test_pytorch_04_beside_03_is_volatile_no_longer_disabling_the_graph():
    d = diagnose_text(NONLOCAL_04)
    assert d.causes[0].id == "leak" and "no_grad" in d.causes[0].fix
    # Negative (variant): PyTorch 0.4 named alone is no comparison with the code's older release.
    assert _top("RuntimeError: cuda runtime error (2) : out of memory (pytorch 0.4.0)")[0] != "leak"


# sgl-project/sglang#1030 (title and the scheduler's log line), vllm-project/vllm#10569 (title above a cut traceback),
# NVIDIA/TensorRT#2826 (the execution context's one allocation).
SGLANG_PREFILL = ("[Bug] OOM for concurrent long requests\nINFO:   - \"POST /v1/chat/completions HTTP/1.1\" 200 OK\n"
                  "[gpu=0] Prefill batch. #new-seq: 17, #new-token: 13938, #cached-token: 3260, cache hit rate: 17.86%,")
VLLM_PROFILE = ("[Bug]: llama-3.2-11B-vision run in vllm==0.6.3 OOM error（L20）\nINFO 11-22 07:19:26 model_runner.py:1067] "
                "Loading model weights took 19.9073 GB\nINFO 11-22 07:19:26 enc_dec_model_runner.py:301] Starting profile "
                "run for multi-modal models.\n[rank0]:   File \"/usr/local/lib/python3.10/dist-packages/vllm/executor/"
                "gpu_executor.py\", line 114, in determine_num_available_blocks\n")
TRT_CONTEXT = ("Loading TensorRT engine: engine/vae.plan\n[I] Loading bytes from engine/vae.plan\n[E] 1: [defaultAllocator.cpp"
               "::allocate::21] Error Code 1: Cuda Runtime (out of memory)\n[W] Requested amount of GPU memory "
               "(20401098752 bytes) could not be allocated. There may not be enough free memory for allocation to "
               "succeed.\n[E] 2: [executionContext.cpp::ExecutionContext::436] Error Code 2: OutOfMemory (no further "
               "information)")


def test_sglangs_scheduler_lines_name_the_engine_and_its_static_pool():
    cause, found, fix = _top(SGLANG_PREFILL)
    assert (cause, found) == ("kv_cache_budget", True)
    assert "--max-prefill-tokens" in fix


def test_vllms_profile_run_under_an_oom_title_is_the_profiling_budget():
    cause, _found, fix = _top(VLLM_PROFILE)
    assert cause == "kv_cache_budget" and "--max-num-seqs" in fix


def test_tensorrts_execution_context_is_one_allocation_of_the_engines_activation_memory():
    cause, _found, fix = _top(TRT_CONTEXT)
    assert cause == "single_allocation_exceeds_capacity" and "optimisation profile" in fix
    # Negative (variant): the same allocator failure while building is not read as the context's activation memory
    # (its fix is the builder's workspace limit; a piece this large is one allocation above the GPU either way: the
    # twenty-fourth pass, NVIDIA/TensorRT#4258 and #2643).
    build = TRT_CONTEXT.replace("[E] 2: [executionContext.cpp::ExecutionContext::436] Error Code 2: OutOfMemory (no "
                                "further information)", "")
    _cause, _found, build_fix = _top(build)
    assert "optimisation profile" not in build_fix and "set_memory_pool_limit" in build_fix


# YanWenKun/ComfyUI-Docker#54 (a ROCm APU: free wrapped below zero).
HIP_WRAPPED = ("HIP out of memory. Tried to allocate 72.00 MiB. GPU 0 has a total capacty of 512.00 MiB of which "
               "17179869183.96 GiB is free. Of the allocated memory 292.04 MiB is allocated by PyTorch, and 137.96 MiB is "
               "reserved by PyTorch but unallocated.")
# desihub/redrock#235 (rank 32 of 64 on four A100s), invoke-ai/InvokeAI#25 (a cuDNN status after a move to another PC).
REDROCK_RANK = ("rrdesi_mpi --gpu out of memory errors unless specifying --max-gpuprocs 4\nProc 32: "
                "cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 333,274,112 bytes (allocated so far: "
                "1,974,255,616 bytes).")
INVOKE_MOVED = "CUDNN_STATUS_NOT_INITIALIZED\nReceiving the below error after trying to load this onto my beefier PC."


def test_a_free_figure_wrapped_below_zero_is_nothing_free_not_a_missing_clause():
    d = diagnose_text(HIP_WRAPPED)
    assert d.report.device is not None and d.report.device.free_bytes == 0
    assert d.causes[0].id != "unparseable"
    # Negative (variant): NVML's "not available" (2**64 - 1, printed 17179869184.00 GiB) stays unknown.
    nvml = HIP_WRAPPED.replace("17179869183.96 GiB", "17179869184.00 GiB")
    assert diagnose_text(nvml).report.device.free_bytes is None


def test_a_high_numbered_rank_failing_with_little_held_is_its_siblings_on_the_gpu():
    cause, _found, fix = _top(REDROCK_RANK)
    assert cause == "other_process" and "as many GPU processes as the node has GPUs" in fix
    # Negative (variant): the same message from process 2 is one rank's own pool.
    assert _top(REDROCK_RANK.replace("Proc 32:", "Proc 2:"))[0] != "other_process"


def test_a_library_status_after_moving_to_another_machine_is_a_version_mismatch_first():
    d = diagnose_text(INVOKE_MOVED)
    assert d.causes[0].id == "not_capacity" and d.causes[0].evidence["deciding_check"] == "driver_version"
    # Negative (variant): TensorFlow's wording of the status, with no move said, keeps its preallocation reading.
    assert _top("Could not create cudnn handle: CUDNN_STATUS_NOT_INITIALIZED")[0] != "not_capacity"


# lmstudio-ai/lmstudio-bug-tracker#297 (LM Studio's load failure; it loaded with GPU offload 0).
LMSTUDIO_LOAD = ("🥲 Failed to load the model\n\nError loading model.\n\n(Exit code: 18446744072635812000). Unknown error. "
                 "Try a different model and/or config.")


def test_a_llama_cpp_load_failure_without_a_file_fault_is_read_as_its_allocations():
    d = diagnose_text(LMSTUDIO_LOAD)
    assert d.found_oom and d.causes[0].id == "genuine_shortage"
    assert "GPU offload" in d.causes[0].fix and "GPU offload 0" in d.causes[0].checks[0]
    # Negative (variant): a load failure that names the file's fault is no memory problem.
    assert not diagnose_text("llama_model_load: error loading model: unknown model architecture: 'qwen3'").found_oom
