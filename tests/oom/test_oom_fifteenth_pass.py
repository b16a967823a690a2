"""Fifteenth pass (issue 28): the misses that recurred over the seen batches fresh-13..17, read as mechanisms.

* PyTorch before 1.10 (its message dates the allocator): the cached memory left when it raises sits inside segments
  its live tensors occupy, and no setting of that allocator frees it, so while it is smaller than the live tensors the
  job's peak leads and fragmentation is only possible; a cache larger than the live tensors stays fragmentation.
* A one-line out-of-memory with no figure of the device from a training framework: memory kept from step to step
  fails with the same line, so the leak is ranked with the check that separates it (higher when the log shows
  epochs ran, none when it shows the first step failing).
* A figureless text that names a model whose bf16 weights fill under a third of the GPU it names, with no training:
  memory held elsewhere (another process, a mistyped CUDA_VISIBLE_DEVICES) first.
* An AWS instance type ("p2.xlarge") is no XLA.
* PyTorch's allocator message from a .NET process (TorchSharp) whose live tensors fill the GPU: tensors left
  undisposed, which the .NET garbage collector does not see, first.
* A figureless out-of-memory of any wording pasted with an nvidia-smi table that shows a GPU full: the holder the
  table counts, above a shortage read from nothing and below one read from a request, with the free GPU named.
* A figureless out-of-memory from a notebook kernel: cells run again keep what earlier runs assigned, so the leak
  is ranked level with the shortage (restarting the kernel tells it apart).
* A figureless out-of-memory from a multi-process launch: the same job's other ranks (or other users on a shared
  machine) first, as the bare CUDA error already reads it.
* YARN killing a container above its memory limit (Hadoop's NodeManager, Spark on YARN): host memory, with the
  executor's memory settings as the fix (the overhead's name as the message spells it).
* More of users' own words: Chinese 显存占满 / 显存放不下, Japanese メモリ不足, Korean 메모리 부족, and "OOM" written
  against CJK text ("一跑就OOM了").
* A program's own check of the VRAM a model needs against what the GPU has, worded as a sentence: found, a shortage.
* An out-of-memory at a serving engine's warm-up in a wording no engine parser reads: the warm-up batch its settings
  allow does not fit beside the model (the engine's budget), with the settings the message names.

Every text is a real message quoted from the public thread named in its comment; a variant is marked as such.
Negative cases check that each reading needs its own figures or words."""

from __future__ import annotations

from gpudesk.oom import diagnose_text


def _ids(text: str) -> list[str]:
    return [c.id for c in diagnose_text(text).causes]


# Scalsol/mega.pytorch#32 (PyTorch <= 1.3 wording, a 4 GB GTX 1050 Ti; the method's memory module was too large).
MEGA_CACHED = ("CUDA out of memory. Tried to allocate 396.00 MiB (GPU 0; 3.95 GiB total capacity; 1.89 GiB already "
               "allocated; 384.75 MiB free; 650.19 MiB cached)")
# rshaojimmy/MADDoG#11 (PyTorch 1.4-1.9 wording; the maintainer: use a GPU with more memory).
MADDOG_RESERVED = ("RuntimeError: CUDA out of memory. Tried to allocate 2.87 GiB (GPU 0; 14.76 GiB total capacity; "
                   "8.77 GiB already allocated; 19.75 MiB free; 13.71 GiB reserved in total by PyTorch)")
# fredzzhang/pocket#9 (PyTorch <= 1.3 wording): 6.80 GiB cached beside 307.86 MiB of live tensors.
POCKET_CACHED = ("RuntimeError: CUDA out of memory. Tried to allocate 7.31 GiB (GPU 0; 11.92 GiB total capacity; "
                 "307.86 MiB already allocated; 4.36 GiB free; 6.80 GiB cached)")


def test_an_old_allocators_cache_smaller_than_the_live_tensors_is_the_jobs_peak():
    for text in (MEGA_CACHED, MADDOG_RESERVED):
        causes = diagnose_text(text).causes
        assert causes[0].id == "genuine_shortage", text
        frag = next(c for c in causes if c.id == "fragmentation")
        assert frag.confidence <= 0.5 and causes[0].confidence > frag.confidence
        assert "lowering the peak" in causes[0].explanation


def test_an_old_allocators_cache_larger_than_the_live_tensors_stays_fragmentation():
    assert _ids(POCKET_CACHED)[0] == "fragmentation"


def test_the_same_figures_in_a_message_of_an_allocator_with_settings_keep_fragmentation():
    # Negative (variant: MADDoG's figures in the 1.10+ wording, whose allocator has max_split_size_mb).
    text = MADDOG_RESERVED + (" If reserved memory is >> allocated memory try setting max_split_size_mb to avoid "
                              "fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF")
    assert _ids(text)[0] == "fragmentation"


