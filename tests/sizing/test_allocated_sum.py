"""The allocated peaks summed over a job's GPUs (statistic ``allocated_sum``): every stage of an inference layer
split, N equal GPUs otherwise, refused where only the fullest pipeline stage is sized."""

import json

import pytest

from conftest import FIXTURES
from gpudesk.cli import main
from gpudesk.sizing import MemoryWorkload, SizingError, estimate_memory, spec_from_hf_config
from gpudesk.sizing.validation import evaluate_case

CONFIGS = FIXTURES / "sizing" / "configs"
MIXTRAL = spec_from_hf_config(CONFIGS / "mixtral-8x7b.config.json")
LLAMA7 = spec_from_hf_config(CONFIGS / "llama-2-7b.config.json")
AWQ_SPLIT = dict(mode="inference", precision="fp16", weight_format="int4-g128", kv_precision="fp16",
                 kv_cache_impl="static-linear-mask", fused_qkv_load=True, context_tokens=4096, prompt_tokens=4096,
                 flash_attention=False, gpus=2, pipeline_parallel=2)


def test_a_layer_split_sums_every_stage():
    # With every prompt position's logits the GPU with the LM head holds more than the first one.
    est = estimate_memory(MIXTRAL, MemoryWorkload(**dict(AWQ_SPLIT, flash_attention=True, prompt_logits="all")))
    assert len(est.gpu_allocated_bytes) == 2
    assert est.statistic_bytes("allocated_sum") == sum(est.gpu_allocated_bytes)
    # The fullest GPU is shown; the other holds the rest of the layers, so the sum is between one and two of it.
    assert max(est.gpu_allocated_bytes) == est.allocated_bytes
    assert est.allocated_bytes < est.statistic_bytes("allocated_sum") < 2 * est.allocated_bytes


def test_equal_gpus_sum_to_n_times_one():
    one = estimate_memory(LLAMA7, MemoryWorkload(mode="inference", context_tokens=2048))
    assert one.statistic_bytes("allocated_sum") == one.allocated_bytes
    zero3 = estimate_memory(LLAMA7, MemoryWorkload(mode="train", precision="bf16", gpus=8, sharding="zero3",
                                                   seq_len_tokens=2048))
    assert zero3.statistic_bytes("allocated_sum") == 8 * zero3.allocated_bytes


def test_pipeline_parallel_training_sizes_only_the_fullest_stage():
    est = estimate_memory(LLAMA7, MemoryWorkload(mode="train", precision="bf16", gpus=4, pipeline_parallel=4, micro_batch_size=4,
                                                 seq_len_tokens=2048))
    assert est.allocated_sum_bytes is None
    with pytest.raises(SizingError) as err:
        est.statistic_bytes("allocated_sum")
    assert err.value.field == "statistic"


def test_a_summed_published_row_read_as_allocated_sum():
    # AutoAWQ's Mixtral table sums max_memory_allocated over its two GPUs (fresh-26, kept unsupported as
    # "allocated"); read with the summed statistic the estimate lands near the figure.
    path = FIXTURES / "sizing" / "measured_peaks_fresh26.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    case = next(json.loads(line) for line in lines if "autoawq-0.2.1-mixtral-8x7b-gemm-2x4090-b1-ctx4096" in line)
    per_gpu = evaluate_case(case, CONFIGS)
    summed = evaluate_case(dict(case, statistic="allocated_sum"), CONFIGS)
    assert summed.estimated_bytes / summed.measured_bytes == pytest.approx(2 * per_gpu.ratio, rel=0.05)
    assert 0.85 <= summed.ratio <= 1.15


def test_cli_prints_the_sum_for_more_than_one_gpu(capsys):
    config = str(CONFIGS / "mixtral-8x7b.config.json")
    args = ["estimate", "memory", "--config", config, "--mode", "inference", "--precision", "fp16",
            "--weight-format", "int4-g128", "--kv-precision", "fp16", "--kv-cache-impl", "static-linear-mask",
            "--seq", "4096", "--prompt-tokens", "4096", "--gpus", "2", "--pp", "2", "--no-flash"]
    assert main(args) == 0
    assert "allocated, summed over 2 GPUs" in capsys.readouterr().out
    assert main(args + ["--json"]) == 0
    out = json.loads(capsys.readouterr().out)["per_gpu"]
    assert out["allocated_bytes"] < out["allocated_sum_bytes"] <= 2 * out["allocated_bytes"]
    one = ["estimate", "memory", "--config", config, "--mode", "inference", "--seq", "512"]
    assert main(one) == 0
    assert "summed over" not in capsys.readouterr().out
