"""Seventeenth pass (issue 28): the "not found" and leak misses of fresh-20 read as mechanisms.

* Memory growth in more of users' words: usage that "increase(s) over time", an out-of-memory "when training the
  model for too long" or "in (the) second epoch", and in Chinese one that comes only after hundreds of pages in one run
  ("在350页到400页之间"): a leak, not the first step's need.
* Memory that "explodes" (the English counterpart of 爆显存) is a failure word: such a text is recognised.
* A process killed (the shell's "Killed", also quoted in prose) only once epochs had run: its host memory grew (leak,
  above the bare kill's host-RAM reading, with the same check).
* The shell's bare "Bus error (core dumped)": /dev/shm could not back a page (not capacity, host_ram check) at 0.6, not
  the 0.96 of a message that names shared memory; the kubelet's eviction "The node was low on resource: memory" is
  host RAM.

Every text is a real message quoted from the public thread named in its comment; a variant is marked as such.
Negative cases check that each reading needs its own words."""

from __future__ import annotations

from gpudesk.oom import diagnose_text


def _top(text: str) -> tuple[str, bool, float, object]:
    d = diagnose_text(text)
    top = d.causes[0]
    return top.id, d.found_oom, top.confidence, top.evidence.get("deciding_check")


# VDIGPKU/T-SEA#13.
TSEA = ("Cuda memory usage increase over time when training. Is it a bug or feature? How can I fix it or avoid it. My "
        "training process will be killed when it comes to around 800 epoches due to cuda memory usage, but I need more.")
# behavioral-data/Homekit2020#13.
HOMEKIT = "RuntimeError: CUDA error: out of memory when training the model for too long."
# ajhamdi/MVTN#2.
MVTN = '"killed"   will appear in second epoch of code training.'
# dmMaze/BallonsTranslator#198.
BALLONS = "如果这样一次跑500页\n就会有大概率出现在350页到400页之间 出现爆显存的问题"
# leftthomas/SRGAN#43.
SRGAN = ("GPU RAM exploding on validation\nThe first epoch training works fine, I use the same batch size as before and "
         "then when the validation come the GPU memory explode after some iterations (19% of the validation loop).")
# POSTECH-CVLab/point-transformer#50.
BUS = "Bus error (core dumped)"
# kubeflow/kubeflow#1261.
KUBELET = "The node was low on resource: memory.\nKilling container with id docker://notebook:Need to kill Pod"


def test_growth_words_are_a_found_leak() -> None:
    for text in (TSEA, HOMEKIT, BALLONS, SRGAN):
        cause, found, _conf, _check = _top(text)
        assert (cause, found) == ("leak", True), text


def test_growth_word_variants() -> None:
    # Variants: other verb forms and units of the same timing.
    assert _top("GPU memory grows over time until CUDA out of memory")[0] == "leak"
    assert _top("CUDA out of memory in the third epoch")[0] == "leak"
    assert _top("显存溢出，在1200张到1500张之间")[0] == "leak"


def test_growth_negatives() -> None:
    # The first step, or a long run said with no failure after it, is not growth.
    assert _top("RuntimeError: CUDA error: out of memory")[0] != "leak"
    assert _top("CUDA out of memory in the first epoch")[0] != "leak"
    # "exploded" of something other than memory is no memory failure.
    assert _top("The gradient exploded and the loss is nan")[1] is False


def test_kill_after_epochs_is_host_growth() -> None:
    cause, found, conf, check = _top(MVTN)
    assert (cause, found, check) == ("leak", True, "host_ram")
    assert conf > 0.7
    # A kill with no timing stays the host-RAM reading.
    assert _top("Killed")[:2] == ("not_capacity", True)
    assert _top("the process was 'killed'")[0] == "not_capacity"  # variant: quoted, no timing


def test_bare_bus_error_is_dev_shm_at_lower_confidence() -> None:
    cause, found, conf, check = _top(BUS)
    assert (cause, found, check) == ("not_capacity", True, "host_ram")
    assert conf == 0.6
    # Variant: bash's job report of the same signal.
    assert _top("./run.sh: line 3:  1234 Bus error               (core dumped) python train.py")[0] == "not_capacity"
    # The message that names shared memory keeps its high confidence.
    assert _top("ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared "
                "memory (shm).")[2] == 0.96
    # Negative: "bus error" in prose is no signal report.
    assert _top("The bus error rate on the PCIe link is low")[1] is False


def test_kubelet_eviction_is_host_ram() -> None:
    cause, found, _conf, check = _top(KUBELET)
    assert (cause, found, check) == ("not_capacity", True, "host_ram")
    # Negative: another resource under pressure is not memory.
    assert _top("The node was low on resource: ephemeral-storage.")[1] is False


# openucx/ucx#8229 (the locked-memory limit).
UCX = ("[1652739463.054681] [cn0022:4071024:0]        ib_iface.c:1035 UCX  ERROR ibv_create_cq(cqe=4096) failed: Cannot "
       "allocate memory\n[cn0022:4071024] pml_ucx.c:309  Error: Failed to create UCP worker")