# sunsmarterjie/SDL-Skeleton#6 (memory grew over ~3200 iterations; the loss.backward() logic was the leak).
SDL_ONE_LINE = "CUDA out of memory. Tried to allocate 20.00 MiB"
# pytorch/pytorch#5210 (validation without volatile / no_grad kept every graph): the title.
THC_ONE_LINE = "RuntimeError: cuda runtime error (2) : out of memory when using loss function"
# zai-org/GLM-4#322: the progress bar at its first step.
GLM_FIRST_STEP = ("OutOfMemoryError: CUDA out of memory. Tried to allocate 214.00 MiB. GPU\n  0%|          "
                  "| 0/3000 [00:05<?, ?it/s]")


def _by_id(text: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for c in diagnose_text(text).causes:
        out.setdefault(c.id, c.confidence)
    return out


def test_a_figureless_line_ranks_shortage_holder_and_leak_each_with_its_check():
    for text in (SDL_ONE_LINE, THC_ONE_LINE):
        d = diagnose_text(text)
        ids = [c.id for c in d.causes]
        assert ids[0] == "genuine_shortage" and "other_process" in ids and "leak" in ids, text
        assert d.causes[0].confidence < 0.6  # never one confident answer for a bare line
        leak = next(c for c in d.causes if c.id == "leak")
        assert leak.confidence < d.causes[0].confidence
        assert any("memory_allocated()" in check for check in leak.checks)


def test_epochs_in_the_log_put_the_leak_first_and_a_first_step_rules_it_out():
    # Variant: the SDL-Skeleton line after a training log at epoch 3.
    epochs = "Epoch 3/50: 100%|##########| 1200/1200\n" + SDL_ONE_LINE
    assert _ids(epochs)[0] == "leak"
    steps = "iter 3200, loss 0.21\n" + SDL_ONE_LINE  # variant: steps ran, the leak level with the shortage
    assert _by_id(steps)["leak"] == 0.45 and _ids(steps)[0] == "genuine_shortage"
    assert "leak" not in _ids(GLM_FIRST_STEP)
    # Within the first epoch the step counter decides (qinzheng93/GeoTransformer#1's log line, variant: the message cut
    # after its request).
    first_epoch = ("[2022-02-27 23:30:57] [INFO] Epoch 1/40, iter 420/20642, loss: 2.751\n"
                   "[2022-02-27 23:31:00] [ERRO] Error: CUDA out of memory. Tried to allocate 430.00 MiB")
    assert _by_id(first_epoch)["leak"] == 0.45
    # Negative (variant): a command line's flags and a setting are no progress.
    flags = "python train.py --epoch 100 --steps 5000 max_iter=20000\n" + SDL_ONE_LINE
    assert _by_id(flags)["leak"] == 0.3


def test_no_leak_reading_for_an_engine_warm_up_or_a_message_with_figures():
    # gpustack/gpustack#3541 (MindIE's warm-up) and a PyTorch message with its figures (mega.pytorch#32).
    warmup = ("[llm] [ERROR] [logging.py-348] : Warmup failed, because of multimodal model inference out of memory when "
              "`maxInputTokenLen` set to 8192. Please try to decrease `maxPrefillTokens` in config.json of "
              "mindie-service.")
    assert "leak" not in _ids(warmup)
    assert "leak" not in _ids(MEGA_CACHED)


# sgl-project/sglang#465 (the title; CUDA_VISIBLE_DEVICES was misspelled, the GPU was in use).
SMALL_MODEL_BIG_GPU = "CUDA out of memory for H100 80GB for lmms-lab/llama3-llava-next-8b"


def test_a_model_far_smaller_than_the_gpu_it_names_reads_as_memory_held_elsewhere():
    d = diagnose_text(SMALL_MODEL_BIG_GPU)
    assert d.causes[0].id == "other_process" and d.causes[0].confidence == 0.5
    assert d.causes[0].evidence["model_parameters_billions"] == 8.0
    assert "CUDA_VISIBLE_DEVICES" in d.causes[0].fix


def test_a_model_that_fills_the_gpu_or_a_training_run_keeps_the_shortage_first():
    # Variants: a 13B model's 26 GB of bf16 weights on a 40 GB card; fine-tuning an 8B model on 80 GB.
    assert _ids("CUDA out of memory: llama-2-13b on A100 40GB")[0] == "genuine_shortage"
    assert _ids("CUDA out of memory fine-tuning llama3-8b on H100 80GB")[0] == "genuine_shortage"


def test_an_aws_instance_type_is_no_xla():
    # pytorch/pytorch#4420 (the title).
    text = "out of memory cuda runtime error (2) on p2.xlarge AWS instance with batch_size = 1"
    assert diagnose_text(text).report.framework != "xla"
    assert "leak" in _ids(text)


# gpustack/gpustack#3541 (MindIE 2.2 serving Qwen2.5-VL-7B on one Ascend 910B2).
MINDIE_WARM_UP = ("[2025-11-25 17:23:11,888] [249] [281471718846752] [llm] [ERROR] [logging.py-348] : Warmup failed, "
                  "because of multimodal model inference out of memory when `maxInputTokenLen` set to 8192. Please try "
                  "to decrease `maxPrefillTokens` in config.json of mindie-service.")


def test_an_engines_warm_up_out_of_memory_is_its_budget_with_the_knobs_it_names():
    top = diagnose_text(MINDIE_WARM_UP).causes[0]
    assert top.id == "kv_cache_budget" and top.confidence == 0.6
    assert "maxPrefillTokens" in top.fix and "maxInputTokenLen" in top.fix
    assert top.evidence["settings_named"] == "maxInputTokenLen=8192"


def test_a_warm_up_without_out_of_memory_words_is_not_this_reading():
    # Negative (variant): a warm-up that failed for another reason, beside an unrelated out-of-memory line later.
    text = "Warmup failed: model file not found.\nRuntimeError: CUDA error: out of memory"
    assert all(c.title != "The engine's warm-up batch does not fit beside the model" for c in diagnose_text(text).causes)


# dotnet/TorchSharp#1057 (a C# loop whose tensors escaped their dispose scope; nvtop showed the memory climbing).
TORCHSHARP = ("Unhandled exception. System.Runtime.InteropServices.ExternalException (0x80004005): CUDA out of memory. "
              "Tried to allocate 2.00 MiB (GPU 0; 9.77 GiB total capacity; 9.46 GiB already allocated; 3.31 MiB free; "
              "9.46 GiB reserved in total by PyTorch)")


def test_a_dotnet_process_whose_live_tensors_fill_the_gpu_reads_as_tensors_not_disposed():
    top = diagnose_text(TORCHSHARP).causes[0]
    assert top.id == "leak" and "NewDisposeScope" in top.fix


def test_the_same_figures_from_python_or_a_dotnet_process_with_room_stay_a_shortage():
    # Negative (variants): the same message without the .NET exception; a .NET process whose tensors hold half the GPU.
    assert _ids(TORCHSHARP.split(": ", 1)[1])[0] == "genuine_shortage"
    half = TORCHSHARP.replace("9.46 GiB already allocated", "4.50 GiB already allocated")
    assert "leak" not in _ids(half)[:1]


def test_a_programs_own_vram_check_in_words_is_found_as_a_shortage():
    # The wording of a model launcher's pre-flight check (its f-string "The {variant} variant needs roughly {N} GB of
    # VRAM but your GPU has {M} GB.", filled in), and a loader's warning ("wants about N GB of VRAM but M GB is
    # visible").
    for text in ("The fp16 variant needs roughly 33 GB of VRAM but your GPU has 23.6 GB.",
                 "black-forest-labs/FLUX.1-dev wants about 40 GB of VRAM but 23.6 GB is visible"):
        d = diagnose_text(text)
        assert d.found_oom and d.causes[0].id == "genuine_shortage", text
    # Negative: a model card's sentence about requirements is no failure.
    assert not diagnose_text("11B models require at least 16GB of VRAM but can be run with quantization.").found_oom


def test_a_pasted_nvidia_smi_table_with_a_full_gpu_ranks_the_holder_beside_any_figureless_message():
    from gpudesk.oom import accuracy

    # yangjianxin1/GPT2-chitchat#19's table (GPU 0 at 15514 of 16130 MiB, GPU 1 empty) with the caching allocator's
    # cut message instead of the bare CUDA error (variant).
    table = next(c.message for c in accuracy.load_cases() if c.url.endswith("GPT2-chitchat/issues/19"))
    text = table.replace("RuntimeError: CUDA error: out of memory", "RuntimeError: CUDA out of memory.")
    top = diagnose_text(text).causes[0]
    assert top.id == "other_process" and top.confidence == 0.5
    assert "CUDA_VISIBLE_DEVICES=1" in top.fix
    # With the request in the message the shortage stays first, the holder second (taken while the job ran, the
    # table shows the job's own memory).
    with_request = table.replace("RuntimeError: CUDA error: out of memory",
                                 "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB")
    assert _ids(with_request)[:2] == ["genuine_shortage", "other_process"]
    # Negative (variant): the same table with GPU 0 nearly empty names no holder.
    empty = text.replace("15514MiB / 16130MiB", "  312MiB / 16130MiB")
    assert diagnose_text(empty).causes[0].id == "genuine_shortage"


# VCIP-RGBD/DFormer#52: the title and the launcher's traceback below it (torchrun's elastic agent).
DFORMER_LAUNCH = (
    "torch.cuda.OutOfMemoryError: CUDA out of memory.\n"
    '  File "/home/xxy/miniconda3/envs/dformer/lib/python3.10/site-packages/torch/distributed/run.py", line 806, in main\n'
    "    run(args)\n"
    '  File "/home/xxy/miniconda3/envs/dformer/lib/python3.10/site-packages/torch/distributed/launcher/api.py", line 264, '
    "in launch_agent\n"
    "    raise ChildFailedError(\n"
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
    "utils/train.py FAILED")


def test_a_figureless_message_from_a_multi_process_launch_ranks_the_other_ranks_first():
    top = diagnose_text(DFORMER_LAUNCH).causes[0]
    assert top.id == "other_process" and top.confidence == 0.5
    assert "set_device(local_rank)" in top.fix
    # Negative: the title alone keeps the shortage first.
    assert _ids("torch.cuda.OutOfMemoryError: CUDA out of memory.")[0] == "genuine_shortage"


def test_a_failure_while_the_model_is_placed_on_the_gpu_has_no_leak_reading():
    # FakerYFX/Bert-Pytorch-Chinese-TextClassification#2: the bare error raised inside model.to(device).
    text = ('  File "run_classifier_word.py", line 559, in main\n    model.to(device)\n'
            '  File "/opt/anaconda3/lib/python3.6/site-packages/torch/nn/modules/module.py", line 381, in to\n'
            "    return self._apply(convert)\n"
            '  File "/opt/anaconda3/lib/python3.6/site-packages/torch/nn/modules/module.py", line 187, in _apply\n'
            "    module._apply(fn)\nRuntimeError: CUDA error: out of memory")
    assert "leak" not in _ids(text)


# fastai/course-v3#437 (a notebook on a 4-GPU server; the traceback through IPython's cell).
FASTAI_NOTEBOOK = (
    "RuntimeError                              Traceback (most recent call last)\n"
    "<ipython-input-8-24c6f5f0db1f> in <module>\n"
    "      1 defaults.device = torch.device('cpu')\n"
    "----> 2 data.show_batch(rows=3, figsize=(7,8))\n"
    "RuntimeError: CUDA error: out of memory")


def test_a_figureless_error_from_a_notebook_ranks_memory_kept_by_earlier_cells():
    causes = diagnose_text(FASTAI_NOTEBOOK).causes
    leak = next(c for c in causes if c.id == "leak")
    assert leak.confidence == 0.45 and "notebook" in leak.explanation
    assert causes[0].id != "leak" and {"genuine_shortage", "other_process"} <= {c.id for c in causes}


def test_yarn_killing_a_container_is_host_memory_with_sparks_own_settings():
    # Spark on YARN's own wording (YarnAllocator: "Container killed by YARN for exceeding memory limits. X of Y physical
    # memory used. Consider boosting spark.yarn.executor.memoryOverhead."), and Hadoop's NodeManager's
    # (ContainersMonitorImpl: "is running beyond physical memory limits. Current usage: X of Y physical memory used").
    spark = ("Container killed by YARN for exceeding memory limits. 5.5 GB of 5.5 GB physical memory used. Consider "
             "boosting spark.yarn.executor.memoryOverhead.")
    hadoop = ("Container [pid=28937,containerID=container_1468431418541_0012_01_000002] is running beyond physical "
              "memory limits. Current usage: 1.0 GB of 1 GB physical memory used; 2.7 GB of 2.1 GB virtual memory "
              "used. Killing container.")
    for text, knob in ((spark, "spark.yarn.executor.memoryOverhead"), (hadoop, "spark.executor.memoryOverhead")):
        top = diagnose_text(text).causes[0]
        assert (top.id, top.evidence.get("deciding_check")) == ("not_capacity", "host_ram"), text
        assert knob in top.fix


def test_users_own_words_in_chinese_japanese_and_korean_are_found():
    # Variants in the words users write in Chinese-, Japanese- and Korean-language threads.
    for text in ("推理的时候显存占满然后报错", "模型太大了，显存放不下", "一跑就OOM了，显卡是3090", "GPUメモリ不足です: 8GB",
                 "메모리 부족으로 학습이 중단되었습니다"):
        assert diagnose_text(text).found_oom, text
    # Negative: the letters inside a word are no OOM.
    assert not diagnose_text("ZOOM meeting at 3pm").found_oom
