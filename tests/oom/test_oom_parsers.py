"""Parsers on the real message shapes: every PyTorch era, memory_summary variants, TF, JAX, cuBLAS, vLLM."""

from __future__ import annotations

from oom_support import fixture_text, load_cases

from gpudesk.oom import parse_text
from gpudesk.oom.parsers.units import parse_count, parse_size, to_bytes
from gpudesk.units import format_bytes

GiB, MiB, KiB = 1024**3, 1024**2, 1024
CASES = load_cases()


def case(n: int) -> str:
    return CASES[n - 1]["message"]


def test_units():
    assert to_bytes("14.48", "GiB") == round(14.48 * GiB)
    assert to_bytes("0", "bytes") == 0
    assert to_bytes("1062", "MB") == 1062 * MiB  # old memory_summary labels are binary
    assert to_bytes("17.79", "G") == round(17.79 * GiB)
    assert parse_size("allocate 6.00MiB now") == 6 * MiB
    assert parse_size("no size here") is None
    assert parse_count("12794 K") == 12_794_000
    assert parse_count("  0    ") == 0
    assert parse_count("12 MB") is None
    assert format_bytes(None) == "N/A"
    assert format_bytes(1536) == "1.50 KiB"


def test_era1_cached_template():
    r = parse_text(fixture_text("pytorch_era1_cached.txt"))
    assert r.era.startswith("<=1.3")
    dev = r.device
    assert dev.total_bytes == round(11.17 * GiB)
    assert dev.allocated_bytes == round(10.90 * GiB)
    assert dev.free_bytes == 576 * KiB
    assert dev.reserved_bytes == round(10.90 * GiB) + round(30.96 * MiB)
    assert r.requested_bytes is None
    assert any("requested" in m for m in r.missing)


def test_era2_malloc_at_and_prefix():
    r = parse_text(fixture_text("pytorch_malloc_at_fairseq.txt"))
    assert r.era.startswith("1.5-1.6")
    assert r.requested_bytes == 246 * MiB
    assert r.device.reserved_bytes == round(27.88 * GiB)
    assert r.missing == []


def test_era3_old_tuple_with_hint():
    r = parse_text(case(2))
    assert r.era.startswith("1.10-2.0")
    assert r.parsed["exception_class"] == "OutOfMemoryError"
    assert r.alloc_conf_hint == "max_split_size_mb"
    assert r.device.free_bytes == round(46.81 * MiB)


def test_zero_bytes_free():
    r = parse_text(case(4))
    assert r.device.free_bytes == 0
    assert r.device.total_bytes == 4 * GiB


def test_era4_capacty_typo_and_processes():
    r = parse_text(case(6))
    assert r.era.startswith("2.1")
    dev = r.device
    assert len(dev.other_processes) == 15
    assert dev.process_used_bytes == round(13.82 * GiB)
    assert dev.reserved_bytes == round(11.54 * GiB) + round(677.26 * MiB)
    assert dev.non_pytorch_bytes == round(13.82 * GiB) - dev.reserved_bytes
    assert r.parsed["other_processes_count"] == 15


def test_pid_namespace_own_process_line():
    r = parse_text(case(7))
    dev = r.device
    assert dev.other_processes[0].is_target
    assert dev.process_used_bytes == round(13.94 * GiB)
    assert dev.other_processes_bytes is None
    assert any("host PID" in n for n in r.notes)


def test_era5_expandable_hint_and_unattributed():
    r = parse_text(case(9))
    assert r.era.startswith("2.2+")
    assert r.alloc_conf_hint == "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"
    dev = r.device
    # 23.61 - 0.044 - 22.69 GiB: display / desktop memory not listed as a process
    assert 0.85 * GiB < dev.unattributed_bytes < 0.9 * GiB


def test_rank_prefix():
    r = parse_text(case(10))
    assert r.parsed["rank"] == 2
    assert r.device_index == 2


def test_newest_hint():
    r = parse_text(case(11))
    assert r.era.startswith("newest")
    assert r.alloc_conf_hint == "PYTORCH_ALLOC_CONF=expandable_segments:True"


def test_private_pools():
    r = parse_text(case(12))
    assert r.era.startswith("2.4+")
    assert r.device.private_pool_bytes == round(19.83 * GiB)


