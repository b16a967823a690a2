"""Pipeline-parallel schedules walked rank by rank: in-flight micro-batches and accumulated gradients at the peak."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.memory import MemoryWorkload, estimate_memory
from gpudesk.sizing.pipeline import fullest_stage_params, pipeline_peak, rank_schedule, stages_per_rank_for
from gpudesk.sizing.shapes import spec_from_hf_config

CONFIGS = Path(__file__).resolve().parents[1] / "fixtures" / "sizing" / "configs"


def test_1f1b_first_rank_holds_min_p_m_microbatches():
    # Narayanan et al. 2021: the first stage of 1F1B holds p micro-batches, the last one 1.
    assert pipeline_peak("1f1b", 8, 32, 1, 1.0, 0.0).activation_chunks == 8
    assert pipeline_peak("1f1b", 8, 4, 1, 1.0, 0.0).activation_chunks == 4
    last = rank_schedule("1f1b", 4, 6, 1, 3)
    assert last[:3] == [("F", 0), ("B", 0), ("F", 0)]
    assert pipeline_peak("gpipe", 4, 6, 1, 1.0, 0.0).activation_chunks == 6


def test_every_rank_runs_each_forward_and_backward_once():
    for schedule, v in (("1f1b", 1), ("interleaved-1f1b", 2), ("interleaved-1f1b", 3), ("gpipe", 1)):
        for rank in range(4):
            actions = rank_schedule(schedule, 4, 8, v, rank)
            for chunk in range(v):
                assert actions.count(("F", chunk)) == 8 and actions.count(("B", chunk)) == 8
            alive = 0
            for kind, _chunk in actions:  # a backward never comes before its forward
                alive += 1 if kind == "F" else -1
                assert alive >= 0


def test_interleaved_allocates_chunk_gradients_one_after_the_other():
    # 8 stages, 8 micro-batches, 2 chunks: rank 0 runs all 16 forwards first (PyTorch warm-up
    # (v-1)*8 + 2*7 = 22, capped at 16), so its peak is either all activations with one chunk's gradients or
    # half of them with both: lower than 1F1B, which holds 8 micro-batches of its whole stage with all gradients.
    act, grad = 1.0, 10.0
    one = pipeline_peak("1f1b", 8, 8, 1, act * 2, grad * 2)
    inter = pipeline_peak("interleaved-1f1b", 8, 8, 2, act, grad)
    assert one.bytes == 8 * 2 + 20
    assert inter.bytes == max(16 * act + grad, 8 * act + 2 * grad)
    assert inter.bytes < one.bytes


def test_bad_pipeline_inputs_name_the_field():
    with pytest.raises(SizingError) as err:
        stages_per_rank_for("1f1b", 2)
    assert err.value.field == "pipeline_stages_per_rank"
    with pytest.raises(SizingError) as err:
        pipeline_peak("interleaved-1f1b", 4, 9, 2, 1.0, 0.0)  # 9 micro-batches do not split into 2 rounds
    assert err.value.field == "pipeline_microbatches"
    spec = spec_from_hf_config(CONFIGS / "llama-3.1-405b.config.json")
    with pytest.raises(SizingError) as err:
        estimate_memory(spec, MemoryWorkload(gpus=64, tensor_parallel=8, pipeline_parallel=8, micro_batch_size=6,
                                             pipeline_microbatches=4))
    assert err.value.field == "pipeline_microbatches"
    with pytest.raises(SizingError) as err:
        estimate_memory(spec, MemoryWorkload(mode="lora", gpus=8, pipeline_parallel=2))
    assert err.value.field == "pipeline_parallel"


def test_fsdp_pipeline_keeps_stage_parameters_and_gradients_unsharded():
    spec = spec_from_hf_config(CONFIGS / "llama-3.1-405b.config.json")
    base = dict(mode="train", precision="bf16", optimizer="adamw", gpus=512, tensor_parallel=8, sequence_parallel=True,
                sharding="fsdp", recompute="full", compiled=True, micro_batch_size=32, seq_len_tokens=8192,
                pipeline_parallel=8)
    one = estimate_memory(spec, MemoryWorkload(**base)).breakdown
    inter = estimate_memory(spec, MemoryWorkload(**base, pipeline_schedule="interleaved-1f1b")).breakdown
    # The fullest stage: 1/8 of the layers and one whole vocabulary table (fullest_stage_params), over TP 8.
    table = spec.vocab_size * spec.hidden_size
    stage_params = ((spec.params - spec.embedding_params) / 8 + table) / 8
    assert one["unsharded_parameters"] == pytest.approx(stage_params * 2, rel=1e-6)
    assert one["unsharded_gradients"] == pytest.approx(stage_params * 4, rel=1e-6)  # fp32 reduce dtype
    assert "gathered_layers" not in one
    # Interleaved: the same stage size, but the peak holds half the gradients or half the activations.
    assert sum(inter.values()) < sum(one.values())
    more = estimate_memory(spec, MemoryWorkload(**{**base, "pipeline_parallel": 4, "gpus": 256})).breakdown
    assert more["unsharded_parameters"] == pytest.approx(
        2 * ((spec.params - spec.embedding_params) / 4 + table) / 8, rel=1e-6)


def test_cli_pipeline_flags_and_their_errors(capsys):
    import json

    from gpudesk.cli import main

    config = str(CONFIGS / "llama-3.1-405b.config.json")
    base = ["estimate", "memory", "--config", config, "--mode", "train", "--gpus", "512", "--tp", "8", "--sp",
            "--sharding", "fsdp", "--recompute", "full", "--compile", "--batch", "32", "--seq", "8192", "--pp", "8"]
    assert main(base + ["--json"]) == 0
    one = json.loads(capsys.readouterr().out)["per_gpu"]
    assert main(base + ["--pp-schedule", "interleaved-1f1b", "--json"]) == 0
    inter = json.loads(capsys.readouterr().out)["per_gpu"]
    assert inter["reserved_bytes"] < one["reserved_bytes"]
    assert one["breakdown_bytes"]["unsharded_gradients"] > 0
    assert main(base + ["--pp-microbatches", "5"]) == 2
    assert "--pp-microbatches" in capsys.readouterr().err
    assert main(base + ["--pp-stages-per-rank", "2"]) == 2  # 1f1b runs one stage per rank
    assert "--pp-stages-per-rank" in capsys.readouterr().err
    assert main(base[:-2] + ["--pp", "3"]) == 2
    assert "--pp" in capsys.readouterr().err


# Megatron-Bridge Llama3 70B SFT on 32 x H100, FP8 current scaling, TP4 PP4 VPP5, MBS 1, GBS 32 (DP 2): 16 pipeline
# micro-batches of one sequence each (skills/nemo-mbridge-perf-memory-tuning/SKILL.md at 6d9fce9, peak 58.8-59 GB).
MBRIDGE_70B = dict(mode="train", precision="fp8", optimizer="adamw", seq_len_tokens=4096, micro_batch_size=1, gpus=32,
                   sharding="zero1", tensor_parallel=4, sequence_parallel=True, pipeline_parallel=4,
                   pipeline_schedule="interleaved-1f1b", pipeline_stages_per_rank=5, recompute="none")


def test_megatron_global_batch_gives_the_pipeline_microbatches_of_one_micro_batch_each():
    from gpudesk.sizing.pipeline import step_batching

    assert (step_batching(32, 1, 2).microbatches, step_batching(32, 1, 2).local_batch) == (16, 16)
    spec = spec_from_hf_config(CONFIGS / "llama-3.1-70b.config.json")
    est = estimate_memory(spec, MemoryWorkload(**MBRIDGE_70B, global_batch_size=32))
    # The old reading (one sequence split into 16 micro-batches) is refused; the global batch answers it.
    with pytest.raises(SizingError) as err:
        estimate_memory(spec, MemoryWorkload(**MBRIDGE_70B, pipeline_microbatches=16))
    assert err.value.field == "pipeline_microbatches"
    # Same as the torchtitan reading of a 16-sequence rank batch split into 16 micro-batches.
    split = estimate_memory(spec, MemoryWorkload(**{**MBRIDGE_70B, "micro_batch_size": 16}, pipeline_microbatches=16))
    assert est.breakdown == split.breakdown
    # Rank 0 holds (v-1) p + 2 (p-1) + 1 = 23 chunks of 80 / (4 x 5) = 4 layers: L (1 + (p-1)/(p v)) = 92 layers.
    assert any("23 micro-batch chunks" in text for text, _src in est.assumptions)
    assert est.assumptions[0][0] == "global batch 32 = micro-batch 1 x 16 micro-batches per step x 2 data-parallel GPUs"
    # Without FSDP the stage's 16-bit gradients accumulate over the 16 micro-batches: the steady 1F1B state still
    # holds 23 chunks in flight once backwards have reached all five chunks, so all of them are counted.
    assert est.breakdown["gradients"] == pytest.approx(fullest_stage_params(
        spec.params, spec.vocab_size * spec.hidden_size, spec.embedding_params, 4) / 4 * 2, rel=1e-6)
    assert est.breakdown["activations"] == split.breakdown["activations"]
    measured = 59e9  # reported by the last pipeline rank (Megatron-Bridge logs before 2026-05-08): an upper band
    assert 0.85 < est.statistic_bytes("allocated") / measured < 1.45
    # VPP 10 halves the chunk: rank 0 holds (10-1) 4 + 6 + 1 = 43 chunks of 2 layers = 86 layers, fewer than 92.
    vpp10 = estimate_memory(spec, MemoryWorkload(**{**MBRIDGE_70B, "pipeline_stages_per_rank": 10}, global_batch_size=32))
    assert vpp10.breakdown["activations"] < est.breakdown["activations"]


def test_global_batch_errors_and_accumulation_without_pipeline():
    spec = spec_from_hf_config(CONFIGS / "llama-3.1-70b.config.json")
    with pytest.raises(SizingError) as err:
        estimate_memory(spec, MemoryWorkload(**MBRIDGE_70B, global_batch_size=33))
    assert err.value.field == "global_batch_size"
    with pytest.raises(SizingError) as err:
        estimate_memory(spec, MemoryWorkload(**MBRIDGE_70B, global_batch_size=32, pipeline_microbatches=8))
    assert err.value.field == "pipeline_microbatches"
    with pytest.raises(SizingError) as err:
        estimate_memory(spec, MemoryWorkload(mode="inference", global_batch_size=8))
    assert err.value.field == "global_batch_size"
    # Without pipeline parallelism several micro-batches a step are gradient accumulation.
    flat = dict(mode="train", gpus=8, sharding="fsdp", micro_batch_size=1, seq_len_tokens=2048, recompute="full")
    small = spec_from_hf_config(CONFIGS / "llama-3.1-8b.config.json")
    assert estimate_memory(small, MemoryWorkload(**flat, global_batch_size=32)).breakdown == \
        estimate_memory(small, MemoryWorkload(**flat, gradient_accumulation=True)).breakdown
    assert estimate_memory(small, MemoryWorkload(**flat, global_batch_size=8)).breakdown == \
        estimate_memory(small, MemoryWorkload(**flat)).breakdown


def test_cli_global_batch(capsys):
    from gpudesk.cli import main

    config = str(CONFIGS / "llama-3.1-70b.config.json")
    base = ["estimate", "memory", "--config", config, "--mode", "train", "--precision", "fp8", "--optimizer", "adamw",
            "--seq", "4096", "--batch", "1", "--gpus", "32", "--sharding", "zero1", "--tp", "4", "--sp", "--pp", "4",
            "--pp-schedule", "interleaved-1f1b", "--pp-stages-per-rank", "5", "--recompute", "none"]
    assert main(base + ["--global-batch", "32"]) == 0
    assert "23 micro-batch chunks" in capsys.readouterr().out
    assert main(base + ["--global-batch", "31"]) == 2
    assert "--global-batch" in capsys.readouterr().err
    assert main(base + ["--pp-microbatches", "16"]) == 2  # the split reading of a batch of 1
    assert "--pp-microbatches" in capsys.readouterr().err


def test_harness_types_the_megatron_rows_as_global_batch():
    import json

    from gpudesk.sizing.validation import case_global_batch, case_workload

    rows = [json.loads(line) for line in (CONFIGS.parent / "measured_peaks_fresh10.jsonl").read_text().splitlines()
            if "mbridge2605" in line]
    # GBS 32 in every row of the source's table: MBS 1 x 16 micro-batches x DP 2, or x 32 x DP 1.
    assert [case_global_batch(r) for r in rows] == [32, 32, 32, 32]
    assert case_workload(rows[0]).micro_batch_size == 1
    titan = [json.loads(line) for line in (CONFIGS.parent / "measured_peaks.jsonl").read_text().splitlines()
             if "torchtitan-405b-3d" in line]
    assert titan and all(case_global_batch(r) is None for r in titan)  # the split reading fits: unchanged


def test_pipeline_gradients_without_fsdp_appear_at_the_first_backward():
    # 1F1B, 4 stages, 8 micro-batches, DDP: rank 0 holds 4 micro-batches in flight when its first backward creates
    # the stage's gradients, which then stay while the steady state keeps 4 in flight.
    spec = spec_from_hf_config(CONFIGS / "llama-3.1-8b.config.json")
    base = dict(mode="train", precision="bf16", optimizer="adamw", seq_len_tokens=4096, gpus=4, pipeline_parallel=4,
                recompute="none", compiled=True)
    many = estimate_memory(spec, MemoryWorkload(**base, micro_batch_size=8, pipeline_microbatches=8)).breakdown
    stage_grads = ((spec.params - spec.embedding_params) / 4 + spec.vocab_size * spec.hidden_size) * 2
    assert many["gradients"] == pytest.approx(stage_grads, rel=1e-6)
    # One micro-batch: nothing accumulates, the peak is the start of backward with the output layer's gradient only.
    # (8K tokens: at 4K the first stage's states with its whole embedding table make the step the peak instead.)
    one = estimate_memory(spec, MemoryWorkload(**{**base, "seq_len_tokens": 8192}, micro_batch_size=1,
                                               pipeline_microbatches=1)).breakdown
    assert one["gradients"] == pytest.approx(spec.vocab_size * spec.hidden_size * 2)
    assert one["gradients"] < stage_grads / 3


def test_fullest_stage_holds_its_share_of_the_layers_and_a_whole_vocabulary_table():
    # Megatron-LM theoretical_memory_usage.py: (transformer params / pp + vocab x hidden) / tp on the most loaded
    # shard; the first stage keeps the whole input embedding (the last its head or tied copy).
    assert fullest_stage_params(1000, 100, 100, 4) == pytest.approx(900 / 4 + 100)
    assert fullest_stage_params(1100, 100, 200, 4) == pytest.approx(900 / 4 + 100)  # untied: one table a stage
    assert fullest_stage_params(1000, 100, 100, 1) == 1000
    spec = spec_from_hf_config(CONFIGS / "megatron2021-gpt-40x6144-h32.config.json")
    table = spec.vocab_size * spec.hidden_size
    for pp in (4, 16):
        est = estimate_memory(spec, MemoryWorkload(mode="train", precision="fp16", optimizer="adamw", gpus=4 * pp,
                                                   tensor_parallel=4, pipeline_parallel=pp, micro_batch_size=pp,
                                                   seq_len_tokens=1024, recompute="full"))
        stage_params = ((spec.params - spec.embedding_params) / pp + table) / 4
        assert est.breakdown["weights"] == pytest.approx(2 * stage_params, rel=1e-6)
        assert est.breakdown["weights"] > 2 * spec.params / (4 * pp)
