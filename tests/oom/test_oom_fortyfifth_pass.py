"""Forty-fifth pass (issue 28): Ray's host-memory monitor, FlashInfer's earlier workspace wordings, and the TPU
runtime's "allocatable / available" pair.

* Ray's memory monitor kills a task when the node's RAM passes its threshold (0.95): the raylet's "Task was killed due
  to the node running low on memory ... which exceeds the memory usage threshold of 0.95" (ray.exceptions.
  OutOfMemoryError) and, before Ray 2.0, "RayOutOfMemoryError: More than 95% of the memory on node ... is used (X / Y
  GB)", or its table of the node's largest processes ("PID MEM(GB) COMMAND" with ray:: workers). Host RAM
  (not_capacity, host_ram), with Ray's own fix; a GPU OOM inside a Ray task is not read so.
* FlashInfer's bump allocator over the caller's fixed workspace in its 2024 wording ("Failed to allocate memory for
  batch_prefill_tmp_v with size N and alignment 16 in AlignedAllocator", flashinfer-ai/flashinfer#413): buffer_limit.
* "Could not allocate N bytes in memory 0x0x0_HBM0; A bytes allocatable, F bytes available" with A < N <= F: the HBM
  is free in all but not in one piece (fragmentation); N above F is a shortage.

Every text is a real message quoted from the public thread named in its comment. Negative cases check that each
reading needs its own figures or words."""

from __future__ import annotations

from gpudesk.oom import diagnose_text

# real-stanford/flingbot#11 (cut after the kill message's first sentences).
RAY_KILL = ("ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.\n"
            "Memory on the node (IP: 192.168.0.107, ID: fc2befb2867ce88e73a8a45572c43a640751ae1f2b5e15bd8315f293) "
            "where the task (actor ID: f9cc340f5aef7b479d86345001000000, name=SimEnv.__init__, pid=4331, memory "
            "used=2.22GB) was running was 59.49GB / 62.58GB (0.950744), which exceeds the memory usage threshold of "
            "0.95. Ray killed this worker (ID: d98ac96cdd66ea8c0a2604609381c3256c8285b87822896c767f7714) because it "
            "was the most recently scheduled task")
# OpenRLHF/OpenRLHF#1013 (the title).
RAY_KILL_TITLE = "Task was killed due to the node running low on memory (ray oom)"
# ray-project/ray#15226.
RAY_OLD_MONITOR = ("ray._private.memory_monitor.RayOutOfMemoryError: More than 95% of the memory on node "
                   "ip-172-31-7-2 is used (7.12 / 7.49 GB). The top 10 memory consumers are:\n\nPID\tMEM\tCOMMAND\n"
                   "737\t0.76GiB\tray::APEX.train_buffered()\n1072\t0.4GiB\tray::LocalReplayBuffer")
# A CUDA OOM raised inside a Ray task (the wrapper's wording, then PyTorch's): the GPU's memory, not Ray's monitor.
RAY_TASK_CUDA_OOM = ("ray.exceptions.RayTaskError(OutOfMemoryError): ray::Worker.train() (pid=4411, ip=10.0.0.3)\n"
                     "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
                     "capacity of 79.15 GiB of which 1.06 GiB is free. Including non-PyTorch memory, this process has "
                     "78.08 GiB memory in use. Of the allocated memory 76.40 GiB is allocated by PyTorch, and 1.02 GiB "
                     "is reserved by PyTorch but unallocated.")

# verl-project/verl#224 (Ray's table of the node's largest processes, quoted without the kill message).
RAY_TOP_TABLE = ("I tested qwen7b on single node with 8*A800 80g and 96g memory and got OOM.\n"
                 "There were 8 rollout processes and each consumed 11G memory:\n```\nPID     MEM(GB) COMMAND\n"
                 "40126   11.20   ray::WorkerDict.actor_rollout_generate_sequences\n"
                 "40125   11.17   ray::WorkerDict.actor_rollout_generate_sequences\n"
                 "39907   0.54    ray::main_task\n...\n```")

# sgl-project/sglang#2102 (the last line of the traceback).
FLASHINFER_2024 = ("RuntimeError: Failed to allocate memory for batch_prefill_tmp_v with size 435814400 and alignment "
                   "16 in AlignedAllocator")

# jax-ml/jax#14304.
TPU_PIECES = ("XlaRuntimeError: RESOURCE_EXHAUSTED: Could not allocate 10485760 bytes in memory 0x0x0_HBM0; 4374528 "
              "bytes allocatable, 14942208 bytes available")


def test_ray_memory_monitor_kill_is_host_ram_with_rays_fix() -> None:
    for text in (RAY_KILL, RAY_KILL_TITLE, RAY_OLD_MONITOR):
        d = diagnose_text(text)
        top = d.causes[0]
        assert top.id == "not_capacity", text
        assert top.evidence["deciding_check"] == "host_ram"
        assert "Ray's memory monitor" in top.explanation and "fewer tasks or actors per node" in top.fix


def test_rays_table_of_the_largest_processes_is_host_ram() -> None:
    top = diagnose_text(RAY_TOP_TABLE).causes[0]
    assert top.id == "not_capacity" and top.evidence["deciding_check"] == "host_ram"
    assert "Ray's memory monitor" in top.explanation


def test_a_process_table_without_ray_workers_is_not_the_memory_monitor() -> None:
    text = RAY_TOP_TABLE.replace("ray::WorkerDict.actor_rollout_generate_sequences", "python train.py").replace(
        "ray::main_task", "python main.py")
    assert diagnose_text(text).causes[0].evidence.get("deciding_check") != "host_ram"


def test_cuda_oom_inside_a_ray_task_is_not_the_memory_monitor() -> None:
    top = diagnose_text(RAY_TASK_CUDA_OOM).causes[0]
    assert top.id != "not_capacity"
    assert "Ray's memory monitor" not in top.explanation


def test_flashinfer_workspace_overflow_2024_wording_is_the_buffer_limit() -> None:
    top = diagnose_text(FLASHINFER_2024).causes[0]
    assert top.id == "not_capacity" and top.evidence["deciding_check"] == "buffer_limit"


def test_allocation_failure_without_the_workspace_allocator_is_not_a_buffer_limit() -> None:
    text = "RuntimeError: Failed to allocate memory for batch_prefill_tmp_v with size 435814400 and alignment 16"
    top = diagnose_text(text).causes[0]
    assert top.evidence.get("deciding_check") != "buffer_limit"


def test_tpu_free_in_all_but_not_in_one_piece_is_fragmentation() -> None:
    d = diagnose_text(TPU_PIECES)
    top = d.causes[0]
    assert top.id == "fragmentation"
    assert top.evidence["reservable_bytes"] == 4374528 and top.evidence["free_bytes"] == 14942208
    assert "could not allocate one buffer" in top.explanation and "donate" in top.fix


def test_tpu_request_above_all_the_free_memory_is_not_fragmentation() -> None:
    text = TPU_PIECES.replace("Could not allocate 10485760", "Could not allocate 20485760")
    assert diagnose_text(text).causes[0].id != "fragmentation"
