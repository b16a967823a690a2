"""Twenty-second pass (issue 28, fresh batch 26): mechanisms read from the words around the failure.

* A process that ended without an error of its own is host memory: "Killed" glued to a progress bar or quoted as
  code, Ollama's "llama runner exited, you may not have enough available memory", a Windows console's pause prompt
  right after an unfinished checkpoint load (the commit limit), a DataLoader worker found dead in a container
  (/dev/shm) (gpudesk.oom.exit_marks).
* Limits said in words: a kernel's dynamic shared memory above the device's opt-in limit, one buffer beyond the
  device's maximum buffer size (gpudesk.oom.limit_words), oMLX's "would require X but metal_cap ceiling is Y".
* A bare CUDA error while the model is built (a torch.nn constructor frame, "in model initialization", "at the very
  beginning"): the context refused on a device others hold (gpudesk.oom.start_words).
* cuDNN's NOT_INITIALIZED that stays at batch size 1 or where the installed versions were varied: the library first
  (gpudesk.oom.library_words).
* Per-GPU figures listed by the user: the placement's imbalance (gpudesk.oom.rules.placement_figures); LMDeploy's
  TurboMind growing while it serves: its on-demand KV cache (gpudesk.oom.rules.engine_growth).
* Memory not cleared after a run is a leak; an OOM after epochs tied to the batch size is the step's own working set
  (gpudesk.oom.rules.run_words).

Every text is a real message quoted from the public thread named in its comment. Negative cases check that each
reading needs its own words."""

from __future__ import annotations

from helpers.oom_top import top_cause as _top

from gpudesk.oom import diagnose_text


# eosphoros-ai/DB-GPT#63.
KILLED_AFTER_BAR = ("Loading checkpoint shards: 0%| | 0/2 [00:00<?, ?it/s]Killed\n"
                    "这个是对内存有什么要求吗，我的机器32g内存是否不够")
# tloen/alpaca-lora#546.
KILLED_AS_CODE = ("Generate.py fails on `Loading checkpoint shards: 52%` with message `killed`.\n\ncommand executed:\n"
                  "`$ python3 generate.py --load_8bit --base_model 'decapoda-research/llama-7b-hf' --lora_weights "
                  "'tloen/alpaca-lora-7b'`")
# ollama/ollama#1752.
RUNNER_VANISHED = ("But when I install Ollama in the local system (the same that is running the docker container), when "
                   "I try to chat with the same model (explored: tinyllama and mistral), it says: \n\n"
                   "`Error: llama runner exited, you may not have enough available memory to run this model`")
# lllyasviel/FramePack#75.
PAUSED_AFTER_LOAD = ("Free VRAM 14.8681640625 GB\nHigh-VRAM Mode: False\n"
                     "Downloading shards: 100%|██████████| 4/4 [00:00<00:00, 2630.89it/s]\n"
                     "Loading checkpoint shards:   0%|          | 0/4 [00:00<?, ?it/s]\n"
                     "続行するには何かキーを押してください . . .")
# facebookresearch/detectron2#384.
WORKER_IN_DOCKER = ("When running a training in the docker container, I received the following error: \n"
                    "`RuntimeError: DataLoader worker (pid(s) 25) exited unexpectedly`")


def test_process_gone_without_error_is_host_memory() -> None:
    for text, host_os in ((KILLED_AFTER_BAR, "wsl"), (KILLED_AS_CODE, None), (RUNNER_VANISHED, "linux"),
                          (PAUSED_AFTER_LOAD, "windows"), (PAUSED_AFTER_LOAD, None), (WORKER_IN_DOCKER, None)):
        assert _top(text, host_os) == ("not_capacity", True, "host_ram"), text


def test_exit_causes_name_their_own_check() -> None:
    paused = diagnose_text(PAUSED_AFTER_LOAD).causes[0]
    assert paused.evidence["not_capacity_kind"] == "page_file" and "page file" in paused.fix
    worker = diagnose_text(WORKER_IN_DOCKER).causes[0]
    assert worker.evidence["check_command"] == "df -h /dev/shm" and worker.confidence < 0.96


