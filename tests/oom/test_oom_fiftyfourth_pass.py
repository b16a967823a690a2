"""Fifty-fourth pass (issue 28): the specific cause said in the text, where the doctor fell back on a shortage.

Each reading needs the evidence in the text itself, never a project's name:

* host RAM: the CPU named as the one out of memory ("CPU Out of Memory", "OOM on cpu"), and the raylet's summary of
  its memory monitor's kills ("Workers (tasks / actors) killed due to memory pressure (OOM)", src/ray/raylet/
  node_manager.cc) -> ``not_capacity`` / host_ram;
* the processes of a multi-GPU job on GPU 0: GPU 0 holding memory for processes given other GPUs, workers running
  out while the same work fits one GPU, the memory used on the first of several GPUs only -> ``multi_gpu_imbalance``;
* earlier processes or a graphics session said to hold the memory -> ``other_process`` (ROCm included);
* the KV cache named with a context of 32768 tokens or more -> ``kv_cache_budget``.

Every positive text is a real message quoted from the public thread named in its comment; the negatives keep the
shortage reading."""

from __future__ import annotations

import pytest

from gpudesk.oom import diagnose_text
from gpudesk.oom.rules.budget_words import long_context_said

# WM-PO/WMPO#3 (the raylet's summary of Ray's memory monitor; host RAM).
RAY_SUMMARY = ("(raylet) [2025-12-07 09:57:19,206 E 393463 393463] (raylet) node_manager.cc:3277: 2 Workers (tasks / "
               "actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at\nnode (ID: "
               "8289f87b78d161ae21bf723c7c57838345a56248dd48a2c3f0d5ac73, IP: 172.24.0.226) over the last time period.\n"
               "(raylet) Refer to the documentation on how to address the out of memory issue: "
               "https://docs.ray.io/en/latest/ray-core/scheduling/ray-oom-prevention.html. Consider provisioning more "
               "memory\non this node or reducing task parallelism by requesting more CPUs per task.")
# hkust-nlp/simpleRL-reason#84 (the issue title).
CPU_OOM_TITLE = "Actors died: CPU Out of Memory when performing actor_rollout_generate_sequences"
# deepspeedai/DeepSpeed#4867 (ZeRO-Infinity launch killed with signal 9).
OOM_ON_CPU = ("Naturally, then I've tried to use ZeRO-infinity to offload optimizer to nvme, but it was killed with "
              "signal -9, which is unexpected.\nPS: pretty sure is OOM on cpu instead of gpu.")
# pytorch/pytorch#9871 (seven processes, each given its own GPU; the maintainer: set_device right after import).
GPU0_FOR_EACH = ("However, although this should be expected to work fine, but from the second script to the last, they "
                 "give a `CUDA Runtime Error with out of memory`. It seems GPU 0 always occupy a lot of memory for each "
                 "script even if they are assigned with other GPUs.")
# numz/ComfyUI-SeedVR2_VideoUpscaler#30 (spawned workers all on GPU 0).
WORKERS_ONE_FITS = ("Running the `inference_cli.py` on a server with multiple RTX 4090 GPUs (e.g. `--cuda_device "
                    "0,1,2,3,4,5,6,7`) results in the last few workers processes crashing with **CUDA out-of-memory "
                    "(OOM)** errors, although the same video finishes successfully on a single GPU.")
# microsoft/singleshotpose#52 (DataParallel gathering on one GPU).
FIRST_GPU_ONLY = ("I changed the gpus = '0,1,2,3' , but the memory can only used in the first gpu. So i got the OUT "
                  "OF MEMORY ERROR.")
# NVIDIA/gpu-operator#2880 (leftover inference processes on one T4, listed by nvidia-smi).
PREVIOUS_HOLD = ("When another model deployment is attempted, a new python-inference-process is created while the "
                 "previous process(es) are still holding GPU memory. Over time, multiple inference processes "
                 "accumulate on the same physical GPU and eventually consume almost all available GPU memory.\n\nThe "
                 "result is a CUDA out-of-memory error during a subsequent model deployment.\n\n## Observed GPU memory "
                 "usage\n\nFor example, nvidia-smi showed the following processes consuming memory on a single Tesla "
                 "T4:\n\nPID       GPU Memory\n3794364 5144MiB\n3794783  2070 MiB\n3798331  1562 MiB\n3800664  866 "
                 "MiB\n3800979  5154 MiB")