def test_rdma_verbs_enomem_is_pinned_memory_with_ulimit_check() -> None:
    d = diagnose_text(UCX)
    top = d.causes[0]
    assert (top.id, top.evidence.get("deciding_check"), top.confidence) == ("not_capacity", "pin_memory", 0.8)
    assert top.checks[0].startswith("ulimit -l")
    assert "memlock" in top.fix
    # Variant: a memory registration.
    assert _top("ibv_reg_mr failed: Cannot allocate memory")[3] == "pin_memory"
    # Negative: a verbs call that failed for another reason names no memory.
    assert _top("ibv_create_qp failed: Invalid argument")[1] is False


# modelscope/ms-swift#1376 and InternLM/lmdeploy#2145 (an automatic device map that piles the model on the first cards).
SWIFT = ("部署InternVL2-26B显存配比不均衡，无法完成推理，会直接报显存溢出\n部署后，前两张卡跑满，后两张卡几乎无占用，"
         "推理就会报显存溢出。")
LMDEPLOY = ("hello，我使用 4 张 24G 显存的 3090，加载 InternVL2-26B，但是它好像并不是 device_map 的进行分配，0卡总是显存溢出，"
            "其余卡显存占用极少。")


def test_imbalance_said_in_words() -> None:
    for text in (SWIFT, LMDEPLOY):
        d = diagnose_text(text)
        assert (d.causes[0].id, d.found_oom) == ("multi_gpu_imbalance", True), text
        assert "max_memory" in d.causes[0].fix
    # Variant in English.
    assert _top("CUDA out of memory on GPU 0 while the other GPUs are almost empty")[0] == "multi_gpu_imbalance"
    # Negatives: an imbalanced data set is not about GPUs; a plain failure names no imbalance.
    assert _top("CUDA out of memory. My dataset is imbalanced across classes")[0] != "multi_gpu_imbalance"
    assert _top("显存溢出，4张卡都跑满了")[0] != "multi_gpu_imbalance"


# dhcode-cpp/X-R1#38 (vLLM inside a GRPO trainer: its gpu_memory_utilization share).
XR1 = "3B用4块GPU3090训练时，vllm报显存不足"


def test_vllm_inside_a_trainer_is_its_memory_share() -> None:
    d = diagnose_text(XR1)
    assert (d.causes[0].id, d.found_oom) == ("kv_cache_budget", True)
    assert "gpu_memory_utilization" in d.causes[0].fix
    # Variant in English.
    assert _top("GRPO training: vLLM CUDA out of memory")[0] == "kv_cache_budget"
    # Negatives: vLLM serving alone, or a trainer with no vLLM, is not this reading.
    assert _top("vllm serve: CUDA out of memory")[0] != "kv_cache_budget"
    assert _top("trainer: CUDA out of memory")[0] != "kv_cache_budget"


# chelsea0x3b/cudarc#113 (a cuDNN the Rust binding could not set up).
CUDARC = "Unable to instantiate Cudnn\nI get a `CUDNN_STATUS_NOT_INITIALIZED` error."


def test_cudnn_not_initialized_said_as_a_library_failure() -> None:
    assert _top(CUDARC)[0::3] == ("not_capacity", "driver_version")
    # Variant: "could not load cudnn".
    assert _top("could not load cudnn: CUDNN_STATUS_NOT_INITIALIZED")[3] == "driver_version"
    # Negatives: the handle's allocation status alone, or the status beside a framework that preallocates, keeps its
    # memory readings (cuDNN's NOT_INITIALIZED alone is the library's start since the forty-third pass).
    assert _top("CUDNN_STATUS_ALLOC_FAILED")[0] == "preallocation"
    assert _top("tensorflow: unable to instantiate cudnn: CUDNN_STATUS_NOT_INITIALIZED")[0] == "preallocation"


# bobmatnyc/trusty-tools#600 (ONNX Runtime's BFC arena over-reserving, then fragmenting).
TRUSTY = ("[trusty-search][CRITICAL] CUDA BFCArena over-reserves VRAM → OOM during embedding on 16GB GPUs\nONNX Runtime "
          "CUDA execution provider BFCArena grabs ~14.9GB of a 16GB T4 then fragments → `bfc_arena.cc ... Failed to "
          "allocate memory for requested buffer` on every embed batch during the semantic stage; worse under "
          "concurrency.")


def test_fragmentation_said_in_words() -> None:
    d = diagnose_text(TRUSTY)
    assert d.causes[0].id == "fragmentation"
    assert "arena_extend_strategy" in d.causes[0].fix
    # Variant outside ONNX Runtime: the allocator setting.
    assert _top("CUDA out of memory; the memory seems to be fragmented")[0] == "fragmentation"
    # Negatives: PyTorch's generic hint and XLA's statistics label are not a statement of fragmentation.
    assert _top("RuntimeError: CUDA error: out of memory. See documentation to avoid fragmentation")[0] != "fragmentation"
    assert _top("RESOURCE_EXHAUSTED: Out of memory while trying to allocate 4770354232 bytes.\n"
                "  total fragmentation:  680.30MiB (4.60%)")[0] != "fragmentation"


def test_bare_bus_error_says_its_reading_is_likely_not_certain() -> None:
    top = diagnose_text(BUS).causes[0]
    assert top.title.startswith("Likely not GPU memory")
    assert "SIGBUS" in top.explanation and top.checks[0].startswith("df -h /dev/shm")