def test_exit_marks_need_their_shape() -> None:
    # "Killed" inside a sentence, a finished load before the pause prompt, an error before it: none is read as host
    # memory. (A worker found dead outside a container was not read either until the fifty-ninth pass: three later
    # cases, all host RAM by their threads, made the OOM killer its likelier reading, 0.6 under the container's 0.75:
    # tests/oom/test_oom_fiftyninth_pass.py.)
    assert not diagnose_text("The job was Killed by the scheduler after 2 hours").found_oom
    finished = PAUSED_AFTER_LOAD.replace("0%|          | 0/4", "100%|██████████| 4/4")
    assert not diagnose_text(finished).found_oom
    errored = PAUSED_AFTER_LOAD.replace("続行", "Traceback (most recent call last):\nValueError: bad\n続行")
    assert _top(errored)[0] != "not_capacity"
    outside = diagnose_text("RuntimeError: DataLoader worker (pid(s) 25) exited unexpectedly")
    assert outside.report.signature == "worker_exit" and outside.top is not None and outside.top.confidence < 0.75


# state-spaces/mamba#1044.
SHARED_MEMORY = ("`mamba3_mimo_bwd.py` cannot launch the MIMO backward path on this Blackwell device: the generated "
                 "kernels require more dynamic shared memory than the GPU permits.\n\n"
                 "- device opt-in shared-memory limit: **101,376 B (~99 KB)**\n"
                 "- minimum generated requirement observed: **152,768 B (~149 KB)**")
# ggml-org/llama.cpp#11332.
MAX_BUFFER = ("Eval bug: ggml_gallocr_reserve_n tries to allocate beyond max buffer size\nI get an OOM error when trying "
              "to use CodeQwen 1.5 7B Q4_K_M with large (e.g. 65000) context sizes. Both model and KV buffers allocate "
              "just fine.")
# jundot/omlx#1998.
WIRED_CEILING = ("Memory problems again : Error: Prefill would require ~70.27 GB peak (current 67.54 GB + KV+SDPA 2.73 "
                 "GB) but metal_cap ceiling is 69.86 GB. Raise kernel iogpu.wired_limit_mb in Terminal (currently cap")


def test_limits_in_words() -> None:
    assert _top(SHARED_MEMORY) == ("not_capacity", True, "shared_memory")
    assert _top(MAX_BUFFER, "windows") == ("not_capacity", True, "buffer_limit")
    cap = diagnose_text(WIRED_CEILING)
    assert cap.found_oom and cap.causes[0].id == "per_process_cap"
    assert cap.causes[0].evidence["configured_limit_bytes"] < cap.causes[0].evidence["requested_bytes"]


def test_limits_need_their_words() -> None:
    assert not diagnose_text("Kernels that use shared memory are faster than those that do not.").found_oom
    assert _top("CUDA out of memory while allocating the compute buffer.")[0] != "not_capacity"
    # A need below the ceiling is no refusal.
    assert _top("Prefill would require ~60.00 GB peak but metal_cap ceiling is 69.86 GB.")[0] != "per_process_cap"


# amdegroot/ssd.pytorch#447 (the traceback's last frames).
IN_CONSTRUCTOR = ('  File "/media/disk/wudi/ssd.pytorch/ssd.py", line 136, in vgg\n'
                  '    conv2d = nn.Conv2d(in_channels, v, kernel_size=3, padding=1)\n'
                  '  File "/media/disk/wudi/.local/lib/python3.6/site-packages/torch/nn/modules/conv.py", line 330, in '
                  '__init__\n    False, _pair(0), groups, bias, padding_mode)\n'
                  '  File "/media/disk/wudi/.local/lib/python3.6/site-packages/torch/nn/modules/conv.py", line 41, in '
                  '__init__\n    out_channels, in_channels // groups, *kernel_size))\nRuntimeError: CUDA error: out of memory')
# MIC-DKFZ/nnUNet#359.
AT_VERY_BEGINNING = ("RuntimeError: CUDA error: out of memory in model initialization\n"
                     "I came across the CUDA error at the very beginning. Could help me with it?")


def test_bare_error_while_building_the_model_is_another_holder() -> None:
    for text in (IN_CONSTRUCTOR, AT_VERY_BEGINNING):
        assert _top(text)[:2] == ("other_process", True), text
    # The bare line alone keeps the job's own need first.
    assert _top("RuntimeError: CUDA error: out of memory")[0] == "genuine_shortage"


# Turoad/CLRNet#24, qubvel-org/segmentation_models.pytorch#287, deepseek-ai/DeepSeek-VL#30.
BATCH_ONE = "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED\neven if reduced batch size to 1, still shows up this error"
VERSIONS_TRIED = ("`RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED`\n\nI have tried many pytorch versions. The "
                  "error is still there. Could anyone help me?")
PYTHON_SWITCH_ZH = ("如果用 python3.10 + CUDA11.7/CUDA11.8 + torch2.0.1，运行 inference.py 会报错如下：\n"
                    "    return F.conv2d(input, weight, bias, self.stride,\n"
                    "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED\n改为 python3.8 后解决。")