def test_truncated_after_gpu():
    r = parse_text(case(17))
    assert r.requested_bytes == round(3725.29 * GiB)
    assert r.device.total_bytes is None
    assert "total capacity" in r.missing
    assert any("cut off" in n for n in r.notes)


def test_wrapped_message_gives_same_numbers():
    text = case(8)
    wrapped = "\n".join(text[i:i + 60] for i in range(0, len(text), 60))
    # wrapping may split a word; split only at spaces to mimic a terminal
    words, lines, line = text.split(" "), [], ""
    for w in words:
        if len(line) + len(w) > 70:
            lines.append(line)
            line = ""
        line += w + " "
    lines.append(line)
    a, b = parse_text(text), parse_text("\n".join(lines))
    assert a.parsed == b.parsed
    assert wrapped  # the hard-wrapped variant is at least accepted
    assert parse_text(wrapped).kind == "pytorch_oom"


def test_garbage_value_above_capacity_is_unknown():
    text = case(8).replace("this process has 22.88 GiB", "this process has 16777216.00 GiB")
    r = parse_text(text)
    assert r.device.process_used_bytes is None
    assert any("larger than the total capacity" in n for n in r.notes)


def test_memory_summary_mb_units():
    r = parse_text(fixture_text("memory_summary_35901.txt"))
    assert r.kind == "memory_summary"
    dev = r.device
    assert dev.index == 0
    assert dev.allocated_bytes == 1062 * MiB
    assert dev.peak_allocated_bytes == 4877 * MiB
    assert dev.reserved_bytes == 12420 * MiB
    assert dev.num_ooms == 1 and dev.num_alloc_retries == 1
    assert r.parsed["summary_allocated_large_pool_cur_bytes"] == 1048 * MiB


def test_memory_summary_kb_and_counts():
    r = parse_text(fixture_text("memory_summary_fairseq_lower.txt"))
    assert r.device.inactive_split_bytes == 18475 * KiB
    r2 = parse_text(fixture_text("memory_summary_counts_avhubert.txt"))
    assert r2.parsed["summary_active_allocs_cur"] == 0
    assert r2.parsed["summary_reserved_segments_tot_freed"] == 0


def test_memory_summary_kib_units_k_counts_and_log_prefix():
    text = (
        "2024-05-01 10:00:00 | WARNING | fairseq.trainer | | Allocated memory      |   32711 MiB |   33000 MiB |  767743 GiB |  767717 GiB |\n"
        "2024-05-01 10:00:00 | WARNING | fairseq.trainer | | Allocations           |   12794 K  |   13000 K  |  900 M     |  899 M     |\n"
    )
    r = parse_text(text)
    assert r.device.allocated_bytes == 32711 * MiB
    assert r.parsed["summary_allocated_tot_alloc_bytes"] == 767743 * GiB
    assert r.parsed["summary_allocations_cur"] == 12_794_000
    assert r.parsed["summary_allocations_tot_alloc"] == 900_000_000


def test_oom_message_followed_by_summary():
    r = parse_text(case(16))
    assert r.kind == "pytorch_oom"
    assert r.device.num_alloc_retries == 6
    assert r.device.allocated_bytes == 26 * GiB  # the message's figure wins over the later summary's


def test_tensorflow_op_and_bfc_stats():
    r = parse_text(case(20))
    assert r.framework == "tensorflow" and r.kind == "tf_resource_exhausted"
    assert r.tensor_shape == [64, 2016, 9, 9]
    assert r.requested_bytes == 64 * 2016 * 9 * 9 * 4
    assert r.allocator_name == "GPU_0_bfc"
    r = parse_text(case(21))
    assert r.device_index == 1
    r = parse_text(case(22))
    assert r.device.total_bytes == 10625279591
    assert r.device.allocated_bytes == 7350513920
    assert r.parsed["bfc_max_alloc_size_bytes"] == 3656908800
    assert r.requested_bytes == 16 * 892800 * 8 * 4 * 2 * 2 * 4


