"""Rules that need more than a pasted message: probe counters, samples over time, workers, several GPUs."""

from __future__ import annotations

from gpudesk.oom import (
    DeviceMemory,
    MemoryReport,
    MemorySample,
    ProcessMemory,
    WorkerState,
    diagnose,
    diagnose_text,
)

GiB, MiB = 1024**3, 1024**2


def ids(report):
    return [c.id for c in diagnose(report).causes]


def probe_report(**dev):
    r = MemoryReport(source="probe", framework="pytorch", kind="probe")
    r.devices.append(DeviceMemory(index=0, total_bytes=80 * GiB, **dev))
    r.device_index = 0
    return r


def test_normal_probe_gives_no_cause():
    r = probe_report(allocated_bytes=10 * GiB, reserved_bytes=11 * GiB, free_bytes=60 * GiB, num_alloc_retries=0)
    assert diagnose(r).causes == []


def test_fragmentation_from_probe_counters():
    r = probe_report(allocated_bytes=20 * GiB, reserved_bytes=40 * GiB, inactive_split_bytes=18 * GiB,
                     num_alloc_retries=7, largest_free_block_bytes=512 * MiB)
    causes = diagnose(r).causes
    assert causes[0].id == "fragmentation"
    assert causes[0].evidence["num_alloc_retries"] == 7
    assert "expandable_segments:True" in causes[0].fix


def test_fragmentation_fix_knows_expandable_segments_is_on():
    r = probe_report(allocated_bytes=20 * GiB, reserved_bytes=40 * GiB, inactive_split_bytes=18 * GiB)
    r.alloc_conf = {"expandable_segments": "True"}
    assert "already on" in diagnose(r).causes[0].fix


def test_largest_free_block_smaller_than_request():
    r = probe_report(allocated_bytes=30 * GiB, reserved_bytes=36 * GiB, largest_free_block_bytes=1 * GiB, free_bytes=0)
    r.requested_bytes = 4 * GiB
    d = diagnose(r)
    frag = next(c for c in d.causes if c.id == "fragmentation")
    assert frag.confidence >= 0.8


def test_leak_needs_growth_over_samples():
    r = probe_report(allocated_bytes=30 * GiB, reserved_bytes=31 * GiB)
    r.samples = [MemorySample(t_s=t, pid=7, device_index=0, allocated_bytes=(10 + 2 * t) * GiB) for t in range(6)]
    d = diagnose(r)
    leak = next(c for c in d.causes if c.id == "leak")
    assert leak.evidence["allocated_growth_bytes"] == 10 * GiB and leak.evidence["samples"] == 6
    assert any("checkpoint" in c for c in leak.checks) and any("scaler" in c for c in leak.checks)
    flat = probe_report(allocated_bytes=30 * GiB, reserved_bytes=31 * GiB)
    flat.samples = [MemorySample(t_s=t, device_index=0, allocated_bytes=(10 + (t % 2)) * GiB) for t in range(6)]
    assert "leak" not in ids(flat)


def test_host_memory_growth():
    r = MemoryReport(source="evidence")
    r.host_rss_samples = [(float(t), (4 + t) * GiB) for t in range(5)]
    cause = diagnose(r).causes[0]
    assert cause.id == "host_memory_growth" and "prefetch_factor" in cause.fix
    r.host_rss_samples = [(float(t), 4 * GiB + t * MiB) for t in range(5)]
    assert diagnose(r).causes == []


def test_zombie_workers_and_workers_on_gpu():
    r = MemoryReport(source="evidence")
    r.workers = [WorkerState(pid=11, status="zombie"), WorkerState(pid=12, status="sleeping", on_gpu=True)]
    cause = diagnose(r).causes[0]
    assert cause.id == "zombie_workers"
    assert cause.evidence == {"zombie_pids": [11], "workers_on_gpu_pids": [12]}


def test_killed_worker_in_text():
    text = ("RuntimeError: DataLoader worker (pid 4242) is killed by signal: Killed.\n"
            "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.90 GiB total capacity; "
            "14.90 GiB already allocated; 5.75 MiB free; 15.20 GiB reserved in total by PyTorch)")
    d = diagnose_text(text)
    assert "zombie_workers" in [c.id for c in d.causes]


def test_multi_gpu_imbalance():
    r = MemoryReport(source="evidence")
    r.devices = [DeviceMemory(index=i, allocated_bytes=b) for i, b in enumerate([30 * GiB, 18 * GiB, 19 * GiB])]
    cause = diagnose(r).causes[0]
    assert cause.id == "multi_gpu_imbalance"
    assert cause.evidence["busiest_gpu_index"] == 0 and cause.evidence["least_gpu_index"] == 1


def test_other_process_dead_holder():
    r = probe_report(allocated_bytes=10 * GiB, reserved_bytes=10 * GiB)
    r.device.other_processes = [ProcessMemory(pid=999999, used_bytes=2 * GiB, alive=False)]
    cause = next(c for c in diagnose(r).causes if c.id == "other_process")
    assert cause.evidence["dead_pids"] == [999999] and "fuser" in cause.fix