def test_cudnn_handle_that_is_not_memory() -> None:
    for text in (BATCH_ONE, VERSIONS_TRIED, PYTHON_SWITCH_ZH):
        assert _top(text) == ("not_capacity", True, "driver_version"), text
    # A batch that is not 1 is not the batch-size-1 mark: it reads as the status alone does (the library first since
    # the thirty-fifth pass, tests/oom/test_oom_thirtyfifth_pass.py), and a failure in the backward pass stays memory.
    alone = _top("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED")
    assert _top("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED\neven with batch size 16 it fails") == alone
    assert _top("    loss.backward()\nRuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED\neven with batch size 16 "
                "it fails")[0] == "genuine_shortage"


# huggingface/accelerate#2586.
PER_GPU = ("## Gemma 3 27B QLoRA: `device_map=\"balanced\"` puts 19.78GB on one GPU, 0.3GB on others\n\n"
           "- GPU 7: **19.78GB** used (2.51GB free)\n- GPUs 5-6: **~0.3GB** each\n\n"
           "First training step tries to allocate 2.63GB on GPU 7 and OOMs.")
# InternLM/lmdeploy#684.
TURBOMIND_GROWS = ("[Bug] CUDA runtime error: out of memory\n模型：llama2-70B\n设备：A100/40G × 4\nlmdeploy版本：0.0.10\n\n"
                   "设置tp=4，持续运行时显存一直缓慢增长直到oom，以下是模型配置参数，如何排查问题？")


def test_placement_figures_and_engine_growth() -> None:
    top = diagnose_text(PER_GPU).causes[0]
    assert top.id == "multi_gpu_imbalance" and top.confidence > 0.85
    assert top.evidence["least_gpu_bytes"] < top.evidence["busiest_gpu_bytes"]
    growth = diagnose_text(TURBOMIND_GROWS).causes[0]
    assert growth.id == "kv_cache_budget" and "cache_max_entry_count" in growth.fix


def test_placement_and_growth_need_their_figures_and_engine() -> None:
    # Figures of one GPU only; equal figures; growth words without the engine.
    assert _top("GPU 0: 22GB used. CUDA out of memory. Tried to allocate 2.00 GiB")[0] != "multi_gpu_imbalance"
    assert _top("GPU 0: 20GB used\nGPU 1: 20GB used\nCUDA out of memory")[0] != "multi_gpu_imbalance"
    assert _top("CUDA runtime error: out of memory\n持续运行时显存一直缓慢增长直到oom")[0] != "kv_cache_budget"


def test_placement_figures_in_mb_read_as_mib() -> None:
    # "MB" as the doctor's parsers read it (binary): 9000 MB and 900 MB are 9000 and 900 MiB.
    top = diagnose_text("GPU 0: 9000MB used\nGPU 1: 900MB used\nCUDA out of memory. Tried to allocate 2.00 GiB").causes[0]
    assert top.id == "multi_gpu_imbalance"
    assert (top.evidence["busiest_gpu_bytes"], top.evidence["least_gpu_bytes"]) == (9000 * 2**20, 900 * 2**20)


# aigc-apps/EasyAnimate#157.
NOT_CLEARED = "VRAM does not clear after video generation so goes OOM after generating 2-3 videos"
# voice-cloning-app/Voice-Cloning-App#74.
LARGER_BATCH_AT_ONCE = ("My pc has 16 GB of RAM. If I try to use a batch size like 16 it starts training and after 10 "
                        "iterations it throws a Cuda oom error.\nand if I try something like 22 it throws a Cuda oom "
                        "error and obviously doesn't even start training.\n\nIs this the expected behavior?")
# WongKinYiu/yolor#199.
WITHOUT_REDUCING = ("CUDA out of memory after some epochs\nI'm training on an EC2 instance with T4 GPU and 16GB of memory."
                    "\n\nI'm using a batch size of 2 and image size of 960, however after 3 epochs the script is killed "
                    "because GPU is out of memory. How can I overcome this without reducing my batch size to 1?")


def test_leak_or_the_step_own_peak() -> None:
    assert _top(NOT_CLEARED)[0] == "leak"
    for text in (LARGER_BATCH_AT_ONCE, WITHOUT_REDUCING):
        assert _top(text)[0] == "genuine_shortage", text
    # The timing alone stays a leak.
    assert _top("CUDA out of memory after some epochs. I'm using a batch size of 2.")[0] == "leak"