def test_tensorflow_allocator_line_and_stream_executor():
    r = parse_text(fixture_text("tf_bfc_allocator_line.txt"))
    assert r.requested_bytes == round(3.41 * GiB) and r.allocator_name == "GPU_0_bfc"
    r = parse_text(fixture_text("tf_stream_executor.txt"))
    assert r.kind == "cuda_driver_oom" and r.requested_bytes == 19104890880
    r = parse_text(case(23))
    assert r.parsed["cublas_handle_failed"] == 1 and r.requested_bytes == 33554432


def test_jax():
    r = parse_text(case(24))
    assert r.framework == "jax" and r.requested_bytes == 285212672
    r = parse_text(case(25))
    assert r.parsed["xla_total_allocation_bytes"] == 12 * MiB
    assert r.parsed["xla_total_fragmentation_ratio"] == 0.0
    r = parse_text(fixture_text("jax_old_replica.txt"))
    assert r.framework == "jax" and r.requested_bytes == 5520758552


def test_library_errors():
    r = parse_text(case(19))
    assert r.kind == "cublas_alloc_failed"
    assert r.parsed["library_status"] == "CUBLAS_STATUS_ALLOC_FAILED"
    assert r.parsed["library_call"] == "cublasCreate(handle)"
    assert parse_text(fixture_text("cuda_error_oom.txt")).kind == "cuda_error_oom"
    r = parse_text(fixture_text("pin_memory_thread.txt"))
    assert r.kind == "pin_memory_thread" and r.device_index == 0


def test_vllm():
    r = parse_text(fixture_text("vllm_kv_cache_full.txt"))
    assert r.framework == "vllm"
    assert r.max_model_len_tokens == 4096 and r.kv_cache_tokens == 3664
    log = "INFO 01-10 12:00:00 llm_engine.py:223] # GPU blocks: 229, # CPU blocks: 512\n" + case(26)
    r = parse_text(log)
    assert r.parsed["kv_cache_blocks"] == 229 and r.kv_cache_tokens == 3664


def test_report_roundtrip():
    from gpudesk.oom import MemoryReport

    r = parse_text(case(6))
    again = MemoryReport.from_dict(r.to_dict())
    assert again.to_dict() == r.to_dict()


def test_allocator_settings_printed_in_the_log_are_read():
    from gpudesk.oom import diagnose

    text = "$ export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n$ torchrun train.py\n" + case(10)
    r = parse_text(text)
    assert r.alloc_conf == {"expandable_segments": "True"}
    assert "already on" in diagnose(r).causes[0].fix


def test_jax_text_with_tensorflow_paths_is_jax():
    text = ("2023-01-01 00:00:00 W external/org_tensorflow/tensorflow/compiler/xla/pjrt/bfc.cc] Resource exhausted\n"
            + case(25))
    r = parse_text(text)
    assert r.framework == "jax" and not any("BFC" in m for m in r.missing)


def test_memory_summary_current_layout():
    from gpudesk.oom import diagnose

    r = parse_text(fixture_text("memory_summary_torch213_format.txt"))
    dev = r.device
    assert (dev.allocated_bytes, dev.peak_allocated_bytes) == (20480 * MiB, 30720 * MiB)
    assert (dev.reserved_bytes, dev.inactive_split_bytes) == (36864 * MiB, 14336 * MiB)
    assert (dev.num_alloc_retries, dev.num_ooms) == (7, 2)
    assert dev.oversize_allocations == 0 and dev.oversize_segments == 0
    assert r.parsed["summary_requested_cur_bytes"] == 19456 * MiB
    assert r.parsed["summary_allocations_tot_alloc"] == 90_000_000
    assert r.parsed["summary_allocated_tot_alloc_bytes"] == 900 * GiB
    assert r.parsed["summary_units"] == "binary (KiB/MiB/GiB)"
    top = diagnose(r).causes[0]
    assert top.id == "fragmentation" and top.evidence["inactive_split_bytes"] == 14336 * MiB


def test_all_zero_memory_summary_says_it_was_printed_for_an_unused_gpu():
    # QA: the avhubert table (every count 0) gave only "clauses missing", not why the figures are empty.
    from oom_support import fixture_text

    from gpudesk.oom import parse_text as parse

    notes = parse(fixture_text("memory_summary_counts_avhubert.txt")).notes
    assert any("memory_summary(device=N)" in n for n in notes)
    assert not any("memory_summary(device=N)" in n for n in parse(fixture_text("memory_summary_35901.txt")).notes)