def test_non_pytorch_memory():
    r = probe_report(allocated_bytes=10 * GiB, reserved_bytes=11 * GiB, process_used_bytes=25 * GiB)
    cause = diagnose(r).causes[0]
    assert cause.id == "allocation_outside_allocator"
    assert cause.evidence["non_pytorch_bytes"] == 14 * GiB


def test_sysmem_fallback_text():
    d = diagnose_text("Training at 295 s/it, Task Manager shows 1.5 GB Shared GPU memory in use")
    assert d.causes[0].id == "sysmem_fallback"


def test_kv_budget_fix_names_the_value():
    d = diagnose_text("ValueError: The model's max seq len (8192) is larger than the maximum number of tokens "
                      "that can be stored in KV cache (5000). Try increasing `gpu_memory_utilization`")
    assert "--max-model-len 4992" in d.causes[0].fix


def test_shortage_sizing_effects_without_workload():
    cause = next(c for c in diagnose_text(
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1016.00 MiB (GPU 0; 23.99 GiB total "
        "capacity; 22.27 GiB already allocated; 0 bytes free; 22.28 GiB reserved in total by PyTorch)").causes
        if c.id == "genuine_shortage")
    assert cause.evidence["shortfall_bytes"] > 0
    assert cause.sizing and all(e.saved_bytes is None for e in cause.sizing)


def test_shortage_sizing_effects_with_workload():
    from gpudesk.sizing.memory import MemoryWorkload
    from gpudesk.sizing.shapes import spec_from_params

    spec = spec_from_params(7e9)
    workload = MemoryWorkload(mode="train", precision="fp32", micro_batch_size=8, gpus=4, seq_len_tokens=4096)
    text = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 0 has a total "
            "capacity of 79.25 GiB of which 1.00 GiB is free. Including non-PyTorch memory, this process has 78.20 "
            "GiB memory in use. Of the allocated memory 77.00 GiB is allocated by PyTorch, and 500.00 MiB is "
            "reserved by PyTorch but unallocated.")
    d = diagnose_text(text, spec=spec, workload=workload)
    cause = next(c for c in d.causes if c.id == "genuine_shortage")
    effects = {e.fix.split(" (")[0].split(" instead")[0]: e for e in cause.sizing}
    assert len(effects) == 4
    assert effects["Full activation checkpointing"].saved_bytes > 0
    assert effects["Halve the micro-batch"].saved_bytes > 0
    assert effects["Shard weights, gradients and optimizer state"].saved_bytes > 0
    # 18 B/param mixed-precision Adam keeps more state than fp32 Adam (16 B/param), but fp32 training stores 4-byte
    # activations: at micro-batch 8 x 4096 the halved activations outweigh the extra state.
    assert effects["bf16 mixed precision"].saved_bytes > 0
    assert cause.sizing == sorted(cause.sizing, key=lambda e: -e.saved_bytes)


def test_kv_budget_bytes_from_sizing():
    # vllm#2418: a LLaMA-2-7B-shaped fp16 model: ~0.5 MiB per token, so 3664 tokens is about 1.8 GiB
    import json
    from pathlib import Path

    from gpudesk.sizing.shapes import spec_from_params

    cases = [json.loads(x) for x in (Path(__file__).parent.parent / "fixtures/oom/cases.jsonl").read_text().splitlines()]
    cause = diagnose_text(cases[25]["message"], spec=spec_from_params(7e9)).causes[0]
    assert cause.id == "kv_cache_budget"
    assert 0.5 * MiB <= cause.evidence["kv_bytes_per_token"] <= 0.55 * MiB
    assert 1.7 * GiB < cause.evidence["kv_cache_bytes"] < 1.95 * GiB
    assert cause.evidence["kv_missing_bytes"] == 432 * cause.evidence["kv_bytes_per_token"]
    assert cause.sizing[0].saved_bytes == 4096 * cause.evidence["kv_bytes_per_token"] // 2


def test_kv_budget_bytes_are_per_tensor_parallel_rank():
    # vLLM's token capacity is per rank; each rank keeps max(1, kv_heads // tp) heads (vllm ModelConfig.get_num_kv_heads).
    import json
    from pathlib import Path

    from gpudesk.sizing import MemoryWorkload
    from gpudesk.sizing.shapes import spec_from_params

    cases = [json.loads(x) for x in (Path(__file__).parent.parent / "fixtures/oom/cases.jsonl").read_text().splitlines()]
    spec = spec_from_params(7e9)
    one = diagnose_text(cases[25]["message"], spec=spec, workload=MemoryWorkload(mode="inference", kv_precision="fp16"))
    two = diagnose_text(cases[25]["message"], spec=spec,
                        workload=MemoryWorkload(mode="inference", kv_precision="fp16", tensor_parallel=2))
    assert two.causes[0].evidence["kv_bytes_per_token"] * 2 == one.causes[0].evidence["kv_bytes_per_token"]
