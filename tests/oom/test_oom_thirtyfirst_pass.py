"""Thirty-first pass (issue 28, the misses of fresh batches 30-33): what the text carries that the doctor ignored.

* vLLM's multiprocess workers write every line behind their name and pid ("(Worker_TP0 pid=160) ERROR ...
  [multiproc_executor.py:962]", V0's "(VllmWorkerProcess pid=N) ... multiproc_worker_utils.py:N]"): a PyTorch
  out-of-memory error in that loop, with the worker holding most of the card, is the engine's gpu_memory_utilization
  budget leaving too little for the step, as for the engine's own log lines (twenty-fifth pass); the worker loading
  its weights is not.

* Memory neither free nor in PyTorch's pool, large enough to be read as another holder, while the pool itself holds
  more than it: the job's own working set is the GPU's largest occupant, so its need leads and the remainder is read
  second (gpudesk.oom.rules.held_outside).
* PyTorch's caching allocator warning "(free: F, total: T)" and XLA's request rounded after a line break: read.

Every text is a real message quoted from the public thread named in its comment. Negative cases check that each
reading needs its own words or figures."""

from __future__ import annotations

from helpers.oom_top import top_cause as _top

from gpudesk.oom import diagnose_text
from gpudesk.oom.parsers import terminal_rows


# noonghunna/club-3090#138 (vLLM V1, tensor-parallel worker 0; fixed by a lower --gpu-memory-utilization and
# --max-num-batched-tokens).
VLLM_WORKER = ("(Worker_TP0 pid=160) ERROR 05-20 20:54:32 [multiproc_executor.py:962] torch.OutOfMemoryError: CUDA out of "
               "memory. Tried to allocate 136.00 MiB. GPU 0 has a total capacity of 23.56 GiB of which 117.38 MiB is "
               "free. Including non-PyTorch memory, this process has 22.82 GiB memory in use. Of the allocated memory "
               "21.98 GiB is allocated by PyTorch, with 21.71 MiB allocated in private pools (e.g., CUDA Graphs), and "
               "391.42 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try "
               "setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for "
               "Memory Management  (https://docs.pytorch.org/docs/stable/notes/cuda.html"
               "#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)\n"
               "(Worker_TP0 pid=160) ERROR 05-20 20:54:32 [multiproc_executor.py:962] Traceback (most recent call last):\n"
               "(Worker_TP0 pid=160) ERROR 05-20 20:54:32 [multiproc_executor.py:962]   File \"/usr/local/lib/python3.12/"
               "dist-packages/vllm/v1/executor/multiproc_executor.py\", line 957, in worker_busy_loop\n"
               "(Worker_TP0 pid=160) ERROR 05-20 20:54:32 [multiproc_executor.py:962]     output = func(*args, **kwargs)")
# vllm-project/vllm#15182: a V1 worker's prefix (with its rank) on the frames of loading the weights.
_LOADING_FRAMES = ("(VllmWorker rank=5 pid=3073)   File \"/opt/venv/lib/python3.12/site-packages/vllm/v1/executor/"
                   "multiproc_executor.py\", line 244, in __init__\n(VllmWorker rank=5 pid=3073)     "
                   "self.worker.load_model()\n")


def test_vllm_worker_step_with_the_worker_holding_the_card_is_the_engines_budget() -> None:
    assert _top(VLLM_WORKER)[0] == "kv_cache_budget"
    cause = diagnose_text(VLLM_WORKER).causes[0]
    assert "--gpu-memory-utilization" in cause.fix
    assert cause.evidence["in_use_bytes"] == diagnose_text(VLLM_WORKER).report.parsed["this_process_bytes"]
    # V0's worker prefix and log file, coloured as a terminal prints it (kaito-project/kaito#866's paste).
    v0 = VLLM_WORKER.replace("(Worker_TP0 pid=160) ERROR 05-20 20:54:32 [multiproc_executor.py:962]",
                             "\x1b[1;36m(VllmWorkerProcess pid=232077)\x1b[0;0m ERROR 12-29 07:45:20 "
                             "multiproc_worker_utils.py:236]")
    assert _top(v0)[0] == "kv_cache_budget"