# ROCm/legacy-rocm-build#6389 (graphics clients outside KFD's free figure).
GRAPHICS_HOLD = ("hipMemGetInfo over-reports free VRAM on discrete GPUs (KFD AVAILABLE_MEMORY excludes DRM graphics) "
                 "-> downstream OOM\n\nWith a graphics session holding VRAM the gap can be multiple GiB, and frameworks "
                 "that size GPU offload from this value over-commit and OOM at load.")
# ggml-org/llama.cpp#8817 (n_ctx defaulted to the training context; fixed by a 4096 default, PR 10136).
KV_LONG_CONTEXT = ("deepseek-v2 model will meet out of memory issue with the kv buffer size allocating about 43G with "
                   "a 160K context length from the model.  But when you set the -c or --ctx_size 2048, then the "
                   "inference can  work normally.")


def _top(text: str) -> str | None:
    top = diagnose_text(text).top
    return top.id if top is not None else None


@pytest.mark.parametrize("text", [RAY_SUMMARY, CPU_OOM_TITLE, OOM_ON_CPU])
def test_host_ram_said_is_not_capacity(text: str) -> None:
    d = diagnose_text(text)
    assert d.top is not None and d.top.id == "not_capacity"
    assert d.top.evidence.get("not_capacity_kind") == "host_ram"


def test_ray_summary_gets_rays_own_fix() -> None:
    d = diagnose_text(RAY_SUMMARY)
    assert d.top is not None and "Ray" in d.top.fix


@pytest.mark.parametrize("text", [
    # A negation, and the CPU named only as where tensors were moved.
    "The model is not an OOM on CPU, it is CUDA out of memory on GPU 0 when I moved the tensors to the cpu side",
    # A GPU OOM inside a Ray task arrives in the framework's CUDA words.
    "ray.exceptions.RayTaskError(OutOfMemoryError): ray::train() (pid=1234, ip=10.0.0.1)\n"
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
])
def test_gpu_oom_with_cpu_or_ray_words_stays_device(text: str) -> None:
    assert _top(text) == "genuine_shortage"


@pytest.mark.parametrize("text", [GPU0_FOR_EACH, WORKERS_ONE_FITS, FIRST_GPU_ONLY])
def test_multi_gpu_placement_said_is_imbalance(text: str) -> None:
    assert _top(text) == "multi_gpu_imbalance"


def test_gpu0_for_each_process_names_set_device() -> None:
    d = diagnose_text(GPU0_FOR_EACH)
    assert d.top is not None and "set_device" in d.top.fix


@pytest.mark.parametrize("text", [
    "I use gpus = '0,1,2,3' and the memory is used evenly on all gpus, but I still get CUDA out of memory with batch 64.",
    "CUDA out of memory on GPU 0 even if I set the batch size to 1.",
    "the last few workers crash with CUDA out of memory, and it also fails on a single gpu",
])
def test_multi_gpu_words_without_uneven_placement_stay_shortage(text: str) -> None:
    assert _top(text) == "genuine_shortage"


@pytest.mark.parametrize("text", [PREVIOUS_HOLD, GRAPHICS_HOLD])
def test_holder_said_is_other_process(text: str) -> None:
    d = diagnose_text(text)
    assert d.top is not None and d.top.id == "other_process"
    assert d.top.evidence.get("deciding_check") == "other_process"


def test_graphics_holder_on_rocm_gets_rocm_check() -> None:
    d = diagnose_text(GRAPHICS_HOLD)
    assert d.top is not None and "rocm-smi" in str(d.top.evidence.get("check_command"))


@pytest.mark.parametrize("text", [
    "The previous process exited cleanly and then the new run went CUDA out of memory.",
    "HIP out of memory. hipErrorOutOfMemory when loading the model on my RX 7900 GRE",
])
def test_no_holder_said_stays_shortage(text: str) -> None:
    assert _top(text) == "genuine_shortage"


def test_kv_cache_with_long_context_is_kv_budget() -> None:
    d = diagnose_text(KV_LONG_CONTEXT)
    assert d.top is not None and d.top.id == "kv_cache_budget"
    assert d.top.evidence.get("n_ctx_tokens") == 160 * 1024
    assert "--ctx-size" in d.top.fix


@pytest.mark.parametrize("text", [
    # A short context: the KV cache is small, the other readings decide.
    "llama.cpp runs out of memory with the kv buffer size allocating 2G with a 4096 context length",
    # A long context without the KV cache named.
    "out of memory with a 160K context length while loading the weights",
])
def test_kv_words_need_both_cache_and_long_context(text: str) -> None:
    assert _top(text) == "genuine_shortage"


def test_long_context_figures() -> None:
    assert long_context_said("a 160K context length") == 163840
    assert long_context_said("context length of 131072 tokens") == 131072
    assert long_context_said("n_ctx = 4096") is None
