"""The training peak follows the longest batch of the run: batches padded to their longest sample reach
``min(cap, longest sample)`` tokens a row (``--longest-sample-tokens``, the wizard's "Longest sample")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpudesk.cli import main
from gpudesk.planner.requirement import ModelMemory, Requirement, requirement_problems
from gpudesk.planner.workload import memory_workload
from gpudesk.sizing import SizingError
from gpudesk.sizing.memory import MemoryWorkload, estimate_memory, peak_batch_tokens
from gpudesk.sizing.shapes import spec_from_hf_config
from gpudesk.sizing.validation import case_workload

CONFIG = Path(__file__).resolve().parents[1] / "fixtures" / "sizing" / "configs" / "llama-2-7b.config.json"

# torchtune 0217d44c2 (2024-05) llama2/7B_lora: lora_finetune_distributed, FSDP1 over 2 GPUs, LoRA r8 on q_proj and
# v_proj, bf16, no activation checkpointing; alpaca_cleaned_dataset truncates at max_seq_len=512 and
# padded_collate pads each batch to its longest sample.
TORCHTUNE_2405_LORA = dict(mode="lora", precision="bf16-pure", optimizer="adamw", micro_batch_size=4, gpus=2,
                           sharding="fsdp", fsdp_version=1, recompute="none", lora_rank=8,
                           lora_targets=("q_proj", "v_proj"), lora_dropout=0.05, weight_loading="fsdp1-sync-states")


@pytest.fixture(scope="module")
def llama2():
    return spec_from_hf_config(CONFIG)


def test_peak_batch_is_the_shorter_of_cap_and_longest_sample():
    assert peak_batch_tokens(512, None) == 512
    assert peak_batch_tokens(512, 300) == 300
    assert peak_batch_tokens(512, 900) == 512  # truncated at the cap
    with pytest.raises(SizingError) as err:
        peak_batch_tokens(512, 0)
    assert err.value.field == "longest_sample_tokens"


def test_short_samples_shrink_activations_and_logits_not_model_states(llama2):
    capped = estimate_memory(llama2, MemoryWorkload(**TORCHTUNE_2405_LORA, seq_len_tokens=512))
    padded = estimate_memory(llama2, MemoryWorkload(**TORCHTUNE_2405_LORA, seq_len_tokens=512,
                                                    longest_sample_tokens=300))
    as_seq = estimate_memory(llama2, MemoryWorkload(**TORCHTUNE_2405_LORA, seq_len_tokens=300))
    assert padded.breakdown == as_seq.breakdown
    assert padded.component("activations") == pytest.approx(capped.component("activations") * 300 / 512, rel=0.02)
    assert padded.component("logits") == pytest.approx(capped.component("logits") * 300 / 512, rel=1e-6)
    assert padded.component("weights") == capped.component("weights")
    assert any("300 tokens a row" in text and "cap of 512" in text for text, _ in padded.assumptions)
    # A longest sample beyond the cap is truncated to it: the same estimate, no note.
    long = estimate_memory(llama2, MemoryWorkload(**TORCHTUNE_2405_LORA, seq_len_tokens=512, longest_sample_tokens=4096))
    assert long.breakdown == capped.breakdown and long.assumptions == capped.assumptions


def test_full_training_and_qlora_follow_the_peak_batch_too(llama2):
    for mode, extra in (("train", {}), ("qlora", {"recompute": "full"})):
        w = dict(mode=mode, precision="bf16-pure", optimizer="adamw", micro_batch_size=2, **extra)
        short = estimate_memory(llama2, MemoryWorkload(**w, seq_len_tokens=2048, longest_sample_tokens=700))
        assert short.breakdown == estimate_memory(llama2, MemoryWorkload(**w, seq_len_tokens=700)).breakdown


def test_cli_flag_and_errors(capsys):
    base = ["estimate", "memory", "--config", str(CONFIG), "--mode", "lora", "--precision", "bf16-pure",
            "--optimizer", "adamw", "--batch", "4", "--gpus", "2", "--sharding", "fsdp", "--fsdp-version", "1",
            "--lora-rank", "8", "--lora-targets", "q_proj,v_proj", "--lora-dropout", "0.05", "--seq", "512", "--json"]
    assert main(base) == 0
    capped = json.loads(capsys.readouterr().out)["per_gpu"]["allocated_bytes"]
    assert main(base + ["--longest-sample-tokens", "300"]) == 0
    padded = json.loads(capsys.readouterr().out)["per_gpu"]["allocated_bytes"]
    assert padded < capped
    assert main(base + ["--longest-sample-tokens", "0"]) == 2
    assert "--longest-sample-tokens" in capsys.readouterr().err
    assert main(["estimate", "memory", "--config", str(CONFIG), "--mode", "inference",
                 "--longest-sample-tokens", "300"]) == 2
    assert "applies to training" in capsys.readouterr().err


def test_wizard_field_and_validation_rows_reach_the_workload():
    req = Requirement(model=ModelMemory(config_path=str(CONFIG), mode="lora", seq_len_tokens=512,
                                        longest_sample_tokens=300))
    assert not [p for p in requirement_problems(req) if p.field.startswith("model.")]
    assert memory_workload(req).longest_sample_tokens == 300
    bad = Requirement(model=ModelMemory(config_path=str(CONFIG), mode="lora", longest_sample_tokens=-5))
    assert [p.field for p in requirement_problems(bad) if p.field.startswith("model.")] == [
        "model.longest_sample_tokens"]
    row = {"method": "lora", "seq_len_tokens": 512, "longest_sample_tokens": 300}
    assert case_workload(row).longest_sample_tokens == 300
    assert case_workload({"method": "lora"}).longest_sample_tokens is None


def test_a_case_with_longest_sample_scores_what_the_cli_prints(capsys):
    from gpudesk.sizing.validation import evaluate_case

    case = {"id": "synthetic-padded", "method": "lora", "config": "llama-2-7b", "value": 20, "unit": "GiB",
            "statistic": "allocated", "precision": "bf16-pure", "optimizer": "adamw", "seq_len_tokens": 512,
            "longest_sample_tokens": 300, "micro_batch_size": 4, "lora_rank": 8, "lora_targets": "q_proj,v_proj"}
    result = evaluate_case(case, CONFIG.parent)
    assert not result.error
    assert main(["estimate", "memory", "--config", str(CONFIG), "--mode", "lora", "--precision", "bf16-pure",
                 "--optimizer", "adamw", "--seq", "512", "--longest-sample-tokens", "300", "--batch", "4",
                 "--lora-rank", "8", "--lora-targets", "q_proj,v_proj", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["per_gpu"]["allocated_bytes"] == result.estimated_bytes