def test_vllm_worker_reading_needs_the_workers_marks_a_full_process_and_no_weight_loading() -> None:
    # The PyTorch sentence alone: the figures' own reading (a full GPU).
    bare = VLLM_WORKER.split("\n")[0].replace("(Worker_TP0 pid=160) ERROR 05-20 20:54:32 [multiproc_executor.py:962] ",
                                              "")
    assert _top(bare)[0] == "genuine_shortage"
    # A prefix that is not a process's name and pid is not a vLLM worker's.
    assert _top(VLLM_WORKER.replace("(Worker_TP0 pid=160)", "(Worker_TP0)"))[0] != "kv_cache_budget"
    # The worker holding half the card: not its budget.
    half = VLLM_WORKER.replace("this process has 22.82 GiB", "this process has 11.82 GiB").replace(
        "21.98 GiB is allocated", "10.98 GiB is allocated")
    assert _top(half)[0] != "kv_cache_budget"
    # The worker loading its weights: the weights do not fit, no budget was sized yet.
    assert _top(_LOADING_FRAMES + VLLM_WORKER)[0] != "kv_cache_budget"


# martinpacesa/BindCraft#225 (an 80 GB A100; the reporter rounded the size and the paste wraps before it).
XLA_ROUNDED = ("jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate \n"
               "~140GB")


def test_xla_request_rounded_after_a_line_break_is_read() -> None:
    d = diagnose_text(XLA_ROUNDED)
    assert d.report.requested_bytes == 140 * 1024**3
    # A request of 140 GB is the computation's size, not JAX's up-front reservation of the card.
    assert d.causes[0].id != "preallocation"
    # An approximation sign with no number after it is no size.
    assert diagnose_text(XLA_ROUNDED.replace("~140GB", "~ a lot")).report.requested_bytes is None


# wtdcode/vllm-backport#94 (eight 80 GB GPUs; the reporter elided the log prefix).
ALLOCATOR_WARNING = ("[rank5]:[W... CUDACachingAllocator.cpp:3933] memory allocation failed with OOM on device 5\n"
                     "  while trying to allocate 671088640 bytes (free: 513736704, total: 85095874560).\n"
                     "[rank2]: ... (same on devices 0-7)")


def test_caching_allocator_warning_gives_the_devices_free_and_total() -> None:
    d = diagnose_text(ALLOCATOR_WARNING)
    parsed = d.report.parsed
    assert (parsed["requested_bytes"], parsed["free_bytes"], parsed["total_capacity_bytes"]) == (
        671088640, 513736704, 85095874560)
    # 490 MiB free of 79 GiB for a 640 MiB request: the device is full.
    assert d.causes[0].id == "genuine_shortage"
    # Bare numbers in another parenthesis are not the device's figures.
    other = diagnose_text(ALLOCATOR_WARNING.replace("(free: 513736704, total: 85095874560)",
                                                    "(513736704, 85095874560)")).report.parsed
    assert "free_bytes" not in other and "total_capacity_bytes" not in other


def test_expandable_segments_mapping_warning_gives_its_request() -> None:
    # The same warning from expandable segments (a refused mapping of more of a segment), with the device mostly free:
    # the refusal is not capacity.
    mapped = ("[W... CUDACachingAllocator.cpp:3933] expandable_segments: memory mapping failed with OOM on device 0 "
              "while trying to map 20971520 bytes (free: 6223298560, total: 12884246528)")
    d = diagnose_text(mapped)
    assert d.report.parsed["requested_bytes"] == 20971520
    assert _top(mapped) == ("not_capacity", True, "free_exceeds_request")
    # With the device full, a shortage.
    full = mapped.replace("free: 6223298560", "free: 5832704")
    assert _top(full)[0] == "genuine_shortage"


# xinge008/Cylinder3D#109 (a smaller batch fixed it).
POOL_LARGER = ("RuntimeError: CUDA out of memory. Tried to allocate 844.00 MiB (GPU 0; 14.76 GiB total capacity; 9.70 GiB "
               "already allocated; 498.75 MiB free; 10.15 GiB reserved in total by PyTorch)")
# ranahanocka/MeshCNN#105.
POOL_LARGER_SMALL_GPU = ("RuntimeError: CUDA out of memory. Tried to allocate 1.62 GiB (GPU 0; 8.00 GiB total capacity; "
                         "3.97 GiB already allocated; 1.25 GiB free; 4.68 GiB reserved in total by PyTorch).")
# erikguo/yolov3#4 (another process held the GPU).
REMAINDER_LARGER = ("RuntimeError: CUDA out of memory. Tried to allocate 338.00 MiB (GPU 0; 3.95 GiB total capacity; "
                    "1.62 GiB already allocated; 23.00 MiB free; 9.10 MiB cached)")


def test_a_pool_larger_than_the_remainder_is_the_jobs_own_need_first() -> None:
    for text in (POOL_LARGER, POOL_LARGER_SMALL_GPU):
        d = diagnose_text(text)
        assert d.causes[0].id == "genuine_shortage", text
        # The remainder is still named, second, with the check that tells its holder.
        second = [c for c in d.causes[1:] if c.id in ("allocation_outside_allocator", "other_process")]
        assert second and second[0].confidence == 0.5, text


def test_a_remainder_larger_than_the_pool_keeps_its_holder_first() -> None:
    assert _top(REMAINDER_LARGER)[0] == "other_process"
    # Cylinder3D's figures with PyTorch holding less than the remainder: the remainder's reading leads again.
    smaller_pool = POOL_LARGER.replace("9.70 GiB already allocated", "3.70 GiB already allocated").replace(
        "10.15 GiB reserved", "4.15 GiB reserved")
    assert _top(smaller_pool)[0] in ("allocation_outside_allocator", "other_process")


# noonghunna/club-3090#41: terminal rows of 80 characters, each padded with spaces to the window's width, the line
# breaks lost in the copy (the third row lost its leading space to the padding).
TERMINAL_ROWS = ('(EngineCore pid=49) torch.OutOfMemoryError: CUDA out of memory. Tried to allocat' +
                 " " * 166 +
                 'e 50.00 MiB. GPU 0 has a total capacity of 23.80 GiB of which 23.75 MiB is free.' +
                 " " * 173 +
                 'Process 246738 has 23.77 GiB memory in use. Of the allocated memory 23.09 GiB i' +
                 " " * 172 +
                 's allocated by PyTorch, with 24.00 MiB allocated in private pools (e.g., CUDA Gr' +
                 " " * 170 + "\n" + " " * 2 +
                 'aphs), and 326.18 MiB is reserved by PyTorch but unallocated. If reserved but un')


def test_terminal_rows_padded_with_spaces_are_joined_back() -> None:
    d = diagnose_text(TERMINAL_ROWS)
    parsed = d.report.parsed
    assert parsed["requested_bytes"] == 50 * 1024**2
    assert parsed["allocated_bytes"] == round(23.09 * 1024**3)
    assert parsed["reserved_unallocated_bytes"] == round(326.18 * 1024**2)
    assert parsed["read_unwrapped"] == 1
    assert d.report.text == TERMINAL_ROWS  # the report keeps what was pasted
    joined = terminal_rows.unwrap(TERMINAL_ROWS)
    assert joined is not None and "Tried to allocate 50.00 MiB" in joined and "is free. Process 246738" in joined


def test_aligned_columns_are_not_terminal_rows() -> None:
    # One padded cut is alignment, not rows.
    assert terminal_rows.unwrap("Tried to allocate 50.00 MiB" + " " * 40 + "GPU 0 has a total capacity") is None
    # The shape of nvidia-smi's process table: runs of spaces between columns, rows of varying widths.
    table = ("|    0   N/A  N/A      2387      G   /usr/lib/xorg/Xorg                 " + " " * 18 + "4MiB |\n"
             "|    0   N/A  N/A     11470      C   python                             " + " " * 18 + "10889MiB |\n"
             "|    1   N/A  N/A     11471      C   python                             " + " " * 18 + "10889MiB |")
    assert terminal_rows.unwrap(table) is None
